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
	r := policy.Resolve(s)
	file, bdiags := Model(s, r, "x", "spec.yaml")
	if ds := append(r.Diags(), bdiags...); ds.HasErrors() {
		t.Fatal(ds)
	}
	return file
}

// TestModelNodesCarryPositions: a component schema's type and an
// operation carry where the spec writes them.
func TestModelNodesCarryPositions(t *testing.T) {
	file := buildSpec(t, `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Pet"}}}}
components:
  schemas:
    Pet:
      type: object
      properties: {name: {type: string}}
`)
	want := map[string]model.Pos{"Pet": {File: "spec.yaml", Line: 11, Col: 5}}
	for _, ty := range file.Types {
		if w, ok := want[ty.Name]; ok && (ty.Pos.Line != w.Line || ty.Pos.Col != w.Col || filepath.Base(ty.Pos.File) != w.File) {
			t.Errorf("type %s at %+v, want %+v", ty.Name, ty.Pos, w)
		}
	}
	if op := file.Operations[0]; op.Pos.Line != 5 || op.Pos.Col != 5 {
		t.Errorf("operation %s at %+v, want line 5, column 5", op.ID, op.Pos)
	}
}
