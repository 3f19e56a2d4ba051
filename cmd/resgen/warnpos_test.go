package main

import (
	"os"
	"strings"
	"testing"
)

// TestSchemaWarningsCarryPositions: the CLI prints a warning about a
// schema as file:line:col: warning: ..., at the schema in the file that
// writes it, a file a $ref reads too, and at the Swagger 2.0 document for
// a converted spec; lint prints the same.
func TestSchemaWarningsCarryPositions(t *testing.T) {
	t.Chdir(t.TempDir())
	for name, content := range map[string]string{
		"spec.yaml": `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "ext.yaml#/Pet"}
components:
  schemas:
    Req: {type: object, properties: {a: {type: string}}, required: [a, b]}
`,
		"ext.yaml": `Pet:
  type: object
  properties:
    kind: {type: string, properties: {x: {type: string}}}
`,
		"swagger.yaml": `swagger: "2.0"
info: {title: t, version: "1"}
paths: {}
definitions:
  Pet:
    type: object
    properties:
      kind: {type: string, properties: {x: {type: string}}}
`,
	} {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		spec string
		want []string
	}{
		{"spec.yaml", []string{
			"spec.yaml:15:58: warning: required keys no property declares (b): each is a json.RawMessage field, always sent (null when unset)\n",
			"ext.yaml:4:26: warning: type string with properties (x): properties apply to objects only; the value is typed as string and they are ignored\n",
		}},
		{"swagger.yaml", []string{
			"swagger.yaml:8:28: warning: type string with properties (x): properties apply to objects only; the value is typed as string and they are ignored\n",
		}},
	} {
		for _, args := range [][]string{
			{"generate", "-spec", c.spec, "-package", "x", "-o", "out/client.gen.go"},
			{"lint", "-spec", c.spec},
		} {
			code, _, stderr := runCLI(t, args...)
			if code != exitOK {
				t.Fatalf("resgen %s: exit %d: %s", strings.Join(args, " "), code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("resgen %s: stderr lacks\n%s\ngot:\n%s", strings.Join(args, " "), w, stderr)
				}
			}
			if n := strings.Count(stderr, ": warning: "); n != len(c.want) {
				t.Errorf("resgen %s: %d warnings, want %d:\n%s", strings.Join(args, " "), n, len(c.want), stderr)
			}
		}
	}
}
