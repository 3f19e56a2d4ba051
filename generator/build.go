package generator

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/model"
)

// builder turns a loaded spec and its resolved policies into the model.
// Every name is settled here, in a sorted order, so the same spec always
// gives the same names (protoc-gen-go's rule: names in the model, never
// while printing).
type builder struct {
	s     *spec
	r     *resolver
	file  *model.File
	diags Diagnostics

	pkg *namer // package-level identifiers
	// named maps a component schema (by pointer, so external files work)
	// to its Go type; byRef does the same for $ref strings.
	named map[*openapi3.Schema]*model.GoType
	byRef map[string]*model.GoType
}

var (
	rawMessage = &model.GoType{Kind: model.Qual, Pkg: "encoding/json", Name: "RawMessage"}
	timeTime   = &model.GoType{Kind: model.Qual, Pkg: "time", Name: "Time"}
)

func builtin(name string) *model.GoType { return &model.GoType{Kind: model.Builtin, Name: name} }

// clientReserved are the package-level names the client itself declares.
var clientReserved = []string{"Client", "Option", "NewClient", "WithHTTPClient", "WithRequestEditor", "WithLogger", "WithObserver", "DefaultServerURL"}

func build(s *spec, r *resolver, pkgName, source string) (*model.File, Diagnostics) {
	reserved := append(append(append([]string{}, clientReserved...), predeclared...), importNames...)
	reserved = append(reserved, pkgName)
	b := &builder{
		s: s, r: r,
		file:  &model.File{Package: pkgName, Source: source},
		pkg:   newNamer(reserved...),
		named: map[*openapi3.Schema]*model.GoType{},
		byRef: map[string]*model.GoType{},
	}
	if s.doc.Info != nil {
		b.file.Title = s.doc.Info.Title
	}
	b.schemas()
	b.operations()
	for _, sv := range s.doc.Servers {
		if sv == nil || sv.URL == "" {
			continue
		}
		u := sv.URL
		for name, v := range sv.Variables {
			if v != nil {
				u = strings.ReplaceAll(u, "{"+name+"}", v.Default)
			}
		}
		b.file.Servers = append(b.file.Servers, u)
	}
	breakValueCycles(b.file.Types)
	return b.file, b.diags
}

// schemas declares every components/schemas entry. Names are reserved
// for all of them first, so references resolve in any order.
func (b *builder) schemas() {
	if b.s.doc.Components == nil {
		return
	}
	names := sortedKeys(b.s.doc.Components.Schemas)
	for _, n := range names {
		ref := b.s.doc.Components.Schemas[n]
		if ref == nil || ref.Value == nil {
			continue
		}
		t := &model.GoType{Kind: model.Named, Name: b.pkg.name(exportedName(n, "Schema"))}
		local := strings.HasPrefix(ref.Ref, "#/")
		if _, dup := b.named[ref.Value]; !dup && !local {
			// Its own schema, or one from another file it names.
			b.named[ref.Value] = t
			if ref.Ref != "" {
				b.byRef[ref.Ref] = t
			}
		}
		b.byRef["#/components/schemas/"+n] = t
	}
	for _, n := range names {
		ref := b.s.doc.Components.Schemas[n]
		if ref == nil || ref.Value == nil {
			continue
		}
		t := b.byRef["#/components/schemas/"+n]
		if strings.HasPrefix(ref.Ref, "#/") {
			// An alias of another schema: type A B.
			b.file.Types = append(b.file.Types, &model.Type{Name: t.Name, Kind: model.Defined, Underlying: b.typeOf(ref, t.Name, "", true)})
			continue
		}
		b.declare(t.Name, ref.Value, "/components/schemas/"+esc(n))
	}
}

// declare adds a named type declaration for schema s.
func (b *builder) declare(name string, s *openapi3.Schema, ptr string) {
	decl := &model.Type{Name: name, Doc: docLines(s.Title, s.Description), Deprecated: s.Deprecated}
	b.file.Types = append(b.file.Types, decl)
	if isUnion(s) {
		b.declareUnion(decl, s)
		return
	}
	if props, ok := b.objectProps(s); ok {
		decl.Kind = model.Struct
		if ap := s.AdditionalProperties; ap.Schema != nil || (ap.Has != nil && *ap.Has) {
			decl.Extra = rawMessage
			if ap.Schema != nil {
				decl.Extra = b.elem(ap.Schema, name+"Value")
			}
		}
		decl.Fields = b.fields(name, props, decl.Extra != nil)
		return
	}
	if vals := enumValues(s); vals != nil {
		under := b.primitive(s)
		if under != nil {
			decl.Kind = model.Enum
			decl.Underlying = under
			seen := map[string]bool{}
			for _, v := range vals {
				key := fmt.Sprintf("%T:%v", v, v)
				if seen[key] || !enumFits(under, v) {
					continue
				}
				seen[key] = true
				decl.Values = append(decl.Values, model.EnumValue{Name: b.pkg.name(name + exportedName(fmt.Sprint(v), "Empty")), Value: v})
			}
			return
		}
	}
	decl.Kind = model.Defined
	decl.Underlying = b.typeOf(&openapi3.SchemaRef{Value: s}, name, ptr, false)
	if decl.Underlying.Kind == model.Named && decl.Underlying.Name == name {
		decl.Underlying = rawMessage
	}
}

