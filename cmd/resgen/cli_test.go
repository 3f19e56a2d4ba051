package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/resgen/resgen/generator"
	"github.com/resgen/resgen/tools/lab"
)

// runCLI runs resgen in-process from the repository root.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestGenerateWritesAFormattedClient(t *testing.T) {
	t.Chdir("../..")
	out := filepath.Join(t.TempDir(), "pets", "client.gen.go")
	code, _, stderr := runCLI(t, "generate", "-spec", "testdata/specs/petstore.yaml", "-package", "pets", "-o", out)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("golden/petstore/client.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	want = bytes.Replace(want, []byte("package petstore"), []byte("package pets"), 1)
	if !bytes.Equal(got, want) {
		t.Fatal("the CLI wrote something else than the generator's golden output")
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
		t.Fatalf("the output folder holds %d files; the temp file was left behind", len(entries))
	}
}

func TestBadInputExits2AndKeepsTheOldOutput(t *testing.T) {
	t.Chdir("../..")
	out := filepath.Join(t.TempDir(), "client.gen.go")
	old := []byte("// the previous, hand-checked output\npackage x\n")
	if err := os.WriteFile(out, old, 0o644); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(out, past, past); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"retry on a POST without key", []string{"-spec", "testdata/specs/invalid/retry-on-post.yaml"},
			"testdata/specs/invalid/retry-on-post.yaml:9:9: error: retry on POST /servers, which is not retry-safe: a POST without an idempotency key\n" +
				"\tat #/paths/~1servers/post/x-resilience/retry\n" +
				"\tfix: make it retry-safe: declare an idempotency-key header parameter, set idempotencyKey: true, or set idempotent: true if repeating it is harmless; or remove retry\n"},
		{"idempotency key of object schema under -strict", []string{"-strict", "-spec", "testdata/specs/idemkeyunusable.yaml"},
			"testdata/specs/idemkeyunusable.yaml:15:11: error: header \"Idempotency-Key\" cannot carry the idempotency key: its schema is an object: a key must be a string or an integer;"},
		{"near miss of the key header under -strict", []string{"-strict", "-spec", "testdata/specs/idemkeys.yaml"},
			"testdata/specs/idemkeys.yaml:61:11: error: header \"Idempotency-Keys\" is not the idempotency key header; did you mean \"Idempotency-Key\"?\n"},
		{"YAML syntax", []string{"-spec", "testdata/specs/invalid/not-yaml.yaml"},
			"testdata/specs/invalid/not-yaml.yaml:6: error: cannot load spec"},
		{"missing spec", []string{"-spec", "testdata/specs/nope.yaml"},
			"testdata/specs/nope.yaml: error: cannot read spec"},
		{"bad package name", []string{"-spec", "testdata/specs/petstore.yaml", "-package", "func"},
			`-package: error: "func" is not a Go package name`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"generate", "-package", "x", "-o", out}, c.args...)
			code, _, stderr := runCLI(t, args...)
			if code != exitInput {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitInput, stderr)
			}
			if !strings.HasPrefix(stderr, c.stderr) {
				t.Fatalf("stderr:\n%s\nwant it to start with:\n%s", stderr, c.stderr)
			}
			got, err := os.ReadFile(out)
			if err != nil || !bytes.Equal(got, old) {
				t.Fatalf("the previous output changed: %q, %v", got, err)
			}
			if fi, err := os.Stat(out); err != nil || !fi.ModTime().Equal(past) {
				t.Fatalf("the previous output was rewritten (mtime %v)", fi.ModTime())
			}
			if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
				t.Fatalf("the output folder holds %d files", len(entries))
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	cases := []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{nil, exitInput, "", "Usage:"},
		{[]string{"frobnicate"}, exitInput, "", `resgen: unknown command "frobnicate"`},
		{[]string{"help"}, exitOK, "Usage:", ""},
		{[]string{"-h"}, exitOK, "Usage:", ""},
		{[]string{"version"}, exitOK, "resgen ", ""},
		{[]string{"generate", "-h"}, exitOK, "", "Usage: resgen generate"},
		{[]string{"generate"}, exitInput, "", "resgen generate: missing -spec, -package, -o"},
		{[]string{"lint"}, exitInput, "", "resgen lint: missing -spec"},
		{[]string{"explain", "-h"}, exitOK, "", "Usage: resgen explain"},
		{[]string{"explain", "-spec", "x.yaml", "-format", "xml"}, exitInput, "", "-format must be table, markdown or json"},
		{[]string{"generate", "-nope"}, exitInput, "", "flag provided but not defined: -nope"},
		{[]string{"generate", "-spec", "a.yaml", "-package", "a", "-o", "a.go", "extra"}, exitInput, "", `unexpected argument "extra"`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d", code, c.code)
			}
			if !strings.Contains(stdout, c.stdout) || !strings.Contains(stderr, c.stderr) {
				t.Fatalf("stdout %q, stderr %q; want %q and %q", stdout, stderr, c.stdout, c.stderr)
			}
		})
	}
}

