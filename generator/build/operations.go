package build

import (
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/generator/policy"
)

// Operations become methods here: their parameters, request body and
// typed responses.

// opRef is one operation to build: the spec's, with its resolved policy.
type opRef struct {
	load.Operation
	pol policy.Resolved
}

func (b *builder) operations() {
	var fragments []string // path keys with a #fragment
	for _, p := range b.s.Doc.Paths.Keys() {
		if b.s.Doc.Paths.Value(p) == nil {
			continue
		}
		if load.URLPath(p) != p {
			fragments = append(fragments, p)
		}
		if why := load.BadPath(load.URLPath(p)); why != "" {
			// Its methods would fail every call without sending it.
			b.diags = append(b.diags, b.s.Diag(diag.Error, diag.PointerJoin("/paths", p),
				fmt.Sprintf("path key %q %s, so no request can be sent to it", p, why),
				"a path key is a URL path: write a literal % as %25, and no control characters"))
		}
	}
	if len(fragments) > 0 {
		// Once per spec, at the first key: box has 19 of them.
		sort.Strings(fragments)
		more := ""
		if len(fragments) > 1 {
			more = fmt.Sprintf(" (and %d more path keys)", len(fragments)-1)
		}
		b.diags = append(b.diags, b.s.Diag(diag.Warning, diag.PointerJoin("/paths", fragments[0]),
			fmt.Sprintf("path key %q%s has a #fragment; it is not sent: requests go to %q, the method's doc comment names the key", fragments[0], more, load.URLPath(fragments[0])),
			"a path key is a URL path; tell operations apart by operationId"))
	}
	var ops []opRef
	for _, o := range b.s.Operations() {
		pol, ok := b.pol.Operation(o.Method, o.Path)
		if !ok {
			panic(fmt.Sprintf("build: policy resolved no policy for %s %s", o.Method, o.Path))
		}
		ops = append(ops, opRef{o, pol})
	}
	methods := newNamer(model.ClientMethods...)
	ids := map[string]string{}
	fields := newNamer(model.ClientFields...)
	// Every operation's own name first: a variant method (CreatePetWithForm)
	// never takes the name of an operation the spec declares.
	names := make([]string, len(ops))
	for i, o := range ops {
		base := o.Op.OperationID
		first, dup := ids[base]
		if dup = dup && base != ""; dup {
			// OpenAPI requires unique operationIds; which one gets the
			// plain name depends on path order, so say so.
			b.diags = append(b.diags, b.s.Diag(diag.Warning, diag.PointerJoin("/paths", o.Path, strings.ToLower(o.Method), "operationId"),
				fmt.Sprintf("operationId %q is used again (first by %s); this one gets a numbered method name", base, first), "give every operation its own operationId"))
		} else {
			ids[base] = o.Method + " " + o.Path
		}
		if base == "" {
			base = strings.ToLower(o.Method) + " " + o.Path
		}
		if dup {
			names[i] = methods.name(exportedName(base, "Call")) // warned above
			continue
		}
		names[i] = b.claimAt(methods, exportedName(base, "Call"), "the method of "+opWords(o), b.at(diag.PointerJoin("/paths", o.Path, strings.ToLower(o.Method))))
	}
	for i, o := range ops {
		name := names[i]
		op := b.operation(o, name, fields.name("op"+name), methods)
		if len(op.Variants) > 0 {
			op.SendMethod = fields.name("send" + name)
		}
		b.file.Operations = append(b.file.Operations, op)
	}
	// Breaker instances and retry policies in a stable order. They are
	// build's own copies of what policy resolved (policy's result is only
	// read): build adds their Go names and how many operations use them.
	locals := newNamer(append(append(append([]string{}, model.NewClientLocals...), model.ImportNames...), predeclared...)...)
	// A clash of a breaker's constant is warned at its policy, or at its
	// first operation when the spec does not define it (the built-in one).
	firstOp := map[*model.BreakerInstance]string{}
	for _, op := range b.file.Operations {
		if bi := op.Policy.Breaker; bi != nil {
			bi.Operations++
			if _, ok := firstOp[bi]; !ok {
				firstOp[bi] = diag.PointerJoin("/paths", op.Path, strings.ToLower(op.Method))
			}
		}
	}
	for _, resolved := range b.pol.Instances() {
		// Every instance is some operation's, and build made every
		// operation policy resolved, so each has its copy.
		bi := b.breakers[resolved]
		inst := bi.Instance
		bi.Var = locals.name(unexportedName("breaker "+inst, "breaker"))
		bi.Const = b.claimAt(b.pkg, "Breaker"+exportedName(inst, "Default"), fmt.Sprintf("the constant of breaker %q", inst),
			b.at(b.pol.PolicyPtr("breakers", bi.Policy.Policy, "", firstOp[bi])))
		b.file.Breakers = append(b.file.Breakers, bi)
	}
	// A policy object written once for several operations (a path item's
	// or the defaults' inline retry) is resolved for each: the operations
	// share one, as they would a named policy, so it has one variable
	// and one constant.
	firstRetryOp := map[*model.RetryPolicy]string{}
	byName := map[string]*model.RetryPolicy{}
	var retries []*model.RetryPolicy
	for _, op := range b.file.Operations {
		if rp := op.Policy.Retry; rp != nil {
			if first := byName[rp.Policy]; first != nil && first != rp && reflect.DeepEqual(first.RetryPolicy, rp.RetryPolicy) {
				op.Policy.Retry = first
				continue
			}
			byName[rp.Policy] = rp
			if _, ok := firstRetryOp[rp]; !ok {
				firstRetryOp[rp] = diag.PointerJoin("/paths", op.Path, strings.ToLower(op.Method))
				retries = append(retries, rp)
			}
		}
	}
	sort.SliceStable(retries, func(i, j int) bool { return retries[i].Policy < retries[j].Policy })
	for _, rp := range retries {
		rp.Var = locals.name(unexportedName("retry "+rp.Policy, "retry"))
		rp.Const = b.claimAt(b.pkg, "Retry"+exportedName(rp.Policy, "Default"), fmt.Sprintf("the constant of retry policy %q", rp.Policy),
			b.at(b.pol.PolicyPtr("retries", rp.Policy, "", firstRetryOp[rp])))
	}
	b.file.Retries = retries
}

// opPolicy is build's copy of a resolved operation policy: the same
// values, with the breaker instance and retry policy build's own copies,
// one per resolved one, which build names.
func (b *builder) opPolicy(p model.OpPolicy) *model.OpPolicy {
	if bi := p.Breaker; bi != nil {
		if b.breakers[bi] == nil {
			c := *bi
			b.breakers[bi] = &c
		}
		p.Breaker = b.breakers[bi]
	}
	if rp := p.Retry; rp != nil {
		if b.retries[rp] == nil {
			c := *rp
			b.retries[rp] = &c
		}
		p.Retry = b.retries[rp]
	}
	return &p
}