type prop struct {
	name     string
	schema   *openapi3.SchemaRef
	required bool
}

// objectProps returns the properties of an object schema, allOf parts
// merged in (later parts win on a name clash), or false when s is not a
// struct-like object.
func (b *builder) objectProps(s *openapi3.Schema) ([]prop, bool) {
	if len(s.OneOf) > 0 || len(s.AnyOf) > 0 {
		return nil, false
	}
	byName := map[string]prop{}
	var walk func(s *openapi3.Schema, depth int)
	walk = func(s *openapi3.Schema, depth int) {
		if s == nil || depth > 32 {
			return
		}
		for _, part := range s.AllOf {
			if part != nil {
				walk(part.Value, depth+1)
			}
		}
		for n, p := range s.Properties {
			byName[n] = prop{name: n, schema: p, required: byName[n].required}
		}
		for _, n := range s.Required {
			if p, ok := byName[n]; ok {
				p.required = true
				byName[n] = p
			}
		}
	}
	walk(s, 0)
	if len(byName) == 0 {
		return nil, false
	}
	out := make([]prop, 0, len(byName))
	for _, n := range sortedKeys(byName) {
		out = append(out, byName[n])
	}
	return out, true
}

// jsonTagName reports whether encoding/json accepts s as a tag name.
func jsonTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) {
			continue
		}
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

func (b *builder) fields(owner string, props []prop, extra bool) []*model.Field {
	fn := newNamer()
	if extra {
		fn = newNamer("AdditionalProperties")
	}
	var out []*model.Field
	for _, p := range props {
		goName := fn.name(exportedName(p.name, "Field"))
		var desc, title string
		nullable := false
		if p.schema != nil && p.schema.Value != nil {
			nullable = isNullable(p.schema.Value)
			if p.schema.Value.ReadOnly || p.schema.Value.WriteOnly {
				// Sent in one direction only: the other side leaves it out.
				p.required = false
			}
			if p.schema.Ref == "" {
				// A $ref's description is the referenced type's doc.
				desc, title = p.schema.Value.Description, p.schema.Value.Title
			}
		}
		t := b.typeOf(p.schema, owner+goName, "", true)
		f := &model.Field{Name: goName, JSONName: p.name, Required: p.required, Doc: docLines(title, desc)}
		if !jsonTagName(p.name) {
			// encoding/json would ignore such a tag and use the Go name:
			// the type's own MarshalJSON/UnmarshalJSON handle the field.
			f.JSONName, f.WireName, f.ByHand = "-", p.name, true
			f.Doc = append(f.Doc, fmt.Sprintf("The spec names this property %q, which Go struct tags cannot hold; it is encoded by hand.", p.name))
		}
		switch {
		case p.required && !nullable:
			f.Type = t
		case t.Nilable():
			f.Type, f.OmitEmpty = t, !p.required
		default:
			f.Type, f.OmitEmpty = &model.GoType{Kind: model.Pointer, Elem: t}, !p.required
		}
		out = append(out, f)
	}
	return out
}

// typeOf maps a schema to a Go type. hint names a type declared for an
// inline object or enum; declareInline says whether such a declaration is
// wanted (false when the caller declares it itself).
func (b *builder) typeOf(ref *openapi3.SchemaRef, hint, ptr string, declareInline bool) *model.GoType {
	if ref == nil || ref.Value == nil {
		return rawMessage
	}
	s := ref.Value
	if t, ok := b.named[s]; ok && (declareInline || ref.Ref != "") {
		return t
	}
	if ref.Ref != "" {
		if t, ok := b.byRef[ref.Ref]; ok {
			return t
		}
		// An external schema: declare it once under its last path token.
		if declareInline {
			tok := ref.Ref[strings.LastIndexAny(ref.Ref, "/#")+1:]
			tok = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(tok, ".yaml"), ".yml"), ".json")
			t := &model.GoType{Kind: model.Named, Name: b.pkg.name(exportedName(tok, hint))}
			b.byRef[ref.Ref] = t
			b.named[s] = t
			b.declare(t.Name, s, "")
			return t
		}
	}
	if len(s.OneOf) > 0 || len(s.AnyOf) > 0 {
		if v := singleVariant(s); v != nil && len(s.Properties) == 0 {
			return b.typeOf(v, hint, ptr, declareInline)
		}
	}
	if isUnion(s) {
		if !declareInline {
			return rawMessage
		}
		t := &model.GoType{Kind: model.Named, Name: b.pkg.name(exportedName(hint, "Union"))}
		b.named[s] = t
		b.declare(t.Name, s, ptr)
		return t
	}
	if len(s.AllOf) == 1 && len(s.Properties) == 0 {
		return b.typeOf(s.AllOf[0], hint, ptr, declareInline)
	}
	if _, ok := b.objectProps(s); ok || (enumValues(s) != nil && b.primitive(s) != nil) {
		if !declareInline {
			// The caller declares hint itself; describe the shape only.
			return rawMessage
		}
		t := &model.GoType{Kind: model.Named, Name: b.pkg.name(exportedName(hint, "Object"))}
		b.named[s] = t
		b.declare(t.Name, s, ptr)
		return t
	}
	types := nonNullTypes(s)
	if p := b.primitive(s); p != nil {
		return p
	}
	switch {
	case len(types) == 1 && types[0] == "array" || len(types) == 0 && s.Items != nil:
		return &model.GoType{Kind: model.Slice, Elem: b.elem(s.Items, hint+"Item")}
	case len(types) == 1 && types[0] == "object" || len(types) == 0 && (s.AdditionalProperties.Schema != nil || s.AdditionalProperties.Has != nil):
		if ap := s.AdditionalProperties.Schema; ap != nil {
			return &model.GoType{Kind: model.Map, Elem: b.elem(ap, hint+"Value")}
		}
		return &model.GoType{Kind: model.Map, Elem: builtin("any")}
	}
	return rawMessage
}

