package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Request bodies resgen cannot write as the spec says are reported at
// their position, each naming the raw WithBody method that can; -strict
// makes them errors and keeps the old output.
func TestUnsupportedBodiesAreReported(t *testing.T) {
	t.Chdir("../..")
	out := filepath.Join(t.TempDir(), "client.gen.go")
	code, _, stderr := runCLI(t, "generate", "-spec", "testdata/specs/bodies.yaml", "-package", "bodies", "-o", out)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"testdata/specs/bodies.yaml:22:11: warning: unsupported: createPet accepts application/xml request bodies, which resgen does not encode; send them with CreatePetWithBody(..., contentType, body)",
		`testdata/specs/bodies.yaml:111:15: warning: unsupported: multipart part "doc" is declared as application/xml; resgen sends it as application/json; send the body as the spec says with PostReportWithBody(`,
		`testdata/specs/bodies.yaml:112:15: warning: unsupported: multipart part "note" declares headers (X-Note), which resgen does not send;`,
		`testdata/specs/bodies.yaml:183:17: warning: unsupported: form property "loose" is an object of style form, explode true, which would spread its properties over the form; resgen sends loose[key]=value (deepObject); send the body as the spec says with PostLooseWithBody(`,
		`testdata/specs/bodies.yaml:184:17: warning: unsupported: form property "rows" is a list of objects or lists of style form, which cannot write them;`,
		`testdata/specs/bodies.yaml:187:15: warning: unsupported: form property "piped" has style pipeDelimited;`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks\n%s\ngot:\n%s", want, stderr)
		}
	}
	if n := strings.Count(stderr, "warning: unsupported:"); n != 6 {
		t.Errorf("%d unsupported warnings, want 6:\n%s", n, stderr)
	}

	old := []byte("package old\n")
	if err := os.WriteFile(out, old, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "generate", "-strict", "-spec", "testdata/specs/bodies.yaml", "-package", "bodies", "-o", out)
	if code != exitInput || !strings.Contains(stderr, "bodies.yaml:22:11: error: unsupported: createPet accepts application/xml") {
		t.Fatalf("-strict: exit %d, stderr %s", code, stderr)
	}
	if got, _ := os.ReadFile(out); string(got) != string(old) {
		t.Fatal("-strict changed the old output")
	}
}
