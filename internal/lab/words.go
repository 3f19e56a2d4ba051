package lab

import (
	"fmt"
	"strings"

	"github.com/resgen/resgen/runtime"
)

// policyWords says the target's breaker and retry in a line.
func policyWords(t *Target) string {
	var parts []string
	if b := t.Breaker; b == nil {
		parts = append(parts, "no breaker")
	} else {
		w := fmt.Sprintf("count window %d", b.WindowSize)
		if b.WindowType == runtime.TimeWindow {
			w = "time window " + b.WindowDuration.String()
		}
		s := fmt.Sprintf("breaker %q (%s, minimum %d calls", t.BreakerName, w, b.MinimumCalls)
		if b.FailureRateThreshold > 0 {
			s += fmt.Sprintf(", failure rate ≥ %g%%", b.FailureRateThreshold)
		}
		if b.SlowCallRateThreshold > 0 {
			s += fmt.Sprintf(", slow-call rate ≥ %g%% of calls ≥ %v", b.SlowCallRateThreshold, b.SlowCallDuration)
		}
		s += fmt.Sprintf(", open %v, %d trial calls)", b.WaitInOpen, b.HalfOpenCalls)
		parts = append(parts, s)
	}
	if r := t.Retry; r == nil || r.MaxAttempts <= 1 {
		why := ""
		if t.RetryWhy != "" {
			why = " (" + t.RetryWhy + ")"
		}
		parts = append(parts, "no retry"+why)
	} else {
		parts = append(parts, fmt.Sprintf("retry %d attempts, %s from %v, jitter %s", r.MaxAttempts, r.Backoff, r.InitialInterval, r.Jitter))
	}
	if t.Timeout > 0 {
		parts = append(parts, "timeout "+t.Timeout.String())
	}
	return strings.Join(parts, "; ")
}

// speedNote is the line tables and setups carry for a sped-up run.
func speedNote(speed float64) string {
	return fmt.Sprintf("sped up ×%g (all durations ÷%g); times are shown in scenario time", speed, speed)
}

func joinSemi(s []string) string { return strings.Join(s, "; ") }
