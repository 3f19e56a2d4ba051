package load

import (
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// swaggerPointer maps a pointer of the OpenAPI 3 document kin-openapi
// converted a Swagger 2.0 spec into back to the Swagger 2.0 document the
// user wrote. Exact: components/schemas → definitions, securitySchemes →
// securityDefinitions, a request body's schema → its body parameter's
// schema, a response's content schema → the response's schema.
// Approximate: a non-body parameter's schema keywords are the parameter's
// own in 2.0, so they map to the parameter; a form body's property maps
// to its formData parameter; what has no counterpart (a media type, a
// converted body with no body parameter) is placed by pos at the nearest
// ancestor that exists. A pointer that is already the Swagger one (paths,
// definitions) is returned as it is, so callers need not know.
func (s *Spec) swaggerPointer(ptr string) string {
	if !s.Swagger || ptr == "" {
		return ptr
	}
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	join := func(base string, rest ...string) string {
		out := base
		for _, t := range rest {
			out += "/" + t // tokens are escaped already
		}
		return out
	}
	// afterSchema drops the content/{media type}/schema of an OpenAPI 3
	// body, the Swagger 2.0 one having only schema.
	afterContent := func(rest []string) ([]string, bool) {
		if len(rest) >= 3 && rest[0] == "content" && rest[2] == "schema" {
			return rest[3:], true
		}
		return rest, false
	}
	switch {
	case len(toks) >= 2 && toks[0] == "components":
		if len(toks) < 3 {
			return ""
		}
		name, rest := toks[2], toks[3:]
		switch toks[1] {
		case "schemas":
			return join("/definitions/"+name, rest...)
		case "securitySchemes":
			return join("/securityDefinitions/"+name, rest...)
		case "parameters":
			if len(rest) > 0 && rest[0] == "schema" {
				rest = rest[1:] // approximate: the keywords are the parameter's
			}
			return join("/parameters/"+name, rest...)
		case "requestBodies":
			if r, ok := afterContent(rest); ok {
				return join("/parameters/"+name+"/schema", r...)
			}
			return "/parameters/" + name
		case "responses":
			if r, ok := afterContent(rest); ok {
				return join("/responses/"+name+"/schema", r...)
			}
			return join("/responses/"+name, headerRest(rest)...)
		}
		return ""
	case len(toks) >= 3 && toks[0] == "paths":
		// /paths/{path}/parameters/i or /paths/{path}/{method}/...
		opLen := 2
		if toks[2] != "parameters" {
			opLen = 3
		}
		if len(toks) <= opLen {
			return ptr
		}
		op := join("", toks[:opLen]...)
		section, rest := toks[opLen], toks[opLen+1:]
		switch section {
		case "parameters":
			if len(rest) == 0 {
				return ptr
			}
			i, err := strconv.Atoi(rest[0])
			if err != nil {
				return ptr
			}
			j := s.swaggerParam(op, func(in, _ string) bool { return in != "body" && in != "formData" }, i)
			if j < 0 {
				return op
			}
			rest = rest[1:]
			if len(rest) > 0 && rest[0] == "schema" {
				rest = rest[1:] // approximate, as for components/parameters
			}
			return join(op+"/parameters/"+strconv.Itoa(j), rest...)
		case "requestBody":
			r, ok := afterContent(rest)
			if !ok {
				return op
			}
			if j := s.swaggerParam(op, func(in, _ string) bool { return in == "body" }, 0); j >= 0 {
				return join(op+"/parameters/"+strconv.Itoa(j)+"/schema", r...)
			}
			// A form body: its properties are the formData parameters.
			if len(r) >= 2 && r[0] == "properties" {
				name := unescape(r[1])
				if j := s.swaggerParam(op, func(in, n string) bool { return in == "formData" && n == name }, 0); j >= 0 {
					return join(op+"/parameters/"+strconv.Itoa(j), r[2:]...)
				}
			}
			return op
		case "responses":
			if len(rest) == 0 {
				return ptr
			}
			code := op + "/responses/" + rest[0]
			if r, ok := afterContent(rest[1:]); ok {
				return join(code+"/schema", r...)
			}
			return join(code, headerRest(rest[1:])...)
		}
	}
	return ptr
}

// headerRest maps what follows a response to Swagger 2.0: a header's
// schema keywords are the header's own there.
func headerRest(rest []string) []string {
	if len(rest) >= 3 && rest[0] == "headers" && rest[2] == "schema" {
		return append(rest[:2:2], rest[3:]...)
	}
	return rest
}

// swaggerParam is the index, in the Swagger 2.0 parameter list of op (a
// pointer of a path item or an operation), of the n-th parameter (from 0)
// that keep accepts by its in and name, a $ref to #/parameters followed;
// -1 when there is none.
func (s *Spec) swaggerParam(op string, keep func(in, name string) bool, n int) int {
	list := s.src.lookup(op+"/parameters", true)
	if list == nil || list.Kind != yaml.SequenceNode {
		return -1
	}
	for j, p := range list.Content {
		if ref := MapValue(p, "$ref"); ref != nil && strings.HasPrefix(ref.Value, "#/") {
			if target := s.src.lookup(ref.Value[1:], true); target != nil {
				p = target
			}
		}
		var in, name string
		if v := MapValue(p, "in"); v != nil {
			in = v.Value
		}
		if v := MapValue(p, "name"); v != nil {
			name = v.Value
		}
		if keep(in, name) {
			if n == 0 {
				return j
			}
			n--
		}
	}
	return -1
}