// elem is typeOf for an array item or map value: never a bare nil-able
// pointer, always a declared type for inline objects.
func (b *builder) elem(ref *openapi3.SchemaRef, hint string) *model.GoType {
	return b.typeOf(ref, hint, "", true)
}

// primitive returns the Go type of a string, integer, number or boolean
// schema, or nil.
func (b *builder) primitive(s *openapi3.Schema) *model.GoType {
	types := nonNullTypes(s)
	if len(types) != 1 {
		return nil
	}
	switch types[0] {
	case "string":
		switch s.Format {
		case "date-time":
			return timeTime
		case "byte":
			return builtin("[]byte")
		}
		return builtin("string")
	case "integer":
		switch s.Format {
		case "int32":
			return builtin("int32")
		case "int64":
			return builtin("int64")
		case "uint32":
			return builtin("uint32")
		case "uint64":
			return builtin("uint64")
		}
		return builtin("int64")
	case "number":
		if s.Format == "float" {
			return builtin("float32")
		}
		return builtin("float64")
	case "boolean":
		return builtin("bool")
	}
	return nil
}

func nonNullTypes(s *openapi3.Schema) []string {
	if s.Type == nil {
		return nil
	}
	var out []string
	for _, t := range s.Type.Slice() {
		if t != "null" {
			out = append(out, t)
		}
	}
	return out
}

func isNullable(s *openapi3.Schema) bool {
	if s.Nullable || (s.Type != nil && s.Type.Includes("null")) {
		return true
	}
	// oneOf: [X, {type: "null"}] is how 3.1 specs write a nullable X.
	for _, list := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf} {
		for _, v := range list {
			if v != nil && v.Value != nil && v.Value.Type != nil && v.Value.Type.Is("null") {
				return true
			}
		}
	}
	return false
}

// singleVariant returns the only non-null variant of a oneOf/anyOf, which
// is how specs often spell "nullable X", or nil.
func singleVariant(s *openapi3.Schema) *openapi3.SchemaRef {
	var found *openapi3.SchemaRef
	for _, list := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf} {
		for _, v := range list {
			if v == nil || v.Value == nil {
				return nil
			}
			if t := v.Value.Type; t != nil && t.Is("null") {
				continue
			}
			if found != nil {
				return nil
			}
			found = v
		}
	}
	return found
}

func enumValues(s *openapi3.Schema) []any {
	if len(s.Enum) == 0 {
		return nil
	}
	return s.Enum
}

func enumFits(t *model.GoType, v any) bool {
	if t.Kind != model.Builtin {
		return false
	}
	switch t.Name {
	case "string":
		_, ok := v.(string)
		return ok
	case "bool":
		_, ok := v.(bool)
		return ok
	case "float32", "float64":
		_, ok := number(v)
		return ok
	case "int32", "int64", "uint32", "uint64":
		f, ok := number(v)
		return ok && f == math.Trunc(f) && (!strings.HasPrefix(t.Name, "u") || f >= 0)
	}
	return false
}

// docLines turns spec prose into comment lines: no control characters, no
// trailing blanks, at most 40 lines.
func docLines(parts ...string) []string {
	var out []string
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		for _, l := range strings.Split(p, "\n") {
			out = append(out, sanitizeComment(l))
		}
	}
	if len(out) > 40 {
		out = append(out[:40], "…")
	}
	// gofmt reads a lone capitalised line without punctuation as a heading
	// and rewrites it ("# Title"); a full stop keeps it prose.
	for i, l := range out {
		lone := (i == 0 || out[i-1] == "") && (i == len(out)-1 || out[i+1] == "")
		if lone && l != "" && !strings.ContainsAny(l[len(l)-1:], ".:!?;,)]}\"'`") {
			out[i] = l + "."
		}
	}
	return out
}

