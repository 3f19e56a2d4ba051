package conformance

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// implicitMappings writes into the oracle's document the implicit
// mapping of each discriminator that has none: OpenAPI maps a variant's
// component name to it ("Dog" selects #/components/schemas/Dog), but
// kin-openapi (v0.153.0, resolveDiscriminatorRef) uses an explicit
// mapping only, and without one judges the value against every oneOf
// variant: a Dog that a Lizard's schema admits too then matches two and
// is refused, though its petType says Dog. Only a discriminator whose
// union variants are all component $refs gets one, and only when no two
// variants share a name and each variant admits its name as the tag. A oneOf with no discriminator whose variants all
// extend a base that declares one (allOf [$ref Pet, ...]) is told apart by
// it, as OpenAPI's inheritance means and resgen reads it.
func implicitMappings(doc *openapi3.T) {
	seen := map[*openapi3.Schema]bool{}
	var walk func(ref *openapi3.SchemaRef, depth int)
	walk = func(ref *openapi3.SchemaRef, depth int) {
		if ref == nil || ref.Value == nil || seen[ref.Value] || depth > 64 || len(seen) > 200000 {
			return
		}
		s := ref.Value
		seen[s] = true
		addImplicitMapping(s)
		for _, p := range s.Properties {
			walk(p, depth+1)
		}
		for _, list := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
			for _, r := range list {
				walk(r, depth+1)
			}
		}
		walk(s.Items, depth+1)
		walk(s.Not, depth+1)
		walk(s.AdditionalProperties.Schema, depth+1)
	}
	if doc.Components != nil {
		for _, r := range doc.Components.Schemas {
			walk(r, 0)
		}
	}
	if doc.Paths == nil {
		return
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for _, p := range append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...) {
				if p != nil && p.Value != nil {
					walk(p.Value.Schema, 0)
				}
			}
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				for _, mt := range op.RequestBody.Value.Content {
					if mt != nil {
						walk(mt.Schema, 0)
					}
				}
			}
			if op.Responses != nil {
				for _, r := range op.Responses.Map() {
					if r == nil || r.Value == nil {
						continue
					}
					for _, mt := range r.Value.Content {
						if mt != nil {
							walk(mt.Schema, 0)
						}
					}
				}
			}
		}
	}
}

// addImplicitMapping gives s's discriminator its implicit mapping (see
// implicitMappings) when it has none.
func addImplicitMapping(s *openapi3.Schema) {
	d := s.Discriminator
	alts := s.OneOf
	if len(alts) == 0 {
		alts = s.AnyOf
	}
	if d == nil && len(s.OneOf) > 1 {
		d = baseDiscriminator(s.OneOf)
	}
	if d == nil || len(d.Mapping) > 0 || len(alts) < 2 {
		return
	}
	m := map[string]openapi3.MappingRef{}
	for _, a := range alts {
		if a == nil || !strings.HasPrefix(a.Ref, "#/components/schemas/") {
			return
		}
		name := refName(a.Ref)
		if _, twice := m[name]; twice || !admitsTag(a, d.PropertyName, name) {
			// A variant whose own schema refuses its name as the tag
			// (OpenAI's ActiveStatus: type: enum [active]) is told
			// apart by that schema: no implicit mapping then.
			return
		}
		m[name] = openapi3.MappingRef{Ref: a.Ref}
	}
	d.Mapping = m
	s.Discriminator = d
}

// baseDiscriminator is the discriminator every variant inherits from an
// allOf part (the base they extend, as a Pet's petType tells Cats from
// Dogs), a copy without mapping; nil when they do not share one.
func baseDiscriminator(alts openapi3.SchemaRefs) *openapi3.Discriminator {
	pn := ""
	for _, a := range alts {
		if a == nil || a.Value == nil {
			return nil
		}
		found := ""
		for _, part := range a.Value.AllOf {
			if part != nil && part.Value != nil && part.Value.Discriminator != nil && part.Value.Discriminator.PropertyName != "" {
				found = part.Value.Discriminator.PropertyName
			}
		}
		if found == "" || (pn != "" && found != pn) {
			return nil
		}
		pn = found
	}
	return &openapi3.Discriminator{PropertyName: pn}
}
