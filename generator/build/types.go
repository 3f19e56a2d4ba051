package build

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/generator/model"
	yaml "go.yaml.in/yaml/v4"
)

// Schemas become Go types here: structs, defined types, enums and unions,
// with every name settled in the builder's namer.

// schemas declares every components/schemas entry. Names are reserved
// for all of them first, so references resolve in any order.
func (b *builder) schemas() {
	if b.s.Doc.Components == nil {
		return
	}
	names := slices.Sorted(maps.Keys(b.s.Doc.Components.Schemas))
	for _, n := range names {
		ref := b.s.Doc.Components.Schemas[n]
		if ref == nil || ref.Value == nil {
			continue
		}
		t := &model.GoType{Kind: model.Named, Name: b.claimAt(b.pkg, exportedName(n, "Schema"), fmt.Sprintf("schema %q", n), b.at(diag.PointerJoin("/components/schemas", n)))}
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
		ref := b.s.Doc.Components.Schemas[n]
		if ref == nil || ref.Value == nil {
			continue
		}
		t := b.byRef["#/components/schemas/"+n]
		if strings.HasPrefix(ref.Ref, "#/") {
			// An alias of another schema: type A B.
			b.file.Types = append(b.file.Types, &model.Type{Name: t.Name, Kind: model.Defined, Underlying: b.typeOf(ref, t.Name, "", true)})
			continue
		}
		b.declare(t.Name, ref.Value, diag.PointerJoin("/components/schemas", n))
	}
}

// noteIgnored counts the keywords of s that no generated type expresses.
func (b *builder) noteIgnored(s *openapi3.Schema) {
	if b.seen[s] {
		return
	}
	b.seen[s] = true
	for kw, used := range map[string]bool{
		"not":               s.Not != nil,
		"if/then/else":      s.If != nil,
		"patternProperties": len(s.PatternProperties) > 0,
		"prefixItems":       len(s.PrefixItems) > 0,
	} {
		if used {
			if b.ignored[kw] == 0 {
				b.firstIgnored[kw] = s
			}
			b.ignored[kw]++
		}
	}
}

