package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/internal/sanitize"
)

// Render writes the diff in format text (a terminal: every spec string
// escaped), markdown (a PR comment: spec strings in code spans, table
// cells escaped) or json (the machine form: the PolicyDiff itself).
func (d *PolicyDiff) Render(format string) ([]byte, error) {
	switch format {
	case "json":
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(d); err != nil {
			return nil, err
		}
		// encoding/json leaves bidirectional controls and C1 controls raw.
		return sanitize.JSON(buf.Bytes()), nil
	case "markdown":
		return d.render(markdownStyle), nil
	case "text", "":
		return d.render(textStyle), nil
	}
	return nil, fmt.Errorf("unknown format %q: use text, markdown or json", format)
}

// diffStyle is how one layout writes the parts of the diff.
type diffStyle struct {
	// q quotes text that comes from the spec (names, headers, paths); w
	// writes a word resgen checked (a method, a scope, a jitter).
	q, w           func(string) string
	title, section func(string) string
	op             func(name string) string
	sentence       func(string) string
	changes        func([]changeLine) string
	markdown       bool
	// on and off are how "retry turned ON/OFF" stands out.
	on, off string
}

// changeLine is one changed field in words.
type changeLine struct{ label, old, new string }

var textStyle = diffStyle{
	q:        sanitize.Terminal,
	w:        sanitize.Terminal,
	title:    func(s string) string { return s + "\n" },
	section:  func(s string) string { return "\n" + s + ":\n" },
	op:       func(s string) string { return "  " + s + "\n" },
	sentence: func(s string) string { return "    " + s + "\n" },
	changes: func(cs []changeLine) string {
		var b strings.Builder
		for _, c := range cs {
			fmt.Fprintf(&b, "    %s: %s → %s\n", c.label, c.old, c.new)
		}
		return b.String()
	},
	on: "ON", off: "OFF",
}

var markdownStyle = diffStyle{
	q:        mdCode,
	w:        mdWord,
	markdown: true,
	title:    func(s string) string { return "## " + s + "\n" },
	section:  func(s string) string { return "\n### " + s + "\n" },
	op:       func(s string) string { return "\n**" + s + "**\n\n" },
	sentence: func(s string) string { return "- " + s + "\n" },
	changes: func(cs []changeLine) string {
		var b strings.Builder
		b.WriteString("| field | old | new |\n|---|---|---|\n")
		for _, c := range cs {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", c.label, c.old, c.new)
		}
		return b.String()
	},
	on: "**ON**", off: "**OFF**",
}

// mdCode puts spec text in a code span, where markdown and HTML are not
// interpreted and @mentions do not notify: a backtick cannot close it, a
// pipe cannot end a table cell, a newline cannot end the line.
func mdCode(s string) string {
	if s == "" {
		return ""
	}
	return "`" + strings.NewReplacer("`", "'", "|", `\|`).Replace(sanitize.Terminal(s)) + "`"
}

// mdWord escapes the characters markdown would read in a word.
func mdWord(s string) string {
	return mdWordEscaper.Replace(sanitize.Terminal(s))
}

var mdWordEscaper = strings.NewReplacer("\\", "\\\\", "*", "\\*", "_", "\\_", "`", "\\`", "<", "\\<", ">", "\\>", "[", "\\[", "]", "\\]", "|", "\\|", "#", "\\#", "~", "\\~", "&", "\\&", "@", "\\@")

