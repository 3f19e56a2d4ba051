package human

import (
	"math"
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{time.Nanosecond, "1ns"},
		{1500 * time.Nanosecond, "1.5µs"},
		{500 * time.Millisecond, "500ms"},
		{time.Second, "1s"},
		{1500 * time.Millisecond, "1.5s"},
		{time.Minute, "1m"},
		{90 * time.Second, "1m30s"},
		{150 * time.Second, "2m30s"},
		{time.Minute + 500*time.Millisecond, "1m500ms"},
		{time.Hour, "1h"},
		// Zero units go whole: trimming "0s" and "0m" blindly turned 10m into "1".
		{10 * time.Minute, "10m"},
		{10 * time.Hour, "10h"},
		{90 * time.Minute, "1h30m"},
		{time.Hour + 30*time.Second, "1h30s"},
		{24 * time.Hour, "24h"},
		{-90 * time.Second, "-1m30s"},
		{-time.Millisecond, "-1ms"},
	} {
		if got := Duration(c.d); got != c.want {
			t.Errorf("Duration(%d) = %q, want %q", c.d, got, c.want)
		}
	}
}

// TestDurationParsesBack checks the text against time.ParseDuration, which
// is what x-resilience values and overrides are read with.
func TestDurationParsesBack(t *testing.T) {
	ds := []time.Duration{math.MaxInt64, math.MinInt64 + 1, math.MinInt64, 1, -1}
	for d := time.Duration(7); d < math.MaxInt64/13; d = d*13 + 1 {
		ds = append(ds, d, -d)
	}
	for _, d := range ds {
		s := Duration(d)
		back, err := time.ParseDuration(s)
		if err != nil || back != d {
			t.Errorf("Duration(%d) = %q parses to %d, %v", d, s, back, err)
		}
	}
}
