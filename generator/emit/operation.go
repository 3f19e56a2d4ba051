package emit

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/internal/sanitize"
)

// emitParams prints the struct of an operation's query, header and cookie
// parameters.
func (e *emitter) emitParams(f *jen.File, op *model.Operation) {
	if op.ParamsType == "" {
		return
	}
	comment(f, []string{op.ParamsType + " are the query, header and cookie parameters of " + op.Name + " (nil leaves one out)."})
	var fields []structField
	for _, p := range op.Params {
		what := string(p.In) + " parameter " + quoteLine(p.SpecName) + reqWord(p.Required)
		if len(p.Doc) > 0 && strings.HasPrefix(p.Doc[0], p.GoName+" ") {
			what = "" // its doc says what the field is
		}
		fields = append(fields, structField{name: p.GoName, typ: paramFieldType(p), doc: p.Doc, note: what})
	}
	f.Type().Id(op.ParamsType).StructFunc(func(g *jen.Group) { emitFields(g, fields, 0) })
}

// structField is one field of a generated struct: doc above it, and note,
// a one-line comment after it where that line stays under maxColumns
// (else above it too).
type structField struct {
	name string
	typ  *model.GoType
	tag  string // the resgen tag, "" none
	doc  []string
	note string
}

// emitFields prints fields. gofmt aligns the names, types and tags of a
// struct's fields, so with the widest of each (and of an embedded field's
// name, nameWidth) a note that would pass maxColumns after its field is
// known here and goes above it instead.
func emitFields(g *jen.Group, fields []structField, nameWidth int) {
	emitFieldsIn(g, fields, noteRoom(fields, nameWidth))
}

// noteRoom is how long a note after a field of fields may be.
func noteRoom(fields []structField, nameWidth int) int {
	wName, wType, wTag := nameWidth, 0, 0
	for _, fl := range fields {
		wName = max(wName, len(fl.name))
		wType = max(wType, typeWidth(fl.typ))
		if fl.tag != "" {
			wTag = max(wTag, len(fl.tag)+len("`resgen:\"\"` "))
		}
	}
	return maxColumns - 1 - (tabWidth + wName + 1 + wType + 1 + wTag + len("// "))
}

// emitFieldsIn prints fields, with notes of at most room after them.
func emitFieldsIn(g *jen.Group, fields []structField, room int) {
	for _, fl := range fields {
		field := jen.Id(fl.name).Add(typeExpr(fl.typ))
		if fl.tag != "" {
			field.Tag(map[string]string{"resgen": fl.tag})
		}
		doc := fl.doc
		if note := sanitize.Comment(fl.note); note != "" {
			if utf8.RuneCountInString(note) <= room {
				field.Comment("// " + note)
			} else {
				doc = append(slices.Clip(doc), note)
			}
		}
		comment(g, doc)
		g.Add(field)
	}
}

func quoteLine(s string) string { return "\"" + s + "\"" }

func reqWord(req bool) string {
	if req {
		return " (required)"
	}
	return ""
}

func paramFieldType(p *model.Param) *model.GoType {
	if p.Required || p.Type.Nilable() {
		return p.Type
	}
	return &model.GoType{Kind: model.Pointer, Elem: p.Type}
}

func bodyParamType(b *model.Body) *model.GoType {
	if b.Required || b.Type.Nilable() {
		return b.Type
	}
	return &model.GoType{Kind: model.Pointer, Elem: b.Type}
}

