package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/internal/human"
	"github.com/resgen/resgen/internal/sanitize"
	"github.com/resgen/resgen/templates"
)

// ExplainOp is one operation's resolved policy, as `resgen explain`
// prints it. Facts are the same the doc comment above the generated
// method is made of, so the two never disagree.
type ExplainOp struct {
	ID string `json:"operationId"`
	// GoMethod is the generated method's name.
	GoMethod string `json:"goMethod"`
	Method   string `json:"method"`
	Path     string `json:"path"`
	// Policy holds the values (numbers, Go durations, lists) for tools;
	// Facts the same in words, as the doc comment says them.
	Policy explainPolicy `json:"policy"`
	Facts  model.Facts   `json:"text"`
}

// explainPolicy is an operation's resolved policy in machine form.
type explainPolicy struct {
	// Breaker and Retry are the instance and policy names, then each key
	// of the policy that applies with its value (model.PolicyJSON).
	Breaker model.Object `json:"breaker"`
	Retry   model.Object `json:"retry"`
	// RetryWhy says why retry is on or off.
	RetryWhy          string `json:"retryWhy"`
	IdempotencyHeader string `json:"idempotencyKeyHeader,omitempty"`
	Timeout           string `json:"timeout"`
	TotalTimeout      string `json:"totalTimeout"`
	// IdleTimeout and Resume are written only when set.
	IdleTimeout string `json:"idleTimeout,omitempty"`
	Resume      bool   `json:"resume,omitempty"`
}

func machinePolicy(p *model.OpPolicy) explainPolicy {
	out := explainPolicy{RetryWhy: p.RetryWhy, IdempotencyHeader: p.IdempotencyHeader, Timeout: human.Duration(p.Timeout), TotalTimeout: human.Duration(p.TotalTimeout), Resume: p.Resume}
	if p.IdleTimeout != 0 {
		out.IdleTimeout = human.Duration(p.IdleTimeout)
	}
	if bi := p.Breaker; bi != nil {
		b := bi.Policy
		out.Breaker = append(model.Object{{Key: "instance", Value: bi.Instance}, {Key: "policy", Value: b.Policy}, {Key: "scope", Value: b.Scope}}, model.PolicyJSON(&b.BreakerPolicy)...)
	}
	if r := p.Retry; r != nil {
		out.Retry = append(model.Object{{Key: "policy", Value: r.Policy}}, model.PolicyJSON(&r.RetryPolicy)...)
	}
	return out
}