// opWords names an operation in a warning: by its operationId, or by its
// method and path when it has none.
func opWords(o opRef) string {
	if o.Op.OperationID != "" {
		return fmt.Sprintf("operation %q", o.Op.OperationID)
	}
	return "operation " + o.Method + " " + o.Path
}

func (b *builder) operation(o opRef, name, field string, methods *namer) *model.Operation {
	opPtr := o.Ptr()
	op := &model.Operation{
		Name: name, ID: o.ID, Method: o.Method, Path: o.Path, URLPath: load.URLPath(o.Path),
		Summary: strings.Join(docLines(strings.SplitN(o.Op.Summary, "\n", 2)[0]), ""),
		Doc:     docLines(o.Op.Description), Deprecated: o.Op.Deprecated, OpField: field,
		Security: b.opSecurity(o.Op), Pos: b.s.Pos(opPtr),
	}
	if len(o.Op.Tags) > 0 {
		op.Tag = o.Op.Tags[0]
	}

	params, paramPtr := o.Params, o.ParamPtr
	op.Policy = b.opPolicy(o.pol.Policy)
	keyParam := o.pol.KeyParam

	args := newNamer(append(append(append([]string{}, model.MethodLocals...), model.ImportNames...), predeclared...)...)
	pfields := newNamer()
	declared := map[string]*openapi3.Parameter{}
	for _, p := range params {
		if p.In == "path" {
			declared[p.Name] = p
		}
	}
	inPath := map[string]bool{}
	for _, m := range load.PathParamRE.FindAllStringSubmatch(op.URLPath, -1) {
		inPath[m[1]] = true
	}
	for _, p := range params {
		if p.In == "path" && !inPath[p.Name] {
			// kin's validation names only the first such operation of a
			// spec (openstack-network has 15); each is a value not sent.
			b.diags = append(b.diags, b.s.Diag(diag.Warning, paramPtr[p],
				fmt.Sprintf("path parameter %q is not in the path %q: the client has no argument for it and sends nothing", p.Name, o.Path),
				"remove the parameter, or put {"+p.Name+"} in the path"))
		}
	}
	for _, m := range load.PathParamRE.FindAllStringSubmatch(op.URLPath, -1) {
		pname := m[1]
		mp := &model.Param{SpecName: pname, In: model.InPath, Required: true, Type: builtin("string"), Style: model.StyleSimple}
		if p := declared[pname]; p != nil {
			mp.Doc = docLines(p.Description)
			mp.Style, mp.Explode = styleOf(p.Style), p.Explode != nil && *p.Explode
			b.setParamType(mp, p, name+exportedName(pname, "Param"), paramPtr[p])
		}
		mp.GoName = args.name(unexportedName(pname, "param"))
		op.PathParams = append(op.PathParams, mp)
	}
	// The printer writes an object's text into a local of its own; named
	// after the arguments, so that an argument keeps its name.
	for _, mp := range op.PathParams {
		if mp.Object {
			mp.TextVar = args.name(model.ObjectText(mp.GoName))
		}
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
			Style: styleOf(p.Style), Explode: p.Explode == nil || *p.Explode,
		}
		if p.Explode == nil && in != model.InQuery && in != model.InCookie {
			mp.Explode = false // simple style's default
		}
		if p.Explode == nil && p.Style != "" && p.Style != "form" {
			mp.Explode = false
		}
		b.setParamType(mp, p, name+exportedName(p.Name, "Param"), paramPtr[p])
		if p == keyParam {
			b.keyParam(mp, o.pol)
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
		op.ParamsType = b.claimAt(b.pkg, name+"Params", "the parameters type of "+opWords(o), b.at(opPtr))
	}

	if rb := o.Op.RequestBody; rb != nil && rb.Value != nil {
		b.bodies(op, rb, opPtr, methods)
	}
	op.ResponseType = b.claimAt(b.pkg, name+"Response", "the response type of "+opWords(o), b.at(opPtr))
	op.Responses, op.Headers = b.responses(o.Op, name, opPtr)
	op.Accept = accept(op.Responses)
	op.Policy.Streamed = slices.ContainsFunc(op.Responses, func(r *model.Response) bool { return r.Encoding == model.ResponseStream || r.Encoding.Events() })
	if !op.Policy.Streamed {
		// Every answer is read within its attempt: no read to bound.
		op.Policy.IdleTimeout = 0
		if o.pol.IdleAt != "" {
			b.diags = append(b.diags, b.s.Diag(diag.Warning, o.pol.IdleAt,
				fmt.Sprintf("idleTimeout on %s, whose answers are all read whole within the attempt: only a streamed answer (events, a download) is read after the headers, so it does nothing here", opWords(o)),
				"remove idleTimeout; timeout bounds this operation's reads"))
		}
	}
	if ev := op.Events(); ev == nil || ev.Encoding != model.ResponseSSE {
		// Only server-sent events carry the ids a stream resumes from.
		op.Policy.Resume = false
		if o.pol.ResumeAt != "" {
			b.diags = append(b.diags, b.s.Diag(diag.Warning, o.pol.ResumeAt,
				fmt.Sprintf("resume: true on %s, which streams no server-sent events (text/event-stream): nothing to resume, the call runs as without it", opWords(o)),
				"remove resume, or declare the text/event-stream answer"))
		}
	}
	return op
}

