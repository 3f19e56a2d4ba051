package examples

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// job is one entry of resgen.yaml's jobs (the keys docs/config.md
// describes).
type job struct {
	Name     string   `yaml:"name"`
	Spec     string   `yaml:"spec"`
	Overlays []string `yaml:"overlays"`
	Package  string   `yaml:"package"`
	Output   string   `yaml:"output"`
	Split    string   `yaml:"split"`
	Strict   bool     `yaml:"strict"`
}

func readJobs(t *testing.T) []job {
	t.Helper()
	f, err := os.Open("resgen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cfg struct {
		Jobs []job `yaml:"jobs"`
	}
	dec := yaml.NewDecoder(f)
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		t.Fatalf("resgen.yaml: %v", err)
	}
	if len(cfg.Jobs) == 0 {
		t.Fatal("resgen.yaml: no jobs")
	}
	return cfg.Jobs
}

// goCmd runs go in dir with the module's own settings (no workspace).
func goCmd(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-buildvcs=false")
	return cmd.CombinedOutput()
}

// beforeConfig says whether resgen is a build that does not read
// resgen.yaml yet (one from before the config file), by its usage error.
func beforeConfig(out []byte) bool {
	return bytes.Contains(out, []byte("missing -spec, -package, -o"))
}

// TestGeneratedClientsAreCurrent: each job of resgen.yaml, run as flags
// with -check, finds the committed client current; so does resgen.yaml
// itself with `resgen generate -check`.
func TestGeneratedClientsAreCurrent(t *testing.T) {
	for _, j := range readJobs(t) {
		t.Run(j.Name, func(t *testing.T) {
			args := []string{"tool", "resgen", "generate", "-check", "-spec", j.Spec, "-package", j.Package, "-o", j.Output}
			for _, o := range j.Overlays {
				args = append(args, "-overlay", o)
			}
			if j.Split != "" {
				args = append(args, "-split", j.Split)
			}
			if j.Strict {
				args = append(args, "-strict")
			}
			if out, err := goCmd(".", args...); err != nil {
				t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		})
	}
	t.Run("resgen.yaml", func(t *testing.T) {
		out, err := goCmd(".", "tool", "resgen", "generate", "-check")
		if err != nil && beforeConfig(out) {
			t.Skip("this resgen does not read resgen.yaml yet")
		}
		if err != nil {
			t.Fatalf("go tool resgen generate -check: %v\n%s", err, out)
		}
	})
}

// TestGoGenerateIsIdempotent runs `go generate ./...` in a copy of this
// module and finds every file byte-identical to the committed one, no
// file added and none removed.
func TestGoGenerateIsIdempotent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds resgen and regenerates every client")
	}
	src, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	// The copy's replaces point where the module's do: make them absolute.
	out, err := goCmd(dst, "mod", "edit", "-json")
	if err != nil {
		t.Fatalf("go mod edit -json: %v\n%s", err, out)
	}
	var mod struct {
		Replace []struct{ Old, New struct{ Path string } }
	}
	if err := json.Unmarshal(out, &mod); err != nil {
		t.Fatal(err)
	}
	for _, r := range mod.Replace {
		if p := r.New.Path; strings.HasPrefix(p, ".") {
			if out, err := goCmd(dst, "mod", "edit", "-replace", r.Old.Path+"="+filepath.Join(src, p)); err != nil {
				t.Fatalf("go mod edit: %v\n%s", err, out)
			}
		}
	}
	if out, err := goCmd(dst, "generate", "./..."); err != nil {
		if beforeConfig(out) {
			t.Skip("this resgen does not read resgen.yaml yet")
		}
		t.Fatalf("go generate ./...: %v\n%s", err, out)
	}

	want := tree(t, src)
	got := tree(t, dst)
	// go.mod differs by the replaces just made absolute.
	delete(got, "go.mod")
	delete(want, "go.mod")
	for name, w := range want {
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("go generate removed %s", name)
		case !bytes.Equal(g, w):
			t.Errorf("go generate changed %s", name)
		}
		delete(got, name)
	}
	for name := range got {
		t.Errorf("go generate added %s", name)
	}
	for _, j := range readJobs(t) {
		if _, ok := want[filepath.ToSlash(j.Output)]; !ok && j.Split == "" {
			t.Errorf("job %s: %s is not committed", j.Name, j.Output)
		}
	}
}

// tree reads every regular file below dir, by its slash-separated path.
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
