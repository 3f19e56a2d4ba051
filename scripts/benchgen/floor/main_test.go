package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestLoad(t *testing.T) {
	ctx := context.Background()
	verr, err := load(ctx, filepath.Join("..", "..", "..", "testdata", "specs", "petstore.yaml"))
	if err != nil || verr != nil {
		t.Fatalf("petstore: err %v, validation %v; want neither", err, verr)
	}

	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Loads, but an info without a title does not validate: reported,
	// not fatal, as resgen warns and generates.
	verr, err = load(ctx, write("untitled.yaml", "openapi: 3.0.3\ninfo: {version: '1'}\npaths: {}\n"))
	if err != nil || verr == nil {
		t.Errorf("untitled: err %v, validation %v; want a validation error only", err, verr)
	}
	// A relaxed check: an example that contradicts its schema passes.
	verr, err = load(ctx, write("example.yaml", "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents: {schemas: {N: {type: integer, example: text}}}\n"))
	if err != nil || verr != nil {
		t.Errorf("bad example: err %v, validation %v; want neither (examples are not validated)", err, verr)
	}
	if _, err := load(ctx, write("broken.yaml", "openapi: [\n")); err == nil {
		t.Error("broken YAML: want an error")
	}
	if _, err := load(ctx, filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("missing file: want an error")
	}
}