// setParamType sets mp's Go type from p's schema: text values, unions of
// scalars (written as the set variant's text) and lists of those as
// themselves, objects as key/value pairs. What no style can write (an
// object variant, a list of objects or lists) is a raw text field, with
// an unsupported: warning at ptr, never JSON text.
func (b *builder) setParamType(mp *model.Param, p *openapi3.Parameter, hint, ptr string) {
	mp.Type = builtin("string")
	ref := p.Schema
	if ref == nil {
		// A parameter's content has one entry: the first in sorted order.
		if len(p.Content) == 0 {
			return
		}
		if ct := slices.Min(slices.Collect(maps.Keys(p.Content))); p.Content[ct] != nil && encodingOf(ct) == model.BodyJSON {
			// content: application/json means the value's JSON text.
			mp.Type = rawMessage
			mp.Doc = append(mp.Doc, "It is the JSON text of the value (the parameter's content is "+ct+").")
		}
		return
	}
	if prim := b.scalarTyped(ref.Value); prim != nil {
		mp.Type = prim
		b.checkStyle(mp, p, ptr)
		return
	}
	if s := ref.Value; s != nil && s.Items != nil {
		if prim := b.scalarTyped(s.Items.Value); prim != nil && len(load.NonNullTypes(s)) <= 1 {
			mp.Type = &model.GoType{Kind: model.Slice, Elem: prim}
			b.checkStyle(mp, p, ptr)
			return
		}
	}
	t := b.typeOf(ref, hint, "", true)
	if list := b.listType(t); list != nil {
		// A list declared in components (type Tags []Tag) is written as
		// its items; the field is the slice, which takes a Tags too.
		t = list
	}
	switch {
	case b.untyped(t):
		mp.Doc = append(mp.Doc, "Its schema does not say its type: the text is sent as it is (escaped).")
	case t.Kind == model.Slice && b.untyped(t.Elem):
		// Items of no stated type are text, as a parameter of none is:
		// json.RawMessage items would go out as JSON ("a" quoted).
		mp.Type = &model.GoType{Kind: model.Slice, Elem: builtin("string")}
		mp.Doc = append(mp.Doc, "Its items' schema does not say their type: each text is sent as it is (escaped).")
	case paramEncodable(b, t):
		mp.Type = t
	case b.scalarUnion(t):
		mp.Type = t
	case t.Kind == model.Slice && b.scalarUnion(t.Elem):
		mp.Type = t
	case b.styledUnion(t):
		// Written through its JSON form: the set variant decides whether
		// it goes as a scalar, a list or an object.
		mp.Type, mp.Object = t, true
	case b.untyped(t):
		mp.Doc = append(mp.Doc, "Its schema does not say its type: the text is sent as it is (escaped).")
	case isObject(b, t):
		mp.Type, mp.Object = t, true
		// deepObject nests brackets (a[b][c]=1); other styles define no
		// nesting at all.
		if nested := b.nestedProps(t); len(nested) > 0 && p.Style != "deepObject" {
			b.diags = append(b.diags, b.s.Diag(diag.Warning, ptr,
				fmt.Sprintf("unsupported: %s parameter %q: %s, which no style but deepObject defines; the client writes such values as JSON text", p.In, p.Name, notScalars(nested)),
				"make them scalars, or use style: deepObject in a query; a RequestEditor can rewrite the request"))
		}
	case mp.In == model.InQuery && p.Style == "deepObject" && b.deepUnion(t):
		// Nested objects and lists of objects too: deepObject brackets
		// them (a[b][c]=1, a[0][b]=1).
		mp.Type, mp.Object = t, true
	case mp.In == model.InQuery && p.Style == "deepObject" && t.Kind == model.Slice && isObject(b, t.Elem):
		// Stripe's lines, invoice_items: a raw text field could not
		// carry them, since the name is fixed and the text escaped.
		mp.Type, mp.Object = t, true
		b.diags = append(b.diags, b.s.Diag(diag.Warning, ptr,
			fmt.Sprintf("unsupported: query parameter %q: style deepObject is defined only for objects; the client writes the list's items indexed (name[0][key]=value), as form bodies are and as Stripe reads them", p.Name), ""))
	default:
		b.diags = append(b.diags, b.s.Diag(diag.Warning, ptr,
			fmt.Sprintf("unsupported: %s parameter %q: %s, which no parameter style writes as text; the client sends the text you put in its field as is (escaped)", p.In, p.Name, b.unwritable(t)),
			"write the value's text yourself, or change the schema to scalars or a list of scalars"))
		mp.Doc = append(mp.Doc, "resgen cannot write this parameter's schema by its style: set the text", "to send (the client escapes it); see the unsupported: warning.")
	}
	b.checkStyle(mp, p, ptr)
}

// unwritable says what in t no parameter style can write.
func (b *builder) unwritable(t *model.GoType) string {
	if t.Kind == model.Slice {
		switch e := t.Elem; {
		case e.Kind == model.Slice:
			return "its items are lists"
		case e.Kind == model.Map || e.Kind == model.Named && b.decl(e.Name) != nil && b.decl(e.Name).Kind == model.Struct:
			return "its items are objects"
		}
		return "its items are " + strings.TrimPrefix(b.unwritable(t.Elem), "it is ")
	}
	if t.Kind == model.Named {
		if d := b.decl(t.Name); d != nil && d.Kind == model.Union {
			for _, v := range d.Variants {
				switch {
				case v.Kind == "object":
					if len(b.nestedProps(v.Type)) > 0 {
						return "it is a union with an object variant whose properties are not all scalars"
					}
				case v.Kind == "array":
					if !paramEncodable(b, v.Type) {
						return "it is a union with a list variant whose items are not scalars"
					}
				case !isScalarKind(v.Kind):
					return "it is a union with a variant of kind " + v.Kind
				}
			}
			return "it is a union with shared properties"
		}
	}
	return "it is a value of no fixed type"
}

// nestedProps are the properties of object type t (quoted) whose values
// are not scalars; a map of any value has none that the schema says.
func (b *builder) nestedProps(t *model.GoType) []string {
	scalar := func(ft *model.GoType) bool {
		if ft.Kind == model.Pointer {
			ft = ft.Elem
		}
		return ft.Kind != model.Slice && (paramEncodable(b, ft) || b.scalarUnion(ft))
	}
	if t.Kind == model.Map {
		if e := t.Elem; !(e.Kind == model.Builtin && e.Name == "any") && !scalar(e) {
			return []string{"(every value)"}
		}
		return nil
	}
	d := b.decl(t.Name)
	if d.Kind == model.Defined {
		return b.nestedProps(d.Underlying)
	}
	var out []string
	for _, f := range d.Fields {
		if !scalar(f.Type) {
			out = append(out, strconv.Quote(f.JSONName))
		}
	}
	if d.Extra != nil && !(d.Extra.Kind == model.Builtin && d.Extra.Name == "any") && !scalar(d.Extra) {
		out = append(out, "(additional properties)")
	}
	return out
}

func notScalars(props []string) string {
	if len(props) == 1 {
		return "its property " + props[0] + " is not a scalar"
	}
	return "its properties " + strings.Join(props, ", ") + " are not scalars"
}

func isScalarKind(kind string) bool {
	return kind == "string" || kind == "integer" || kind == "number" || kind == "boolean"
}