// ExplainWarning is one warning of the run, as -format json lists it.
type ExplainWarning struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Pointer string `json:"pointer,omitempty"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// Explain renders the policies of a generated model in format table,
// markdown or json, one operation per row, sorted by path then method.
// diags are the run's warnings (Checked.Diags): markdown and json list
// them; the table leaves them to stderr, where the CLI prints them.
func Explain(m *model.File, diags diag.Diagnostics, format string) ([]byte, error) {
	ops := make([]ExplainOp, 0, len(m.Operations))
	for _, op := range m.Operations {
		ops = append(ops, ExplainOp{ID: op.ID, GoMethod: op.Name, Method: op.Method, Path: op.Path, Policy: machinePolicy(op.Policy), Facts: model.PolicyFacts(op.Policy)})
	}
	var buf bytes.Buffer
	switch format {
	case "json":
		warnings := make([]ExplainWarning, 0, len(diags))
		for _, d := range diags {
			warnings = append(warnings, ExplainWarning{File: d.File, Line: d.Line, Col: d.Col, Pointer: d.Pointer, Message: d.Msg, Hint: d.Hint})
		}
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Title      string           `json:"title"`
			Operations []ExplainOp      `json:"operations"`
			Warnings   []ExplainWarning `json:"warnings"`
		}{m.Title, ops, warnings}); err != nil {
			return nil, err
		}
		// encoding/json leaves bidirectional controls and C1 controls raw.
		return sanitize.JSON(buf.Bytes()), nil
	case "markdown":
		title := m.Title
		if title == "" {
			title = m.Source
		}
		type mdWarning struct{ Pos, Msg, Pointer, Hint string }
		var warnings []mdWarning
		t := sanitize.Terminal
		for _, d := range diags {
			pos := d.File
			if d.Line > 0 {
				pos += ":" + strconv.Itoa(d.Line)
				if d.Col > 0 {
					pos += ":" + strconv.Itoa(d.Col)
				}
			}
			warnings = append(warnings, mdWarning{t(pos), t(d.Msg), t(d.Pointer), t(d.Hint)})
		}
		if err := templates.T.ExecuteTemplate(&buf, "explain.markdown", map[string]any{
			"Title": sanitize.Terminal(title), "Ops": terminalOps(ops), "Breakers": breakerFacts(m),
			"Retries": retryFacts(m), "Warnings": warnings,
		}); err != nil {
			return nil, err
		}
	case "table", "":
		writeTable(&buf, terminalOps(ops), breakerFacts(m), retryFacts(m))
	default:
		return nil, fmt.Errorf("unknown format %q: use table, markdown or json", format)
	}
	return buf.Bytes(), nil
}

// breakerFacts describes each breaker instance of m once, sorted by name,
// its text escaped for a terminal.
func breakerFacts(m *model.File) []*model.BreakerFacts {
	out := make([]*model.BreakerFacts, 0, len(m.Breakers))
	for _, bi := range m.Breakers {
		out = append(out, terminalBreaker(model.PolicyFacts(&model.OpPolicy{Breaker: bi}).Breaker))
	}
	slices.SortFunc(out, func(a, b *model.BreakerFacts) int { return strings.Compare(a.Instance, b.Instance) })
	return out
}

// retryFacts describes each retry policy of m once, sorted by name, its
// text escaped for a terminal.
func retryFacts(m *model.File) []*model.RetryFacts {
	out := make([]*model.RetryFacts, 0, len(m.Retries))
	for _, r := range m.Retries {
		out = append(out, terminalRetry(model.PolicyFacts(&model.OpPolicy{Retry: r}).Retry))
	}
	slices.SortFunc(out, func(a, b *model.RetryFacts) int { return strings.Compare(a.Policy, b.Policy) })
	return out
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
		f.RetryWhy, f.IdempotencyHeader, f.Timeout, f.TotalTimeout, f.IdleTimeout = t(f.RetryWhy), t(f.IdempotencyHeader), t(f.Timeout), t(f.TotalTimeout), t(f.IdleTimeout)
		f.Breaker = terminalBreaker(f.Breaker)
		f.Retry = terminalRetry(f.Retry)
		out[i] = ExplainOp{ID: t(o.ID), GoMethod: t(o.GoMethod), Method: t(o.Method), Path: t(o.Path), Facts: f}
	}
	return out
}

func terminalRetry(r *model.RetryFacts) *model.RetryFacts {
	if r == nil {
		return nil
	}
	t := sanitize.Terminal
	c := *r
	c.Policy, c.Const, c.Settings = t(c.Policy), t(c.Const), terminalSettings(c.Settings)
	return &c
}

func terminalBreaker(b *model.BreakerFacts) *model.BreakerFacts {
	if b == nil {
		return nil
	}
	t := sanitize.Terminal
	c := *b
	c.Instance, c.Policy, c.Scope, c.Const, c.Settings = t(c.Instance), t(c.Policy), t(c.Scope), t(c.Const), terminalSettings(c.Settings)
	return &c
}

func terminalSettings(ss []model.Setting) []model.Setting {
	out := make([]model.Setting, len(ss))
	for i, s := range ss {
		out[i] = model.Setting{Key: sanitize.Terminal(s.Key), Value: sanitize.Terminal(s.Value)}
	}
	return out
}
