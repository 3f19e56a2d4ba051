package generator

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/internal/sanitize"
)

// checkNoUnsafeText fails when data holds a rune that a generated file or a
// terminal must not show raw (control, bidirectional control, byte order
// mark, line separator), other than the newlines and tabs of its layout.
func checkNoUnsafeText(t *testing.T, what string, data []byte) {
	t.Helper()
	if !utf8.Valid(data) {
		t.Errorf("%s is not valid UTF-8", what)
	}
	for i, line := range strings.Split(string(data), "\n") {
		for _, r := range line {
			if r != '\t' && sanitize.Unsafe(r) {
				t.Errorf("%s line %d holds %U: %q", what, i+1, r, line)
				break
			}
		}
	}
}

// TestHostileTextBuildsAndIsShownSafely: testdata/specs/hostile-text.yaml
// puts escape sequences, bidirectional overrides and byte order marks in
// every name and description. It generates (its golden builds), and its
// warnings come out escaped. TestGolden checks the output and the explain
// layouts of every spec with checkNoUnsafeText.
func TestHostileTextBuildsAndIsShownSafely(t *testing.T) {
	t.Chdir("..")
	res, err := Generate(context.Background(), Config{Spec: "testdata/specs/hostile-text.yaml", Package: "hostiletext"})
	if err != nil {
		t.Fatalf("%.300v", err)
	}
	var diags bytes.Buffer
	for _, d := range res.Diags {
		diags.WriteString(d.String() + "\n")
	}
	checkNoUnsafeText(t, "the warnings", diags.Bytes())
	if !strings.Contains(diags.String(), `breaker policy "unused\x1b[31m\u202e" is defined but no operation uses it`) {
		t.Errorf("the unused-policy warning does not name the policy escaped:\n%s", diags.String())
	}
	for _, want := range []string{"// A pet.", "// Owner: nimda.", "// Line one line two    [31misolated .", `"a\u202eb"`} {
		if !bytes.Contains(res.Source, []byte(want)) {
			t.Errorf("the output lacks %q", want)
		}
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
		Policy: &model.BreakerPolicy{Name: evil, Scope: evil, WindowType: "count", WindowSize: 1, MinimumCalls: 1, RecordOn: []string{evil}}}
	rp := &model.RetryPolicy{Name: evil, MaxAttempts: 2, Backoff: "constant", Jitter: evil, RetryOn: []string{evil}, RetryAfter: true, Budget: &model.Budget{Ratio: 0.1}}
	m := &model.File{Title: evil, Source: evil, Breakers: []*model.BreakerInstance{bi}, Retries: []*model.RetryPolicy{rp},
		Operations: []*model.Operation{{ID: evil, Name: evil, Method: evil, Path: evil,
			Policy: &model.OpPolicy{Breaker: bi, Retry: rp, RetryWhy: evil, IdempotencyHeader: evil}}}}
	for _, format := range []string{"table", "markdown", "json"} {
		out, err := Explain(m, Diagnostics{{File: evil, Line: 1, Msg: evil, Pointer: evil, Hint: evil}}, format)
		if err != nil {
			t.Fatal(err)
		}
		checkNoUnsafeText(t, "explain -format "+format, out)
	}
}