// emitResponse prints an operation's typed response: wire.Response
// embedded, and a field per declared header and body, whose resgen tag
// tells impl.Call how it decodes.
func (e *emitter) emitResponse(f *jen.File, op *model.Operation) {
	comment(f, []string{op.ResponseType + " is the answer to " + op.Name + "."})
	var bare, streams, evStatuses []string
	for _, r := range op.Responses {
		switch {
		case r.Encoding == model.ResponseStream:
			streams = append(streams, r.Status)
		case r.Encoding.Events():
			evStatuses = append(evStatuses, r.Status)
		case r.FieldName == "":
			bare = append(bare, r.Status)
		}
	}
	var fields []structField
	for _, h := range op.Headers {
		t := h.Type
		if t == nil {
			t = stringPtr
		}
		fields = append(fields, oneLineNote(structField{name: h.FieldName, typ: t, tag: "header:" + h.Name}, h.Doc))
	}
	nHeaders := len(fields)
	var events []structField
	if ev := op.Events(); ev != nil {
		events = append(events, structField{name: ev.FieldName, typ: streamOf(ev.Type), tag: strings.Join(evStatuses, " ") + "," + ev.Encoding.String()})
	}
	for _, r := range op.Responses {
		if r.FieldName == "" || r.Encoding.Events() {
			continue
		}
		t := r.Type
		if !t.Nilable() {
			t = &model.GoType{Kind: model.Pointer, Elem: t}
		}
		tag := r.Status
		if r.Encoding == model.ResponseText {
			tag += ",text"
		}
		fields = append(fields, oneLineNote(structField{name: r.FieldName, typ: t, tag: tag}, r.Doc))
	}
	f.Type().Id(op.ResponseType).StructFunc(func(g *jen.Group) {
		embed := jen.Qual(wirePkg, "Response")
		if len(bare) > 0 {
			embed.Tag(map[string]string{"resgen": strings.Join(bare, " ")})
		}
		g.Add(embed)
		// The embedded field sits in the name column; the Stream field
		// between the headers and the bodies is aligned with both.
		all := append(fields, structField{name: "Stream", typ: ioReadCloser, tag: strings.Join(streams, " ") + ",stream"})
		room := noteRoom(append(all, events...), len("wire.Response"))
		emitFieldsIn(g, fields[:nHeaders], room)
		if len(streams) > 0 {
			comment(g, []string{"Stream is the unread body (the caller must close it); Body is nil then."})
			g.Id("Stream").Qual("io", "ReadCloser").Tag(map[string]string{"resgen": strings.Join(streams, " ") + ",stream"})
		}
		if len(events) > 0 {
			ev := op.Events()
			events[0].doc = []string{ev.FieldName + " is the unread " + framingWords(ev) + " stream (range over Events, or", "close it); Body is nil then."}
			if len(ev.Doc) == 1 {
				events[0].note = ev.Doc[0]
			}
			emitFieldsIn(g, events, room)
		}
		emitFieldsIn(g, fields[nHeaders:], room)
	})
	if ev := op.Events(); ev != nil {
		e.emitEvents(f, op, ev)
	}
}

// framingWords names the framing of an event stream for doc comments.
func framingWords(r *model.Response) string {
	if r.Encoding == model.ResponseSSE {
		return "server-sent event"
	}
	return "JSON lines"
}

// streamOf is *runtime.Stream[t], the field of an event stream.
func streamOf(t *model.GoType) *model.GoType {
	return &model.GoType{Kind: model.Pointer, Elem: &model.GoType{Kind: model.Qual, Pkg: runtimePkg, Name: "Stream", Elem: t}}
}

// emitEvents prints the Events method of a streamed response: the events
// of its stream field, none when the answer was a status without one.
func (e *emitter) emitEvents(f *jen.File, op *model.Operation, ev *model.Response) {
	event := jen.Qual(runtimePkg, "Event").Types(typeExpr(ev.Type))
	comment(f, []string{
		"Events ranges over the events of " + ev.FieldName + ", each decoded as it is read",
		"(see runtime.Stream: a broken stream ends with an error, never",
		"silently); leaving the loop closes the stream. It yields nothing when",
		"the answer has no stream (another declared status).",
	})
	f.Func().Params(jen.Id("r").Op("*").Id(op.ResponseType)).Id("Events").Params().Qual("iter", "Seq2").Types(event.Clone(), jen.Error()).Block(
		jen.If(jen.Id("r").Op("==").Nil().Op("||").Id("r").Dot(ev.FieldName).Op("==").Nil()).Block(
			jen.Return(jen.Func().Params(jen.Func().Params(event.Clone(), jen.Error()).Bool()).Block()),
		),
		jen.Return(jen.Id("r").Dot(ev.FieldName).Dot("Events").Call()),
	)
}

// The types of a response's header fields and of its Stream field.
var (
	stringPtr    = &model.GoType{Kind: model.Pointer, Elem: &model.GoType{Kind: model.Builtin, Name: "string"}}
	ioReadCloser = &model.GoType{Kind: model.Qual, Pkg: "io", Name: "ReadCloser"}
)

// oneLineNote makes a one-line doc fl's note, and a longer one its doc.
func oneLineNote(fl structField, doc []string) structField {
	if len(doc) == 1 {
		fl.note = doc[0]
	} else {
		fl.doc = doc
	}
	return fl
}

// emitOperation prints the method of one operation, and one more for each
// other request content type (op.Variants).
func (e *emitter) emitOperation(f *jen.File, op *model.Operation) {
	doc := []string{op.Name + " calls " + op.Method + " " + op.URLPath + "."}
	if op.URLPath != op.Path {
		doc = append(doc, "", "The spec's path key is "+op.Path+"; its #fragment is not sent.")
	}
	if op.Summary != "" {
		doc = append(doc, "", op.Summary)
	}
	if len(op.Doc) > 0 {
		doc = append(append(doc, ""), op.Doc...)
	}
	if op.Body != nil && op.Body.Encoding == model.BodyRaw {
		doc = append(doc, "", "The spec takes any "+op.Body.ContentType+" body: contentType names the one sent.")
	}
	if up := uploadDoc(op, op.Body); up != nil {
		doc = append(append(doc, ""), up...)
	}
	if len(op.Variants) > 0 {
		var names []string
		for _, v := range op.Variants {
			names = append(names, v.Name)
		}
		verb := " send the other request bodies."
		if len(names) == 1 {
			verb = " sends any other request body."
		}
		doc = append(doc, "", "It sends "+op.Body.ContentType+"; "+strings.Join(names, ", ")+verb)
	}
	doc = append(append(doc, ""), DocLines(op.Policy)...)
	if op.Deprecated {
		doc = append(doc, "", "Deprecated: the spec marks this operation as deprecated.")
	}
	comment(f, doc)
	e.emitMethod(f, op, op.Name, op.Body)
	for _, v := range op.Variants {
		what := "a " + v.Body.ContentType + " body"
		if v.Body.Encoding == model.BodyRaw {
			what = "the body the caller encodes, as contentType"
		}
		doc := []string{v.Name + " is " + op.Name + " (" + op.Method + " " + op.Path + ") with " + what + ":", "the same breaker, retries and timeouts."}
		if up := uploadDoc(op, v.Body); up != nil {
			doc = append(append(doc, ""), up...)
		}
		if op.Deprecated {
			doc = append(doc, "", "Deprecated: the spec marks this operation as deprecated.")
		}
		comment(f, doc)
		e.emitMethod(f, op, v.Name, v.Body)
	}
	if op.SendMethod != "" {
		e.emitSend(f, op)
	}
}

