package generator

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/resgen/resgen/generator/emit"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/generator/view"
	"github.com/resgen/resgen/runtime"
)

// The one description of a policy's fields is the runtime's policy tags
// (model.PolicyFields reads them). These tests hold every renderer to it:
// each key described shows up in explain (all formats), diff, the doc
// comments and emit's literals, and no other file keeps its own list.

// policyKeys are the keys the runtime describes, by the policy kind the
// renderers prefix them with.
func policyKeys() map[string][]string {
	return map[string][]string{
		"breaker": model.PolicyKeys(runtime.BreakerPolicy{}),
		"retry":   model.PolicyKeys(runtime.RetryPolicy{}),
	}
}

// TestEveryPolicyFieldIsRendered: for every key of the runtime's breaker
// and retry policies, some policy of testdata/specs/resilience.yaml
// (count and time windows, with and without a budget) where it applies
// has it in its constant's doc comment (one line, "- key: value"), in its
// Go literal (the Go field), in explain's table, markdown and JSON (the
// machine value and the words), and a change of that field alone is a
// change of that key in `resgen diff`, in every format. A field added to
// the runtime's structs, tagged, shows up in all of them with no other
// edit; a renderer that listed fields of its own would miss it here.
func TestEveryPolicyFieldIsRendered(t *testing.T) {
	t.Chdir("..")
	cfg := Config{Spec: "testdata/specs/resilience.yaml", Package: "p"}
	res, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Model
	src := string(res.Source)
	table, err := view.Explain(m, nil, "table")
	if err != nil {
		t.Fatal(err)
	}
	md, err := view.Explain(m, nil, "markdown")
	if err != nil {
		t.Fatal(err)
	}
	js, err := view.Explain(m, nil, "json")
	if err != nil {
		t.Fatal(err)
	}
	var machine struct {
		Operations []struct {
			Policy map[string]json.RawMessage `json:"policy"`
			Text   map[string]json.RawMessage `json:"text"`
		} `json:"operations"`
	}
	if err := json.Unmarshal(js, &machine); err != nil {
		t.Fatal(err)
	}
	joinedTable := strings.Join(strings.Fields(string(table)), "")
	jsonKeys := map[string]bool{} // "breaker.windowSize" in policy and in text
	for _, op := range machine.Operations {
		for _, kind := range []string{"breaker", "retry"} {
			var p, w map[string]any
			json.Unmarshal(op.Policy[kind], &p)
			json.Unmarshal(op.Text[kind], &w)
			for k := range p {
				if _, ok := w[k]; ok {
					jsonKeys[kind+"."+k] = true
				}
			}
		}
	}

	// Where each key applies, in m: the policies with it, and the doc
	// lines of their constants.
	type where struct {
		policy any // *runtime.BreakerPolicy or *runtime.RetryPolicy of m
		doc    []string
	}
	found := map[string][]where{}
	for _, bi := range m.Breakers {
		for _, f := range model.PolicyFields(&bi.Policy.BreakerPolicy) {
			found["breaker."+f.Key] = append(found["breaker."+f.Key], where{&bi.Policy.BreakerPolicy, emit.BreakerDocLines(bi)})
		}
	}
	for _, rp := range m.Retries {
		for _, f := range model.PolicyFields(&rp.RetryPolicy) {
			found["retry."+f.Key] = append(found["retry."+f.Key], where{&rp.RetryPolicy, emit.RetryDocLines(rp)})
		}
	}
	for kind, keys := range policyKeys() {
		for _, key := range keys {
			name := kind + "." + key
			ws := found[name]
			if len(ws) == 0 {
				t.Errorf("%s applies to no policy of %s: give the spec one it applies to", name, cfg.Spec)
				continue
			}
			for _, w := range ws {
				f := fieldOf(w.policy, key)
				line := "  - " + key + ": " + f.Words()
				if !slices.Contains(w.doc, line) {
					t.Errorf("%s: the constant's doc lacks the line %q:\n%s", name, line, strings.Join(w.doc, "\n"))
				}
				if !strings.Contains(joinedTable, strings.Join(strings.Fields(key+" "+f.Words()), "")) {
					t.Errorf("%s: explain's table lacks %q", name, key+" "+f.Words())
				}
				if !strings.Contains(string(md), key+" "+f.Words()) {
					t.Errorf("%s: explain's markdown lacks %q", name, key+" "+f.Words())
				}
			}
			if !strings.Contains(src, "\t"+fieldOf(ws[0].policy, key).Go+": ") {
				t.Errorf("%s: the generated literals lack the field %s", name, fieldOf(ws[0].policy, key).Go)
			}
			if !jsonKeys[name] && fieldOf(ws[0].policy, key).JSON() != nil {
				t.Errorf("%s: explain's JSON lacks it in policy or text", name)
			}
			checkDiffShows(t, cfg, kind, key)
		}
	}
}

