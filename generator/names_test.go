package generator

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// declarations lists a Go file's top-level declarations and methods as
// "type Pet", "func NewClient", "method Client.ListPets".
func declarations(t *testing.T, src []byte) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil {
				var recv string
				switch r := d.Recv.List[0].Type.(type) {
				case *ast.StarExpr:
					recv = r.X.(*ast.Ident).Name
				case *ast.Ident:
					recv = r.Name
				}
				out["method "+recv+"."+d.Name.Name] = true
			} else {
				out["func "+d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					out["type "+s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						out["value "+n.Name] = true
					}
				}
			}
		}
	}
	return out
}

// TestNamesStableAcrossUnrelatedEdits: adding operations (sorted before
// and after the others, one named like another's response type) and a
// schema renames nothing that was there.
func TestNamesStableAcrossUnrelatedEdits(t *testing.T) {
	t.Chdir("..")
	base, err := os.ReadFile("testdata/specs/openstack-console.yaml")
	if err != nil {
		t.Fatal(err)
	}
	before, err := Generate(context.Background(), Config{Spec: "testdata/specs/openstack-console.yaml", Package: "p"})
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(base), "\npaths:\n", `
paths:
  /aaa/first:
    get:
      operationId: listServersFirst
      responses:
        "200":
          description: sorted first, with inline types
          content:
            application/json:
              schema: {type: object, properties: {server: {type: object, properties: {id: {type: string}}}}}
  /zzz/last:
    post:
      operationId: showServerResponse
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {x: {type: string}}}
      responses: {"200": {description: ok}}
`, 1)
	edited = strings.Replace(edited, "\n  schemas:\n", "\n  schemas:\n    AaaNew: {type: object, properties: {status: {type: string}}}\n", 1)
	path := filepath.Join(t.TempDir(), "openstack-console.yaml")
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	after, err := Generate(context.Background(), Config{Spec: path, Package: "p"})
	if err != nil {
		t.Fatal(err)
	}
	old, now := declarations(t, before.Source), declarations(t, after.Source)
	for name := range old {
		if !now[name] {
			t.Errorf("%s disappeared (renamed) after adding unrelated operations and a schema", name)
		}
	}
	if len(now) <= len(old) {
		t.Errorf("the edit added no declaration (%d before, %d after)", len(old), len(now))
	}
}