// uploadDoc says, for a method whose body (or a file part of it) is
// streamed, when a retry can send it again (runtime's upload.go); nil for
// a body held whole.
func uploadDoc(op *model.Operation, b *model.Body) []string {
	what := "The body is"
	switch {
	case b == nil:
		return nil
	case b.Encoding == model.BodyRaw, b.Encoding == model.BodyBytes, b.Encoding == model.BodyMultipart:
	case b.Encoding == model.BodyMultipartFields && slices.ContainsFunc(b.Parts, func(p *model.Part) bool {
		return p.Kind == model.PartFile || p.Kind == model.PartFiles
	}):
		what = "Each file's Content is"
	default:
		return nil
	}
	if op.Policy != nil && op.Policy.NotRetrySafe {
		return []string{what + " streamed, never held whole; the operation is not retry-safe: one attempt."}
	}
	return []string{what + " streamed, never held whole. A retry sends it again only when it can be replayed: a *bytes.Reader, *strings.Reader, *bytes.Buffer, io.ReadSeeker (from where it stands at the call) or runtime.Opener. Any other reader makes the call one attempt: a failure that would be retried stops with runtime.ErrBodyNotReplayable."}
}

// emitMethod prints one method of op that sends body.
func (e *emitter) emitMethod(f *jen.File, op *model.Operation, name string, body *model.Body) {
	params := []jen.Code{jen.Id("ctx").Qual("context", "Context")}
	for _, p := range op.PathParams {
		params = append(params, jen.Id(p.GoName).Add(typeExpr(p.Type)))
	}
	if op.ParamsType != "" {
		params = append(params, jen.Id("params").Add(paramsType(op)))
	}
	switch {
	case body == nil:
	case body.Encoding == model.BodyRaw:
		params = append(params, jen.Id("contentType").String(), jen.Id("body").Qual("io", "Reader"))
	default:
		params = append(params, jen.Id("body").Add(typeExpr(bodyParamType(body))))
		if body.Encoding == model.BodyMultipart {
			params = append(params, jen.Id("bodyContentType").String())
		}
	}
	params = append(params, jen.Id("opts").Op("...").Qual(runtimePkg, "CallOption"))
	f.Func().Params(jen.Id("c").Op("*").Id(model.ClientType)).Id(name).Params(params...).
		Params(jen.Op("*").Id(op.ResponseType), jen.Error()).BlockFunc(func(g *jen.Group) {
		if op.SendMethod != "" {
			/* req := wire.Request{...}; the body; return c.sendX(ctx, path..., params, &req, opts) */
			e.newRequest(g, nil, body)
			e.encodeBody(g, op, body)
			args := []jen.Code{jen.Id("ctx")}
			for _, p := range op.PathParams {
				args = append(args, jen.Id(p.GoName))
			}
			if op.ParamsType != "" {
				args = append(args, jen.Id("params"))
			}
			g.Return(jen.Id("c").Dot(op.SendMethod).Call(append(args, jen.Op("&").Id("req"), jen.Id("opts"))...))
			return
		}
		path := e.buildPath(g, op)
		e.newRequest(g, path, body)
		e.buildQuery(g, op)
		e.encodeBody(g, op, body)
		e.setHeaders(g, op)
		e.call(g, op, jen.Op("&").Id("req"))
	})
}

