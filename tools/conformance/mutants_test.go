package conformance

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// mutantGoldens are the golden clients the site finders are tested on.
var mutantGoldens = []string{"params", "paramstyles", "paramshapes", "bodies", "types", "petstore", "security",
	"unions2", "valueunions", "openstack-console", "streams"}

// mutantChanges says what each kind's first site must change: the count
// of the text grows in the mutated source ("-text": shrinks). A kind not
// listed must only change the source.
var mutantChanges = map[string]string{
	"optional-query-sent-unset":   " else {\nreq.Query.Add(",
	"optional-header-sent-unset":  " else {\nreq.",
	"undeclared-query-param":      `req.Query.Add("debug", "true")`,
	"undeclared-header":           `req.SetHeader("X-Debug", "true")`,
	"undeclared-form-field":       `&debug=true`,
	"path-segment-unescaped":      "-wire.PathSegment(",
	"cookie-unescaped":            "-wire.CookieValue(",
	"int64-as-float64":            "float64",
	"omitzero-removed":            "-omitzero",
	"required-property-dropped":   `json:"-"`,
	"accept-wrong":                `Accept: "application/xml"`,
	"bool-as-digit":               `map[bool]string{true: "1", false: "0"}`,
	"bool-uppercase":              `map[bool]string{true: "TRUE", false: "FALSE"}`,
	"int-leading-zero":            `"0" + strconv.FormatInt(`,
	"int-plus-sign":               `"+" + strconv.FormatInt(`,
	"number-exponent":             `'e', -1, 64)`,
	"number-truncated":            "-strconv.FormatFloat(",
	"number-float32":              `', -1, 32)`,
	"time-no-fraction":            "-time.RFC3339Nano",
	"time-no-offset":              `"2006-01-02T15:04:05.999999999"`,
	"multipart-part-dropped":      "-mp.",
	"list-item-dropped":           "[min(1, len(",
	"query-value-unescaped":       "-url.QueryEscape(value)",
	"path-segment-form-escaped":   "-url.PathEscape(v)",
	"deepobject-keys-wrong":       `name+"."+k`,
	"form-list-indexed":           "if false {",
	"form-number-via-float64":     "x.Float64()",
	"multipart-filename-dropped":  "-filename=",
	"multipart-json-part-type":    `"text/plain"`,
	"response-via-float64":        "mutantViaFloatResponse(raw)",
	"request-via-float64":         "mutantViaFloatRequest(",
	"upload-read-twice":           "_, _ = io.ReadAll(",
	"download-last-byte-dropped":  "mutantDropLastRC(resp.Body)",
	"file-part-last-byte-dropped": "mutantDropLast(f.Content)",
	"sse-id-dropped":              `ev.id, ev.hasID = "", true`,
	"sse-data-lines-joined":       `value...), ' ')`,
	"jsonl-last-line-dropped":     "return nil, io.EOF",
}

func checkChange(t *testing.T, kind string, orig, mutated []byte) {
	t.Helper()
	if bytes.Equal(orig, mutated) {
		t.Errorf("%s: the mutant changes nothing", kind)
		return
	}
	want, ok := mutantChanges[kind]
	if !ok {
		return
	}
	shrink := strings.HasPrefix(want, "-")
	want = strings.TrimPrefix(want, "-")
	before, after := bytes.Count(orig, []byte(want)), bytes.Count(mutated, []byte(want))
	if shrink && after >= before || !shrink && after <= before {
		t.Errorf("%s: %q occurs %d times before the mutant and %d after", kind, want, before, after)
	}
}

