package generator

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/resgen/resgen/generator/model"
)

// modelStrings are every string the model holds: the names build gave.
func modelStrings(v reflect.Value, out map[string]bool, seen map[uintptr]bool) {
	switch v.Kind() {
	case reflect.String:
		out[v.String()] = true
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		modelStrings(v.Elem(), out, seen)
	case reflect.Interface:
		if !v.IsNil() {
			modelStrings(v.Elem(), out, seen)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				modelStrings(v.Field(i), out, seen)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			modelStrings(v.Index(i), out, seen)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			modelStrings(k, out, seen)
			modelStrings(v.MapIndex(k), out, seen)
		}
	}
}

// argNames are the names fn's signature declares: receiver, parameters
// and results.
func argNames(fn *ast.FuncDecl) []string {
	var out []string
	for _, fl := range []*ast.FieldList{fn.Recv, fn.Type.Params, fn.Type.Results} {
		if fl == nil {
			continue
		}
		for _, f := range fl.List {
			for _, n := range f.Names {
				out = append(out, n.Name)
			}
		}
	}
	return out
}

// localNames are the names declared in fn's body: :=, var, range
// variables and the parameters of function literals.
func localNames(fn *ast.FuncDecl) []*ast.Ident {
	var out []*ast.Ident
	fields := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, f := range fl.List {
			out = append(out, f.Names...)
		}
	}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						out = append(out, id)
					}
				}
			}
		case *ast.ValueSpec:
			out = append(out, n.Names...)
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if id, ok := e.(*ast.Ident); ok {
						out = append(out, id)
					}
				}
			}
		case *ast.FuncLit:
			fields(n.Type.Params)
			fields(n.Type.Results)
		}
		return true
	})
	return out
}

// TestEmitDeclaresOnlyReservedNames: every name the emitter declares in a
// generated client of a golden spec is one the model gave it or one of
// the names model/reserved.go reserves for the printer, which build keeps
// clear of: package-level names, Client's fields and methods, and the
// locals of Client's methods and of NewClient. A name the printer starts
// to invent without reserving it fails here.
func TestEmitDeclaresOnlyReservedNames(t *testing.T) {
	t.Chdir("..")
	for _, g := range goldenSpecs(t) {
		t.Run(g.name, func(t *testing.T) {
			res, err := Generate(context.Background(), Config{Spec: g.spec, Package: goldenPackage(g.name)})
			if err != nil {
				t.Fatal(err)
			}
			checkDeclaredNames(t, res)
		})
	}
}

// checkDeclaredNames fails t on a name the generated code declares that
// is neither the model's nor reserved, and on a local of a Client method
// that takes the name of one of the method's arguments.
func checkDeclaredNames(t *testing.T, res *Result) {
	t.Helper()
	given := map[string]bool{"_": true}
	modelStrings(reflect.ValueOf(res.Model), given, map[uintptr]bool{})
	check := func(what, name string, reserved ...[]string) {
		t.Helper()
		if given[name] {
			return
		}
		for _, r := range reserved {
			if slices.Contains(r, name) {
				return
			}
		}
		t.Errorf("%s %q is neither the model's nor reserved in model/reserved.go", what, name)
	}
	for _, out := range res.Files {
		f, err := parser.ParseFile(token.NewFileSet(), "client.gen.go", out.Source, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						check("type", s.Name.Name, model.ClientNames)
						if st, ok := s.Type.(*ast.StructType); ok && s.Name.Name == model.ClientType {
							for _, fl := range st.Fields.List {
								for _, n := range fl.Names {
									check("Client field", n.Name, model.ClientFields)
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							check("package-level value", n.Name, model.ClientNames)
						}
					}
				}
			case *ast.FuncDecl:
				onClient := false
				if d.Recv == nil {
					check("func", d.Name.Name, model.ClientNames)
				} else if star, ok := d.Recv.List[0].Type.(*ast.StarExpr); ok {
					if id, ok := star.X.(*ast.Ident); ok && id.Name == model.ClientType {
						onClient = true
						check("Client method", d.Name.Name, model.ClientMethods)
					}
				}
				switch {
				case d.Name.Name == model.NewClientFunc:
					for _, id := range localNames(d) {
						check("NewClient local", id.Name, model.NewClientLocals)
					}
				case onClient:
					args := argNames(d)
					for _, n := range args {
						check("argument of "+d.Name.Name, n, model.MethodLocals)
					}
					for _, id := range localNames(d) {
						check("local of "+d.Name.Name, id.Name, model.MethodLocals)
						if slices.Contains(args, id.Name) {
							t.Errorf("a local of %s takes the name of its argument %q", d.Name.Name, id.Name)
						}
					}
				}
			}
		}
	}
}

// TestReservedNamesDoNotClash: a spec whose schemas are named like every
// package-level name of the client, and whose path parameters are named
// like every local of a method (and like the text of an object path
// parameter), still gives code that type-checks, declares only reserved
// or model names, and never lets a local take an argument's name.
func TestReservedNamesDoNotClash(t *testing.T) {
	var spec strings.Builder
	spec.WriteString("openapi: 3.0.3\ninfo: {title: clash, version: \"1\"}\npaths:\n")
	path := "/t/{a}/{aText}"
	for _, l := range model.MethodLocals {
		path += "/{" + l + "}"
	}
	fmt.Fprintf(&spec, "  %s:\n    post:\n      operationId: clash\n      parameters:\n", path)
	spec.WriteString("        - {name: a, in: path, required: true, schema: {type: object, properties: {x: {type: string}}}}\n")
	spec.WriteString("        - {name: aText, in: path, required: true, schema: {type: string}}\n")
	for _, l := range model.MethodLocals {
		fmt.Fprintf(&spec, "        - {name: %s, in: path, required: true, schema: {type: string}}\n", l)
		fmt.Fprintf(&spec, "        - {name: %s, in: query, schema: {type: string}}\n", l)
	}
	spec.WriteString("      requestBody: {content: {application/json: {schema: {type: object, properties: {x: {type: string}}}}}}\n")
	spec.WriteString("      responses: {\"200\": {description: ok, content: {application/json: {schema: {type: object}}}}}\n")
	spec.WriteString("components:\n  schemas:\n")
	for _, n := range append(append([]string{}, model.ClientNames...), model.ImportNames...) {
		fmt.Fprintf(&spec, "    %s: {type: object, properties: {x: {type: string}}}\n", n)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	res, err := generateText(t, spec.String(), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(wd) // go list, for the type check, runs in the module
	if err := typeCheck(res.Model.Package, res.Files); err != nil {
		t.Fatalf("the generated code does not type-check: %v", err)
	}
	checkDeclaredNames(t, res)
}