// declare adds a named type declaration for schema s.
func (b *builder) declare(name string, s *openapi3.Schema, ptr string) {
	b.noteIgnored(s)
	decl := &model.Type{Name: name, Doc: docLines(s.Title, s.Description), Deprecated: s.Deprecated}
	if strings.HasPrefix(ptr, "/components/schemas/") {
		decl.Pos = b.s.Pos(ptr)
	}
	b.file.Types = append(b.file.Types, decl)
	// `anyOf: [{type: object, ...}, {type: "null"}]` (a nullable object,
	// in 3.1) is declared as the object; the null stays with s, where a
	// field that holds it sees it.
	for depth := 0; depth < 8; depth++ {
		inner := wrapped(s)
		if inner == nil || inner.Ref != "" || inner.Value == nil {
			break
		}
		s = inner.Value
		b.noteIgnored(s)
	}
	if b.manyUnions(s) {
		decl.Kind, decl.Underlying = model.Defined, rawMessage
		return
	}
	if isUnion(s) || allOfUnion(s) != nil {
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
		decl.Fields = b.fields(name, s, props, decl.Extra != nil)
		return
	}
	if vals := load.EnumValues(s); vals != nil {
		if under := b.enumUnder(s); under != nil {
			decl.Kind = model.Enum
			decl.Underlying = under
			b.enumConstants(decl, s, vals, ptr)
			decl.Only = len(vals) == 1 && len(decl.Values) == 1
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
	// undeclared marks a required key that no properties entry declares.
	undeclared bool
}

// objectProps returns the properties of an object schema, allOf parts
// merged in (later parts win on a name clash), or false when s is not a
// struct-like object: a union, or an allOf with a union part.
func (b *builder) objectProps(s *openapi3.Schema) ([]prop, bool) {
	if len(s.OneOf) > 0 || len(s.AnyOf) > 0 || len(unionParts(s)) > 0 {
		return nil, false
	}
	return b.declaredProps(s, false)
}

// maxAllOfDepth bounds how deep allOf parts inside allOf parts are read.
const maxAllOfDepth = 32

// unionParts returns the unions s is one of each of: s itself when it is
// a oneOf/anyOf of several variants, and each allOf part that is one,
// found through nested allOf parts and the wrappers that make a part
// nullable (`oneOf: [X, {type: "null"}]`, which inside an allOf with an
// object is X).
func unionParts(s *openapi3.Schema) []*openapi3.Schema {
	var out []*openapi3.Schema
	if (len(s.OneOf) > 0 || len(s.AnyOf) > 0) && isUnion(s) {
		out = append(out, s)
	}
	if len(s.AllOf) == 0 {
		return out
	}
	seen := map[*openapi3.Schema]bool{s: true}
	var walk func(parts openapi3.SchemaRefs, depth int)
	walk = func(parts openapi3.SchemaRefs, depth int) {
		if depth > maxAllOfDepth {
			return
		}
		for _, part := range parts {
			p := allOfPart(part)
			if p == nil || seen[p] {
				continue
			}
			seen[p] = true
			if (len(p.OneOf) > 0 || len(p.AnyOf) > 0) && isUnion(p) {
				out = append(out, p)
			}
			walk(p.AllOf, depth+1)
		}
	}
	walk(s.AllOf, 0)
	return out
}

// requiredKeys are the keys s and its allOf parts require, sorted.
func requiredKeys(s *openapi3.Schema) []string {
	var out []string
	var walk func(s *openapi3.Schema, depth int)
	walk = func(s *openapi3.Schema, depth int) {
		if s == nil || depth > maxAllOfDepth {
			return
		}
		for _, part := range s.AllOf {
			walk(allOfPart(part), depth+1)
		}
		out = append(out, s.Required...)
	}
	walk(s, 0)
	slices.Sort(out)
	return slices.Compact(out)
}

// allOfPart is the schema an allOf part adds to the value: the part, or
// the one schema a nullable wrapper part stands for (the value of an
// allOf with an object part is not null); nil for none.
func allOfPart(part *openapi3.SchemaRef) *openapi3.Schema {
	for depth := 0; part != nil && part.Value != nil && depth < 8; depth++ {
		p := part.Value
		if len(p.Properties) > 0 || len(p.OneOf) == 0 && len(p.AnyOf) == 0 {
			return p
		}
		inner := singleVariant(p)
		if inner == nil {
			return p
		}
		part = inner
	}
	return nil
}

// allOfUnion returns the one union an allOf of s has as a part, when s
// has no oneOf/anyOf of its own and only this one: s is a union of that
// union's variants, and its other parts' properties are fields every
// variant shares. Nil otherwise.
func allOfUnion(s *openapi3.Schema) *openapi3.Schema {
	if len(s.OneOf) > 0 || len(s.AnyOf) > 0 || len(s.AllOf) == 0 {
		return nil
	}
	if parts := unionParts(s); len(parts) == 1 {
		return parts[0]
	}
	return nil
}

// manyUnions reports (and warns, once per schema) whether s is one of
// each of several unions (its own oneOf and an allOf part's, or two allOf
// parts'): no Go struct holds such a value, which is typed
// json.RawMessage.
func (b *builder) manyUnions(s *openapi3.Schema) bool {
	parts := unionParts(s)
	if len(parts) < 2 {
		return false
	}
	b.warnSchema(s, "many unions", "allOf",
		fmt.Sprintf("unsupported: a value that is one of each of %d oneOf/anyOf schemas (allOf parts) has no Go type; it is a json.RawMessage: write and read its JSON yourself", len(parts)),
		"")
	return true
}

// declaredProps is objectProps for s's own properties and allOf parts,
// whatever its oneOf/anyOf; for a union's own properties (ofUnion), a
// required key they do not declare is its variants' and left out.
func (b *builder) declaredProps(s *openapi3.Schema, ofUnion bool) ([]prop, bool) {
	if types := load.NonNullTypes(s); len(types) > 0 && !slices.Contains(types, "object") {
		// Properties constrain objects only: a string is a string.
		if len(s.Properties) > 0 {
			typ := strings.Join(types, " or ")
			b.warnSchema(s, "properties", "properties",
				fmt.Sprintf("type %s with properties (%s): properties apply to objects only; the value is typed as %s and they are ignored",
					typ, strings.Join(slices.Sorted(maps.Keys(s.Properties)), ", "), typ),
				"drop the properties, or make the type object if the value is one")
		}
		return nil, false
	}
	byName := map[string]prop{}
	required := map[string]bool{}
	var walk func(s *openapi3.Schema, depth int)
	walk = func(s *openapi3.Schema, depth int) {
		if s == nil || depth > 32 {
			return
		}
		for _, part := range s.AllOf {
			walk(allOfPart(part), depth+1)
		}
		for n, p := range s.Properties {
			if prev, ok := byName[n]; ok {
				p = b.mergeDecl(prev.schema, p, 0)
			}
			byName[n] = prop{name: n, schema: p}
		}
		for _, n := range s.Required {
			required[n] = true
		}
	}
	walk(s, 0)
	if len(byName) == 0 {
		return nil, false
	}
	// Required applies wherever the property is declared (another allOf
	// part, or nowhere: the key must still be sent, with any value).
	var undeclared []string
	for n := range required {
		p, ok := byName[n]
		switch {
		case ok:
		case ofUnion:
			continue
		default:
			p = prop{name: n, schema: s.AdditionalProperties.Schema, undeclared: true}
			undeclared = append(undeclared, n)
		}
		p.required = true
		byName[n] = p
	}
	if len(undeclared) > 0 {
		slices.Sort(undeclared)
		typed := "a json.RawMessage field, always sent (null when unset)"
		if s.AdditionalProperties.Schema != nil {
			typed = "a field of the additionalProperties type, always sent"
		}
		b.warnSchema(s, "required", "required",
			fmt.Sprintf("required keys no property declares (%s): each is %s", strings.Join(undeclared, ", "), typed),
			"declare them under properties, or fix their names")
	}
	out := make([]prop, 0, len(byName))
	for _, n := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[n])
	}
	return out, true
}

