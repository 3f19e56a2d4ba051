package load

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/internal/jsontree"
	yaml "go.yaml.in/yaml/v4"
)

// loadSpecFile writes data as dir/name and loads it with the overlays.
func loadSpecFile(t *testing.T, name, data string, overlays ...Overlay) *Spec {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	s, ds, err := Load(context.Background(), path, []byte(data), overlays, nil)
	if err != nil || ds.HasErrors() {
		t.Fatalf("load: %v %v", err, ds)
	}
	return s
}

func wantPos(t *testing.T, s *Spec, ptr string, want model.Pos) {
	t.Helper()
	if got := s.Pos(ptr); got != want {
		t.Errorf("Pos(%q) = %+v, want %+v", ptr, got, want)
	}
	// Diag places a diagnostic where Pos does.
	d := s.Diag(diag.Warning, ptr, "m", "")
	if d.File != want.File || d.Line != want.Line || d.Col != want.Col || d.Pointer != "#"+ptr {
		t.Errorf("Diag(%q) = %s:%d:%d %s, want %+v", ptr, d.File, d.Line, d.Col, d.Pointer, want)
	}
}

const petsYAML = `openapi: 3.0.3
info: {title: pets, version: "1"}
paths:
  /pets/{id}:
    get:
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        "200": {description: ok}
`

// TestPosInAYAMLSpec: a pointer names the key the author wrote (escapes
// undone); a list element names the element.
func TestPosInAYAMLSpec(t *testing.T) {
	s := loadSpecFile(t, "pets.yaml", petsYAML)
	f := s.File
	wantPos(t, s, "/paths/~1pets~1{id}/get", model.Pos{File: f, Line: 5, Col: 5})
	wantPos(t, s, "/paths/~1pets~1{id}/get/responses/200", model.Pos{File: f, Line: 9, Col: 9})
	wantPos(t, s, "/paths/~1pets~1{id}/get/parameters/0", model.Pos{File: f, Line: 7, Col: 11})
	wantPos(t, s, "/paths/~1pets~1{id}/get/parameters/0/in", model.Pos{File: f, Line: 7, Col: 22})
	wantPos(t, s, "/info/title", model.Pos{File: f, Line: 2, Col: 8})
	wantPos(t, s, "", model.Pos{File: f, Line: 1, Col: 1})
}

// TestPosMissingKeyLandsOnItsParent: the nearest node that exists; a
// missing top-level key has no line.
func TestPosMissingKeyLandsOnItsParent(t *testing.T) {
	s := loadSpecFile(t, "pets.yaml", petsYAML)
	f := s.File
	wantPos(t, s, "/paths/~1pets~1{id}/get/x-resilience/retry", model.Pos{File: f, Line: 5, Col: 5})
	wantPos(t, s, "/paths/~1pets~1{id}/get/parameters/7/schema", model.Pos{File: f, Line: 6, Col: 7})
	wantPos(t, s, "/paths/~1nowhere", model.Pos{File: f, Line: 3, Col: 1})
	wantPos(t, s, "/components", model.Pos{File: f})
}

// TestPosInAJSONSpec: a JSON spec gets its positions without a YAML parse,
// and they are the ones yaml.v4 gives for the same text: columns count
// runes, also after multi-byte characters and escapes.
func TestPosInAJSONSpec(t *testing.T) {
	const spec = `{"openapi": "3.0.3",
 "info": {"title": "café ☕ \u00e9\"", "version": "1"},
  "paths": {"/ünï/{id}": {"get": {"summary": "日本語", "operationId": "x",
    "responses": {"200": {"description": "ok"}}}}}}
`
	if _, err := jsontree.Parse([]byte(spec)); err != nil {
		t.Fatalf("jsontree refuses the spec, so this would test the YAML fallback: %v", err)
	}
	s := loadSpecFile(t, "pets.json", spec)
	f := s.File
	// 2 + `"info": {` + `"title": "café ☕ \u00e9\"", ` in runes.
	wantPos(t, s, "/info/version", model.Pos{File: f, Line: 2, Col: 39})
	wantPos(t, s, "/paths/~1ünï~1{id}/get/operationId", model.Pos{File: f, Line: 3, Col: 53})

	// Every key and element where yaml.v4 puts it.
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(spec), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	var walk func(y *yaml.Node, ptr string)
	walk = func(y *yaml.Node, ptr string) {
		switch y.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(y.Content); i += 2 {
				k := y.Content[i]
				p := diag.PointerJoin(ptr, k.Value)
				wantPos(t, s, p, model.Pos{File: f, Line: k.Line, Col: k.Column})
				n++
				walk(y.Content[i+1], p)
			}
		case yaml.SequenceNode:
			for i, e := range y.Content {
				walk(e, diag.PointerJoin(ptr, strconv.Itoa(i)))
			}
		}
	}
	walk(doc.Content[0], "")
	if n < 12 {
		t.Errorf("compared %d keys", n)
	}
}

// TestPosOfAnOverlayNode: a node an overlay added reports the overlay's
// file and line; a key the spec had keeps the spec's, whatever the overlay
// put under it.
func TestPosOfAnOverlayNode(t *testing.T) {
	overlay := `overlay: 1.0.0
info: {title: o, version: "1"}
actions:
  - target: $.paths['/pets/{id}'].get
    update:
      summary: read
      x-resilience: {retry: none}
      responses:
        "404": {description: gone}
`
	dir := t.TempDir()
	op := filepath.Join(dir, "o.yaml")
	s := loadSpecFile(t, "pets.yaml", petsYAML, Overlay{Path: op, Data: []byte(overlay)})
	wantPos(t, s, "/paths/~1pets~1{id}/get/x-resilience/retry", model.Pos{File: op, Line: 7, Col: 22})
	wantPos(t, s, "/paths/~1pets~1{id}/get/summary", model.Pos{File: op, Line: 6, Col: 7})
	wantPos(t, s, "/paths/~1pets~1{id}/get/responses/404", model.Pos{File: op, Line: 9, Col: 9})
	// A missing key below an added node lands on the added node.
	wantPos(t, s, "/paths/~1pets~1{id}/get/x-resilience/breaker", model.Pos{File: op, Line: 7, Col: 7})
	// responses was the spec's: merged into, it stays where the spec has it.
	wantPos(t, s, "/paths/~1pets~1{id}/get/responses", model.Pos{File: s.File, Line: 8, Col: 7})
	wantPos(t, s, "/paths/~1pets~1{id}/get/responses/200", model.Pos{File: s.File, Line: 9, Col: 9})
}
