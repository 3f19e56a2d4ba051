//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Hostile specs, as a spec from another team could be: each must be refused
// as bad input (exit 2) with a clear message, quickly, without quoting any
// file that is not a spec, and without touching the existing output.

// refSpec is a spec whose one response schema is {$ref: target}; the $ref
// is at atRef.
func refSpec(target string) string {
	return `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                $ref: "` + target + `"
`
}

// atRef starts a diagnostic at the $ref of refSpec.
const atRef = "spec.yaml:12:17: error: "

// aliasBomb nests YAML aliases levels deep: 1.4 KB for 18 levels, which
// expand to 2^18 copies of the innermost schema.
func aliasBomb(levels int) string {
	var b strings.Builder
	b.WriteString("L0: &L0 {type: string}\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "L%d: &L%d {type: object, properties: {a: *L%d, b: *L%d}}\n", i, i, i-1, i-1)
	}
	return b.String()
}

// chain is n component schemas, each linking to the next with link, a
// schema in which %s stands for the next one's $ref.
func chain(n int, link string) string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths: {}\ncomponents:\n  schemas:\n")
	for i := 0; i < n-1; i++ {
		fmt.Fprintf(&b, "    S%d: "+link+"\n", i, fmt.Sprintf("{$ref: '#/components/schemas/S%d'}", i+1))
	}
	fmt.Fprintf(&b, "    S%d: {type: string}\n", n-1)
	return b.String()
}

// hub is n schemas that each $ref, through a property, a hub schema with
// n properties, each a $ref to one more schema: validating each of the n
// visits all the hub reaches. With file set, the hub and what it refers
// to are in that file.
func hub(n int, file string) (spec, hubFile string) {
	var b, h strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths: {}\ncomponents:\n  schemas:\n")
	target, hw := "#/components/schemas/H", &b
	if file != "" {
		target, hw = file+"#/H", &h
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "    A%d: {type: object, properties: {h: {$ref: '%s'}}}\n", i, target)
	}
	indent, prefix := "    ", "#/components/schemas/"
	if file != "" {
		indent, prefix = "", "#/"
	}
	fmt.Fprintf(hw, "%sH:\n%s  type: object\n%s  properties:\n", indent, indent, indent)
	for i := 0; i < n; i++ {
		fmt.Fprintf(hw, "%s    b%d: {$ref: '%sB%d'}\n", indent, i, prefix, i)
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(hw, "%sB%d: {type: string}\n", indent, i)
	}
	return b.String(), h.String()
}

// bigMapping is a spec with an extension of n keys: go-yaml compares
// every two keys of a mapping.
func bigMapping(n int) string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths: {}\nx-big:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  k%d: 0\n", i)
	}
	return b.String()
}

// manyCodes is the responses of n status codes from 200, written as YAML
// integers, then extra.
func manyCodes(n int, extra string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "        %d: {description: c%d}\n", 200+i, i)
	}
	return b.String() + extra
}

const outsideSecret = "TOPSECRET-d41d8cd9"

