package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Path keys with a #fragment are sent without it (golden/wire shows the
// wire); generate says so once per spec, at the first such key.
func TestPathKeyFragmentsAreWarnedOncePerSpec(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	err := os.WriteFile(spec, []byte(`openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /files/{id}#remove:
    put:
      operationId: removeLink
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /files/{id}#add:
    put:
      operationId: addLink
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "generate", "-spec", spec, "-package", "p", "-o", filepath.Join(dir, "p", "client.gen.go"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := spec + `:9:3: warning: path key "/files/{id}#add" (and 1 more path keys) has a #fragment; it is not sent: requests go to "/files/{id}"`
	if !strings.Contains(stderr, want) || strings.Count(stderr, "#fragment") != 1 {
		t.Errorf("stderr:\n%s\nwant one warning starting %q", stderr, want)
	}
}
