package load

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resgen/resgen/generator/diag"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDefaultReadRoot: the spec's Go module, else its repository, else
// its own folder, symlinks resolved.
func TestDefaultReadRoot(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, tmp, map[string]string{
		"mod/go.mod":              "module m\n",
		"mod/api/v1/spec.yaml":    "",
		"repo/.git/HEAD":          "",
		"repo/specs/spec.yaml":    "",
		"repo/mod/go.mod":         "module m\n",
		"repo/mod/api/spec.yaml":  "",
		"plain/specs/spec.yaml":   "",
		"linked/target/spec.yaml": "",
	})
	if err := os.Symlink(filepath.Join(tmp, "mod", "api"), filepath.Join(tmp, "plain", "api")); err != nil {
		t.Fatal(err)
	}
	for spec, want := range map[string]string{
		"mod/api/v1/spec.yaml":   "mod",
		"repo/specs/spec.yaml":   "repo",
		"repo/mod/api/spec.yaml": "repo/mod",
		"plain/specs/spec.yaml":  "plain/specs",
		"plain/api/v1/spec.yaml": "mod", // through the symlink: where the file is
	} {
		got, err := defaultReadRoot(filepath.Join(tmp, spec))
		if err != nil {
			t.Fatal(err)
		}
		if rel, _ := filepath.Rel(tmp, got); rel != want {
			t.Errorf("%s: root %s, want %s", spec, rel, want)
		}
	}
}

const refToCommon = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /pets:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "../common/pet.yaml#/Pet"}
`

// moduleWithCommon is a module holding api/spec.yaml, which refers to
// ../common/pet.yaml.
func moduleWithCommon(t *testing.T) string {
	tmp := t.TempDir()
	writeFiles(t, tmp, map[string]string{
		"go.mod":          "module m\n",
		"api/spec.yaml":   refToCommon,
		"common/pet.yaml": "Pet: {type: object, properties: {name: {type: string}}}\n",
	})
	return tmp
}

// TestRefsBelowTheModuleLoad: a multi-file spec keeps working when its
// $refs go up (../common) but stay in the module, and stops at the module.
func TestRefsBelowTheModuleLoad(t *testing.T) {
	tmp := moduleWithCommon(t)
	if err := loadFile(t, filepath.Join(tmp, "api", "spec.yaml"), nil); err != nil {
		t.Fatalf("a $ref inside the module: %v", err)
	}
	// The same spec in a module of its own reaches out of it.
	writeFiles(t, tmp, map[string]string{"outside/go.mod": "module o\n", "outside/spec.yaml": refToCommon})
	outside := filepath.Join(tmp, "outside", "spec.yaml")
	err := loadFile(t, outside, nil)
	if !diag.IsInputError(err) || !strings.Contains(err.Error(), "outside the folders this spec may read") {
		t.Fatalf("a $ref out of the module: %v", err)
	}
	if err := loadFile(t, outside, []string{filepath.Join(tmp, "common")}); err != nil {
		t.Fatalf("with its folder allowed: %v", err)
	}
}

// loadFile loads the spec at path; bad input is an *InputError.
func loadFile(t *testing.T, path string, readRoots []string) error {
	t.Helper()
	data, err := ReadNamed(path)
	if err != nil {
		t.Fatal(err)
	}
	s, diags, err := Load(context.Background(), path, data, nil, readRoots)
	if err != nil {
		return err
	}
	if diags.HasErrors() || s == nil {
		return &diag.InputError{Diags: diags}
	}
	return nil
}

// TestReadBudget: the files of a run share one budget of bytes.
func TestReadBudget(t *testing.T) {
	spec := filepath.Join(moduleWithCommon(t), "api", "spec.yaml")
	g, diags := newReadGuard(spec, nil)
	if diags != nil {
		t.Fatal(diags)
	}
	g.read = maxReadBytes - 10 // as if other files had taken the rest
	_, diags, err := load(context.Background(), spec, []byte(refToCommon), nil, g)
	if err != nil || !diags.HasErrors() || !strings.Contains(diags.Error(), "MiB in all") {
		t.Fatalf("diags %v, err %v; want the budget exceeded", diags, err)
	}
	if d := diags[0]; d.File != spec || d.Line != 11 || d.Col != 24 {
		t.Errorf("the error is at %s:%d:%d, not at the $ref", d.File, d.Line, d.Col)
	}
}
