package generator

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/resgen/resgen/generator/model"
)

// addedOperations are operations TestAddOperationQuiet adds to a spec,
// each under a path of its own: to petstore, one whose names are longer
// than every other operation's (gofmt would realign what shares an
// alignment group with it), with required and optional parameters and a
// typed answer, and one with short names and neither; to resilience.yaml,
// one with a breaker of its own (scope operation) whose name is longer
// than every other breaker's.
var addedOperations = []struct{ spec, id, yaml string }{
	{"petstore", "listAdoptionHistoryOfPet", `  /pets/{petId}/adoptions/history:
    get:
      summary: List the adoptions of a pet
      operationId: listAdoptionHistoryOfPet
      parameters:
        - name: petId
          in: path
          required: true
          schema:
            type: string
        - name: since
          in: query
          required: true
          schema:
            type: string
            format: date-time
        - name: limit
          in: query
          schema:
            type: integer
            format: int32
        - name: X-Trace
          in: header
          schema:
            type: string
      responses:
        '200':
          description: The pet's adoptions, oldest first
          content:
            application/json:
              schema:
                type: array
                items:
                  $ref: "#/components/schemas/Adoption"
`},
	{"petstore", "untagPet", `  /pets/{petId}/tag:
    delete:
      summary: Remove a pet's tag
      operationId: untagPet
      parameters:
        - name: petId
          in: path
          required: true
          schema:
            type: string
      responses:
        '204':
          description: Untagged
`},
	{"resilience", "refreshEveryCachedSearchResult", `  /searches/cached/refresh:
    x-resilience: {breaker: perop}
    put:
      operationId: refreshEveryCachedSearchResult
      responses: {"204": {description: refreshed}}
`},
}

// TestAddOperationQuiet: adding one operation to petstore (or to
// resilience.yaml) changes no line of any other operation's code or docs.
// It generates the spec with and without the operation, takes what is
// named after the new operation out of the larger output (declarations,
// its Client field, its breaker constant, its statements in NewClient),
// and wants the smaller output back byte for byte; any other line that
// changed is listed.
func TestAddOperationQuiet(t *testing.T) {
	t.Chdir("..")
	for _, add := range addedOperations {
		t.Run(add.id, func(t *testing.T) {
			spec := "testdata/specs/" + add.spec + ".yaml"
			text, err := os.ReadFile(spec)
			if err != nil {
				t.Fatal(err)
			}
			base, err := Generate(context.Background(), Config{Spec: spec, Package: "x"})
			if err != nil {
				t.Fatal(err)
			}
			grown := strings.Replace(string(text), "\npaths:\n", "\npaths:\n"+add.yaml, 1)
			if grown == string(text) {
				t.Fatalf("%s has no top-level paths: line to add an operation under", spec)
			}
			path := filepath.Join(t.TempDir(), filepath.Base(spec)) // the same banner
			if err := os.WriteFile(path, []byte(grown), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := Generate(context.Background(), Config{Spec: path, Package: "x"})
			if err != nil {
				t.Fatal(err)
			}
			var op *model.Operation
			for _, o := range res.Model.Operations {
				if o.ID == add.id {
					op = o
				}
			}
			if op == nil || len(res.Model.Operations) != len(base.Model.Operations)+1 {
				t.Fatalf("the grown spec has no operation %s, or more than one new operation", add.id)
			}
			rest, at := withoutOperation(t, res.Source, op)
			if d := changedLines(string(base.Source), rest, at); d != "" {
				t.Errorf("adding %s changed lines that are not its own (- before, + after):\n%s", add.id, d)
			}
		})
	}
}

// withoutOperation is src with op's own lines taken out: the top-level
// declarations named after it (its method and variants, its send method,
// its parameter, response and inline types) with their docs and the blank
// line after them, the constants named after it (its own breaker's) with
// their docs, its field of Client with the field's comment, and the
// statements of NewClient that name something named after it. The
// method, the field and a statement must be there. It returns the lines
// left and their line numbers in src.
func withoutOperation(t *testing.T, src []byte, op *model.Operation) (kept []string, at []int) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "client.gen.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	drop := make([]bool, len(lines)+1) // by line number, from 1
	span := func(from, to token.Pos) {
		for l := fset.Position(from).Line; l <= fset.Position(to).Line; l++ {
			drop[l] = true
		}
	}
	own := func(name string) bool {
		return strings.HasPrefix(name, op.Name) || op.SendMethod != "" && name == op.SendMethod
	}
	namedAfter := func(name string) bool { return strings.Contains(strings.ToLower(name), strings.ToLower(op.Name)) }
	var method, field, stmt bool
	for _, d := range f.Decls {
		var names []string
		var doc *ast.CommentGroup
		switch d := d.(type) {
		case *ast.FuncDecl:
			names, doc = []string{d.Name.Name}, d.Doc
			if d.Name.Name == op.Name && d.Recv != nil {
				method = true
			}
			if d.Name.Name == model.NewClientFunc {
				stmt = dropStatements(d.Body, namedAfter, span)
			}
		case *ast.GenDecl:
			doc = d.Doc
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
					if st, ok := s.Type.(*ast.StructType); ok && s.Name.Name == model.ClientType {
						field = dropField(st, op.OpField, span)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names = append(names, n.Name)
					}
					if d.Lparen.IsValid() && len(s.Names) == 1 && namedAfter(s.Names[0].Name) {
						from := s.Pos()
						if s.Doc != nil {
							from = s.Doc.Pos()
						}
						span(from, s.End())
					}
				}
			}
		}
		if len(names) == 0 || !allOwn(names, own) {
			continue
		}
		from := d.Pos()
		if doc != nil {
			from = doc.Pos()
		}
		span(from, d.End())
		if end := fset.Position(d.End()).Line; end < len(lines) && lines[end] == "" {
			drop[end+1] = true
		}
	}
	if !method || !field || !stmt {
		t.Fatalf("the output of the grown spec lacks %s's method (%v), its Client field %s (%v) or its statement in NewClient (%v)", op.Name, method, op.OpField, field, stmt)
	}
	for i, l := range lines {
		if !drop[i+1] {
			kept, at = append(kept, l), append(at, i+1)
		}
	}
	return kept, at
}

