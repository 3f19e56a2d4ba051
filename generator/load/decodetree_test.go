package load

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// kinLoad is the oracle: kin-openapi loading the file by itself, as a
// user of kin-openapi would.
func kinLoad(t *testing.T, path string, data []byte) *openapi3.T {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	doc, err := loader.LoadFromDataWithPath(data, &url.URL{Path: filepath.ToSlash(abs)})
	if err != nil {
		t.Fatalf("kin-openapi: %v", err)
	}
	if doc.Paths == nil {
		doc.Paths = openapi3.NewPaths() // as Load leaves it
	}
	return doc
}

// sameDoc fails unless both documents marshal to the same JSON, and every
// $ref of got resolved (Value set) where want's did.
func sameDoc(t *testing.T, got, want *openapi3.T) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(g, w) {
		i := 0
		for i < len(g) && i < len(w) && g[i] == w[i] {
			i++
		}
		lo := max(0, i-120)
		t.Fatalf("documents differ at byte %d:\n got  %s\n want %s", i, g[lo:min(len(g), i+120)], w[lo:min(len(w), i+120)])
	}
	if g, w := resolvedRefs(got), resolvedRefs(want); g != w {
		gl, wl := strings.Split(g, "\n"), strings.Split(w, "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("$refs resolve differently (line %d of %d):\n got  %s\n want %s", i, len(wl), gl[i], wl[i])
			}
		}
		t.Fatalf("$refs resolve differently: %d refs, want %d", len(gl), len(wl))
	}
}

// resolvedRefs describes how a document's $refs resolved: for every reference
// object (a struct with Ref and Value) on a walk in sorted order, its ref,
// whether it resolved, and which value it shares with others (build names
// types by pointer, so sharing matters as much as content).
func resolvedRefs(doc *openapi3.T) string {
	var b strings.Builder
	ids := map[uintptr]int{}
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() {
				return
			}
			if v.Kind() == reflect.Pointer {
				if _, seen := ids[v.Pointer()]; seen {
					return
				}
				ids[v.Pointer()] = len(ids)
			}
			walk(v.Elem(), path)
		case reflect.Struct:
			ref, val := v.FieldByName("Ref"), v.FieldByName("Value")
			if ref.IsValid() && ref.Kind() == reflect.String && val.IsValid() && val.Kind() == reflect.Pointer {
				id := -1
				if !val.IsNil() {
					if n, ok := ids[val.Pointer()]; ok {
						id = n
					} else {
						id = len(ids)
					}
				}
				fmt.Fprintf(&b, "%s ref=%q value=%d\n", path, ref.String(), id)
			}
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i), path+"."+v.Type().Field(i).Name)
				}
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		case reflect.Map:
			keys := v.MapKeys()
			sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
			for _, k := range keys {
				walk(v.MapIndex(k), fmt.Sprintf("%s[%v]", path, k))
			}
		}
	}
	walk(reflect.ValueOf(doc), "")
	return b.String()
}

func loadJSONFile(t *testing.T, path string, data []byte) *Spec {
	t.Helper()
	s, diags, err := Load(context.Background(), path, data, nil, nil)
	if err != nil || diags.HasErrors() {
		t.Fatalf("Load: %v %v", err, diags)
	}
	return s
}

const treeDoc = `{
  "openapi": "3.0.3",
  "info": {"title": "t\u00e9 ☕", "version": "1", "x-n": 12, "x-f": 1.5, "x-big": 123456789012345678901, "x-neg0": -0, "x-b": true, "x-null": null},
  "paths": {
    "/pets/{id}": {
      "parameters": [{"$ref": "#/components/parameters/id"}],
      "get": {
        "operationId": "getPet",
        "responses": {
          "200": {"$ref": "#/components/responses/pet"},
          "default": {"description": "err", "headers": {"X-R": {"$ref": "#/components/headers/r"}},
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Err"}, "examples": {"e": {"$ref": "#/components/examples/e"}}}}}
        },
        "callbacks": {"cb": {"$ref": "#/components/callbacks/cb"}}
      },
      "post": {
        "operationId": "addPet",
        "requestBody": {"$ref": "#/components/requestBodies/pet"},
        "responses": {"201": {"description": "ok", "links": {"l": {"$ref": "#/components/links/l"}}}},
        "security": [{"key": []}]
      }
    }
  },
  "components": {
    "schemas": {
      "Pet": {"oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}],
        "discriminator": {"propertyName": "kind", "mapping": {"cat": "#/components/schemas/Cat", "dog": "Dog"}}},
      "Cat": {"type": "object", "properties": {"kind": {"type": "string"}, "self": {"$ref": "#/components/schemas/Cat"}}},
      "Dog": {"type": "object", "properties": {"kind": {"type": "string", "enum": ["a", "b"]}, "n": {"type": "integer", "minimum": -1e3, "maximum": 1E+3}}},
      "Err": {"type": "object", "additionalProperties": {"type": "string"}, "required": ["m"], "properties": {"m": {"type": "string", "default": "x\n\t\"y\""}}}
    },
    "parameters": {"id": {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}},
    "responses": {"pet": {"description": "a pet", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}},
    "headers": {"r": {"schema": {"type": "integer"}}},
    "examples": {"e": {"value": {"m": "boom"}}},
    "requestBodies": {"pet": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}},
    "callbacks": {"cb": {"{$request.body#/url}": {"post": {"responses": {"200": {"description": "ok"}}}}}},
    "links": {"l": {"operationId": "getPet"}},
    "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}}
  }
}`

