package generator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONThatYAMLDoesNotParse: YAML refuses escaped UTF-16 surrogates,
// which JSON allows; such a spec still loads, with positions, and its
// referenced files too.
func TestJSONThatYAMLDoesNotParse(t *testing.T) {
	tmp := t.TempDir()
	for name, content := range map[string]string{
		"go.mod": "module m\n",
		"spec.json": `{"openapi": "3.0.3", "info": {"title": "\ud83d\ude00", "version": "1"},
 "paths": {"/pets": {"get": {"responses": {"200": {"description": "ok",
   "content": {"application/json": {"schema": {"$ref": "pet.json#/Pet"}}}}}}}},
 "x-resilience": {"nope": 1}}
`,
		"pet.json": `{"Pet": {"type": "object", "description": "\ud83d\udc08", "properties": {"name": {"type": "string"}}}}`,
	} {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Generate(context.Background(), Config{Spec: filepath.Join(tmp, "spec.json"), Package: "p"})
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("want the bad x-resilience as an input error, got %v", err)
	}
	if d := ie.Diags[0]; d.Line != 4 || d.Col != 19 || !strings.Contains(d.Msg, `unknown key "nope"`) {
		t.Errorf("diagnostic %v: want it at 4:19, about the unknown key", d)
	}
}
