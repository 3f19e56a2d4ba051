package conformance

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"hash/fnv"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Mutants measure the harness itself: each kind plants one plausible
// client bug (of a class of bugs found in generated clients) at one site of a generated client,
// or of the runtime it calls, and the harness must then report a failure
// the unmutated client does not have (RunMutants). Sites are found with
// go/ast, not by matching text, so a kind keeps finding them while the
// generator's layout changes; a kind whose pattern is gone finds no site,
// which TestMutantKindsFindSites reports.
//
// Not catalogued, because no wire check can see them:
//   - an Idempotency-Key made anew on each attempt: the harness's server
//     answers the first attempt with the planned status, so a call has one
//     attempt (runtime tests own retries);
//   - a header name in another letter case: HTTP header names are
//     case-insensitive and net/http canonicalizes them;
//   - an enum constant with a wrong value: the driver fills arguments from
//     JSON by reflection, never through the constants (enum literals that
//     decode and encode values are catalogued: enum-value-altered).

// MutantKind is one kind of planted bug.
type MutantKind struct {
	Name string
	// Class is the class of client bugs it stands for.
	Class string
	// Runtime is the repo-relative runtime file the kind edits (through a
	// go build -overlay); "" for a kind that edits the generated client.
	Runtime string
	// uses, for a runtime kind, reports whether a generated client calls
	// the code the kind edits with values the mutant can change (only such
	// specs get the mutant).
	uses func(f *srcFile) bool
	find func(f *srcFile) []Site
}

// Site is one place a kind can plant its bug, with the edit that does.
type Site struct {
	Kind string
	// Func is the function or type holding the site.
	Func string
	// Desc says what the mutant does there.
	Desc string
	// File is the generated file's index (client kinds); Path is the
	// runtime file's repo-relative path (runtime kinds).
	File int
	Path string
	// Param is the wire name of the parameter the site is in ("" when
	// it is in none).
	Param string
	edits []edit
}

type edit struct {
	start, end int
	text       string
}

// Apply returns src with the site's edits made.
func (s Site) Apply(src []byte) []byte {
	es := slices.Clone(s.edits)
	sort.Slice(es, func(i, j int) bool { return es[i].start > es[j].start })
	out := slices.Clone(src)
	for _, e := range es {
		out = slices.Concat(out[:e.start:e.start], []byte(e.text), out[e.end:])
	}
	return out
}

func (s Site) String() string { return s.Func + ": " + s.Desc }

// srcFile is a parsed Go file and what the finders need of it.
type srcFile struct {
	src   []byte
	fset  *token.FileSet
	file  *ast.File
	types map[string]*ast.TypeSpec
	reach map[string]bool
	// liveNames caches live.
	liveNames map[string]bool
}

func parseSrc(name string, src []byte) (*srcFile, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	f := &srcFile{src: src, fset: fset, file: file, types: map[string]*ast.TypeSpec{}}
	for _, d := range file.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				f.types[ts.Name.Name] = ts
			}
		}
	}
	f.reach = f.reachable()
	return f, nil
}

func (f *srcFile) off(p token.Pos) int { return f.fset.File(p).Offset(p) }

func (f *srcFile) text(n ast.Node) string { return string(f.src[f.off(n.Pos()):f.off(n.End())]) }

func (f *srcFile) replace(n ast.Node, s string) edit {
	return edit{f.off(n.Pos()), f.off(n.End()), s}
}

func (f *srcFile) insert(p token.Pos, s string) edit { return edit{f.off(p), f.off(p), s} }

// excerpt is a node's text on one line, bounded, for a site's description.
func (f *srcFile) excerpt(n ast.Node) string {
	s := strings.Join(strings.Fields(f.text(n)), " ")
	if r := []rune(s); len(r) > 90 {
		s = string(r[:90]) + "…"
	}
	return s
}

// funcName names a function for a site: a Client method by its own name,
// another method as Type.Method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	if id, ok := t.(*ast.Ident); ok && id.Name != "Client" {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// isClientMethod reports whether fd is a method of the generated Client
// (the exported ones the harness calls and their send helpers).
func isClientMethod(fd *ast.FuncDecl) bool {
	if fd.Recv == nil || len(fd.Recv.List) == 0 || fd.Body == nil {
		return false
	}
	st, ok := fd.Recv.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, ok := st.X.(*ast.Ident)
	return ok && id.Name == "Client"
}

// inspect calls fn for every node in the bodies of the functions sel
// accepts, with the stack of its ancestors (innermost last).
func (f *srcFile) inspect(sel func(*ast.FuncDecl) bool, fn func(fd *ast.FuncDecl, stack []ast.Node, n ast.Node)) {
	for _, d := range f.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || !sel(fd) {
			continue
		}
		var stack []ast.Node
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return false
			}
			fn(fd, stack, n)
			stack = append(stack, n)
			return true
		})
	}
}

// calls calls fn for each call in Client methods whose function is one of names.
func (f *srcFile) calls(names []string, fn func(fd *ast.FuncDecl, stack []ast.Node, c *ast.CallExpr)) {
	f.inspect(isClientMethod, func(fd *ast.FuncDecl, stack []ast.Node, n ast.Node) {
		if c, ok := n.(*ast.CallExpr); ok && slices.Contains(names, f.text(c.Fun)) {
			fn(fd, stack, c)
		}
	})
}

// reachable are the type names a Client method's signature leads to,
// through their declarations: a field of another type is dead code no
// call can exercise.
func (f *srcFile) reachable() map[string]bool {
	seen := map[string]bool{}
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		ast.Inspect(n, func(x ast.Node) bool {
			id, ok := x.(*ast.Ident)
			if !ok || seen[id.Name] {
				return true
			}
			if ts := f.types[id.Name]; ts != nil {
				seen[id.Name] = true
				walk(ts.Type)
			}
			return true
		})
	}
	for _, d := range f.file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && isClientMethod(fd) && fd.Name.IsExported() {
			walk(fd.Type)
		}
	}
	return seen
}

// structField is one field of a reachable struct type.
type structField struct {
	typ   string
	field *ast.Field
	tag   reflect.StructTag
}

// fields lists the fields of reachable struct types, in source order.
func (f *srcFile) fields() []structField {
	var out []structField
	for _, d := range f.file.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, s := range gd.Specs {
			ts := s.(*ast.TypeSpec)
			st, ok := ts.Type.(*ast.StructType)
			if !ok || !f.reach[ts.Name.Name] {
				continue
			}
			for _, fl := range st.Fields.List {
				var tag reflect.StructTag
				if fl.Tag != nil {
					if s, err := strconv.Unquote(fl.Tag.Value); err == nil {
						tag = reflect.StructTag(s)
					}
				}
				out = append(out, structField{ts.Name.Name, fl, tag})
			}
		}
	}
	return out
}

func (sf structField) name() string {
	if len(sf.field.Names) > 0 {
		return sf.typ + "." + sf.field.Names[0].Name
	}
	return sf.typ
}

// withTag returns a struct tag literal with key's value replaced by value.
func withTag(tag reflect.StructTag, key, value string) string {
	re := regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(key) + `:"(?:[^"\\]|\\.)*"`)
	s := re.ReplaceAllStringFunc(string(tag), func(m string) string {
		lead := m[:len(m)-len(strings.TrimLeft(m, " \t"))]
		return lead + key + ":" + strconv.Quote(value)
	})
	if strings.Contains(s, "`") {
		return strconv.Quote(s)
	}
	return "`" + s + "`"
}

// strArg is call's i-th argument as a string literal's value.
func strArg(c *ast.CallExpr, i int) (string, *ast.BasicLit, bool) {
	if i >= len(c.Args) {
		return "", nil, false
	}
	lit, ok := c.Args[i].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", nil, false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, lit, err == nil
}

// otherName is a plausible wrong spelling of a wire name: snake_case and
// camelCase swapped, else the first letter's case flipped.
func otherName(s string) string {
	if i := strings.IndexByte(s, '_'); i > 0 && i < len(s)-1 {
		return s[:i] + strings.ToUpper(s[i+1:i+2]) + s[i+2:]
	}
	for i, r := range s {
		if i > 0 && unicode.IsUpper(r) && unicode.IsLower(rune(s[i-1])) {
			return s[:i] + "_" + strings.ToLower(string(r)) + s[i+len(string(r)):]
		}
	}
	for i, r := range s {
		if unicode.IsLetter(r) {
			flip := unicode.ToUpper(r)
			if unicode.IsUpper(r) {
				flip = unicode.ToLower(r)
			}
			if flip != r {
				return s[:i] + string(flip) + s[i+len(string(r)):]
			}
		}
	}
	return s + "_"
}

