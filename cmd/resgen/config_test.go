package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/resgen/resgen/generator/load"
	"github.com/santhosh-tekuri/jsonschema/v6"
	yaml "go.yaml.in/yaml/v4"
)

// exampleTree copies the example config of testdata/config, its overlay
// and the specs it names into a temp tree laid out as the repository is
// (config/ next to specs/), and makes config/ the working directory.
func exampleTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range []string{
		"config/resgen.yaml", "config/overlays/petstore-timeouts.yaml",
		"specs/petstore.yaml", "specs/openstack-console.yaml", "specs/lab.yaml",
	} {
		data, err := os.ReadFile(filepath.Join("../../testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		writeTestFile(t, filepath.Join(root, f), string(data))
	}
	t.Chdir(filepath.Join(root, "config"))
	return root
}

// tree reads every file below dir, by path relative to dir.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func mustRun(t *testing.T, args ...string) {
	t.Helper()
	if code, _, stderr := runCLI(t, args...); code != exitOK || stderr != "" {
		t.Fatalf("resgen %s: exit %d, stderr %q", strings.Join(args, " "), code, stderr)
	}
}

// TestConfigGeneratesWhatFlagsDo: `resgen generate` next to the example
// resgen.yaml writes both clients, byte for byte what generate writes
// with each job's fields as flags.
func TestConfigGeneratesWhatFlagsDo(t *testing.T) {
	exampleTree(t)
	mustRun(t, "generate")
	mustRun(t, "generate", "-spec", "../specs/petstore.yaml", "-overlay", "overlays/petstore-timeouts.yaml",
		"-package", "petstore", "-strict", "-o", "../flags/petstore/client.gen.go")
	mustRun(t, "generate", "-spec", "../specs/openstack-console.yaml", "-package", "console", "-split", "tag", "-o", "../flags/console")
	fromConfig, fromFlags := tree(t, "."), tree(t, "../flags")
	delete(fromConfig, "resgen.yaml")
	delete(fromConfig, filepath.Join("overlays", "petstore-timeouts.yaml"))
	if len(fromFlags) < 3 || !maps.Equal(fromConfig, fromFlags) {
		t.Fatalf("config wrote %v, flags wrote %v", slices.Sorted(maps.Keys(fromConfig)), slices.Sorted(maps.Keys(fromFlags)))
	}
	if !strings.Contains(fromConfig[filepath.Join("petstore", "client.gen.go")], "timeouts: 1s per attempt") {
		t.Fatal("the job's overlay was not applied")
	}
	// Run from elsewhere with -config: the paths are the config's, not
	// the working directory's.
	t.Chdir("..")
	before := tree(t, "config")
	mustRun(t, "generate", "-config", "config/resgen.yaml", "-check")
	mustRun(t, "generate", "-config", "config/resgen.yaml")
	if after := tree(t, "config"); !maps.Equal(before, after) {
		t.Fatal("a second run from another folder changed the outputs")
	}
}

// TestConfigCheck: -check on a fresh tree exits 0; after a spec edit it
// exits 3 naming the stale job's files; bad input in any job beats stale.
func TestConfigCheck(t *testing.T) {
	exampleTree(t)
	if code, _, stderr := runCLI(t, "generate", "-check"); code != exitStale || !strings.Contains(stderr, filepath.Join("console", "client.gen.go")+": stale") {
		t.Fatalf("before any generate: exit %d, stderr %q", code, stderr)
	}
	mustRun(t, "generate")
	mustRun(t, "generate", "-check")
	spec := "../specs/petstore.yaml"
	data, _ := os.ReadFile(spec)
	writeTestFile(t, spec, strings.Replace(string(data), "timeout: 2s", "timeout: 3s", 1))
	code, _, stderr := runCLI(t, "generate", "-check")
	want := filepath.Join("petstore", "client.gen.go") + ": stale: regenerate with resgen generate (job 1 \"petstore\")\n"
	if code != exitStale || stderr != want {
		t.Fatalf("exit %d, stderr %q; want 3, %q", code, stderr, want)
	}
	// One job stale, the other's spec broken: bad input is the answer.
	console := "../specs/openstack-console.yaml"
	writeTestFile(t, console, "openapi: 3.0.0\ninfo: [\n")
	code, _, stderr = runCLI(t, "generate", "-check")
	if code != exitInput || !strings.Contains(stderr, "openstack-console.yaml:") || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, stderr %q; want 2, the spec's error and the stale job", code, stderr)
	}
}