// emitSend prints the method that an operation's body variants share: the
// path, query and headers added to the request with the encoded body, and
// the call.
func (e *emitter) emitSend(f *jen.File, op *model.Operation) {
	params := []jen.Code{jen.Id("ctx").Qual("context", "Context")}
	for _, p := range op.PathParams {
		params = append(params, jen.Id(p.GoName).Add(typeExpr(p.Type)))
	}
	if op.ParamsType != "" {
		params = append(params, jen.Id("params").Add(paramsType(op)))
	}
	params = append(params, jen.Id("req").Op("*").Qual(wirePkg, "Request"), jen.Id("opts").Index().Qual(runtimePkg, "CallOption"))
	comment(f, []string{op.SendMethod + " sends " + op.Name + " and its variants with req's body."})
	f.Func().Params(jen.Id("c").Op("*").Id(model.ClientType)).Id(op.SendMethod).Params(params...).
		Params(jen.Op("*").Id(op.ResponseType), jen.Error()).BlockFunc(func(g *jen.Group) {
		g.Id("req").Dot("Path").Op("=").Add(e.buildPath(g, op))
		e.buildQuery(g, op)
		e.setHeaders(g, op)
		e.call(g, op, jen.Id("req"))
	})
}

// call prints the one call through the operation's runtime (breaker,
// retries, timeouts), which also decodes the answer.
func (e *emitter) call(g *jen.Group, op *model.Operation, req jen.Code) {
	/* return impl.Call(ctx, c.opX, &req, new(XResponse), opts) */
	g.Return(jen.Qual(implPkg, "Call").Call(jen.Id("ctx"), jen.Id("c").Dot(op.OpField), req, jen.New(jen.Id(op.ResponseType)), jen.Id("opts")))
}

// paramsType is the type of a method's params argument: the Params
// struct, by value when it holds a required parameter.
func paramsType(op *model.Operation) jen.Code {
	if op.ParamsByValue() {
		return jen.Id(op.ParamsType)
	}
	return jen.Op("*").Id(op.ParamsType)
}

// withParams prints the statements of write that read params: inside
// if params != nil {...} when params is a pointer.
func withParams(g *jen.Group, op *model.Operation, write func(g *jen.Group)) {
	if op.ParamsByValue() {
		write(g)
		return
	}
	g.If(jen.Id("params").Op("!=").Nil()).BlockFunc(write)
}

// newRequest prints req := wire.Request{Path: ..., the body's fixed
// fields}.
func (e *emitter) newRequest(g *jen.Group, path jen.Code, b *model.Body) {
	fields := []kv{{"Path", path}}
	if b != nil {
		switch {
		case b.Encoding != model.BodyJSON:
		case b.Required && !b.Type.Nilable():
			fields = append(fields, kv{"JSON", jen.Op("&").Id("body")})
		default:
			fields = append(fields, kv{"JSON", jen.Id("body")}) // nil: no body
		}
		switch b.Encoding {
		case model.BodyRaw:
			fields = append(fields, kv{"ContentType", jen.Id("contentType")})
		case model.BodyMultipart:
			fields = append(fields, kv{"ContentType", jen.Id("bodyContentType")})
		case model.BodyMultipartFields:
		default:
			fields = append(fields, kv{"ContentType", jen.Lit(b.ContentType)})
		}
	}
	var items []jen.Code
	for _, f := range fields {
		if f.val != nil {
			items = append(items, jen.Id(f.key).Op(":").Add(f.val))
		}
	}
	g.Id("req").Op(":=").Qual(wirePkg, "Request").Values(items...)
}

// errf prints the error a method returns, the operation's name in front.
// format is resgen's own text; each string in args is spec text (a
// parameter named "rate%d"), known now, so it is written into the message
// here, as its verb says, with any % doubled: the generated code formats
// no constant, and spec text never becomes a verb. Each jen.Code in args
// is known only at run time (the error to wrap); with none, the error is
// errors.New.
func errf(op *model.Operation, format string, args ...any) *jen.Statement {
	var text, verbs strings.Builder // the message for errors.New, and for fmt.Errorf
	var later []jen.Code
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			text.WriteByte(format[i])
			verbs.WriteByte(format[i])
			continue
		}
		i++
		verb, arg := "%"+format[i:i+1], args[0]
		args = args[1:]
		if s, ok := arg.(string); ok {
			t := fmt.Sprintf(verb, s)
			text.WriteString(t)
			verbs.WriteString(strings.ReplaceAll(t, "%", "%%"))
			continue
		}
		verbs.WriteString(verb)
		later = append(later, arg.(jen.Code))
	}
	if len(later) == 0 {
		return jen.Qual("errors", "New").Call(jen.Lit(op.Name + ": " + text.String()))
	}
	return jen.Qual("fmt", "Errorf").Call(append([]jen.Code{jen.Lit(op.Name + ": " + verbs.String())}, later...)...)
}