// scalarUnion reports whether t is a union every variant of which is
// written as text, with no shared properties or discriminator, and marks
// it for a ParamText method.
func (b *builder) scalarUnion(t *model.GoType) bool {
	if t.Kind != model.Named {
		return false
	}
	d := b.decl(t.Name)
	if d == nil || d.Kind != model.Union || len(d.Fields) > 0 || d.Discriminator != "" || len(d.Variants) == 0 {
		return false
	}
	for _, v := range d.Variants {
		if !isScalarKind(v.Kind) || !b.scalarText(v.Type) {
			return false
		}
	}
	d.ParamText = true
	return true
}

// styledUnion reports whether t is a union whose every variant a style
// writes (a scalar, a list of scalars, an object of scalars) and at least
// one is not a scalar.
func (b *builder) styledUnion(t *model.GoType) bool {
	if t.Kind != model.Named {
		return false
	}
	d := b.decl(t.Name)
	if d == nil || d.Kind != model.Union || len(d.Fields) > 0 || len(d.Variants) == 0 {
		return false
	}
	for _, v := range d.Variants {
		vt := v.Type
		switch {
		case isScalarKind(v.Kind) && paramEncodable(b, vt) && vt.Kind != model.Slice:
		case v.Kind == "array" && vt.Kind == model.Slice && paramEncodable(b, vt):
		case v.Kind == "object" && isObject(b, vt) && len(b.nestedProps(vt)) == 0:
		default:
			return false
		}
	}
	return true
}

// scalarTyped is the Go type of a scalar-typed oneOf or anyOf (type:
// string, oneOf: [{const: a}, {const: b}]), whose value is that scalar
// whatever the variants say; nil for any other schema.
func (b *builder) scalarTyped(s *openapi3.Schema) *model.GoType {
	if s == nil || len(s.OneOf) == 0 && len(s.AnyOf) == 0 || len(s.Properties) > 0 {
		return nil
	}
	return b.primitive(s)
}

// isObject reports whether t is written as key/value pairs: a struct or
// a map, or a type defined as one.
func isObject(b *builder, t *model.GoType) bool {
	switch t.Kind {
	case model.Map:
		return true
	case model.Named:
		d := b.decl(t.Name)
		return d != nil && (d.Kind == model.Struct || d.Kind == model.Defined && d.Underlying != nil && isObject(b, d.Underlying))
	}
	return false
}

// untyped reports whether t says nothing of the value's type (a schema
// with no type: json.RawMessage or a type defined as one).
func (b *builder) untyped(t *model.GoType) bool {
	if t == rawMessage || t.Kind == model.Builtin && t.Name == "any" {
		return true
	}
	if t.Kind == model.Named {
		if d := b.decl(t.Name); d != nil && d.Kind == model.Defined && d.Underlying != nil {
			return b.untyped(d.Underlying)
		}
	}
	return false
}

// listType is the slice that t, a named list type (type Tags []Tag,
// perhaps through further definitions), is defined as; nil for any
// other type.
func (b *builder) listType(t *model.GoType) *model.GoType {
	for t.Kind == model.Named {
		d := b.decl(t.Name)
		if d == nil || d.Kind != model.Defined || d.Underlying == nil {
			return nil
		}
		t = d.Underlying
	}
	if t.Kind == model.Slice {
		return t
	}
	return nil
}

// decl is the declared type named name, or nil.
func (b *builder) decl(name string) *model.Type {
	for ; b.declsIndexed < len(b.file.Types); b.declsIndexed++ {
		d := b.file.Types[b.declsIndexed]
		if _, dup := b.declByName[d.Name]; !dup {
			b.declByName[d.Name] = d
		}
	}
	return b.declByName[name]
}

// checkStyle reports the style and explode combinations OpenAPI does not
// define for mp's kind of value, and says what the client sends instead.
func (b *builder) checkStyle(mp *model.Param, p *openapi3.Parameter, ptr string) {
	list := mp.Type.Kind == model.Slice
	listForm := "(name=a,b)"
	if mp.Explode {
		listForm = "(name=a&name=b)"
	}
	var why string
	switch {
	case mp.In == model.InQuery && p.Style == "deepObject" && list && !mp.Object:
		// A list has several readings (name[]=a, name[0]=a, name=a&name=b).
		why = "style deepObject is defined only for objects; the client writes the list as form " + listForm
	case mp.In == model.InQuery && p.Style == "deepObject" && mp.Object && b.listVariant(mp.Type) == "scalars":
		// A scalar variant has one reading (created=7, what Stripe
		// reads); a list variant has several.
		why = "style deepObject is defined only for objects; the client writes the union's list variant as form " + listForm
	case mp.In == model.InQuery && p.Style == "deepObject" && mp.Object && b.listVariant(mp.Type) == "objects":
		why = "style deepObject is defined only for objects; the client writes the union's list variant indexed (name[0][key]=value), as form bodies are and as Stripe reads them"
	case mp.In == model.InQuery && (p.Style == "spaceDelimited" || p.Style == "pipeDelimited") && mp.Explode && mp.Object:
		why = "style " + p.Style + " is defined for objects only with explode: false; the client writes it so"
	case mp.In == model.InCookie && (list || mp.Object) && mp.Explode:
		why = "a cookie's form style with explode: true is not defined for lists and objects; the client writes it as explode: false (name=a,b)"
	}
	if why == "" {
		return
	}
	if mp.In == model.InCookie || mp.Object && (p.Style == "spaceDelimited" || p.Style == "pipeDelimited") {
		mp.Explode = false
	}
	b.diags = append(b.diags, b.s.Diag(diag.Warning, ptr, fmt.Sprintf("unsupported: %s parameter %q: %s", p.In, p.Name, why), ""))
}

// listVariant says whether union t has a list variant and of what:
// "scalars", "objects" (Stripe's discounts: anyOf [list of objects, ""]),
// or "" for none.
func (b *builder) listVariant(t *model.GoType) string {
	d := b.decl(t.Name)
	if t.Kind != model.Named || d == nil || d.Kind != model.Union {
		return ""
	}
	for _, v := range d.Variants {
		if v.Type.Kind == model.Slice {
			if isObject(b, v.Type.Elem) {
				return "objects"
			}
			return "scalars"
		}
	}
	return ""
}

// deepUnion reports whether t is a union that style deepObject writes:
// every variant a scalar, an object (nested values in further brackets)
// or a list of scalars or of objects (indexed).
func (b *builder) deepUnion(t *model.GoType) bool {
	d := b.decl(t.Name)
	if t.Kind != model.Named || d == nil || d.Kind != model.Union || len(d.Fields) > 0 || len(d.Variants) == 0 {
		return false
	}
	for _, v := range d.Variants {
		vt := v.Type
		if vt.Kind == model.Slice {
			vt = vt.Elem
		}
		scalar := vt.Kind != model.Slice && paramEncodable(b, vt) && !b.untyped(vt)
		if !scalar && !isObject(b, vt) {
			return false
		}
	}
	return true
}