const yamlDoc = `openapi: 3.0.3
info: {title: t, version: '1', x-m: {a: 1}, x-t: x, x-n: 1.5e3}
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Pets'}
components:
  schemas:
    Pets: {type: array, items: {$ref: '#/components/schemas/Pet'}}
    Pet: {type: object, required: [id], properties: {id: {type: integer, format: int64}, tag: {type: string, nullable: true}}}
`

// TestDecodedTreeIsKinsOwnLoad: a JSON spec of one file is decoded from
// the tree load parsed, and the document is the one kin-openapi's own load
// gives; JSON that YAML does not read as JSON does, or a spec that names
// another file, is loaded by kin-openapi as before.
func TestDecodedTreeIsKinsOwnLoad(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte(`{"Dog": {"type": "object"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		doc  string
		tree bool // decoded from the tree
	}{
		{"every kind of component", treeDoc, true},
		{"YAML", yamlDoc, true},
		{"YAML with an integer key", strings.Replace(yamlDoc, `'200':`, `200:`, 1), false},
		{"YAML with an alias", strings.Replace(yamlDoc, `description: ok`, `description: &d ok`, 1) + "x-d: *d\n", false},
		{"YAML with a merge key", strings.Replace(yamlDoc, `x-m: {a: 1}`, `x-m: {<<: {a: 1}}`, 1), false},
		{"YAML with a timestamp", strings.Replace(yamlDoc, `x-t: x`, `x-t: 2020-06-11T16:32:50Z`, 1), false},
		{"YAML with a local tag", strings.Replace(yamlDoc, `x-t: x`, `x-t: !foo x`, 1), false},
		{"YAML with U+0085", strings.Replace(yamlDoc, `x-t: x`, "x-t: \"x\u0085y\"", 1), false},
		{"surrogate escape", strings.Replace(treeDoc, `"t\u00e9`, `"t\ud83d\ude00`, 1), false},
		{"raw DEL", strings.Replace(treeDoc, `"t\u00e9`, "\"t\x7f", 1), false},
		{"raw C1 control", strings.Replace(treeDoc, `"t\u00e9`, "\"t\u0086", 1), false},
		{"a $ref to another file", strings.Replace(treeDoc, `"#/components/schemas/Err"`, `"other.json#/Dog"`, 1), false},
		{"a mapping to another file", strings.Replace(treeDoc, `"dog": "Dog"`, `"dog": "other.json#/Dog"`, 1), false},
		{"a long key", strings.Replace(treeDoc, `"x-n"`, `"x-`+strings.Repeat("n", 1100)+`"`, 1), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, "spec.json")
			if strings.HasPrefix(c.name, "YAML") {
				path = filepath.Join(dir, "spec.yaml")
			}
			if err := os.WriteFile(path, []byte(c.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			s := loadJSONFile(t, path, []byte(c.doc))
			if s.decodedTree != c.tree {
				t.Fatalf("decoded from the tree: %v, want %v", s.decodedTree, c.tree)
			}
			sameDoc(t, s.Doc, kinLoad(t, path, []byte(c.doc)))
		})
	}
}

// TestDecodedTreeOnRealSpecs compares the document with kin-openapi's own
// load for the corpus's specs of one file under 2 MB (every one with
// RESGEN_CORPUS=all); skipped without ../shared.
func TestDecodedTreeOnRealSpecs(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/specs/real/*.json")
	yamls, _ := filepath.Glob("../../../shared/specs/real/*.yaml")
	files = append(files, yamls...)
	if len(files) == 0 {
		t.Skip("no ../shared/specs/real")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) >= 2<<20 && os.Getenv("RESGEN_CORPUS") != "all" || testing.Short() && len(data) > 100<<10 {
			continue
		}
		if len(data) > raceSpecLimit {
			t.Logf("%s: %d bytes, compared in make test's run without -race", filepath.Base(f), len(data))
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			s := loadJSONFile(t, f, data)
			if s.Swagger {
				return
			}
			if _, err := openapi3.NewLoader().LoadFromData(data); err != nil {
				if s.decodedTree {
					t.Fatal("decoded from the tree a spec kin-openapi refuses")
				}
				t.Skipf("kin-openapi refuses it (resgen repairs it): %v", err)
			}
			if want := treeIsKins(s.src.source, data, s.src.tree()); s.decodedTree != want {
				t.Fatalf("decoded from the tree: %v, want %v", s.decodedTree, want)
			}
			t.Logf("decoded from the tree: %v", s.decodedTree)
			if strings.HasSuffix(f, ".json") && !s.decodedTree {
				t.Fatal("a JSON spec not decoded from the tree")
			}
			sameDoc(t, s.Doc, kinLoad(t, f, data))
		})
	}
}
