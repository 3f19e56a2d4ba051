package emit

import (
	"slices"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/resgen/resgen/generator/model"
)

// variantField is a variant's field type: a pointer unless nil already
// means absent.
func variantField(v *model.Variant) *model.GoType {
	if v.Type.Nilable() {
		return v.Type
	}
	return &model.GoType{Kind: model.Pointer, Elem: v.Type}
}

// emitUnion prints a union type: one field per variant, the one that is
// set is the value; MarshalJSON writes it, UnmarshalJSON picks it by the
// discriminator, by the JSON kind, or by the keys an object has.
func (e *emitter) emitUnion(f *jen.File, t *model.Type) {
	/* type U struct { <base fields>; Cat *Cat `json:"-"`; Dog *Dog `json:"-"`; Unknown json.RawMessage `json:"-"` } */
	hasBase := len(t.Fields) > 0
	f.Type().Id(t.Name).StructFunc(func(g *jen.Group) {
		for _, fl := range t.Fields {
			comment(g, fl.Doc)
			g.Id(fl.Name).Add(typeExpr(fl.Type)).Tag(map[string]string{"json": fieldTag(fl)})
		}
		skip := map[string]string{"json": "-"}
		for _, v := range t.Variants {
			g.Id(v.FieldName).Add(typeExpr(variantField(v))).Tag(skip)
		}
		comment(g, []string{"Unknown holds a value no variant matched (a newer server's, say), as sent."})
		g.Id("Unknown").Qual("encoding/json", "RawMessage").Tag(skip)
	})

	doc := []string{"MarshalJSON writes the variant that is set (the first, if several are)"}
	if t.Discriminator != "" {
		doc = append(doc, "with its "+quoteLine(t.Discriminator)+" filled in when left empty")
	}
	if hasBase {
		doc = append(doc, "and the properties every variant shares")
	}
	comment(f, []string{strings.Join(doc, ", ") + "."})
	f.Func().Params(jen.Id("u").Id(t.Name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).BlockFunc(func(g *jen.Group) {
		g.Var().Id("v").Any()
		disc := t.Discriminator != ""
		if disc {
			g.Var().Id("d").String()
		}
		g.Switch().BlockFunc(func(g *jen.Group) {
			for _, v := range t.Variants {
				if disc && len(v.Values) > 0 && v.Kind == "object" {
					g.Case(jen.Id("u").Dot(v.FieldName).Op("!=").Nil()).Block(jen.List(jen.Id("v"), jen.Id("d")).Op("=").List(jen.Id("u").Dot(v.FieldName), jen.Lit(v.Values[0])))
				} else {
					g.Case(jen.Id("u").Dot(v.FieldName).Op("!=").Nil()).Block(jen.Id("v").Op("=").Id("u").Dot(v.FieldName))
				}
			}
			g.Case(jen.Id("u").Dot("Unknown").Op("!=").Nil()).Block(jen.Id("v").Op("=").Id("u").Dot("Unknown"))
		})
		if !disc && !hasBase {
			g.Return(jen.Qual("encoding/json", "Marshal").Call(jen.Id("v")))
			return
		}
		prop, val, base := jen.Lit(""), jen.Lit(""), jen.Nil()
		if disc {
			prop, val = jen.Lit(t.Discriminator), jen.Id("d")
		}
		if hasBase {
			g.Type().Id("plain").Id(t.Name)
			base = jen.Id("plain").Parens(jen.Id("u"))
		}
		g.Return(jen.Qual(wirePkg, "MarshalUnion").Call(jen.Id("v"), prop, val, base))
	})

	doc = []string{"UnmarshalJSON sets the variant the JSON value is; a value no variant", "matches is kept in Unknown."}
	if objectVariantCount(t) > 1 || nestedForms(t) {
		doc[1] += " An object" + map[bool]string{true: " without the discriminator", false: ""}[t.Discriminator != ""]
		doc = append(doc, "goes to the first variant whose required keys it has and whose checked", "members hold values it allows, variants with more tags (fixed values),", "then more required keys, tried first.")
		if nestedForms(t) {
			doc = append(doc, "A variant that is a union of objects is tried as each of its variants.")
		}
		if closedForms(t) {
			doc = append(doc, "A variant with additionalProperties: false takes no member it does not name.")
		}
		if memberForms(t) {
			doc = append(doc, "An object member whose schema differs between variants must have the", "keys and values its variant's schema gives it.")
		}
	}
	if itemForms(t) {
		doc = append(doc, "An array goes to the first array variant (most specific first) whose", "element forms every element is one of, else to the first it decodes into", "among those whose elements' forms it was not tested against.")
	}
	comment(f, doc)
	f.Func().Params(jen.Id("u").Op("*").Id(t.Name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().BlockFunc(func(g *jen.Group) {
		g.Op("*").Id("u").Op("=").Id(t.Name).Values()
		if hasBase {
			/* the shared properties first */
			g.Type().Id("plain").Id(t.Name)
			g.If(jen.Qual(wirePkg, "Kind").Call(jen.Id("data")).Op("==").Qual(wirePkg, "KindObject")).Block(
				jen.If(jen.Err().Op(":=").Qual("encoding/json", "Unmarshal").Call(jen.Id("data"), jen.Parens(jen.Op("*").Id("plain")).Parens(jen.Id("u"))), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			)
		}
		if t.Discriminator != "" {
			e.unionByDiscriminator(g, t)
		}
		e.unionByKind(g, t)
		g.Id("u").Dot("Unknown").Op("=").Append(jen.Qual("encoding/json", "RawMessage").Parens(jen.Nil()), jen.Id("data").Op("..."))
		g.Return(jen.Nil())
	})
}

// emitParamText prints the ParamText method of a union of scalars used as
// a parameter: the set variant's text, as every parameter style writes a
// scalar.
func (e *emitter) emitParamText(f *jen.File, t *model.Type) {
	comment(f, []string{"ParamText is the variant that is set (the first, if several are) as parameter", "text: strings as they are, numbers and booleans as JSON writes them. With", "no variant set it is \"\"; Unknown is written as its JSON text, strings unquoted."})
	f.Func().Params(jen.Id("u").Id(t.Name)).Id("ParamText").Params().String().BlockFunc(func(g *jen.Group) {
		g.Switch().BlockFunc(func(g *jen.Group) {
			for _, v := range t.Variants {
				g.Case(jen.Id("u").Dot(v.FieldName).Op("!=").Nil()).Block(jen.Return(text(v.Text, jen.Id("u").Dot(v.FieldName), !v.Type.Nilable())))
			}
			g.Case(jen.Id("u").Dot("Unknown").Op("!=").Nil()).Block(jen.Return(jen.Qual(wirePkg, "RawText").Call(jen.Id("u").Dot("Unknown"))))
		})
		g.Return(jen.Lit(""))
	})
}

// fieldTag is a struct field's json tag.
func fieldTag(fl *model.Field) string {
	if fl.OmitEmpty && fl.JSONName != "-" {
		// omitzero, not omitempty: nil leaves it out, an empty list or
		// object is still sent ([] or {}).
		return fl.JSONName + ",omitzero"
	}
	return fl.JSONName
}

// tryVariant prints: if v := new(X); json.Unmarshal(data, v) == nil { u.X = v; return nil }
// so that a candidate that does not decode leaves the next one a chance.
// A list or map field is decoded in place and emptied again when that
// fails: encoding/json leaves what it could decode ([[6,7]] tried as a
// []string is ["",""]), which would be the value sent.
func tryVariant(v *model.Variant) jen.Code {
	if v.Type.Nilable() {
		return jen.Add(
			jen.If(jen.Qual("encoding/json", "Unmarshal").Call(jen.Id("data"), jen.Op("&").Id("u").Dot(v.FieldName)).Op("==").Nil()).Block(jen.Return(jen.Nil())),
			jen.Line(),
			jen.Id("u").Dot(v.FieldName).Op("=").Nil(),
		)
	}
	return jen.If(jen.Id("v").Op(":=").New(typeExpr(v.Type)), jen.Qual("encoding/json", "Unmarshal").Call(jen.Id("data"), jen.Id("v")).Op("==").Nil()).Block(
		jen.Id("u").Dot(v.FieldName).Op("=").Id("v"),
		jen.Return(jen.Nil()),
	)
}

// decodeVariant prints: u.X = new(X); return json.Unmarshal(data, u.X)
func decodeVariant(v *model.Variant) []jen.Code {
	if v.Type.Nilable() {
		return []jen.Code{jen.Return(jen.Qual("encoding/json", "Unmarshal").Call(jen.Id("data"), jen.Op("&").Id("u").Dot(v.FieldName)))}
	}
	return []jen.Code{
		jen.Id("u").Dot(v.FieldName).Op("=").New(typeExpr(v.Type)),
		jen.Return(jen.Qual("encoding/json", "Unmarshal").Call(jen.Id("data"), jen.Id("u").Dot(v.FieldName))),
	}
}

func (e *emitter) unionByDiscriminator(g *jen.Group, t *model.Type) {
	/* if d, ok := runtime.Discriminator(data, "type"); ok { switch d { case "a": ... } ; keep unknown } */
	g.If(jen.List(jen.Id("d"), jen.Id("ok")).Op(":=").Qual(wirePkg, "Discriminator").Call(jen.Id("data"), jen.Lit(t.Discriminator)), jen.Id("ok")).BlockFunc(func(g *jen.Group) {
		g.Switch(jen.Id("d")).BlockFunc(func(g *jen.Group) {
			for _, v := range t.Variants {
				if len(v.Values) == 0 {
					continue
				}
				var vals []jen.Code
				for _, s := range v.Values {
					vals = append(vals, jen.Lit(s))
				}
				g.Case(vals...).Block(decodeVariant(v)...)
			}
		})
		g.Id("u").Dot("Unknown").Op("=").Append(jen.Qual("encoding/json", "RawMessage").Parens(jen.Nil()), jen.Id("data").Op("..."))
		g.Return(jen.Nil())
	})
}

var kindConst = map[string]string{"object": "KindObject", "array": "KindArray", "string": "KindString", "integer": "KindInteger", "number": "KindNumber", "boolean": "KindBool", "null": "KindNull"}

func (e *emitter) unionByKind(g *jen.Group, t *model.Type) {
	byKind := map[string][]*model.Variant{}
	var anyKind []*model.Variant
	for _, v := range t.Variants {
		if v.Kind == "any" {
			anyKind = append(anyKind, v)
			continue
		}
		byKind[v.Kind] = append(byKind[v.Kind], v)
	}
	g.Switch(jen.Qual(wirePkg, "Kind").Call(jen.Id("data"))).BlockFunc(func(g *jen.Group) {
		g.Case(jen.Qual(wirePkg, "KindNull")).Block(jen.Return(jen.Nil()))
		for _, kind := range []string{"object", "array", "string", "integer", "number", "boolean"} {
			vs := byKind[kind]
			if kind == "integer" && len(vs) == 0 {
				// An integer is a number too.
				vs = byKind["number"]
			}
			if len(vs) == 0 {
				continue
			}
			g.Case(jen.Qual(wirePkg, kindConst[kind])).BlockFunc(func(g *jen.Group) {
				if len(vs) == 1 {
					addAll(g, decodeVariant(vs[0]))
					return
				}
				if kind == "array" {
					e.arrayVariants(g, vs)
					return
				}
				if kind != "object" {
					// Same kind: an enum variant takes its own values, the
					// others are tried in order.
					for _, v := range vs {
						if len(v.Enum) > 0 {
							vals := []jen.Code{jen.Id("data")}
							for _, ev := range v.Enum {
								vals = append(vals, jen.Lit(ev))
							}
							g.If(jen.Qual(wirePkg, "IsOneOf").Call(vals...)).Block(decodeVariant(v)...)
						}
					}
					for _, v := range vs {
						if len(v.Enum) == 0 {
							g.Add(tryVariant(v))
						}
					}
					return
				}
				e.objectVariants(g, vs)
			})
		}
	})
	for _, v := range anyKind {
		/* a variant of unknown kind: take it if it decodes */
		g.Add(tryVariant(v))
	}
}

// nestedForms reports whether an object variant of t has several forms
// (it is a union of objects).
func nestedForms(t *model.Type) bool {
	for _, v := range t.Variants {
		if len(v.Shapes) > 1 {
			return true
		}
	}
	return false
}

// closedForms reports whether an object variant of t forbids members it
// does not name.
func closedForms(t *model.Type) bool {
	for _, v := range t.Variants {
		for _, sh := range v.Shapes {
			if sh.Closed {
				return true
			}
		}
	}
	return false
}

// memberForms reports whether a variant of t is told apart by the form
// of an object member.
func memberForms(t *model.Type) bool {
	for _, v := range t.Variants {
		for _, sh := range v.Shapes {
			for _, c := range sh.Checks {
				if c.Forms != nil {
					return true
				}
			}
		}
	}
	return false
}

// itemForms reports whether t picks among array variants by their
// elements.
func itemForms(t *model.Type) bool {
	n := 0
	for _, v := range t.Variants {
		if v.Kind == "array" {
			n++
		}
	}
	if n < 2 {
		return false
	}
	for _, v := range t.Variants {
		if len(v.Items) > 0 {
			return true
		}
	}
	return false
}

func objectVariantCount(t *model.Type) int {
	n := 0
	for _, v := range t.Variants {
		if v.Kind == "object" {
			n++
		}
	}
	return n
}

// candidate is one object form of a variant: a variant that is itself a
// union of objects has one per variant of its own.
type candidate struct {
	v     *model.Variant
	shape model.Shape
}

// tags counts a form's one-value checks: its tag values.
func (c candidate) tags() int {
	n := 0
	for _, ch := range c.shape.Checks {
		if len(ch.Values) == 1 {
			n++
		}
	}
	return n
}

// candidates lists the object forms of vs, most specific first: more
// one-value checks (tags), then more required keys, then the spec's order.
func candidates(vs []*model.Variant) []candidate {
	var out []candidate
	for _, v := range vs {
		if len(v.Shapes) == 0 {
			out = append(out, candidate{v: v})
		}
		for _, sh := range v.Shapes {
			out = append(out, candidate{v, sh})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if ti, tj := out[i].tags(), out[j].tags(); ti != tj {
			return ti > tj
		}
		return len(out[i].shape.Required) > len(out[j].shape.Required)
	})
	return out
}

// objectVariants prints the choice among object variants with no
// discriminator. A variant is taken when the object has every key one of
// its forms requires, each member the form checks holds a value (or JSON
// kind) it allows, no member a closed form (additionalProperties: false)
// does not name, and the object decodes into it. A variant that is a
// union of objects has a form per variant of its own. The forms are tried
// most specific first: more one-value checks (tags), then more required
// keys, then the spec's order; so values tell apart variants with the
// same keys, and when several still match (a oneOf that is ambiguous for
// these checks) the choice is the same on every run. When a form could
// take an object whose members a later one declares, a first pass, in the
// same order, takes a form only when it declares every member the object
// has: {"href","rel"} is the variant that knows rel, not the first one
// that requires href.
func (e *emitter) objectVariants(g *jen.Group, vs []*model.Variant) {
	sorted := candidates(vs)
	parsed := false
	parse := func() {
		if !parsed {
			g.Id("obj").Op(":=").Qual(wirePkg, "ParseObject").Call(jen.Id("data"))
			parsed = true
		}
	}
	exact := false
	for i, c := range sorted {
		exact = exact || losesToLater(c.shape, sorted[i+1:])
	}
	for _, c := range sorted {
		if !exact || c.shape.Declared == nil || c.shape.Closed {
			continue // a closed form checks its members in the pass below
		}
		parse()
		g.If(andAll(append(shapeConds(c.shape), within(c.shape)))).Block(tryVariant(c.v))
	}
	for _, c := range sorted {
		conds := shapeConds(c.shape)
		if len(conds) == 0 {
			g.Add(tryVariant(c.v))
			continue
		}
		parse()
		g.If(andAll(conds)).Block(tryVariant(c.v))
	}
}

// arrayVariants prints the choice among array variants: one whose
// elements are objects is taken when every element is one of its
// elements' forms (tested as objectVariants tests an object, most
// specific first; when a form could take an element whose members a
// later one declares, a first pass takes a form only when it declares
// every member each element has), then the others in the spec's order,
// each if the array decodes into it. A variant whose elements' forms the
// array failed is not tried again: decoding it would succeed and invent
// the keys its elements lack. An empty array is the first that decodes.
func (e *emitter) arrayVariants(g *jen.Group, vs []*model.Variant) {
	var byItems []*model.Variant
	for _, v := range vs {
		if len(v.Items) > 0 {
			byItems = append(byItems, v)
		}
	}
	best := func(v *model.Variant) candidate { return candidates([]*model.Variant{{Shapes: v.Items}})[0] }
	sort.SliceStable(byItems, func(i, j int) bool {
		bi, bj := best(byItems[i]), best(byItems[j])
		if ti, tj := bi.tags(), bj.tags(); ti != tj {
			return ti > tj
		}
		return len(bi.shape.Required) > len(bj.shape.Required)
	})
	exact := false
	for i, v := range byItems {
		var later []candidate
		for _, w := range byItems[i+1:] {
			for _, sh := range w.Items {
				later = append(later, candidate{w, sh})
			}
		}
		for _, sh := range v.Items {
			exact = exact || losesToLater(sh, later)
		}
	}
	if exact {
		for _, v := range byItems {
			if match := exactMatch(v.Items); match != nil {
				g.If(jen.Qual(wirePkg, "EveryObject").Call(jen.Id("data"), match)).Block(tryVariant(v))
			}
		}
	}
	checked := map[*model.Variant]bool{}
	for _, v := range byItems {
		match := formsMatch(v.Items)
		if match == nil {
			continue // a form that takes any object
		}
		checked[v] = true
		g.If(jen.Qual(wirePkg, "EveryObject").Call(jen.Id("data"), match)).Block(tryVariant(v))
	}
	for _, v := range vs {
		if !checked[v] {
			g.Add(tryVariant(v))
		}
	}
}

// exactMatch prints a func(wire.Object) bool that reports whether an
// object is one of forms and has no member that form does not declare, or
// returns nil when no form names all the members it takes.
func exactMatch(forms []model.Shape) jen.Code {
	var alts []jen.Code
	for _, sh := range forms {
		if sh.Declared == nil || sh.Closed {
			continue // a closed form checks its members in formsMatch
		}
		alts = append(alts, jen.Parens(andAll(append(shapeConds(sh), within(sh)))))
	}
	if len(alts) == 0 {
		return nil
	}
	return jen.Func().Params(jen.Id("obj").Qual(wirePkg, "Object")).Bool().Block(jen.Return(orAll(alts)))
}

// losesToLater reports whether a form tried after sh declares a property
// sh does not: an object with it would lose it to sh.
func losesToLater(sh model.Shape, later []candidate) bool {
	if sh.Declared == nil {
		return false
	}
	for _, w := range later {
		for _, d := range w.shape.Declared {
			if !slices.Contains(sh.Declared, d) {
				return true
			}
		}
	}
	return false
}

// within is the test that an object has no member the form does not name.
func within(sh model.Shape) jen.Code {
	var names []jen.Code
	for _, d := range sh.Declared {
		names = append(names, jen.Lit(d))
	}
	return jen.Id("obj").Dot("Within").Call(names...)
}

// shapeConds are the tests an object must pass to be form sh: its
// required keys, its checked members, and for a closed form no other
// members.
func shapeConds(sh model.Shape) []jen.Code {
	var conds []jen.Code
	if len(sh.Required) > 0 {
		var names []jen.Code
		for _, r := range sh.Required {
			names = append(names, jen.Lit(r))
		}
		conds = append(conds, jen.Id("obj").Dot("Has").Call(names...))
	}
	for _, c := range sh.Checks {
		if c.Forms != nil {
			if match := formsMatch(c.Forms); match != nil {
				conds = append(conds, jen.Id("obj").Dot("Fits").Call(jen.Lit(c.Name), match))
			}
			continue
		}
		args := []jen.Code{jen.Lit(c.Name)}
		method := "Allows"
		if c.Values != nil {
			for _, text := range c.Values {
				args = append(args, jsonText(text))
			}
		} else {
			method = "AllowsKind"
			for _, k := range c.Kinds {
				args = append(args, jen.Qual(wirePkg, kindConst[k]))
			}
		}
		conds = append(conds, jen.Id("obj").Dot(method).Call(args...))
	}
	if sh.Closed {
		conds = append(conds, within(sh))
	}
	return conds
}

// formsMatch prints a func(runtime.Object) bool that reports whether an
// object is one of forms, or returns nil when a form takes any object.
func formsMatch(forms []model.Shape) jen.Code {
	var alts []jen.Code
	for _, sh := range forms {
		conds := shapeConds(sh)
		if len(conds) == 0 {
			return nil
		}
		alts = append(alts, jen.Parens(andAll(conds)))
	}
	return jen.Func().Params(jen.Id("obj").Qual(wirePkg, "Object")).Bool().Block(jen.Return(orAll(alts)))
}

// orAll joins conditions with ||.
func orAll(conds []jen.Code) *jen.Statement {
	cond := jen.Add(conds[0])
	for _, c := range conds[1:] {
		cond = cond.Op("||").Add(c)
	}
	return cond
}

// andAll joins conditions with &&.
func andAll(conds []jen.Code) *jen.Statement {
	cond := jen.Add(conds[0])
	for _, c := range conds[1:] {
		cond = cond.Op("&&").Add(c)
	}
	return cond
}

// jsonText prints a JSON text as a Go string literal, raw when it is
// plain ASCII (`"redirect"` reads better than "\"redirect\"").
func jsonText(text string) jen.Code {
	for i := 0; i < len(text); i++ {
		if c := text[i]; c < ' ' || c > '~' || c == '`' {
			return jen.Lit(text)
		}
	}
	return jen.Op("`" + text + "`")
}

func hasWireNames(t *model.Type) bool {
	for _, f := range t.Fields {
		if f.ByHand {
			return true
		}
	}
	return false
}

// emitCustomJSON prints the JSON methods of a struct that encoding/json
// cannot handle from tags alone: one that takes additional properties
// (the known ones go to their fields, the rest to the map) or one with
// properties no struct tag can name.
func (e *emitter) emitCustomJSON(f *jen.File, t *model.Type) {
	var known []jen.Code
	var byHand []*model.Field
	for _, fl := range t.Fields {
		switch {
		case fl.ByHand:
			byHand = append(byHand, fl)
			known = append(known, jen.Lit(fl.WireName))
		case fl.JSONName != "-":
			known = append(known, jen.Lit(fl.JSONName))
		}
	}
	comment(f, []string{"UnmarshalJSON decodes every property into its field" + map[bool]string{true: ", and the ones the schema", false: "."}[t.Extra != nil]})
	if t.Extra != nil {
		comment(f, []string{"does not name into AdditionalProperties."})
	}
	f.Func().Params(jen.Id("v").Op("*").Id(t.Name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().BlockFunc(func(g *jen.Group) {
		g.Type().Id("plain").Id(t.Name)
		g.If(jen.Err().Op(":=").Qual("encoding/json", "Unmarshal").Call(jen.Id("data"), jen.Parens(jen.Op("*").Id("plain")).Parens(jen.Id("v"))), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
		if len(byHand) > 0 {
			g.If(jen.Err().Op(":=").Qual(wirePkg, "UnmarshalMembers").Call(jen.Id("data"), jen.Map(jen.String()).Any().ValuesFunc(func(g *jen.Group) {
				for _, fl := range byHand {
					g.Lit(fl.WireName).Op(":").Op("&").Id("v").Dot(fl.Name)
				}
			})), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
		}
		if t.Extra != nil {
			g.Return(jen.Qual(wirePkg, "ExtraFields").Call(append([]jen.Code{jen.Id("data"), jen.Op("&").Id("v").Dot("AdditionalProperties")}, known...)...))
		} else {
			g.Return(jen.Nil())
		}
	})
	doc := []string{"MarshalJSON writes every field" + map[bool]string{true: ", then AdditionalProperties.", false: "."}[t.Extra != nil]}
	comment(f, append(doc, emptyNotNullDoc(t)...))
	f.Func().Params(jen.Id("v").Id(t.Name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).BlockFunc(func(g *jen.Group) {
		g.Type().Id("plain").Id(t.Name)
		addAll(g, fillEmpty(t))
		encode := jen.Qual("encoding/json", "Marshal").Call(jen.Id("plain").Parens(jen.Id("v")))
		if t.Extra != nil {
			encode = jen.Qual(wirePkg, "MarshalWithExtra").Call(jen.Id("plain").Parens(jen.Id("v")), jen.Id("v").Dot("AdditionalProperties"))
		}
		if len(byHand) == 0 {
			g.Return(encode)
			return
		}
		g.List(jen.Id("data"), jen.Err()).Op(":=").Add(encode)
		g.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
		var members []jen.Code
		for _, fl := range byHand {
			m := []jen.Code{jen.Id("Name").Op(":").Lit(fl.WireName), jen.Id("Value").Op(":").Id("v").Dot(fl.Name)}
			switch {
			case fl.Type.Nilable():
				m = append(m, jen.Id("Omit").Op(":").Id("v").Dot(fl.Name).Op("==").Nil())
			case isNullable(fl.Type):
				// runtime.Nullable: left out when unset.
				m = append(m, jen.Id("Omit").Op(":").Op("!").Id("v").Dot(fl.Name).Dot("IsSet").Call())
			}
			members = append(members, jen.Qual(wirePkg, "Member").Values(m...))
		}
		g.Return(jen.Qual(wirePkg, "AddMembers").Call(append([]jen.Code{jen.Id("data")}, members...)...))
	})
}

func unionDoc(t *model.Type) string {
	var names []string
	for _, v := range t.Variants {
		names = append(names, v.FieldName)
	}
	how := "one of"
	if t.AnyOf {
		how = "any of"
	}
	s := t.Name + " is " + how + ": " + strings.Join(names, ", ")
	if t.Discriminator != "" {
		s += " (discriminator " + quoteLine(t.Discriminator) + ")"
	}
	return s + ". The field that is set holds the value."
}

// addAll adds each code as its own statement (Group.Add would join them
// into one).
func addAll(g *jen.Group, codes []jen.Code) {
	for _, c := range codes {
		g.Add(c)
	}
}

// emptyNotNull are the fields whose nil value the schema does not allow
// (required, not nullable lists, maps and bytes).
func emptyNotNull(t *model.Type) []*model.Field {
	var out []*model.Field
	for _, fl := range t.Fields {
		if fl.EmptyNotNull {
			out = append(out, fl)
		}
	}
	return out
}

func emptyNotNullDoc(t *model.Type) []string {
	fields := emptyNotNull(t)
	if len(fields) == 0 {
		return nil
	}
	out := make([]string, len(fields))
	for i, fl := range fields {
		empty := "[]"
		switch {
		case fl.Type.Kind == model.Map:
			empty = "{}"
		case fl.Type.Kind == model.Builtin:
			empty = `""`
		}
		out[i] = "A nil " + fl.Name + " is written as " + empty + ": it is required and not nullable."
	}
	return out
}

// fillEmpty prints, for each field of emptyNotNull: if v.X == nil { v.X = T{} }
// (v is the receiver's copy).
func fillEmpty(t *model.Type) []jen.Code {
	var out []jen.Code
	for _, fl := range emptyNotNull(t) {
		empty := typeExpr(fl.Type).Values()
		if fl.Type.Kind == model.Builtin {
			empty = jen.Index().Byte().Values()
		}
		out = append(out, jen.If(jen.Id("v").Dot(fl.Name).Op("==").Nil()).Block(jen.Id("v").Dot(fl.Name).Op("=").Add(empty)))
	}
	return out
}

// emitEmptyNotNull prints the MarshalJSON of a struct with required,
// non-nullable lists, maps or bytes: encoding/json writes a nil one as
// null, which the schema refuses; [] (or {} or "") is the value a caller
// who set nothing means.
func emitEmptyNotNull(f *jen.File, t *model.Type) {
	comment(f, append([]string{"MarshalJSON writes every field."}, emptyNotNullDoc(t)...))
	f.Func().Params(jen.Id("v").Id(t.Name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).BlockFunc(func(g *jen.Group) {
		g.Type().Id("plain").Id(t.Name)
		addAll(g, fillEmpty(t))
		g.Return(jen.Qual("encoding/json", "Marshal").Call(jen.Id("plain").Parens(jen.Id("v"))))
	})
}