// mediaPick chooses the content type resgen encodes or decodes, preferring
// JSON, then forms, then text, then bytes.
func mediaPick(c openapi3.Content) (string, *openapi3.MediaType) {
	best, bestRank := "", 100
	for _, ct := range slices.Sorted(maps.Keys(c)) {
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

func encodingOf(ct string) model.BodyEncoding {
	switch mediaRank(ct) {
	case 0, 1:
		return model.BodyJSON
	case 2:
		return model.BodyForm
	case 3:
		return model.BodyMultipart
	case 4:
		return model.BodyText
	}
	return model.BodyBytes
}

// styleOf is the style OpenAPI names name. Another name (the loader warns
// that the spec does not validate) is unset: the default of where the
// value goes, as the runtime wrote any name it does not know.
func styleOf(name string) model.Style {
	s, _ := model.StyleOf(name)
	return s
}

// bodyIssue is a part of a request body that resgen cannot write as the
// spec says: reported as unsupported, the raw WithBody method its escape.
type bodyIssue struct{ ptr, msg string }

// bodies sets an operation's request body and its variants. The content
// type resgen prefers (JSON, then forms, text, bytes) takes the plain
// method; each other one it encodes gets a method of its own (CreatePet +
// WithForm, WithMultipart, WithText, WithBytes, With<subtype>), and an
// operation with several content types, or with a body resgen cannot write
// as the spec says, also gets CreatePetWithBody(..., contentType, body):
// the typed escape hatch for XML and anything else. Methods rather than a
// body union: a call stays plain Go, a spec that adds a content type adds
// a method to the diff, and an operation with one content type costs
// nothing more.
func (b *builder) bodies(op *model.Operation, rb *openapi3.RequestBodyRef, opPtr string, methods *namer) {
	content := rb.Value.Content
	ct, mt := mediaPick(content)
	if mt == nil {
		return
	}
	base, local := diag.PointerJoin(opPtr, "requestBody", "content"), true
	switch {
	case strings.HasPrefix(rb.Ref, "#/"):
		base = rb.Ref[1:] + "/content"
	case rb.Ref != "":
		base, local = diag.PointerJoin(opPtr, "requestBody"), false
	}
	ptrOf := func(tokens ...string) string {
		if !local {
			return base
		}
		return diag.PointerJoin(base, tokens...)
	}
	var issues []bodyIssue
	op.Body = b.body(ct, mt, rb.Value.Required, op.Name, ptrOf, &issues)
	defer b.warnUnionBodies(op)
	var raw []string
	suffixes := newNamer()
	for _, other := range slices.Sorted(maps.Keys(content)) {
		if other == ct || content[other] == nil {
			continue
		}
		suffix, ok := variantSuffix(other)
		if !ok {
			raw = append(raw, other)
			continue
		}
		vb := b.body(other, content[other], rb.Value.Required, op.Name, ptrOf, &issues)
		op.Variants = append(op.Variants, &model.BodyVariant{Name: methods.name(op.Name + "With" + suffixes.name(suffix)), Body: vb})
	}
	if len(content) == 1 && len(issues) == 0 {
		return
	}
	rawName := op.Name // a wildcard: the method is raw already
	if op.Body.Encoding != model.BodyRaw {
		rawName = methods.name(op.Name + "WithBody")
		op.Variants = append(op.Variants, &model.BodyVariant{Name: rawName, Body: &model.Body{Encoding: model.BodyRaw, Type: ioReader}})
	}
	if len(raw) > 0 {
		b.diags = append(b.diags, b.s.Diag(diag.Warning, ptrOf(raw[0]),
			fmt.Sprintf("unsupported: %s accepts %s request bodies, which resgen does not encode; send them with %s(..., contentType, body)", op.ID, strings.Join(raw, ", "), rawName), ""))
	}
	for _, is := range issues {
		b.diags = append(b.diags, b.s.Diag(diag.Warning, is.ptr, "unsupported: "+is.msg+"; send the body as the spec says with "+rawName+"(..., contentType, body)", ""))
	}
}

// warnUnionBodies warns about op's form and multipart bodies whose schema
// is a union, naming the method that takes them as the caller encodes
// them: the typed escape hatch.
func (b *builder) warnUnionBodies(op *model.Operation) {
	warn := func(body *model.Body, method string) {
		is, ok := b.unionBodies[body]
		if !ok {
			return
		}
		takes, as := "the encoded body", "parts"
		if is.msg == "form" {
			takes, as = "a url.Values", "form fields"
		}
		b.diags = append(b.diags, b.s.Diag(diag.Warning, is.ptr, fmt.Sprintf("unsupported: %s body whose schema is a oneOf/anyOf (or an allOf with one): resgen writes no union as %s, so %s takes %s", is.msg, as, method, takes), ""))
	}
	warn(op.Body, op.Name)
	for _, v := range op.Variants {
		warn(v.Body, v.Name)
	}
}

// variantSuffix names the method of a request content type, or false when
// resgen does not encode it: XML, wildcards (no Content-Type to send) and
// multipart types other than form-data (no parts to write).
func variantSuffix(ct string) (string, bool) {
	l := strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]))
	typ, sub, _ := strings.Cut(l, "/")
	switch {
	case strings.Contains(l, "*") || sub == "" || sub == "xml" || strings.HasSuffix(sub, "+xml"):
		return "", false
	case typ == "multipart" && sub != "form-data":
		return "", false
	case sub == "x-www-form-urlencoded":
		return "Form", true
	case sub == "form-data":
		return "Multipart", true
	case l == "text/plain":
		return "Text", true
	case l == "application/octet-stream":
		return "Bytes", true
	}
	// application/merge-patch+json: MergePatchJSON, not MergePatchPlusJSON.
	return exportedName(strings.ReplaceAll(sub, "+", " "), "Body"), true
}

