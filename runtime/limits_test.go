package runtime

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestPolicySizesAreBounded: a policy built by hand (or from a spec that
// escaped validation) cannot make NewClient allocate without bound: the
// window is clamped to MaxWindowSize calls or MaxWindowDuration of
// one-second buckets, and the clamp is logged once.
func TestPolicySizesAreBounded(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    func(*BreakerPolicy)
		want string
	}{
		{"time window of 2000000h", func(p *BreakerPolicy) {
			p.WindowType, p.WindowDuration = TimeWindow, 2000000*time.Hour
		}, "windowDuration"},
		{"time window of 100h", func(p *BreakerPolicy) {
			p.WindowType, p.WindowDuration = TimeWindow, 100*time.Hour
		}, "windowDuration"},
		{"count window of a million calls", func(p *BreakerPolicy) {
			p.WindowType, p.WindowSize = CountWindow, 1e6
		}, "windowSize"},
		{"time window of the largest duration", func(p *BreakerPolicy) {
			p.WindowType, p.WindowDuration = TimeWindow, time.Duration(1<<63-1)
		}, "windowDuration"},
		{"count window of a billion calls", func(p *BreakerPolicy) {
			p.WindowType, p.WindowSize = CountWindow, 1e9
		}, "windowSize"},
		{"half-open calls past uint32", func(p *BreakerPolicy) {
			p.HalfOpenCalls = 1<<32 + 1
		}, "halfOpenCalls"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, logs := newLogger(0)
			e := newEngine(config{Logger: l})
			p := DefaultBreakerPolicy()
			tc.p(&p)
			b := e.Breaker("b", p)
			if n := len(b.win.buckets); n > int(MaxWindowDuration/time.Second) {
				t.Fatalf("%d time buckets, want at most %d", n, int(MaxWindowDuration/time.Second))
			}
			if n := len(b.win.ring); n > MaxWindowSize {
				t.Fatalf("%d count slots, want at most %d", n, MaxWindowSize)
			}
			if b.p.HalfOpenCalls > MaxHalfOpenCalls {
				t.Fatalf("%d half-open calls, want at most %d", b.p.HalfOpenCalls, MaxHalfOpenCalls)
			}
			if got := logs.String(); strings.Count(got, "WARN") != 1 || !strings.Contains(got, tc.want) {
				t.Fatalf("want one warning naming %s, got:\n%s", tc.want, got)
			}
			// The clamped breaker still works: it records calls.
			b.record(context.Background(), 0, outFailed, false, 0)
			if m := b.Metrics(); m.Calls != 1 {
				t.Fatalf("metrics %+v after one call", m)
			}
		})
	}
	if MaxWindowSize != 10000 || MaxWindowDuration != time.Hour || MaxHalfOpenCalls != MaxWindowSize {
		t.Fatal("the limits must match the spec validation's (10000 calls, 1h, 10000 trials)")
	}
}