// mergeDecl is the schema of a property that two allOf parts declare,
// first as a and then as later: the allOf of both when both are objects
// (each may declare members the other does not: a list answer's "meta"
// with its pagination token in one part and its count in another), a
// list of the merged items when both are lists, else later (a scalar
// declared twice, or a part that only narrows it). A schema made is kept
// by the declarations it merges, so a type declared for it is declared
// once, and merging a declaration it already holds gives it back.
func (b *builder) mergeDecl(a, later *openapi3.SchemaRef, depth int) *openapi3.SchemaRef {
	if a == nil || a.Value == nil || later == nil || later.Value == nil || a.Value == later.Value || depth > 8 {
		return later
	}
	pa, pl := b.mergedOf(a), b.mergedOf(later)
	all := slices.Clone(pa)
	for _, p := range pl {
		if !slices.ContainsFunc(all, func(q *openapi3.SchemaRef) bool { return q.Value == p.Value }) {
			all = append(all, p)
		}
	}
	switch {
	case len(all) == len(pa):
		return a // a holds later already
	case len(all) == len(pl):
		return later
	}
	var key strings.Builder
	for _, p := range all {
		fmt.Fprintf(&key, "%p,", p.Value)
	}
	if m, ok := b.merged[key.String()]; ok {
		return m
	}
	if b.merged == nil {
		b.merged = map[string]*openapi3.SchemaRef{}
		b.mergedParts = map[*openapi3.Schema][]*openapi3.SchemaRef{}
	}
	// later until the merge is made: a cycle through these declarations
	// (a member's type merged again inside it) ends there.
	b.merged[key.String()] = later
	av, lv := a.Value, later.Value
	if !b.adds(av, lv, 0) {
		// later has every member a declares: it is the type, as a named
		// one stays (a part that narrows a free-form object to Pet is Pet).
		return later
	}
	var m *openapi3.Schema
	if items := arrayItems(av); items != nil {
		m = &openapi3.Schema{Type: &openapi3.Types{"array"}, Items: b.mergeDecl(items, arrayItems(lv), depth+1)}
	} else {
		m = &openapi3.Schema{AllOf: all}
	}
	// Both declarations apply: null only when both allow it, read- or
	// write-only when either says so.
	m.Nullable = isNullable(av) && isNullable(lv)
	m.ReadOnly, m.WriteOnly = av.ReadOnly || lv.ReadOnly, av.WriteOnly || lv.WriteOnly
	m.Title, m.Description = lv.Title, lv.Description
	if m.Description == "" && m.Title == "" {
		m.Title, m.Description = av.Title, av.Description
	}
	ref := &openapi3.SchemaRef{Value: m}
	b.merged[key.String()] = ref
	b.mergedParts[m] = all
	return ref
}

// mergedOf is the declarations the schema r merges (r itself when it is
// no merge).
func (b *builder) mergedOf(r *openapi3.SchemaRef) []*openapi3.SchemaRef {
	if parts, ok := b.mergedParts[r.Value]; ok {
		return parts
	}
	return []*openapi3.SchemaRef{r}
}

// adds reports whether the object or list of objects a declares a member
// (at any depth, through object members and list items) that later,
// another declaration of the same property, does not.
func (b *builder) adds(a, later *openapi3.Schema, depth int) bool {
	if depth > 8 {
		return false
	}
	if ai, li := arrayItems(a), arrayItems(later); ai != nil || li != nil {
		return ai != nil && li != nil && ai.Value != nil && li.Value != nil && ai.Value != li.Value && b.adds(ai.Value, li.Value, depth+1)
	}
	if jsonKind(a) != "object" || jsonKind(later) != "object" || len(unionParts(a)) > 0 || len(unionParts(later)) > 0 {
		return false
	}
	ap, _ := b.declaredProps(a, true)
	lp, _ := b.declaredProps(later, true)
	for _, p := range ap {
		i := slices.IndexFunc(lp, func(q prop) bool { return q.name == p.name })
		if i < 0 {
			return true
		}
		q := lp[i]
		if p.schema != nil && p.schema.Value != nil && q.schema != nil && q.schema.Value != nil && p.schema.Value != q.schema.Value && b.adds(p.schema.Value, q.schema.Value, depth+1) {
			return true
		}
	}
	return false
}

// arrayItems is the items schema of a list schema (type array, or no
// type and items), else nil.
func arrayItems(s *openapi3.Schema) *openapi3.SchemaRef {
	if s == nil || s.Items == nil || s.Items.Value == nil {
		return nil
	}
	if types := load.NonNullTypes(s); len(types) == 0 && len(s.Properties) == 0 || len(types) == 1 && types[0] == "array" {
		return s.Items
	}
	return nil
}