// TestConfigFailingJobChangesNothing: when one job fails, no output of
// any job changes, even those whose jobs succeeded and were stale.
func TestConfigFailingJobChangesNothing(t *testing.T) {
	exampleTree(t)
	mustRun(t, "generate")
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	pets := filepath.Join("petstore", "client.gen.go")
	writeTestFile(t, pets, "// hand-checked, old\npackage petstore\n")
	if err := os.Chtimes(pets, past, past); err != nil {
		t.Fatal(err)
	}
	// unchanged fails unless every file below . is as before, and the
	// first job's (stale) output is untouched.
	unchanged := func(t *testing.T, before map[string]string) {
		t.Helper()
		if after := tree(t, "."); !maps.Equal(before, after) {
			t.Fatalf("files changed: before %v, after %v", slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
		}
		if fi, err := os.Stat(pets); err != nil || !fi.ModTime().Equal(past) {
			t.Fatal("the first job's output was touched")
		}
	}

	t.Run("bad spec", func(t *testing.T) {
		spec := "../specs/openstack-console.yaml"
		good, _ := os.ReadFile(spec)
		writeTestFile(t, spec, "openapi: 3.0.0\ninfo: [\n")
		defer writeTestFile(t, spec, string(good))
		before := tree(t, ".")
		if code, _, stderr := runCLI(t, "generate"); code != exitInput || !strings.Contains(stderr, "openstack-console.yaml:") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		unchanged(t, before)
	})
	t.Run("output that cannot be written", func(t *testing.T) {
		// A folder where the second job writes a file: the first job's
		// file is staged by then, and must be discarded.
		blocker := filepath.Join("console", "ops_compute.gen.go")
		if err := os.Remove(blocker); err != nil {
			t.Fatal(err)
		}
		writeTestFile(t, filepath.Join(blocker, "keep"), "")
		before := tree(t, ".")
		code, _, stderr := runCLI(t, "generate")
		if code != exitInput || !strings.HasPrefix(stderr, "console: error: cannot write the output: ops_compute.gen.go: is a folder") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		unchanged(t, before)
	})
}

// TestConfigJobFlag: -job runs one job, by name or by the output of a job
// without one; an unknown name is bad input with a suggestion.
func TestConfigJobFlag(t *testing.T) {
	exampleTree(t)
	mustRun(t, "generate", "-job", "console")
	if _, err := os.Stat("petstore"); err == nil {
		t.Fatal("-job console wrote the petstore job too")
	}
	if _, err := os.Stat(filepath.Join("console", "client.gen.go")); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "generate", "-job", "petstor")
	if want := "resgen.yaml: error: -job \"petstor\": no such job (did you mean \"petstore\"?); the jobs are petstore, console\n"; code != exitInput || stderr != want {
		t.Fatalf("exit %d, stderr %q; want %q", code, stderr, want)
	}
	writeTestFile(t, "unnamed.yaml", "jobs:\n  - {spec: ../specs/petstore.yaml, package: p, output: out/p.go}\n  - {spec: ../specs/petstore.yaml, package: q, output: out/q.go}\n")
	mustRun(t, "generate", "-config", "unnamed.yaml", "-job", "out/q.go")
	if _, err := os.Stat(filepath.Join("out", "p.go")); err == nil {
		t.Fatal("-job out/q.go wrote out/p.go")
	}
}

