//go:build race

package generator

// Under -race, go list -export asks for the race build of the packages,
// which the test's own build has just put in the cache: make test does not
// compile the standard library a second time.
func init() { goListFlags = append(goListFlags, "-race") }
