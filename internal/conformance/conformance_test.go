package conformance

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func testOptions(t *testing.T) Options {
	t.Helper()
	root, err := RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	exc, err := DefaultExceptions()
	if err != nil {
		t.Fatal(err)
	}
	return Options{RepoRoot: root, Exceptions: exc}
}

// mutation plants a regression in the generated source; it fails the test
// when the text it edits is gone (the generator changed: update it).
func mutation(t *testing.T, pairs ...string) func([]byte) []byte {
	return func(src []byte) []byte {
		for i := 0; i < len(pairs); i += 2 {
			if !bytes.Contains(src, []byte(pairs[i])) {
				t.Errorf("the generated client no longer contains %q: update the mutation", pairs[i])
			}
		}
		return []byte(strings.NewReplacer(pairs...).Replace(string(src)))
	}
}

func failuresOf(r *Report, kind string) []Failure {
	var out []Failure
	for _, f := range r.Failures {
		if f.Kind == kind && f.Excepted == "" {
			out = append(out, f)
		}
	}
	return out
}

const regressSpec = "testdata/regress.yaml"

func TestHarnessPassesACorrectClient(t *testing.T) {
	r := Run(t.Context(), regressSpec, testOptions(t))
	if r.Failed() || r.Calls == 0 || r.RoundTripped == 0 {
		t.Fatalf("calls %d, round-tripped %d, failures %+v", r.Calls, r.RoundTripped, r.Failures)
	}
}

func TestHarnessCatchesAParameterInTheWrongStyle(t *testing.T) {
	opts := testOptions(t)
	// explode: false joins items with commas; a pipe is still a valid string.
	opts.Mutate = mutation(t, `req.Query.AddList("tags", ",", `, `req.Query.AddList("tags", "|", `)
	r := Run(t.Context(), regressSpec, opts)
	got := failuresOf(r, "value")
	if len(got) == 0 || !strings.Contains(got[0].Detail, `"tags"`) {
		t.Fatalf("want a value failure for tags; got %+v", r.Failures)
	}
	t.Logf("caught: %s", got[0].Detail)
}

func TestHarnessCatchesAUnionDecodedIntoTheWrongVariant(t *testing.T) {
	opts := testOptions(t)
	// Each key set now selects the other variant.
	opts.Mutate = mutation(t, `obj.Has("email")`, `obj.Has("phone")`, `obj.Has("phone")`, `obj.Has("email")`,
		`obj.Within("email", "label")`, `obj.Within("label", "phone")`, `obj.Within("label", "phone")`, `obj.Within("email", "label")`)
	r := Run(t.Context(), regressSpec, opts)
	got := failuresOf(r, "roundtrip")
	if len(got) == 0 {
		t.Fatalf("want a roundtrip failure; got %+v", r.Failures)
	}
	t.Logf("caught: %s", got[0].Detail)
}

// corpusLimit keeps the CI run to the specs under 2 MB.
const corpusLimit = 2 << 20

// TestConformanceCorpus runs the harness on every testdata spec and every
// real spec under 2 MB (so not the multi-file DigitalOcean, 14 MB in all,
// as generator's TestCorpus counts it), as make conformance does for all. It runs
// the CLI built without -race: under the race detector the harness's own
// in-process work (generate, kin-openapi loads and validations) takes about
// twice as long, and the tests above already run that code with -race.
func TestConformanceCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	opts := testOptions(t)
	real := filepath.Join(opts.RepoRoot, "..", "shared", "specs", "real")
	if _, err := os.Stat(real); err != nil {
		t.Fatalf("the real-spec corpus is missing (%v): CI provides ../shared", err)
	}
	var specs []string
	for _, pat := range []string{
		filepath.Join(opts.RepoRoot, "testdata", "specs", "*.yaml"), filepath.Join(opts.RepoRoot, "testdata", "specs", "*.json"),
		filepath.Join(real, "*.yaml"), filepath.Join(real, "*.json"),
	} {
		m, _ := filepath.Glob(pat)
		for _, s := range m {
			if fi, err := os.Stat(s); err == nil && fi.Size() < corpusLimit {
				specs = append(specs, s)
			}
		}
	}
	start := time.Now()
	bin := filepath.Join(t.TempDir(), "conformance")
	build := exec.Command("go", "build", "-o", bin, "./scripts/conformance")
	build.Dir = opts.RepoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./scripts/conformance: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, append([]string{"-v", "-p", "2"}, specs...)...)
	cmd.Dir = opts.RepoRoot
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var table, fails []string
	for _, line := range strings.Split(stdout.String(), "\n") {
		switch {
		case strings.Contains(line, ": FAIL "):
			fails = append(fails, line)
		case strings.Contains(line, ": skipped "), strings.Contains(line, ": excepted ("), strings.Contains(line, ": time:"):
		default:
			table = append(table, line)
		}
	}
	t.Logf("%d specs in %s\n%s", len(specs), time.Since(start).Round(time.Second), strings.Join(table, "\n"))
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		for i, f := range fails {
			if i == 40 {
				t.Errorf("and %d more failures (go run ./scripts/conformance -v SPEC)", len(fails)-i)
				break
			}
			t.Error(f)
		}
	default:
		t.Fatalf("conformance: %v\n%s", err, stderr.String())
	}
}

// TestHarnessCallsEveryBodyMethod: a content-type variant method (here the
// form one of bodies.yaml's createPet) that sends the wrong Content-Type
// is caught, so each variant method is called and judged on its own.
func TestHarnessCallsEveryBodyMethod(t *testing.T) {
	opts := testOptions(t)
	opts.Mutate = mutation(t, `req := runtime.Request{ContentType: "application/x-www-form-urlencoded"}`, `req := runtime.Request{ContentType: "text/plain"}`)
	r := Run(t.Context(), filepath.Join(opts.RepoRoot, "testdata", "specs", "bodies.yaml"), opts)
	var caught []Failure
	for _, f := range failuresOf(r, "body") {
		if f.Method == "CreatePetWithForm2" {
			caught = append(caught, f)
		}
	}
	if len(caught) == 0 {
		t.Fatalf("want a body failure of CreatePetWithForm2; got %+v", r.Failures)
	}
	t.Logf("caught: %s", caught[0].Detail)
}