var (
	queryAdders  = []string{"req.Query.Add", "req.Query.AddList", "req.Query.AddObject"}
	headerAdders = []string{"req.AddHeader", "req.SetHeader"}
	mpAdders     = []string{"mp.Field", "mp.File", "mp.JSON", "mp.TypedFile"}
	paramAdders  = slices.Concat(queryAdders, headerAdders, []string{"req.AddCookie"})
)

var optionalCond = regexp.MustCompile(`^params\.\w+ != nil$`)

// optionalGuard is the if statement `if params.X != nil { ... }` (with no
// else) that encloses the innermost node of stack, if any.
func (f *srcFile) optionalGuard(stack []ast.Node) *ast.IfStmt {
	for i := len(stack) - 1; i >= 0; i-- {
		if s, ok := stack[i].(*ast.IfStmt); ok && s.Init == nil && optionalCond.MatchString(f.text(s.Cond)) {
			if s.Else != nil {
				return nil
			}
			return s
		}
	}
	return nil
}

// zeroText is the text a careless client sends for a value left unset:
// the zero of the type the guarded code formats.
func (f *srcFile) zeroText(body ast.Node) string {
	t := f.text(body)
	switch {
	case strings.Contains(t, "strconv.FormatBool"):
		return "false"
	case strings.Contains(t, "strconv.FormatInt"), strings.Contains(t, "strconv.FormatUint"), strings.Contains(t, "strconv.FormatFloat"):
		return "0"
	}
	return ""
}

// sentUnset: an optional parameter left unset is still sent, as its zero.
func sentUnset(adders []string, what string) func(f *srcFile) []Site {
	return func(f *srcFile) []Site {
		var out []Site
		done := map[*ast.IfStmt]bool{}
		f.calls(adders, func(fd *ast.FuncDecl, stack []ast.Node, c *ast.CallExpr) {
			name, _, ok := strArg(c, 0)
			g := f.optionalGuard(stack)
			if !ok || g == nil || done[g] {
				return
			}
			done[g] = true
			fun := f.text(c.Fun)
			if fun != "req.AddCookie" && !strings.HasPrefix(fun, "req.Query.") {
				fun = "req.SetHeader"
			} else if fun != "req.AddCookie" {
				fun = "req.Query.Add"
			}
			zero := f.zeroText(g.Body)
			out = append(out, Site{Func: funcName(fd), Param: name, Desc: fmt.Sprintf("%s %q left unset is sent as %q", what, name, zero),
				edits: []edit{f.insert(g.End(), fmt.Sprintf(" else {\n%s(%s, %s)\n}", fun, strconv.Quote(name), strconv.Quote(zero)))}})
		})
		return out
	}
}

// reqDecls are the `req := wire.Request{...}` statements of exported
// Client methods.
func (f *srcFile) reqDecls(fn func(fd *ast.FuncDecl, s *ast.AssignStmt)) {
	f.inspect(func(fd *ast.FuncDecl) bool { return isClientMethod(fd) && fd.Name.IsExported() }, func(fd *ast.FuncDecl, _ []ast.Node, n ast.Node) {
		if s, ok := n.(*ast.AssignStmt); ok && s.Tok == token.DEFINE && len(s.Lhs) == 1 && f.text(s.Lhs[0]) == "req" {
			if cl, ok := s.Rhs[0].(*ast.CompositeLit); ok && f.text(cl.Type) == "wire.Request" {
				fn(fd, s)
			}
		}
	})
}

// undeclaredAdd: the request carries something the spec does not declare.
func undeclaredAdd(stmt, desc string) func(f *srcFile) []Site {
	return func(f *srcFile) []Site {
		var out []Site
		f.reqDecls(func(fd *ast.FuncDecl, s *ast.AssignStmt) {
			out = append(out, Site{Func: funcName(fd), Desc: desc, edits: []edit{f.insert(s.End(), "\n"+stmt)}})
		})
		return out
	}
}

func undeclaredFormField(f *srcFile) []Site {
	var out []Site
	f.inspect(isClientMethod, func(fd *ast.FuncDecl, _ []ast.Node, n ast.Node) {
		if s, ok := n.(*ast.AssignStmt); ok && len(s.Rhs) == 1 && f.text(s.Rhs[0]) == "[]byte(form)" {
			out = append(out, Site{Func: funcName(fd), Desc: "form body gets an undeclared field debug=true",
				edits: []edit{f.replace(s.Rhs[0], `[]byte(form + "&debug=true")`)}})
		}
	})
	return out
}

// unwrap: the call is replaced by its only argument (an escaping
// dropped), where that is a free value (a formatted number or an enum
// never needs the escaping).
func unwrap(fun, desc string) func(f *srcFile) []Site {
	return func(f *srcFile) []Site {
		var out []Site
		f.calls([]string{fun}, func(fd *ast.FuncDecl, _ []ast.Node, c *ast.CallExpr) {
			if len(c.Args) != 1 || c.Ellipsis.IsValid() || !free(c.Args[0]) {
				return
			}
			out = append(out, Site{Func: funcName(fd), Desc: fmt.Sprintf("%s: %s", desc, f.excerpt(c.Args[0])), edits: []edit{f.replace(c, f.text(c.Args[0]))}})
		})
		return out
	}
}

// int64AsFloat64: a struct field's 64-bit integer type becomes float64.
func int64AsFloat64(f *srcFile) []Site {
	var out []Site
	for _, sf := range f.fields() {
		if len(sf.field.Names) == 0 {
			continue
		}
		var id *ast.Ident
		ast.Inspect(sf.field.Type, func(n ast.Node) bool {
			if x, ok := n.(*ast.Ident); ok && (x.Name == "int64" || x.Name == "uint64") && id == nil {
				id = x
			}
			_, fn := n.(*ast.FuncType)
			return !fn
		})
		if id != nil {
			out = append(out, Site{Func: sf.name(), Desc: fmt.Sprintf("%s typed %s becomes float64", sf.name(), f.text(sf.field.Type)),
				edits: []edit{f.replace(id, "float64")}})
		}
	}
	return out
}

// jsonFields are the reachable fields with a json tag naming a property,
// but for the fields of a multipart body's type: the client writes its
// parts by name, field by field, so their json tags are not on the wire
// (the harness's driver fills them by tag: a mutant there would only
// break the driver).
func (f *srcFile) jsonFields() []structField {
	mp := f.multipartTypes()
	var out []structField
	for _, sf := range f.fields() {
		if v, ok := sf.tag.Lookup("json"); ok && len(sf.field.Names) > 0 && sf.field.Tag != nil && !strings.HasPrefix(v, "-") && !mp[sf.typ] {
			out = append(out, sf)
		}
	}
	return out
}

// multipartTypes are the types of the body parameters of the Client
// methods that write a multipart body part by part.
func (f *srcFile) multipartTypes() map[string]bool {
	out := map[string]bool{}
	for _, d := range f.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || !isClientMethod(fd) || !strings.Contains(f.text(fd.Body), "wire.NewMultipart()") {
			continue
		}
		for _, p := range fd.Type.Params.List {
			for _, n := range p.Names {
				if n.Name == "body" {
					t := p.Type
					if st, ok := t.(*ast.StarExpr); ok {
						t = st.X
					}
					out[f.text(t)] = true
				}
			}
		}
	}
	return out
}

func omitzeroRemoved(f *srcFile) []Site {
	var out []Site
	for _, sf := range f.jsonFields() {
		v := sf.tag.Get("json")
		name, opts, _ := strings.Cut(v, ",")
		if !slices.Contains(strings.Split(opts, ","), "omitzero") {
			continue
		}
		switch sf.field.Type.(type) {
		case *ast.StarExpr, *ast.ArrayType, *ast.MapType:
		default:
			continue
		}
		out = append(out, Site{Func: sf.name(), Desc: fmt.Sprintf("%s (%q) loses omitzero: unset, it is written as null", sf.name(), name),
			edits: []edit{f.replace(sf.field.Tag, withTag(sf.tag, "json", name))}})
	}
	return out
}

func requiredPropertyDropped(f *srcFile) []Site {
	var out []Site
	for _, sf := range f.jsonFields() {
		v := sf.tag.Get("json")
		name, opts, _ := strings.Cut(v, ",")
		if slices.Contains(strings.Split(opts, ","), "omitzero") || slices.Contains(strings.Split(opts, ","), "omitempty") {
			continue
		}
		out = append(out, Site{Func: sf.name(), Desc: fmt.Sprintf("required property %q (%s) is never written or read", name, sf.name()),
			edits: []edit{f.replace(sf.field.Tag, withTag(sf.tag, "json", "-"))}})
	}
	return out
}

