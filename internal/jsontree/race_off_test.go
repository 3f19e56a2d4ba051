//go:build !race

package jsontree

// raceSpecLimit: no bound without the race detector (see race_on_test.go).
const raceSpecLimit = 1 << 62