// warnSchema warns about schema s once per kind of warning, at the
// keyword key of s where s is written.
func (b *builder) warnSchema(s *openapi3.Schema, kind, key, msg, hint string) {
	w := schemaWarning{s, kind}
	if b.warned[w] {
		return
	}
	if b.warned == nil {
		b.warned = map[schemaWarning]bool{}
	}
	b.warned[w] = true
	b.diags = append(b.diags, b.schemaDiag(s, msg, hint, key))
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

// fields declares the struct fields of props, the properties of schema s
// of the type owner.
func (b *builder) fields(owner string, s *openapi3.Schema, props []prop, extra bool) []*model.Field {
	fn := newNamer()
	if extra {
		fn = newNamer("AdditionalProperties")
	}
	var out []*model.Field
	for _, p := range props {
		// A renamed field is warned at its property when s declares it,
		// else (an allOf part's, a required key's) at s (looked up only
		// then: finding s walks the document).
		at := func(msg, hint string) diag.Diagnostic {
			if _, own := s.Properties[p.name]; own {
				return b.schemaDiag(s, msg, hint, "properties", p.name)
			}
			return b.schemaDiag(s, msg, hint)
		}
		goName := b.claimAt(fn, exportedName(p.name, "Field"), fmt.Sprintf("property %q of %s", p.name, owner), at)
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
		if p.undeclared {
			f.Doc = append(f.Doc, "The spec requires this key but does not declare it as a property.")
		}
		if p.schema != nil && p.schema.Value != nil && p.schema.Value.Default != nil {
			// The server applies defaults; the doc says which.
			if d, err := json.Marshal(p.schema.Value.Default); err == nil && len(d) <= 200 {
				f.Doc = append(f.Doc, "Default: "+string(d)+".")
			}
		}
		if !jsonTagName(p.name) {
			// encoding/json would ignore such a tag and use the Go name:
			// the type's own MarshalJSON/UnmarshalJSON handle the field.
			f.JSONName, f.WireName, f.ByHand = "-", p.name, true
			f.Doc = append(f.Doc, fmt.Sprintf("The spec names this property %q, which Go struct tags cannot hold; it is encoded by hand.", p.name))
		}
		switch {
		case p.required && !nullable:
			f.Type = t
			f.EmptyNotNull = t.Kind == model.Slice || t.Kind == model.Map || t.Kind == model.Builtin && t.Name == "[]byte"
		case !p.required && nullable && !holdsNull(t):
			// Left out, null or a value: a PATCH can clear the field.
			f.Type, f.OmitEmpty = nullableOf(t), true
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
	b.noteIgnored(s)
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
			t := &model.GoType{Kind: model.Named, Name: b.claimAt(b.pkg, exportedName(tok, hint), fmt.Sprintf("schema %s", ref.Ref), b.schemaAt(s))}
			b.byRef[ref.Ref] = t
			b.named[s] = t
			b.declare(t.Name, s, "")
			return t
		}
	}
	if len(s.OneOf) > 0 || len(s.AnyOf) > 0 {
		if v := singleVariant(s); v != nil && len(s.Properties) == 0 && !narrowsOnly(s, v) {
			return b.typeOf(v, hint, ptr, declareInline)
		}
	}
	if len(s.AllOf) == 1 && len(s.Properties) == 0 && !isUnion(s) && !narrowsOnly(s, s.AllOf[0]) {
		return b.typeOf(s.AllOf[0], hint, ptr, declareInline)
	}
	if b.manyUnions(s) {
		return rawMessage
	}
	if isUnion(s) || allOfUnion(s) != nil {
		return b.inlineType(s, hint, "Union", ptr, declareInline)
	}
	if _, ok := b.objectProps(s); ok || (load.EnumValues(s) != nil && b.enumUnder(s) != nil) {
		return b.inlineType(s, hint, "Object", ptr, declareInline)
	}
	types := load.NonNullTypes(s)
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
		return freeForm
	}
	return rawMessage
}

// inlineType declares an inline schema that needs a type of its own (an
// object, enum or union) under the name hint, or returns json.RawMessage
// when the caller declares it itself (declare=false).
func (b *builder) inlineType(s *openapi3.Schema, hint, fallback, ptr string, declare bool) *model.GoType {
	if !declare {
		return rawMessage
	}
	t := &model.GoType{Kind: model.Named, Name: b.inlineName(exportedName(hint, fallback), s)}
	b.named[s] = t
	b.declare(t.Name, s, ptr)
	return t
}

// inlineName names the type of an inline schema. Its name is made from
// where it sits, not chosen in the spec, so a numbered one is no surprise
// and is not warned about; it is recorded for the warnings of later names.
func (b *builder) inlineName(want string, s *openapi3.Schema) string {
	got, _ := b.pkg.claim(want, "an inline schema", b.schemaAt(s))
	return got
}

// elem is typeOf for an array item or map value: never a bare nil-able
// pointer, always a declared type for inline objects.
func (b *builder) elem(ref *openapi3.SchemaRef, hint string) *model.GoType {
	return b.typeOf(ref, hint, "", true)
}