func propertyRenamed(f *srcFile) []Site {
	var out []Site
	for _, sf := range f.jsonFields() {
		v := sf.tag.Get("json")
		name, opts, _ := strings.Cut(v, ",")
		if name == "" {
			continue
		}
		alt := otherName(name)
		if opts != "" {
			alt += "," + opts
		}
		out = append(out, Site{Func: sf.name(), Desc: fmt.Sprintf("property %q is named %q", name, otherName(name)),
			edits: []edit{f.replace(sf.field.Tag, withTag(sf.tag, "json", alt))}})
	}
	return out
}

// responseHeaderWrongName: a response type's header field reads another
// header (two fields swap names; one alone loses or gains an X- prefix).
func responseHeaderWrongName(f *srcFile) []Site {
	var out []Site
	byType := map[string][]structField{}
	var order []string
	for _, sf := range f.fields() {
		if v, ok := sf.tag.Lookup("resgen"); ok && strings.HasPrefix(v, "header:") {
			if byType[sf.typ] == nil {
				order = append(order, sf.typ)
			}
			byType[sf.typ] = append(byType[sf.typ], sf)
		}
	}
	for _, t := range order {
		hs := byType[t]
		if len(hs) >= 2 {
			a, b := hs[0], hs[1]
			na, nb := a.tag.Get("resgen"), b.tag.Get("resgen")
			out = append(out, Site{Func: t, Desc: fmt.Sprintf("response headers %q and %q bound to each other's field", na[7:], nb[7:]),
				edits: []edit{f.replace(a.field.Tag, withTag(a.tag, "resgen", nb)), f.replace(b.field.Tag, withTag(b.tag, "resgen", na))}})
			continue
		}
		h := hs[0]
		name := h.tag.Get("resgen")[len("header:"):]
		alt := "X-" + name
		if len(name) > 2 && strings.EqualFold(name[:2], "x-") {
			alt = name[2:]
		}
		out = append(out, Site{Func: h.name(), Desc: fmt.Sprintf("response header %q read from %q", name, alt),
			edits: []edit{f.replace(h.field.Tag, withTag(h.tag, "resgen", "header:"+alt))}})
	}
	return out
}

// statusBindingWrong: a response type's body fields decode other
// statuses (two swap theirs; one alone moves to the next status).
func statusBindingWrong(f *srcFile) []Site {
	var out []Site
	byType := map[string][]structField{}
	var order []string
	for _, sf := range f.fields() {
		v, ok := sf.tag.Lookup("resgen")
		if !ok || strings.HasPrefix(v, "header:") || len(sf.field.Names) == 0 {
			continue
		}
		if byType[sf.typ] == nil {
			order = append(order, sf.typ)
		}
		byType[sf.typ] = append(byType[sf.typ], sf)
	}
	for _, t := range order {
		fs := byType[t]
		if len(fs) >= 2 {
			a, b := fs[0], fs[1]
			sa, ma, _ := strings.Cut(a.tag.Get("resgen"), ",")
			sb, mb, _ := strings.Cut(b.tag.Get("resgen"), ",")
			if sa != sb {
				ta, tb := sb, sa
				if ma != "" {
					ta += "," + ma
				}
				if mb != "" {
					tb += "," + mb
				}
				out = append(out, Site{Func: t, Desc: fmt.Sprintf("%s decodes status %s and %s status %s", a.name(), sb, b.name(), sa),
					edits: []edit{f.replace(a.field.Tag, withTag(a.tag, "resgen", ta)), f.replace(b.field.Tag, withTag(b.tag, "resgen", tb))}})
				continue
			}
		}
		a := fs[0]
		st, mode, _ := strings.Cut(a.tag.Get("resgen"), ",")
		first := strings.Fields(st)[0]
		alt := ""
		switch n, err := strconv.Atoi(first); {
		case err == nil:
			alt = strconv.Itoa(n + 1)
		case strings.EqualFold(first, "default"):
			alt = "2XX"
		case strings.HasPrefix(first, "4"):
			alt = "5XX"
		default:
			alt = "4XX"
		}
		tag := strings.Replace(st, first, alt, 1)
		if mode != "" {
			tag += "," + mode
		}
		out = append(out, Site{Func: a.name(), Desc: fmt.Sprintf("%s decodes status %s instead of %s", a.name(), alt, first),
			edits: []edit{f.replace(a.field.Tag, withTag(a.tag, "resgen", tag))}})
	}
	return out
}

// specLits are the string-valued fields key of composite literals of type typ.
func (f *srcFile) specLits(typ, key string, fn func(name string, kv *ast.KeyValueExpr, lit *ast.BasicLit, val string)) {
	ast.Inspect(f.file, func(n ast.Node) bool {
		cl, ok := n.(*ast.CompositeLit)
		if !ok || cl.Type == nil || f.text(cl.Type) != typ {
			return true
		}
		name := ""
		for _, e := range cl.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok && f.text(kv.Key) == "Name" {
				if lit, ok := kv.Value.(*ast.BasicLit); ok {
					name, _ = strconv.Unquote(lit.Value)
				}
			}
		}
		for _, e := range cl.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok && f.text(kv.Key) == key {
				if lit, ok := kv.Value.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if v, err := strconv.Unquote(lit.Value); err == nil {
						fn(name, kv, lit, v)
					}
				}
			}
		}
		return true
	})
}

func acceptWrong(f *srcFile) []Site {
	var out []Site
	f.specLits("impl.OperationSpec", "Accept", func(name string, _ *ast.KeyValueExpr, lit *ast.BasicLit, v string) {
		alt := "application/xml"
		if strings.Contains(v, "xml") {
			alt = "application/json"
		}
		out = append(out, Site{Func: "operation " + name, Desc: fmt.Sprintf("Accept %q sent as %q", v, alt), edits: []edit{f.replace(lit, strconv.Quote(alt))}})
	})
	return out
}

func contentTypeWrong(f *srcFile) []Site {
	var out []Site
	f.inspect(isClientMethod, func(fd *ast.FuncDecl, _ []ast.Node, n ast.Node) {
		cl, ok := n.(*ast.CompositeLit)
		if !ok || cl.Type == nil || f.text(cl.Type) != "wire.Request" {
			return
		}
		for _, e := range cl.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok || f.text(kv.Key) != "ContentType" {
				continue
			}
			lit, ok := kv.Value.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			v, _ := strconv.Unquote(lit.Value)
			alt := "application/json"
			if strings.Contains(v, "json") {
				alt = "text/plain"
			}
			out = append(out, Site{Func: funcName(fd), Desc: fmt.Sprintf("request Content-Type %q sent as %q", v, alt), edits: []edit{f.replace(lit, strconv.Quote(alt))}})
		}
	})
	return out
}

// rewriteCall replaces each call of fun in Client methods with what
// mk makes of it ("" leaves it).
func rewriteCall(fun string, mk func(f *srcFile, c *ast.CallExpr) (text, desc string)) func(f *srcFile) []Site {
	return func(f *srcFile) []Site {
		var out []Site
		f.calls([]string{fun}, func(fd *ast.FuncDecl, _ []ast.Node, c *ast.CallExpr) {
			if text, desc := mk(f, c); text != "" {
				out = append(out, Site{Func: funcName(fd), Desc: desc, edits: []edit{f.replace(c, text)}})
			}
		})
		return out
	}
}

func boolText(t, fl string) func(f *srcFile, c *ast.CallExpr) (string, string) {
	return func(f *srcFile, c *ast.CallExpr) (string, string) {
		if len(c.Args) != 1 {
			return "", ""
		}
		return fmt.Sprintf("map[bool]string{true: %q, false: %q}[%s]", t, fl, f.text(c.Args[0])),
			fmt.Sprintf("boolean %s written %s/%s", f.excerpt(c.Args[0]), t, fl)
	}
}

func intPrefix(p string) func(f *srcFile, c *ast.CallExpr) (string, string) {
	return func(f *srcFile, c *ast.CallExpr) (string, string) {
		if len(c.Args) != 2 || f.text(c.Args[1]) != "10" {
			return "", ""
		}
		return strconv.Quote(p) + " + " + f.text(c), fmt.Sprintf("integer %s written with a leading %q", f.excerpt(c.Args[0]), p)
	}
}

func floatArgs(f *srcFile, c *ast.CallExpr) (x, fmtc, bits ast.Expr, ok bool) {
	if len(c.Args) != 4 {
		return nil, nil, nil, false
	}
	return c.Args[0], c.Args[1], c.Args[3], true
}