func sanitizeComment(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\t' {
			return ' '
		}
		if r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 || r == 0x85 {
			return ' '
		}
		return r
	}, s)
	return strings.TrimRight(s, " ")
}

var methodOrder = map[string]int{"GET": 0, "HEAD": 1, "OPTIONS": 2, "TRACE": 3, "PUT": 4, "POST": 5, "PATCH": 6, "DELETE": 7}

type opRef struct {
	path, method string
	item         *openapi3.PathItem
	op           *openapi3.Operation
}

func (b *builder) operations() {
	var ops []opRef
	for _, p := range b.s.doc.Paths.Keys() {
		item := b.s.doc.Paths.Value(p)
		if item == nil {
			continue
		}
		for m, op := range item.Operations() {
			if op != nil {
				ops = append(ops, opRef{p, strings.ToUpper(m), item, op})
			}
		}
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].path != ops[j].path {
			return ops[i].path < ops[j].path
		}
		mi, mj := methodOrder[ops[i].method], methodOrder[ops[j].method]
		if mi != mj {
			return mi < mj
		}
		return ops[i].method < ops[j].method
	})
	methods := newNamer("Breakers")
	ids := map[string]string{}
	fields := newNamer("server", "hc", "editors", "logger", "observer", "engine", "breakers")
	for _, o := range ops {
		base := o.op.OperationID
		if first, dup := ids[base]; dup && base != "" {
			// OpenAPI requires unique operationIds; which one gets the
			// plain name depends on path order, so say so.
			b.diags = append(b.diags, b.s.diag(Warning, pointerJoin("/paths", o.path, strings.ToLower(o.method), "operationId"),
				fmt.Sprintf("operationId %q is used again (first by %s); this one gets a numbered method name", base, first), "give every operation its own operationId"))
		} else {
			ids[base] = o.method + " " + o.path
		}
		if base == "" {
			base = strings.ToLower(o.method) + " " + o.path
		}
		name := methods.name(exportedName(base, "Call"))
		b.file.Operations = append(b.file.Operations, b.operation(o, name, fields.name("op"+name)))
	}
	// Breaker instances and retry policies in a stable order.
	locals := newNamer(append(append([]string{"c", "e", "o", "opts", "server", "err", "u"}, importNames...), predeclared...)...)
	for _, inst := range sortedKeys(b.r.instances) {
		bi := b.r.instances[inst]
		bi.Var = locals.name(unexportedName("breaker "+inst, "breaker"))
		b.file.Breakers = append(b.file.Breakers, bi)
	}
	seen := map[*model.RetryPolicy]bool{}
	var retries []*model.RetryPolicy
	for _, op := range b.file.Operations {
		if rp := op.Policy.Retry; rp != nil && !seen[rp] {
			seen[rp] = true
			retries = append(retries, rp)
		}
	}
	sort.SliceStable(retries, func(i, j int) bool { return retries[i].Name < retries[j].Name })
	for _, rp := range retries {
		rp.Var = locals.name(unexportedName("retry "+rp.Name, "retry"))
	}
	b.file.Retries = retries
}

var pathParamRE = regexp.MustCompile(`\{([^{}]+)\}`)

// argReserved are the names a generated method uses for itself.
var argReserved = []string{"c", "ctx", "params", "body", "bodyContentType", "req", "resp", "attempts", "err", "u", "q", "raw", "out", "rd", "key", "v", "s", "ct", "mp", "ctype", "form", "keys", "x", "f"}

