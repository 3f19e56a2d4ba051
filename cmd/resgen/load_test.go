package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Shapes of real specs that stopped resgen at load,
// through the CLI: what each prints, with its position, and that the
// output is the golden client (golden/load-*, built and tested with the
// module). Under -strict each warning is an error: exit 2, the old output
// left as it was.

// generateInto runs generate on spec into a fresh folder holding an old
// output, and returns the exit status, stderr and what the output holds.
func generateInto(t *testing.T, spec string, flags ...string) (code int, stderr string, out []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "client.gen.go")
	old := []byte("// the previous output\npackage x\n")
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, append([]string{"generate", "-spec", spec, "-package", "x", "-o", path}, flags...)...)
	out, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if code != exitOK && !bytes.Equal(out, old) {
		t.Errorf("exit %d, and the old output changed", code)
	}
	return code, stderr, out
}

// sameAsGolden reports whether out is golden/<name>/client.gen.go but for
// its package name.
func sameAsGolden(t *testing.T, out []byte, name string) bool {
	t.Helper()
	want, err := os.ReadFile(filepath.Join("golden", name, "client.gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	pkg := "package " + strings.ReplaceAll(name, "-", "")
	return bytes.Equal(out, bytes.Replace(want, []byte(pkg), []byte("package x"), 1))
}

// warningLines are the first lines of the diagnostics in stderr.
func warningLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if l != "" && !strings.HasPrefix(l, "\t") {
			out = append(out, l)
		}
	}
	return out
}

func TestLoadWarnsAtPositionsAndGenerates(t *testing.T) {
	t.Chdir("../..")
	const load = "testdata/specs/load/"
	cases := []struct {
		spec, golden string
		want         []string // the diagnostics' first lines, in order
		pointer      string   // the first one's pointer
	}{
		{"components-map/openapi.yaml", "load-components-map", nil, ""},
		{"operation-refs/openapi.yaml", "load-operation-refs", []string{
			load + `operation-refs/openapi.yaml:9:7: warning: $ref "resources/pets/pet_get.yml" stands for an operation: OpenAPI allows no $ref there (kin-openapi reads an empty operation); resgen reads what it names in its place, as the author meant (and the same for 1 more such $refs)`,
			load + `operation-refs/resources/pets/pet_update.yml:11:11: warning: $ref "models/attributes.yml#/pet_tags" stands for a schema's properties: OpenAPI allows no $ref there (kin-openapi cannot decode it); resgen reads what it names in its place, as the author meant`,
		}, "#/paths/~1pets~1{pet_id}/get"},
		{"defs.yaml", "load-defs", []string{
			load + `defs.yaml:27:31: warning: $ref "#/$defs/Money" is read in the $defs of the schema that holds it, #/paths/~1orders~1{id}/get/responses/200/content/application~1json/schema; by JSON Schema's rules it names the document's root, which has no $defs (no enclosing schema has an $id)`,
			load + `defs.yaml:38:29: warning: $ref "#/$defs/Line" is read in the $defs of the schema that holds it, #/paths/~1orders~1{id}/get/responses/200/content/application~1json/schema; by JSON Schema's rules it names the document's root, which has no $defs (no enclosing schema has an $id)`,
			load + `defs.yaml:63:17: warning: $ref "#/$defs/Total" is read in the $defs of the schema that holds it, #/components/schemas/Invoice; by JSON Schema's rules it names the document's root, which has no $defs (no enclosing schema has an $id)`,
		}, "#/paths/~1orders~1{id}/get/responses/200/content/application~1json/schema/$defs/Line/properties/money"},
		{"php-empty.json", "load-php-empty", []string{
			load + `php-empty.json:9:30: warning: repaired: 204 is [], an empty list where an object belongs (PHP's JSON encoder writes an empty object so); it is read as {}`,
			load + `php-empty.json:16:24: warning: repaired: headers is [], an empty list where an object belongs (PHP's JSON encoder writes an empty object so); it is read as {}`,
			load + `php-empty.json:25:48: warning: repaired: properties is [], an empty list where an object belongs (PHP's JSON encoder writes an empty object so); it is read as {}`,
			load + `php-empty.json:28:11: warning: repaired: a schema of allOf is [], an empty list where an object belongs (PHP's JSON encoder writes an empty object so); it is read as {}`,
		}, "#/paths/~1things~1{id}/delete/responses/204"},
		{"dangling-ref.yaml", "load-dangling-ref", []string{
			load + `dangling-ref.yaml:43:27: warning: $ref "#/components/schemas/Owner" names nothing in this document; the value is left untyped (json.RawMessage), so the other operations can still be called`,
			load + `dangling-ref.yaml:45:11: warning: $ref "#/components/responses/NotFound" names nothing in this document; the response is read as one without a body`,
		}, "#/paths/~1stores~1{id}/get/responses/200/content/application~1json/schema/properties/owner"},
	}
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			code, stderr, out := generateInto(t, load+c.spec)
			if code != exitOK {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			if got := warningLines(stderr); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			if c.pointer != "" && !strings.Contains(stderr, c.want[0]+"\n\tat "+c.pointer+"\n") {
				t.Errorf("the first diagnostic is not at the pointer %s:\n%s", c.pointer, stderr)
			}
			if !sameAsGolden(t, out, c.golden) {
				t.Errorf("the output is not golden/%s", c.golden)
			}
			if c.want == nil {
				return
			}
			code, stderr, _ = generateInto(t, load+c.spec, "-strict")
			if first := strings.Replace(c.want[0], ": warning: ", ": error: ", 1); code != exitInput || !strings.Contains(stderr, first+"\n") {
				t.Errorf("-strict: exit %d, want %d and %q; stderr:\n%s", code, exitInput, first, stderr)
			}
		})
	}
}