func numberExponent(f *srcFile, c *ast.CallExpr) (string, string) {
	x, fm, _, ok := floatArgs(f, c)
	if !ok || f.text(fm) == "'e'" {
		return "", ""
	}
	return fmt.Sprintf("strconv.FormatFloat(%s, 'e', -1, 64)", f.text(x)), fmt.Sprintf("number %s written in exponent form", f.excerpt(x))
}

func numberTruncated(f *srcFile, c *ast.CallExpr) (string, string) {
	x, _, _, ok := floatArgs(f, c)
	if !ok {
		return "", ""
	}
	return fmt.Sprintf("strconv.FormatInt(int64(%s), 10)", f.text(x)), fmt.Sprintf("number %s truncated to an integer", f.excerpt(x))
}

func numberFloat32(f *srcFile, c *ast.CallExpr) (string, string) {
	x, fm, bits, ok := floatArgs(f, c)
	if !ok || f.text(bits) != "64" {
		return "", ""
	}
	return fmt.Sprintf("strconv.FormatFloat(%s, %s, -1, 32)", f.text(x), f.text(fm)), fmt.Sprintf("number %s written with float32 precision", f.excerpt(x))
}

// timeLayout: a date-time's layout (the argument of a Format call) is
// replaced.
func timeLayout(layout, desc string) func(f *srcFile) []Site {
	return func(f *srcFile) []Site {
		var out []Site
		f.inspect(isClientMethod, func(fd *ast.FuncDecl, _ []ast.Node, n ast.Node) {
			c, ok := n.(*ast.CallExpr)
			if !ok || len(c.Args) != 1 {
				return
			}
			sel, ok := c.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Format" || !strings.HasPrefix(f.text(c.Args[0]), "time.RFC3339") || f.text(c.Args[0]) == layout {
				return
			}
			out = append(out, Site{Func: funcName(fd), Desc: fmt.Sprintf("%s: %s", desc, f.excerpt(sel.X)), edits: []edit{f.replace(c.Args[0], layout)}})
		})
		return out
	}
}

func listDelimiter(f *srcFile) []Site {
	var out []Site
	alt := map[string]string{",": "|", "|": ",", " ": ","}
	f.calls([]string{"req.Query.AddList", "strings.Join"}, func(fd *ast.FuncDecl, _ []ast.Node, c *ast.CallExpr) {
		i := 1
		d, lit, ok := strArg(c, i)
		if !ok || alt[d] == "" {
			return
		}
		a := alt[d]
		if f.text(c.Fun) == "strings.Join" {
			a = ";"
		}
		out = append(out, Site{Func: funcName(fd), Desc: fmt.Sprintf("list %s joined by %q instead of %q", f.excerpt(c.Args[0]), a, d), edits: []edit{f.replace(lit, strconv.Quote(a))}})
	})
	return out
}

// styleArgs are the calls whose arguments carry a parameter's style and
// explode: the index of each (-1: none).
var styleArgs = map[string][2]int{
	"req.Query.AddObject": {1, 2},
	"wire.PathValue":      {0, 1},
	"wire.PathObject":     {0, 1},
	"wire.ObjectText":     {-1, 0},
}

func explodeFlipped(f *srcFile) []Site {
	var out []Site
	f.inspect(func(*ast.FuncDecl) bool { return true }, func(fd *ast.FuncDecl, _ []ast.Node, n ast.Node) {
		switch x := n.(type) {
		case *ast.CallExpr:
			a, ok := styleArgs[f.text(x.Fun)]
			if !ok || a[1] >= len(x.Args) {
				return
			}
			if st, _, _ := strArg(x, 0); f.text(x.Fun) == "wire.PathValue" && (!x.Ellipsis.IsValid() || st == "" || st == "simple") {
				return // one value, or a simple list: explode changes nothing
			}
			b := f.text(x.Args[a[1]])
			if b != "true" && b != "false" {
				return
			}
			if st, _, _ := strArg(x, max(a[0], 0)); a[0] >= 0 && st == "deepObject" {
				return // deepObject has one form: explode changes nothing
			}
			out = append(out, Site{Func: funcName(fd), Desc: fmt.Sprintf("explode %s flipped: %s", b, f.excerpt(x)), edits: []edit{f.replace(x.Args[a[1]], strconv.FormatBool(b != "true"))}})
		case *ast.CompositeLit:
			if x.Type == nil || f.text(x.Type) != "wire.FormEncoding" {
				return
			}
			if strings.Contains(f.text(x), `"deepObject"`) {
				return // deepObject has one form: explode changes nothing
			}
			for _, e := range x.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok && f.text(kv.Key) == "Explode" {
					b := f.text(kv.Value)
					if b == "true" || b == "false" {
						out = append(out, Site{Func: funcName(fd), Desc: fmt.Sprintf("form encoding explode %s flipped: %s", b, f.excerpt(x)), edits: []edit{f.replace(kv.Value, strconv.FormatBool(b != "true"))}})
					}
				}
			}
		}
	})
	return out
}

func styleWrong(f *srcFile) []Site {
	var out []Site
	query := map[string]string{"deepObject": "", "": "deepObject", "form": "deepObject", "spaceDelimited": "pipeDelimited", "pipeDelimited": "spaceDelimited"}
	path := map[string]string{"label": "matrix", "matrix": "label", "": "label", "simple": "label"}
	f.inspect(func(*ast.FuncDecl) bool { return true }, func(fd *ast.FuncDecl, _ []ast.Node, n ast.Node) {
		switch x := n.(type) {
		case *ast.CallExpr:
			fun := f.text(x.Fun)
			a, ok := styleArgs[fun]
			if !ok || a[0] < 0 {
				return
			}
			s, lit, ok := strArg(x, a[0])
			if !ok {
				return
			}
			m := path
			if fun == "req.Query.AddObject" {
				m = query
			}
			alt, ok := m[s]
			if !ok {
				return
			}
			out = append(out, Site{Func: funcName(fd), Desc: fmt.Sprintf("style %q written as %q: %s", s, alt, f.excerpt(x)), edits: []edit{f.replace(lit, strconv.Quote(alt))}})
		case *ast.CompositeLit:
			// A form property's encoding in the other style: deepObject
			// (brackets) as form, explode false (joined), and back.
			if x.Type == nil || f.text(x.Type) != "wire.FormEncoding" {
				return
			}
			var name, style string
			for _, e := range x.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if lit, ok := kv.Value.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, _ := strconv.Unquote(lit.Value)
						switch f.text(kv.Key) {
						case "Name":
							name = v
						case "Style":
							style = v
						}
					}
				}
			}
			alt := `Style: "form", Explode: false`
			if style == "form" {
				alt = `Style: "deepObject", Explode: true`
			}
			out = append(out, Site{Func: funcName(fd), Param: name, Desc: fmt.Sprintf("form property %q written with %s instead of its encoding %s", name, alt, f.excerpt(x)),
				edits: []edit{f.replace(x, fmt.Sprintf("wire.FormEncoding{Name: %q, %s}", name, alt))}})
		}
	})
	return out
}

// stmtOf is the statement of call c (the innermost node of stack): its
// own expression statement, or the if statement whose init assigns it.
// outer are the statement's ancestors.
func stmtOf(stack []ast.Node, c *ast.CallExpr) (st ast.Stmt, outer []ast.Node) {
	i := len(stack) - 1
	if i < 0 {
		return nil, nil
	}
	switch s := stack[i].(type) {
	case *ast.ExprStmt:
		if s.X == c {
			return s, stack[:i]
		}
	case *ast.AssignStmt:
		if i > 0 && slices.Contains(s.Rhs, ast.Expr(c)) {
			if is, ok := stack[i-1].(*ast.IfStmt); ok && is.Init == ast.Stmt(s) {
				return is, stack[:i-1]
			}
		}
	}
	return nil, nil
}

func requiredParamDropped(f *srcFile) []Site {
	var out []Site
	f.calls(paramAdders, func(fd *ast.FuncDecl, stack []ast.Node, c *ast.CallExpr) {
		name, _, ok := strArg(c, 0)
		if !ok {
			return
		}
		st, outer := stmtOf(stack, c)
		if st == nil || len(outer) < 2 {
			return
		}
		// The statement sits directly in `if params != nil { ... }`.
		blk, ok1 := outer[len(outer)-1].(*ast.BlockStmt)
		is, ok2 := outer[len(outer)-2].(*ast.IfStmt)
		if !ok1 || !ok2 || f.text(is.Cond) != "params != nil" || is.Body != blk {
			return
		}
		if isKeyHeader(f, c) {
			return
		}
		out = append(out, Site{Func: funcName(fd), Param: name, Desc: fmt.Sprintf("required parameter %q never sent", name), edits: []edit{f.replace(st, "")}})
	})
	f.calls([]string{"wire.PathSegment", "wire.PathValue"}, func(fd *ast.FuncDecl, _ []ast.Node, c *ast.CallExpr) {
		out = append(out, Site{Func: funcName(fd), Desc: fmt.Sprintf("path parameter left out: %s", f.excerpt(c)), edits: []edit{f.replace(c, `""`)}})
	})
	return out
}

