package build

// Paged operations: the paging policy resolved (policy.Pagination, its
// shape checked) is checked here against what it names, the operation's
// parameters and its 2xx body's types, each error at the key that names
// it, and becomes model.Paging with every Go access settled. It runs
// after the types are final (breakValueCycles may make a field a
// pointer).

import (
	"fmt"
	"slices"
	"strings"

	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/generator/policy"
	"github.com/resgen/resgen/internal/rawval"
)

func (b *builder) paging() {
	for _, op := range b.file.Operations {
		res, ok := b.pol.Operation(op.Method, op.Path)
		if !ok || res.Paging == nil {
			continue
		}
		if pg := b.opPaging(op, res.Paging); pg != nil {
			op.Paging, op.Policy.Pagination = pg, pg.Words
		}
	}
}

func (b *builder) pageErr(ptr, hint, format string, args ...any) {
	b.diags = append(b.diags, b.s.Diag(diag.Error, ptr, fmt.Sprintf(format, args...), hint))
}

// opPaging checks p against op and settles its model; nil after an error.
func (b *builder) opPaging(op *model.Operation, p *policy.Pagination) *model.Paging {
	if op.Body != nil && (op.Body.Encoding == model.BodyRaw || op.Body.Encoding == model.BodyMultipart) {
		// Every page sends the body again: a reader is read once.
		b.diags = append(b.diags, b.s.Diag(diag.Warning, p.Ptr,
			fmt.Sprintf("unsupported: paging an operation whose request body is a stream (%s %s, %s): no %sPages method", op.Method, op.Path, op.Body.ContentType, op.Name),
			"page an operation without a request body, or with a JSON or form one"))
		return nil
	}
	pg := &model.Paging{Kind: p.Kind, Words: p.String(), Pos: b.s.Pos(p.Ptr), Start: p.Start}
	var body *model.Response
	for _, r := range op.Responses {
		if strings.HasPrefix(r.Status, "2") && r.Encoding == model.ResponseJSON && r.FieldName != "" {
			body = r
			break
		}
	}
	if body == nil {
		b.pageErr(p.Ptr, "declare the 2xx response's application/json body", "pagination of %s %s: the operation has no 2xx JSON body to read its pages from", op.Method, op.Path)
		return nil
	}
	pg.Body, pg.BodyPtr = body.FieldName, !body.Type.Nilable()
	ok := true
	// The items.
	itemsPtr := p.KeyPtr("items")
	if p.Items == "" && p.Ptr != "" {
		itemsPtr = p.Ptr
	}
	steps, leaf, why := b.fieldPath(body.Type, p.Items, "the 2xx body")
	if why == "" {
		if t := b.underlying(leaf); t != nil && t.Kind == model.Slice {
			pg.Items, pg.ItemType = steps, t.Elem
		} else if p.Items == "" {
			why = "the 2xx body is not an array: name the field holding the page's items with items"
		} else {
			why = fmt.Sprintf("items %q is not an array", p.Items)
		}
	}
	if why != "" {
		b.pageErr(itemsPtr, "", "pagination of %s %s: %s", op.Method, op.Path, why)
		ok = false
	}
	// field follows a key's path from a value of type from (root in
	// words) to a value want says it is (kind in words).
	field := func(key, path string, from *model.GoType, root, kind string, want func(*model.GoType) bool) []model.Step {
		steps, leaf, why := b.fieldPath(from, path, root)
		if why == "" && !want(valueOf(leaf)) {
			why = fmt.Sprintf("%s %q is not %s", key, path, kind)
		}
		if why != "" {
			b.pageErr(p.KeyPtr(key), "", "pagination of %s %s: %s", op.Method, op.Path, why)
			ok = false
		}
		return steps
	}
	// Where the next page is named.
	switch {
	case p.Next != "":
		pg.Next = field("next", p.Next, body.Type, "the 2xx body", "a string", isString)
	case p.NextHeader != "":
		pg.NextHeader = p.NextHeader
	case p.NextItem != "" && pg.ItemType != nil:
		pg.NextItem = field("nextItem", p.NextItem, pg.ItemType, "an item", "a string", isString)
	}
	if p.More != "" {
		pg.More = field("more", p.More, body.Type, "the 2xx body", "a boolean", func(t *model.GoType) bool { return t.Kind == model.Builtin && t.Name == "bool" })
	}
	// The parameters the next page's position goes into.
	param := func(key, name, kind string) *model.Param {
		if name == "" {
			return nil
		}
		var names []string
		for _, mp := range op.Params {
			if mp.IdempotencyKey || mp.In == model.InCookie {
				continue
			}
			names = append(names, mp.SpecName)
			if mp.SpecName != name {
				continue
			}
			t := mp.Type
			if kind == "string" && !isString(t) || kind == "integer" && !isInteger(t) {
				b.pageErr(p.KeyPtr(key), "", "pagination of %s %s: parameter %q is not %s", op.Method, op.Path, name, map[string]string{"string": "a string", "integer": "an integer"}[kind])
				ok = false
				return nil
			}
			return mp
		}
		msg := fmt.Sprintf("pagination of %s %s: no query or header parameter %q", op.Method, op.Path, name)
		if s := rawval.Suggest(name, names); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		b.pageErr(p.KeyPtr(key), "declare the parameter, or name one of: "+strings.Join(names, ", "), "%s", msg)
		ok = false
		return nil
	}
	switch p.Kind {
	case "cursor", "token":
		pg.Param = param("param", p.Param, "string")
	case "offset":
		pg.Param = param("param", p.Param, "integer")
		pg.Limit = param("limit", p.Limit, "integer")
	case "page":
		pg.Param = param("param", p.Param, "integer")
	}
	if !ok {
		return nil
	}
	pg.ItemsMethod = b.claimAt(b.methods, op.Name+"Pages", "the items iterator of operation "+op.ID, b.at(p.Ptr))
	pg.PagesMethod = b.claimAt(b.methods, op.Name+"PagesOf", "the pages iterator of operation "+op.ID, b.at(p.Ptr))
	return pg
}

