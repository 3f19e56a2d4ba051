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

// exponentFloat and plainFloat are how the generated client writes a
// number parameter: strconv's 'g' format writes 1000000 as 1e+06 (the
// wire bug the harness must catch), 'f' as 1000000 (what it must pass).
const exponentFloat, plainFloat = "strconv.FormatFloat(*params.Ratio, 'g', -1, 64)", "strconv.FormatFloat(*params.Ratio, 'f', -1, 64)"

// numbersAs makes the generated client write regress.yaml's number
// parameter with format ('g' or 'f'), whichever the generator emits now.
func numbersAs(t *testing.T, src []byte, format string) []byte {
	from := exponentFloat
	if format == exponentFloat {
		from = plainFloat
	}
	src = bytes.ReplaceAll(src, []byte(from), []byte(format))
	if !bytes.Contains(src, []byte(format)) && bytes.Contains(src, []byte("ListItems(")) {
		t.Errorf("the generated client writes ratio neither as %q nor as %q: update the mutation", exponentFloat, plainFloat)
	}
	return src
}

func TestHarnessPassesACorrectClient(t *testing.T) {
	opts := testOptions(t)
	// A number in decimal: written with an exponent it is a wire bug,
	// which TestHarnessCatchesWireBugs shows is caught.
	opts.Mutate = func(src []byte) []byte { return numbersAs(t, src, plainFloat) }
	r := Run(t.Context(), regressSpec, opts)
	if r.Failed() || r.Calls == 0 || r.RoundTripped == 0 || len(r.NeverCalled) > 0 {
		t.Fatalf("calls %d, round-tripped %d, never called %v, failures %+v", r.Calls, r.RoundTripped, r.NeverCalled, r.Failures)
	}
	t.Logf("%d calls", r.Calls)
}

