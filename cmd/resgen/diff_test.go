package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffExitStatusesAndFormats: the CLI prints what golden/diff holds
// (from the generator's TestGoldenDiff) in each format, exits 4 on a
// policy change and 0 on none, and refuses bad flags with 2.
func TestDiffExitStatusesAndFormats(t *testing.T) {
	t.Chdir("../..")
	for _, c := range []struct {
		name string
		code int
	}{{"nochange", exitOK}, {"threshold", exitPolicyChanged}, {"idempotency-key", exitPolicyChanged}, {"removed", exitPolicyChanged}} {
		for format, ext := range map[string]string{"text": "txt", "markdown": "md", "json": "json"} {
			code, stdout, stderr := runCLI(t, "diff", "-old", "testdata/diff/"+c.name+"/old.yaml", "-new", "testdata/diff/"+c.name+"/new.yaml", "-format", format)
			if code != c.code {
				t.Errorf("%s -format %s: exit %d, want %d: %s", c.name, format, code, c.code, stderr)
			}
			want, err := os.ReadFile(filepath.Join("golden", "diff", c.name+"."+ext))
			if err != nil {
				t.Fatal(err)
			}
			if stdout != string(want) {
				t.Errorf("%s -format %s: the CLI printed something else than golden/diff:\n%s", c.name, format, stdout)
			}
			if format == "json" {
				var v struct{ Changed bool }
				if err := json.Unmarshal([]byte(stdout), &v); err != nil || v.Changed != (c.code == exitPolicyChanged) {
					t.Errorf("%s: json %v, changed %v", c.name, err, v.Changed)
				}
			}
		}
	}
	if code, stdout, _ := runCLI(t, "diff", "-old", "testdata/diff/nochange/old.yaml", "-new", "testdata/diff/nochange/new.yaml"); code != exitOK || !strings.Contains(stdout, "No policy change: 3 operations") {
		t.Errorf("no change: exit %d, %q", code, stdout)
	}
	for _, args := range [][]string{
		{"-old", "testdata/diff/nochange/old.yaml"},
		{"-new", "testdata/diff/nochange/new.yaml"},
		{"-old", "testdata/diff/nochange/old.yaml", "-new", "testdata/diff/nochange/new.yaml", "-format", "table"},
		{"-old", "testdata/diff/nochange/old.yaml", "-new", "testdata/diff/nochange/new.yaml", "extra"},
		{"-old", "testdata/diff/nochange/old.yaml", "-new", "testdata/diff/nochange/missing.yaml"},
	} {
		if code, stdout, stderr := runCLI(t, append([]string{"diff"}, args...)...); code != exitInput || stdout != "" || stderr == "" {
			t.Errorf("diff %v: exit %d, stdout %q, stderr %q; want 2, nothing, a message", args, code, stdout, stderr)
		}
	}
}

// TestDiffSpecErrorOnOneSide: a side that does not load gives its
// diagnostics as generate prints them (file:line:col) and exit 2, and
// nothing on stdout; both sides are checked in one run.
func TestDiffSpecErrorOnOneSide(t *testing.T) {
	t.Chdir("../..")
	bad := "testdata/specs/invalid/bad-response-code.yaml"
	want, err := os.ReadFile("golden/errors/bad-response-code.txt")
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "diff", "-old", "testdata/diff/nochange/old.yaml", "-new", bad)
	if code != exitInput || stdout != "" || stderr != string(want) {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant 2 and:\n%s", code, stdout, stderr, want)
	}
	code, _, stderr = runCLI(t, "diff", "-old", bad, "-new", "testdata/specs/invalid/not-yaml.yaml")
	if code != exitInput || !strings.HasPrefix(stderr, bad+":11:9: error:") || !strings.Contains(stderr, "testdata/specs/invalid/not-yaml.yaml:") {
		t.Errorf("both sides bad: exit %d, stderr:\n%s", code, stderr)
	}
}