// buildPath prints the statements a path needs (objects) and returns the
// escaped path's expression: "/pets/" + runtime.PathSegment(petID).
func (e *emitter) buildPath(g *jen.Group, op *model.Operation) jen.Code {
	for _, p := range op.PathParams {
		if p.Object {
			/* objects in a path: by style, each key and value escaped */
			g.List(jen.Id(p.TextVar), jen.Err()).Op(":=").Qual(wirePkg, "PathObject").Call(jen.Lit(p.Style.String()), jen.Lit(p.Explode), jen.Lit(p.SpecName), jen.Id(p.GoName))
			g.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), errf(op, "path parameter %q: %w", p.SpecName, jen.Err())))
		}
	}
	for _, p := range op.PathParams {
		/* if id == "" { return nil, &runtime.RequestError{...} } */
		if cond := e.emptyCond(p); cond != nil {
			g.If(cond).Block(jen.Return(jen.Nil(), jen.Op("&").Qual(runtimePkg, "RequestError").Values(
				jen.Id("Operation").Op(":").Lit(op.ID), // as the runtime names it
				jen.Id("Reason").Op(":").Lit(fmt.Sprintf("path parameter %q is empty: it would send another URL", p.SpecName)))))
		}
	}
	var parts []jen.Code
	rest := op.URLPath
	byName := map[string]*model.Param{}
	for _, p := range op.PathParams {
		byName[p.SpecName] = p
	}
	for rest != "" {
		i := strings.IndexByte(rest, '{')
		j := strings.IndexByte(rest, '}')
		if i < 0 || j < i {
			parts = append(parts, jen.Lit(rest))
			break
		}
		if i > 0 {
			parts = append(parts, jen.Lit(rest[:i]))
		}
		p := byName[rest[i+1:j]]
		parts = append(parts, e.pathValue(p))
		rest = rest[j+1:]
	}
	if len(parts) == 0 {
		return jen.Lit("")
	}
	stmt := jen.Add(parts[0])
	for _, p := range parts[1:] {
		stmt.Op("+").Add(p)
	}
	return stmt
}

// emptyCond is the condition under which path parameter p has no text (an
// empty string or list, a union with no variant set, an empty object), nil
// when its type always has some: a required path parameter cannot be
// empty, since /items/{id} with "" is /items/, another resource.
func (e *emitter) emptyCond(p *model.Param) *jen.Statement {
	v := jen.Id(p.GoName)
	if p.Object {
		return jen.Qual(wirePkg, "EmptyValue").Call(v)
	}
	t := p.Type
	if t.Kind == model.Slice {
		n := jen.Len(v.Clone()).Op("==").Lit(0)
		if one := emptyText(p.Text, jen.Id(p.GoName).Index(jen.Lit(0))); one != nil {
			// One empty item is empty text too.
			return n.Op("||").Len(v.Clone()).Op("==").Lit(1).Op("&&").Add(one)
		}
		return n
	}
	return emptyText(p.Text, v)
}

// emptyText is the condition under which v, a scalar written as c says,
// is empty text; nil when it never is.
func emptyText(c model.Text, v *jen.Statement) *jen.Statement {
	switch c.Form {
	case model.TextString:
		return v.Clone().Op("==").Lit("") // a string, or type Kind string
	case model.TextBase64:
		return jen.Len(v.Clone()).Op("==").Lit(0)
	case model.TextMethod:
		return jen.Add(text(c, v.Clone(), false)).Op("==").Lit("")
	}
	return nil
}

// buildQuery prints the query parameters.
func (e *emitter) buildQuery(g *jen.Group, op *model.Operation) {
	var query []*model.Param
	for _, p := range op.Params {
		if p.In == model.InQuery {
			query = append(query, p)
		}
	}
	if len(query) == 0 {
		return
	}
	q := func() *jen.Statement { return jen.Id("req").Dot("Query") }
	withParams(g, op, func(g *jen.Group) {
		for _, p := range query {
			if p.Object {
				e.setObject(g, op, p, func(v jen.Code) jen.Code {
					return jen.If(jen.Err().Op(":=").Add(q()).Dot("AddObject").Call(jen.Lit(p.SpecName), jen.Lit(p.Style.String()), jen.Lit(p.Explode), v), jen.Err().Op("!=").Nil()).Block(
						jen.Return(jen.Nil(), errf(op, "query parameter %q: %w", p.SpecName, jen.Err())))
				})
				continue
			}
			e.setParam(g, p, func(v jen.Code) jen.Code {
				return q().Dot("Add").Call(jen.Lit(p.SpecName), v)
			})
		}
	})
}

// pathValue prints a path parameter's escaped text in its style.
func (e *emitter) pathValue(p *model.Param) jen.Code {
	v := jen.Id(p.GoName)
	switch {
	case p.Object:
		return jen.Id(p.TextVar)
	case p.Type.Kind == model.Slice:
		return jen.Qual(wirePkg, "PathValue").Call(jen.Lit(p.Style.String()), jen.Lit(p.Explode), jen.Lit(p.SpecName), stringSlice(p.Text, v).Op("..."))
	case p.Style == model.StyleLabel || p.Style == model.StyleMatrix:
		return jen.Qual(wirePkg, "PathValue").Call(jen.Lit(p.Style.String()), jen.Lit(p.Explode), jen.Lit(p.SpecName), text(p.Text, v, false))
	}
	return jen.Qual(wirePkg, "PathSegment").Call(text(p.Text, v, false))
}

