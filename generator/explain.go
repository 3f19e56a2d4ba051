package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/internal/human"
	"github.com/resgen/resgen/internal/sanitize"
	"github.com/resgen/resgen/templates"
)

// ExplainOp is one operation's resolved policy, as `resgen explain`
// prints it. Facts are the same the doc comment above the generated
// method is made of, so the two never disagree.
type ExplainOp struct {
	ID     string `json:"operationId"`
	Method string `json:"method"`
	Path   string `json:"path"`
	// Policy holds the values (numbers, Go durations, lists) for tools;
	// Facts the same in words, as the doc comment says them.
	Policy explainPolicy `json:"policy"`
	Facts  model.Facts   `json:"text"`
}

// explainPolicy is an operation's resolved policy in machine form.
type explainPolicy struct {
	Breaker *explainBreaker `json:"breaker"`
	Retry   *explainRetry   `json:"retry"`
	// RetryWhy says why retry is on or off.
	RetryWhy          string `json:"retryWhy"`
	IdempotencyHeader string `json:"idempotencyKeyHeader,omitempty"`
	Timeout           string `json:"timeout"`
	TotalTimeout      string `json:"totalTimeout"`
}

type explainBreaker struct {
	Instance              string   `json:"instance"`
	Policy                string   `json:"policy"`
	Scope                 string   `json:"scope"`
	WindowType            string   `json:"windowType"`
	WindowSize            int      `json:"windowSize,omitempty"`
	WindowDuration        string   `json:"windowDuration,omitempty"`
	MinimumCalls          int      `json:"minimumCalls"`
	FailureRateThreshold  float64  `json:"failureRateThreshold"`
	SlowCallDuration      string   `json:"slowCallDuration"`
	SlowCallRateThreshold float64  `json:"slowCallRateThreshold"`
	WaitInOpen            string   `json:"waitInOpen"`
	HalfOpenCalls         int      `json:"halfOpenCalls"`
	RecordOn              []string `json:"recordOn"`
}

type explainRetry struct {
	Policy          string        `json:"policy"`
	MaxAttempts     int           `json:"maxAttempts"`
	Backoff         string        `json:"backoff"`
	InitialInterval string        `json:"initialInterval"`
	Multiplier      float64       `json:"multiplier"`
	MaxInterval     string        `json:"maxInterval"`
	Jitter          string        `json:"jitter"`
	RetryOn         []string      `json:"retryOn"`
	RetryAfter      bool          `json:"retryAfter"`
	MaxRetryAfter   string        `json:"maxRetryAfter"`
	Budget          *model.Budget `json:"budget,omitempty"`
}

func machinePolicy(p *model.OpPolicy) explainPolicy {
	out := explainPolicy{RetryWhy: p.RetryWhy, IdempotencyHeader: p.IdempotencyHeader, Timeout: human.Duration(p.Timeout), TotalTimeout: human.Duration(p.TotalTimeout)}
	if bi := p.Breaker; bi != nil {
		b := bi.Policy
		eb := &explainBreaker{Instance: bi.Instance, Policy: b.Name, Scope: b.Scope, WindowType: b.WindowType,
			MinimumCalls: b.MinimumCalls, FailureRateThreshold: b.FailureRateThreshold, SlowCallDuration: human.Duration(b.SlowCallDuration),
			SlowCallRateThreshold: b.SlowCallRateThreshold, WaitInOpen: human.Duration(b.WaitInOpen), HalfOpenCalls: b.HalfOpenCalls, RecordOn: b.RecordOn}
		if b.WindowType == "time" {
			eb.WindowDuration = human.Duration(b.WindowDuration)
		} else {
			eb.WindowSize = b.WindowSize
		}
		out.Breaker = eb
	}
	if r := p.Retry; r != nil {
		out.Retry = &explainRetry{Policy: r.Name, MaxAttempts: r.MaxAttempts, Backoff: r.Backoff, InitialInterval: human.Duration(r.InitialInterval),
			Multiplier: r.Multiplier, MaxInterval: human.Duration(r.MaxInterval), Jitter: r.Jitter, RetryOn: r.RetryOn, RetryAfter: r.RetryAfter,
			MaxRetryAfter: human.Duration(r.MaxRetryAfter), Budget: r.Budget}
	}
	return out
}

// Explain renders the policies of a generated model in format table,
// markdown or json, one operation per row, sorted by path then method.
func Explain(m *model.File, format string) ([]byte, error) {
	ops := make([]ExplainOp, 0, len(m.Operations))
	for _, op := range m.Operations {
		ops = append(ops, ExplainOp{ID: op.ID, Method: op.Method, Path: op.Path, Policy: machinePolicy(op.Policy), Facts: model.PolicyFacts(op.Policy)})
	}
	var buf bytes.Buffer
	switch format {
	case "json":
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Title      string      `json:"title"`
			Operations []ExplainOp `json:"operations"`
		}{m.Title, ops}); err != nil {
			return nil, err
		}
		// encoding/json leaves bidirectional controls and C1 controls raw.
		return sanitize.JSON(buf.Bytes()), nil
	case "markdown":
		var breakers []*model.BreakerFacts
		for _, bi := range m.Breakers {
			breakers = append(breakers, terminalBreaker(model.PolicyFacts(&model.OpPolicy{Breaker: bi}).Breaker))
		}
		title := m.Title
		if title == "" {
			title = m.Source
		}
		if err := templates.T.ExecuteTemplate(&buf, "explain.markdown", map[string]any{"Title": sanitize.Terminal(title), "Ops": terminalOps(ops), "Breakers": breakers}); err != nil {
			return nil, err
		}
	case "table", "":
		tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
		if err := templates.T.ExecuteTemplate(tw, "explain.table", terminalOps(ops)); err != nil {
			return nil, err
		}
		if err := tw.Flush(); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown format %q: use table, markdown or json", format)
	}
	return buf.Bytes(), nil
}

// terminalOps returns the text of ops for the table and markdown layouts,
// which a terminal shows: every string escaped by sanitize.Terminal (no raw
// control or bidirectional character, tab or newline). Only the text
// layouts print Facts and the names; Policy is left out.
func terminalOps(ops []ExplainOp) []ExplainOp {
	out := make([]ExplainOp, len(ops))
	t := sanitize.Terminal
	for i, o := range ops {
		f := o.Facts
		f.RetryWhy, f.IdempotencyHeader, f.Timeout, f.TotalTimeout = t(f.RetryWhy), t(f.IdempotencyHeader), t(f.Timeout), t(f.TotalTimeout)
		f.Breaker = terminalBreaker(f.Breaker)
		if r := f.Retry; r != nil {
			c := *r
			c.Policy, c.Waits, c.RetryOn, c.MaxRetryAfter, c.Budget = t(c.Policy), t(c.Waits), t(c.RetryOn), t(c.MaxRetryAfter), t(c.Budget)
			f.Retry = &c
		}
		out[i] = ExplainOp{ID: t(o.ID), Method: t(o.Method), Path: t(o.Path), Facts: f}
	}
	return out
}

func terminalBreaker(b *model.BreakerFacts) *model.BreakerFacts {
	if b == nil {
		return nil
	}
	t := sanitize.Terminal
	c := *b
	c.Instance, c.Policy, c.Scope, c.Window, c.FailureRate = t(c.Instance), t(c.Policy), t(c.Scope), t(c.Window), t(c.FailureRate)
	c.SlowRate, c.SlowCall, c.WaitInOpen, c.RecordOn, c.Const = t(c.SlowRate), t(c.SlowCall), t(c.WaitInOpen), t(c.RecordOn), t(c.Const)
	return &c
}