func allOwn(names []string, own func(string) bool) bool {
	for _, n := range names {
		if !own(n) {
			return false
		}
	}
	return true
}

// dropField drops the field named name, and its comment, from st.
func dropField(st *ast.StructType, name string, span func(from, to token.Pos)) bool {
	for _, fl := range st.Fields.List {
		if len(fl.Names) != 1 || fl.Names[0].Name != name {
			continue
		}
		from := fl.Pos()
		if fl.Doc != nil {
			from = fl.Doc.Pos()
		}
		span(from, fl.End())
		return true
	}
	return false
}

// dropStatements drops each statement of body that names an identifier
// for which own is true.
func dropStatements(body *ast.BlockStmt, own func(string) bool, span func(from, to token.Pos)) bool {
	found := false
	for _, s := range body.List {
		ast.Inspect(s, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && own(id.Name) {
				span(s.Pos(), s.End())
				found = true
				return false
			}
			return true
		})
	}
	return found
}

// changedLines lists the lines only in want (-) and only in got (+), from a
// longest common subsequence of the two, with their line numbers (got's
// line i is line gotLine[i] of its file); "" when they are equal.
func changedLines(want string, g []string, gotLine []int) string {
	w := strings.Split(want, "\n")
	if slices.Equal(w, g) {
		return ""
	}
	// common[i][j] is the longest common subsequence of w[i:] and g[j:].
	common := make([][]int, len(w)+1)
	for i := range common {
		common[i] = make([]int, len(g)+1)
	}
	for i := len(w) - 1; i >= 0; i-- {
		for j := len(g) - 1; j >= 0; j-- {
			if w[i] == g[j] {
				common[i][j] = common[i+1][j+1] + 1
			} else {
				common[i][j] = max(common[i+1][j], common[i][j+1])
			}
		}
	}
	var b strings.Builder
	i, j := 0, 0
	for i < len(w) || j < len(g) {
		switch {
		case i < len(w) && j < len(g) && w[i] == g[j]:
			i, j = i+1, j+1
		case i < len(w) && (j == len(g) || common[i+1][j] >= common[i][j+1]):
			fmt.Fprintf(&b, "-%d:\t%s\n", i+1, w[i])
			i++
		default:
			fmt.Fprintf(&b, "+%d:\t%s\n", gotLine[j], g[j])
			j++
		}
	}
	return b.String()
}