func (b *builder) operation(o opRef, name, field string) *model.Operation {
	opPtr := pointerJoin("/paths", o.path, strings.ToLower(o.method))
	op := &model.Operation{
		Name: name, ID: o.op.OperationID, Method: o.method, Path: o.path,
		Summary: strings.Join(docLines(strings.SplitN(o.op.Summary, "\n", 2)[0]), ""),
		Doc:     docLines(o.op.Description), Deprecated: o.op.Deprecated, OpField: field,
	}
	if op.ID == "" {
		op.ID = o.method + " " + o.path
	}
	if len(o.op.Tags) > 0 {
		op.Tag = o.op.Tags[0]
	}

	// Parameters: the operation's override the path item's by (in, name).
	type key struct{ in, name string }
	var params []*openapi3.Parameter
	idx := map[key]int{}
	for _, list := range []openapi3.Parameters{o.item.Parameters, o.op.Parameters} {
		for _, pr := range list {
			if pr == nil || pr.Value == nil {
				continue
			}
			k := key{pr.Value.In, pr.Value.Name}
			if i, ok := idx[k]; ok {
				params[i] = pr.Value
				continue
			}
			idx[k] = len(params)
			params = append(params, pr.Value)
		}
	}

	keyHeader := b.r.keyHeader
	if v, ok := o.op.Extensions[extName].(map[string]any); ok {
		if s, ok := v["idempotencyKey"].(string); ok {
			keyHeader = s
		}
	}
	var keyParam *openapi3.Parameter
	for _, p := range params {
		if p.In == "header" && strings.EqualFold(p.Name, keyHeader) {
			keyParam = p
		}
	}
	in := opInput{name: op.ID, method: o.method, path: o.path, opPtr: opPtr, pathPtr: pointerJoin("/paths", o.path)}
	if v, ok := o.item.Extensions[extName]; ok {
		in.pathExt = v
	}
	if v, ok := o.op.Extensions[extName]; ok {
		in.opExt = v
	}
	if keyParam != nil {
		in.keyParam, in.keyParamName = true, keyParam.Name
	}
	op.Policy = b.r.operation(in)

	args := newNamer(append(append(append([]string{}, argReserved...), importNames...), predeclared...)...)
	pfields := newNamer()
	declared := map[string]*openapi3.Parameter{}
	for _, p := range params {
		if p.In == "path" {
			declared[p.Name] = p
		}
	}
	for _, m := range pathParamRE.FindAllStringSubmatch(o.path, -1) {
		pname := m[1]
		mp := &model.Param{SpecName: pname, In: model.InPath, Required: true, Type: builtin("string"), Style: "simple"}
		if p := declared[pname]; p != nil {
			mp.Type, mp.Object = b.paramType(p, name+exportedName(pname, "Param"))
			mp.Doc = docLines(p.Description)
			mp.Style, mp.Explode = p.Style, p.Explode != nil && *p.Explode
		}
		mp.GoName = args.name(unexportedName(pname, "param"))
		op.PathParams = append(op.PathParams, mp)
	}
	for _, p := range params {
		if p.In == "path" {
			continue
		}
		in := model.ParamIn(p.In)
		if in != model.InQuery && in != model.InHeader && in != model.InCookie {
			continue
		}
		mp := &model.Param{
			SpecName: p.Name, In: in, Required: p.Required, Doc: docLines(p.Description),
			Style: p.Style, Explode: p.Explode == nil || *p.Explode,
		}
		if p.Explode == nil && in != model.InQuery && in != model.InCookie {
			mp.Explode = false // simple style's default
		}
		if p.Explode == nil && p.Style != "" && p.Style != "form" {
			mp.Explode = false
		}
		mp.Type, mp.Object = b.paramType(p, name+exportedName(p.Name, "Param"))
		if p == keyParam {
			mp.IdempotencyKey, mp.Required = true, false
			mp.Doc = append(mp.Doc, "Left nil, the client makes one random key per call and sends it on every attempt.")
		}
		mp.GoName = pfields.name(exportedName(p.Name, "Param"))
		op.Params = append(op.Params, mp)
	}
	if op.Policy.IdempotencyHeader != "" && keyParam == nil {
		op.Params = append(op.Params, &model.Param{
			GoName: pfields.name("IdempotencyKey"), SpecName: op.Policy.IdempotencyHeader, In: model.InHeader,
			Type: builtin("string"), IdempotencyKey: true,
			Doc: []string{"IdempotencyKey is sent as the " + op.Policy.IdempotencyHeader + " header. Left nil, the client makes", "one random key per call and sends it on every attempt."},
		})
	}
	if len(op.Params) > 0 {
		op.ParamsType = b.pkg.name(name + "Params")
	}

	if rb := o.op.RequestBody; rb != nil && rb.Value != nil {
		op.Body = b.body(rb.Value, name)
	}
	op.ResponseType = b.pkg.name(name + "Response")
	op.Responses = b.responses(o.op, name)
	return op
}

// paramType is a parameter's Go type, and whether it is an object written
// as key/value pairs. Content-typed parameters and values that are neither
// text nor objects (unions) are sent as JSON text.
func (b *builder) paramType(p *openapi3.Parameter, hint string) (*model.GoType, bool) {
	ref := p.Schema
	if ref == nil {
		for _, mt := range p.Content {
			if mt != nil && mt.Schema != nil {
				return rawMessage, false
			}
		}
		return builtin("string"), false
	}
	t := b.typeOf(ref, hint, "", true)
	if paramEncodable(b, t) {
		return t, false
	}
	if t.Kind == model.Map {
		return t, true
	}
	if t.Kind == model.Named {
		for _, d := range b.file.Types {
			if d.Name == t.Name && d.Kind == model.Struct {
				return t, true
			}
		}
	}
	return rawMessage, false
}

// paramEncodable reports whether resgen can write t as parameter text:
// a primitive, a named primitive or enum, or a slice of those.
func paramEncodable(b *builder, t *model.GoType) bool {
	switch t.Kind {
	case model.Builtin:
		return t.Name != "any"
	case model.Qual:
		return t == timeTime || (t.Pkg == "time" && t.Name == "Time") || t == rawMessage
	case model.Slice:
		return t.Elem.Kind != model.Slice && paramEncodable(b, t.Elem)
	case model.Named:
		for _, d := range b.file.Types {
			if d.Name == t.Name {
				return d.Kind != model.Struct && d.Underlying != nil && d.Underlying.Kind == model.Builtin && d.Underlying.Name != "any"
			}
		}
		return false
	}
	return false
}

