package build

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/generator/policy"
)

// warningsOf loads files (name → content; the root is spec) from a
// temporary folder, as the CLI would from there, and builds the model:
// the warnings of load, policy and build.
func warningsOf(t *testing.T, spec string, files map[string]string) diag.Diagnostics {
	t.Helper()
	t.Chdir(t.TempDir())
	for name, content := range files {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	s, diags, err := load.Load(context.Background(), spec, data, nil, nil)
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %v", err, diags)
	}
	r := policy.Resolve(s)
	_, bdiags := Model(s, r, "x", spec)
	return append(append(diags, r.Diags()...), bdiags...)
}

// placed is a warning of one kind: the one warning whose message holds
// msg must be at at (file:line:col), where the file holds token.
type placed struct {
	kind, msg, at, token string
}

// checkPlaced checks that the warnings are exactly want, each at its
// place, and that the text there is what the warning is about (so a
// position is checked against the file, not only against a number).
func checkPlaced(t *testing.T, ds diag.Diagnostics, want []placed) {
	t.Helper()
	for _, w := range want {
		t.Run(w.kind, func(t *testing.T) {
			var found []string
			for _, d := range ds {
				if strings.Contains(d.Msg, w.msg) {
					found = append(found, fmt.Sprintf("%s:%d:%d", d.File, d.Line, d.Col))
				}
			}
			if len(found) != 1 || found[0] != w.at {
				t.Fatalf("warning %q at %v, want once at %s\nall:\n%s", w.msg, found, w.at, listOf(ds))
			}
			parts := strings.Split(w.at, ":")
			line, _ := strconv.Atoi(parts[1])
			col, _ := strconv.Atoi(parts[2])
			data, err := os.ReadFile(parts[0])
			if err != nil {
				t.Fatal(err)
			}
			if text := strings.Split(string(data), "\n")[line-1]; !strings.HasPrefix(text[col-1:], w.token) {
				t.Errorf("%s holds %q, want %q", w.at, text[col-1:], w.token)
			}
		})
	}
	if len(ds) != len(want) {
		t.Errorf("%d warnings, want %d:\n%s", len(ds), len(want), listOf(ds))
	}
}

func listOf(ds diag.Diagnostics) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String() + "\n")
	}
	return b.String()
}

// The same schemas, written as YAML, as JSON and in a file a $ref reads:
// every warning about a schema, a property, an enum value or a Go name is
// at what it is about. A name clash names where the holder of the name is.

const yamlRoot = `openapi: 3.0.3
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
              schema:
                type: object
                properties:
                  code: {type: string, properties: {a: {type: string}}}
components:
  schemas:
    Pet:
      type: object
      properties:
        size: {type: string, enum: [x-large, x_large]}
        n: {type: integer, format: int32, enum: [1, 3000000000]}
        pet_id: {type: string}
        petId: {type: string}
        other: {$ref: "ext.yaml#/Pet"}
    pet:
      type: string
    Req:
      type: object
      properties: {a: {type: string}}
      required: [a, b]
    Not:
      not: {type: string}
`

const yamlExt = `Pet:
  type: object
  properties:
    kind: {type: string, properties: {x: {type: string}}}
    pet_id: {type: string}
    petId: {type: string}
`

func TestWarningPositionsYAML(t *testing.T) {
	ds := warningsOf(t, "spec.yaml", map[string]string{"spec.yaml": yamlRoot, "ext.yaml": yamlExt})
	checkPlaced(t, ds, []placed{
		{"schema name clash", `schema "pet" is named Pet2 in Go: Pet is taken by schema "Pet" (at spec.yaml:18:5)`, "spec.yaml:26:5", "pet:"},
		{"property name clash", `property "pet_id" of Pet is named PetID2 in Go: PetID is taken by property "petId" of Pet (at spec.yaml:24:9)`, "spec.yaml:23:9", "pet_id:"},
		{"enum constant clash", `PetSizeXLarge is taken by the constant of PetSize's enum value "x-large" (at spec.yaml:21:37)`, "spec.yaml:21:46", "x_large"},
		{"enum value without a constant", "PetN's enum value 3000000000 does not fit an int32", "spec.yaml:22:53", "3000000000"},
		{"properties of a string", "type string with properties (a)", "spec.yaml:15:40", "properties:"},
		{"required keys undeclared", "required keys no property declares (b)", "spec.yaml:31:7", "required:"},
		{"ignored keyword", "unsupported: 1 schema uses not;", "spec.yaml:33:7", "not:"},
		{"external schema name clash", `schema ext.yaml#/Pet is named Pet3 in Go: Pet is taken by schema "Pet" (at spec.yaml:18:5)`, "ext.yaml:1:1", "Pet:"},
		{"external properties of a string", "type string with properties (x)", "ext.yaml:4:26", "properties:"},
		{"external property name clash", `property "pet_id" of Pet3 is named PetID2 in Go: PetID is taken by property "petId" of Pet3 (at ext.yaml:6:5)`, "ext.yaml:5:5", "pet_id:"},
	})
}