func (d *PolicyDiff) render(st diffStyle) []byte {
	var b strings.Builder
	q := st.q
	b.WriteString(st.title("Policy diff: " + q(d.Old) + " → " + q(d.New)))
	if !d.Changed {
		b.WriteString(st.sentenceTop(fmt.Sprintf("No policy change: %s, the same breakers, retries and timeouts.", plural(d.Unchanged, "operation"))))
		return []byte(b.String())
	}
	b.WriteString(st.sentenceTop(d.summary()))
	if len(d.Operations) > 0 {
		b.WriteString(st.section("Changed operations"))
		for _, o := range d.Operations {
			b.WriteString(st.op(opTitle(st, o)))
			sentences, cs := opLines(st, o)
			b.WriteString(st.lines(sentences, cs))
		}
	}
	if len(d.Breakers) > 0 {
		b.WriteString(st.section("Breakers"))
		for _, br := range d.Breakers {
			title := q(br.Instance) + " (" + st.w(br.scope) + ")"
			switch br.Status {
			case "added":
				title += ": new"
			case "removed":
				title += ": removed"
			}
			b.WriteString(st.op(title))
			var sentences []string
			if len(br.Changes) > 0 {
				sentences = append(sentences, "policy changed; affects "+opList(st, br.Operations))
			} else if br.Status == "added" {
				sentences = append(sentences, "behind it: "+opList(st, br.Operations))
			} else if br.Status == "removed" {
				sentences = append(sentences, "was behind it: "+opList(st, br.Operations))
			}
			if br.Status == "changed" {
				if len(br.Joined) > 0 {
					sentences = append(sentences, "joined by "+opList(st, br.Joined))
				}
				if len(br.Left) > 0 {
					sentences = append(sentences, "left by "+opList(st, br.Left))
				}
				if len(br.Changes) == 0 {
					sentences = append(sentences, "now behind it: "+opList(st, br.Operations))
				}
			}
			b.WriteString(st.lines(sentences, changeLines(st, br.Changes, "breaker.")))
		}
	}
	for _, part := range []struct {
		name string
		ops  []DiffOp
		was  bool
	}{{"Added operations", d.Added, false}, {"Removed operations", d.Removed, true}} {
		if len(part.ops) == 0 {
			continue
		}
		b.WriteString(st.section(part.name))
		for _, o := range part.ops {
			p := o.new
			if part.was {
				p = o.old
			}
			b.WriteString(st.op(opTitle(st, o)))
			for _, s := range policyWords(st, p) {
				b.WriteString(st.sentence(s))
			}
		}
	}
	return []byte(b.String())
}

// lines writes an entry's sentences, then its changed fields.
func (st diffStyle) lines(sentences []string, cs []changeLine) string {
	var b strings.Builder
	for _, s := range sentences {
		b.WriteString(st.sentence(s))
	}
	if len(cs) > 0 {
		if st.markdown && len(sentences) > 0 {
			b.WriteString("\n") // a table after a list needs a blank line
		}
		b.WriteString(st.changes(cs))
	}
	return b.String()
}

// sentenceTop is a line under the title.
func (st diffStyle) sentenceTop(s string) string {
	if st.markdown {
		return "\n" + s + "\n"
	}
	return s + "\n"
}