// body is the request body of content type ct. What it cannot write as
// the spec's encoding says goes to issues.
func (b *builder) body(ct string, mt *openapi3.MediaType, required bool, opName string, ptrOf func(...string) string, issues *[]bodyIssue) *model.Body {
	body := &model.Body{ContentType: ct, Encoding: encodingOf(ct), Required: required}
	if strings.Contains(ct, "*") {
		// image/*, */*: no Content-Type to send; the caller names one.
		body.Encoding, body.Type, body.Required = model.BodyRaw, ioReader, false
		return body
	}
	switch body.Encoding {
	case model.BodyMultipart:
		if mt.Schema != nil && mt.Schema.Value != nil {
			if props, ok := b.objectProps(mt.Schema.Value); ok {
				body.Type = b.multipartType(opName+"Multipart", props, mt.Encoding, body, func(part string) string { return ptrOf(ct, "encoding", part) }, issues)
				body.Encoding = model.BodyMultipartFields
				nullProps("multipart part", props, func(name string) string { return ptrOf(ct, "schema", "properties", name) }, issues)
				break
			}
			b.unionBody(body, "multipart", mt.Schema.Value, ptrOf(ct, "schema"))
		}
		body.Type = ioReader
	case model.BodyJSON:
		body.Type = b.typeOf(mt.Schema, opName+"Body", "", true)
	case model.BodyForm:
		body.Type = &model.GoType{Kind: model.Qual, Pkg: "net/url", Name: "Values"}
		if mt.Schema != nil && mt.Schema.Value != nil {
			if props, ok := b.objectProps(mt.Schema.Value); ok {
				// A typed form: encoded through its JSON form (deepObject
				// brackets for nested values).
				body.Type = b.typeOf(mt.Schema, opName+"Form", "", true)
				body.Encoding = model.BodyFormTyped
				b.formEncoding(body, props, mt.Encoding, func(tokens ...string) string { return ptrOf(append([]string{ct}, tokens...)...) }, issues)
				nullProps("form property", props, func(name string) string { return ptrOf(ct, "schema", "properties", name) }, issues)
			} else {
				b.unionBody(body, "form", mt.Schema.Value, ptrOf(ct, "schema"))
			}
		}
	case model.BodyText:
		body.Type = builtin("string")
	default:
		body.Type = ioReader // streamed (runtime's upload.go)
	}
	return body
}

// formEncoding checks a typed form's properties against the encoding the
// spec gives each (style form, explode true by default). runtime.FormBody
// writes scalars as name=value, lists repeated (name=a&name=b) or, where
// the spec says explode false, joined (name=a,b), or, deepObject, indexed
// (name[0]=a, name[0][key]=value), and objects as deepObject brackets
// (name[key]=value) or, explode false, name=key,value.
func (b *builder) formEncoding(body *model.Body, props []prop, encs map[string]*openapi3.Encoding, ptrOf func(...string) string, issues *[]bodyIssue) {
	for _, p := range props {
		if p.schema == nil || p.schema.Value == nil {
			continue
		}
		// A nullable property (oneOf [null, X], type: [X, null]) is sent
		// as X is: null leaves it out of the form.
		ps := unwrapNull(p.schema.Value)
		sm := encs[p.name].SerializationMethod() // nil-safe: form, explode
		ptr := ptrOf("schema", "properties", p.name)
		if encs[p.name] != nil {
			ptr = ptrOf("encoding", p.name)
		}
		object := formObject(ps)
		list := formList(ps)
		switch {
		case sm.Style == openapi3.SerializationForm && !sm.Explode && (object || list),
			sm.Style == openapi3.SerializationDeepObject && list:
			body.FormStyles = append(body.FormStyles, model.FormStyle{Name: p.name, Style: styleOf(sm.Style), Explode: sm.Explode})
		case object && sm.Style != openapi3.SerializationDeepObject:
			*issues = append(*issues, bodyIssue{ptr, fmt.Sprintf("form property %q is an object of style %s, explode true, which would spread its properties over the form; resgen sends %s[key]=value (deepObject)", p.name, sm.Style, p.name)})
		case list && ps.Items != nil && ps.Items.Value != nil && (formObject(unwrapNull(ps.Items.Value)) || formList(unwrapNull(ps.Items.Value))):
			*issues = append(*issues, bodyIssue{ptr, fmt.Sprintf("form property %q is a list of objects or lists of style %s, which cannot write them; resgen sends %s[0][key]=value (what deepObject means on a list)", p.name, sm.Style, p.name)})
		case list && sm.Style != openapi3.SerializationForm:
			*issues = append(*issues, bodyIssue{ptr, fmt.Sprintf("form property %q has style %s; resgen sends the list as %s=a&%s=b", p.name, sm.Style, p.name, p.name)})
		}
	}
}

// unwrapNull is the schema a nullable wrapper stands for: the only
// non-null variant of a oneOf/anyOf or the one part of an allOf (nested
// wrappers too, a bounded number of them), else s itself. type: [X,
// "null"] needs no unwrapping: formObject and formList skip "null".
func unwrapNull(s *openapi3.Schema) *openapi3.Schema {
	for range 8 {
		w := wrapped(s)
		if w == nil || w.Value == nil {
			break
		}
		s = w.Value
	}
	return s
}

// formObject reports whether a form property's schema is an object.
func formObject(s *openapi3.Schema) bool {
	return slices.Contains(load.NonNullTypes(s), "object") || len(s.Properties) > 0 || s.AdditionalProperties.Schema != nil
}

// formList reports whether a form property's schema is a list, and only
// a list (type: array, or [array, "null"]).
func formList(s *openapi3.Schema) bool {
	t := load.NonNullTypes(s)
	return len(t) == 1 && t[0] == "array"
}

// unionBody notes a form or multipart body whose schema is a union (a
// oneOf/anyOf, or an allOf with one), at ptr: resgen writes no union as
// form fields or parts, and the body's method takes what the caller
// encodes (bodies warns once the method has its name).
func (b *builder) unionBody(body *model.Body, what string, s *openapi3.Schema, ptr string) {
	if len(unionParts(s)) == 0 {
		return
	}
	if b.unionBodies == nil {
		b.unionBodies = map[*model.Body]bodyIssue{}
	}
	b.unionBodies[body] = bodyIssue{ptr, what}
}

// nullProps reports, once per body, the properties of a form or
// multipart body (what names one) that may be null: neither body can write
// a null, and the client leaves a null (or nil) value out, which for a
// required one is a request the spec refuses.
func nullProps(what string, props []prop, ptrOf func(name string) string, issues *[]bodyIssue) {
	var names, required []string
	ptr := ""
	for _, p := range props {
		if p.schema == nil || p.schema.Value == nil || !isNullable(p.schema.Value) {
			continue
		}
		if ptr == "" {
			ptr = ptrOf(p.name)
		}
		names = append(names, strconv.Quote(p.name))
		if p.required {
			required = append(required, strconv.Quote(p.name))
		}
	}
	if len(names) == 0 {
		return
	}
	if len(names) > 1 {
		what = strings.TrimSuffix(what, "y") + map[bool]string{true: "ies", false: "s"}[strings.HasSuffix(what, "y")]
	}
	msg := fmt.Sprintf("%s %s may be null, which this body cannot write; the client leaves a null value out", what, strings.Join(names, ", "))
	if len(required) > 0 {
		msg += fmt.Sprintf(" (a request the spec refuses for the required %s)", strings.Join(required, ", "))
	}
	*issues = append(*issues, bodyIssue{ptr, msg})
}