// fieldPath follows path (a JSON pointer, or a dotted path; "" is the
// value itself) from a value of type t, root in words ("the 2xx body"):
// the fields' steps and the last one's type, or why it cannot.
func (b *builder) fieldPath(t *model.GoType, path, root string) ([]model.Step, *model.GoType, string) {
	if path == "" {
		return nil, t, ""
	}
	var toks []string
	if strings.HasPrefix(path, "/") {
		for _, tok := range strings.Split(path[1:], "/") {
			toks = append(toks, strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~"))
		}
	} else {
		toks = strings.Split(path, ".")
	}
	var steps []model.Step
	for i, tok := range toks {
		if i > 0 && steps[i-1].Nullable {
			return nil, nil, fmt.Sprintf("%q goes through a nullable property (%s), which resgen does not follow", path, toks[i-1])
		}
		decl := b.structOf(t)
		if decl == nil {
			what := root
			if i > 0 {
				what = fmt.Sprintf("property %q", strings.Join(toks[:i], "."))
			}
			return nil, nil, fmt.Sprintf("%q: %s is not an object with properties", path, what)
		}
		var f *model.Field
		var names []string
		for _, fl := range decl.Fields {
			name := fl.JSONName
			if fl.ByHand {
				name = fl.WireName
			}
			names = append(names, name)
			if name == tok {
				f = fl
			}
		}
		if f == nil {
			msg := fmt.Sprintf("%q: %s has no property %q", path, root, tok)
			if s := rawval.Suggest(tok, names); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			return nil, nil, msg
		}
		steps = append(steps, model.Step{Field: f.Name, Ptr: f.Type.Kind == model.Pointer, Nullable: isNullableType(f.Type)})
		t = f.Type
	}
	return steps, t, ""
}

// structOf is the struct type a value of t is, nil when it is none.
func (b *builder) structOf(t *model.GoType) *model.Type {
	for t = valueOf(t); t != nil && t.Kind == model.Named; {
		d := b.decl(t.Name)
		switch {
		case d == nil:
			return nil
		case d.Kind == model.Struct:
			return d
		case d.Kind == model.Defined && d.Underlying != nil:
			t = valueOf(d.Underlying)
		default:
			return nil
		}
	}
	return nil
}

// underlying is the type a value of t is, through pointers, Nullable
// and declared types (type Pets []Pet is a slice).
func (b *builder) underlying(t *model.GoType) *model.GoType {
	for t = valueOf(t); t != nil && t.Kind == model.Named; {
		d := b.decl(t.Name)
		if d == nil || d.Kind != model.Defined || d.Underlying == nil {
			return t
		}
		t = valueOf(d.Underlying)
	}
	return t
}

// valueOf is t without a pointer or a runtime.Nullable around it.
func valueOf(t *model.GoType) *model.GoType {
	for t != nil && (t.Kind == model.Pointer || isNullableType(t)) {
		t = t.Elem
	}
	return t
}

func isString(t *model.GoType) bool {
	return t != nil && t.Kind == model.Builtin && t.Name == "string"
}

var integerTypes = []string{"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64"}

func isInteger(t *model.GoType) bool {
	return t != nil && t.Kind == model.Builtin && slices.Contains(integerTypes, t.Name)
}
