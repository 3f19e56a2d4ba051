//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
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

// TestDiffGitSideReadsOnlyTheRevision: a git: side is confined to the
// folder its revision was written to, even when a folder above the temp
// folder holds go.mod or .git (which would make that folder the read
// root of a spec in a working tree): a $ref out of the revision is
// refused, and the file there is not read.
func TestDiffGitSideReadsOnlyTheRevision(t *testing.T) {
	for _, marker := range []string{"go.mod", ".git"} {
		t.Run(marker, func(t *testing.T) {
			above := t.TempDir()
			writeFile(t, filepath.Join(above, marker), "module above\n")
			writeFile(t, filepath.Join(above, "secret.yaml"), "Secret: {type: object, description: SECRET-OUTSIDE-THE-REVISION}\n")
			tmp := filepath.Join(above, "tmp")
			if err := os.Mkdir(tmp, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("TMPDIR", tmp)
			// The temp folder is above/tmp/resgen-git-N; the spec is at
			// its top, so ../../secret.yaml is above/secret.yaml.
			repo := filepath.Join(t.TempDir(), "repo")
			writeFile(t, filepath.Join(repo, "spec.yaml"), refSpec("../../secret.yaml#/Secret"))
			writeFile(t, filepath.Join(repo, "new.yaml"), refSpec("#/components/schemas/S")+"components: {schemas: {S: {type: object}}}\n")
			git(t, repo, "init", "-q")
			git(t, repo, "add", ".")
			git(t, repo, "commit", "-qm", "first")
			t.Chdir(repo)
			code, stdout, stderr := runCLI(t, "diff", "-old", "git:HEAD:spec.yaml", "-new", "new.yaml", "-format", "json")
			if code != exitInput || stdout != "" || !strings.HasPrefix(stderr, "git:HEAD:spec.yaml:12:17: error: ") || !strings.Contains(stderr, "outside the folders this spec may read") {
				t.Errorf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
			}
			if strings.Contains(stderr, "resgen-git-") || !strings.Contains(stderr, "(git:HEAD:.)") {
				t.Errorf("the temp folder is named, not git:HEAD:.:\n%s", stderr)
			}
			if strings.Contains(stdout+stderr, "SECRET") {
				t.Errorf("the file above the temp folder was read:\n%s%s", stdout, stderr)
			}
			if left, _ := filepath.Glob(filepath.Join(tmp, "resgen-git-*")); len(left) > 0 {
				t.Errorf("temp folders left behind: %v", left)
			}
		})
	}
}

// TestDiffGitSideRemovedOnSignal: a diff killed by Ctrl-C or SIGTERM while
// its git: side is materialised leaves no temp folder behind. The run is
// held there by an overlay that is a named pipe nobody writes: resgen
// blocks opening it, after the revision is written out.
func TestDiffGitSideRemovedOnSignal(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	writeFile(t, filepath.Join(repo, "spec.yaml"), refSpec("#/components/schemas/S")+"components: {schemas: {S: {type: object}}}\n")
	git(t, repo, "init", "-q")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-qm", "first")
	fifo := filepath.Join(t.TempDir(), "overlay.yaml")
	if err := mkfifo(fifo); err != nil {
		t.Skip(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			cmd := exec.Command(os.Args[0], "diff", "-old", "git:HEAD:spec.yaml", "-old-overlay", fifo, "-new", "spec.yaml")
			cmd.Dir = repo
			cmd.Env = append(os.Environ(), runMainEnv+"=1", "TMPDIR="+tmp)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			var made []string
			for deadline := time.Now().Add(30 * time.Second); len(made) == 0; {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					<-exited
					t.Fatalf("no temp folder appeared in 30s:\n%s", out.String())
				}
				time.Sleep(10 * time.Millisecond)
				made, _ = filepath.Glob(filepath.Join(tmp, "resgen-git-*", "spec.yaml"))
			}
			// The spec is written; resgen blocks opening the overlay.
			time.Sleep(100 * time.Millisecond)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatalf("exit %v, want death by %v:\n%s", err, sig, out.String())
				}
				if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != sig {
					t.Errorf("ended by %v, want by %v", err, sig)
				}
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-exited
				t.Fatalf("still running 30s after %v:\n%s", sig, out.String())
			}
			if left, _ := filepath.Glob(filepath.Join(tmp, "resgen-git-*")); len(left) > 0 {
				t.Errorf("temp folders left behind after %v: %v", sig, left)
			}
		})
	}
}

