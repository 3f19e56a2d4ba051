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
	// The quick start has a go:generate line of its own (scripts/newcomer.sh runs that one).
	at := strings.Index(text, "## Add it to a module")
	if at < 0 {
		t.Fatal(`README: no "## Add it to a module" section`)
	}
	text = text[at:]
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

// TestReadmeQuickStartIsNewcomerScript: scripts/newcomer.sh, which CI
// runs, performs the README's "Quick start" and nothing else: each of its
// steps is a command of the quick start (its output may be kept with
// `| tee FILE`), a file the quick start shows (cut from the README by
// readme_file), a quick-start command it says it does not run and why, or
// a line marked "# not in README"; and each command and file of the quick
// start is one of its steps.
func TestReadmeQuickStartIsNewcomerScript(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := regexp.MustCompile(`(?s)\n## Quick start\n(.*?)\n## `).FindSubmatch(readme)
	if section == nil {
		t.Fatal(`README: no "## Quick start" section`)
	}
	commands := map[string]bool{} // command -> seen in the script
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllSubmatch(section[1], -1) {
		for _, line := range strings.Split(strings.TrimSpace(string(block[1])), "\n") {
			commands[stepText(line)] = false
		}
	}
	files := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)`([^`]+)`:\n\n```").FindAllSubmatch(section[1], -1) {
		files[string(m[1])] = false
	}
	if len(commands) == 0 || len(files) == 0 {
		t.Fatalf("README quick start: %d commands, %d files", len(commands), len(files))
	}

	script, err := os.ReadFile("../../scripts/newcomer.sh")
	if err != nil {
		t.Fatal(err)
	}
	steps := regexp.MustCompile(`(?s)\n# --- README quick start ---\n(.*?)\n# --- end ---\n`).FindSubmatch(script)
	if steps == nil {
		t.Fatal("scripts/newcomer.sh: no `# --- README quick start ---` ... `# --- end ---` steps")
	}
	tee := regexp.MustCompile(` \| tee \S+$`)
	for _, line := range strings.Split(string(steps[1]), "\n") {
		line = strings.TrimSpace(line)
		var seen map[string]bool
		var key string
		switch {
		case line == "", strings.Contains(line, "# not in README"):
			continue
		case strings.HasPrefix(line, "# README, not run: "):
			seen, key = commands, strings.TrimPrefix(line, "# README, not run: ")
		case strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "readme_file "):
			seen, key = files, strings.TrimPrefix(line, "readme_file ")
		default:
			seen, key = commands, tee.ReplaceAllString(stepText(line), "")
		}
		if _, ok := seen[key]; !ok {
			t.Errorf("scripts/newcomer.sh step not in the README's quick start: %q", line)
			continue
		}
		seen[key] = true
	}
	for cmd, ok := range commands {
		if !ok {
			t.Errorf("README quick-start command not in scripts/newcomer.sh: %q", cmd)
		}
	}
	for name, ok := range files {
		if !ok {
			t.Errorf("README quick-start file not written by scripts/newcomer.sh: %q", name)
		}
	}
}

// stepText is a shell line without its trailing comment or spaces.
func stepText(line string) string {
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	return strings.TrimSpace(line)
}