// mediaPick chooses the content type resgen encodes or decodes, preferring
// JSON, then forms, then text, then bytes.
func mediaPick(c openapi3.Content) (string, *openapi3.MediaType) {
	best, bestRank := "", 100
	for _, ct := range sortedKeys(c) {
		r := mediaRank(ct)
		if r < bestRank {
			best, bestRank = ct, r
		}
	}
	if best == "" {
		return "", nil
	}
	return best, c[best]
}

func mediaRank(ct string) int {
	l := strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]))
	switch {
	case l == "application/json":
		return 0
	case strings.HasSuffix(l, "+json") || strings.HasSuffix(l, "/json"):
		return 1
	case l == "application/x-www-form-urlencoded":
		return 2
	case l == "multipart/form-data":
		return 3
	case strings.HasPrefix(l, "text/"):
		return 4
	}
	return 5
}

func encodingOf(ct string) string {
	switch mediaRank(ct) {
	case 0, 1:
		return "json"
	case 2:
		return "form"
	case 3:
		return "multipart"
	case 4:
		return "text"
	}
	return "bytes"
}

func (b *builder) body(rb *openapi3.RequestBody, opName string) *model.Body {
	ct, mt := mediaPick(rb.Content)
	if mt == nil {
		return nil
	}
	body := &model.Body{ContentType: ct, Encoding: encodingOf(ct), Required: rb.Required}
	switch body.Encoding {
	case "multipart":
		if mt.Schema != nil && mt.Schema.Value != nil {
			if props, ok := b.objectProps(mt.Schema.Value); ok {
				body.Type = b.multipartType(opName+"Multipart", props)
				body.Encoding = "multipart-fields"
				break
			}
		}
		body.Type = builtin("[]byte")
	case "json":
		body.Type = b.typeOf(mt.Schema, opName+"Body", "", true)
	case "form":
		body.Type = &model.GoType{Kind: model.Qual, Pkg: "net/url", Name: "Values"}
		if mt.Schema != nil && mt.Schema.Value != nil {
			if _, ok := b.objectProps(mt.Schema.Value); ok {
				// A typed form: encoded through its JSON form (deepObject
				// brackets for nested values).
				body.Type = b.typeOf(mt.Schema, opName+"Form", "", true)
				body.Encoding = "form-typed"
			}
		}
	case "text":
		body.Type = builtin("string")
	default:
		body.Type = builtin("[]byte")
	}
	return body
}

var runtimeFile = &model.GoType{Kind: model.Qual, Pkg: "github.com/resgen/resgen/runtime", Name: "File"}

// isBinary reports whether a schema is file content.
func isBinary(s *openapi3.Schema) bool {
	return s != nil && s.Type != nil && s.Type.Is("string") && (s.Format == "binary" || s.ContentMediaType != "" || s.ContentEncoding == "binary")
}

// multipartType declares the struct of a multipart body: file parts as
// *runtime.File, others as their types.
func (b *builder) multipartType(name string, props []prop) *model.GoType {
	t := &model.GoType{Kind: model.Named, Name: b.pkg.name(name)}
	decl := &model.Type{Name: t.Name, Kind: model.Struct, Doc: []string{"The parts of a multipart/form-data body; file parts are *runtime.File."}}
	b.file.Types = append(b.file.Types, decl)
	fn := newNamer()
	for _, p := range props {
		f := &model.Field{Name: fn.name(exportedName(p.name, "Part")), JSONName: p.name, Required: p.required, OmitEmpty: true}
		var ps *openapi3.Schema
		if p.schema != nil {
			ps = p.schema.Value
		}
		switch {
		case isBinary(ps):
			f.Type = &model.GoType{Kind: model.Pointer, Elem: runtimeFile}
		case ps != nil && ps.Items != nil && isBinary(ps.Items.Value):
			f.Type = &model.GoType{Kind: model.Slice, Elem: &model.GoType{Kind: model.Pointer, Elem: runtimeFile}}
		default:
			f.Type = b.typeOf(p.schema, name+f.Name, "", true)
			if !f.Type.Nilable() {
				f.Type = &model.GoType{Kind: model.Pointer, Elem: f.Type}
			}
		}
		decl.Fields = append(decl.Fields, f)
	}
	return t
}

func (b *builder) responses(op *openapi3.Operation, opName string) []*model.Response {
	if op.Responses == nil {
		return nil
	}
	keys := op.Responses.Keys()
	sort.Slice(keys, func(i, j int) bool { return statusRank(keys[i]) < statusRank(keys[j]) })
	fields := newNamer("StatusCode", "Header", "Body", "Attempts", "Stream")
	var out []*model.Response
	for _, k := range keys {
		rr := op.Responses.Value(k)
		if rr == nil || rr.Value == nil || !validStatusKey(k) {
			continue
		}
		r := &model.Response{Status: k}
		if rr.Value.Description != nil {
			r.Doc = docLines(*rr.Value.Description)
		}
		ct, mt := mediaPick(rr.Value.Content)
		suffix := strings.ToUpper(k) // 200, 2XX
		if k == "default" {
			suffix = "Default"
		}
		switch enc := encodingOf(ct); {
		case mt == nil:
		case enc == "json":
			r.ContentType, r.Encoding = ct, "json"
			r.FieldName = fields.name("JSON" + suffix)
			r.Type = b.typeOf(mt.Schema, opName+"Response"+suffix+"Body", "", true)
		case enc == "text" && !(mt.Schema != nil && isBinary(mt.Schema.Value)):
			r.ContentType, r.Encoding = ct, "text"
			r.FieldName = fields.name("Text" + suffix)
			r.Type = builtin("string")
		case k[0] == '2' || k[0] == '1' || k[0] == '3':
			// Files and other bytes: the caller reads the body as a stream.
			r.ContentType, r.Encoding = ct, "stream"
		}
		out = append(out, r)
	}
	return out
}

