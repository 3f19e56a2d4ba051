//go:build race

package load

// raceSpecLimit bounds the real specs the slowest comparisons read under
// the race detector, which makes them ten times slower; make test runs
// them over every spec below 2 MB without it.
const raceSpecLimit = 512 << 10
