package model

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/resgen/resgen/internal/human"
)

// The policy facts: an operation's resolved policy in words, the same
// for the doc comment emit prints above each method and for `resgen
// explain`, so the two never disagree. They live beside the model so
// that explain reads them without the printer.

// Facts is an operation's resolved policy in words, as reviewers read it
// above each method and `resgen explain` prints it.
type Facts struct {
	Breaker           *BreakerFacts `json:"breaker,omitempty"`
	Retry             *RetryFacts   `json:"retry,omitempty"`
	RetryWhy          string        `json:"retryWhy"`
	IdempotencyHeader string        `json:"idempotencyHeader,omitempty"`
	Timeout           string        `json:"timeout"`
	TotalTimeout      string        `json:"totalTimeout"`
}

// BreakerFacts describes one breaker in words.
type BreakerFacts struct {
	Instance      string `json:"instance"`
	Policy        string `json:"policy"`
	Scope         string `json:"scope"`
	Window        string `json:"window"`
	FailureRate   string `json:"failureRateThreshold"`
	SlowRate      string `json:"slowCallRateThreshold"`
	SlowCall      string `json:"slowCallDuration"`
	WaitInOpen    string `json:"waitInOpen"`
	HalfOpenCalls int    `json:"halfOpenCalls"`
	RecordOn      string `json:"recordOn"`
	// Const is the generated constant of Instance; Operations counts the
	// operations behind the breaker. Only the doc comments print them.
	Const      string `json:"-"`
	Operations int    `json:"-"`
}

// RetryFacts describes one retry policy in words.
type RetryFacts struct {
	Policy        string `json:"policy"`
	MaxAttempts   int    `json:"maxAttempts"`
	Waits         string `json:"waits"`
	RetryOn       string `json:"retryOn"`
	RetryAfter    bool   `json:"retryAfter"`
	MaxRetryAfter string `json:"maxRetryAfter"`
	Budget        string `json:"budget,omitempty"`
}

// PolicyFacts puts p in words.
func PolicyFacts(p *OpPolicy) Facts {
	f := Facts{RetryWhy: p.RetryWhy, IdempotencyHeader: p.IdempotencyHeader, Timeout: durOff(p.Timeout), TotalTimeout: durOff(p.TotalTimeout)}
	if bi := p.Breaker; bi != nil {
		b := bi.Policy
		win := fmt.Sprintf("last %d calls, decides after %d", b.WindowSize, min(b.MinimumCalls, b.WindowSize))
		if b.WindowType == "time" {
			win = fmt.Sprintf("calls of the last %s, decides after %d", human.Duration(b.WindowDuration), b.MinimumCalls)
		}
		f.Breaker = &BreakerFacts{
			Instance: bi.Instance, Policy: b.Name, Scope: b.Scope, Window: win,
			FailureRate: pct(b.FailureRateThreshold), SlowRate: pct(b.SlowCallRateThreshold),
			SlowCall: human.Duration(b.SlowCallDuration), WaitInOpen: human.Duration(b.WaitInOpen), HalfOpenCalls: b.HalfOpenCalls,
			RecordOn: strings.Join(b.RecordOn, ", "), Const: bi.Const, Operations: bi.Operations,
		}
	}
	if r := p.Retry; r != nil {
		rf := &RetryFacts{Policy: r.Name, MaxAttempts: r.MaxAttempts, RetryOn: strings.Join(r.RetryOn, ", "), RetryAfter: r.RetryAfter, MaxRetryAfter: human.Duration(r.MaxRetryAfter)}
		jitter := r.Jitter + " jitter"
		if r.Jitter == "none" {
			jitter = "no jitter"
		}
		if r.Backoff == "constant" {
			rf.Waits = fmt.Sprintf("waits %s between attempts, %s", human.Duration(r.InitialInterval), jitter)
		} else {
			rf.Waits = fmt.Sprintf("waits %s, growing ×%s up to %s, %s", human.Duration(r.InitialInterval), strconv.FormatFloat(r.Multiplier, 'g', -1, 64), human.Duration(r.MaxInterval), jitter)
		}
		if r.Budget != nil {
			rf.Budget = fmt.Sprintf("%s%% of calls + %s/s, client-wide", strconv.FormatFloat(r.Budget.Ratio*100, 'g', -1, 64), strconv.FormatFloat(r.Budget.MinPerSecond, 'g', -1, 64))
		}
		f.Retry = rf
	}
	return f
}

func pct(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) + "%" }

func durOff(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return human.Duration(d)
}
