package build

import (
	"os"
	"testing"
)

// specOf reads a spec of testdata/specs, for warningsOf.
func specOf(t *testing.T, name string) map[string]string {
	t.Helper()
	data, err := os.ReadFile("../../testdata/specs/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"spec.yaml": string(data)}
}

// An allOf with one union part is a union (no warning); one with two
// union parts, which no Go type holds, is raw JSON with a warning at its
// allOf (it used to be raw JSON silently).
func TestAllOfUnionWarnings(t *testing.T) {
	ds := warningsOf(t, "spec.yaml", specOf(t, "allofunions.yaml"))
	checkPlaced(t, ds, []placed{
		{"two union parts", "unsupported: a value that is one of each of 2 oneOf/anyOf schemas (allOf parts) has no Go type; it is a json.RawMessage", "spec.yaml:157:7", "allOf:"},
	})
}

const mergedWarnSpec = `openapi: 3.0.3
info: {title: t, version: "1"}
paths: {}
components:
  schemas:
    List:
      allOf:
        - properties:
            meta:
              properties:
                next: {type: string}
        - properties:
            meta:
              required: [ghost]
              properties:
                count: {type: integer}
`

// A property two allOf parts declare is one type with the members of
// both; a warning about it is at the declaration it is about, not at no
// line.
func TestMergedPropertyWarningPlaced(t *testing.T) {
	ds := warningsOf(t, "spec.yaml", map[string]string{"spec.yaml": mergedWarnSpec})
	checkPlaced(t, ds, []placed{
		{"required key undeclared", "required keys no property declares (ghost)", "spec.yaml:14:15", "required:"},
	})
}

// A form body cannot write null: a nullable property of one is warned
// about, naming the raw method. The JSON body of
// the same operation, which can, is not.
func TestNullableFormPropertyWarns(t *testing.T) {
	ds := warningsOf(t, "spec.yaml", specOf(t, "nullable.yaml"))
	checkPlaced(t, ds, []placed{
		{"nullable form property", `unsupported: form property "name" may be null, which this body cannot write; the client leaves a null value out; send the body as the spec says with PatchPetWithBody(..., contentType, body)`, "spec.yaml:24:13", "schema:"},
	})
}

const unionBodiesSpec = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /pets:
    post:
      operationId: uploadPet
      requestBody:
        content:
          multipart/form-data:
            schema:
              allOf:
                - {$ref: "#/components/schemas/Animal"}
                - properties:
                    photo: {type: string, format: binary}
          application/x-www-form-urlencoded:
            schema: {$ref: "#/components/schemas/Animal"}
      responses:
        "204": {description: ok}
components:
  schemas:
    Animal:
      oneOf:
        - {properties: {meow: {type: boolean}}, required: [meow]}
        - {properties: {bark: {type: string}}, required: [bark]}
`

// A form or multipart body whose schema is a union (or an allOf with
// one), which resgen does not write as fields or parts, is a warning
// naming the method that takes it as the caller encodes it (the multipart
// method used to write the object part's parts only, dropping the
// variant's).
func TestUnionFormBodiesWarn(t *testing.T) {
	ds := warningsOf(t, "spec.yaml", map[string]string{"spec.yaml": unionBodiesSpec})
	checkPlaced(t, ds, []placed{
		{"multipart union", "unsupported: multipart body whose schema is a oneOf/anyOf (or an allOf with one): resgen writes no union as parts, so UploadPetWithMultipart takes the encoded body", "spec.yaml:10:13", "schema:"},
		{"form union", "unsupported: form body whose schema is a oneOf/anyOf (or an allOf with one): resgen writes no union as form fields, so UploadPet takes a url.Values", "spec.yaml:16:13", "schema:"},
	})
}