var ioReader = &model.GoType{Kind: model.Qual, Pkg: "io", Name: "Reader"}

var runtimeFile = &model.GoType{Kind: model.Qual, Pkg: "github.com/resgen/resgen/runtime", Name: "File"}

// isBinary reports whether a schema is file content.
func isBinary(s *openapi3.Schema) bool {
	return s != nil && s.Type != nil && s.Type.Is("string") && (s.Format == "binary" || s.ContentMediaType != "" || s.ContentEncoding == "binary")
}

// multipartType declares the struct of a multipart body: file parts as
// *runtime.File, others as their types. A required part of a type that has
// a zero value is a value, always sent; a required file, list or object
// part can still be nil, and the method refuses it before any request.
func (b *builder) multipartType(name string, props []prop, encs map[string]*openapi3.Encoding, body *model.Body, ptrOf func(string) string, issues *[]bodyIssue) *model.GoType {
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
		file := false
		switch {
		case isBinary(ps):
			f.Type, file = &model.GoType{Kind: model.Pointer, Elem: runtimeFile}, true
		case ps != nil && ps.Items != nil && isBinary(ps.Items.Value):
			f.Type, file = &model.GoType{Kind: model.Slice, Elem: &model.GoType{Kind: model.Pointer, Elem: runtimeFile}}, true
		default:
			f.Type = b.typeOf(p.schema, name+f.Name, "", true)
			if !f.Type.Nilable() && !p.required {
				f.Type = &model.GoType{Kind: model.Pointer, Elem: f.Type}
			}
		}
		if p.required {
			f.Doc = []string{f.Name + " is required."}
		}
		decl.Fields = append(decl.Fields, f)
		part := b.part(f)
		body.Parts = append(body.Parts, part)
		enc := encs[p.name]
		if enc == nil {
			continue
		}
		if len(enc.Headers) > 0 {
			*issues = append(*issues, bodyIssue{ptrOf(p.name), fmt.Sprintf("multipart part %q declares headers (%s), which resgen does not send", p.name, strings.Join(slices.Sorted(maps.Keys(enc.Headers)), ", "))})
		}
		ct := strings.TrimSpace(enc.ContentType)
		if ct == "" {
			continue
		}
		if file {
			// One concrete type is the part's default; a list or a
			// wildcard leaves it to File.ContentType.
			if !strings.ContainsAny(ct, ",*") {
				part.ContentType = ct
			}
			continue
		}
		sent := "application/json"
		if part.Kind == model.PartText || part.Kind == model.PartTexts {
			sent = "text/plain"
		}
		if !mediaIn(sent, ct) {
			*issues = append(*issues, bodyIssue{ptrOf(p.name), fmt.Sprintf("multipart part %q is declared as %s; resgen sends it as %s", p.name, ct, sent)})
		}
	}
	body.Fields = decl.Fields
	return t
}

// mediaIn reports whether media type mt is one of list, a comma-separated
// encoding contentType that may hold wildcards (image/*, */*).
func mediaIn(mt, list string) bool {
	typ, _, _ := strings.Cut(mt, "/")
	for _, c := range strings.Split(list, ",") {
		c = strings.ToLower(strings.TrimSpace(strings.SplitN(c, ";", 2)[0]))
		if c == mt || c == "*/*" || c == typ+"/*" {
			return true
		}
	}
	return false
}

func (b *builder) responses(op *openapi3.Operation, opName, opPtr string) ([]*model.Response, []*model.ResponseHeader) {
	if op.Responses == nil {
		return nil, nil
	}
	var keys []string
	for _, k := range op.Responses.Keys() {
		if !validStatusKey(k) {
			// A response the client would silently drop: the author meant
			// some status, and a wrong client is worse than none.
			b.diags = append(b.diags, b.s.Diag(diag.Error, diag.PointerJoin(opPtr, "responses", k),
				fmt.Sprintf("response code %q is not an HTTP status", k), "write a status code from 100 to 599, a range from 1XX to 5XX, or default"))
			continue
		}
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return statusRank(keys[i]) < statusRank(keys[j]) })
	// The statuses whose answers may be event streams: the 2xx ones, or
	// default where the operation declares no 2xx (its success is there).
	streams := func(k string) bool { return k[0] == '2' }
	if !slices.ContainsFunc(keys, streams) {
		streams = func(k string) bool { return k == "default" }
	}
	fields := newNamer("StatusCode", "Header", "Body", "Attempts", "Stream", "Response", "Events", eventStreamField)
	var out []*model.Response
	var headers []*model.ResponseHeader
	var events *model.Response // the first event stream: the others share its field
	seen := map[string]bool{}
	for _, k := range keys {
		rr := op.Responses.Value(k)
		if rr == nil || rr.Value == nil {
			continue
		}
		r := &model.Response{Status: k}
		if rr.Value.Description != nil {
			r.Doc = docLines(*rr.Value.Description)
		}
		for _, hn := range slices.Sorted(maps.Keys(rr.Value.Headers)) {
			canon := http.CanonicalHeaderKey(hn)
			if seen[canon] || canon == "Content-Type" {
				continue
			}
			seen[canon] = true
			h := &model.ResponseHeader{FieldName: fields.name(exportedName(hn, "Header")), Name: hn, Type: headerString}
			if hr := rr.Value.Headers[hn]; hr != nil && hr.Value != nil {
				h.Doc = docLines(hr.Value.Description)
				if sr := hr.Value.Schema; sr != nil && sr.Value != nil {
					h.Type = b.headerType(sr.Value)
				}
			}
			headers = append(headers, h)
		}
		ct, mt := mediaPick(rr.Value.Content)
		suffix := strings.ToUpper(k) // 200, 2XX
		if k == "default" {
			suffix = "Default"
		}
		var beside *model.Response
		if sct, smt, enc := streamPick(rr.Value.Content); smt != nil && streams(k) {
			sr := &model.Response{Status: k, Doc: r.Doc, ContentType: sct, Encoding: enc, FieldName: eventStreamField}
			sr.Type = b.eventType(smt, enc, opName+"Response"+suffix+"Event")
			switch {
			case events == nil:
				events = sr
			case events.Encoding != sr.Encoding || !sameType(events.Type, sr.Type):
				// One Events method has one element type: this status is
				// the caller's to read, as a raw stream.
				b.diags = append(b.diags, b.s.Diag(diag.Warning, diag.PointerJoin(opPtr, "responses", k, "content", sct),
					fmt.Sprintf("unsupported: the %s answer streams %s events of another type than the %s answer; Events ranges over the %s stream, this one is the raw Stream", k, sct, events.Status, events.Status), ""))
				sr = &model.Response{Status: k, Doc: r.Doc, ContentType: sct, Encoding: model.ResponseStream}
			}
			// Another type beside the stream (JSON, or audio bytes, when
			// the request does not ask for a stream): the answer's
			// Content-Type picks.
			ct, mt = mediaPick(withoutStreams(rr.Value.Content))
			if mt == nil {
				out = append(out, sr)
				continue
			}
			beside = sr
		}
		switch enc := encodingOf(ct); {
		case mt == nil:
		case enc == model.BodyJSON:
			r.ContentType, r.Encoding = ct, model.ResponseJSON
			r.FieldName = fields.name("JSON" + suffix)
			r.Type = b.typeOf(mt.Schema, opName+"Response"+suffix+"Body", "", true)
		case enc == model.BodyText && !(mt.Schema != nil && isBinary(mt.Schema.Value)):
			r.ContentType, r.Encoding = ct, model.ResponseText
			r.FieldName = fields.name("Text" + suffix)
			r.Type = builtin("string")
		case k[0] == '2' || k[0] == '1' || k[0] == '3':
			// Files and other bytes: the caller reads the body as a stream.
			r.ContentType, r.Encoding = ct, model.ResponseStream
		}
		out = append(out, r)
		if beside != nil {
			out = append(out, beside)
		}
	}
	return out, headers
}

