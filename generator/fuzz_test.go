package generator

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resgen/resgen/generator/emit"
	"github.com/resgen/resgen/generator/load"
	yaml "go.yaml.in/yaml/v4"
)

// Fuzz targets. `make fuzz FUZZTIME=…` runs each with go test -fuzz; plain
// go test runs their seeds: the f.Add calls and testdata/fuzz/<Target>/,
// where inputs the fuzzer found interesting are kept.

// maxFuzzSpec bounds the specs FuzzGenerate tries, so one input cannot
// stall the fuzzer: the hostile sizes have tests of their own.
const maxFuzzSpec = 64 << 10

// FuzzGenerate runs the whole pipeline on a spec of any bytes: it must not
// panic, must refuse bad input with an *InputError and nothing else, and
// whatever it generates must be gofmt'd Go that type-checks against the
// runtime. layout picks the file layout (one file, by kind, by tag).
func FuzzGenerate(f *testing.F) {
	specs, _ := filepath.Glob("../testdata/specs/*.yaml")
	for _, p := range specs {
		if data, err := os.ReadFile(p); err == nil && len(data) <= maxFuzzSpec {
			f.Add(data, uint8(0))
		}
	}
	for _, s := range []string{
		"openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n",
		`{"swagger": "2.0", "info": {"title": "t", "version": "1"}, "paths": {}}`,
		// Hostile reads: a device, a file outside the spec's
		// folder, an alias bomb; each must be refused, never read.
		"openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents: {schemas: {Z: {$ref: /dev/zero}}}\n",
		"openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents: {schemas: {P: {$ref: '../../../../../../etc/passwd'}}}\n",
		"openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents: {schemas: {A: &a {properties: {x: {type: string}, y: {type: string}}}, B: &b {properties: {x: *a, y: *a}}, C: &c {properties: {x: *b, y: *b}}, D: {properties: {x: *c, y: *c}}}}\n",
	} {
		f.Add([]byte(s), uint8(0))
	}
	// The spec's folder holds a copy of testdata/specs/refs, so the seeds
	// with relative $refs resolve them, and mutations of those can too.
	dir := f.TempDir()
	refs, _ := filepath.Glob("../testdata/specs/refs/*.yaml")
	if err := os.Mkdir(filepath.Join(dir, "refs"), 0o755); err != nil {
		f.Fatal(err)
	}
	for _, p := range refs {
		data, err := os.ReadFile(p)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "refs", filepath.Base(p)), data, 0o644)
		}
		if err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, layout uint8) {
		if len(data) > maxFuzzSpec {
			t.Skip()
		}
		split := [...]string{emit.SplitNone, emit.SplitKind, emit.SplitTag}[layout%3]
		checkGenerate(t, filepath.Join(dir, "spec.yaml"), data, split)
	})
}

// checkGenerate generates a client from data, read as the spec at path:
// bad input must be an *InputError with an error diagnostic, and a client
// gofmt'd Go that type-checks.
func checkGenerate(t *testing.T, path string, data []byte, split string) {
	t.Helper()
	cfg := Config{Spec: path, Package: "fuzzclient", Split: split}
	// A small spec that takes seconds is a finding (no limit on work), not
	// an input error that happens to wrap the context's.
	const limit = 5 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	start := time.Now()
	res, err := generate(ctx, cfg, data, nil)
	if took := time.Since(start); took > limit || ctx.Err() != nil {
		t.Fatalf("generation took %v, more than %v", took, limit)
	}
	if err != nil {
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Fatalf("not an input error (a resgen fault): %.600s", err)
		}
		if len(ie.Diags) == 0 || !ie.Diags.HasErrors() {
			t.Fatalf("an input error without an error diagnostic: %q", err)
		}
		return
	}
	if len(res.Files) == 0 || !bytes.Equal(res.Source, res.Files[0].Source) {
		t.Fatalf("%d files; Source is not the first file's", len(res.Files))
	}
	for _, o := range res.Files {
		if fmtd, err := format.Source(o.Source); err != nil || !bytes.Equal(fmtd, o.Source) {
			t.Fatalf("file %q is not gofmt'd (%v):\n%s", o.Name, err, o.Source)
		}
	}
	if err := typeCheck(cfg.Package, res.Files); err != nil {
		t.Fatalf("generated code does not type-check: %v", err)
	}
}