func goBuild(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestMutantKindsFindSites: every kind finds a site in the golden clients
// (or the runtime), its first site changes what the kind says, and every
// first site's mutant builds: the client ones together in one module, the
// runtime ones together through one go build -overlay.
func TestMutantKindsFindSites(t *testing.T) {
	root, err := RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	gomod := fmt.Sprintf("module mutanttest\n\ngo 1.26\n\nrequire github.com/resgen/resgen v0.0.0\n\nreplace github.com/resgen/resgen => %s\n", root)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	goldens := map[string][]byte{}
	parsed := map[string]*srcFile{}
	for _, g := range mutantGoldens {
		src, err := os.ReadFile(filepath.Join(root, "golden", g, "client.gen.go"))
		if err != nil {
			t.Fatal(err)
		}
		goldens[g] = src
		if parsed[g], err = parseSrc(g, src); err != nil {
			t.Fatal(err)
		}
	}
	runtimeEdits := map[string][]edit{}
	runtimeSrc := map[string][]byte{}
	for i := range MutantKinds {
		k := &MutantKinds[i]
		if k.Runtime != "" {
			sites, src, noop, err := k.RuntimeSites(root)
			if err != nil {
				t.Fatal(err)
			}
			if len(sites) == 0 {
				if noop != "" {
					t.Logf("%s: %s", k.Name, noop)
					continue
				}
				t.Errorf("%s: no site in %s: the runtime changed; update the kind", k.Name, k.Runtime)
				continue
			}
			checkChange(t, k.Name, src, sites[0].Apply(src))
			runtimeSrc[k.Runtime] = src
			runtimeEdits[k.Runtime] = append(runtimeEdits[k.Runtime], sites[0].edits...)
			if !anyUses(parsed, k.uses) {
				t.Errorf("%s: no golden client calls what it edits (uses)", k.Name)
			}
			continue
		}
		var site *Site
		var in string
		for _, g := range mutantGoldens {
			sites := k.sites(parsed[g], 0, "")
			if len(sites) == 0 {
				continue
			}
			sort.SliceStable(sites, func(a, b int) bool { return siteHash(g, sites[a], a) < siteHash(g, sites[b], b) })
			site, in = &sites[0], g
			break
		}
		if site == nil {
			t.Errorf("%s: no site in the golden clients %v: the generator changed; update the kind", k.Name, mutantGoldens)
			continue
		}
		mutated := site.Apply(goldens[in])
		checkChange(t, k.Name, goldens[in], mutated)
		if _, err := parser.ParseFile(token.NewFileSet(), k.Name, mutated, 0); err != nil {
			t.Errorf("%s in %s (%s): the mutant does not parse: %v", k.Name, in, site, err)
			continue
		}
		dir := filepath.Join(mod, k.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "client.gen.go"), mutated, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s: %s", k.Name, in, site)
	}
	goBuild(t, mod, "./...")

	overlay := map[string][]byte{}
	for path, es := range runtimeEdits {
		sort.Slice(es, func(i, j int) bool { return es[i].start < es[j].start })
		for i := 1; i < len(es); i++ {
			if es[i].start < es[i-1].end {
				t.Fatalf("%s: two runtime kinds edit the same bytes (%d..%d)", path, es[i].start, es[i-1].end)
			}
		}
		overlay[filepath.Join(root, filepath.FromSlash(path))] = Site{edits: es}.Apply(runtimeSrc[path])
	}
	ov, err := writeOverlay(t.TempDir(), overlay)
	if err != nil {
		t.Fatal(err)
	}
	goBuild(t, root, "-overlay="+ov, "./runtime", "./runtime/wire")
}

func anyUses(files map[string]*srcFile, uses func(*srcFile) bool) bool {
	for _, f := range files {
		if uses(f) {
			return true
		}
	}
	return false
}

// A failure already in the baseline is no kill, even when the values it
// echoes changed; a failure on another parameter, path or call is.
func TestNewFailuresAgainstTheBaseline(t *testing.T) {
	f := func(kind, detail string) Failure {
		return Failure{Operation: "GetSearch", Call: "all parameters", Method: "GetSearch", Kind: kind, Detail: detail}
	}
	base := &Report{Failures: []Failure{
		f("value", `query parameter "token": intended "aGVsbG8=", sent ?token=YUdWc2JHOD0%3D; mismatch`),
		f("client", "GET http://127.0.0.1:4242/search?q=a: EOF"),
	}}
	mutant := &Report{Failures: []Failure{
		f("value", `query parameter "token": intended "aGVsbG8=", sent ?debug=true&token=YUdWc2JHOD0%3D; mismatch`),
		f("client", "GET http://127.0.0.1:5151/search?q=b: EOF"),
		f("value", `query parameter "page": intended 1, sent ?page=01; mismatch`),
		{Operation: "GetSearch", Kind: "exception", Detail: "unused exception"},
		{Operation: "GetSearch", Kind: "body", Detail: "excepted", Excepted: "a reason"},
	}}
	got := newFailures(mutant, base)
	if len(got) != 1 || !strings.Contains(got[0].Detail, `"page"`) {
		t.Fatalf("new failures %+v; want the page one only", got)
	}
	if len(newFailures(base, base)) != 0 {
		t.Fatal("the baseline against itself has new failures")
	}
}

// TestMutantsRun: through the harness, a client mutant (a list joined by
// the wrong delimiter) and a runtime one planted through the build overlay
// (deepObject keys) are killed, by failures the baseline lacks; the
// runtime file in the repository is left as it was.
func TestMutantsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	opts := testOptions(t)
	wirePath := filepath.Join(opts.RepoRoot, "runtime", "wire", "params.go")
	before, err := os.ReadFile(wirePath)
	if err != nil {
		t.Fatal(err)
	}
	rep := RunMutants(t.Context(), []string{filepath.Join(opts.RepoRoot, "testdata", "specs", "params.yaml")}, MutantOptions{
		Options: opts, PerSpec: 1, PerKind: 1,
		Kinds: regexp.MustCompile(`^(list-delimiter-wrong|deepobject-keys-wrong)$`),
	})
	var out bytes.Buffer
	rep.Print(&out, true)
	t.Log(out.String())
	if len(rep.Results) != 2 {
		t.Fatalf("want 2 mutants; got %+v", rep.Results)
	}
	for _, r := range rep.Results {
		if r.Status != "killed" || r.By == "" {
			t.Errorf("%s: %s (%s); want killed", r.Site.Kind, r.Status, r.By)
		}
	}
	if k, n := rep.Totals(); k != 2 || n != 2 || !strings.HasSuffix(strings.TrimSpace(out.String()), "killed 2 of 2 mutants (100.0%)") {
		t.Errorf("totals %d of %d; the report ends %q", k, n, out.String()[max(0, out.Len()-60):])
	}
	after, _ := os.ReadFile(wirePath)
	if !bytes.Equal(before, after) {
		t.Fatal("the runtime mutant changed runtime/wire/params.go in the repository")
	}
}
