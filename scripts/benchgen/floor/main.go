// Command floor is the floor `make bench-gen` measures resgen against:
// kin-openapi (the version in go.mod) reading one spec file, loading it
// with external $refs allowed and validating it with the relaxed options
// resgen's generator/load.go uses, in a process of its own like resgen
// generate. A kin-based generator cannot be faster than this.
//
// Usage: floor SPEC. Exit status 1 when the file cannot be read or loaded;
// a spec that loads but does not validate is reported on stderr and exits
// 0, as resgen warns and generates.
package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/getkin/kin-openapi/openapi3"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: floor SPEC")
		os.Exit(2)
	}
	verr, err := load(context.Background(), os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	if verr != nil {
		fmt.Fprintln(os.Stderr, "floor: spec does not validate:", verr)
	}
}

// relaxed is the validation generator/load.go runs unless -strict. Its
// AllowExtraSiblingFields is left out: it only accepts more specs, and the
// specs the goal is set on validate without it.
var relaxed = []openapi3.ValidationOption{
	openapi3.DisableExamplesValidation(),
	openapi3.DisableSchemaDefaultsValidation(),
	openapi3.DisableSchemaPatternValidation(),
}

// load reads, loads and validates the spec at path: err when it cannot
// be read or loaded, verr when it loads but does not validate.
func load(ctx context.Context, path string) (verr, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	loader.Context = ctx
	loader.IsExternalRefsAllowed = true
	doc, err := loader.LoadFromDataWithPath(data, &url.URL{Path: filepath.ToSlash(abs)})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return doc.Validate(ctx, relaxed...), nil
}