func TestDanglingRefThatCannotBeUntypedIsAPositionedError(t *testing.T) {
	t.Chdir("../..")
	code, stderr, _ := generateInto(t, "testdata/specs/load/invalid/dangling-parameter.yaml")
	want := "testdata/specs/load/invalid/dangling-parameter.yaml:8:11: error: $ref \"#/components/parameters/Limit\" names nothing in this document\n" +
		"\tat #/paths/~1pets/get/parameters/0\n" +
		"\tfix: define what it names, or correct the $ref\n"
	if code != exitInput || stderr != want {
		t.Fatalf("exit %d, stderr:\n%s\nwant exit %d and:\n%s", code, stderr, exitInput, want)
	}
}

func TestOperationRefInAReferencedPathItemIsAPositionedError(t *testing.T) {
	t.Chdir("../..")
	code, stderr, _ := generateInto(t, "testdata/specs/load/invalid/path-item-op-ref/openapi.yaml")
	want := "testdata/specs/load/invalid/path-item-op-ref/openapi.yaml:7:3: error: the operation is a $ref (\"pets_list.yaml\") where OpenAPI allows none, and resgen reads it only in a path item written in the spec's paths, webhooks or components.pathItems\n" +
		"\tat #/paths/~1pets/get\n"
	if code != exitInput || !strings.HasPrefix(stderr, want) {
		t.Fatalf("exit %d, stderr:\n%s\nwant exit %d and:\n%s", code, stderr, exitInput, want)
	}
}

// copyTree copies the folder src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestInlinedMapKeepsItsPositions: a diagnostic about a schema of the
// file that components.schemas names is at its line in that file, and a
// $ref to a map outside the folders the spec may read is refused at the
// $ref.
func TestInlinedMapKeepsItsPositions(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "../../testdata/specs/load/components-map", dir)
	t.Chdir(dir)
	index := filepath.Join("schemas", "_index.yaml")
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, "Level: {type: integer, enum: [1, 2.5]}\n"...)
	if err := os.WriteFile(index, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr, _ := generateInto(t, "openapi.yaml")
	want := filepath.Join("schemas", "_index.yaml") + ":11:34: warning: unsupported: Level's enum value 2.5 is not a whole number"
	if code != exitOK || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, stderr:\n%s\nwant it to hold %q", code, stderr, want)
	}

	// An error about an operation of paths.yaml is at its line there.
	paths, err := os.ReadFile("paths.yaml")
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, "/servers:\n  post:\n    operationId: createServer\n    x-resilience: {retry: default}\n    responses: {\"202\": {description: accepted}}\n"...)
	if err := os.WriteFile("paths.yaml", paths, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr, _ = generateInto(t, "openapi.yaml")
	if want := "paths.yaml:17:20: error: retry on POST /servers, which is not retry-safe"; code != exitInput || !strings.HasPrefix(stderr, want) {
		t.Fatalf("exit %d, stderr:\n%s\nwant it to start with %q", code, stderr, want)
	}

	spec, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	outside := bytes.Replace(spec, []byte("$ref: ./schemas/_index.yaml"), []byte("$ref: ../elsewhere/_index.yaml"), 1)
	if err := os.WriteFile("outside.yaml", outside, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr, _ = generateInto(t, "outside.yaml")
	if want := `outside.yaml:9:5: error: $ref "../elsewhere/_index.yaml": `; code != exitInput || !strings.HasPrefix(stderr, want) {
		t.Fatalf("exit %d, stderr:\n%s\nwant it to start with %q", code, stderr, want)
	}
}
