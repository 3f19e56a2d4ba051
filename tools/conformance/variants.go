package conformance

import "github.com/getkin/kin-openapi/openapi3"

// maxChoiceCalls bounds the calls (or answers) one body (or response)
// gets to cover its nested choices.
const maxChoiceCalls = 8

// nestedChoices is the most alternatives any choice below the top of a
// schema has: the variants of a nested union, the values of an enum. The
// synthesizer picks among them by seed and salt ((seed+salt) mod n), so
// that many calls with consecutive seeds send each alternative of each
// choice at least once (where the choice is reached): a union variant or
// enum value the client writes or reads wrongly is then on the wire.
func nestedChoices(ref *openapi3.SchemaRef) int {
	seen := map[*openapi3.Schema]bool{}
	var walk func(ref *openapi3.SchemaRef, depth int) int
	walk = func(ref *openapi3.SchemaRef, depth int) int {
		if ref == nil || ref.Value == nil || depth > maxDepth || seen[ref.Value] {
			return 1
		}
		s := ref.Value
		seen[s] = true
		n := 1
		if depth > 0 {
			n = max(n, len(unionOf(s)))
			if s.Const == nil {
				n = max(n, len(s.Enum))
			}
		}
		for _, list := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
			for _, p := range list {
				// (A top-level union's own variants are the top's choice:
				// its calls take each; what they hold is nested.)
				n = max(n, walk(p, depth+1))
			}
		}
		for _, p := range s.Properties {
			n = max(n, walk(p, depth+1))
		}
		n = max(n, walk(s.Items, depth+1))
		n = max(n, walk(s.AdditionalProperties.Schema, depth+1))
		return n
	}
	return min(walk(ref, 0), maxChoiceCalls)
}

// choiceRounds are the extra (variant, seed) pairs that, beside the calls
// that take each top-level variant t with seed base+t, take each nested
// choice's every alternative under each top-level variant: seeds base+t+r
// for r below nested, as many as maxChoiceCalls allows in all.
func choiceRounds(top, nested, base int) (variants, seeds []int) {
	top = max(top, 1)
	for r := 1; r < nested; r++ {
		for t := 0; t < top; t++ {
			if top+len(variants) >= maxChoiceCalls {
				return variants, seeds
			}
			variants = append(variants, t)
			seeds = append(seeds, base+t+r)
		}
	}
	return variants, seeds
}

// paramChoices is the most alternatives a choice in a parameter's schema
// has, its own union or enum included (a parameter's calls take one
// value each).
func paramChoices(params map[string]*openapi3.Parameter) int {
	n := 1
	for _, kp := range params {
		if kp == nil || kp.Schema == nil {
			continue
		}
		holder := &openapi3.Schema{Properties: openapi3.Schemas{"p": kp.Schema}}
		n = max(n, nestedChoices(&openapi3.SchemaRef{Value: holder}))
	}
	return n
}
