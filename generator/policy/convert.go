package policy

// Conversions between the model's policies (strings, for the emitter and
// explain) and the runtime's (what the runtime checks and runs).

import (
	"strconv"
	"strings"

	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/runtime"
)

func runtimeBreaker(p *model.BreakerPolicy) runtime.BreakerPolicy {
	rp := runtime.BreakerPolicy{
		Policy: p.Name, WindowSize: p.WindowSize, WindowDuration: p.WindowDuration,
		MinimumCalls: p.MinimumCalls, FailureRateThreshold: p.FailureRateThreshold,
		SlowCallDuration: p.SlowCallDuration, SlowCallRateThreshold: p.SlowCallRateThreshold,
		WaitInOpen: p.WaitInOpen, HalfOpenCalls: p.HalfOpenCalls, RecordOn: matchOf(p.RecordOn),
	}
	if p.WindowType == "time" {
		rp.WindowType = runtime.TimeWindow
	}
	return rp
}

func modelBreaker(rp runtime.BreakerPolicy, name, scope string) model.BreakerPolicy {
	return model.BreakerPolicy{
		Name: name, Scope: scope, WindowType: rp.WindowType.String(), WindowSize: rp.WindowSize,
		WindowDuration: rp.WindowDuration, MinimumCalls: rp.MinimumCalls,
		FailureRateThreshold: rp.FailureRateThreshold, SlowCallDuration: rp.SlowCallDuration,
		SlowCallRateThreshold: rp.SlowCallRateThreshold, WaitInOpen: rp.WaitInOpen,
		HalfOpenCalls: rp.HalfOpenCalls, RecordOn: rp.RecordOn.Tokens(),
	}
}

func runtimeRetry(p *model.RetryPolicy) runtime.RetryPolicy {
	rp := runtime.RetryPolicy{
		Policy: p.Name, MaxAttempts: p.MaxAttempts, InitialInterval: p.InitialInterval,
		Multiplier: p.Multiplier, MaxInterval: p.MaxInterval, RetryOn: matchOf(p.RetryOn),
		RetryAfter: p.RetryAfter, MaxRetryAfter: p.MaxRetryAfter,
	}
	if p.Backoff == "constant" {
		rp.Backoff = runtime.ConstantBackoff
	}
	rp.Jitter = map[string]runtime.Jitter{"none": runtime.NoJitter, "full": runtime.FullJitter, "equal": runtime.EqualJitter, "decorrelated": runtime.DecorrelatedJitter}[p.Jitter]
	if p.Budget != nil {
		rp.Budget = &runtime.Budget{Ratio: p.Budget.Ratio, MinPerSecond: p.Budget.MinPerSecond}
	}
	return rp
}

func modelRetry(rp runtime.RetryPolicy, name string) model.RetryPolicy {
	p := model.RetryPolicy{
		Name: name, MaxAttempts: rp.MaxAttempts, Backoff: rp.Backoff.String(),
		InitialInterval: rp.InitialInterval, Multiplier: rp.Multiplier, MaxInterval: rp.MaxInterval,
		Jitter: rp.Jitter.String(), RetryOn: rp.RetryOn.Tokens(), RetryAfter: rp.RetryAfter,
		MaxRetryAfter: rp.MaxRetryAfter,
	}
	if rp.Budget != nil {
		p.Budget = &model.Budget{Ratio: rp.Budget.Ratio, MinPerSecond: rp.Budget.MinPerSecond}
	}
	return p
}

// matchOf reads the tokens Match.Tokens wrote.
func matchOf(toks []string) runtime.Match {
	var m runtime.Match
	for _, t := range toks {
		switch {
		case t == "transport":
			m.Transport = true
		case t == "timeout":
			m.Timeout = true
		case strings.HasSuffix(t, "xx"):
			m.Classes = append(m.Classes, int(t[0]-'0'))
		default:
			n, _ := strconv.Atoi(t)
			m.Codes = append(m.Codes, n)
		}
	}
	return m
}

// RuntimeBreaker is the runtime policy a generated client registers for
// the model's breaker policy (emit prints the same fields as a literal;
// golden/lab checks that the two agree). `resgen lab` runs it.
func RuntimeBreaker(p *model.BreakerPolicy) runtime.BreakerPolicy {
	rp := runtimeBreaker(p)
	// emit writes only the field its window type reads; so must this, or
	// the lab's policy differs from the client's in a field neither reads.
	if rp.WindowType == runtime.TimeWindow {
		rp.WindowSize = 0
	} else {
		rp.WindowDuration = 0
	}
	return rp
}

// RuntimeRetry is the runtime policy a generated client registers for the
// model's retry policy.
func RuntimeRetry(p *model.RetryPolicy) runtime.RetryPolicy { return runtimeRetry(p) }
