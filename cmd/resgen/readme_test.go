package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeAddToModule follows the README's "Add it to a module" steps
// for a local checkout, as a new user would in a fresh module: the
// go mod edit line and the go:generate line are taken from the README
// itself, so a README that stops working fails here.
func TestReadmeAddToModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a consumer module")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	edit := regexp.MustCompile(`(?s)go mod edit -replace github.com/resgen/resgen=\.\./resgen \\\n\s*(.*?)\n`).FindStringSubmatch(text)
	if edit == nil {
		t.Fatal("README: no `go mod edit -replace github.com/resgen/resgen=../resgen \\` line")
	}
	gen := regexp.MustCompile(`(?m)^//go:generate go tool resgen generate .*$`).FindString(text)
	if gen == "" {
		t.Fatal("README: no `//go:generate go tool resgen generate` line")
	}
	dir := t.TempDir()
	spec, err := os.ReadFile(filepath.Join(root, "testdata/specs/petstore.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(dir, "api.yaml"), string(spec))
	writeTestFile(t, filepath.Join(dir, "api/gen.go"), "package api\n\n"+gen+"\n")
	writeTestFile(t, filepath.Join(dir, "main.go"), `package main

import (
	"fmt"

	"example.com/consumer/api"
)

func main() {
	c, err := api.NewClient(api.DefaultServerURL)
	fmt.Println(c != nil, err)
}
`)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("mod", "init", "example.com/consumer")
	run(append([]string{"mod", "edit", "-replace", "github.com/resgen/resgen=" + root}, strings.Fields(edit[1])...)...)
	run("mod", "tidy")
	if out := run("tool", "resgen", "version"); !strings.HasPrefix(out, "resgen ") {
		t.Fatalf("go tool resgen version: %q", out)
	}
	run("generate", "./...")
	run("mod", "tidy")
	run("build", "./...")
	if out := run("run", "."); strings.TrimSpace(out) != "true <nil>" {
		t.Fatalf("consumer ran: %q", out)
	}
}

func writeTestFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReadmeSampleIsGenerated: the README's "What you get" sample is what
// resgen generates for the Petstore (golden/petstore), line for line and
// in order, the method shown by its signature.
func TestReadmeSampleIsGenerated(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)## What you get\n\n```go\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README: no go block under \"## What you get\"")
	}
	golden, err := os.ReadFile("../../golden/petstore/client.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(golden), "\n")
	at := 0
	for _, want := range strings.Split(strings.TrimRight(string(m[1]), "\n"), "\n") {
		found := false
		for ; at < len(lines); at++ {
			if got := lines[at]; got == want || strings.HasPrefix(want, "func ") && got == want+" {" {
				found = true
				at++
				break
			}
		}
		if !found {
			t.Fatalf("README sample line not in golden/petstore/client.gen.go (in order): %q", want)
		}
	}
}