func multipartDropped(f *srcFile) []Site {
	var out []Site
	f.calls(mpAdders, func(fd *ast.FuncDecl, stack []ast.Node, c *ast.CallExpr) {
		name, _, _ := strArg(c, 0)
		st, outer := stmtOf(stack, c)
		if st == nil {
			return
		}
		// A part alone in an if or a range goes with it (a range variable
		// left unused would not compile).
		if len(outer) >= 2 {
			if blk, ok := outer[len(outer)-1].(*ast.BlockStmt); ok && len(blk.List) == 1 {
				switch p := outer[len(outer)-2].(type) {
				case *ast.IfStmt:
					st = p
				case *ast.RangeStmt:
					st = p
				}
			}
		}
		out = append(out, Site{Func: funcName(fd), Desc: fmt.Sprintf("multipart part %q never sent", name), edits: []edit{f.replace(st, "")}})
	})
	return out
}

// nameWrong: the wire name (first argument) of each call of funs is misspelt.
func nameWrong(funs []string, what string, alt func(string) string) func(f *srcFile) []Site {
	return func(f *srcFile) []Site {
		var out []Site
		f.calls(funs, func(fd *ast.FuncDecl, _ []ast.Node, c *ast.CallExpr) {
			name, lit, ok := strArg(c, 0)
			if !ok || isKeyHeader(f, c) {
				return
			}
			a := alt(name)
			out = append(out, Site{Func: funcName(fd), Desc: fmt.Sprintf("%s %q sent as %q", what, name, a), edits: []edit{f.replace(lit, strconv.Quote(a))}})
		})
		return out
	}
}

// isKeyHeader reports whether c sets the idempotency key header resgen
// adds from x-resilience (req.SetHeader(name, key)): its name is the
// resilience policy's, which no wire check against the spec can judge.
func isKeyHeader(f *srcFile, c *ast.CallExpr) bool {
	return f.text(c.Fun) == "req.SetHeader" && len(c.Args) == 2 && f.text(c.Args[1]) == "key"
}

func headerAlt(name string) string {
	if strings.Contains(name, "-") {
		return strings.ReplaceAll(name, "-", "_")
	}
	return "X-" + name
}

// pathOperands are the non-literal operands of a path's + chain.
func pathOperands(e ast.Expr, out *[]ast.Expr) {
	if b, ok := e.(*ast.BinaryExpr); ok && b.Op == token.ADD {
		pathOperands(b.X, out)
		pathOperands(b.Y, out)
		return
	}
	if _, ok := e.(*ast.BasicLit); !ok {
		*out = append(*out, e)
	}
}

func pathParamsSwapped(f *srcFile) []Site {
	var out []Site
	f.inspect(isClientMethod, func(fd *ast.FuncDecl, _ []ast.Node, n ast.Node) {
		var path ast.Expr
		switch x := n.(type) {
		case *ast.CompositeLit:
			if x.Type == nil || f.text(x.Type) != "wire.Request" {
				return
			}
			for _, e := range x.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok && f.text(kv.Key) == "Path" {
					path = kv.Value
				}
			}
		case *ast.AssignStmt:
			if len(x.Lhs) == 1 && f.text(x.Lhs[0]) == "req.Path" {
				path = x.Rhs[0]
			}
		}
		if path == nil {
			return
		}
		var ops []ast.Expr
		pathOperands(path, &ops)
		if len(ops) < 2 || f.text(ops[0]) == f.text(ops[1]) {
			return
		}
		out = append(out, Site{Func: funcName(fd), Desc: fmt.Sprintf("path parameters swapped: %s and %s", f.excerpt(ops[0]), f.excerpt(ops[1])),
			edits: []edit{f.replace(ops[0], f.text(ops[1])), f.replace(ops[1], f.text(ops[0]))}})
	})
	return out
}

// unionWrongVariant: in a union's UnmarshalJSON, two variants' tests are
// swapped, so a value goes to the other variant.
func unionWrongVariant(f *srcFile) []Site {
	var out []Site
	for _, d := range f.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || fd.Name.Name != "UnmarshalJSON" || fd.Body == nil {
			continue
		}
		var ifs, cases []Site
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BlockStmt:
				var prev *ast.IfStmt
				for _, s := range x.List {
					is, ok := s.(*ast.IfStmt)
					if !ok || is.Init != nil || is.Else != nil {
						continue
					}
					if prev != nil && f.text(prev.Cond) != f.text(is.Cond) && len(ifs) == 0 {
						ifs = append(ifs, Site{Func: funcName(fd), Desc: fmt.Sprintf("variant tests swapped: %s / %s", f.excerpt(prev.Cond), f.excerpt(is.Cond)),
							edits: []edit{f.replace(prev.Cond, f.text(is.Cond)), f.replace(is.Cond, f.text(prev.Cond))}})
					}
					prev = is
				}
			case *ast.SwitchStmt:
				if x.Tag == nil || len(cases) > 0 {
					return true
				}
				var cl []*ast.CaseClause
				for _, s := range x.Body.List {
					if cc, ok := s.(*ast.CaseClause); ok && len(cc.List) > 0 && !strings.Contains(f.text(cc.List[0]), "KindNull") && len(cc.Body) > 0 {
						cl = append(cl, cc)
					}
				}
				if len(cl) >= 2 {
					a, b := cl[0], cl[1]
					ra := f.text(a.List[0])
					rb := f.text(b.List[len(b.List)-1])
					cases = append(cases, Site{Func: funcName(fd), Desc: fmt.Sprintf("variant cases swapped: %s / %s", ra, rb),
						edits: []edit{
							{f.off(a.List[0].Pos()), f.off(a.List[len(a.List)-1].End()), joinExprs(f, b.List)},
							{f.off(b.List[0].Pos()), f.off(b.List[len(b.List)-1].End()), joinExprs(f, a.List)},
						}})
				}
			}
			return true
		})
		out = append(out, ifs...)
		out = append(out, cases...)
	}
	return out
}

func joinExprs(f *srcFile, es []ast.Expr) string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = f.text(e)
	}
	return strings.Join(s, ", ")
}

// enumValueAltered: a literal the client decodes or encodes an enum
// value by is altered.
func enumValueAltered(f *srcFile) []Site {
	var out []Site
	alter := func(lit *ast.BasicLit) (string, bool) {
		v, err := strconv.Unquote(lit.Value)
		if err != nil {
			return "", false
		}
		u := strings.ToUpper(v)
		if u == v {
			u = strings.ToLower(v)
		}
		if u == v {
			if strings.HasSuffix(v, `"`) {
				u = v[:len(v)-1] + `x"`
			} else {
				u = v + "x"
			}
		}
		return strconv.Quote(u), true
	}
	f.inspect(func(*ast.FuncDecl) bool { return true }, func(fd *ast.FuncDecl, _ []ast.Node, n ast.Node) {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return
		}
		var lit *ast.BasicLit
		switch fun := f.text(c.Fun); {
		case fun == "wire.IsOneOf" && len(c.Args) >= 2:
			lit, _ = c.Args[1].(*ast.BasicLit)
		case strings.HasSuffix(fun, ".Allows") && len(c.Args) >= 2:
			lit, _ = c.Args[1].(*ast.BasicLit)
		case fun == "[]byte" && fd.Name.Name == "MarshalJSON" && len(c.Args) == 1:
			lit, _ = c.Args[0].(*ast.BasicLit)
		}
		if lit == nil || lit.Kind != token.STRING {
			return
		}
		if alt, ok := alter(lit); ok {
			out = append(out, Site{Func: funcName(fd), Desc: fmt.Sprintf("enum value %s read/written as %s", lit.Value, alt), edits: []edit{f.replace(lit, alt)}})
		}
	})
	return out
}

var paramOrBody = regexp.MustCompile(`^(params|body)\.\w+$`)