// setParam prints the code that writes one params field with add: absent
// optional values are skipped, lists are exploded or joined as the spec's
// style says.
func (e *emitter) setParam(g *jen.Group, p *model.Param, add func(v jen.Code) jen.Code) {
	field := jen.Id("params").Dot(p.GoName)
	t := p.Type
	// Exploded, any query style: one name=value pair per item.
	ranges := t.Kind == model.Slice && p.Explode && p.In == model.InQuery
	write := func(g *jen.Group, v *jen.Statement, deref bool) {
		if t.Kind == model.Slice {
			switch {
			case ranges:
				g.For(jen.List(jen.Id("_"), jen.Id("v")).Op(":=").Range().Add(v)).Block(add(text(p.Text, jen.Id("v"), false)))
			case p.In == model.InQuery:
				sep := ","
				switch p.Style {
				case model.StyleSpaceDelimited:
					sep = " "
				case model.StylePipeDelimited:
					sep = "|"
				}
				g.Id("req").Dot("Query").Dot("AddList").Call(jen.Lit(p.SpecName), jen.Lit(sep), stringSlice(p.Text, v).Op("..."))
			case p.In == model.InCookie:
				// Each item escaped, the commas between them not.
				g.Add(cookie(p, jen.Qual(wirePkg, "CookieList").Call(stringSlice(p.Text, v).Op("..."))))
			default:
				g.Add(add(jen.Qual("strings", "Join").Call(stringSlice(p.Text, v), jen.Lit(","))))
			}
			return
		}
		g.Add(add(text(p.Text, v, deref)))
	}
	switch {
	case p.Required && !t.Nilable(), ranges:
		// A nil list ranges over nothing: no guard.
		write(g, field.Clone(), false)
	case t.Nilable():
		g.If(field.Clone().Op("!=").Nil()).BlockFunc(func(g *jen.Group) { write(g, field.Clone(), false) })
	default:
		g.If(field.Clone().Op("!=").Nil()).BlockFunc(func(g *jen.Group) { write(g, field.Clone(), true) })
	}
}

// setObject prints the code that writes an object parameter with write,
// skipping an absent optional one.
func (e *emitter) setObject(g *jen.Group, op *model.Operation, p *model.Param, write func(v jen.Code) jen.Code) {
	field := jen.Id("params").Dot(p.GoName)
	if p.Required && !p.Type.Nilable() {
		g.Add(write(field))
		return
	}
	g.If(field.Clone().Op("!=").Nil()).Block(write(field.Clone()))
}

// stringSlice prints a func literal call turning v, a slice whose items
// are written as c says, into []string.
func stringSlice(c model.Text, v jen.Code) *jen.Statement {
	if c.Form == model.TextString && len(c.Via) == 0 {
		return jen.Add(v)
	}
	return jen.Func().Params().Index().String().Block(
		jen.Id("s").Op(":=").Make(jen.Index().String(), jen.Lit(0), jen.Len(v)),
		jen.For(jen.List(jen.Id("_"), jen.Id("x")).Op(":=").Range().Add(v)).Block(
			jen.Id("s").Op("=").Append(jen.Id("s"), text(c, jen.Id("x"), false)),
		),
		jen.Return(jen.Id("s")),
	).Call()
}

// text prints the parameter text of v, or of *v when deref, as c says.
func text(c model.Text, v jen.Code, deref bool) jen.Code {
	x := v
	if deref {
		x = jen.Op("*").Add(v)
	}
	for _, t := range c.Via {
		x, deref = typeExpr(t).Call(x), false
	}
	switch c.Form {
	case model.TextString:
		return x
	case model.TextBase64:
		return jen.Qual("encoding/base64", "StdEncoding").Dot("EncodeToString").Call(x)
	case model.TextBool:
		return jen.Qual("strconv", "FormatBool").Call(x)
	case model.TextInt:
		return jen.Qual("strconv", "FormatInt").Call(jen.Int64().Call(x), jen.Lit(10))
	case model.TextUint:
		return jen.Qual("strconv", "FormatUint").Call(jen.Uint64().Call(x), jen.Lit(10))
	case model.TextFloat32:
		return jen.Qual("strconv", "FormatFloat").Call(jen.Float64().Call(x), jen.LitRune('f'), jen.Lit(-1), jen.Lit(32))
	case model.TextFloat64:
		return jen.Qual("strconv", "FormatFloat").Call(x, jen.LitRune('f'), jen.Lit(-1), jen.Lit(64))
	case model.TextTime:
		// Parenthesised: x may be a dereference, *params.Since.
		return jen.Parens(x).Dot("Format").Call(jen.Qual("time", "RFC3339Nano"))
	case model.TextConvert:
		return jen.String().Call(x)
	case model.TextMethod:
		if deref {
			x = jen.Parens(x)
		}
		return jen.Add(x).Dot("ParamText").Call()
	}
	// TextNone: the builder writes no such parameter as text; fmt's
	// text at least compiles.
	return jen.Qual("fmt", "Sprint").Call(x)
}

