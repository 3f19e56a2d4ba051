package model

import (
	"strings"
	"time"

	"github.com/resgen/resgen/internal/human"
)

// The policy facts: an operation's resolved policy in words, the same
// for the doc comments emit prints and for `resgen explain`, so the two
// never disagree. They live beside the model so that explain reads them
// without the printer. A policy's own values are its Settings, read from
// the runtime's field descriptions (policyfields.go).

// Facts is an operation's resolved policy in words, as reviewers read it
// in the doc comments and `resgen explain` prints it.
type Facts struct {
	Breaker           *BreakerFacts `json:"breaker,omitempty"`
	Retry             *RetryFacts   `json:"retry,omitempty"`
	RetryWhy          string        `json:"retryWhy"`
	IdempotencyHeader string        `json:"idempotencyHeader,omitempty"`
	Timeout           string        `json:"timeout"`
	TotalTimeout      string        `json:"totalTimeout"`
	// IdleTimeout ("" when none) and Resume are said only when set: most
	// operations stream nothing.
	IdleTimeout string `json:"idleTimeout,omitempty"`
	Resume      bool   `json:"resume,omitempty"`
	// Streamed: the timeouts end at the headers of a streamed answer.
	Streamed bool `json:"streamed,omitempty"`
}

// Setting is one key of a policy with its value in words.
type Setting struct{ Key, Value string }

// String is the key and its value: "windowSize 10".
func (s Setting) String() string { return s.Key + " " + s.Value }

// Settings are the keys of p (a runtime policy) that apply to it, with
// their values in words, in order.
func Settings(p any) []Setting {
	var out []Setting
	for _, f := range PolicyFields(p) {
		out = append(out, Setting{f.Key, f.Words()})
	}
	return out
}

// SettingsLine is settings in one line: "windowSize 10; minimumCalls 4".
func SettingsLine(ss []Setting) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = s.String()
	}
	return strings.Join(parts, "; ")
}

// BreakerFacts describes one breaker in words.
type BreakerFacts struct {
	Instance string
	Policy   string
	Scope    string
	Settings []Setting
	// Const is the generated constant of Instance; Operations counts the
	// operations behind the breaker.
	Const      string
	Operations int
}

// MarshalJSON writes the instance, its policy and scope, then each
// setting by its key.
func (b *BreakerFacts) MarshalJSON() ([]byte, error) {
	o := Object{{"instance", b.Instance}, {"policy", b.Policy}, {"scope", b.Scope}}
	return append(o, settingMembers(b.Settings)...).MarshalJSON()
}

// RetryFacts describes one retry policy in words.
type RetryFacts struct {
	Policy      string
	Settings    []Setting
	MaxAttempts int
	// Const is the generated constant of the policy's name.
	Const string
}

// MarshalJSON writes the policy's name, then each setting by its key.
func (r *RetryFacts) MarshalJSON() ([]byte, error) {
	return append(Object{{"policy", r.Policy}}, settingMembers(r.Settings)...).MarshalJSON()
}

func settingMembers(ss []Setting) Object {
	o := make(Object, len(ss))
	for i, s := range ss {
		o[i] = Member{s.Key, s.Value}
	}
	return o
}

// TimeoutsLine is the timeouts in one cell: "2s / 5s", then ", idle 1s"
// and ", resume" when set.
func (f Facts) TimeoutsLine() string {
	s := f.Timeout + " / " + f.TotalTimeout
	if f.IdleTimeout != "" {
		s += ", idle " + f.IdleTimeout
	}
	if f.Resume {
		s += ", resume"
	}
	return s
}

// PolicyFacts puts p in words.
func PolicyFacts(p *OpPolicy) Facts {
	f := Facts{RetryWhy: p.RetryWhy, IdempotencyHeader: p.IdempotencyHeader, Timeout: durOff(p.Timeout), TotalTimeout: durOff(p.TotalTimeout), Resume: p.Resume, Streamed: p.Streamed}
	if p.IdleTimeout != 0 {
		f.IdleTimeout = human.Duration(p.IdleTimeout)
	}
	if bi := p.Breaker; bi != nil {
		b := bi.Policy
		f.Breaker = &BreakerFacts{Instance: bi.Instance, Policy: b.Policy, Scope: b.Scope, Settings: Settings(&b.BreakerPolicy), Const: bi.Const, Operations: bi.Operations}
	}
	if r := p.Retry; r != nil {
		f.Retry = &RetryFacts{Policy: r.Policy, Settings: Settings(&r.RetryPolicy), MaxAttempts: r.MaxAttempts, Const: r.Const}
	}
	return f
}

func durOff(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return human.Duration(d)
}
