package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// fileLines is what countLines finds in one generated file.
type fileLines struct {
	Total int       // lines of the file
	Ops   []opLines // by operation name
}

// opLines is the lines one operation owns, by part ("type ListPetsResponse",
// "method ListPets", "var listPetsDecode", "NewClient statement 12").
type opLines struct {
	Name  string
	Lines int
	Parts map[string]int
}

// mean is the mean lines per operation.
func (f *fileLines) mean() float64 {
	if len(f.Ops) == 0 {
		return 0
	}
	sum := 0
	for _, o := range f.Ops {
		sum += o.Lines
	}
	return float64(sum) / float64(len(f.Ops))
}

// unit is one piece of a file that is owned whole: a top-level type, var,
// const or func declaration (a spec of a grouped one), or a statement of
// NewClient's body. Doc comments count as its lines.
type unit struct {
	kind     string // "type", "var", "func", "method" (the client's), "recvmethod" (another type's), "stmt"
	recv     string // the receiver type of a recvmethod
	name     string // declared name (first of a var spec), or "NewClient statement N"
	names    []string
	lines    int
	node     ast.Node
	exported bool
	ctxFirst bool // a method whose first parameter is a context.Context
	sig      *ast.FuncType
	owner    string
}

// countLines attributes the lines of a generated client file to its
// operations: each one's Params and Response types, its method(s) (body
// variants and a shared unexported send method included), package-level
// vars, consts and funcs it alone uses or that carry its name (decode
// tables), and its registration statement(s) in NewClient. The
// operations are the client's op<Name> fields, or, when it has none, its
// exported methods that take a context.Context first. Lines no operation
// owns (schema types, options, NewClient's shared statements, the
// client's fields) are not counted.
func countLines(filename string, src []byte) (*fileLines, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	total := bytes.Count(src, []byte("\n"))
	if len(src) > 0 && src[len(src)-1] != '\n' {
		total++
	}
	line := func(p token.Pos) int { return fset.Position(p).Line }
	span := func(doc *ast.CommentGroup, from, to token.Pos) int {
		if doc != nil {
			from = doc.Pos()
		}
		return line(to) - line(from) + 1
	}

	clientType := ""
	var newClient *ast.FuncDecl
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "NewClient" {
			newClient = fd
			if fd.Type.Results != nil && len(fd.Type.Results.List) > 0 {
				clientType = typeName(fd.Type.Results.List[0].Type)
			}
		}
	}
	if clientType == "" {
		return nil, fmt.Errorf("%s: no func NewClient returning the client type", filename)
	}

	var units []*unit
	var clientFields []string
	opTyped := map[string]bool{} // client fields of type *runtime.Operation
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue
			}
			for _, s := range d.Specs {
				u := &unit{node: s}
				doc, from := d.Doc, d.Pos()
				if d.Lparen.IsValid() { // grouped: each spec on its own
					from = s.Pos()
					doc = nil
				}
				switch s := s.(type) {
				case *ast.TypeSpec:
					u.kind, u.names = "type", []string{s.Name.Name}
					if d.Lparen.IsValid() {
						doc = s.Doc
					}
					if st, ok := s.Type.(*ast.StructType); ok && s.Name.Name == clientType {
						for _, fl := range st.Fields.List {
							for _, n := range fl.Names {
								clientFields = append(clientFields, n.Name)
								if sel, ok := starOf(fl.Type).(*ast.SelectorExpr); ok && sel.Sel.Name == "Operation" {
									opTyped[n.Name] = true
								}
							}
						}
					}
				case *ast.ValueSpec:
					u.kind = "var"
					for _, n := range s.Names {
						u.names = append(u.names, n.Name)
					}
					if d.Lparen.IsValid() {
						doc = s.Doc
					}
				}
				to := s.End()
				if !d.Lparen.IsValid() {
					to = d.End()
				}
				u.name, u.lines = u.names[0], span(doc, from, to)
				units = append(units, u)
			}
		case *ast.FuncDecl:
			if d == newClient {
				units = append(units, statementUnits(fset, f, d)...)
				continue
			}
			u := &unit{kind: "func", name: d.Name.Name, names: []string{d.Name.Name}, node: d,
				lines: span(d.Doc, d.Pos(), d.End()), sig: d.Type}
			if d.Recv != nil {
				u.names = nil
				if r := typeName(d.Recv.List[0].Type); r != clientType {
					u.kind, u.recv = "recvmethod", r // its type's owner owns it
					units = append(units, u)
					continue
				}
				u.kind = "method"
				u.exported = ast.IsExported(d.Name.Name)
				u.ctxFirst = firstParamIsContext(d.Type)
			}
			units = append(units, u)
		}
	}

	// Operations: the client's op<Name> fields (or fields of type
	// *runtime.Operation, named after the method whose name they match),
	// else ctx-first exported methods that are not another one's With...
	// variant.
	var ctxMethods []string
	for _, u := range units {
		if u.kind == "method" && u.exported && u.ctxFirst {
			ctxMethods = append(ctxMethods, u.name)
		}
	}
	var ops []string
	fieldOp := map[string]string{}
	for _, fl := range clientFields {
		rest, ok := strings.CutPrefix(fl, "op")
		switch {
		case ok && startsUpper(rest):
		case opTyped[fl]:
			rest = fl
			if i := slices.IndexFunc(ctxMethods, func(m string) bool { return strings.EqualFold(m, fl) }); i >= 0 {
				rest = ctxMethods[i]
			}
		default:
			continue
		}
		ops = append(ops, rest)
		fieldOp[fl] = rest
	}
	if len(ops) == 0 {
		for _, m := range ctxMethods {
			variant := slices.ContainsFunc(ctxMethods, func(o string) bool {
				return o != m && strings.HasPrefix(m, o+"With")
			})
			if !variant {
				ops = append(ops, m)
			}
		}
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("%s: no operations (no op<Name> fields of %s, no methods taking a context.Context)", filename, clientType)
	}
	isOp := map[string]bool{}
	for _, o := range ops {
		isOp[o] = true
	}
	methodNames := map[string]bool{}
	for _, u := range units {
		if u.kind == "method" {
			methodNames[u.name] = true
		}
	}

	// What each unit refers to: package-level names (idents), the
	// client's op fields and methods (selectors).
	byName := map[string]*unit{}
	for _, u := range units {
		for _, n := range u.names {
			byName[n] = u
		}
		if u.kind == "method" {
			byName["method "+u.name] = u
		}
	}
	refs := map[*unit][]*unit{}    // unit -> units it refers to
	opRefs := map[*unit][]string{} // unit -> ops whose field it refers to
	for _, u := range units {
		seen := map[*unit]bool{}
		add := func(v *unit) {
			if v != nil && v != u && !seen[v] {
				seen[v] = true
				refs[u] = append(refs[u], v)
			}
		}
		ast.Inspect(u.node, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				ast.Inspect(n.X, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok {
						add(byName[id.Name])
					}
					return true
				})
				if o, ok := fieldOp[n.Sel.Name]; ok && !slices.Contains(opRefs[u], o) {
					opRefs[u] = append(opRefs[u], o)
				}
				if methodNames[n.Sel.Name] {
					add(byName["method "+n.Sel.Name])
				}
				return false
			case *ast.KeyValueExpr:
				if _, ok := n.Key.(*ast.Ident); ok { // a field name
					ast.Inspect(n.Value, func(m ast.Node) bool {
						if id, ok := m.(*ast.Ident); ok {
							add(byName[id.Name])
						}
						return true
					})
					return false
				}
			case *ast.Ident:
				add(byName[n.Name])
			}
			return true
		})
	}
	referrers := map[*unit][]*unit{}
	for u, vs := range refs {
		for _, v := range vs {
			referrers[v] = append(referrers[v], u)
		}
	}

	// prefixOp is the longest operation name that name starts with (its
	// first letter in either case), followed by the end or a new word.
	prefixOp := func(name string) string {
		best := ""
		for _, o := range ops {
			for _, p := range []string{o, lowerFirst(o)} {
				rest, ok := strings.CutPrefix(name, p)
				if ok && len(o) > len(best) && (rest == "" || !unicode.IsLower(firstRune(rest))) {
					best = o
				}
			}
		}
		return best
	}
	// soleOp is the one operation that owns all of us (and at least one).
	soleOp := func(us []*unit) string {
		o := ""
		for _, u := range us {
			switch {
			case u.owner == "":
				return ""
			case o == "":
				o = u.owner
			case o != u.owner:
				return ""
			}
		}
		return o
	}

	// Direct ownership: the op's own method, its Params and Response
	// types, anything naming its op field alone.
	for _, u := range units {
		switch {
		case u.kind == "method" && isOp[u.name]:
			u.owner = u.name
		case u.kind == "type":
			if o := prefixOp(u.name); o != "" && (u.name == o+"Params" || strings.HasPrefix(u.name, o+"Response")) {
				u.owner = o
			}
		case u.kind != "recvmethod" && len(opRefs[u]) == 1:
			u.owner = opRefs[u][0]
		}
	}
	// Then, until nothing changes: what only one op's units refer to, or
	// what refers only to one op's units (a body variant calling the shared
	// send method; a registration naming the op's spec var); types only
	// when they also carry the op's name.
	for changed := true; changed; {
		changed = false
		for _, u := range units {
			if u.owner != "" || len(opRefs[u]) > 1 {
				continue
			}
			o := ""
			switch u.kind {
			case "type":
				if p := prefixOp(u.name); p != "" && soleOp(referrers[u]) == p {
					o = p
				}
				for _, v := range referrers[u] { // a type in the op's signature
					if v.kind == "method" && v.owner != "" && v.owner == prefixOp(u.name) && inSignature(v.sig, u.name) {
						o = v.owner
					}
				}
			case "var", "func":
				if o = prefixOp(u.name); o == "" {
					o = soleOp(referrers[u])
				}
			case "method":
				if p := prefixOp(u.name); p != "" && (strings.HasPrefix(u.name, p+"With") || !u.exported) {
					o = p
				} else if o = soleOp(referrers[u]); o == "" {
					o = ownerOfOwned(refs[u])
				}
			case "stmt":
				o = ownerOfOwned(refs[u])
			case "recvmethod":
				if t := byName[u.recv]; t != nil {
					o = t.owner
				}
			}
			if o != "" {
				u.owner, changed = o, true
			}
		}
	}

	out := &fileLines{Total: total}
	byOp := map[string]*opLines{}
	for _, o := range ops {
		byOp[o] = &opLines{Name: o, Parts: map[string]int{}}
	}
	for _, u := range units {
		if ol := byOp[u.owner]; ol != nil {
			ol.Lines += u.lines
			ol.Parts[u.kind+" "+u.name] += u.lines
		}
	}
	slices.Sort(ops)
	for _, o := range ops {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(byOp[o].Parts)), func(p string) bool { return strings.HasPrefix(p, "method ") }) {
			return nil, fmt.Errorf("%s: operation %s owns no method: the attribution does not know this file's shape", filename, o)
		}
		out.Ops = append(out.Ops, *byOp[o])
	}
	return out, nil
}