// encodeBody prints the encoding of body into req.Body (a JSON body the
// runtime encodes, from req.JSON).
func (e *emitter) encodeBody(g *jen.Group, op *model.Operation, b *model.Body) {
	if b == nil {
		return
	}
	cond := jen.Id("body").Op("!=").Nil()
	if b.Required && !b.Type.Nilable() {
		cond = nil
	}
	set := func(v jen.Code) jen.Code { return jen.Id("req").Dot("Body").Op("=").Add(v) }
	var enc []jen.Code
	switch b.Encoding {
	case model.BodyJSON:
		return // JSON: body, in the literal
	case model.BodyForm:
		enc = []jen.Code{set(jen.Index().Byte().Call(jen.Id("body").Dot("Encode").Call()))}
	case model.BodyMultipartFields:
		enc = e.multipartBody(op, b)
	case model.BodyFormTyped:
		enc = append(requiredChecks(op, b, "form property"),
			jen.List(jen.Id("form"), jen.Err()).Op(":=").Qual(wirePkg, "FormBody").Call(append([]jen.Code{jen.Id("body")}, formStyles(b.FormStyles)...)...),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), errf(op, "encode form body: %w", jen.Err()))),
			set(jen.Index().Byte().Call(jen.Id("form"))),
		)
	case model.BodyRaw, model.BodyBytes, model.BodyMultipart:
		// Streamed by each attempt (runtime's upload.go).
		enc = []jen.Code{jen.Id("req").Dot("Upload").Op("=").Id("body")}
		cond = jen.Id("body").Op("!=").Nil()
	case model.BodyText:
		v := jen.Id("body")
		if !b.Required {
			v = jen.Op("*").Id("body")
		}
		enc = []jen.Code{set(jen.Index().Byte().Call(v))}
	default:
		enc = []jen.Code{set(jen.Id("body"))}
	}
	switch {
	case cond == nil && len(enc) == 1:
		g.Add(enc[0])
	case cond == nil:
		g.Block(enc...)
	default:
		g.If(cond).Block(enc...)
	}
}

// setHeaders prints the header and cookie parameters and the idempotency
// key.
func (e *emitter) setHeaders(g *jen.Group, op *model.Operation) {
	var key *model.Param
	var hdrs []*model.Param
	for _, p := range op.Params {
		switch {
		case p.IdempotencyKey:
			key = p
		case p.In == model.InHeader || p.In == model.InCookie:
			hdrs = append(hdrs, p)
		}
	}
	if len(hdrs) > 0 {
		withParams(g, op, func(g *jen.Group) {
			for _, p := range hdrs {
				p := p
				if p.Object {
					e.setObject(g, op, p, func(v jen.Code) jen.Code {
						text, send := jen.Qual(wirePkg, "ObjectText").Call(jen.Lit(p.Explode), v), e.headerOrCookie(p, jen.Id("s"))
						if p.In == model.InCookie {
							text, send = jen.Qual(wirePkg, "CookieObject").Call(v), cookie(p, jen.Id("s"))
						}
						return jen.If(jen.List(jen.Id("s"), jen.Err()).Op(":=").Add(text), jen.Err().Op("!=").Nil()).Block(
							jen.Return(jen.Nil(), errf(op, string(p.In)+" parameter %q: %w", p.SpecName, jen.Err())),
						).Else().Block(send)
					})
					continue
				}
				e.setParam(g, p, func(v jen.Code) jen.Code {
					return e.headerOrCookie(p, v)
				})
			}
		})
	}
	if key != nil {
		/* one key per logical call: every attempt sends the same header */
		g.Comment("// One key per call: every attempt sends the same one.")
		made := jen.Qual(wirePkg, "NewIdempotencyKey").Call()
		if r := key.KeyInts; r != nil {
			made = jen.Qual(wirePkg, "NewIdempotencyKeyInt").Call(jen.Id(strconv.FormatInt(r[0], 10)), jen.Id(strconv.FormatInt(r[1], 10)))
		}
		g.Id("key").Op(":=").Add(made)
		field := jen.Id("params").Dot(key.GoName)
		var given jen.Code
		switch t := key.Type; {
		case t.Kind == model.Slice:
			// Style simple: the items joined by commas.
			given = jen.Qual("strings", "Join").Call(stringSlice(key.Text, field.Clone()), jen.Lit(","))
		default:
			given = text(key.Text, field.Clone(), !t.Nilable())
		}
		set := field.Clone().Op("!=").Nil()
		if !op.ParamsByValue() {
			set = jen.Id("params").Op("!=").Nil().Op("&&").Add(set)
		}
		g.If(set).Block(jen.Id("key").Op("=").Add(given))
		g.Id("req").Dot("SetHeader").Call(jen.Lit(key.SpecName), jen.Id("key"))
	}
}