func listItemDropped(f *srcFile) []Site {
	var out []Site
	tail := func(x string) string { return fmt.Sprintf("%s[min(1, len(%s)):]", x, x) }
	f.inspect(isClientMethod, func(fd *ast.FuncDecl, _ []ast.Node, n ast.Node) {
		switch x := n.(type) {
		case *ast.RangeStmt:
			if t := f.text(x.X); paramOrBody.MatchString(t) {
				out = append(out, Site{Func: funcName(fd), Desc: "first item of " + t + " dropped", edits: []edit{f.replace(x.X, tail(t))}})
			}
		case *ast.CallExpr:
			fun := f.text(x.Fun)
			if len(x.Args) == 0 {
				return
			}
			if x.Ellipsis.IsValid() || fun == "strings.Join" {
				i := len(x.Args) - 1
				if fun == "strings.Join" {
					i = 0
				}
				if t := f.text(x.Args[i]); paramOrBody.MatchString(t) {
					out = append(out, Site{Func: funcName(fd), Desc: "first item of " + t + " dropped", edits: []edit{f.replace(x.Args[i], tail(t))}})
				}
			}
		}
	})
	return out
}

// Runtime kinds: each edits one function of a runtime file.

// runtimeFunc is the declaration of function name (of receiver type recv,
// "" for a function) in f.
func (f *srcFile) runtimeFunc(recv, name string) *ast.FuncDecl {
	for _, d := range f.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != name || fd.Body == nil {
			continue
		}
		r := ""
		if fd.Recv != nil && len(fd.Recv.List) > 0 {
			t := fd.Recv.List[0].Type
			if st, ok := t.(*ast.StarExpr); ok {
				t = st.X
			}
			r = f.text(t)
		}
		if r == recv {
			return fd
		}
	}
	return nil
}

// inFunc finds the first node in function recv.name whose text is old and
// replaces it with new.
func inFunc(recv, name, old, new, desc string) func(f *srcFile) []Site {
	return func(f *srcFile) []Site {
		fd := f.runtimeFunc(recv, name)
		if fd == nil {
			return nil
		}
		var found ast.Node
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if found == nil && n != nil && f.text(n) == old {
				found = n
			}
			return found == nil
		})
		if found == nil {
			return nil
		}
		fn := name
		if recv != "" {
			fn = recv + "." + name
		}
		return []Site{{Func: fn, Desc: desc, edits: []edit{f.replace(found, new)}}}
	}
}

// viaFloat is the helper (named name) appended to a runtime file by the
// kinds that pass JSON through float64.
func viaFloat(name string) string {
	return `

func ` + name + `(data []byte) []byte {
	var x any
	if json.Unmarshal(data, &x) != nil {
		return data
	}
	out, err := json.Marshal(x)
	if err != nil {
		return data
	}
	return out
}
`
}

func responseViaFloat(f *srcFile) []Site {
	fd := f.runtimeFunc("operation", "decode")
	if fd == nil {
		return nil
	}
	const fn = "mutantViaFloatResponse"
	var edits []edit
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && f.text(c.Fun) == "json.Unmarshal" && len(c.Args) == 2 && f.text(c.Args[0]) == "raw" {
			edits = append(edits, f.replace(c.Args[0], fn+"(raw)"))
		}
		return true
	})
	if len(edits) == 0 {
		return nil
	}
	edits = append(edits, edit{len(f.src), len(f.src), viaFloat(fn)})
	return []Site{{Func: "operation.decode", Desc: "JSON answers decoded through float64 (any) before the typed field", edits: edits}}
}

func requestViaFloat(f *srcFile) []Site {
	fd := f.runtimeFunc("operation", "call")
	if fd == nil {
		return nil
	}
	const fn = "mutantViaFloatRequest"
	var site []Site
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if s, ok := n.(*ast.AssignStmt); ok && len(s.Rhs) == 1 && f.text(s.Rhs[0]) == "json.Marshal(rq.JSON)" && site == nil {
			site = []Site{{Func: "operation.call", Desc: "JSON request bodies encoded through float64 (any)", edits: []edit{
				f.insert(s.End(), "\n"+f.text(s.Lhs[0])+" = "+fn+"("+f.text(s.Lhs[0])+")"),
				{len(f.src), len(f.src), viaFloat(fn)},
			}}}
		}
		return site == nil
	})
	return site
}

// free reports whether e is a value the caller sets as it likes (a
// variable or field, dereferenced or not): not a formatted number, an
// enum's conversion or a union's text, which no escaping can change.
func free(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		return free(x.X)
	case *ast.StarExpr:
		return free(x.X)
	case *ast.ParenExpr:
		return free(x.X)
	}
	return false
}

// callsWith reports whether a Client method calls fun with its i-th
// argument (-1: the last) free.
func callsWith(fun string, i int) func(f *srcFile) bool {
	return func(f *srcFile) bool {
		found := false
		f.calls([]string{fun}, func(_ *ast.FuncDecl, _ []ast.Node, c *ast.CallExpr) {
			j := i
			if j < 0 {
				j = len(c.Args) - 1
			}
			if j >= 0 && j < len(c.Args) && free(c.Args[j]) {
				found = true
			}
		})
		return found
	}
}

// callsAny reports whether a Client method calls one of funs.
func callsAny(funs ...string) func(f *srcFile) bool {
	return func(f *srcFile) bool {
		found := false
		f.calls(funs, func(*ast.FuncDecl, []ast.Node, *ast.CallExpr) { found = true })
		return found
	}
}

func either(fs ...func(f *srcFile) bool) func(f *srcFile) bool {
	return func(f *srcFile) bool {
		return slices.ContainsFunc(fs, func(fn func(*srcFile) bool) bool { return fn(f) })
	}
}

// typeHas reports whether type expression e holds (through the file's
// type declarations) one of the named types.
func (f *srcFile) typeHas(e ast.Expr, names ...string) bool {
	seen := map[string]bool{}
	var walk func(n ast.Node) bool
	walk = func(n ast.Node) bool {
		found := false
		ast.Inspect(n, func(x ast.Node) bool {
			id, ok := x.(*ast.Ident)
			if found || !ok {
				return !found
			}
			if slices.Contains(names, id.Name) {
				found = true
			} else if ts := f.types[id.Name]; ts != nil && !seen[id.Name] {
				seen[id.Name] = true
				found = walk(ts.Type)
			}
			return !found
		})
		return found
	}
	return e != nil && walk(e)
}

// paramType is the type expression of fd's parameter name.
func paramType(fd *ast.FuncDecl, name string) ast.Expr {
	for _, p := range fd.Type.Params.List {
		for _, n := range p.Names {
			if n.Name == name {
				return p.Type
			}
		}
	}
	return nil
}

// valueType is the type expression of a value a Client method passes:
// one of its parameters (&body, body) or a field of one (params.F).
func (f *srcFile) valueType(fd *ast.FuncDecl, e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.UnaryExpr:
		return f.valueType(fd, x.X)
	case *ast.StarExpr:
		return f.valueType(fd, x.X)
	case *ast.Ident:
		return paramType(fd, x.Name)
	case *ast.SelectorExpr:
		t := f.valueType(fd, x.X)
		if st, ok := t.(*ast.StarExpr); ok {
			t = st.X
		}
		id, ok := t.(*ast.Ident)
		if !ok || f.types[id.Name] == nil {
			return nil
		}
		if st, ok := f.types[id.Name].Type.(*ast.StructType); ok {
			for _, fl := range st.Fields.List {
				for _, n := range fl.Names {
					if n.Name == x.Sel.Name {
						return fl.Type
					}
				}
			}
		}
	}
	return nil
}

var bigInts = []string{"int64", "uint64"}

// deepObjectParam reports whether a Client method adds a deepObject
// query parameter.
func deepObjectParam(f *srcFile) bool {
	found := false
	f.calls([]string{"req.Query.AddObject"}, func(_ *ast.FuncDecl, _ []ast.Node, c *ast.CallExpr) {
		if len(c.Args) > 1 && f.text(c.Args[1]) == `"deepObject"` {
			found = true
		}
	})
	return found
}

// jsonRequestHas reports whether a JSON request body's type holds one
// of names.
func jsonRequestHas(names ...string) func(f *srcFile) bool {
	return func(f *srcFile) bool {
		found := false
		f.inspect(isClientMethod, func(fd *ast.FuncDecl, _ []ast.Node, n ast.Node) {
			if kv, ok := n.(*ast.KeyValueExpr); ok && !found && f.text(kv.Key) == "JSON" {
				found = f.typeHas(f.valueType(fd, kv.Value), names...)
			}
		})
		return found
	}
}

