package build

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/diag"
)

// Warnings about a schema name where it is written. kin-openapi resolves
// every $ref into a shared *openapi3.Schema, so a schema met while building
// says nothing of its place: the schema index maps each schema the
// document reaches to its file and pointer. It is made from the loaded
// document, not a node tree, so it serves JSON, YAML and the files $refs
// read alike, and only on the first warning that needs it.

// schemaLoc is where a schema is written: the absolute, slash-separated
// path of its file (as load.Spec.DiagIn takes it) and its pointer there.
type schemaLoc struct{ file, ptr string }

// schemaDiag is a warning about schema s at the tokens sub below it (a
// keyword, a property) where s is written; at the file when the document
// does not reach s (a schema made by build itself).
func (b *builder) schemaDiag(s *openapi3.Schema, msg, hint string, sub ...string) diag.Diagnostic {
	if b.schemaLocs == nil {
		b.schemaLocs = indexSchemas(b.s.Doc, b.s.Root())
	}
	loc, ok := b.schemaLocs[s]
	if !ok {
		// A schema made for a property two allOf parts declare is where
		// a declaration it merges is written.
		if made, merge := b.mergedParts[s]; merge {
			return b.schemaDiag(writtenPart(made, sub), msg, hint, sub...)
		}
		return diag.Diagnostic{Severity: diag.Warning, File: b.s.File, Msg: msg, Hint: hint}
	}
	return b.s.DiagIn(diag.Warning, loc.file, diag.PointerJoin(loc.ptr, sub...), msg, hint)
}

// indexSchemas walks doc (whose file is root) from its components, then
// its paths, in sorted order, so a schema reached in two ways is placed
// where it is defined: a schema reached through a $ref is at the $ref's
// target. Each schema is entered once, so cyclic schemas end.
func indexSchemas(doc *openapi3.T, root string) map[*openapi3.Schema]schemaLoc {
	x := schemaIndex{locs: map[*openapi3.Schema]schemaLoc{}}
	if c := doc.Components; c != nil {
		for _, n := range slices.Sorted(maps.Keys(c.Schemas)) {
			x.ref(c.Schemas[n], root, "/components/schemas", "", n)
		}
		for _, n := range slices.Sorted(maps.Keys(c.Parameters)) {
			x.param(c.Parameters[n], root, diag.PointerJoin("/components/parameters", n))
		}
		for _, n := range slices.Sorted(maps.Keys(c.Headers)) {
			if h := c.Headers[n]; h != nil {
				file, ptr := x.at(h.Ref, root, diag.PointerJoin("/components/headers", n))
				if h.Value != nil {
					x.ref(h.Value.Schema, file, ptr, "/schema", "")
					x.content(h.Value.Content, file, ptr)
				}
			}
		}
		for _, n := range slices.Sorted(maps.Keys(c.RequestBodies)) {
			x.body(c.RequestBodies[n], root, diag.PointerJoin("/components/requestBodies", n))
		}
		for _, n := range slices.Sorted(maps.Keys(c.Responses)) {
			x.response(c.Responses[n], root, diag.PointerJoin("/components/responses", n))
		}
	}
	if doc.Paths == nil {
		return x.locs
	}
	for _, p := range slices.Sorted(maps.Keys(doc.Paths.Map())) {
		item := doc.Paths.Value(p)
		if item == nil {
			continue
		}
		file, itemPtr := x.at(item.Ref, root, diag.PointerJoin("/paths", p))
		for i, pr := range item.Parameters {
			x.param(pr, file, itemPtr+"/parameters/"+strconv.Itoa(i))
		}
		ops := item.Operations()
		for _, m := range slices.Sorted(maps.Keys(ops)) {
			op := ops[m]
			opPtr := diag.PointerJoin(itemPtr, strings.ToLower(m))
			for i, pr := range op.Parameters {
				x.param(pr, file, opPtr+"/parameters/"+strconv.Itoa(i))
			}
			x.body(op.RequestBody, file, opPtr+"/requestBody")
			if op.Responses != nil {
				for _, code := range slices.Sorted(maps.Keys(op.Responses.Map())) {
					x.response(op.Responses.Value(code), file, diag.PointerJoin(opPtr+"/responses", code))
				}
			}
		}
	}
	return x.locs
}

type schemaIndex struct {
	locs map[*openapi3.Schema]schemaLoc
}