// fieldOf is the field of p (a runtime policy) with key.
func fieldOf(p any, key string) model.PolicyField {
	for _, f := range model.PolicyFields(p) {
		if f.Key == key {
			return f
		}
	}
	panic("no key " + key)
}

// checkDiffShows changes the field key of the first policy of kind it
// applies to, in a second model of the same spec, and wants `resgen
// diff` to name that key in every format.
func checkDiffShows(t *testing.T, cfg Config, kind, key string) {
	t.Helper()
	old, err := Check(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	changed, err := Check(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var policies []any
	if kind == "breaker" {
		for _, bi := range changed.Model.Breakers {
			policies = append(policies, &bi.Policy.BreakerPolicy)
		}
	} else {
		for _, rp := range changed.Model.Retries {
			policies = append(policies, &rp.RetryPolicy)
		}
	}
	var target model.PolicyField
	for _, p := range policies {
		for _, f := range model.PolicyFields(p) {
			if f.Key == key && target.Key == "" {
				target = f
			}
		}
	}
	mutate(target.Value)
	d := view.DiffPolicies(old.Model, changed.Model, "old", "new")
	var fields []string
	for _, o := range d.Operations {
		for _, c := range o.Changes {
			fields = append(fields, c.Field)
		}
	}
	for _, b := range d.Breakers {
		for _, c := range b.Changes {
			fields = append(fields, c.Field)
		}
	}
	if !slices.Contains(fields, kind+"."+key) {
		t.Errorf("diff of a changed %s.%s: changes %v", kind, key, fields)
	}
	for _, format := range []string{"text", "markdown", "json"} {
		out, err := d.Render(format)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), key) {
			t.Errorf("diff -format %s of a changed %s.%s does not name it:\n%s", format, kind, key, out)
		}
	}
}

// mutate changes a policy field's value to another the runtime takes.
func mutate(v reflect.Value) {
	switch x := v.Interface().(type) {
	case time.Duration:
		v.SetInt(int64(x + time.Second))
		return
	case runtime.Match:
		x.Transport = !x.Transport
		v.Set(reflect.ValueOf(x))
		return
	}
	switch v.Kind() {
	case reflect.Int:
		v.SetInt(v.Int() + 1)
	case reflect.Float64:
		v.SetFloat(v.Float() + 1)
	case reflect.Uint8: // an enum: its other first value
		v.SetUint(v.Uint() ^ 1)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		} else {
			v.Set(reflect.Zero(v.Type()))
		}
	default:
		panic(fmt.Sprintf("no mutation for %s", v.Type()))
	}
}