// primitive returns the Go type of a string, integer, number or boolean
// schema, or nil.
func (b *builder) primitive(s *openapi3.Schema) *model.GoType {
	types := valueTypes(s)
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

// enumUnder is the underlying type of an enum type for s: a builtin, as
// type X time.Time would lose time.Time's JSON methods.
func (b *builder) enumUnder(s *openapi3.Schema) *model.GoType {
	if p := b.primitive(s); p != nil && p.Kind == model.Builtin {
		return p
	}
	return nil
}

// valueTypes is nonNullTypes, or for a schema with no type the one its
// enum or const values have.
func valueTypes(s *openapi3.Schema) []string {
	if types := load.NonNullTypes(s); len(types) > 0 {
		return types
	}
	if t := load.ValueType(s); t != "" {
		return []string{t}
	}
	return nil
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

// wrapped returns the one schema s stands for, when s only wraps it: the
// only non-null variant of a oneOf/anyOf, or the one part of an allOf,
// with no properties or required keys of its own; else nil.
func wrapped(s *openapi3.Schema) *openapi3.SchemaRef {
	var inner *openapi3.SchemaRef
	switch {
	case len(s.Properties) > 0 || len(s.Required) > 0:
	case len(s.OneOf) > 0 || len(s.AnyOf) > 0:
		inner = singleVariant(s)
	case len(s.AllOf) == 1:
		inner = s.AllOf[0]
	}
	if inner == nil || narrowsOnly(s, inner) {
		return nil
	}
	return inner
}

// narrowsOnly reports whether inner, the one schema s wraps, says nothing
// of the type that s declares (`type: integer, allOf: [{minimum: 0}]`):
// the type is s's.
func narrowsOnly(s *openapi3.Schema, inner *openapi3.SchemaRef) bool {
	return len(load.NonNullTypes(s)) > 0 && inner != nil && inner.Value != nil && jsonKind(inner.Value) == "any"
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

// enumConstants fills decl's constants from vals, the enum of s (at ptr in
// the root document, "" when unknown), and warns about each number that
// gets no constant because it would be wrong.
func (b *builder) enumConstants(decl *model.Type, s *openapi3.Schema, vals []any, ptr string) {
	var lits []*yaml.Node
	for _, v := range vals {
		if f, ok := v.(float64); ok && math.Abs(f) >= floatExact {
			lits = b.enumLiterals(s)
			break
		}
	}
	seen := map[string]bool{}
	for i, v := range vals {
		var lit *yaml.Node
		if i < len(lits) {
			lit = lits[i]
		}
		val, text, why, ok := enumConstant(decl.Underlying, v, lit)
		if !ok {
			if why != "" {
				msg := fmt.Sprintf("unsupported: %s's enum value %s; no constant is generated for it (the type still takes the value)", decl.Name, why)
				var d diag.Diagnostic
				switch {
				case lit != nil:
					d = b.s.NodeDiag(diag.Warning, lit, msg, "")
				case ptr != "":
					d = b.s.Diag(diag.Warning, diag.PointerJoin(ptr, "enum", strconv.Itoa(i)), msg, "")
				default:
					d = b.schemaDiag(s, msg, "", "enum", strconv.Itoa(i))
				}
				b.diags = append(b.diags, d)
			}
			continue
		}
		key := fmt.Sprintf("%T:%s", val, text)
		if seen[key] {
			continue
		}
		seen[key] = true
		if _, isStr := val.(string); !isStr && strings.HasPrefix(text, "-") {
			// -5 is Minus5: "X5" and a numbered "X52" would read as other values.
			text = "minus " + text[1:]
		}
		var at func(msg, hint string) diag.Diagnostic
		switch {
		case lit != nil:
			at = func(msg, hint string) diag.Diagnostic { return b.s.NodeDiag(diag.Warning, lit, msg, hint) }
		case ptr != "":
			at = b.at(diag.PointerJoin(ptr, "enum", strconv.Itoa(i)))
		default:
			at = b.schemaAt(s, "enum", strconv.Itoa(i))
		}
		name := b.claimAt(b.pkg, decl.Name+exportedName(text, "Empty"), fmt.Sprintf("the constant of %s's enum value %q", decl.Name, text), at)
		decl.Values = append(decl.Values, model.EnumValue{Name: name, Value: val})
	}
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
		if isNullableType(g) {
			g = g.Elem // runtime.Nullable[T] holds a T
		}
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
				if isNullableType(f.Type) {
					f.Type = nullableOf(&model.GoType{Kind: model.Pointer, Elem: f.Type.Elem})
					break
				}
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

// aliasJSONTypes makes each type defined as another named type an alias
// of it (type T = U): a defined type has none of U's methods, so `type T
// time.Time` encodes as {}, `type T json.RawMessage` as base64, and a
// union, a struct with additional properties or a one-value enum lose
// their MarshalJSON/UnmarshalJSON. A schema that is another schema's
// name is that schema; no generated code declares methods on T.
func aliasJSONTypes(types []*model.Type) {
	for _, t := range types {
		if u := t.Underlying; t.Kind == model.Defined && u != nil && (u.Kind == model.Qual || u.Kind == model.Named || u.Kind == model.Map && u.Name != "") {
			t.Alias = true
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
	return len(load.NonNullTypes(s)) > 1
}

// jsonKind is the JSON kind a schema takes, for telling union variants
// apart; "any" when it cannot be known.
func jsonKind(s *openapi3.Schema) string {
	if s == nil {
		return "any"
	}
	types := valueTypes(s)
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
	fields := newNamer("Unknown", "ParamText")
	// An allOf of objects and one union is that union's variants with the
	// objects' properties.
	union := s
	if part := allOfUnion(s); part != nil {
		union = part
	}
	// Properties written next to the oneOf (or in the other allOf parts)
	// belong to every variant: they are fields of the union itself.
	var shared *objectShape
	if props, ok := b.declaredProps(s, true); ok && (len(union.OneOf) > 0 || len(union.AnyOf) > 0) {
		ap := s.AdditionalProperties
		shared = &objectShape{members: memberChecks(props), declared: ap.Schema == nil && (ap.Has == nil || !*ap.Has)}
		decl.Fields = b.fields(decl.Name, s, props, false)
		for _, f := range decl.Fields {
			wire := f.JSONName
			if f.ByHand {
				wire = f.WireName
			}
			fields.taken[f.Name] = claimant{who: "a property of the union", at: b.schemaAt(s, "properties", wire)}
		}
	}
	refs := union.OneOf
	if len(refs) == 0 {
		refs, decl.AnyOf = union.AnyOf, true
	}
	if len(refs) == 0 {
		// type: [integer, string, ...]
		for _, t := range load.NonNullTypes(s) {
			v := *s
			v.Type = &openapi3.Types{t}
			v.Enum, v.Const = nil, nil
			if t != "object" {
				// The properties are the object variant's.
				v.Properties, v.Required = nil, nil
			}
			refs = append(refs, &openapi3.SchemaRef{Value: &v})
		}
	}
	// The members of each object variant, and what each allows, first:
	// an inline variant is named by its tag, and a check is kept only
	// where it tells a variant from another.
	members := make([]map[string]*model.MemberCheck, len(refs))
	required := make([][]string, len(refs))
	for i, ref := range refs {
		if ref != nil && ref.Value != nil && jsonKind(ref.Value) == "object" {
			if props, ok := b.objectProps(ref.Value); ok {
				members[i] = memberChecks(props)
				for _, p := range props {
					if p.required {
						required[i] = append(required[i], p.name)
					}
				}
			}
		}
	}
	hints := variantHints(decl.Name, refs, members, required)
	// The object forms of each variant (several for a variant that is a
	// union of objects), and of each array variant's elements: checks are
	// kept where they tell one form from another.
	shapes := make([][]objectShape, len(refs))
	itemShapes := make([][]objectShape, len(refs))
	for i, ref := range refs {
		if ref == nil || ref.Value == nil {
			continue
		}
		switch jsonKind(ref.Value) {
		case "object", "any":
			shapes[i] = b.objectShapes(ref.Value, 0)
			if shared != nil {
				// The union's own properties are members of every form:
				// an object that has them is still all its variant knows.
				for k, sh := range shapes[i] {
					shapes[i][k] = sh.with(*shared)
				}
			}
		case "array":
			if it := ref.Value.Items; it != nil {
				itemShapes[i] = b.objectShapes(it.Value, 0)
			}
		}
	}
	flat, items := b.flattenShapes(shapes), b.flattenShapes(itemShapes)
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
		t := b.typeOf(ref, hints[i], "", true)
		fieldName := kindFieldNames[kind]
		if t.Kind == model.Named {
			fieldName = t.Name
		}
		if fieldName == "" {
			fieldName = fmt.Sprintf("Variant%d", i+1)
		}
		v := &model.Variant{FieldName: fields.name(fieldName), Type: t, Kind: kind}
		if kind == "any" && shapes[i] != nil {
			// A union of objects is an object variant, chosen by its own
			// variants' keys and values.
			v.Kind = "object"
		}
		if v.Kind == "object" {
			v.Shapes = flat.of(i)
		}
		if kind == "array" {
			v.Items = items.of(i)
		}
		decl.Variants = append(decl.Variants, v)
		byRef[ref] = v
	}
	d := s.Discriminator
	if d == nil || d.PropertyName == "" {
		d = union.Discriminator
	}
	if d == nil || d.PropertyName == "" {
		// Cat and Dog may each inherit one from a common base (allOf).
		d = inheritedDiscriminator(refs)
	}
	if d == nil || d.PropertyName == "" {
		return
	}
	decl.Discriminator = d.PropertyName
	mapped := map[*model.Variant]bool{}
	for _, val := range slices.Sorted(maps.Keys(d.Mapping)) {
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

// objectShape is one object form a schema takes: what each member
// allows, the keys it requires, and whether it names every member.
type objectShape struct {
	members  map[string]*model.MemberCheck
	required []string
	declared bool // no additionalProperties: the members are all it knows
	closed   bool // additionalProperties: false
	depth    int
	// objects are the schemas of members that are objects: their forms
	// tell apart variants that differ only inside a member (openstack's
	// {"transfer": {...}} of two microversions). They are looked at only
	// for a member another form also has.
	objects map[string]*openapi3.Schema
}

// maxNestedForms bounds how deep inside members object forms are
// compared.
const maxNestedForms = 2

// objectShapes returns the object forms s takes: its own, when it is an
// object, or those of every variant of a oneOf/anyOf all of whose variants
// (but null) are objects; nil when s may be something else.
func (b *builder) objectShapes(s *openapi3.Schema, depth int) []objectShape {
	if s == nil || depth > 8 {
		return nil
	}
	union := s
	if len(s.OneOf) == 0 && len(s.AnyOf) == 0 {
		if union = allOfUnion(s); union == nil {
			if jsonKind(s) != "object" || len(unionParts(s)) > 1 {
				return nil
			}
			return []objectShape{b.ownShape(s, depth)}
		}
	}
	var base *objectShape
	if union != s || len(s.Properties) > 0 {
		// Properties beside the variants (or in the other allOf parts)
		// belong to each of them.
		props, _ := b.declaredProps(s, true)
		sh := b.shapeOf(s, props, depth)
		// Keys required beside the variants are required of each, also
		// those only the variants declare.
		sh.required = requiredKeys(s)
		base = &sh
	}
	d := s.Discriminator
	if d == nil || d.PropertyName == "" {
		d = union.Discriminator
	}
	var out []objectShape
	for _, alt := range append(slices.Clip(union.OneOf), union.AnyOf...) {
		if alt == nil || alt.Value == nil {
			return nil
		}
		if t := alt.Value.Type; t != nil && t.Is("null") {
			continue
		}
		shapes := b.objectShapes(alt.Value, depth+1)
		if shapes == nil {
			return nil
		}
		for _, sh := range shapes {
			if base != nil {
				sh = sh.with(*base)
			}
			if d != nil && d.PropertyName != "" && !slices.Contains(sh.required, d.PropertyName) {
				// A union with a discriminator is one of its variants only
				// when the object names it: the property is required.
				sh.required = append(slices.Clip(sh.required), d.PropertyName)
			}
			out = append(out, sh)
		}
	}
	return out
}

// ownShape is the one form of the object schema s.
func (b *builder) ownShape(s *openapi3.Schema, depth int) objectShape {
	props, _ := b.objectProps(s)
	return b.shapeOf(s, props, depth)
}

// shapeOf is the form of an object schema s with properties props.
func (b *builder) shapeOf(s *openapi3.Schema, props []prop, depth int) objectShape {
	sh := objectShape{members: map[string]*model.MemberCheck{}, depth: depth}
	if len(props) > 0 {
		sh.members = memberChecks(props)
		for _, p := range props {
			if p.required {
				sh.required = append(sh.required, p.name)
			}
			if depth < maxNestedForms && p.schema != nil && jsonKind(p.schema.Value) == "object" {
				if sh.objects == nil {
					sh.objects = map[string]*openapi3.Schema{}
				}
				sh.objects[p.name] = p.schema.Value
			}
		}
	}
	ap := s.AdditionalProperties
	sh.closed = ap.Has != nil && !*ap.Has
	sh.declared = len(sh.members) > 0 && ap.Schema == nil && (ap.Has == nil || !*ap.Has)
	return sh
}

// with adds the members and required keys of base that sh lacks.
func (sh objectShape) with(base objectShape) objectShape {
	out := sh
	out.members = maps.Clone(sh.members)
	out.objects = maps.Clone(sh.objects)
	for name, c := range base.members {
		if _, ok := out.members[name]; ok {
			continue
		}
		out.members[name] = c
		if o, ok := base.objects[name]; ok {
			if out.objects == nil {
				out.objects = map[string]*openapi3.Schema{}
			}
			out.objects[name] = o
		}
	}
	out.required = slices.Clip(out.required)
	for _, r := range base.required {
		if !slices.Contains(out.required, r) {
			out.required = append(out.required, r)
		}
	}
	out.declared = out.declared && base.declared
	out.closed = out.closed || base.closed
	return out
}

// memberForms returns the object forms member name of sh takes (nil when
// it is not an object, or too deep to compare).
func (b *builder) memberForms(sh objectShape, name string) []objectShape {
	s := sh.objects[name]
	if s == nil {
		return nil
	}
	return b.objectShapes(s, sh.depth+1)
}

// formsSignature is a text that two lists of forms share when nothing
// tells them apart.
func (b *builder) formsSignature(forms []objectShape) string {
	var w strings.Builder
	for _, sh := range forms {
		fmt.Fprintf(&w, "%v|%v|%v|", sh.required, sh.closed, sh.declared)
		for _, name := range slices.Sorted(maps.Keys(sh.members)) {
			c := sh.members[name]
			fmt.Fprintf(&w, "%s%v%v{%s}", name, c.Values, c.Kinds, b.formsSignature(b.memberForms(sh, name)))
		}
		w.WriteString(";")
	}
	return w.String()
}

// variantShapes are the object forms of a union's variants, in one list
// so that a check is kept where it tells any form from another.
type variantShapes struct {
	owner  []int // the variant each form is of
	shapes []model.Shape
}

func (b *builder) flattenShapes(byVariant [][]objectShape) variantShapes {
	var out variantShapes
	var members []map[string]*model.MemberCheck
	var all []objectShape
	for i, list := range byVariant {
		for _, sh := range list {
			out.owner = append(out.owner, i)
			members = append(members, sh.members)
			all = append(all, sh)
		}
	}
	for k, sh := range all {
		ms := model.Shape{Required: sh.required, Checks: telling(k, members), Closed: sh.closed}
		ms.Checks = append(ms.Checks, b.tellingForms(k, all)...)
		if sh.declared || sh.closed {
			ms.Declared = slices.Sorted(maps.Keys(sh.members))
		}
		out.shapes = append(out.shapes, ms)
	}
	return out
}

// tellingForms returns the checks of form k on its object members whose
// forms differ from those another form gives the same member, in member
// order: the member must be one of its own forms.
func (b *builder) tellingForms(k int, all []objectShape) []model.MemberCheck {
	var out []model.MemberCheck
	for _, name := range slices.Sorted(maps.Keys(all[k].objects)) {
		forms := make([][]objectShape, len(all))
		shared := false
		for j, other := range all {
			if _, ok := other.members[name]; ok && j != k {
				shared = true
			}
		}
		if !shared {
			continue
		}
		for j, other := range all {
			forms[j] = b.memberForms(other, name)
		}
		mine, differs := b.formsSignature(forms[k]), false
		for j, other := range all {
			if _, ok := other.members[name]; ok && j != k && b.formsSignature(forms[j]) != mine {
				differs = true
				break
			}
		}
		if differs {
			out = append(out, model.MemberCheck{Name: name, Forms: b.flattenShapes(forms).of(k)})
		}
	}
	return out
}

// of returns the forms of variant i.
func (vs variantShapes) of(i int) []model.Shape {
	var out []model.Shape
	for k, o := range vs.owner {
		if o == i {
			out = append(out, vs.shapes[k])
		}
	}
	return out
}

// memberChecks returns what each property of an object allows: the values
// of a const or enum (narrowed by allOf, through $refs), or else the JSON
// kind of its type. A property that allows anything has an empty check.
func memberChecks(props []prop) map[string]*model.MemberCheck {
	out := make(map[string]*model.MemberCheck, len(props))
	for _, p := range props {
		c := &model.MemberCheck{Name: p.name}
		out[p.name] = c
		if p.schema == nil || p.schema.Value == nil {
			continue
		}
		ps := p.schema.Value
		null := isNullable(ps)
		if c.Values = allowedValues(ps, 0); c.Values != nil {
			if null && !slices.Contains(c.Values, "null") {
				c.Values = append(c.Values, "null")
			}
			continue
		}
		switch k := jsonKind(ps); k {
		case "any":
		case "number":
			c.Kinds = []string{"integer", "number"} // 1 is a number too
		default:
			c.Kinds = []string{k}
		}
		if c.Kinds != nil && null {
			c.Kinds = append(c.Kinds, "null")
		}
	}
	return out
}

// allowedValues returns the JSON texts of the values s allows: its const
// or enum, narrowed by its allOf parts, or those of every alternative of
// its oneOf/anyOf; nil when it does not list them.
func allowedValues(s *openapi3.Schema, depth int) []string {
	if s == nil || depth > 8 {
		return nil
	}
	var out []string
	if vals := load.EnumValues(s); vals != nil {
		for _, v := range vals {
			text, err := json.Marshal(v)
			if err != nil {
				return nil
			}
			out = append(out, string(text))
		}
	}
	for _, part := range s.AllOf {
		if part == nil {
			continue
		}
		pv := allowedValues(part.Value, depth+1)
		switch {
		case pv == nil:
		case out == nil:
			out = pv
		default:
			out = slices.DeleteFunc(out, func(v string) bool { return !slices.Contains(pv, v) })
		}
	}
	if out == nil {
		for _, list := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf} {
			for _, alt := range list {
				if alt == nil || alt.Value == nil {
					return nil
				}
				if t := alt.Value.Type; t != nil && t.Is("null") {
					out = append(out, "null")
					continue
				}
				av := allowedValues(alt.Value, depth+1)
				if av == nil {
					return nil
				}
				out = append(out, av...)
			}
		}
	}
	if len(out) == 0 {
		return nil // none listed, or allOf parts that contradict: no check
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// telling returns the checks of variant i that tell it from another
// object variant: those on a property another variant also declares but
// constrains otherwise (or not at all), in property order.
func telling(i int, members []map[string]*model.MemberCheck) []model.MemberCheck {
	var out []model.MemberCheck
	for _, name := range slices.Sorted(maps.Keys(members[i])) {
		c := members[i][name]
		if c.Values == nil && c.Kinds == nil {
			continue
		}
		for j, other := range members {
			oc, ok := other[name]
			if ok && j != i && (!slices.Equal(oc.Values, c.Values) || !slices.Equal(oc.Kinds, c.Kinds)) {
				out = append(out, *c)
				break
			}
		}
	}
	return out
}

// maxVariantName bounds the name of an inline variant's type; the
// variant's own part keeps at most maxVariantSuffix of it.
const (
	maxVariantName   = 64
	maxVariantSuffix = 20
)

// variantHints names the inline variants of union (refs[i] gets hints[i]):
// by its title alone when it has one, else the union's name followed by
// the first of: the value of its tag (a required property with one
// allowed value no other variant shares), the one value of a scalar enum,
// a required key no other variant has, or its position (Variant2). When
// the longest of these would pass maxVariantName, the union's name keeps
// its first word and as many of its last as fit, the same for every
// variant; the namer numbers a name taken twice, so names stay unique and
// are the same on every run.
func variantHints(union string, refs openapi3.SchemaRefs, members []map[string]*model.MemberCheck, required [][]string) []string {
	suffixes := make([]string, len(refs))
	longest := 0
	for i, ref := range refs {
		if ref == nil || ref.Value == nil || ref.Value.Title != "" {
			continue
		}
		suffix := fmt.Sprintf("Variant%d", i+1)
		switch {
		case members[i] != nil:
			if tag := variantTag(i, members, required[i]); tag != "" {
				suffix = tag
			} else if key := ownKey(i, members, required[i]); key != "" {
				suffix = key
			}
		default:
			if vals := load.EnumValues(ref.Value); len(vals) == 1 {
				suffix = exportedName(fmt.Sprint(vals[0]), "Empty")
			}
		}
		suffixes[i] = shortenName(suffix, maxVariantSuffix)
		longest = max(longest, len(suffixes[i]))
	}
	prefix := union
	if len(union)+longest > maxVariantName {
		prefix = shortenName(union, maxVariantName-longest)
	}
	hints := make([]string, len(refs))
	for i, ref := range refs {
		if ref != nil && ref.Value != nil && ref.Value.Title != "" {
			hints[i] = ref.Value.Title
		} else {
			hints[i] = prefix + suffixes[i]
		}
	}
	return hints
}

// variantTag is the exported value of the first required property of
// variant i whose one allowed value no other variant shares, or "".
func variantTag(i int, members []map[string]*model.MemberCheck, required []string) string {
	for _, name := range required {
		c := members[i][name]
		if len(c.Values) != 1 {
			continue
		}
		shared := false
		for j, other := range members {
			if oc, ok := other[name]; ok && j != i && slices.Contains(oc.Values, c.Values[0]) {
				shared = true
			}
		}
		var v any
		if !shared && json.Unmarshal([]byte(c.Values[0]), &v) == nil {
			return exportedName(fmt.Sprint(v), "Empty")
		}
	}
	return ""
}

// ownKey is the exported name of the first required key of variant i that
// no other variant declares, or "".
func ownKey(i int, members []map[string]*model.MemberCheck, required []string) string {
	for _, name := range required {
		mine := true
		for j, other := range members {
			if _, ok := other[name]; ok && j != i {
				mine = false
			}
		}
		if mine {
			return exportedName(name, "")
		}
	}
	return ""
}

// shortenName keeps name's first word and as many of its last words as
// fit in max bytes (all of name when it fits).
func shortenName(name string, limit int) string {
	if len(name) <= limit {
		return name
	}
	ws := words(name)
	if len(ws) < 2 || len(ws[0]) >= limit {
		return name[:max(limit, 1)]
	}
	tail := ""
	for k := len(ws) - 1; k > 0; k-- {
		if len(ws[0])+len(ws[k])+len(tail) > limit {
			break
		}
		tail = ws[k] + tail
	}
	return ws[0] + tail
}