func validStatusKey(k string) bool {
	if k == "default" {
		return true
	}
	if len(k) != 3 {
		return false
	}
	u := strings.ToUpper(k)
	if u[0] >= '1' && u[0] <= '5' && u[1:] == "XX" {
		return true
	}
	n, err := strconv.Atoi(k)
	return err == nil && n >= 100 && n <= 599
}

// statusRank orders exact codes first, then ranges, then default.
func statusRank(k string) int {
	if n, err := strconv.Atoi(k); err == nil {
		return n
	}
	if k == "default" {
		return 10000
	}
	return 1000 + int(k[0]-'0')
}

// breakValueCycles turns struct fields into pointers where value fields
// would make a type contain itself (which does not compile).
func breakValueCycles(types []*model.Type) {
	byName := map[string]*model.Type{}
	for _, t := range types {
		byName[t.Name] = t
	}
	// valueTarget returns the struct type a field holds by value, or nil.
	valueTarget := func(g *model.GoType) *model.Type {
		if g.Kind != model.Named {
			return nil
		}
		t := byName[g.Name]
		for t != nil && t.Kind == model.Defined && t.Underlying != nil && t.Underlying.Kind == model.Named {
			t = byName[t.Underlying.Name]
		}
		if t == nil || (t.Kind != model.Struct) {
			return nil
		}
		return t
	}
	const (
		white = iota
		grey
		black
	)
	color := map[*model.Type]int{}
	var visit func(t *model.Type)
	visit = func(t *model.Type) {
		color[t] = grey
		for _, f := range t.Fields {
			u := valueTarget(f.Type)
			if u == nil {
				continue
			}
			switch color[u] {
			case grey:
				f.Type = &model.GoType{Kind: model.Pointer, Elem: f.Type}
			case white:
				visit(u)
			}
		}
		color[t] = black
	}
	for _, t := range types {
		if t.Kind == model.Defined {
			// type A B where B is a struct holding an A by value.
			continue
		}
		if color[t] == white {
			visit(t)
		}
	}
	// Defined types whose underlying named type leads back to themselves.
	for _, t := range types {
		if t.Kind == model.Defined && t.Underlying != nil && t.Underlying.Kind == model.Named {
			seen := map[string]bool{t.Name: true}
			cur := byName[t.Underlying.Name]
			for cur != nil && cur.Kind == model.Defined && cur.Underlying != nil && cur.Underlying.Kind == model.Named {
				if seen[cur.Name] {
					t.Underlying = rawMessage
					break
				}
				seen[cur.Name] = true
				cur = byName[cur.Underlying.Name]
			}
			if cur != nil && seen[cur.Name] {
				t.Underlying = rawMessage
			}
		}
	}
}

// isUnion reports whether s is declared as a union type: a oneOf or anyOf
// of several variants, or a value of several JSON types (3.1
// `type: [integer, string]`).
func isUnion(s *openapi3.Schema) bool {
	if len(s.OneOf) > 0 || len(s.AnyOf) > 0 {
		return singleVariant(s) == nil || len(s.Properties) > 0
	}
	return len(nonNullTypes(s)) > 1
}

// jsonKind is the JSON kind a schema takes, for telling union variants
// apart; "any" when it cannot be known.
func jsonKind(s *openapi3.Schema) string {
	if s == nil {
		return "any"
	}
	types := nonNullTypes(s)
	if len(types) == 1 {
		return types[0]
	}
	switch {
	case len(types) > 1 || len(s.OneOf) > 0 || len(s.AnyOf) > 0:
		return "any"
	case len(s.Properties) > 0 || s.AdditionalProperties.Schema != nil || s.AdditionalProperties.Has != nil:
		return "object"
	case s.Items != nil:
		return "array"
	}
	for _, part := range s.AllOf {
		if part != nil && part.Value != nil {
			if k := jsonKind(part.Value); k != "any" {
				return k
			}
		}
	}
	return "any"
}

var kindFieldNames = map[string]string{"string": "String", "integer": "Int", "number": "Number", "boolean": "Bool", "array": "Array", "object": "Object"}

