package conformance

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// place is the one place a failure is about: a parameter, a JSON pointer
// in the request body, or one in the typed response field. Exceptions
// match it (never a failure's text alone), so an exception for one place
// hides no failure at another place of the same call.
type place struct {
	// param is the parameter (nil: the failure is not about one).
	param *openapi3.Parameter
	// body: ptr is in the request body; response: in the typed response.
	body, response bool
	// ptr is a JSON pointer ("" for the whole value) in the parameter's
	// value, the body or the response.
	ptr string
	// wire is what the request carried there, when it is form values: the
	// query of a query parameter, the fields of a form body.
	wire url.Values
}

// String is the place as a failure message shows it.
func (p *place) String() string {
	if p == nil {
		return ""
	}
	at := p.ptr
	if at == "" {
		at = "(top)"
	}
	switch {
	case p.param != nil:
		s := fmt.Sprintf("%s parameter %q", p.param.In, p.param.Name)
		if p.ptr != "" {
			s += " " + p.ptr
		}
		return s
	case p.body:
		return "request body " + at
	case p.response:
		return "response " + at
	}
	return ""
}

// tokens are the pointer's reference tokens, unescaped.
func (p *place) tokens() []string {
	if p == nil || p.ptr == "" || p.ptr == "…" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(p.ptr, "/"), "/")
	for i, t := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return parts
}

// propertyNamed finds the property a kin-openapi message names when it
// gives no structured path ("... request body's property "items"").
var propertyNamed = regexp.MustCompile(`property "([^"]+)"`)

// partNamed finds the multipart part a message names ("part alpha: undefined").
var partNamed = regexp.MustCompile(`^(?:.*: )?part ([^\s:]+): `)

// kinProblems splits an openapi3filter error into one problem per place
// it names: each error of a MultiError, and each schema error inside one
// parameter's or the body's error, with the parameter or the body and the
// JSON pointer it points to. base is the place of an error that is none of
// those (a body decoder's own error): the body, say.
func kinProblems(kind string, err error, base *place) []problem {
	var out []problem
	var walk func(e error, head string, at *place)
	walk = func(e error, head string, at *place) {
		if me, ok := e.(openapi3.MultiError); ok && len(me) > 0 {
			for _, x := range me {
				walk(x, head, at)
			}
			return
		}
		var re *openapi3filter.RequestError
		if at == nil && errors.As(e, &re) {
			switch {
			case re.Parameter != nil:
				at = &place{param: re.Parameter}
			case re.RequestBody != nil:
				at = &place{body: true}
			}
			if at != nil && re.Err != nil {
				// head + each inner error's text reads as kin-openapi's own
				// message of that error alone.
				full := re.Error()
				walk(re.Err, head+strings.TrimSuffix(full, re.Err.Error()), at)
				return
			}
		}
		p := problem{kind: kind, detail: oneLine(head + e.Error())}
		if at != nil {
			cp := *at
			cp.ptr = pointerOf(e, cp.param != nil)
			p.at = &cp
		}
		out = append(out, p)
	}
	walk(err, "", base)
	return out
}

// pointerOf is the JSON pointer an error of kin-openapi names: a schema
// error's, a parse error's path, or a property its text names.
func pointerOf(e error, inParam bool) string {
	var se *openapi3.SchemaError
	if errors.As(e, &se) {
		return joinPointer(se.JSONPointer())
	}
	var pe *openapi3filter.ParseError
	if errors.As(e, &pe) && len(pe.Path()) > 0 {
		var toks []string
		for _, t := range pe.Path() {
			toks = append(toks, fmt.Sprint(t))
		}
		return joinPointer(toks)
	}
	if m := propertyNamed.FindStringSubmatch(e.Error()); m != nil && !inParam {
		return "/" + escapePointer(m[1])
	}
	if m := partNamed.FindStringSubmatch(e.Error()); m != nil && !inParam {
		return "/" + escapePointer(m[1])
	}
	return ""
}

func joinPointer(toks []string) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString("/")
		b.WriteString(escapePointer(t))
	}
	return b.String()
}

