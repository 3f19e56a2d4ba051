package generator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/resgen/resgen/generator/model"
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
	if got := strings.Count(text, "; opens at "); got != len(m.Breakers) {
		t.Errorf("%s: %d breaker descriptions for %d breakers", name, got, len(m.Breakers))
	}
	if got := strings.Count(text, " attempts; "); got != len(m.Retries) {
		t.Errorf("%s: %d retry descriptions for %d retry policies", name, got, len(m.Retries))
	}
	// The lists wrap long names over lines; joined, every name is there.
	joined := strings.Join(strings.Fields(text), "")
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
	t.Chdir("..")
	for _, g := range goldenSpecs(t) {
		res, err := Check(context.Background(), Config{Spec: g.spec, Package: "p"})
		if err != nil {
			t.Fatalf("%s: %v", g.spec, err)
		}
		table, err := Explain(res.Model, res.Diags, "table")
		if err != nil {
			t.Fatal(err)
		}
		checkTable(t, g.name, res.Model, table)
	}
}

// TestExplainTableFitsCorpus: the same for the real specs under 2 MB
// (those TestCorpus takes by default).
func TestExplainTableFitsCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	n := 0
	for _, spec := range corpusSpecs(t) {
		if corpusSize(spec) >= 2<<20 {
			continue
		}
		res, err := Check(context.Background(), Config{Spec: spec, Package: "p"})
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
	bp := &model.BreakerPolicy{Name: longBreaker, Scope: "shared", WindowType: "count", WindowSize: 10, MinimumCalls: 5, HalfOpenCalls: 1}
	bi := &model.BreakerInstance{Instance: longBreaker, Policy: bp, Operations: 2}
	rp := &model.RetryPolicy{Name: longRetry, MaxAttempts: 3, Backoff: "constant", Jitter: "none"}
	short := &model.RetryPolicy{Name: "quick", MaxAttempts: 2, Backoff: "constant", Jitter: "none"}
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
	for _, want := range []string{"[B1]" + longBreaker + "shared", "[R1]" + longRetry + "3attempts"} {
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
// retryOn, Retry-After cap and budget, and the run's warnings, escaped.
func TestExplainMarkdownDetails(t *testing.T) {
	t.Chdir("..")
	res, err := Check(context.Background(), Config{Spec: "testdata/specs/resilience.yaml", Package: "p"})
	if err != nil {
		t.Fatal(err)
	}
	md, err := Explain(res.Model, res.Diags, "markdown")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| retry | attempts | waits | retries on | Retry-After cap | budget |",
		"| `budgeted` | 4 | waits 50ms, growing ×1.5 up to 1s, equal jitter | transport, 503 | ignored | 20% of calls + 10/s, client-wide |",
		"| `stubborn` | 6 | waits 100ms, growing ×2 up to 5s, full jitter | transport, timeout, 408, 429, 500, 502, 503, 504 | honoured, up to 2m | none |",
		"| `defaultsOnly` (`DefaultsOnly`) |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}

	res, err = Check(context.Background(), Config{Spec: "testdata/specs/hostile-text.yaml", Package: "p"})
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
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../golden/explain/petstore.txt")
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