// TestConfigFlagsOverride: -strict and -split given override every job;
// -package and -o override the one job selected and are refused with
// two.
func TestConfigFlagsOverride(t *testing.T) {
	exampleTree(t)
	// lab.yaml has a warning: strict: false lets it through, -strict not,
	// and -strict=false lets the strict petstore job through as well.
	writeTestFile(t, "lab.yaml", "jobs:\n  - {name: lab, spec: ../specs/lab.yaml, package: lab, output: lab.go}\n  - {name: pets, spec: ../specs/petstore.yaml, package: pets, output: pets.go, strict: true}\n")
	if code, _, stderr := runCLI(t, "generate", "-config", "lab.yaml"); code != exitOK || !strings.Contains(stderr, "lab.yaml:52:7: warning: jitter: none") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "generate", "-config", "lab.yaml", "-strict", "-check"); code != exitInput || !strings.Contains(stderr, "lab.yaml:52:7: error: jitter: none") {
		t.Fatalf("-strict: exit %d, stderr %q", code, stderr)
	}
	mustRun(t, "generate", "-config", "lab.yaml", "-job", "pets", "-strict=false", "-check")

	mustRun(t, "generate", "-split", "kind")
	if _, err := os.Stat(filepath.Join("console", "operations.gen.go")); err != nil {
		t.Fatalf("-split kind did not override the job's split: tag: %v", err)
	}
	if _, err := os.Stat(filepath.Join("petstore", "client.gen.go", "types.gen.go")); err != nil {
		t.Fatalf("-split kind did not make the petstore job a folder: %v", err)
	}

	for _, flag := range [][]string{{"-package", "p"}, {"-o", "x.go"}, {"-spec", "../specs/lab.yaml"}, {"-overlay", "o.yaml"}} {
		code, _, stderr := runCLI(t, append([]string{"generate", "-config", "resgen.yaml"}, flag...)...)
		want := "resgen generate: " + flag[0] + " with a config sets one job's field: choose the job with -job NAME (resgen.yaml lists 2)\n"
		if code != exitInput || stderr != want {
			t.Errorf("%v: exit %d, stderr %q; want %q", flag, code, stderr, want)
		}
	}
	mustRun(t, "generate", "-job", "petstore", "-package", "pets", "-o", "elsewhere.go")
	got, _ := os.ReadFile("elsewhere.go")
	if !bytes.Contains(got, []byte("\npackage pets\n")) || !bytes.Contains(got, []byte("timeouts: 1s per attempt")) {
		t.Fatal("-package and -o did not override the selected job, or dropped its overlay")
	}
	// An explicit -spec is the classic command: no config is read.
	mustRun(t, "generate", "-spec", "../specs/petstore.yaml", "-package", "p", "-o", "classic.go")
}

// TestConfigLinkedOutputs: two outputs that a symbolic link makes one
// file are refused before any work.
func TestConfigLinkedOutputs(t *testing.T) {
	exampleTree(t)
	writeTestFile(t, "linked.yaml", "jobs:\n  - {spec: ../specs/petstore.yaml, package: a, output: real.go}\n  - {spec: ../specs/petstore.yaml, package: b, output: link.go}\n")
	if err := os.Symlink("real.go", "link.go"); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "generate", "-config", "linked.yaml"); code != exitInput ||
		stderr != "linked.yaml:3:56: error: job 2 \"link.go\" writes link.go, which is the file job 1 \"real.go\" writes too (through a symbolic link)\n" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// TestConfigErrors: the decoder's errors, each at its line and column,