// TestDiffOverlaysPerSide: -old-overlay and -new-overlay apply to their
// side only.
func TestDiffOverlaysPerSide(t *testing.T) {
	t.Chdir("../..")
	overlay := filepath.Join(t.TempDir(), "slow.yaml")
	writeFile(t, overlay, `overlay: 1.0.0
info: {title: slower listPayments, version: "1"}
actions:
  - target: $.paths['/payments'].get
    update:
      x-resilience: {timeout: 7s}
`)
	spec := "testdata/diff/nochange/old.yaml"
	code, stdout, stderr := runCLI(t, "diff", "-old", spec, "-new", spec, "-new-overlay", overlay)
	if code != exitPolicyChanged || !strings.Contains(stdout, "listPayments (GET /payments)\n    timeout: 2s → 7s\n") {
		t.Errorf("-new-overlay: exit %d, stdout:\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = runCLI(t, "diff", "-old", spec, "-old-overlay", overlay, "-new", spec)
	if code != exitPolicyChanged || !strings.Contains(stdout, "timeout: 7s → 2s") {
		t.Errorf("-old-overlay: exit %d, stdout:\n%s", code, stdout)
	}
	if code, stdout, _ = runCLI(t, "diff", "-old", spec, "-old-overlay", overlay, "-new", spec, "-new-overlay", overlay); code != exitOK {
		t.Errorf("the same overlay on both sides: exit %d, stdout:\n%s", code, stdout)
	}
}

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=resgen test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

const gitSpec = `openapi: "3.0.3"
info: {title: Payments, version: "1"}
paths:
  /payments:
    post:
      operationId: createPayment
      parameters:
        - $ref: "../common/params.yaml#/key"
      responses:
        "201": {description: created}
`

// TestDiffOldFromGit: -old git:REV:path reads the spec and the files it
// $refs as of REV (here a parameter file that changed since, so the
// working tree's would show no change), with the path relative to the
// current folder; a bad revision, a missing file or a path outside the
// repository is bad input; a symlink in the revision is not followed; the
// temp folder is gone afterwards.
func TestDiffOldFromGit(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	repo := filepath.Join(t.TempDir(), "repo")
	writeFile(t, filepath.Join(repo, "api", "openapi.yaml"), gitSpec)
	writeFile(t, filepath.Join(repo, "common", "params.yaml"), "key: {name: X-Request-Id, in: header, schema: {type: string}}\n")
	git(t, repo, "init", "-q")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-qm", "first")
	// Now the parameter is an idempotency key: createPayment becomes
	// retryable with the same spec file.
	writeFile(t, filepath.Join(repo, "common", "params.yaml"), "key: {name: Idempotency-Key, in: header, required: true, schema: {type: string}}\n")
	t.Chdir(filepath.Join(repo, "api"))

	code, stdout, stderr := runCLI(t, "diff", "-old", "git:HEAD:openapi.yaml", "-new", "openapi.yaml")
	if code != exitPolicyChanged || !strings.Contains(stdout, "retry turned ON (was off: POST without key; now: Idempotency-Key header)") || !strings.HasPrefix(stdout, "Policy diff: git:HEAD:openapi.yaml → openapi.yaml\n") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	git(t, repo, "commit", "-qam", "key")
	if code, stdout, stderr := runCLI(t, "diff", "-old", "git:HEAD:openapi.yaml", "-new", "openapi.yaml"); code != exitOK {
		t.Errorf("against the commit holding the same files: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := runCLI(t, "diff", "-old", "git:HEAD~1:openapi.yaml", "-new", "git:HEAD:openapi.yaml", "-format", "json"); code != exitPolicyChanged || !strings.Contains(stdout, `"new": "Idempotency-Key"`) {
		t.Errorf("two revisions: exit %d\n%s%s", code, stdout, stderr)
	}

	// A symlink in the revision pointing outside it is not materialised:
	// the $ref through it fails to load, as a file the revision lacks.
	secret := filepath.Join(t.TempDir(), "secret.yaml")
	writeFile(t, secret, "key: {name: Idempotency-Key, in: header, schema: {type: string}}\n")
	if err := os.Symlink(secret, filepath.Join(repo, "common", "link.yaml")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repo, "api", "linked.yaml"), strings.Replace(gitSpec, "params.yaml", "link.yaml", 1))
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-qm", "link")
	code, stdout, stderr = runCLI(t, "diff", "-old", "git:HEAD:linked.yaml", "-new", "openapi.yaml")
	if code != exitInput || stdout != "" || !strings.HasPrefix(stderr, "git:HEAD:api/linked.yaml:8:") || !strings.Contains(stderr, "cannot read git:HEAD:common/link.yaml") || strings.Contains(stderr, "resgen-git-") {
		t.Errorf("a symlink: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}

	for _, c := range []struct{ old, msg string }{
		{"git:nosuchrev:openapi.yaml", `no revision "nosuchrev"`},
		{"git:HEAD:missing.yaml", "no file api/missing.yaml at HEAD"},
		{"git:HEAD:../../outside.yaml", "outside the repository"},
		{"git:HEAD", "want git:REV:path"},
		{"git:--output=x:openapi.yaml", "cannot start with -"},
	} {
		code, stdout, stderr := runCLI(t, "diff", "-old", c.old, "-new", "openapi.yaml")
		if code != exitInput || stdout != "" || !strings.HasPrefix(stderr, "-old: error: ") || !strings.Contains(stderr, c.msg) {
			t.Errorf("-old %s: exit %d, stdout %q, stderr %q; want 2 and %q", c.old, code, stdout, stderr, c.msg)
		}
	}
	// The bound on what a revision may hold is checked from the sizes
	// git lists, before anything is written.
	defer func(n int64) { maxGitBytes = n }(maxGitBytes)
	maxGitBytes = int64(len(gitSpec))
	if code, _, stderr := runCLI(t, "diff", "-old", "git:HEAD:openapi.yaml", "-new", "openapi.yaml"); code != exitInput || !strings.Contains(stderr, "exceed") {
		t.Errorf("over the size bound: exit %d, stderr %q", code, stderr)
	}
	t.Chdir(t.TempDir())
	if code, _, stderr := runCLI(t, "diff", "-old", "git:HEAD:openapi.yaml", "-new", filepath.Join(repo, "api", "openapi.yaml")); code != exitInput || !strings.Contains(stderr, "not in a git repository") {
		t.Errorf("outside a repository: exit %d, stderr %q", code, stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "resgen-git-*")); len(left) > 0 {
		t.Errorf("temp folders left behind: %v", left)
	}
}