// multipartBody prints the encoding of a multipart body struct: files as
// file parts, text values as fields, anything else as a JSON part, a list
// as one part per item. A required part that is nil (or empty) is an error
// before any request: a server would refuse the body, and a breaker should
// not count the caller's mistake.
func (e *emitter) multipartBody(op *model.Operation, b *model.Body) []jen.Code {
	out := requiredChecks(op, b, "multipart part")
	out = append(out, jen.Id("mp").Op(":=").Qual(wirePkg, "NewMultipart").Call())
	for _, part := range b.Parts {
		f := part.Field
		v := jen.Id("body").Dot(f.Name)
		file := func(x jen.Code) jen.Code {
			if ct := part.ContentType; ct != "" {
				return jen.Id("mp").Dot("TypedFile").Call(jen.Lit(f.JSONName), jen.Lit(ct), x)
			}
			return jen.Id("mp").Dot("File").Call(jen.Lit(f.JSONName), x)
		}
		each := func(call jen.Code) jen.Code {
			return jen.For(jen.List(jen.Id("_"), jen.Id("x")).Op(":=").Range().Add(v)).Block(call)
		}
		field := func(x jen.Code, deref bool) jen.Code {
			return jen.Id("mp").Dot("Field").Call(jen.Lit(f.JSONName), text(part.Text, x, deref))
		}
		json := func(x jen.Code) jen.Code { return jen.Id("mp").Dot("JSON").Call(jen.Lit(f.JSONName), x) }
		// A value is always sent; a pointer, list or bytes when set.
		value := f.Required && !f.Type.Nilable()
		switch part.Kind {
		case model.PartFile:
			out = append(out, file(v))
		case model.PartFiles:
			out = append(out, each(file(jen.Id("x"))))
		case model.PartText:
			switch {
			case f.Type.Kind == model.Pointer:
				out = append(out, jen.If(v.Clone().Op("!=").Nil()).Block(field(v.Clone(), true)))
			case f.Required:
				out = append(out, field(v, false))
			default:
				out = append(out, jen.If(v.Clone().Op("!=").Nil()).Block(field(v.Clone(), false)))
			}
		case model.PartTexts:
			out = append(out, each(field(jen.Id("x"), false)))
		case model.PartJSONs:
			out = append(out, each(json(jen.Id("x"))))
		case model.PartJSON:
			if value {
				out = append(out, json(v))
			} else {
				out = append(out, jen.If(v.Clone().Op("!=").Nil()).Block(json(v.Clone())))
			}
		}
	}
	return append(out,
		jen.If(jen.Err().Op(":=").Id("mp").Dot("Finish").Call(jen.Op("&").Id("req")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), errf(op, "encode multipart body: %w", jen.Err())),
		),
	)
}

// requiredChecks prints, for each required field of b.Fields that can be nil
// or empty, the error a call returns before any request when it is: a
// multipart or form body has no way to send an empty list or a nil value,
// so it would silently lack the part or property.
func requiredChecks(op *model.Operation, b *model.Body, what string) []jen.Code {
	file := map[*model.Field]bool{}
	for _, p := range b.Parts {
		file[p.Field] = p.Kind == model.PartFile
	}
	var out []jen.Code
	for _, f := range b.Fields {
		v := jen.Id("body").Dot(f.Name)
		var missing *jen.Statement
		switch t := f.Type; {
		case !f.Required || f.ByHand:
		case file[f]:
			missing = v.Clone().Op("==").Nil().Op("||").Add(v.Clone()).Dot("Content").Op("==").Nil()
		case t.Kind == model.Slice || t.Kind == model.Map:
			missing = jen.Len(v.Clone()).Op("==").Lit(0)
		case t.Nilable():
			missing = v.Clone().Op("==").Nil()
		}
		if missing != nil {
			out = append(out, jen.If(missing).Block(jen.Return(jen.Nil(), errf(op, what+" %q is required", f.JSONName))))
		}
	}
	return out
}

// formStyles prints each of ss as a runtime.FormEncoding literal.
func formStyles(ss []model.FormStyle) []jen.Code {
	out := make([]jen.Code, len(ss))
	for i, s := range ss {
		/* one line a property: runtime.FormEncoding{Name: "tags", Style: "form", Explode: false} */
		out[i] = jen.Qual(wirePkg, "FormEncoding").Values(
			jen.Id("Name").Op(":").Lit(s.Name), jen.Id("Style").Op(":").Lit(s.Style.String()), jen.Id("Explode").Op(":").Lit(s.Explode))
	}
	return out
}

// headerOrCookie prints the statement that sends text v as p.
func (e *emitter) headerOrCookie(p *model.Param, v jen.Code) jen.Code {
	if p.In == model.InCookie {
		return cookie(p, jen.Qual(wirePkg, "CookieValue").Call(v))
	}
	return jen.Id("req").Dot("AddHeader").Call(jen.Lit(p.SpecName), v)
}

// cookie prints the statement that sends the escaped text v as cookie p.
func cookie(p *model.Param, v jen.Code) jen.Code {
	return jen.Id("req").Dot("AddCookie").Call(jen.Lit(p.SpecName), v)
}