func (d *PolicyDiff) summary() string {
	var parts []string
	if n := len(d.Operations); n > 0 {
		parts = append(parts, plural(n, "operation")+" changed")
	}
	if n := len(d.Added); n > 0 {
		parts = append(parts, strconv.Itoa(n)+" added")
	}
	if n := len(d.Removed); n > 0 {
		parts = append(parts, strconv.Itoa(n)+" removed")
	}
	for _, status := range []string{"changed", "added", "removed"} {
		n := 0
		for _, b := range d.Breakers {
			if b.Status == status {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, plural(n, "breaker")+" "+status)
		}
	}
	return "Policy changed: " + strings.Join(parts, ", ") + "; " + strconv.Itoa(d.Unchanged) + " unchanged."
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func opTitle(st diffStyle, o DiffOp) string {
	return st.q(o.Operation) + " (" + st.w(o.Method) + " " + st.q(o.Path) + ")"
}

func opList(st diffStyle, ops []string) string {
	if len(ops) == 0 {
		return "no operation"
	}
	qs := make([]string, len(ops))
	for i, o := range ops {
		qs[i] = st.q(o)
	}
	return plural(len(ops), "operation") + ": " + strings.Join(qs, ", ")
}

// changeLines puts changes in words; trim is a prefix left off the labels.
func changeLines(st diffStyle, cs []DiffChange, trim string) []changeLine {
	out := make([]changeLine, 0, len(cs))
	for _, c := range cs {
		kind := fieldKinds[c.Field]
		label := strings.ReplaceAll(strings.TrimPrefix(c.Field, trim), ".", " ")
		o, n := c.Old, c.New
		switch c.Field {
		case "operation":
			label = "renamed"
		case "idempotencyKeyHeader":
			label = "idempotency key header"
		case "notRetrySafe":
			// Said without the double negative.
			label, o, n = "retry-safe", not(o), not(n)
		}
		out = append(out, changeLine{label, st.q(valueText(kind, o)), st.q(valueText(kind, n))})
	}
	return out
}

func not(v any) any {
	if b, ok := v.(bool); ok {
		return !b
	}
	return v
}

// opLines is a changed operation in words: sentences for what reads best
// as one (retry turned on or off, a changed breaker), a line per other
// changed field.
func opLines(st diffStyle, o DiffOp) (sentences []string, fields []changeLine) {
	changed := map[string]bool{}
	for _, c := range o.Changes {
		changed[c.Field] = true
	}
	skip := map[string]bool{}
	oldB, newB := o.old.Breaker, o.new.Breaker
	if !changed["breaker"] && oldB != nil {
		for f := range changed {
			if isBreakerPolicyField(f) {
				skip[f] = true
			}
		}
		if len(skip) > 0 {
			sentences = append(sentences, "breaker "+st.q(newB.Instance)+": policy changed (see Breakers)")
		}
	}
	oldR, newR := o.old.Retry, o.new.Retry
	switch {
	case oldR == nil && newR != nil:
		sentences = append(sentences, fmt.Sprintf("retry turned %s (was off: %s; now: %s): %s", st.on, st.q(whyOff(o.old.RetryWhy)), st.q(o.new.RetryWhy), retryWords(st, newR)))
	case oldR != nil && newR == nil:
		sentences = append(sentences, fmt.Sprintf("retry turned %s (was on: %s, %s; now off: %s)", st.off, st.q(o.old.RetryWhy), retryWords(st, oldR), st.q(whyOff(o.new.RetryWhy))))
	case oldR == nil && newR == nil && changed["retryWhy"]:
		sentences = append(sentences, fmt.Sprintf("retry stays off (was: %s; now: %s)", st.q(whyOff(o.old.RetryWhy)), st.q(whyOff(o.new.RetryWhy))))
	}
	if oldR == nil || newR == nil {
		skip["retryWhy"] = true
		for f := range changed {
			if strings.HasPrefix(f, "retry") {
				skip[f] = true
			}
		}
		if oldR != newR {
			skip["notRetrySafe"] = true
		}
	}
	var kept []DiffChange
	for _, c := range o.Changes {
		if !skip[c.Field] {
			kept = append(kept, c)
		}
	}
	return sentences, changeLines(st, kept, "")
}

// whyOff is why retry is off without the ": off" its words end with.
func whyOff(why string) string { return strings.TrimSuffix(why, ": off") }

// retryWords is a retry policy in one phrase: "policy quick (maxAttempts
// 3; backoff constant; ...)", every setting as the constants' docs say it.
func retryWords(st diffStyle, r *model.RetryPolicy) string {
	return "policy " + st.q(r.Policy) + " (" + st.w(model.SettingsLine(model.Settings(&r.RetryPolicy))) + ")"
}

// policyWords is a whole policy, for an added or removed operation.
func policyWords(st diffStyle, p *model.OpPolicy) []string {
	breaker := "breaker: none"
	if p.Breaker != nil {
		breaker = "breaker: " + st.q(p.Breaker.Instance) + " (" + st.w(p.Breaker.Policy.Scope) + ")"
	}
	retry := "retry off: " + st.q(whyOff(p.RetryWhy))
	if p.Retry != nil {
		retry = "retry on (" + st.q(p.RetryWhy) + "): " + retryWords(st, p.Retry)
	}
	timeouts := "timeout " + valueText(kindTimeout, dur(p.Timeout)) + ", totalTimeout " + valueText(kindTimeout, dur(p.TotalTimeout))
	if p.IdleTimeout != 0 {
		timeouts += ", idleTimeout " + valueText(kindTimeout, dur(p.IdleTimeout))
	}
	if p.Resume {
		timeouts += ", resume"
	}
	return []string{breaker, retry, timeouts}
}
