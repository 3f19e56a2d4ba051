package view

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/resgen/resgen/generator"
	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/internal/realspecs"
	"github.com/resgen/resgen/internal/sanitize"
	"github.com/resgen/resgen/runtime"
)

// checkTable checks what every explain table must be: no line wider than
// tableWidth (in runes, and in display columns), each breaker and retry
// policy of m described once, and every name in full in those lists.
func checkTable(t *testing.T, name string, m *model.File, table []byte) {
	t.Helper()
	for i, l := range strings.Split(string(table), "\n") {
		if n := utf8.RuneCountInString(l); n > tableWidth || displayWidth(l) > tableWidth {
			t.Errorf("%s: line %d is %d runes, %d columns wide: %q", name, i+1, n, displayWidth(l), l)
		}
	}
	text := string(table)
	// The lists wrap long names over lines; joined, every name is there.
	// Each description starts with its policy's first key.
	joined := strings.Join(strings.Fields(text), "")
	if got := strings.Count(joined, model.PolicyKeys(runtime.BreakerPolicy{})[0]); got != len(m.Breakers) {
		t.Errorf("%s: %d breaker descriptions for %d breakers", name, got, len(m.Breakers))
	}
	if got := strings.Count(joined, model.PolicyKeys(runtime.RetryPolicy{})[0]); got != len(m.Retries) {
		t.Errorf("%s: %d retry descriptions for %d retry policies", name, got, len(m.Retries))
	}
	for _, bi := range breakerFacts(m) {
		if !strings.Contains(joined, strings.Join(strings.Fields(bi.Instance), "")) {
			t.Errorf("%s: breaker %q is not named in full", name, bi.Instance)
		}
	}
	for _, r := range retryFacts(m) {
		if !strings.Contains(joined, strings.Join(strings.Fields(r.Policy), "")) {
			t.Errorf("%s: retry %q is not named in full", name, r.Policy)
		}
	}
}

// TestExplainTableFitsTestdata: the table of every spec TestGolden
// generates fits 120 columns.
func TestExplainTableFitsTestdata(t *testing.T) {
	t.Chdir("../..")
	var specs []string
	for _, pattern := range []string{"testdata/specs/*.yaml", "testdata/specs/load/*.yaml", "testdata/specs/load/*.json", "testdata/specs/load/*/openapi.yaml"} {
		more, err := filepath.Glob(pattern)
		if err != nil || len(more) == 0 {
			t.Fatalf("no spec matches %s", pattern)
		}
		specs = append(specs, more...)
	}
	for _, spec := range specs {
		res, err := generator.Check(context.Background(), generator.Config{Spec: spec, Package: "p"})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		table, err := Explain(res.Model, res.Diags, "table")
		if err != nil {
			t.Fatal(err)
		}
		checkTable(t, spec, res.Model, table)
	}
}

// TestExplainTableFitsCorpus: the same for the real specs under 2 MB
// (those TestCorpus takes by default).
func TestExplainTableFitsCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	n := 0
	const corpus = "../../../shared/specs/real"
	specs, err := realspecs.List(corpus)
	if err != nil {
		t.Skipf("no corpus: %v", err)
	}
	for _, spec := range specs {
		if realspecs.Size(corpus, spec) >= 2<<20 {
			continue
		}
		res, err := generator.Check(context.Background(), generator.Config{Spec: spec, Package: "p"})
		if err != nil {
			continue // TestCorpus reports specs that do not load
		}
		table, err := Explain(res.Model, res.Diags, "table")
		if err != nil {
			t.Fatal(err)
		}
		checkTable(t, filepath.Base(spec), res.Model, table)
		n++
	}
	if n == 0 {
		t.Fatal("no corpus spec checked")
	}
}

