package load

import (
	"context"
	"path/filepath"
	"testing"
)

// TestSwaggerPointer: pointers of the OpenAPI 3 document a Swagger 2.0
// spec converts to map back to the 2.0 document: exactly where 2.0 has the
// same thing, approximately (the parameter, the operation) where it has not.
func TestSwaggerPointer(t *testing.T) {
	spec := `swagger: "2.0"
info: {title: t, version: "1"}
paths:
  /pets/{id}:
    parameters:
      - {name: id, in: path, required: true, type: string}
    post:
      operationId: addPet
      consumes: [application/json]
      parameters:
        - {name: body, in: body, schema: {type: object}}
        - {$ref: "#/parameters/Mode"}
        - {name: q, in: query, type: array, items: {type: string}}
      responses:
        "200":
          description: ok
          headers: {X-Rate: {type: integer}}
          schema: {type: object}
  /forms:
    post:
      consumes: [multipart/form-data]
      parameters:
        - {name: file, in: formData, type: file}
        - {name: note, in: formData, type: string}
      responses: {"204": {description: none}}
parameters:
  Mode: {name: mode, in: query, type: string}
  Body: {name: b, in: body, schema: {type: string}}
responses:
  Err: {description: e, schema: {type: object}}
definitions:
  Pet: {type: object}
securityDefinitions:
  key: {type: apiKey, in: header, name: X-Key}
`
	path := filepath.Join(t.TempDir(), "swagger.yaml")
	s, diags, err := Load(context.Background(), path, []byte(spec), nil, nil)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	for v3, v2 := range map[string]string{
		"/components/schemas/Pet/properties/a":                                                "/definitions/Pet/properties/a",
		"/components/securitySchemes/key":                                                     "/securityDefinitions/key",
		"/components/parameters/Mode/schema/enum":                                             "/parameters/Mode/enum",
		"/components/requestBodies/Body/content/application~1json/schema/items":               "/parameters/Body/schema/items",
		"/components/responses/Err/content/application~1json/schema/properties":               "/responses/Err/schema/properties",
		"/paths/~1pets~1{id}/parameters/0/schema":                                             "/paths/~1pets~1{id}/parameters/0",
		"/paths/~1pets~1{id}/post/parameters/0/schema":                                        "/paths/~1pets~1{id}/post/parameters/1",
		"/paths/~1pets~1{id}/post/parameters/1/schema/items":                                  "/paths/~1pets~1{id}/post/parameters/2/items",
		"/paths/~1pets~1{id}/post/requestBody/content/application~1json/schema/type":          "/paths/~1pets~1{id}/post/parameters/0/schema/type",
		"/paths/~1pets~1{id}/post/responses/200/content/application~1json/schema":             "/paths/~1pets~1{id}/post/responses/200/schema",
		"/paths/~1pets~1{id}/post/responses/200/headers/X-Rate/schema":                        "/paths/~1pets~1{id}/post/responses/200/headers/X-Rate",
		"/paths/~1forms/post/requestBody/content/multipart~1form-data/schema/properties/note": "/paths/~1forms/post/parameters/1",
		"/paths/~1forms/post/requestBody/content/multipart~1form-data/schema":                 "/paths/~1forms/post",
		"/paths/~1forms/post/operationId":                                                     "/paths/~1forms/post/operationId",
		"/definitions/Pet":                                                                    "/definitions/Pet",
	} {
		if got := s.swaggerPointer(v3); got != v2 {
			t.Errorf("swaggerPointer(%s) = %s, want %s", v3, got, v2)
		}
	}
	// Diag places a converted pointer at the 2.0 node.
	if d := s.Diag(0, "/components/schemas/Pet", "m", ""); d.Line != 32 || d.Col != 3 || d.Pointer != "#/definitions/Pet" {
		t.Errorf("Diag at %d:%d %s, want 32:3 #/definitions/Pet", d.Line, d.Col, d.Pointer)
	}
}
