package conformance

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// openapi3filter's form decoder refuses a whole body when one property
// has a shape it does not decode (an array of objects, say): that one
// property is an exception (constructs.go), but no other property may go
// unjudged for it. So the harness judges the body again against the
// schema without the refused properties, until kin-openapi refuses none.

// maxRefused bounds the properties taken out of one body.
const maxRefused = 32

// refusedName is the property a "refused" problem is about ("" when the
// problem is not one).
func refusedName(p problem) string {
	if p.at == nil || !p.at.body || len(p.at.tokens()) != 1 {
		return ""
	}
	if m := refusedProperty.FindStringSubmatch(p.detail); m != nil {
		return m[1]
	}
	return ""
}

// refusedProperty is what UrlencodedBodyDecoder says of a property it refuses.
var refusedProperty = regexp.MustCompile(`unsupported schema of request body's property "([^"]+)"`)

// revalidateRefused validates the request body again without the
// properties probs say kin-openapi refused; it returns the problems of
// those runs (more refusals included).
func revalidateRefused(ctx context.Context, in *openapi3filter.RequestValidationInput, r *http.Request, body []byte, c *call, probs []problem) []problem {
	var names []string
	for _, p := range probs {
		if n := refusedName(p); n != "" {
			names = append(names, n)
		}
	}
	rb := c.kinOp.RequestBody
	if len(names) == 0 || rb == nil || rb.Value == nil || mediaBase(c.bodyCT) != formCT {
		return nil
	}
	var out []problem
	for len(names) <= maxRefused {
		pruned := prunedBody(rb.Value, c.bodyCT, names)
		if pruned == nil {
			return out
		}
		reset(r, body)
		err := openapi3filter.ValidateRequestBody(ctx, in, pruned)
		if err == nil {
			return out
		}
		more := false
		for _, p := range kinProblems("request", err, nil) {
			if n := refusedName(p); n != "" && !slices.Contains(names, n) {
				names = append(names, n)
				more = true
			}
			out = append(out, p)
		}
		if !more {
			return out
		}
		// The problems of this run are found again by the next one.
		out = slices.DeleteFunc(out, func(p problem) bool { return refusedName(p) == "" })
	}
	return out
}

// decodeWithout decodes body with dec against schema, taking out each
// property the decoder refuses (at most maxRefused); refused lists them.
func decodeWithout(dec openapi3filter.BodyDecoder, body []byte, h http.Header, schema *openapi3.SchemaRef, enc openapi3filter.EncodingFn, form bool) (v any, refused []problem, err error) {
	var names []string
	for {
		v, err = dec(bytes.NewReader(body), h, schema, enc)
		if err == nil || !form || len(names) >= maxRefused {
			return v, refused, err
		}
		m := refusedProperty.FindStringSubmatch(err.Error())
		if m == nil || slices.Contains(names, m[1]) {
			return v, refused, err
		}
		names = append(names, m[1])
		refused = append(refused, problem{kind: "body", detail: "kin-openapi cannot decode the body: " + oneLine(err.Error()),
			at: &place{body: true, ptr: "/" + escapePointer(m[1])}})
		schema = withoutProperties(schema, names)
	}
}

// prunedBody is a copy of rb whose ct schema lacks names.
func prunedBody(rb *openapi3.RequestBody, ct string, names []string) *openapi3.RequestBody {
	mt := rb.Content.Get(ct)
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return nil
	}
	m := *mt
	m.Schema = withoutProperties(mt.Schema, names)
	cp := *rb
	cp.Content = openapi3.Content{ct: &m}
	return &cp
}

// withoutProperties is a copy of ref's schema without the named
// properties (nor their required entries).
func withoutProperties(ref *openapi3.SchemaRef, names []string) *openapi3.SchemaRef {
	if ref == nil || ref.Value == nil {
		return ref
	}
	sc := *ref.Value
	sc.Properties = openapi3.Schemas{}
	for k, v := range ref.Value.Properties {
		if !slices.Contains(names, k) {
			sc.Properties[k] = v
		}
	}
	sc.Required = slices.DeleteFunc(slices.Clone(ref.Value.Required), func(k string) bool { return slices.Contains(names, k) })
	return &openapi3.SchemaRef{Value: &sc}
}

// withoutKeys is a copy of an object value without the named keys.
func withoutKeys(v any, names []string) any {
	m, ok := v.(map[string]any)
	if !ok || len(names) == 0 {
		return v
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		if !slices.Contains(names, k) {
			out[k] = x
		}
	}
	return out
}

// withoutEmpty is a copy of a form body's value without its empty objects
// and lists, at any depth: a form has no way to write them (no key is
// sent), so no decoder can find them.
func withoutEmpty(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			e = withoutEmpty(e)
			switch y := e.(type) {
			case map[string]any:
				if len(y) == 0 {
					continue
				}
			case []any:
				if len(y) == 0 {
					continue
				}
			}
			out[k] = e
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutEmpty(e)
		}
		return out
	}
	return v
}