// every one of a file in one run, exit status 2, nothing written.
func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	cases := []struct{ name, config, stderr string }{
		{"unknown key in a job", "jobs:\n  - spec: a.yaml\n    specs: b.yaml\n    package: a\n    output: a.go\n",
			`resgen.yaml:3:5: error: unknown key "specs" in job 1 (did you mean "spec"?)` + "\n"},
		{"unknown top-level key", "job:\n  - {spec: a.yaml, package: a, output: a.go}\n",
			`resgen.yaml:1:1: error: unknown key "job" (did you mean "jobs"?)` + "\n"},
		{"unknown key, nothing near", "jobs:\n  - {spec: a.yaml, package: a, output: a.go, frobnicate: 1}\n",
			`resgen.yaml:2:46: error: unknown key "frobnicate" in job 1; the keys are name, spec, overlays, package, output, split, strict` + "\n"},
		{"missing fields", "jobs:\n  - name: x\n    spec: a.yaml\n",
			"resgen.yaml:2:5: error: job 1 has no output\nresgen.yaml:2:5: error: job 1 has no package\n"},
		{"wrong types", "jobs:\n  - spec: 12\n    package: [a]\n    output: ~\n    strict: yes\n    overlays: o.yaml\n",
			"resgen.yaml:2:11: error: spec in job 1 must be a string, not the number 12\n" +
				"resgen.yaml:3:14: error: package in job 1 must be a string, not a list\n" +
				"resgen.yaml:4:13: error: output in job 1 must be a string, not null\n" +
				"resgen.yaml:5:13: error: strict in job 1 must be true or false, not the string \"yes\"\n" +
				"resgen.yaml:6:15: error: overlays in job 1 must be a list of files, not the string \"o.yaml\"\n"},
		{"empty string", "jobs:\n  - {spec: \"\", package: a, output: a.go}\n",
			"resgen.yaml:2:12: error: spec in job 1 is empty\n"},
		{"jobs not a list", "jobs: {spec: a.yaml}\n", "resgen.yaml:1:7: error: jobs must be a list of jobs, not a mapping\n"},
		{"job not a mapping", "jobs: [a.yaml]\n", "resgen.yaml:1:8: error: job 1 must be a mapping (spec, package, output, ...), not the string \"a.yaml\"\n"},
		{"no jobs", "jobs: []\n", "resgen.yaml:1:1: error: jobs is empty: list at least one job\n"},
		{"empty file", "# nothing yet\n", "resgen.yaml: error: no jobs: a config is a mapping with a jobs: list (see docs/config.md)\n"},
		{"no jobs key", "{}\n", "resgen.yaml:1:1: error: no jobs key: a config is a mapping with a jobs: list (see docs/config.md)\n"},
		{"not a mapping", "- a\n", "resgen.yaml:1:1: error: a config is a mapping with a jobs: list, not a list\n"},
		{"YAML syntax", "jobs:\n  - {spec: a.yaml\n", "resgen.yaml:3:1: error: not YAML: did not find expected ',' or '}'\n"},
		{"two documents", "jobs: [{spec: a.yaml, package: a, output: a.go}]\n---\njobs: []\n",
			"resgen.yaml:2:1: error: a second YAML document: a config is one document\n"},
		{"a second document that is not YAML", "jobs: [{spec: a.yaml, package: a, output: a.go}]\n---\njobs: [\n",
			"resgen.yaml:4:1: error: not YAML: did not find expected node content\n"},
		{"key twice", "jobs:\n  - {spec: a.yaml, package: a, output: a.go, spec: b.yaml}\n",
			"resgen.yaml:2:46: error: spec is given twice in job 1\n"},
		{"merge key", "jobs:\n  - <<: {strict: true}\n    spec: a.yaml\n    package: a\n    output: a.go\n",
			"resgen.yaml:2:5: error: YAML merge keys (<<) are not read in job 1: write the keys out\n"},
		{"bad package name", "jobs:\n  - {spec: a.yaml, package: my-api, output: a.go}\n  - {spec: a.yaml, package: func, output: b.go}\n",
			"resgen.yaml:2:29: error: package in job 1: \"my-api\" is not a Go package name\n" +
				"resgen.yaml:3:29: error: package in job 2: \"func\" is not a Go package name\n"},
		{"bad split", "jobs:\n  - {spec: a.yaml, package: a, output: a, split: bykind}\n",
			"resgen.yaml:2:50: error: split in job 1: \"bykind\" is not a layout: use kind or tag\n"},
		{"duplicate names", "jobs:\n  - {name: api, spec: a.yaml, package: a, output: a.go}\n  - {name: api, spec: b.yaml, package: b, output: b.go}\n",
			"resgen.yaml:3:5: error: job 2 is named \"api\" like job 1: names must differ\n"},
		{"duplicate outputs", "jobs:\n  - {name: a, spec: a.yaml, package: a, output: gen/client.go}\n  - {name: b, spec: b.yaml, package: b, output: ./gen//client.go}\n",
			"resgen.yaml:3:49: error: job 2 writes ./gen//client.go, which job 1 \"a\" writes too\n"},
		{"a file in a split folder", "jobs:\n  - {name: a, spec: a.yaml, package: a, output: gen, split: kind}\n  - {name: b, spec: b.yaml, package: b, output: gen/extra.gen.go}\n",
			"resgen.yaml:3:49: error: job 2 writes gen/extra.gen.go into the split folder of job 1 \"a\", which replaces or removes the .gen.go files there\n"},
		{"terminal escapes", "jobs:\n  - {spec: a.yaml, package: a, output: a.go, \"\\e]0;pwned\\a\": 1}\n",
			`resgen.yaml:2:46: error: unknown key "\x1b]0;pwned\a" in job 1; the keys are name, spec, overlays, package, output, split, strict` + "\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			writeTestFile(t, "resgen.yaml", c.config)
			code, stdout, stderr := runCLI(t, "generate")
			if code != exitInput || stdout != "" || stderr != c.stderr {
				t.Fatalf("exit %d, stderr:\n%s\nwant 2 and:\n%s", code, stderr, c.stderr)
			}
			if entries, _ := os.ReadDir("."); len(entries) != 1 {
				t.Fatalf("a bad config wrote %d files", len(entries)-1)
			}
		})
	}
	t.Run("missing config", func(t *testing.T) {
		code, _, stderr := runCLI(t, "generate", "-config", "nope.yaml")
		if want := "nope.yaml: error: cannot read config: no such file or directory\n"; code != exitInput || stderr != want {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("too big", func(t *testing.T) {
		writeTestFile(t, "big.yaml", "jobs:\n"+strings.Repeat("# padding\n", maxConfigBytes/10+1))
		code, _, stderr := runCLI(t, "generate", "-config", "big.yaml")
		if want := "big.yaml: error: cannot read config: larger than 1 MiB: a config lists jobs\n"; code != exitInput || stderr != want {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("aliases decoded again", func(t *testing.T) {
		// 12 KB: one job with 2,000 overlays, and 600 aliases of it; each
		// alias is decoded again, 1.2 million paths. The finding's 500 KB
		// config (60,000 aliases of 40,000 overlays) took 6.5 GB.
		config := "jobs:\n  - &j {spec: a.yaml, package: a, output: a.go, overlays: [" +
			strings.Repeat("o.yaml, ", 1999) + "o.yaml]}\n" + strings.Repeat("  - *j\n", 600)
		writeTestFile(t, "aliases.yaml", config)
		code, _, stderr := runCLI(t, "generate", "-config", "aliases.yaml")
		want := regexp.MustCompile(`^aliases\.yaml:(\d+):5: error: this config decodes more than 1000000 values with its YAML aliases expanded \(each \*j is decoded again\): write the jobs out\n$`)
		m := want.FindStringSubmatch(stderr)
		if code != exitInput || m == nil {
			t.Fatalf("exit %d, stderr:\n%.1000s\nwant 2 and one error matching %s", code, stderr, want)
		}
		// The budget stops decoding at the alias that passes it, before
		// the end of the list.
		if line, _ := strconv.Atoi(m[1]); line <= 2 || line >= 2+600 {
			t.Fatalf("the error is at line %s, want an alias before the last", m[1])
		}
	})
	t.Run("not a regular file", func(t *testing.T) {
		code, _, stderr := runCLI(t, "generate", "-config", ".")
		if want := ".: error: cannot read config: not a regular file\n"; code != exitInput || stderr != want {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("no config, no flags", func(t *testing.T) {
		os.Remove("resgen.yaml")
		code, _, stderr := runCLI(t, "generate")
		if code != exitInput || !strings.HasPrefix(stderr, "resgen generate: missing -spec, -package, -o\n(or run it where a resgen.yaml lists the jobs") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	})
}

// TestConfigDocsErrors: the config with mistakes in docs/config.md gives
// the errors the page shows, and writes nothing.
func TestConfigDocsErrors(t *testing.T) {
	doc, err := os.ReadFile("../../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(# resgen.yaml, with mistakes\n.*?)```\n\n.*?```\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/config.md: no config with mistakes followed by its errors")
	}
	t.Chdir(t.TempDir())
	writeTestFile(t, "resgen.yaml", string(m[1]))
	code, stdout, stderr := runCLI(t, "generate")
	if code != exitInput || stdout != "" || stderr != string(m[2]) {
		t.Fatalf("exit %d, stderr:\n%s\nthe page says:\n%s", code, stderr, m[2])
	}
	if entries, _ := os.ReadDir("."); len(entries) != 1 {
		t.Fatal("a bad config wrote files")
	}
}

// TestConfigHelp: help and generate -h document -config and -job.
func TestConfigHelp(t *testing.T) {
	_, _, stderr := runCLI(t, "generate", "-h")
	for _, s := range []string{"[-config FILE] [-job NAME]", "\n  -config FILE", "\n  -job NAME", "nothing is written unless every job succeeds"} {
		if !strings.Contains(stderr, s) {
			t.Errorf("generate -h lacks %q", s)
		}
	}
	if _, stdout, _ := runCLI(t, "help"); !strings.Contains(stdout, "resgen generate [-config FILE] [-job NAME]") {
		t.Error("resgen help does not show generate with a config")
	}
}

// compileConfigSchema compiles schema/resgen.schema.json.
func compileConfigSchema(t *testing.T) (*jsonschema.Schema, map[string]any) {
	t.Helper()
	data, err := os.ReadFile("../../schema/resgen.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("resgen.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("resgen.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	return s, raw
}

// schemaAccepts validates a YAML config against the schema.
func schemaAccepts(t *testing.T, s *jsonschema.Schema, config string) error {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(config), &v); err != nil {
		return err
	}
	b, err := json.Marshal(load.StringKeys(v))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(inst)
}

func keysOf(m any) []string {
	return slices.Sorted(maps.Keys(m.(map[string]any)))
}

func stringsOf(l any) []string {
	var out []string
	for _, v := range l.([]any) {
		out = append(out, v.(string))
	}
	return slices.Sorted(slices.Values(out))
}

// TestConfigSchemaAgrees: the JSON Schema editors use and the decoder
// know the same keys, require the same ones, take the same split
// layouts, and accept and refuse the same configs (the rules between jobs
// aside: the schema's description leaves them to resgen). The example
// config and docs/config.md's configs pass both.
func TestConfigSchemaAgrees(t *testing.T) {
	s, raw := compileConfigSchema(t)
	props := raw["properties"]
	jobDef := raw["$defs"].(map[string]any)["job"].(map[string]any)
	sorted := func(l []string) []string { return slices.Sorted(slices.Values(l)) }
	for _, c := range []struct {
		what          string
		schema, coded []string
	}{
		{"top-level keys", keysOf(props), sorted(configKeys)},
		{"required top-level keys", stringsOf(raw["required"]), []string{"jobs"}},
		{"job keys", keysOf(jobDef["properties"]), sorted(jobKeys)},
		{"required job keys", stringsOf(jobDef["required"]), sorted(jobRequired)},
		{"split layouts", stringsOf(jobDef["properties"].(map[string]any)["split"].(map[string]any)["enum"]), sorted(splitModes)},
	} {
		if !slices.Equal(c.schema, c.coded) {
			t.Errorf("%s: schema %v, decoder %v", c.what, c.schema, c.coded)
		}
	}
	if raw["additionalProperties"] != false || jobDef["additionalProperties"] != false {
		t.Error("the schema lets unknown keys through; the decoder refuses them")
	}

	ok := "jobs:\n  - {spec: a.yaml, package: a, output: a.go}\n"
	configs := []string{
		ok,
		"jobs:\n  - {name: n, spec: a.yaml, overlays: [o.yaml, p.yaml], package: api_v2, output: gen, split: tag, strict: false}\n",
		"jobs:\n  - {spec: a.yaml, package: ünïcode, output: a.go}\n",
		"jobs:\n  - {spec: &s a.yaml, package: a, output: a.go, overlays: &o [o.yaml]}\n  - {spec: *s, package: b, output: b.go, overlays: *o}\n",
		"jobs: []\n",
		"job: []\n",
		"jobs:\n  - {spec: a.yaml, package: a}\n",
		"jobs:\n  - {package: a, output: a.go}\n",
		"jobs:\n  - {spec: a.yaml, package: a, output: a.go, extra: 1}\n",
		"jobs:\n  - {spec: a.yaml, package: a, output: a.go}\nextra: 1\n",
		"jobs:\n  - {spec: 1, package: a, output: a.go}\n",
		"jobs:\n  - {spec: \"\", package: a, output: a.go}\n",
		"jobs:\n  - {spec: a.yaml, package: a, output: a.go, overlays: o.yaml}\n",
		"jobs:\n  - {spec: a.yaml, package: a, output: a.go, overlays: [1]}\n",
		"jobs:\n  - {spec: a.yaml, package: a, output: a.go, strict: \"true\"}\n",
		"jobs:\n  - {spec: a.yaml, package: a, output: a.go, split: files}\n",
		"jobs:\n  - {spec: a.yaml, package: a, output: a.go, name: \"\"}\n",
		"jobs:\n  - {spec: a.yaml, package: 1a, output: a.go}\n",
		"jobs:\n  - {spec: a.yaml, package: type, output: a.go}\n",
		"jobs:\n  - {spec: a.yaml, package: _, output: a.go}\n",
		"jobs:\n  - {spec: a.yaml, package: a-b, output: a.go}\n",
		"jobs: a\n",
		"jobs: [a]\n",
		"[]\n",
	}
	examples := map[string]string{"testdata/config/resgen.yaml": ""}
	data, err := os.ReadFile("../../testdata/config/resgen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	examples["testdata/config/resgen.yaml"] = string(data)
	for _, page := range []string{"docs/config.md", "README.md"} {
		doc, err := os.ReadFile("../../" + page)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(doc, -1) {
			if bytes.Contains(m[1], []byte("\njobs:")) && !bytes.Contains(m[1], []byte("with mistakes")) {
				n++
				examples[fmt.Sprintf("%s config %d", page, n)] = string(m[1])
			}
		}
		if n == 0 {
			t.Fatalf("%s shows no config", page)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(examples)) {
		if _, diags := decodeConfig("resgen.yaml", []byte(examples[name])); diags.HasErrors() {
			t.Errorf("%s: the decoder refuses it: %v", name, diags)
		}
		if err := schemaAccepts(t, s, examples[name]); err != nil {
			t.Errorf("%s: the schema refuses it: %v", name, err)
		}
		configs = append(configs, examples[name])
	}
	accepted := 0
	for _, c := range configs {
		_, diags := decodeConfig("resgen.yaml", []byte(c))
		decoderOK := !diags.HasErrors()
		schemaErr := schemaAccepts(t, s, c)
		if decoderOK != (schemaErr == nil) {
			t.Errorf("they disagree on\n%s\ndecoder: %v\nschema: %v", c, diags, schemaErr)
		}
		if decoderOK {
			accepted++
		}
	}
	if accepted < 3 || accepted == len(configs) {
		t.Fatalf("%d of %d configs accepted: the table tests one side only", accepted, len(configs))
	}
}

// TestConfigDecodes: every field lands in its job, paths joined to the
// config's folder (leaving it, or absolute), aliases followed, the name
// defaulting to the output as written.
func TestConfigDecodes(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "api.yaml")
	config := "jobs:\n" +
		"  - {name: one, spec: &s ../specs/a.yaml, overlays: [o1.yaml, o/o2.yaml], package: one, output: gen/one.go, split: kind, strict: True}\n" +
		"  - {spec: *s, package: two, output: two.go}\n" +
		"  - {spec: " + abs + ", package: three, output: three, split: tag, strict: false}\n"
	jobs, diags := decodeConfig(filepath.Join("mod", "resgen.yaml"), []byte(config))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	got := make([]job, len(jobs))
	for i, j := range jobs {
		got[i] = *j
		got[i].outNode = nil
	}
	want := []job{
		{index: 1, name: "one", line: 2, col: 5, spec: "specs/a.yaml", overlays: []string{"mod/o1.yaml", "mod/o/o2.yaml"}, pkg: "one", output: "mod/gen/one.go", split: "kind", strict: true},
		{index: 2, name: "two.go", line: 3, col: 5, spec: "specs/a.yaml", pkg: "two", output: "mod/two.go"},
		{index: 3, name: "three", line: 4, col: 5, spec: abs, pkg: "three", output: "mod/three", split: "tag"},
	}
	for i := range want {
		w := &want[i]
		if !filepath.IsAbs(w.spec) {
			w.spec = filepath.FromSlash(w.spec)
		}
		w.output = filepath.FromSlash(w.output)
		for k := range w.overlays {
			w.overlays[k] = filepath.FromSlash(w.overlays[k])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d jobs, want %d", len(got), len(want))
	}
	for i := range want {
		if g, w := got[i], want[i]; g.index != w.index || g.name != w.name || g.line != w.line || g.col != w.col || g.spec != w.spec ||
			!slices.Equal(g.overlays, w.overlays) || g.pkg != w.pkg || g.output != w.output || g.split != w.split || g.strict != w.strict {
			t.Errorf("job %d:\n got %+v\nwant %+v", i+1, g, w)
		}
	}
}