// declareUnion fills decl as a union of s's variants: its oneOf or anyOf
// entries, or its JSON types.
func (b *builder) declareUnion(decl *model.Type, s *openapi3.Schema) {
	decl.Kind = model.Union
	fields := newNamer("Unknown")
	// Properties written next to the oneOf belong to every variant: they
	// are fields of the union itself.
	base := *s
	base.OneOf, base.AnyOf, base.Discriminator = nil, nil, nil
	if props, ok := b.objectProps(&base); ok && (len(s.OneOf) > 0 || len(s.AnyOf) > 0) {
		decl.Fields = b.fields(decl.Name, props, false)
		for _, f := range decl.Fields {
			fields.taken[f.Name] = true
		}
	}
	refs := s.OneOf
	if len(refs) == 0 {
		refs, decl.AnyOf = s.AnyOf, true
	}
	if len(refs) == 0 {
		// type: [integer, string, ...]
		for _, t := range nonNullTypes(s) {
			v := *s
			v.Type = &openapi3.Types{t}
			v.Enum = nil
			refs = append(refs, &openapi3.SchemaRef{Value: &v})
		}
	}
	byRef := map[*openapi3.SchemaRef]*model.Variant{}
	for i, ref := range refs {
		if ref == nil || ref.Value == nil {
			continue
		}
		vs := ref.Value
		if t := vs.Type; t != nil && t.Is("null") {
			continue // null is every union's zero value
		}
		kind := jsonKind(vs)
		t := b.typeOf(ref, fmt.Sprintf("%sVariant%d", decl.Name, i+1), "", true)
		fieldName := kindFieldNames[kind]
		if t.Kind == model.Named {
			fieldName = t.Name
		}
		if fieldName == "" {
			fieldName = fmt.Sprintf("Variant%d", i+1)
		}
		v := &model.Variant{FieldName: fields.name(fieldName), Type: t, Kind: kind}
		if kind == "object" {
			if props, ok := b.objectProps(vs); ok {
				for _, p := range props {
					if p.required {
						v.Required = append(v.Required, p.name)
					}
				}
			}
		}
		decl.Variants = append(decl.Variants, v)
		byRef[ref] = v
	}
	d := s.Discriminator
	if d == nil || d.PropertyName == "" {
		// Cat and Dog may each inherit one from a common base (allOf).
		d = inheritedDiscriminator(refs)
	}
	if d == nil || d.PropertyName == "" {
		return
	}
	decl.Discriminator = d.PropertyName
	mapped := map[*model.Variant]bool{}
	for _, val := range sortedKeys(d.Mapping) {
		mr := d.Mapping[val]
		for ref, v := range byRef {
			if mappingMatches(mr, ref, refs) {
				v.Values = append(v.Values, val)
				mapped[v] = true
			}
		}
	}
	// Variants the mapping does not name are selected by their schema name.
	for ref, v := range byRef {
		if !mapped[v] && ref.Ref != "" {
			v.Values = append(v.Values, ref.Ref[strings.LastIndexAny(ref.Ref, "/#")+1:])
		}
	}
	for _, v := range decl.Variants {
		sort.Strings(v.Values)
	}
}

// mappingMatches reports whether a discriminator mapping value names the
// variant ref: the same schema, the same $ref, a bare schema name
// ("Dog"), or a pointer at an inline variant (".../oneOf/1").
func mappingMatches(mr openapi3.MappingRef, ref *openapi3.SchemaRef, refs openapi3.SchemaRefs) bool {
	switch {
	case mr.Value != nil && mr.Value == ref.Value:
		return true
	case mr.Ref == "":
		return false
	case mr.Ref == ref.Ref:
		return true
	case !strings.ContainsAny(mr.Ref, "/#") && ref.Ref != "":
		return ref.Ref[strings.LastIndexAny(ref.Ref, "/#")+1:] == mr.Ref
	case ref.Ref == "":
		for i, r := range refs {
			if r == ref {
				n := strconv.Itoa(i)
				return strings.HasSuffix(mr.Ref, "/oneOf/"+n) || strings.HasSuffix(mr.Ref, "/anyOf/"+n)
			}
		}
	}
	return false
}

// inheritedDiscriminator returns the discriminator every variant inherits
// through allOf from a base schema, or nil when they do not share one.
func inheritedDiscriminator(refs openapi3.SchemaRefs) *openapi3.Discriminator {
	var found *openapi3.Discriminator
	for _, r := range refs {
		if r == nil || r.Value == nil {
			continue
		}
		if t := r.Value.Type; t != nil && t.Is("null") {
			continue
		}
		d := ownDiscriminator(r.Value, 0)
		if d == nil || (found != nil && found.PropertyName != d.PropertyName) {
			return nil
		}
		found = d
	}
	return found
}

func ownDiscriminator(s *openapi3.Schema, depth int) *openapi3.Discriminator {
	if s == nil || depth > 8 {
		return nil
	}
	if s.Discriminator != nil && s.Discriminator.PropertyName != "" {
		return s.Discriminator
	}
	for _, p := range s.AllOf {
		if p != nil {
			if d := ownDiscriminator(p.Value, depth+1); d != nil {
				return d
			}
		}
	}
	return nil
}