// jsonResponseHas reports whether a response field decoded from JSON
// holds one of names.
func jsonResponseHas(names ...string) func(f *srcFile) bool {
	return func(f *srcFile) bool {
		for _, sf := range f.fields() {
			v, ok := sf.tag.Lookup("resgen")
			if !ok || len(sf.field.Names) == 0 || strings.HasPrefix(v, "header:") || strings.HasSuffix(v, ",text") || strings.HasSuffix(v, ",stream") {
				continue
			}
			if f.typeHas(sf.field.Type, names...) {
				return true
			}
		}
		return false
	}
}

// formHas reports whether a form body or deepObject parameter's type
// holds one of names.
func formHas(names ...string) func(f *srcFile) bool {
	return func(f *srcFile) bool {
		found := false
		f.calls([]string{"wire.FormBody", "req.Query.AddObject"}, func(fd *ast.FuncDecl, _ []ast.Node, c *ast.CallExpr) {
			switch {
			case found:
			case f.text(c.Fun) == "wire.FormBody" && len(c.Args) > 0:
				found = f.typeHas(f.valueType(fd, c.Args[0]), names...)
			case len(c.Args) == 4 && f.text(c.Args[1]) == `"deepObject"`:
				found = f.typeHas(f.valueType(fd, c.Args[3]), names...)
			}
		})
		return found
	}
}

const (
	wireParams = "runtime/wire/params.go"
)

// MutantKinds is the catalogue.
var MutantKinds = []MutantKind{
	{Name: "optional-query-sent-unset", Class: "optional header or query parameter sent when unset",
		find: sentUnset(queryAdders, "query parameter")},
	{Name: "optional-header-sent-unset", Class: "optional header or query parameter sent when unset",
		find: sentUnset(append(slices.Clone(headerAdders), "req.AddCookie"), "header or cookie parameter")},
	{Name: "undeclared-query-param", Class: "undeclared query parameter",
		find: undeclaredAdd(`req.Query.Add("debug", "true")`, "an undeclared query parameter debug=true is sent")},
	{Name: "undeclared-header", Class: "undeclared header",
		find: undeclaredAdd(`req.SetHeader("X-Debug", "true")`, "an undeclared header X-Debug: true is sent")},
	{Name: "undeclared-form-field", Class: "undeclared form field", find: undeclaredFormField},
	// Equivalent sites of path-segment-unescaped: a path parameter whose
	// schema admits no text a path escapes (format: uuid: hex digits and
	// "-" only; openstack-console.yaml DeleteServer's server_id): every
	// valid value is sent the same escaped or not.
	{Name: "path-segment-unescaped", Class: "path segment sent unescaped",
		find: unwrap("wire.PathSegment", "path segment not escaped")},
	{Name: "cookie-unescaped", Class: "cookie value escaping", find: unwrap("wire.CookieValue", "cookie value not escaped")},
	{Name: "int64-as-float64", Class: "int64 field typed float64 (lost precision)", find: int64AsFloat64},
	// Equivalent sites of omitzero-removed (listed, still counted as
	// survivors): a field of a type only a deepObject query parameter or a
	// form body writes (the runtime's formValue drops a null member, so
	// no null reaches the wire: params.yaml Filter.MinSize, paramshapes.yaml
	// ListChargesCreatedVariant1.Gt); one of a parameter resgen warns it
	// cannot write as the spec says (the harness excepts that parameter's
	// failures: paramstyles.yaml QueryStylesPage.Size).
	{Name: "omitzero-removed", Class: "omitzero removed (sends null)", find: omitzeroRemoved},
	{Name: "required-property-dropped", Class: "dropped required part (body property)", find: requiredPropertyDropped},
	// Sites of property-renamed the harness cannot see by its policy: a
	// property of a form body resgen warns it cannot write (bodies.yaml
	// PostLooseFormLoose.K: the typed method's body failures are the
	// warning's) or of a deepObject list parameter it warns about
	// (paramshapes.yaml DeepObjectListsLinesItem.Amount).
	{Name: "property-renamed", Class: "body property renamed (json tag)", find: propertyRenamed},
	{Name: "response-header-wrong-name", Class: "response header bound to the wrong name", find: responseHeaderWrongName},
	{Name: "status-binding-wrong", Class: "wrong status binding", find: statusBindingWrong},
	{Name: "accept-wrong", Class: "wrong Accept", find: acceptWrong},
	{Name: "content-type-wrong", Class: "wrong content type", find: contentTypeWrong},
	{Name: "bool-as-digit", Class: "booleans written 1/0/TRUE", find: rewriteCall("strconv.FormatBool", boolText("1", "0"))},
	{Name: "bool-uppercase", Class: "booleans written 1/0/TRUE", find: rewriteCall("strconv.FormatBool", boolText("TRUE", "FALSE"))},
	{Name: "int-leading-zero", Class: "integers with a leading zero", find: rewriteCall("strconv.FormatInt", intPrefix("0"))},
	{Name: "int-plus-sign", Class: "integers with a sign", find: rewriteCall("strconv.FormatInt", intPrefix("+"))},
	{Name: "number-exponent", Class: "numbers in exponent form", find: rewriteCall("strconv.FormatFloat", numberExponent)},
	{Name: "number-truncated", Class: "lost precision", find: rewriteCall("strconv.FormatFloat", numberTruncated)},
	{Name: "number-float32", Class: "lost precision", find: rewriteCall("strconv.FormatFloat", numberFloat32)},
	{Name: "time-no-fraction", Class: "wrong time text", find: timeLayout("time.RFC3339", "date-time written without its fraction")},
	{Name: "time-no-offset", Class: "wrong time text", find: timeLayout(`"2006-01-02T15:04:05.999999999"`, "date-time written without its offset")},
	{Name: "list-delimiter-wrong", Class: "wrong style/explode (delimiter)", find: listDelimiter},
	{Name: "explode-flipped", Class: "wrong style/explode", find: explodeFlipped},
	{Name: "style-wrong", Class: "wrong style/explode", find: styleWrong},
	{Name: "required-param-dropped", Class: "dropped required part (parameter)", find: requiredParamDropped},
	{Name: "multipart-part-dropped", Class: "dropped required part (multipart part)", find: multipartDropped},
	{Name: "multipart-part-renamed", Class: "multipart part name wrong", find: nameWrong(mpAdders, "multipart part", otherName)},
	{Name: "query-name-wrong", Class: "query name wrong", find: nameWrong(queryAdders, "query parameter", otherName)},
	{Name: "header-name-wrong", Class: "header name wrong", find: nameWrong(headerAdders, "header", headerAlt)},
	{Name: "cookie-name-wrong", Class: "cookie name wrong", find: nameWrong([]string{"req.AddCookie"}, "cookie", otherName)},
	{Name: "path-params-swapped", Class: "path parameter order swapped", find: pathParamsSwapped},
	{Name: "union-wrong-variant", Class: "wrong union variant chosen on decode", find: unionWrongVariant},
	{Name: "enum-value-altered", Class: "enum value altered", find: enumValueAltered},
	{Name: "list-item-dropped", Class: "array items dropped", find: listItemDropped},

	{Name: "query-value-unescaped", Class: "query value sent unescaped", Runtime: wireParams,
		uses: either(callsWith("req.Query.Add", 1), callsAny("req.Query.AddObject", "wire.FormBody")),
		find: inFunc("Query", "Add", "url.QueryEscape(value)", "value", "query values written unescaped")},
	{Name: "path-segment-form-escaped", Class: "path segment escaped as a form (space as +)", Runtime: wireParams,
		uses: either(callsWith("wire.PathSegment", 0), callsWith("wire.PathValue", -1), callsAny("wire.PathObject")),
		find: inFunc("", "PathSegment", "url.PathEscape(v)", "url.QueryEscape(v)", "path segments escaped as form values")},
	{Name: "cookie-form-escaped", Class: "cookie form-escaped", Runtime: wireParams, uses: callsWith("wire.CookieValue", 0),
		find: cookieFormEscaped},
	{Name: "deepobject-keys-wrong", Class: "deepObject keys wrong", Runtime: wireParams,
		uses: either(deepObjectParam, callsAny("wire.FormBody")), find: inFunc("", "formValue", `name+"["+k+"]"`, `name+"."+k`, "deepObject keys written name.key instead of name[key]")},
	{Name: "form-list-indexed", Class: "form array joined wrongly", Runtime: wireParams, uses: callsAny("wire.FormBody"),
		find: formListIndexed},
	{Name: "form-number-via-float64", Class: "number decoded through float64 (lost precision, exponent)", Runtime: wireParams,
		uses: formHas("int64", "uint64", "int32", "float64", "float32", "Number"), find: formNumberViaFloat},
	{Name: "multipart-filename-dropped", Class: "multipart filename wrong", Runtime: wireParams, uses: callsAny("mp.File", "mp.TypedFile"),
		find: multipartFilename},
	{Name: "multipart-json-part-type", Class: "wrong content type (multipart part)", Runtime: wireParams, uses: callsAny("mp.JSON"),
		find: inFunc("Multipart", "JSON", `"application/json"`, `"text/plain"`, "JSON multipart parts sent as text/plain")},
	{Name: "response-via-float64", Class: "lost precision (response decoded through float64)", Runtime: "runtime/decode.go", uses: jsonResponseHas(bigInts...),
		find: responseViaFloat},
	{Name: "request-via-float64", Class: "lost precision (request encoded through float64)", Runtime: "runtime/call.go", uses: jsonRequestHas(bigInts...),
		find: requestViaFloat},
	// Bodies that go as bytes (mutantpieces.go).
	{Name: "upload-read-twice", Class: "upload body read twice", find: uploadReadTwice},
	{Name: "download-last-byte-dropped", Class: "download bytes lost", Runtime: "runtime/decode.go", uses: streamsDownloads,
		find: downloadLastByteDropped},
	{Name: "file-part-last-byte-dropped", Class: "upload bytes lost (file part)", Runtime: wireParams, uses: callsAny("mp.File", "mp.TypedFile"),
		find: filePartLastByteDropped},
	{Name: "sse-id-dropped", Class: "event fields lost", Runtime: "runtime/sse.go", uses: streamsEvents, find: sseIDDropped},
	{Name: "sse-data-lines-joined", Class: "event data altered", Runtime: "runtime/sse.go", uses: streamsEvents, find: sseDataLinesJoined},
	{Name: "jsonl-last-line-dropped", Class: "events lost", Runtime: "runtime/sse.go", uses: streamsEvents, find: jsonlLastLineDropped},
}