// FuzzGenerateSchema aims the mutations past YAML's syntax: a schema (JSON
// or YAML), a response code and a parameter name of any text go into a
// fixed spec where the schema is a query parameter, the request body and
// the response of one operation; the checks are FuzzGenerate's.
func FuzzGenerateSchema(f *testing.F) {
	for _, s := range []struct{ schema, code, param string }{
		{`{type: object, properties: {id: {type: integer, format: int64}, name: {type: string}}, required: [id]}`, "200", "filter"},
		{`{type: string, enum: [a, b, "", A, "a-b", "1"]}`, "201", "kind"},
		{`{type: integer, enum: [1, -2, 2147483648]}`, "2XX", "n"},
		{`{type: number, enum: [1.5, 0, -0.25]}`, "default", "x"},
		{`{type: array, items: {type: string, format: date-time}, maxItems: 3}`, "200", "tags"},
		{`{oneOf: [{type: string}, {type: integer}, {$ref: '#/components/schemas/Other'}]}`, "200", "v"},
		{`{allOf: [{$ref: '#/components/schemas/Other'}, {type: object, properties: {b: {type: boolean}}}]}`, "204", "all"},
		{`{type: object, additionalProperties: {type: array, items: {type: object, additionalProperties: true}}}`, "404", "map"},
		{`{anyOf: [{type: object, properties: {a: {type: string}}}, {type: "null"}], nullable: true}`, "200", "q"},
		{`{type: object, discriminator: {propertyName: kind}, oneOf: [{$ref: '#/components/schemas/Other'}], properties: {kind: {type: string}}}`, "200", "d"},
		{`{type: string, format: binary}`, "200", "file"},
		{`{$ref: '#/components/schemas/S'}`, "200", "self"},
		{`{type: object, properties: {"": {type: string}, "a b": {type: string}, "A_B": {type: string}, "type": {type: integer}}}`, "200", "type"},
		{`true`, "599", "été"},
		{`{}`, "100", "_"},
		// Inputs that once broke resgen: an empty response code beside a real
		// one (statusRank panicked), an int64 enum at its maximum (the
		// constant overflowed), a byte order mark in a description (gofmt
		// refused the output).
		{`{type: string}`, "", "p"},
		{`{type: integer, format: int64, enum: [1, 9223372036854775807]}`, "200", "p"},
		{"{type: string, description: \"a\ufeffb\"}", "200", "p"},
	} {
		f.Add([]byte(s.schema), s.code, s.param)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, schema []byte, code, param string) {
		if len(schema) > maxFuzzSpec {
			t.Skip()
		}
		s, err := decodeValue(schema, true)
		if err != nil {
			t.Skip()
		}
		ref := map[string]any{"$ref": "#/components/schemas/S"}
		doc := map[string]any{
			"openapi": "3.0.3",
			"info":    map[string]any{"title": "fuzz", "version": "1"},
			"paths": map[string]any{"/things/{id}": map[string]any{"post": map[string]any{
				"operationId": "createThing",
				"parameters": []any{
					map[string]any{"name": "id", "in": "path", "required": true, "schema": map[string]any{"type": "string"}},
					map[string]any{"name": param, "in": "query", "schema": ref},
				},
				"requestBody": map[string]any{"content": map[string]any{"application/json": map[string]any{"schema": ref}}},
				"responses": map[string]any{
					code:      map[string]any{"description": "fuzzed", "content": map[string]any{"application/json": map[string]any{"schema": ref}}},
					"default": map[string]any{"description": "error"},
				},
			}}},
			"components": map[string]any{"schemas": map[string]any{
				"S":     s,
				"Other": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}},
			}},
		}
		data, err := json.Marshal(doc)
		if err != nil {
			t.Skip()
		}
		checkGenerate(t, filepath.Join(dir, "spec.json"), data, emit.SplitNone)
	})
}

// runtimeTypes is a go/types importer of the runtime and the standard
// library from the compiler's export data (go list -export): type-checking
// the runtime from source costs seconds, this costs milliseconds.
var runtimeTypes struct {
	once    sync.Once
	mu      sync.Mutex // the importer is not safe for concurrent use
	fset    *token.FileSet
	imp     types.Importer
	exports map[string]string // import path → export data file
	err     error
}

// goListFlags are the build flags of this test binary that change export
// data (fuzz_race_test.go).
var goListFlags []string

func goListExports(paths ...string) (map[string]string, error) {
	args := append(append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}} {{.Export}}"}, goListFlags...), paths...)
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %v: %s", err, stderr.Bytes())
	}
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if p, file, ok := strings.Cut(sc.Text(), " "); ok && file != "" {
			m[p] = file
		}
	}
	return m, nil
}

// typeCheck parses and type-checks the generated files as one package.
func typeCheck(pkg string, files []Output) error {
	rt := &runtimeTypes
	rt.once.Do(func() {
		// The runtime's dependencies and every package generated code
		// imports; any other is looked up on first use.
		rt.exports, rt.err = goListExports("github.com/resgen/resgen/runtime",
			"bytes", "context", "encoding/json", "errors", "fmt", "io", "log/slog", "maps",
			"mime/multipart", "net/http", "net/url", "strconv", "strings", "time")
		rt.fset = token.NewFileSet()
		rt.imp = importer.ForCompiler(rt.fset, "gc", func(path string) (io.ReadCloser, error) {
			file, ok := rt.exports[path]
			if !ok {
				more, err := goListExports(path)
				if err != nil {
					return nil, err
				}
				if file = more[path]; file == "" {
					return nil, fmt.Errorf("no export data for %q", path)
				}
				rt.exports[path] = file
			}
			return os.Open(file)
		})
	})
	if rt.err != nil {
		return rt.err
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	var parsed []*ast.File
	for _, o := range files {
		name := o.Name
		if name == "" {
			name = "client.gen.go"
		}
		f, err := parser.ParseFile(rt.fset, name, o.Source, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name != pkg {
			return fmt.Errorf("%s: package %s, want %s", name, f.Name.Name, pkg)
		}
		parsed = append(parsed, f)
	}
	_, err := (&types.Config{Importer: rt.imp}).Check(pkg, rt.fset, parsed, nil)
	return err
}

// decodeValue decodes JSON or YAML into the types of encoding/json, as
// kin-openapi decodes an extension; exact keeps numbers as json.Number,
// for a value that is encoded again.
func decodeValue(data []byte, exact bool) (any, error) {
	v, err := decodeJSON(data, exact)
	if err == nil {
		return v, nil
	}
	var y any
	if err := yaml.Unmarshal(data, &y); err != nil {
		return nil, err
	}
	b, err := json.Marshal(load.StringKeys(y))
	if err != nil {
		return nil, err
	}
	return decodeJSON(b, exact)
}

func decodeJSON(data []byte, exact bool) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	if exact {
		d.UseNumber()
	}
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errors.New("more than one value")
	}
	return v, nil
}
