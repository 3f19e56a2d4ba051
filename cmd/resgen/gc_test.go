package main

import (
	"runtime/debug"
	"testing"
)

// TestTuneGCLeavesTheUsersSetting: resgen raises the GC percentage only
// when neither GOGC nor GOMEMLIMIT is set.
func TestTuneGCLeavesTheUsersSetting(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want int
	}{
		{map[string]string{}, cliGCPercent},
		{map[string]string{"GOGC": "50"}, 100},
		{map[string]string{"GOGC": "off"}, 100},
		{map[string]string{"GOMEMLIMIT": "1GiB"}, 100},
	} {
		before := debug.SetGCPercent(100)
		tuneGC(func(k string) string { return c.env[k] })
		if got := debug.SetGCPercent(before); got != c.want {
			t.Errorf("env %v: GC percent %d, want %d", c.env, got, c.want)
		}
	}
}
