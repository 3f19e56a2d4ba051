package lab

import (
	"fmt"
	"strings"

	"github.com/resgen/resgen/generator/model"
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

// breakerWords says a breaker policy in a line, its settings as the
// generated constant's doc says them.
func breakerWords(name string, b *runtime.BreakerPolicy) string {
	if b == nil {
		return "no breaker"
	}
	return fmt.Sprintf("breaker %q (%s)", name, settings(b))
}

// retryWords says a retry policy in a line.
func retryWords(p *runtime.RetryPolicy) string {
	if p == nil || p.MaxAttempts <= 1 {
		return "no retry"
	}
	return settings(p)
}

func settings(p any) string { return model.SettingsLine(model.Settings(p)) }

// speedNote is the line tables and setups carry for a sped-up run (the
// report writer's, so it is not said twice).
func speedNote(speed float64) string {
	return SpedUp(speed) + "; times are shown in scenario time"
}

func joinSemi(s []string) string { return strings.Join(s, "; ") }