func TestHostileSpecs(t *testing.T) {
	root := t.TempDir() // the spec's module
	outside := t.TempDir()
	write := func(dir, name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write(root, "go.mod", "module hostile.test\n\ngo 1.26\n")
	secretMap := write(outside, "config.yaml", "db_password: "+outsideSecret+"\napi_token: "+outsideSecret+"\n")
	secretSchema := write(outside, "schema.yaml", "type: object\ndescription: "+outsideSecret+"\n")
	if err := os.Symlink(secretSchema, filepath.Join(root, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	write(root, "notes.txt", outsideSecret+"\nline two: "+outsideSecret+"\n")
	write(root, "list.yaml", "- "+outsideSecret+"\n")
	fifo := filepath.Join(root, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// A sparse file: over the size limit without writing 64 MiB.
	big, err := os.Create(filepath.Join(root, "big.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(65 << 20); err != nil {
		t.Fatal(err)
	}
	big.Close()
	write(root, "bomb.yaml", aliasBomb(18))
	write(root, "twodocs.yaml", "overlay: 1.0.0\ninfo: {title: o, version: \"1\"}\nactions: []\n---\nactions: [{target: $.paths, remove: true}]\n")
	hubSpec, _ := hub(5000, "")
	hubFileSpec, hubFile := hub(5000, "hub.yaml")
	write(root, "hub.yaml", hubFile)
	// passwd's depth below root reaches /: ../ enough times to escape.
	dots := strings.Repeat("../", strings.Count(root, string(filepath.Separator))+2)

	cases := []struct {
		name   string
		spec   string
		flags  []string
		stderr string // a substring of the message
		pos    string // the start of stderr, "" when not checked
	}{
		{name: "absolute path outside the module", spec: refSpec("/etc/passwd"),
			stderr: "outside the folders this spec may read", pos: atRef},
		{name: "relative path out of the module", spec: refSpec(dots + "etc/passwd"),
			stderr: "outside the folders this spec may read", pos: atRef},
		{name: "mapping file in another folder", spec: refSpec(secretMap),
			stderr: "-allow-read", pos: atRef},
		{name: "schema file in another folder", spec: refSpec(secretSchema),
			stderr: "outside the folders this spec may read", pos: atRef},
		{name: "symlink out of the module", spec: refSpec("link.yaml"),
			stderr: "outside the folders this spec may read", pos: atRef},
		{name: "file URL with a host", spec: refSpec("file://host/etc/passwd"),
			stderr: "host", pos: atRef},
		{name: "remote URL", spec: refSpec("https://example.com/x.yaml"),
			stderr: "only local files", pos: atRef},
		{name: "device, even when allowed", spec: refSpec("/dev/zero"), flags: []string{"-allow-read", "/dev"},
			stderr: "not a regular file", pos: atRef},
		{name: "FIFO", spec: refSpec("fifo.yaml"),
			stderr: "not a regular file", pos: atRef},
		{name: "file over the size limit", spec: refSpec("big.yaml"),
			stderr: "MiB", pos: atRef},
		{name: "text file in the module", spec: refSpec("notes.txt"),
			stderr: "not a YAML or JSON mapping", pos: atRef},
		{name: "list file in the module", spec: refSpec("list.yaml"),
			stderr: "not a YAML or JSON mapping", pos: atRef},
		{name: "alias bomb in the spec",
			spec:   "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths: {}\ncomponents:\n  schemas:\n" + indent(aliasBomb(18), "    "),
			stderr: "aliases", pos: "spec.yaml:"},
		{name: "alias bomb in a referenced file", spec: refSpec("bomb.yaml#/L18"),
			stderr: "aliases", pos: "bomb.yaml:"},
		{name: "alias inside its own anchor",
			spec:   "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths: {}\ncomponents:\n  schemas:\n    A: &a {type: object, properties: {b: *a}}\n",
			stderr: "inside its own anchor", pos: "spec.yaml:6:42: error: "},
		{name: "empty file", spec: "", stderr: "empty", pos: "spec.yaml: error: "},
		{name: "empty mapping", spec: "{}\n", stderr: "not an OpenAPI document", pos: "spec.yaml: error: "},
		{name: "null", spec: "null\n", stderr: "not an OpenAPI document", pos: "spec.yaml: error: "},
		{name: "a list", spec: "- a\n- b\n", stderr: "not an OpenAPI document", pos: "spec.yaml: error: "},
		{name: "Kubernetes manifest", spec: "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: []}\n",
			stderr: "not an OpenAPI document", pos: "spec.yaml: error: "},
		{name: "10,000 chained $refs", spec: chain(10000, "%s"), stderr: "nested $refs", pos: "spec.yaml:"},
		{name: "10,000 $refs through properties", spec: chain(10000, "{type: object, properties: {next: %s}}"), stderr: "nested $refs", pos: "spec.yaml:"},
		{name: "a hub schema that 5,000 schemas refer to", spec: hubSpec,
			stderr: "validating this spec visits more than", pos: "spec.yaml: error: "},
		{name: "a hub schema in another file", spec: hubFileSpec,
			stderr: "validating this spec visits more than", pos: "hub.yaml: error: "},
		{name: "a mapping of 30,000 keys", spec: bigMapping(30000),
			stderr: "too big to decode", pos: "spec.yaml:5:3: error: "},
		{name: "duplicate key in JSON",
			spec:   "{\n  \"openapi\": \"3.0.3\",\n  \"info\": {\"title\": \"t\", \"version\": \"1\"},\n  \"paths\": {},\n  \"info\": {\"title\": \"u\", \"version\": \"2\"}\n}\n",
			stderr: `duplicate key "info"`, pos: "spec.yaml:5:3: error: "},
		{name: "duplicate key in JSON that YAML does not parse",
			spec:   "{\"openapi\": \"3.0.3\", \"info\": {\"title\": \"\\ud83d\\ude00\", \"version\": \"1\"},\n \"paths\": {},\n \"paths\": {}}\n",
			stderr: `duplicate key "paths"`, pos: "spec.yaml:3:2: error: "},
		{name: "duplicate key differing in YAML tag",
			spec:   specText("", "        200: {description: a}\n        \"200\": {description: b}"),
			stderr: `duplicate key "200" (first at line 10, column 9): written once as an integer and once as a string`, pos: "spec.yaml:11:9: error: "},
		{name: "duplicate key differing in YAML tag in a big mapping",
			spec:   specText("", manyCodes(20, "        '205': {description: again}")),
			stderr: `duplicate key "205" (first at line 15, column 9): written once as an integer and once as a string`, pos: "spec.yaml:30:9: error: "},
		{name: "openapi alone", spec: "openapi: 3.0.3\n",
			stderr: "not an OpenAPI document: openapi 3.0.3 needs paths", pos: "spec.yaml:1:1: error: "},
		{name: "openapi 3.1 with no paths, webhooks or components", spec: "openapi: 3.1.0\ninfo: {title: t, version: \"1\"}\n",
			stderr: "needs paths, webhooks or components", pos: "spec.yaml:1:1: error: "},
		{name: "openapi null", spec: "openapi: null\ninfo: {title: t, version: \"1\"}\npaths: {}\n",
			stderr: "openapi: null is not a version resgen reads", pos: "spec.yaml:1:10: error: "},
		{name: "openapi 4.0.0", spec: "openapi: 4.0.0\ninfo: {title: t, version: \"1\"}\npaths: {}\n",
			stderr: `openapi: "4.0.0" is not a version resgen reads`, pos: "spec.yaml:1:10: error: "},
		{name: "swagger 1.2", spec: "swagger: \"1.2\"\ninfo: {title: t, version: \"1\"}\npaths: {}\n",
			stderr: `swagger: "1.2" is not a version resgen reads`, pos: "spec.yaml:1:10: error: "},
		{name: "a second document after ...", spec: specText("", "") + "...\n" + specText("", ""),
			stderr: "a second YAML document: a spec is one document", pos: "spec.yaml:12:1: error: "},
		{name: "a second document after ---", spec: specText("", "") + "--- # the real one\n" + specText("", ""),
			stderr: "a second YAML document", pos: "spec.yaml:12:1: error: "},
		{name: "an overlay of two documents", spec: specText("", ""), flags: []string{"-overlay", "twodocs.yaml"},
			stderr: "a second YAML document: an overlay is one document", pos: "twodocs.yaml:5:1: error: "},
		{name: "an operationId of 200 KB", spec: strings.Replace(specText("", ""), "getX", "get"+strings.Repeat("X", 200<<10), 1),
			stderr: "operationId is 204803 bytes long (getXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX…): names are at most 1024 bytes", pos: "spec.yaml:8:20: error: "},
		{name: "a path of 2 KB", spec: strings.Replace(specText("", ""), "/x:", "/"+strings.Repeat("x", 2048)+":", 1),
			stderr: "a key is 2049 bytes long", pos: "spec.yaml:6:3: error: "},
		{name: "an enum value of 2 KB", spec: "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths: {}\ncomponents:\n  schemas:\n    E: {type: string, enum: [a, " + strings.Repeat("b", 2048) + "]}\n",
			stderr: "a value of enum is 2048 bytes long", pos: "spec.yaml:6:33: error: "},
		{name: "a breaker policy name of 2 KB", spec: specText("  breakers:\n    b"+strings.Repeat("b", 2048)+": {windowSize: 10}", ""),
			stderr: "the name of a breaker policy is 2049 bytes long", pos: "spec.yaml:5:5: error: "},
		{name: "an idempotency header name of 2 KB", spec: specText("  idempotencyKeyHeader: X"+strings.Repeat("k", 2048), ""),
			stderr: "idempotencyKeyHeader is 2049 bytes long (Xkkk", pos: "spec.yaml:4:3: error: "},
		{name: "an operation's idempotency header name of 2 KB", spec: specText("  defaults: {idempotencyKey: X"+strings.Repeat("k", 2048)+"}", ""),
			stderr: "idempotencyKey is 2049 bytes long (Xkkk", pos: "spec.yaml:4:14: error: "},
		{name: "-allow-read of a missing folder", spec: refSpec(secretSchema), flags: []string{"-allow-read", filepath.Join(outside, "nope")},
			stderr: "-allow-read", pos: "-allow-read: error: "},
	}
	t.Chdir(root)
	out := filepath.Join(root, "out", "client.gen.go")
	old := []byte("// the previous, hand-checked output\npackage x\n")
	write(root, "out/client.gen.go", string(old))
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(out, past, past); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			write(root, "spec.yaml", c.spec)
			args := append([]string{"generate", "-spec", "spec.yaml", "-package", "x", "-o", out}, c.flags...)
			// The work limits are what bound a hostile spec, and the stderr
			// checks below show they fired; wall time on a shared
			// 2-core machine under -race says little, so only a hang fails.
			code, stdout, stderr := runCLIBounded(t, 2*time.Minute, args...)
			if code != exitInput {
				t.Fatalf("exit %d, want %d; stderr:\n%.2000s", code, exitInput, stderr)
			}
			if !strings.Contains(stderr, c.stderr) || !strings.HasPrefix(stderr, c.pos) {
				t.Fatalf("stderr:\n%.2000s\nwant it to start with %q and contain %q", stderr, c.pos, c.stderr)
			}
			for _, leak := range []string{outsideSecret, "root:x:0"} {
				if strings.Contains(stdout+stderr, leak) {
					t.Fatalf("the output quotes a file that is not a spec (%q):\n%s%s", leak, stdout, stderr)
				}
			}
			got, err := os.ReadFile(out)
			if err != nil || !bytes.Equal(got, old) {
				t.Fatalf("the old output changed: %q, %v", got, err)
			}
			if fi, err := os.Stat(out); err != nil || !fi.ModTime().Equal(past) {
				t.Fatalf("the old output was rewritten: %v", err)
			}
		})
	}
}

// allowReadTree is a module (root) whose spec $refs a schema in another
// folder (shared).
func allowReadTree(t *testing.T) (root, shared, spec string) {
	t.Helper()
	root, shared = t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module allow.test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	common := filepath.Join(shared, "common.yaml")
	if err := os.WriteFile(common, []byte("Pet:\n  type: object\n  properties:\n    name: {type: string}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec = filepath.Join(root, "spec.yaml")
	if err := os.WriteFile(spec, []byte(refSpec(common+"#/Pet")), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, shared, spec
}

// TestAllowRead: -allow-read widens what $refs may read, on each command
// that reads a spec; without it the same spec is refused.
func TestAllowRead(t *testing.T) {
	root, shared, spec := allowReadTree(t)
	for _, cmd := range [][]string{
		{"generate", "-package", "x", "-o", filepath.Join(root, "client.gen.go")},
		{"lint"},
		{"explain"},
	} {
		args := append(append([]string{}, cmd...), "-spec", spec)
		if code, _, stderr := runCLI(t, args...); code != exitInput || !strings.Contains(stderr, "-allow-read") {
			t.Errorf("%s without -allow-read: exit %d, stderr:\n%s", cmd[0], code, stderr)
		}
		if code, _, stderr := runCLI(t, append(args, "-allow-read", shared)...); code != exitOK {
			t.Errorf("%s -allow-read %s: exit %d, stderr:\n%s", cmd[0], shared, code, stderr)
		}
	}
}

// TestAllowReadEmpty: an empty -allow-read (an unset variable in a script) is
// refused, not taken as the working directory, on every command that
// reads a spec: run from the folder of the file the $ref names, it would
// read it.
func TestAllowReadEmpty(t *testing.T) {
	root, shared, spec := allowReadTree(t)
	t.Chdir(shared)
	const want = "-allow-read: error: an empty folder name"
	for _, args := range [][]string{
		{"generate", "-package", "x", "-o", filepath.Join(root, "client.gen.go"), "-spec", spec},
		{"lint", "-spec", spec},
		{"explain", "-spec", spec},
		{"diff", "-old", spec, "-new", spec},
	} {
		code, _, stderr := runCLI(t, append(args, "-allow-read", "")...)
		if code != exitInput || !strings.HasPrefix(stderr, want) {
			t.Errorf("%s -allow-read '': exit %d, stderr:\n%s\nwant exit 2 and %q", args[0], code, stderr, want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "client.gen.go")); err == nil {
		t.Error("generate wrote the output")
	}
}

// runCLIBounded is runCLI that fails the test instead of hanging.
func runCLIBounded(t *testing.T, limit time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		code := run(context.Background(), args, &out, &errb)
		done <- result{code, out.String(), errb.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr
	case <-time.After(limit):
		t.Fatalf("resgen %s did not return within %v", strings.Join(args, " "), limit)
		return 0, "", ""
	}
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+prefix) + "\n"
}