// at is where an object written at ptr of file is: its $ref's target when
// ref is set, resolved as kin-openapi resolves it (against file).
func (x *schemaIndex) at(ref, file, ptr string) (string, string) {
	if ref == "" {
		return file, ptr
	}
	if ref[0] == '#' && !strings.Contains(ref, "%") {
		return file, ref[1:] // the common case, without a URL's cost
	}
	u, err := url.Parse(ref)
	if err != nil {
		return file, ptr
	}
	t := (&url.URL{Path: file}).ResolveReference(u)
	return t.Path, t.Fragment
}

// ref enters the schema of r, written at parent+sub in file, where sub
// is a keyword with its slashes ("/items") or, for a property, name
// (escaped here): the pointer is made only for a schema not yet entered,
// as most $refs lead to one that is.
func (x *schemaIndex) ref(r *openapi3.SchemaRef, file, parent, sub, name string) {
	if r == nil || r.Value == nil {
		return
	}
	s := r.Value
	if _, seen := x.locs[s]; seen {
		return
	}
	ptr := parent + sub
	if name != "" {
		ptr = diag.PointerJoin(ptr, name)
	}
	file, ptr = x.at(r.Ref, file, ptr)
	x.locs[s] = schemaLoc{file, ptr}
	if len(s.Properties) > 0 {
		names := make([]string, 0, len(s.Properties))
		for n := range s.Properties {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			x.ref(s.Properties[n], file, ptr, "/properties", n)
		}
	}
	x.ref(s.Items, file, ptr, "/items", "")
	x.ref(s.AdditionalProperties.Schema, file, ptr, "/additionalProperties", "")
	x.list(s.AllOf, file, ptr, "/allOf/")
	x.list(s.OneOf, file, ptr, "/oneOf/")
	x.list(s.AnyOf, file, ptr, "/anyOf/")
	x.ref(s.Not, file, ptr, "/not", "")
}

// list walks the schemas of an allOf, oneOf or anyOf (kw, with its
// slashes) of the schema at ptr.
func (x *schemaIndex) list(refs openapi3.SchemaRefs, file, ptr, kw string) {
	for i, v := range refs {
		x.ref(v, file, ptr, kw+strconv.Itoa(i), "")
	}
}

func (x *schemaIndex) param(pr *openapi3.ParameterRef, file, ptr string) {
	if pr == nil || pr.Value == nil {
		return
	}
	file, ptr = x.at(pr.Ref, file, ptr)
	x.ref(pr.Value.Schema, file, ptr, "/schema", "")
	x.content(pr.Value.Content, file, ptr)
}

func (x *schemaIndex) body(rb *openapi3.RequestBodyRef, file, ptr string) {
	if rb == nil || rb.Value == nil {
		return
	}
	file, ptr = x.at(rb.Ref, file, ptr)
	x.content(rb.Value.Content, file, ptr)
}

func (x *schemaIndex) response(rr *openapi3.ResponseRef, file, ptr string) {
	if rr == nil || rr.Value == nil {
		return
	}
	file, ptr = x.at(rr.Ref, file, ptr)
	x.content(rr.Value.Content, file, ptr)
	for _, n := range slices.Sorted(maps.Keys(rr.Value.Headers)) {
		if h := rr.Value.Headers[n]; h != nil && h.Value != nil {
			hf, hp := x.at(h.Ref, file, diag.PointerJoin(ptr+"/headers", n))
			x.ref(h.Value.Schema, hf, hp, "/schema", "")
		}
	}
}

// content walks the schemas of a content map (a body's, a parameter's)
// below ptr.
func (x *schemaIndex) content(c openapi3.Content, file, ptr string) {
	for _, mt := range slices.Sorted(maps.Keys(c)) {
		if m := c[mt]; m != nil {
			x.ref(m.Schema, file, diag.PointerJoin(ptr+"/content", mt), "/schema", "")
		}
	}
}

// writtenPart is the declaration among parts (those a merged schema
// merges) that a warning about keyword sub[0] is about: the last that
// has the keyword, else the last.
func writtenPart(parts []*openapi3.SchemaRef, sub []string) *openapi3.Schema {
	for i := len(parts) - 1; i >= 0 && len(sub) > 0; i-- {
		s := parts[i].Value
		switch sub[0] {
		case "required":
			if len(s.Required) > 0 {
				return s
			}
		case "properties":
			if len(sub) > 1 {
				if _, ok := s.Properties[sub[1]]; ok {
					return s
				}
			}
		}
	}
	return parts[len(parts)-1].Value
}