// eventStreamField is the response field of an operation's typed event
// stream, which its Events method ranges over.
const eventStreamField = "EventStream"

// streamPick is the first media type of c (sorted) that is a stream of
// events resgen decodes, with its encoding; "" and nil when there is none.
func streamPick(c openapi3.Content) (string, *openapi3.MediaType, model.ResponseEncoding) {
	for _, ct := range slices.Sorted(maps.Keys(c)) {
		if enc := streamEncoding(ct); enc != model.ResponseNone {
			return ct, c[ct], enc
		}
	}
	return "", nil, model.ResponseNone
}

// streamEncoding is how resgen reads a stream of events of media type ct:
// text/event-stream as server-sent events, application/jsonl and
// application/x-ndjson as JSON lines; ResponseNone for any other.
func streamEncoding(ct string) model.ResponseEncoding {
	switch strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0])) {
	case "text/event-stream":
		return model.ResponseSSE
	case "application/jsonl", "application/x-ndjson":
		return model.ResponseJSONL
	}
	return model.ResponseNone
}

// withoutStreams is c without its event stream media types.
func withoutStreams(c openapi3.Content) openapi3.Content {
	out := openapi3.Content{}
	for ct, mt := range c {
		if streamEncoding(ct) == model.ResponseNone {
			out[ct] = mt
		}
	}
	return out
}

// eventType is the Go type of each event of a stream of media type mt:
// OpenAPI 3.2's itemSchema, else its schema, is one event (for SSE, the
// event's data: an itemSchema of the event object gives its data
// property, by its contentSchema when it has one). A string, or no
// schema, is the data's text as sent; oneOf and anyOf are unions.
func (b *builder) eventType(mt *openapi3.MediaType, enc model.ResponseEncoding, hint string) *model.GoType {
	ref := mt.Schema
	if mt.ItemSchema != nil {
		ref = mt.ItemSchema
		if s := ref.Value; enc == model.ResponseSSE && s != nil && s.Properties["data"] != nil {
			ref = s.Properties["data"]
			if d := ref.Value; d != nil && d.ContentSchema != nil {
				ref = d.ContentSchema
			}
		}
	}
	if ref == nil || ref.Value == nil {
		return builtin("string")
	}
	if s := unwrapNull(ref.Value); s.Type != nil && s.Type.Is("string") && len(s.OneOf) == 0 && len(s.AnyOf) == 0 {
		return builtin("string")
	}
	return b.typeOf(ref, hint, "", true)
}

// sameType reports whether a and b print as the same Go type.
func sameType(a, b *model.GoType) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Kind == b.Kind && a.Name == b.Name && a.Pkg == b.Pkg && sameType(a.Elem, b.Elem)
}

// accept is the Accept header of responses: their content types, each
// once, in order.
func accept(responses []*model.Response) string {
	var types []string
	for _, r := range responses {
		if r.ContentType != "" && !slices.Contains(types, r.ContentType) {
			types = append(types, r.ContentType)
		}
	}
	return strings.Join(types, ", ")
}

// headerString is the type of a response header field that holds the
// header's text.
var headerString = &model.GoType{Kind: model.Pointer, Elem: builtin("string")}

// headerType is the field type of a response header of schema s: a
// pointer to its integer, float or bool type, a slice of those or of
// strings for a list (style simple, a,b), else *string (text, dates,
// objects and unions: the header's text as sent).
func (b *builder) headerType(s *openapi3.Schema) *model.GoType {
	s = unwrapNull(s)
	scalar := func(s *openapi3.Schema) *model.GoType {
		if s == nil || len(s.Properties) > 0 {
			return nil
		}
		t := b.primitive(s)
		if t == nil || t.Kind != model.Builtin {
			return nil // time.Time: a header's date may be an HTTP-date
		}
		switch t.Name {
		case "string", "bool", "int32", "int64", "uint32", "uint64", "float32", "float64":
			return t
		}
		return nil // []byte: the text as sent
	}
	if formList(s) && s.Items != nil && s.Items.Value != nil {
		if t := scalar(unwrapNull(s.Items.Value)); t != nil {
			return &model.GoType{Kind: model.Slice, Elem: t}
		}
		return headerString
	}
	if t := scalar(s); t != nil {
		return &model.GoType{Kind: model.Pointer, Elem: t}
	}
	return headerString
}

// validStatusKey reports whether k is a response key OpenAPI allows: a
// status code from 100 to 599, a range 1XX to 5XX (any case), or default.
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
	for _, c := range k {
		if c < '0' || c > '9' {
			return false // Atoi takes "+20" and "-20"
		}
	}
	n, _ := strconv.Atoi(k)
	return n >= 100 && n <= 599
}

// statusRank orders exact codes first, then ranges, then default; k is a
// valid status key.
func statusRank(k string) int {
	if n, err := strconv.Atoi(k); err == nil {
		return n
	}
	if k == "default" {
		return 10000
	}
	return 1000 + int(k[0]-'0')
}
