package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/resgen/resgen/generator/emit"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/templates"
)

// ExplainOp is one operation's resolved policy, as `resgen explain`
// prints it. Facts are the same the doc comment above the generated
// method is made of, so the two never disagree.
type ExplainOp struct {
	ID     string     `json:"operationId"`
	Method string     `json:"method"`
	Path   string     `json:"path"`
	Facts  emit.Facts `json:"policy"`
}

// Explain renders the policies of a generated model in format table,
// markdown or json, one operation per row, sorted by path then method.
func Explain(m *model.File, format string) ([]byte, error) {
	ops := make([]ExplainOp, 0, len(m.Operations))
	for _, op := range m.Operations {
		ops = append(ops, ExplainOp{ID: op.ID, Method: op.Method, Path: op.Path, Facts: emit.PolicyFacts(op.Policy)})
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
	case "markdown":
		var breakers []*emit.BreakerFacts
		for _, bi := range m.Breakers {
			breakers = append(breakers, emit.PolicyFacts(&model.OpPolicy{Breaker: bi}).Breaker)
		}
		title := m.Title
		if title == "" {
			title = m.Source
		}
		if err := templates.T.ExecuteTemplate(&buf, "explain.markdown", map[string]any{"Title": title, "Ops": ops, "Breakers": breakers}); err != nil {
			return nil, err
		}
	case "table", "":
		tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
		if err := templates.T.ExecuteTemplate(tw, "explain.table", ops); err != nil {
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