// ownerOfOwned is the one op owning every owned unit of us, when we
// refer to at least one owned unit and to no other op's.
func ownerOfOwned(us []*unit) string {
	o := ""
	for _, u := range us {
		switch {
		case u.owner == "":
		case o == "":
			o = u.owner
		case o != u.owner:
			return ""
		}
	}
	return o
}

// statementUnits makes one unit of each statement of NewClient's body,
// with the comment lines right above it.
func statementUnits(fset *token.FileSet, f *ast.File, fd *ast.FuncDecl) []*unit {
	line := func(p token.Pos) int { return fset.Position(p).Line }
	var us []*unit
	for i, s := range fd.Body.List {
		from := line(s.Pos())
		for j := len(f.Comments) - 1; j >= 0; j-- { // comments ending right above
			c := f.Comments[j]
			if c.Pos() > fd.Body.Pos() && c.End() < s.Pos() && line(c.End()) == from-1 {
				from = line(c.Pos())
			}
		}
		us = append(us, &unit{kind: "stmt", name: fmt.Sprintf("NewClient statement %d", i+1), node: s,
			lines: line(s.End()) - from + 1})
	}
	return us
}

// typeName is the name of T, *T or T[...].
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return typeName(e.X)
	case *ast.Ident:
		return e.Name
	case *ast.IndexExpr:
		return typeName(e.X)
	case *ast.IndexListExpr:
		return typeName(e.X)
	}
	return ""
}

func starOf(e ast.Expr) ast.Expr {
	if s, ok := e.(*ast.StarExpr); ok {
		return s.X
	}
	return e
}

func firstParamIsContext(ft *ast.FuncType) bool {
	if ft.Params == nil || len(ft.Params.List) == 0 {
		return false
	}
	s, ok := ft.Params.List[0].Type.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := s.X.(*ast.Ident)
	return ok && x.Name == "context" && s.Sel.Name == "Context"
}

// inSignature says whether name occurs in a method's parameter or result types.
func inSignature(ft *ast.FuncType, name string) bool {
	found := false
	if ft == nil {
		return false
	}
	ast.Inspect(ft, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

func startsUpper(s string) bool { return s != "" && unicode.IsUpper(firstRune(s)) }

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}
