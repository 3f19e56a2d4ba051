package generator

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/resgen/resgen/internal/realspecs"
)

// corpusDir holds real public specs (../shared/specs/real, see its
// SOURCES.md); the test is skipped where it is absent.
const corpusDir = "../../shared/specs/real"

// corpusSpecs lists the spec files of the corpus; the test is skipped
// where it is absent.
func corpusSpecs(t *testing.T) []string {
	out, err := realspecs.List(corpusDir)
	if err != nil {
		t.Skipf("no corpus: %v", err)
	}
	return out
}

// extraSpecs lists the OpenAPI and Swagger documents found below the
// folders of RESGEN_CORPUS_EXTRA (a list separated by the OS's path list
// separator): more real specs, such as ogen's and kin-openapi's test data
// (make corpus-extra). Every one of them must generate, build and vet.
func extraSpecs() []string {
	var out []string
	for _, dir := range filepath.SplitList(os.Getenv("RESGEN_CORPUS_EXTRA")) {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if ext := filepath.Ext(p); ext != ".json" && ext != ".yaml" && ext != ".yml" {
				return nil
			}
			f, err := os.Open(p)
			if err != nil {
				return nil
			}
			head := make([]byte, 3000)
			n, _ := f.Read(head)
			f.Close()
			if openapiHead.Match(head[:n]) {
				out = append(out, p)
			}
			return nil
		})
	}
	sort.Strings(out)
	return out
}

var openapiHead = regexp.MustCompile(`(?m)(^|[{,])\s*"?(openapi|swagger)"?\s*:`)

// corpusSize is the bytes of a spec corpusSpecs listed.
func corpusSize(spec string) int64 { return realspecs.Size(corpusDir, spec) }

// TestCorpus generates a client for every real spec into a temporary
// module, then runs go build and go vet on all of them. It prints a table
// and fails when a spec listed in testdata/corpus-pass.txt no longer
// generates, builds or vets. By default (make test) it takes the specs
// under 2 MB; RESGEN_CORPUS=all (make corpus) takes every spec, and -short
// skips it.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	all := os.Getenv("RESGEN_CORPUS") == "all"
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	mustPass := map[string]bool{}
	if f, err := os.Open("../testdata/corpus-pass.txt"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
				mustPass[l] = true
			}
		}
		f.Close()
	}

	mod := tempModule(t, "corpus.test", root)

	type row struct {
		name       string
		size       int64
		ops        int
		gen, build bool
		secs       float64
		note       string
	}
	var rows []*row
	byPkg := map[string]*row{}
	extra := map[string]bool{}
	specs := corpusSpecs(t)
	for _, e := range extraSpecs() {
		extra[e] = true
		specs = append(specs, e)
	}
	for i, spec := range specs {
		size := corpusSize(spec)
		if !all && size >= 2<<20 {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(spec), filepath.Ext(spec))
		if extra[spec] {
			name = fmt.Sprintf("x%d-%s", i, name)
		}
		r := &row{name: name, size: size}
		rows = append(rows, r)
		pkg := "p" + goldenPackage(name)
		start := time.Now()
		res, err := Generate(context.Background(), Config{Spec: spec, Package: pkg})
		r.secs = time.Since(start).Seconds()
		if extra[spec] && !IsInputError(err) {
			// Test data may be broken on purpose (a $ref typo): a clear
			// input error is fine. A resgen fault or code that does not
			// build is not.
			mustPass[name] = true
		}
		if err != nil {
			r.note = firstLine(err.Error())
			continue
		}
		r.gen, r.ops = true, len(res.Model.Operations)
		if wide := wideComments(res.Source); len(wide) > 0 {
			t.Errorf("%s: %d comment lines are 100 columns or wider, the first %s", name, len(wide), wide[0])
		}
		dir := filepath.Join(mod, pkg)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "client.gen.go"), res.Source, 0o644); err != nil {
			t.Fatal(err)
		}
		byPkg[pkg] = r
		r.build = true // until go build or vet says otherwise
	}

	// One go vet over all packages: it type-checks (builds) each one and
	// runs the analyzers, and names the package of every error.
	start := time.Now()
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	vetSecs := time.Since(start).Seconds()
	if err != nil {
		for _, l := range strings.Split(string(out), "\n") {
			l = strings.TrimPrefix(l, "vet: ")
			for pkg, r := range byPkg {
				if strings.HasPrefix(l, pkg+"/") || strings.HasPrefix(l, "./"+pkg+"/") || strings.TrimSpace(l) == "# corpus.test/"+pkg {
					if r.build {
						r.note = firstLine(l)
					}
					r.build = false
				}
			}
		}
		if !strings.Contains(string(out), "client.gen.go") {
			t.Fatalf("go vet failed outside the generated code:\n%s", out)
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "\n%-32s %10s %6s %5s %12s %8s  %s\n", "spec", "bytes", "ops", "gen", "build+vet", "gen s", "first error")
	gen, built := 0, 0
	for _, r := range rows {
		if r.gen {
			gen++
		}
		if r.build {
			built++
		}
		fmt.Fprintf(&b, "%-32s %10d %6d %5v %12v %8.2f  %s\n", r.name, r.size, r.ops, r.gen, r.build, r.secs, r.note)
		if mustPass[r.name] && !r.build {
			t.Errorf("%s regressed: it passed before (testdata/corpus-pass.txt): %s", r.name, r.note)
		}
	}
	fmt.Fprintf(&b, "generated %d/%d, built and vetted %d/%d (go vet of all: %.1fs)\n", gen, len(rows), built, len(rows), vetSecs)
	t.Log(b.String())
}

// tempModule makes a Go module named name in a temporary folder that
// builds against the resgen module at root, and returns the folder.
func tempModule(t *testing.T, name, root string) string {
	t.Helper()
	mod := t.TempDir()
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	gomod := fmt.Sprintf("module %s\n\ngo 1.26\n\nrequire github.com/resgen/resgen v0.0.0\n\nreplace github.com/resgen/resgen => %s\n", name, root)
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.sum"), gosum, 0o644); err != nil {
		t.Fatal(err)
	}
	return mod
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}