// TestHarnessCatchesWireBugs plants one plausible client bug in each of
// regress.yaml's operations at once (each operation's calls are judged on
// their own) and asserts that each is caught, by the check meant for it.
func TestHarnessCatchesWireBugs(t *testing.T) {
	opts := testOptions(t)
	plant := mutation(t,
		// An optional query parameter and header sent empty when unset.
		"req.Query.Add(\"note\", *params.Note)\n\t\t}", "req.Query.Add(\"note\", *params.Note)\n\t\t} else {\n\t\t\treq.Query.Add(\"note\", \"\")\n\t\t}",
		"req.AddHeader(\"X-Mode\", *params.XMode)\n\t\t}", "req.AddHeader(\"X-Mode\", *params.XMode)\n\t\t} else {\n\t\t\treq.AddHeader(\"X-Mode\", \"\")\n\t\t}",
		// A query parameter the operation does not declare.
		`req := wire.Request{Path: "/items"}`, `req := wire.Request{Path: "/items"}`+"\n\treq.Query.Add(\"debug\", \"1\")",
		// A path segment not escaped.
		`"/blobs/" + wire.PathSegment(name)`, `"/blobs/" + name`,
		// omitzero removed: an unset optional property sent as null.
		"Nickname *string  `json:\"nickname,omitzero\"`", "Nickname *string  `json:\"nickname\"`",
		// Two response headers bound to each other's name.
		`resgen:"header:X-Request-Id"`, `resgen:"header:X-Trace-Id"`, `resgen:"header:X-Trace-Id"`, `resgen:"header:X-Request-Id"`,
		// An Accept the responses do not declare.
		`Path: "/items/{id}", Accept: "application/json"`, `Path: "/items/{id}", Accept: "application/xml"`,
		// A boolean written 1/0, an integer with a leading zero.
		`strconv.FormatBool(*params.Flag)`, `map[bool]string{true: "1", false: "0"}[*params.Flag]`,
		`strconv.FormatInt(int64(*params.Count), 10)`, `"0" + strconv.FormatInt(int64(*params.Count), 10)`,
		// A form field the body does not declare.
		`req.Body = []byte(form)`, `req.Body = []byte(form + "&debug=1")`,
		// An optional body left out, sent as null.
		`return impl.Call(ctx, c.opPutItem, &req`, "if body == nil {\n\t\treq.Body = []byte(\"null\")\n\t}\n\treturn impl.Call(ctx, c.opPutItem, &req",
	)
	opts.Mutate = func(src []byte) []byte {
		src = plant(src)
		// A number in exponent form: what the generator does today.
		return numbersAs(t, src, exponentFloat)
	}
	r := Run(t.Context(), regressSpec, opts)
	for _, want := range []struct{ name, op, call, kind, detail string }{
		{"optional query parameter sent when unset", "ListItems", "required parameters only", "extra", `query parameter "note" is sent; the call left it unset`},
		{"optional header sent when unset", "ListItems", "required parameters only", "extra", `header parameter "X-Mode" is sent; the call left it unset`},
		{"undeclared query parameter", "ListItems", "all parameters", "extra", `query parameter "debug" is sent; the operation declares no such parameter`},
		{"unescaped path segment", "GetBlob", "all parameters", "route", "does not match the operation's template"},
		{"omitzero removed", "PutItem", "optional body properties unset", "body", "/nickname: not sent, came back as null"},
		{"response header bound to the wrong name", "PutItem", "all parameters", "header", "XRequestID (header X-Request-Id"},
		{"wrong Accept", "PutItem", "all parameters", "accept", "Accept lists application/xml, which no response declares"},
		{"boolean written 1/0", "ListItems", "all parameters", "text", `query parameter "flag": is "`},
		{"integer with a leading zero", "ListItems", "all parameters", "text", `query parameter "count": is "0`},
		{"number in exponent form", "ListItems", "all parameters", "text", `query parameter "ratio": is "1.234567891e+06"`},
		{"undeclared form field", "PostForm", "all parameters", "extra", `body field "debug" is sent; the body declares no such property`},
		{"optional body sent when left out", "PutItem", "body left out", "extra", "the call left the optional body out"},
	} {
		caught := false
		for _, f := range failuresOf(r, want.kind) {
			if f.Operation == want.op && f.Call == want.call && strings.Contains(f.Detail, want.detail) {
				caught = true
				t.Logf("%s: caught: %s", want.name, f.Detail)
				break
			}
		}
		if !caught {
			t.Errorf("%s: no %s failure of %s [%s] containing %q", want.name, want.kind, want.op, want.call, want.detail)
		}
	}
	if t.Failed() {
		for _, f := range r.Failures {
			t.Logf("%s [%s] %s: %s", f.Operation, f.Call, f.Kind, f.Detail)
		}
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

// TestConformanceCorpus runs the harness on every testdata spec and every
// real spec, the big ones and the entry file of each multi-file spec
// (DigitalOcean) included, as make conformance does: CI holds the whole
// corpus to 0 failures but those known-failures.txt lists (every one a
// call to fix, most of them calls the harness cannot synthesize yet; a
// listed one that no longer fails fails too). It runs the CLI
// built without -race: under the race detector the harness's own
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
		filepath.Join(real, "*.yaml"), filepath.Join(real, "*.json"), filepath.Join(real, "*", "*public*.yaml"),
	} {
		m, _ := filepath.Glob(pat)
		specs = append(specs, m...)
	}
	if len(specs) < 60 {
		t.Fatalf("only %d specs found: the corpus is incomplete", len(specs))
	}
	start := time.Now()
	bin := filepath.Join(t.TempDir(), "conformance")
	build := exec.Command("go", "build", "-o", bin, "./scripts/conformance")
	build.Dir = opts.RepoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./scripts/conformance: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, append([]string{"-v", "-known", "-p", "2"}, specs...)...)
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
	opts.Mutate = mutation(t, `req := wire.Request{ContentType: "application/x-www-form-urlencoded"}`, `req := wire.Request{ContentType: "text/plain"}`)
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
