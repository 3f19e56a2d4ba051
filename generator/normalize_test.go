package generator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSpec writes files (name → text) into a fresh folder and returns
// the path of the first name, the spec.
func writeSpec(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for i := 0; i+1 < len(files); i += 2 {
		p := filepath.Join(dir, files[i])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(files[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, files[0])
}

// diagLines are the diagnostics' first lines, without the folder.
func diagLines(ds Diagnostics, dir string) string {
	var out []string
	for _, d := range ds {
		out = append(out, strings.TrimPrefix(strings.SplitN(d.String(), "\n", 2)[0], dir+string(filepath.Separator)))
	}
	return strings.Join(out, "\n")
}

const opGetX = `
paths:
  /x:
    get:
      operationId: getX
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/X"}
`

// TestLoadRepairsEdges: the cases around the loading repairs that the
// testdata specs do not show: what they must leave alone, and the
// variants of each shape.
func TestLoadRepairsEdges(t *testing.T) {
	cases := []struct {
		name  string
		files []string
		want  string // diagnostics, one a line; "" for none
		err   bool
		check func(t *testing.T, src string)
	}{
		{"[] inside an example stays a list", []string{"s.yaml", "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}" + opGetX + `        "204": []
components:
  schemas:
    X: {type: object, properties: {properties: {type: array, items: {}}}, example: {properties: []}}
`}, `s.yaml:13:16: warning: repaired: 204 is [], an empty list where an object belongs (PHP's JSON encoder writes an empty object so); it is read as {}`, false, nil},
		{"$defs of a schema with $id are what JSON Schema means", []string{"s.yaml", "openapi: 3.1.0\ninfo: {title: t, version: \"1\"}" + opGetX + `components:
  schemas:
    X:
      $id: https://example.com/x
      type: object
      $defs: {Y: {type: object, properties: {n: {type: integer}}}}
      properties: {y: {$ref: "#/$defs/Y"}}
`}, "", false, func(t *testing.T, src string) {
			if !strings.Contains(src, "Y *Y") {
				t.Error("y is not typed as Y")
			}
		}},
		{"a $defs $ref no enclosing schema holds is dangling", []string{"s.yaml", "openapi: 3.1.0\ninfo: {title: t, version: \"1\"}" + opGetX + `components:
  schemas:
    X:
      type: object
      $defs: {Y: {type: string}}
      properties: {z: {$ref: "#/$defs/Z"}}
`}, `s.yaml:18:24: warning: $ref "#/$defs/Z" names nothing in this document; the value is left untyped (json.RawMessage), so the other operations can still be called`, false, nil},
		{"draft 7's definitions, as Pydantic 1 wrote them", []string{"s.yaml", "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}" + opGetX + `components:
  schemas:
    X:
      type: object
      definitions: {Y: {type: object, properties: {n: {type: integer}}}}
      properties: {y: {$ref: "#/definitions/Y"}}
`}, `s.yaml:18:24: warning: $ref "#/definitions/Y" is read in the definitions of the schema that holds it, #/components/schemas/X; by JSON Schema's rules it names the document's root, which has no definitions (no enclosing schema has an $id)`, false, func(t *testing.T, src string) {
			if !strings.Contains(src, "Y *Y") {
				t.Error("y is not typed as Y")
			}
		}},
		{"a property called $ref is a name", []string{"s.yaml", "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}" + opGetX + `        "204": []
components:
  schemas:
    X: {type: object, properties: {$ref: {type: string}}}
`}, `s.yaml:13:16: warning: repaired: 204 is [], an empty list where an object belongs (PHP's JSON encoder writes an empty object so); it is read as {}`, false, nil},
		{"Swagger 2.0 definitions from a file, and a dangling one", []string{"s.yaml", `swagger: "2.0"
info: {title: t, version: "1"}
paths:
  /x:
    get:
      operationId: getX
      responses:
        "200": {description: ok, schema: {$ref: "#/definitions/X"}}
definitions:
  $ref: ./defs.yaml
`, "defs.yaml", `X:
  type: object
  properties:
    y: {$ref: "#/Y"}
    gone: {$ref: "#/Gone"}
Y: {type: string}
`}, `defs.yaml:5:12: warning: $ref "#/Gone" names nothing in this document; the value is left untyped (json.RawMessage), so the other operations can still be called`, false, func(t *testing.T, src string) {
			if !strings.Contains(src, "Y    *Y") || !strings.Contains(src, "Gone json.RawMessage") {
				t.Error("X's properties are not Y and json.RawMessage")
			}
		}},
		{"a name both beside the $ref and in its map", []string{"s.yaml", "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}" + opGetX + `components:
  schemas:
    X: {type: string}
    $ref: ./schemas.yaml
`, "schemas.yaml", "Y: {type: string}\nX: {type: integer}\n"}, `s.yaml:16:5: error: $ref "./schemas.yaml" stands for the map at /components/schemas: "X" is also written here, at line 15`, true, nil},
		{"a map $ref to a map of the spec itself", []string{"s.yaml", "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}" + opGetX + `components:
  schemas: {$ref: "#/x-shared"}
x-shared:
  X: {type: object, properties: {y: {type: integer}}}
`}, "", false, func(t *testing.T, src string) {
			if !strings.Contains(src, "type X struct") {
				t.Error("no type X")
			}
		}},
		{"a map $ref to the map that holds it", []string{"s.yaml", "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}" + opGetX + `components:
  schemas: {X: {type: string}, $ref: "#/components"}
`}, `s.yaml:14:32: error: $ref "#/components" stands for the map at /components/schemas: it names the map that holds it`, true, nil},
		{"an operation $ref whose discriminator maps to files of its folder", []string{"s.yaml", `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /x:
    get: {$ref: ops/get.yaml}
`, "ops/get.yaml", `operationId: getX
responses:
  "200":
    description: ok
    content:
      application/json:
        schema:
          oneOf: [{$ref: models/a.yaml}, {$ref: models/b.yaml}]
          discriminator: {propertyName: kind, mapping: {a: models/a.yaml, b: models/b.yaml}}
`, "ops/models/a.yaml", "{type: object, required: [kind], properties: {kind: {type: string}, a: {type: integer}}}\n",
			"ops/models/b.yaml", "{type: object, required: [kind], properties: {kind: {type: string}, b: {type: string}}}\n"},
			`s.yaml:5:11: warning: $ref "ops/get.yaml" stands for an operation: OpenAPI allows no $ref there (kin-openapi reads an empty operation); resgen reads what it names in its place, as the author meant`, false, func(t *testing.T, src string) {
				if !strings.Contains(src, "func (c *Client) GetX(") || !strings.Contains(src, `case "b":`) {
					t.Error("no method GetX, or no variant for discriminator value b")
				}
			}},
		{"a media type written as a $ref", []string{"s.yaml", `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /x:
    post:
      operationId: postX
      requestBody:
        content:
          application/json: {$ref: "media.yaml#/thing"}
      responses:
        "204": {description: ok}
`, "media.yaml", "thing:\n  schema: {type: object, required: [n], properties: {n: {type: integer}}}\n"},
			`s.yaml:9:30: warning: $ref "media.yaml#/thing" stands for a media type: OpenAPI allows no $ref there (kin-openapi reads a media type without a schema); resgen reads what it names in its place, as the author meant`, false, func(t *testing.T, src string) {
				if !strings.Contains(src, "body *PostXBody") {
					t.Error("the body is not PostXBody")
				}
			}},
		{"a dangling $ref in a referenced file", []string{"s.yaml", "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}" + opGetX + `components:
  schemas:
    X: {$ref: "./x.yaml"}
`, "x.yaml", "type: object\nproperties:\n  y: {$ref: \"#/components/schemas/Y\"}\n"}, `x.yaml:3:7: warning: $ref "#/components/schemas/Y" names nothing in this document; the value is left untyped (json.RawMessage), so the other operations can still be called`, false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := writeSpec(t, c.files...)
			res, err := Generate(context.Background(), Config{Spec: spec, Package: "p"})
			var diags Diagnostics
			switch ie := err.(type) {
			case nil:
				diags = res.Diags
			case *InputError:
				diags = ie.Diags
			default:
				t.Fatal(err)
			}
			if (err != nil) != c.err {
				t.Fatalf("error %v, want one: %v", err, c.err)
			}
			if got := diagLines(diags, filepath.Dir(spec)); got != c.want {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", got, c.want)
			}
			if c.check != nil && res != nil {
				c.check(t, string(res.Source))
			}
		})
	}
}