func TestWarningPositionsJSON(t *testing.T) {
	ds := warningsOf(t, "spec.json", map[string]string{"spec.json": jsonRoot, "ext.json": jsonExt})
	checkPlaced(t, ds, []placed{
		{"schema name clash", `schema "pet" is named Pet2 in Go: Pet is taken by schema "Pet" (at spec.json:38:4)`, "spec.json:67:4", `"pet":`},
		{"property name clash", `property "pet_id" of Pet is named PetID2 in Go: PetID is taken by property "petId" of Pet (at spec.json:59:6)`, "spec.json:56:6", `"pet_id":`},
		{"enum constant clash", `PetSizeXLarge is taken by the constant of PetSize's enum value "x-large" (at spec.json:44:8)`, "spec.json:45:8", `"x_large"`},
		{"enum value without a constant", "PetN's enum value 3000000000 does not fit an int32", "spec.json:53:8", "3000000000"},
		{"properties of a string", "type string with properties (a)", "spec.json:21:12", `"properties":`},
		{"required keys undeclared", "required keys no property declares (b)", "spec.json:77:5", `"required":`},
		{"ignored keyword", "unsupported: 1 schema uses not;", "spec.json:83:5", `"not":`},
		{"external schema name clash", `schema ext.json#/Pet is named Pet3 in Go: Pet is taken by schema "Pet" (at spec.json:38:4)`, "ext.json:2:2", `"Pet":`},
		{"external properties of a string", "type string with properties (x)", "ext.json:7:5", `"properties":`},
		{"external property name clash", `property "pet_id" of Pet3 is named PetID2 in Go: PetID is taken by property "petId" of Pet3 (at ext.json:16:4)`, "ext.json:13:4", `"pet_id":`},
	})
}

// jsonRoot and jsonExt are yamlRoot and yamlExt as JSON, one key a line.
const jsonRoot = `{
 "openapi": "3.0.3",
 "info": {
  "title": "t",
  "version": "1"
 },
 "paths": {
  "/pets": {
   "get": {
    "operationId": "listPets",
    "responses": {
     "200": {
      "description": "ok",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "code": {
           "type": "string",
           "properties": {
            "a": {
             "type": "string"
            }
           }
          }
         }
        }
       }
      }
     }
    }
   }
  }
 },
 "components": {
  "schemas": {
   "Pet": {
    "type": "object",
    "properties": {
     "size": {
      "type": "string",
      "enum": [
       "x-large",
       "x_large"
      ]
     },
     "n": {
      "type": "integer",
      "format": "int32",
      "enum": [
       1,
       3000000000
      ]
     },
     "pet_id": {
      "type": "string"
     },
     "petId": {
      "type": "string"
     },
     "other": {
      "$ref": "ext.json#/Pet"
     }
    }
   },
   "pet": {
    "type": "string"
   },
   "Req": {
    "type": "object",
    "properties": {
     "a": {
      "type": "string"
     }
    },
    "required": [
     "a",
     "b"
    ]
   },
   "Not": {
    "not": {
     "type": "string"
    }
   }
  }
 }
}
`

const jsonExt = `{
 "Pet": {
  "type": "object",
  "properties": {
   "kind": {
    "type": "string",
    "properties": {
     "x": {
      "type": "string"
     }
    }
   },
   "pet_id": {
    "type": "string"
   },
   "petId": {
    "type": "string"
   }
  }
 }
}
`

