package generator

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pagedRealSpecs are real specs of ../shared/specs/real, each with the
// overlay that adds paging to some of its operations (testdata/overlays),
// and the iterator methods that must come of it.
var pagedRealSpecs = []struct {
	spec, overlay string
	methods       []string
}{
	{"github-2020.json", "pages-github.yaml", []string{"IssuesListForRepoPages", "ReposListForOrgPages", "ReposListCommitsPagesOf"}},
	{"twilio-api-v2010.yaml", "pages-twilio.yaml", []string{"ListCallPages", "ListMessagePagesOf"}},
	{"slack-web-swagger2.json", "pages-slack.yaml", []string{"ConversationsListPages", "ChatScheduledMessagesListPagesOf"}},
	{"stripe-2023-09.yaml", "pages-stripe.yaml", []string{"GetCustomersPages", "GetChargesPagesOf", "GetChargesSearchPages"}},
}

// TestPagingOverlaysOnRealSpecs generates each real spec with its paging
// overlay: no paging mistake is reported, every annotated operation gets
// its iterators, and the clients build and vet in a module of their own
// (one go vet for all of them).
func TestPagingOverlaysOnRealSpecs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds four big real clients")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("..")
	mod := tempModule(t, "pages.test", root)
	for _, c := range pagedRealSpecs {
		spec := filepath.Join("..", "shared", "specs", "real", c.spec)
		if _, err := os.Stat(spec); err != nil {
			t.Fatalf("the corpus lacks %s: %v", c.spec, err)
		}
		pkg := "p" + goldenPackage(c.spec)
		res, err := Generate(context.Background(), Config{Spec: spec, Package: pkg, Overlays: []string{filepath.Join("testdata", "overlays", c.overlay)}})
		if err != nil {
			t.Fatalf("%s with %s: %v", c.spec, c.overlay, err)
		}
		for _, d := range res.Diags {
			if strings.Contains(d.File, c.overlay) {
				t.Errorf("%s: %s", c.overlay, d)
			}
		}
		paged := 0
		for _, op := range res.Model.Operations {
			if op.Paging != nil {
				paged++
			}
		}
		if want := strings.Count(readFile(t, filepath.Join("testdata", "overlays", c.overlay)), "- target:"); paged != want {
			t.Errorf("%s: %d paged operations, want the overlay's %d", c.spec, paged, want)
		}
		// A file of the package names each iterator, so a missing one
		// does not build.
		use := "package " + pkg + "\n\nvar (\n"
		for _, m := range c.methods {
			use += "\t_ = (*Client)." + m + "\n"
		}
		use += ")\n"
		dir := filepath.Join(mod, pkg)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, src := range map[string][]byte{"client.gen.go": res.Source, "use.go": []byte(use)} {
			if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet of the paged clients: %v\n%s", err, out)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPagingOverlayErrorsNameTheOverlay: a paging annotation an overlay
// adds is checked against the spec, and its mistake is reported at the
// overlay's file, line and column.
func TestPagingOverlayErrorsNameTheOverlay(t *testing.T) {
	t.Chdir("..")
	_, err := Generate(context.Background(), Config{Spec: "testdata/specs/petstore.yaml", Package: "x", Overlays: []string{"testdata/overlays/pages-mistake.yaml"}})
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("want an input error, got %v", err)
	}
	want := `testdata/overlays/pages-mistake.yaml:9:36: error: pagination of GET /pets: no query or header parameter "limt"; did you mean "limit"?`
	if got := strings.SplitN(ie.Diags[0].String(), "\n", 2)[0]; got != want || len(ie.Diags) != 1 {
		t.Fatalf("diagnostics %v, want one:\n%s", ie.Diags, want)
	}
}