// TestExplainTableLastResorts: names, paths and reasons far too long for
// 120 columns. Paths and operation cells are cut in the middle; breaker and
// retry names never are: the row shows a key the lists spell out.
func TestExplainTableLastResorts(t *testing.T) {
	longBreaker := "breaker-" + strings.Repeat("b", 150) + "-end"
	longRetry := "retry-" + strings.Repeat("r", 60) + "-end"
	longPath := "/start/" + strings.Repeat("p", 200) + "/{id}/end"
	longID := "opStart" + strings.Repeat("x", 100) + "OpEnd"
	bp := &model.BreakerPolicy{BreakerPolicy: runtime.BreakerPolicy{Policy: longBreaker, WindowType: runtime.CountWindow, WindowSize: 10, MinimumCalls: 5, HalfOpenCalls: 1}, Scope: "shared"}
	bi := &model.BreakerInstance{Instance: longBreaker, Policy: bp, Operations: 2}
	rp := &model.RetryPolicy{RetryPolicy: runtime.RetryPolicy{Policy: longRetry, MaxAttempts: 3, Backoff: runtime.ConstantBackoff, Jitter: runtime.NoJitter}}
	short := &model.RetryPolicy{RetryPolicy: runtime.RetryPolicy{Policy: "quick", MaxAttempts: 2, Backoff: runtime.ConstantBackoff, Jitter: runtime.NoJitter}}
	m := &model.File{
		Breakers: []*model.BreakerInstance{bi},
		Retries:  []*model.RetryPolicy{rp, short},
		Operations: []*model.Operation{
			{ID: longID, Name: "OpStart" + strings.Repeat("X", 100) + "OpEnd", Method: "GET", Path: longPath,
				Policy: &model.OpPolicy{Breaker: bi, Retry: rp, RetryWhy: "the " + strings.Repeat("W", 80) + " header"}},
			{ID: "short", Name: "Short", Method: "GET", Path: "/short", Policy: &model.OpPolicy{Breaker: bi, Retry: short, RetryWhy: "GET"}},
		},
	}
	table, err := Explain(m, nil, "table")
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, "last resorts", m, table)
	text := string(table)
	for _, want := range []string{
		"/start/ppp", "ppp/{id}/end\n", // the path keeps both ends
		"opStartxxx", "xxxOpEnd (Op", "nd)", // so does each name of the operation cell
		"  [B1]  ", "  [R1]  ", // the rows name the long policies by key
		"  quick ", // a short name stays itself
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the table lacks %q:\n%s", want, text)
		}
	}
	// The lists spell the keys out (wrapped over lines).
	joined := strings.Join(strings.Fields(text), "")
	for _, want := range []string{"[B1]" + longBreaker + "shared", "[R1]" + longRetry + "maxAttempts3"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the lists do not spell out %.20q...", want)
		}
	}
}

func TestDisplayWidth(t *testing.T) {
	for s, want := range map[string]int{"abc": 3, "日本語": 6, "ｆｕｌｌ": 8, "e\u0301": 1, "≥ ×": 3, "한국": 4} {
		if got := displayWidth(s); got != want {
			t.Errorf("displayWidth(%q) = %d, want %d", s, got, want)
		}
	}
	if got := cutMiddle("日本語のパス/とても長い", 9); displayWidth(got) > 9 || !strings.HasPrefix(got, "日本") || !strings.HasSuffix(got, "長い") {
		t.Errorf("cutMiddle of wide text = %q (%d columns)", got, displayWidth(got))
	}
}