func TestLintCommand(t *testing.T) {
	t.Chdir("../..")
	const warn = "testdata/lint/jitter-none.yaml:7:29: warning: jitter: none with 4 attempts"
	code, stdout, stderr := runCLI(t, "lint", "-spec", "testdata/lint/jitter-none.yaml")
	if code != exitOK || stdout != "" || !strings.HasPrefix(stderr, warn) {
		t.Fatalf("lint: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = runCLI(t, "lint", "-strict", "-spec", "testdata/lint/jitter-none.yaml")
	if code != exitInput || !strings.HasPrefix(stderr, strings.Replace(warn, "warning", "error", 1)) {
		t.Fatalf("lint -strict: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "lint", "-spec", "testdata/specs/invalid/retry-on-post.yaml")
	if code != exitInput || !strings.Contains(stderr, "retry-on-post.yaml:9:9: error:") {
		t.Fatalf("lint of a bad spec: exit %d, stderr %q", code, stderr)
	}
}

func TestExplainCommand(t *testing.T) {
	t.Chdir("../..")
	for format, ext := range map[string]string{"table": "txt", "markdown": "md", "json": "json"} {
		code, stdout, stderr := runCLI(t, "explain", "-spec", "testdata/specs/openstack-console.yaml", "-format", format)
		want, err := os.ReadFile("golden/explain/openstack-console." + ext)
		if err != nil {
			t.Fatal(err)
		}
		if code != exitOK || stdout != string(want) {
			t.Fatalf("explain -format %s: exit %d, stderr %q; stdout differs from its golden", format, code, stderr)
		}
	}
}

func TestGenerateSplitWritesAFolder(t *testing.T) {
	t.Chdir("../..")
	dir := t.TempDir()
	stale := filepath.Join(dir, "ops_gone.gen.go")
	os.WriteFile(stale, []byte("// Code generated by resgen from old.yaml. DO NOT EDIT.\n\npackage c\n"), 0o644)
	mine := filepath.Join(dir, "helpers.go")
	os.WriteFile(mine, []byte("package c\n"), 0o644)
	code, _, stderr := runCLI(t, "generate", "-spec", "testdata/specs/openstack-console.yaml", "-package", "openstackconsolesplit", "-split", "tag", "-o", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		if e.Name() == "helpers.go" {
			continue
		}
		got, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		want, err := os.ReadFile(filepath.Join("golden", "openstack-console-split", e.Name()))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from its golden (%v)", e.Name(), err)
		}
	}
	want := "client.gen.go helpers.go ops_compute.gen.go ops_identity.gen.go ops_image.gen.go ops_volume.gen.go types.gen.go"
	if strings.Join(names, " ") != want {
		t.Fatalf("folder holds %v; want %s (the stale generated file removed, the hand-written one kept)", names, want)
	}
	code, _, stderr = runCLI(t, "generate", "-spec", "testdata/specs/petstore.yaml", "-package", "p", "-split", "bytag", "-o", dir)
	if code != exitInput || !strings.Contains(stderr, `"bytag" is not a layout`) {
		t.Fatalf("bad -split: exit %d, %q", code, stderr)
	}
}

func TestGenerateCheck(t *testing.T) {
	t.Chdir("../..")
	out := filepath.Join(t.TempDir(), "client.gen.go")
	args := []string{"generate", "-spec", "testdata/specs/petstore.yaml", "-package", "petstore", "-o", out, "-check"}
	if code, _, stderr := runCLI(t, args...); code != exitStale || !strings.Contains(stderr, out+": stale") {
		t.Fatalf("missing output: exit %d, %q; want %d", code, stderr, exitStale)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("-check wrote the output")
	}
	golden, _ := os.ReadFile("golden/petstore/client.gen.go")
	os.WriteFile(out, golden, 0o644)
	if code, _, stderr := runCLI(t, args...); code != exitOK {
		t.Fatalf("current output: exit %d, %q", code, stderr)
	}
	os.WriteFile(out, append(golden, '\n'), 0o644)
	if code, _, _ := runCLI(t, args...); code != exitStale {
		t.Fatalf("edited output: exit %d, want %d", code, exitStale)
	}
	split := t.TempDir()
	splitArgs := []string{"generate", "-spec", "testdata/specs/openstack-console.yaml", "-package", "openstackconsolesplit", "-split", "tag", "-o", split}
	if code, _, stderr := runCLI(t, splitArgs...); code != exitOK {
		t.Fatalf("split: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, append(splitArgs, "-check")...); code != exitOK {
		t.Fatalf("split check: exit %d, %q", code, stderr)
	}
	os.WriteFile(filepath.Join(split, "ops_old.gen.go"), []byte("// Code generated by resgen from x.yaml. DO NOT EDIT.\n\npackage openstackconsolesplit\n"), 0o644)
	if code, _, stderr := runCLI(t, append(splitArgs, "-check")...); code != exitStale || !strings.Contains(stderr, "ops_old.gen.go: stale") {
		t.Fatalf("split check with a leftover: exit %d, %q", code, stderr)
	}
}

// TestSpecTextReachesTheTerminalEscaped: hostile-text.yaml holds ANSI and
// OSC escapes, BEL, CR, byte order marks and bidirectional overrides in its
// names and descriptions, and its file name does too here. generate
// succeeds (the byte order mark once made it dump the whole source with
// exit 1), and lint, explain and the diagnostics print none of it raw.
func TestSpecTextReachesTheTerminalEscaped(t *testing.T) {
	spec, err := os.ReadFile("../../testdata/specs/hostile-text.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	name := "evil\x1b[2J\u202e.yaml"
	if err := os.WriteFile(name, spec, 0o644); err != nil {
		t.Fatal(err)
	}
	raw := func(s string) bool {
		return strings.ContainsFunc(s, func(r rune) bool {
			return r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0xfeff || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069)
		})
	}
	runs := [][]string{
		{"generate", "-spec", name, "-package", "p", "-o", "p/client.gen.go"},
		{"lint", "-spec", name},
		{"explain", "-spec", name},
		{"explain", "-spec", name, "-format", "markdown"},
		{"explain", "-spec", name, "-format", "json"},
		{"generate", "-spec", name, "-package", "p", "-o", "p/client.gen.go", "-check"},
	}
	for _, args := range runs {
		code, stdout, stderr := runCLI(t, args...)
		if code != exitOK || raw(stdout) || raw(stderr) {
			t.Errorf("resgen %s: exit %d, stdout %.300q, stderr %.600q", args[0], code, stdout, stderr)
		}
		if args[0] == "lint" && !strings.Contains(stderr, `evil\x1b[2J\u202e.yaml:14:5: warning: breaker policy "unused\x1b[31m\u202e" is defined`) {
			t.Errorf("lint does not name the file and the policy escaped:\n%s", stderr)
		}
	}
	if src, err := os.ReadFile("p/client.gen.go"); err != nil || raw(string(src)) {
		t.Errorf("the output holds raw control or bidi characters (%v)", err)
	}
}

// TestGenerateWarnsOfRenamedNames: a Go name that had to change to avoid a
// clash is a warning at the schema or operation that lost its name, saying
// which name it got and what holds the one it wanted, and where (the
// schema, property, operation or enum value that kept it); the client still
// generates, with those names.
func TestGenerateWarnsOfRenamedNames(t *testing.T) {
	t.Chdir("../..")
	out := filepath.Join(t.TempDir(), "clash.gen.go")
	code, _, stderr := runCLI(t, "generate", "-spec", "testdata/lint/name-clash.yaml", "-package", "clash", "-o", out)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	const f = "testdata/lint/name-clash.yaml"
	for _, want := range []string{
		f + `:5:5: warning: the response type of operation "listPets" is named ListPetsResponse2 in Go: ListPetsResponse is taken by schema "ListPetsResponse" (at ` + f + `:20:5)`,
		f + `:14:5: warning: the method of operation "ListPets" is named ListPets2 in Go: ListPets is taken by the method of operation "listPets" (at ` + f + `:5:5)`,
		f + `:28:9: warning: property "pet_id" of Pet is named PetID2 in Go: PetID is taken by property "petId" of Pet (at ` + f + `:29:9)`,
		f + `:30:5: warning: schema "pet" is named Pet2 in Go: Pet is taken by schema "Pet" (at ` + f + `:23:5)`,
		f + `:32:5: warning: schema "Client" is named Client2 in Go: Client is taken by the generated code`,
		f + `:5:5: warning: the constant of breaker "default" is named BreakerDefault2 in Go: BreakerDefault is taken by schema "BreakerDefault" (at ` + f + `:34:5)`,
		f + `:38:23: warning: the constant of Size's enum value "x_large" is named SizeXLarge2 in Go: SizeXLarge is taken by the constant of Size's enum value "x-large" (at ` + f + `:38:14)`,
	} {
		if !strings.Contains(stderr, want+"\n") {
			t.Errorf("stderr lacks\n%s\n\ngot:\n%s", want, stderr)
		}
	}
	if n := strings.Count(stderr, ": warning: "); n != 7 {
		t.Errorf("%d warnings, want 7:\n%s", n, stderr)
	}
	src, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, decl := range []string{"type ListPetsResponse []Pet", "type ListPetsResponse2 struct", "func (c *Client) ListPets2(", "type Pet2 string", "type Client2 string", "SizeXLarge2 Size = ", "BreakerDefault2 = \"default\"", "PetID2 *string `json:\"pet_id,omitzero\"`", "c.breakers[BreakerDefault2] = "} {
		if !strings.Contains(string(src), decl) {
			t.Errorf("the client lacks %q", decl)
		}
	}
}

// TestLintAndExplainDoNotPrint: lint and explain stop before the printer
// (generator.Check), so a broken printer leaves them working: with
// generate made to fail as a printer bug would, both still succeed and
// explain prints its golden.
func TestLintAndExplainDoNotPrint(t *testing.T) {
	t.Chdir("../..")
	t.Cleanup(func() { generate = generator.Generate })
	generate = func(context.Context, generator.Config) (*generator.Result, error) {
		return nil, &generator.FormatError{Err: errors.New("1:1: the printer is broken"), Source: []byte("package")}
	}
	if code, _, stderr := runCLI(t, "generate", "-spec", "testdata/specs/petstore.yaml", "-package", "p", "-o", filepath.Join(t.TempDir(), "c.go")); code != exitInternal {
		t.Fatalf("generate with the broken printer: exit %d, stderr %q; want %d", code, stderr, exitInternal)
	}
	if code, stdout, stderr := runCLI(t, "lint", "-spec", "testdata/specs/petstore.yaml"); code != exitOK || stdout != "" {
		t.Fatalf("lint: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	want, err := os.ReadFile("golden/explain/openstack-console.txt")
	if err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runCLI(t, "explain", "-spec", "testdata/specs/openstack-console.yaml"); code != exitOK || stdout != string(want) {
		t.Fatalf("explain: exit %d, stderr %q; stdout differs from its golden", code, stderr)
	}
}

// formatChars is every Unicode format character (category Cf): zero-width
// space and joiners, soft hyphen, word joiner, invisible operators, bidi
// controls, the byte order mark, the TAG characters (U+E0001, U+E0020 to
// U+E007F), which spell hidden ASCII.
func formatChars() string {
	var b strings.Builder
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicode.Is(unicode.Cf, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestFormatCharactersReachNoOutput: a spec with every Unicode format
// character in its title, descriptions, operationId, summary, path,
// parameter, enum, tag and policy names: none reaches generate's code,
// lint, explain (table, markdown, json), diff (text, markdown, json) or a
// lab report (stdout and each file it writes) raw. They used to pass
// through all of them, but for the bidi controls and the byte order mark.
func TestFormatCharactersReachNoOutput(t *testing.T) {
	cf := formatChars()
	q := func(s string) string { return strconv.Quote(s) } // YAML reads Go's escapes
	spec := func(timeout string) string {
		return "openapi: 3.0.3\ninfo: {title: " + q("Pets"+cf) + ", version: \"1\", description: " + q("hidden"+cf+"text") + "}\n" +
			"x-resilience:\n  breakers:\n    " + q("b"+cf) + ": {windowSize: 10, minimumCalls: 5}\n" +
			"  retries:\n    " + q("r"+cf) + ": {maxAttempts: 2}\n" +
			"  defaults: {breaker: " + q("b"+cf) + ", retry: " + q("r"+cf) + ", timeout: " + timeout + "}\n" +
			"paths:\n  " + q("/pets"+cf+"/{id}") + ":\n    get:\n      operationId: " + q("get"+cf+"Pet") + "\n" +
			"      summary: " + q("Fetch"+cf+" a pet") + "\n      tags: [" + q("pe"+cf+"ts") + "]\n" +
			"      parameters:\n        - {in: path, name: id, required: true, description: " + q("the"+cf+"id") + ", schema: {type: string}}\n" +
			"        - {in: query, name: " + q("q"+cf) + ", schema: {type: string, enum: [" + q("a"+cf+"b") + ", c]}}\n" +
			"      responses:\n        \"200\":\n          description: " + q("ok"+cf) + "\n" +
			"          content: {application/json: {schema: {type: object, description: " + q("Owner"+cf) + ", properties: {" + q("name"+cf) + ": {type: string}}}}}\n"
	}
	t.Chdir(t.TempDir())
	writeFile(t, "old.yaml", spec("1s"))
	writeFile(t, "new.yaml", spec("2s"))
	fakeLab(t, func(_ context.Context, scenario string, tg *lab.Target, o lab.Options) (*lab.Report, error) {
		return &lab.Report{Scenario: scenario, Spec: tg.Spec, Operation: tg.OperationID, Policy: tg.BreakerName + " " + tg.Path, Speed: o.Speed,
			Setup:  []string{tg.Method + " " + tg.Path},
			Tables: []lab.Table{{Title: tg.OperationID, Columns: []string{"strategy", tg.Path}, Rows: [][]string{{tg.BreakerName, tg.GoName}}}}}, nil
	})
	runs := [][]string{
		{"generate", "-spec", "new.yaml", "-package", "p", "-o", "p/client.gen.go"},
		{"generate", "-spec", "new.yaml", "-package", "p", "-o", "split", "-split", "tag"},
		{"lint", "-spec", "new.yaml"},
		{"explain", "-spec", "new.yaml"},
		{"explain", "-spec", "new.yaml", "-format", "markdown"},
		{"explain", "-spec", "new.yaml", "-format", "json"},
		{"diff", "-old", "old.yaml", "-new", "new.yaml"},
		{"diff", "-old", "old.yaml", "-new", "new.yaml", "-format", "markdown"},
		{"diff", "-old", "old.yaml", "-new", "new.yaml", "-format", "json"},
		{"lab", "storm", "-spec", "new.yaml", "-op", "get" + cf + "Pet", "-o", "lab"},
	}
	for _, args := range runs {
		code, stdout, stderr := runCLI(t, args...)
		if code != exitOK && !(args[0] == "diff" && code == exitPolicyChanged) {
			t.Errorf("resgen %s: exit %d, stderr %.600q", strconv.Quote(strings.Join(args, " ")), code, stderr)
		}
		for what, s := range map[string]string{"stdout": stdout, "stderr": stderr} {
			if i := strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Cf, r) }); i >= 0 {
				t.Errorf("resgen %s: %s holds a format character: %.80q", strconv.Quote(strings.Join(args, " ")), what, s[max(i-20, 0):])
			}
		}
	}
	var files int
	filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".yaml") {
			return err
		}
		files++
		data, err := os.ReadFile(path)
		if i := bytes.IndexFunc(data, func(r rune) bool { return unicode.Is(unicode.Cf, r) }); err != nil || i >= 0 {
			t.Errorf("%s holds a format character (%v): %.80q", path, err, data[max(i-20, 0):])
		}
		return nil
	})
	if files < 6 {
		t.Errorf("only %d output files checked", files)
	}
}
