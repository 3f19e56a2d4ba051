package build

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/generator/policy"
)

// buildSpec runs the stages up to build on spec (YAML text) and fails the
// test on any error.
func buildSpec(t *testing.T, spec string) *model.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spec.yaml")
	s, diags, err := load.Load(context.Background(), path, []byte(spec), nil, nil)
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %v", err, diags)
	}
	r := policy.New(s)
	file, bdiags := Model(s, r, "x", "spec.yaml")
	if ds := append(r.Diags(), bdiags...); ds.HasErrors() {
		t.Fatal(ds)
	}
	return file
}
