package build

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-openapi/jsonpointer"
	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/internal/rawval"
	yaml "go.yaml.in/yaml/v4"
)

// Enum constants are exact or absent. kin-openapi decodes every number of
// an enum as a float64, which holds every integer only up to 2^53:
// 9007199254740993 arrives as 9007199254740992, and 9223372036854775807 as
// 2^63, which overflows int64. For such values the literal is read from
// the spec's node tree; a value that cannot be read exactly, or does not
// fit the Go type, gets no constant and a warning.

// floatExact is the magnitude from which a float64 no longer tells
// integers apart.
const floatExact = 1 << 53

// enumConstant returns the constant value of v (an element of an enum of Go
// type under) and the text its name is made from, or ok false with why it
// gets no constant ("" when the value is simply of another JSON type, as a
// null in a nullable enum). lit is v's literal in the spec, nil when
// unknown.
func enumConstant(under *model.GoType, v any, lit *yaml.Node) (val any, text, why string, ok bool) {
	if under.Kind != model.Builtin {
		return nil, "", "", false
	}
	switch under.Name {
	case "string":
		str, isStr := v.(string)
		return str, str, "", isStr
	case "bool":
		bl, isBool := v.(bool)
		return bl, fmt.Sprint(bl), "", isBool
	case "float32", "float64":
		f, isNum := rawval.Number(v)
		if !isNum {
			return nil, "", "", false
		}
		if under.Name == "float32" && math.Abs(f) > math.MaxFloat32 {
			return nil, "", fmt.Sprintf("%v does not fit a float32", v), false
		}
		return f, fmt.Sprint(v), "", true
	case "int32", "int64", "uint32", "uint64":
	default:
		return nil, "", "", false
	}
	f, isNum := rawval.Number(v)
	if !isNum {
		return nil, "", "", false
	}
	if f != math.Trunc(f) {
		return nil, "", fmt.Sprintf("%v is not a whole number", v), false
	}
	text = strconv.FormatFloat(f, 'f', -1, 64)
	if math.Abs(f) >= floatExact {
		if lit == nil || !isDecimalInt(lit.Value) {
			return nil, "", fmt.Sprintf("near %s is an integer beyond 2^53, which resgen reads exactly only from a decimal literal in the main spec file", text), false
		}
		text = strings.TrimPrefix(lit.Value, "+")
	}
	bits := 64
	if strings.HasSuffix(under.Name, "32") {
		bits = 32
	}
	if strings.HasPrefix(under.Name, "u") {
		n, err := strconv.ParseUint(text, 10, bits)
		if err != nil {
			return nil, "", fmt.Sprintf("%s does not fit a %s", text, under.Name), false
		}
		return n, text, "", true
	}
	n, err := strconv.ParseInt(text, 10, bits)
	if err != nil {
		return nil, "", fmt.Sprintf("%s does not fit an %s", text, under.Name), false
	}
	return n, text, "", true
}

func isDecimalInt(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// enumLiterals returns the literal nodes of s's enum as the root document
// writes them, or nil when s is not found there (a schema of another file,
// a Swagger 2.0 spec, which is converted, or an enum under a YAML alias).
// Only enums holding a number beyond 2^53 are looked up: the node tree is
// walked once, on the first such enum.
func (b *builder) enumLiterals(s *openapi3.Schema) []*yaml.Node {
	if b.bigEnums == nil {
		b.bigEnums = bigEnums(b.s)
	}
	return b.bigEnums[s]
}

// bigEnums finds every enum of the root document that holds a number beyond
// 2^53 and maps its schema, as kin-openapi decoded it, to the enum's items.
func bigEnums(s *load.Spec) map[*openapi3.Schema][]*yaml.Node {
	out := map[*openapi3.Schema][]*yaml.Node{}
	if s.Swagger {
		return out
	}
	walkMappings(s.Tree(), nil, func(m *yaml.Node, path []string) {
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i], m.Content[i+1]
			if k.Value == "enum" && v.Kind == yaml.SequenceNode && holdsBigNumber(v) {
				if sch := schemaAt(s.Doc, path); sch != nil && sameNumbers(sch.Enum, v.Content) {
					out[sch] = v.Content
				}
			}
		}
	})
	return out
}

// walkMappings calls visit with every mapping below n and its path of
// reference tokens. Aliases are not followed: what they name is walked
// where it is written, and expanding them could take exponential time.
func walkMappings(n *yaml.Node, path []string, visit func(m *yaml.Node, path []string)) {
	if n == nil {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		visit(n, path)
		for i := 0; i+1 < len(n.Content); i += 2 {
			walkMappings(n.Content[i+1], append(path[:len(path):len(path)], n.Content[i].Value), visit)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			walkMappings(c, append(path[:len(path):len(path)], strconv.Itoa(i)), visit)
		}
	}
}

func holdsBigNumber(seq *yaml.Node) bool {
	for _, c := range seq.Content {
		if f, err := strconv.ParseFloat(c.Value, 64); err == nil && c.Kind == yaml.ScalarNode && c.Tag != "!!str" && math.Abs(f) >= floatExact {
			return true
		}
	}
	return false
}

// sameNumbers reports whether the numbers kin-openapi decoded are the
// items' literals read as float64, so the items are that schema's enum.
func sameNumbers(vals []any, items []*yaml.Node) bool {
	if len(vals) != len(items) {
		return false
	}
	for i, v := range vals {
		if f, ok := v.(float64); ok {
			g, err := strconv.ParseFloat(items[i].Value, 64)
			if err != nil || g != f {
				return false
			}
		}
	}
	return true
}

// schemaAt returns the schema kin-openapi decoded at the path of reference
// tokens, or nil.
func schemaAt(doc *openapi3.T, path []string) (found *openapi3.Schema) {
	// Some JSONLookup methods of kin-openapi do not guard a nil receiver;
	// a path that leads nowhere is simply not a schema.
	defer func() {
		if recover() != nil {
			found = nil
		}
	}()
	var cur any = doc
	for _, tok := range path {
		next, _, err := jsonpointer.GetForToken(cur, tok)
		if err != nil || next == nil {
			return nil
		}
		cur = next
	}
	switch x := cur.(type) {
	case *openapi3.SchemaRef:
		return x.Value
	case *openapi3.Schema:
		return x
	}
	return nil
}