// TestWarningPositionsSwagger2: warnings about a Swagger 2.0 spec are at
// the 2.0 document the user wrote, not the OpenAPI 3 one it is converted
// to: definitions, a body parameter's schema, a query parameter's own
// keywords (its index shifted by the body parameter before it), a
// response's schema.
func TestWarningPositionsSwagger2(t *testing.T) {
	ds := warningsOf(t, "swagger.yaml", map[string]string{"swagger.yaml": `swagger: "2.0"
info: {title: t, version: "1"}
consumes: [application/json]
produces: [application/json]
paths:
  /pets/{id}:
    parameters:
      - {name: id, in: path, required: true, type: string}
    post:
      operationId: addPet
      parameters:
        - name: body
          in: body
          schema:
            type: object
            properties:
              code: {type: string, properties: {a: {type: string}}}
        - {name: mode, in: query, type: string, enum: [x-large, x_large]}
      responses:
        "200":
          description: ok
          schema:
            type: object
            properties:
              kind: {type: integer, properties: {b: {type: string}}}
definitions:
  Pet:
    type: object
    properties:
      size: {type: string, enum: [x-large, x_large]}
      n: {type: integer, format: int32, enum: [1, 3000000000]}
      pet_id: {type: string}
      petId: {type: string}
  pet:
    type: string
  Req:
    type: object
    properties: {a: {type: string}}
    required: [a, b]
`})
	checkPlaced(t, ds, []placed{
		{"schema name clash", `schema "pet" is named Pet2 in Go: Pet is taken by schema "Pet" (at swagger.yaml:27:3)`, "swagger.yaml:34:3", "pet:"},
		{"property name clash", `property "pet_id" of Pet is named PetID2 in Go: PetID is taken by property "petId" of Pet (at swagger.yaml:33:7)`, "swagger.yaml:32:7", "pet_id:"},
		{"enum constant clash", `PetSizeXLarge is taken by the constant of PetSize's enum value "x-large" (at swagger.yaml:30:35)`, "swagger.yaml:30:44", "x_large"},
		{"enum value without a constant", "PetN's enum value 3000000000 does not fit an int32", "swagger.yaml:31:51", "3000000000"},
		{"required keys undeclared", "required keys no property declares (b)", "swagger.yaml:39:5", "required:"},
		{"body property of a string", "type string with properties (a)", "swagger.yaml:17:36", "properties:"},
		{"response property of an integer", "type integer with properties (b)", "swagger.yaml:25:37", "properties:"},
		{"query parameter enum constant clash", `AddPetModeXLarge is taken by the constant of AddPetMode's enum value "x-large"`, "swagger.yaml:18:65", "x_large"},
	})
}

// TestWarningPositionsCyclic: the schema index ends on schemas that
// reach themselves, in the root document and across files, and still
// places what is inside them.
func TestWarningPositionsCyclic(t *testing.T) {
	ds := warningsOf(t, "spec.yaml", map[string]string{"spec.yaml": `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /nodes:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "ext.yaml#/A"}
components:
  schemas:
    Node:
      type: object
      properties:
        next: {$ref: "#/components/schemas/Node"}
        bad: {type: string, properties: {x: {type: string}}}
`, "ext.yaml": `A:
  type: object
  properties:
    b: {$ref: "#/B"}
B:
  type: object
  properties:
    a: {$ref: "#/A"}
    bad: {type: integer, properties: {y: {type: string}}}
`})
	checkPlaced(t, ds, []placed{
		{"root cycle", "type string with properties (x)", "spec.yaml:18:29", "properties:"},
		{"cycle across files", "type integer with properties (y)", "ext.yaml:9:26", "properties:"},
		// kin-openapi gives A reached as #/A inside ext.yaml a schema of
		// its own, so it is declared twice (as before); both are placed.
		{"cycle back into a file", "schema #/A is named A2 in Go: A is taken by schema ext.yaml#/A (at ext.yaml:1:1)", "ext.yaml:1:1", "A:"},
	})
}