// TestExplainMarkdownDetails: the markdown form has each retry policy's
// settings (retryOn, the Retry-After cap and the budget among them), and
// the run's warnings, escaped.
func TestExplainMarkdownDetails(t *testing.T) {
	t.Chdir("../..")
	res, err := generator.Check(context.Background(), generator.Config{Spec: "testdata/specs/resilience.yaml", Package: "p"})
	if err != nil {
		t.Fatal(err)
	}
	md, err := Explain(res.Model, res.Diags, "markdown")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| retry | settings |",
		"| `budgeted` | maxAttempts 4; backoff exponential; initialInterval 50ms; multiplier 1.5; maxInterval 1s; jitter equal; retryOn transport, 503; retryAfter false; maxRetryAfter 30s; budget ratio 0.2, minPerSecond 10 |",
		"| `stubborn` | maxAttempts 6; backoff exponential; initialInterval 100ms; multiplier 2; maxInterval 5s; jitter full; retryOn transport, timeout, 408, 429, 500, 502, 503, 504; retryAfter true; maxRetryAfter 2m; budget none |",
		"| `defaultsOnly` (`DefaultsOnly`) |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}

	res, err = generator.Check(context.Background(), generator.Config{Spec: "testdata/specs/hostile-text.yaml", Package: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diags) == 0 {
		t.Fatal("hostile-text.yaml has no warnings to show")
	}
	md, err = Explain(res.Model, res.Diags, "markdown")
	if err != nil {
		t.Fatal(err)
	}
	want := "- `testdata/specs/hostile-text.yaml:"
	if !strings.Contains(string(md), "## Warnings\n\n"+want) || strings.Count(string(md), want) != len(res.Diags) {
		t.Errorf("markdown does not list the %d warnings:\n%s", len(res.Diags), md)
	}
	if !strings.Contains(string(md), `breaker policy "unused\\x1b\[31m\\u202e" is defined but no operation uses it`) {
		t.Errorf("the unused-policy warning is not escaped for markdown:\n%s", md)
	}
}

// TestReadmeShowsExplain: the table the README shows is what explain
// prints for testdata/specs/petstore.yaml today.
func TestReadmeShowsExplain(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../golden/explain/petstore.txt")
	if err != nil {
		t.Fatal(err)
	}
	var indented strings.Builder
	for _, l := range strings.SplitAfter(string(want), "\n") {
		if strings.TrimSpace(l) != "" {
			indented.WriteString("  ")
		}
		indented.WriteString(l)
	}
	if !strings.Contains(string(readme), "  ```text\n"+indented.String()+"  ```\n") {
		t.Error("README.md does not show golden/explain/petstore.txt (indented by two spaces in a text block): update it")
	}
}

// TestExplainEscapesEveryField fills every string the text layouts of
// explain can print with escape sequences: none reaches the output raw,
// whatever field is added to Facts later.
func TestExplainEscapesEveryField(t *testing.T) {
	const evil = "\x1b]0;x\a\u202e\r\n\t"
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			v.SetString(evil)
		case reflect.Pointer:
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			fill(v.Elem())
		case reflect.Slice:
			if v.Len() == 0 {
				v.Set(reflect.MakeSlice(v.Type(), 1, 1))
			}
			for i := range v.Len() {
				fill(v.Index(i))
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					fill(v.Field(i))
				}
			}
		}
	}
	var op ExplainOp
	fill(reflect.ValueOf(&op.Facts))
	op.ID, op.GoMethod, op.Method, op.Path = evil, evil, evil, evil
	safe := terminalOps([]ExplainOp{op})[0]
	var check func(v reflect.Value, name string)
	check = func(v reflect.Value, name string) {
		switch v.Kind() {
		case reflect.String:
			if strings.ContainsFunc(v.String(), sanitize.Unsafe) {
				t.Errorf("%s is not escaped: %q", name, v.String())
			}
		case reflect.Pointer:
			if !v.IsNil() {
				check(v.Elem(), name)
			}
		case reflect.Slice:
			for i := range v.Len() {
				check(v.Index(i), name)
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					check(v.Field(i), name+"."+v.Type().Field(i).Name)
				}
			}
		}
	}
	check(reflect.ValueOf(safe.Facts), "Facts")
	for _, s := range []string{safe.ID, safe.GoMethod, safe.Method, safe.Path} {
		if strings.ContainsFunc(s, sanitize.Unsafe) {
			t.Errorf("a name is not escaped: %q", s)
		}
	}
	// A model with evil names everywhere the layouts print one, and a
	// warning: the table, its lists and the markdown escape them all.
	bi := &model.BreakerInstance{Instance: evil, Const: evil, Operations: 1,
		Policy: &model.BreakerPolicy{BreakerPolicy: runtime.BreakerPolicy{Policy: evil, WindowSize: 1, MinimumCalls: 1, RecordOn: runtime.Match{Codes: []int{503}}}, Scope: evil}}
	rp := &model.RetryPolicy{RetryPolicy: runtime.RetryPolicy{Policy: evil, MaxAttempts: 2, RetryAfter: true, Budget: &runtime.Budget{Ratio: 0.1}}, Const: evil}
	m := &model.File{Title: evil, Source: evil, Breakers: []*model.BreakerInstance{bi}, Retries: []*model.RetryPolicy{rp},
		Operations: []*model.Operation{{ID: evil, Name: evil, Method: evil, Path: evil,
			Policy: &model.OpPolicy{Breaker: bi, Retry: rp, RetryWhy: evil, IdempotencyHeader: evil}}}}
	for _, format := range []string{"table", "markdown", "json"} {
		out, err := Explain(m, diag.Diagnostics{{File: evil, Line: 1, Msg: evil, Pointer: evil, Hint: evil}}, format)
		if err != nil {
			t.Fatal(err)
		}
		if i := bytes.IndexFunc(out, func(r rune) bool { return r != '\t' && r != '\n' && sanitize.Unsafe(r) }); i >= 0 || !utf8.Valid(out) {
			t.Errorf("explain -format %s prints unsafe text at byte %d: %q", format, i, out[max(i, 0):min(max(i, 0)+40, len(out))])
		}
	}
}
