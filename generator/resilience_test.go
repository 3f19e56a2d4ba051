package generator

import (
	"testing"
	"time"
)

// TestDurPrintsBoundsAsWritten: a bound in a message reads as the contract
// writes it, whatever its value; trimming "0s" and "0m" blindly turned 10m
// into "1".
func TestDurPrintsBoundsAsWritten(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Hour:        "1h",
		24 * time.Hour:   "24h",
		10 * time.Minute: "10m",
		90 * time.Minute: "1h30m",
		30 * time.Second: "30s",
		90 * time.Second: "1m30s",
	} {
		if got := dur(d); got != want {
			t.Errorf("dur(%v) = %q, want %q", d, got, want)
		}
	}
}
