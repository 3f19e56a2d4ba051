// Package wire is what only resgen-generated code calls: it writes path,
// query, header and cookie parameters and form and multipart bodies the way
// the spec's styles say, makes idempotency keys, and reads and writes the
// JSON of unions; it holds the data a generated method fills for its call
// (Request, Response, Credential), which package runtime reads, and the
// PolicyError of the generator's policy checks. Client users never need
// it (what they touch is in package runtime: client and call options,
// errors, policies, breakers, the observer; the engine generated code
// builds is in package impl); its API may change with any resgen version,
// in step with the generator.
package wire