// TestNoFileNamesAPolicyField: outside generator/policy, the runtime and
// generated code, no Go source file has a string literal that is a policy
// key ("windowSize") or a policy field's Go name ("WindowSize"): a list of
// fields kept anywhere else would not follow the runtime's description.
func TestNoFileNamesAPolicyField(t *testing.T) {
	names := map[string]bool{}
	for _, p := range []any{runtime.BreakerPolicy{}, runtime.RetryPolicy{}, runtime.Budget{}} {
		for _, f := range model.LiteralFields(p) {
			names[f.Go] = true
		}
		for _, k := range model.PolicyKeys(p) {
			names[k] = true
		}
	}
	if !names["windowSize"] || !names["WindowSize"] || !names["minPerSecond"] {
		t.Fatalf("the names looked for are not the policies' fields: %v", names)
	}
	skip := []string{"runtime", "generator/policy", "golden", "examples", "scripts/bench/testdata", "otel", "redis"}
	fset := token.NewFileSet()
	n := 0
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", path)
		if d.IsDir() {
			if rel != "." && (slices.Contains(skip, filepath.ToSlash(rel)) || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		n++
		ast.Inspect(f, func(node ast.Node) bool {
			if lit, ok := node.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && names[s] {
					t.Errorf("%s: names the policy field %q; read it from model.PolicyFields", fset.Position(lit.Pos()), s)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("checked %d files: not the module", n)
	}
}

// TestOneRetryFieldChangesOneLiteralAndOneDocLine: changing one value of
// a retry policy in the spec changes exactly two lines of the generated
// client: its literal in NewClient and its line in the doc of the
// policy's constant. The methods that use the policy only link to the
// constant, so their docs stay as they are.
func TestOneRetryFieldChangesOneLiteralAndOneDocLine(t *testing.T) {
	t.Chdir("..")
	spec, err := os.ReadFile("testdata/specs/petstore.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const from, to = "      initialInterval: 5ms\n", "      initialInterval: 7ms\n"
	if strings.Count(string(spec), from) != 1 {
		t.Fatalf("petstore.yaml has no single %q to change", from)
	}
	dir := t.TempDir()
	gen := func(side, text string) []string {
		// The same file name on both sides: the header names it.
		path := filepath.Join(dir, side, "petstore.yaml")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Generate(context.Background(), Config{Spec: path, Package: "petstore"})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(string(res.Source), "\n")
	}
	before := gen("before", string(spec))
	after := gen("after", strings.Replace(string(spec), from, to, 1))
	if len(before) != len(after) {
		t.Fatalf("the change made %d lines %d", len(before), len(after))
	}
	var changed []string
	for i := range before {
		if before[i] != after[i] {
			changed = append(changed, before[i]+" → "+after[i])
		}
	}
	want := []string{
		"\t\tInitialInterval: 5 * time.Millisecond, → \t\tInitialInterval: 7 * time.Millisecond,",
		"\t//   - initialInterval: 5ms → \t//   - initialInterval: 7ms",
	}
	if len(changed) != 2 {
		t.Fatalf("changed lines:\n%s\nwant the doc line and the literal only", strings.Join(changed, "\n"))
	}
	for i, c := range changed {
		if strings.Join(strings.Fields(c), " ") != strings.Join(strings.Fields(want[i]), " ") {
			t.Errorf("changed line %d: %q, want %q", i, c, want[i])
		}
	}
}

// TestSchemaHasEveryPolicyKey: the JSON Schema editors use lists, for
// each policy object, exactly the runtime's keys and those resgen reads
// itself (extends, scope): a field added to the runtime fails here until
// the schema says how to write it.
func TestSchemaHasEveryPolicyKey(t *testing.T) {
	data, err := os.ReadFile("../schema/x-resilience.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	type object struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	var schema struct {
		Defs map[string]object `json:"$defs"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	var budget object
	if err := json.Unmarshal(schema.Defs["retryPolicy"].Properties["budget"], &budget); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		schema object
		keys   []string
	}{
		{"breakerPolicy", schema.Defs["breakerPolicy"], append([]string{"extends", "scope"}, model.PolicyKeys(runtime.BreakerPolicy{})...)},
		{"retryPolicy", schema.Defs["retryPolicy"], append([]string{"extends"}, model.PolicyKeys(runtime.RetryPolicy{})...)},
		{"retryPolicy budget", budget, model.PolicyKeys(runtime.Budget{})},
	} {
		var got []string
		for k := range c.schema.Properties {
			got = append(got, k)
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(c.keys))
		if !slices.Equal(got, want) {
			t.Errorf("the schema's %s has the keys %v, the runtime's description %v", c.name, got, want)
		}
	}
}

// TestPathRetryIsOnePolicy: a retry policy object written on a path item
// is one policy for its operations: one variable, one constant, no
// warning of a name taken twice.
func TestPathRetryIsOnePolicy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "spec.yaml")
	spec := `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a:
    x-resilience: {retry: {maxAttempts: 2}}
    get: {operationId: getA, responses: {'200': {description: ok}}}
    put: {operationId: putA, responses: {'200': {description: ok}}}
`
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Generate(context.Background(), Config{Spec: path, Package: "p"})
	if err != nil {
		t.Fatal(err)
	}
	src := string(res.Source)
	if len(res.Diags) != 0 || strings.Count(src, "&runtime.RetryPolicy{") != 1 || strings.Count(src, `RetryA = "/a"`) != 1 || strings.Count(src, "Retry: retryA,") != 2 {
		t.Errorf("warnings %v; the client:\n%s", res.Diags, src)
	}
}