func cookieFormEscaped(f *srcFile) []Site {
	fd := f.runtimeFunc("", "CookieValue")
	if fd == nil || len(fd.Body.List) == 0 {
		return nil
	}
	const form = "return url.QueryEscape(v)"
	if len(fd.Body.List) == 1 && f.text(fd.Body.List[0]) == form {
		// The runtime already does this: nothing to plant (a site with
		// no edit says so).
		return []Site{{Func: "CookieValue", Desc: "the runtime already form-escapes cookie values (" + form + "): the unmutated client has this bug"}}
	}
	return []Site{{Func: "CookieValue", Desc: "cookie values form-escaped (space as +)", edits: []edit{
		{f.off(fd.Body.Lbrace) + 1, f.off(fd.Body.Rbrace), "\n\t" + form + "\n"}}}}
}

// formNumberViaFloat: formScalar's json.Number case writes the number
// through float64, as strconv's shortest form ('g': 1e+06).
func formNumberViaFloat(f *srcFile) []Site {
	fd := f.runtimeFunc("", "formScalar")
	if fd == nil {
		return nil
	}
	var site []Site
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		cc, ok := n.(*ast.CaseClause)
		if !ok || site != nil || len(cc.List) != 1 || f.text(cc.List[0]) != "json.Number" || len(cc.Body) == 0 {
			return site == nil
		}
		site = []Site{{Func: "formScalar", Desc: "form and deepObject numbers written through float64", edits: []edit{{
			f.off(cc.Body[0].Pos()), f.off(cc.Body[len(cc.Body)-1].End()),
			"f, _ := x.Float64()\n\t\treturn strconv.FormatFloat(f, 'g', -1, 64), true"}}}}
		return false
	})
	return site
}

func formListIndexed(f *srcFile) []Site {
	fd := f.runtimeFunc("", "formValue")
	if fd == nil {
		return nil
	}
	var site []Site
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if is, ok := n.(*ast.IfStmt); ok && f.text(is.Cond) == "top" && site == nil {
			site = []Site{{Func: "formValue", Desc: "top-level form lists written name[0]=a&name[1]=b instead of name=a&name=b", edits: []edit{f.replace(is.Cond, "false")}}}
		}
		return site == nil
	})
	return site
}

func multipartFilename(f *srcFile) []Site {
	fd := f.runtimeFunc("Multipart", "TypedFile")
	if fd == nil {
		return nil
	}
	var site []Site
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || site != nil || !strings.HasSuffix(f.text(c.Fun), ".Set") || len(c.Args) != 2 || f.text(c.Args[0]) != `"Content-Disposition"` {
			return site == nil
		}
		site = []Site{{Func: "Multipart.TypedFile", Desc: "file parts sent without a filename", edits: []edit{
			f.replace(c.Args[1], "`form-data; name=\"`+escapeQuotes(name)+`\"`")}}}
		return false
	})
	return site
}

// KindNamed returns the catalogue's kind of that name.
func KindNamed(name string) *MutantKind {
	for i := range MutantKinds {
		if MutantKinds[i].Name == name {
			return &MutantKinds[i]
		}
	}
	return nil
}

// ClientSites finds the sites of a client kind in one generated file.
func (k *MutantKind) ClientSites(file int, name string, src []byte) ([]Site, error) {
	if k.Runtime != "" {
		return nil, nil
	}
	f, err := parseSrc(name, src)
	if err != nil {
		return nil, err
	}
	return k.sites(f, file, ""), nil
}

// RuntimeSites finds the sites of a runtime kind in the runtime file's
// source (read from the resgen module at root). noop says why a site the
// kind found changes nothing (the runtime already has the bug).
func (k *MutantKind) RuntimeSites(root string) (sites []Site, src []byte, noop string, err error) {
	if k.Runtime == "" {
		return nil, nil, "", nil
	}
	src, err = os.ReadFile(filepath.Join(root, filepath.FromSlash(k.Runtime)))
	if err != nil {
		return nil, nil, "", err
	}
	f, err := parseSrc(k.Runtime, src)
	if err != nil {
		return nil, nil, "", err
	}
	for _, s := range k.find(f) {
		s.Kind, s.Path = k.Name, k.Runtime
		if bytes.Equal(s.Apply(f.src), f.src) {
			noop = s.Desc
			continue
		}
		sites = append(sites, s)
	}
	return sites, src, noop, nil
}

func (k *MutantKind) sites(f *srcFile, file int, path string) []Site {
	var out []Site
	keep := f.keepImports()
	for _, s := range k.find(f) {
		s.Kind, s.File, s.Path = k.Name, file, path
		if bytes.Equal(s.Apply(f.src), f.src) {
			continue
		}
		if s.Param == "" && len(s.edits) > 0 {
			s.Param = f.paramAt(s.edits[0].start)
		}
		if keep != "" {
			s.edits = append(s.edits, edit{len(f.src), len(f.src), keep})
		}
		out = append(out, s)
	}
	return out
}

// keepUse is a use of an imported package, so that a mutant that drops
// the file's last use of it still builds.
var keepUse = map[string]string{
	"strconv": "strconv.Itoa", "strings": "strings.Join", "fmt": "fmt.Sprint", "time": "time.Now",
	"encoding/json": "json.Marshal", "encoding/base64": "base64.StdEncoding", "io": "io.EOF",
	"github.com/resgen/resgen/runtime/wire": "wire.PathSegment",
}

func (f *srcFile) keepImports() string {
	var b strings.Builder
	for _, im := range f.file.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		if use, ok := keepUse[path]; ok && im.Name == nil {
			b.WriteString("\nvar _ = " + use)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n// Kept in use by the mutant." + b.String() + "\n"
}

// paramAt is the wire name of the parameter whose adding call (the
// innermost one) holds the offset, "" when none does.
func (f *srcFile) paramAt(off int) string {
	name, size := "", -1
	f.inspect(isClientMethod, func(_ *ast.FuncDecl, _ []ast.Node, n ast.Node) {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return
		}
		i := 0
		switch fun := f.text(c.Fun); {
		case slices.Contains(paramAdders, fun):
		case fun == "wire.PathValue" || fun == "wire.PathObject":
			i = 2
		default:
			return
		}
		start, end := f.off(c.Pos()), f.off(c.End())
		if off < start || off >= end || size >= 0 && end-start >= size {
			return
		}
		if s, _, ok := strArg(c, i); ok {
			name, size = s, end-start
		}
	})
	return name
}

// siteHash orders a kind's sites for sampling: stable while the generated
// code around a site changes.
func siteHash(spec string, s Site, n int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%d", s.Kind, filepath.Base(spec), s.Func, s.Desc, n)
	return h.Sum64()
}