// site is a failure's place resolved in the oracle's document: what an
// exception looks at to tell whether its construct is there.
type site struct {
	*place
	c      *call
	op     *openapi3.Operation
	opPath string
	// media is the request body's (body places) or the response's
	// (response places) media type, ct its content type.
	media *openapi3.MediaType
	ct    string
}

// siteOf resolves a place of call c.
func siteOf(c *call, at *place) *site {
	if at == nil || c == nil {
		return nil
	}
	s := &site{place: at, c: c, op: c.kinOp, opPath: c.op.Path}
	switch {
	case at.body:
		if rb := c.kinOp.RequestBody; rb != nil && rb.Value != nil {
			s.ct = c.bodyCT
			s.media = rb.Value.Content.Get(c.bodyCT)
		}
	case at.response:
		if kr := kinResponse(c.kinOp, c.respStatus); kr != nil {
			s.ct = c.respCT
			s.media = kr.Content.Get(c.respCT)
		}
	}
	return s
}

// intended is the value the call meant at the place: a parameter's, or
// the request body's at the pointer; ok is false when it meant none.
func (s *site) intended() (any, bool) {
	switch {
	case s.param != nil:
		for _, ip := range s.c.params {
			if ip.param == s.param {
				return valueAt(ip.value, s.tokens())
			}
		}
	case s.body && s.c.bodySent:
		return valueAt(s.c.body, s.tokens())
	}
	return nil, false
}

// valueAt walks a JSON value along pointer tokens.
func valueAt(v any, toks []string) (any, bool) {
	for _, t := range toks {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[t]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// root is the schema the place's pointer starts from.
func (s *site) root() *openapi3.SchemaRef {
	switch {
	case s.param != nil:
		if s.param.Schema != nil {
			return s.param.Schema
		}
		for _, mt := range s.param.Content {
			if mt != nil {
				return mt.Schema
			}
		}
	case s.media != nil:
		return s.media.Schema
	}
	return nil
}

// schemasAt walks toks from ref, through properties, additionalProperties
// and items, into every alternative of each schema on the way.
func schemasAt(ref *openapi3.SchemaRef, toks []string) []*openapi3.Schema {
	if ref == nil || ref.Value == nil {
		return nil
	}
	cur := alternatives(ref.Value)
	for _, t := range toks {
		var next []*openapi3.Schema
		for _, sc := range cur {
			var child *openapi3.SchemaRef
			if p := sc.Properties[t]; p != nil {
				child = p
			} else if _, err := strconv.Atoi(t); err == nil && sc.Items != nil {
				child = sc.Items
			} else if sc.AdditionalProperties.Schema != nil && sc.Properties[t] == nil {
				child = sc.AdditionalProperties.Schema
			}
			if child != nil && child.Value != nil {
				next = append(next, alternatives(child.Value)...)
			}
		}
		cur = next
	}
	return cur
}

// alternatives are s and, recursively, its allOf, anyOf and oneOf parts
// (bounded: a spec's composition can be cyclic).
func alternatives(s *openapi3.Schema) []*openapi3.Schema {
	return composedParts(s, true)
}

// composedParts are s and, recursively, its allOf parts, and with unions
// its anyOf and oneOf parts too (bounded: composition can be cyclic).
func composedParts(s *openapi3.Schema, unions bool) []*openapi3.Schema {
	var out []*openapi3.Schema
	seen := map[*openapi3.Schema]bool{}
	var walk func(x *openapi3.Schema, depth int)
	walk = func(x *openapi3.Schema, depth int) {
		if x == nil || seen[x] || depth > maxDepth || len(out) > 64 {
			return
		}
		seen[x] = true
		out = append(out, x)
		lists := []openapi3.SchemaRefs{x.AllOf}
		if unions {
			lists = append(lists, x.AnyOf, x.OneOf)
		}
		for _, list := range lists {
			for _, r := range list {
				if r != nil {
					walk(r.Value, depth+1)
				}
			}
		}
	}
	walk(s, 0)
	return out
}

// topProperty is the body property the place is in ("" at the top) and
// its encoding.
func (s *site) topProperty() (string, *openapi3.Encoding) {
	toks := s.tokens()
	if len(toks) == 0 {
		return "", nil
	}
	var enc *openapi3.Encoding
	if s.media != nil {
		enc = s.media.Encoding[toks[0]]
	}
	return toks[0], enc
}
