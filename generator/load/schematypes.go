package load

import (
	"math"

	"github.com/getkin/kin-openapi/openapi3"
)

// What a schema says of its JSON type, as both policy (an idempotency
// key header's schema) and build (every Go type) read it.

// NonNullTypes are s's types but null.
func NonNullTypes(s *openapi3.Schema) []string {
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

// EnumValues returns the values s allows: its enum, or its const as an
// enum of one (3.1); nil when it lists none.
func EnumValues(s *openapi3.Schema) []any {
	if s.Const != nil {
		switch s.Const.(type) {
		case map[string]any, []any:
			return nil // an object or array const: no Go constant holds it
		}
		return []any{s.Const}
	}
	if len(s.Enum) == 0 {
		return nil
	}
	return s.Enum
}

// floatExact is the magnitude from which a float64 no longer tells
// integers apart.
const floatExact = 1 << 53

// ValueType is the JSON type of the values an untyped enum or const lists
// (`const: redirect` is a string), or "" when they are of several types.
func ValueType(s *openapi3.Schema) string {
	kind := ""
	for _, v := range EnumValues(s) {
		k := ""
		switch v := v.(type) {
		case nil:
			continue
		case string:
			k = "string"
		case bool:
			k = "boolean"
		case float64:
			k = "number"
			if v == math.Trunc(v) && math.Abs(v) < floatExact {
				k = "integer"
			}
		default:
			return ""
		}
		switch {
		case kind == "" || kind == k:
			kind = k
		case kind == "integer" && k == "number" || kind == "number" && k == "integer":
			kind = "number"
		default:
			return ""
		}
	}
	return kind
}
