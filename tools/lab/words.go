package lab

import (
	"fmt"
	"strings"

	"github.com/resgen/resgen/runtime"
)

// policyWords says the target's breaker and retry in a line.
func policyWords(t *Target) string {
	parts := []string{breakerWords(t.BreakerName, t.Breaker)}
	if r := t.Retry; r == nil || r.MaxAttempts <= 1 {
		why := ""
		if t.RetryWhy != "" {
			why = " (" + t.RetryWhy + ")"
		}
		parts = append(parts, "no retry"+why)
	} else {
		parts = append(parts, "retry "+retryWords(r))
	}
	if t.Timeout > 0 {
		parts = append(parts, "timeout "+t.Timeout.String())
	}
	return strings.Join(parts, "; ")
}

// strategyWords says a strategy's breaker and retry in a line.
func strategyWords(s Strategy) string {
	name := ""
	if s.Breaker != nil {
		name = s.Breaker.Policy
	}
	r := "no retry"
	if s.Retry != nil && s.Retry.MaxAttempts > 1 {
		r = "retry " + retryWords(s.Retry)
	}
	return breakerWords(name, s.Breaker) + "; " + r
}

// breakerWords says a breaker policy in a few words.
func breakerWords(name string, b *runtime.BreakerPolicy) string {
	if b == nil {
		return "no breaker"
	}
	w := fmt.Sprintf("count window %d", b.WindowSize)
	if b.WindowType == runtime.TimeWindow {
		w = "time window " + b.WindowDuration.String()
	}
	s := fmt.Sprintf("breaker %q (%s, minimum %d calls", name, w, b.MinimumCalls)
	if b.FailureRateThreshold > 0 {
		s += fmt.Sprintf(", failure rate ≥ %g%%", b.FailureRateThreshold)
	}
	if b.SlowCallRateThreshold > 0 {
		s += fmt.Sprintf(", slow-call rate ≥ %g%% of calls ≥ %v", b.SlowCallRateThreshold, b.SlowCallDuration)
	}
	return s + fmt.Sprintf(", open %v, %d trial calls)", b.WaitInOpen, b.HalfOpenCalls)
}

// retryWords says a retry policy in a few words.
func retryWords(p *runtime.RetryPolicy) string {
	if p == nil || p.MaxAttempts <= 1 {
		return "no retry"
	}
	s := fmt.Sprintf("%d attempts, %s %v", p.MaxAttempts, p.Backoff, p.InitialInterval)
	if p.Backoff == runtime.ExponentialBackoff {
		m := p.Multiplier
		if m <= 0 {
			m = 2
		}
		s += fmt.Sprintf(" × %g", m)
		if p.MaxInterval > 0 {
			s += fmt.Sprintf(" up to %v", p.MaxInterval)
		}
	}
	s += ", " + p.Jitter.String() + " jitter"
	if p.Budget != nil {
		s += fmt.Sprintf(", budget %g%% + %g/s", p.Budget.Ratio*100, p.Budget.MinPerSecond)
	}
	return s
}

// speedNote is the line tables and setups carry for a sped-up run (the
// report writer's, so it is not said twice).
func speedNote(speed float64) string {
	return SpedUp(speed) + "; times are shown in scenario time"
}

func joinSemi(s []string) string { return strings.Join(s, "; ") }