// gitOutput runs git in dir and returns its output's one line.
func gitOutput(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=resgen test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// TestDiffMalformedGitTree: a revision whose tree git would not write
// itself (git mktree writes it) is bad input, exit 2 naming the
// revision: a name twice, or one name both a file and a folder.
func TestDiffMalformedGitTree(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	spec := refSpec("#/components/schemas/S") + "components: {schemas: {S: {type: object}}}\n"
	writeFile(t, filepath.Join(repo, "spec.yaml"), spec)
	git(t, repo, "init", "-q")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-qm", "first")
	blob := gitOutput(t, repo, "", "rev-parse", "HEAD:spec.yaml")
	sub := gitOutput(t, repo, "100644 blob "+blob+"\tpet.yaml\n", "mktree")
	t.Chdir(repo)
	t.Setenv("TMPDIR", t.TempDir())
	for _, c := range []struct{ tree, want string }{
		{"100644 blob " + blob + "\tspec.yaml\n100644 blob " + blob + "\tspec.yaml\n", "it holds spec.yaml twice"},
		{"100644 blob " + blob + "\tspec.yaml\n100644 blob " + blob + "\tcommon.yaml\n040000 tree " + sub + "\tcommon.yaml\n", "common.yaml is a file and the folder of common.yaml/pet.yaml"},
	} {
		tree := gitOutput(t, repo, c.tree, "mktree")
		commit := gitOutput(t, repo, "", "commit-tree", tree, "-m", "malformed")
		code, stdout, stderr := runCLI(t, "diff", "-old", "git:"+commit+":spec.yaml", "-new", "spec.yaml")
		want := "-old: error: git:" + commit + ":spec.yaml: the tree at " + commit + " is malformed: " + c.want + "\n"
		if code != exitInput || stdout != "" || stderr != want {
			t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, stdout, stderr, want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "resgen-git-*")); len(left) > 0 {
		t.Errorf("temp folders left behind: %v", left)
	}
}

// snapshot is every entry below dir: a file's bytes, a link's target.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			entries[rel] = "-> " + target
			return err
		case d.IsDir():
			entries[rel] = "folder"
		default:
			data, err := os.ReadFile(p)
			entries[rel] = string(data)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// TestConfigOutputsClashThroughLinks: jobs whose outputs symbolic links
// lead to one place are refused at the output's line and column before
// any work (exit 2, nothing written): a split folder twice, a file in
// another job's split folder (through a linked folder, a linked file or a
// link in a split folder), one file twice. Outputs that links lead to
// places of their own still run.
func TestConfigOutputsClashThroughLinks(t *testing.T) {
	spec := "../specs/petstore.yaml"
	cases := []struct {
		name  string
		links map[string]string // link → target, made before the run
		jobs  string
		want  string
	}{
		{"one split folder through a linked folder", map[string]string{"b": "a"},
			"  - {spec: " + spec + ", package: a, output: a, split: kind}\n  - {spec: " + spec + ", package: b, output: b, split: tag}\n",
			`clash.yaml:3:56: error: job 2 "b" writes b, which is the split folder of job 1 "a" too (through a symbolic link): each run would replace or remove the other's files`},
		{"a file into a split folder through a linked folder", map[string]string{"into": "a"},
			"  - {spec: " + spec + ", package: a, output: a, split: kind}\n  - {spec: " + spec + ", package: b, output: into/extra.gen.go}\n",
			`clash.yaml:3:56: error: job 2 "into/extra.gen.go" writes into/extra.gen.go, which leads into the split folder of job 1 "a" (to `},
		{"a linked file into a split folder", map[string]string{"single.go": "a/types.gen.go"},
			"  - {spec: " + spec + ", package: a, output: a, split: kind}\n  - {spec: " + spec + ", package: b, output: single.go}\n",
			`clash.yaml:3:56: error: job 2 "single.go" writes single.go, which leads into the split folder of job 1 "a" (to `},
		{"a link in a split folder into another", map[string]string{"b/types.gen.go": "../a/types.gen.go"},
			"  - {spec: " + spec + ", package: a, output: a, split: kind}\n  - {spec: " + spec + ", package: b, output: b, split: kind}\n",
			`clash.yaml:3:56: error: job 2 "b" writes b, which leads into the split folder of job 1 "a" (to `},
		{"one file through a linked folder", map[string]string{"also": "out"},
			"  - {spec: " + spec + ", package: a, output: out/client.go}\n  - {spec: " + spec + ", package: b, output: also/client.go}\n",
			`clash.yaml:3:56: error: job 2 "also/client.go" writes also/client.go, which is the file job 1 "out/client.go" writes too (through a symbolic link)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := exampleTree(t)
			for _, d := range []string{"a", "b", "out"} {
				if _, linked := c.links[d]; !linked {
					os.Mkdir(d, 0o755)
				}
			}
			writeFile(t, filepath.Join("a", "types.gen.go"), generatedBanner+" for job a\n")
			writeFile(t, filepath.Join("a", "ops_old.gen.go"), generatedBanner+", no longer written\n")
			for link, target := range c.links {
				if err := os.Symlink(target, link); err != nil {
					t.Fatal(err)
				}
			}
			writeFile(t, "clash.yaml", "jobs:\n"+c.jobs)
			before := snapshot(t, root)
			code, stdout, stderr := runCLI(t, "generate", "-config", "clash.yaml")
			if code != exitInput || stdout != "" || !strings.HasPrefix(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant 2 and a start of\n%s", code, stdout, stderr, c.want)
			}
			if after := snapshot(t, root); !maps.Equal(before, after) {
				t.Errorf("the tree changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
	// Links that lead outputs to places of their own are fine.
	exampleTree(t)
	for _, d := range []string{"real-a", "real-b"} {
		os.Mkdir(d, 0o755)
	}
	for link, target := range map[string]string{"a": "real-a", "b": "real-b", "single.go": "real-b/single.go"} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, "fine.yaml", "jobs:\n  - {spec: "+spec+", package: a, output: a, split: kind}\n  - {spec: "+spec+", package: b, output: single.go}\n")
	mustRun(t, "generate", "-config", "fine.yaml")
	if _, err := os.Stat(filepath.Join("real-a", "client.gen.go")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join("real-b", "single.go")); err != nil {
		t.Error(err)
	}
}
