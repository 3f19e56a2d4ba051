package conformance

import (
	"path/filepath"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// kin-openapi judges a discriminated oneOf without a mapping against
// every variant (a Dog a Lizard's schema admits too matches two); with
// the implicit mapping written in, the tag picks the variant, for a
// discriminator of the union's own (PetChoice) or of the variants' base
// (AnyPet), and a Cat without its required huntingSkill is still refused.
func TestImplicitMappings(t *testing.T) {
	doc, err := loadOracle(filepath.Join("..", "..", "testdata", "specs", "unions.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dog := map[string]any{"petType": "Dog", "name": "rex", "packSize": 3.0}
	cat := map[string]any{"petType": "Cat", "name": "tom"}
	for _, name := range []string{"PetChoice", "AnyPet"} {
		if doc.Components.Schemas[name].Value.VisitJSON(dog) == nil {
			t.Errorf("%s: kin-openapi accepts the Dog without a mapping: implicitMappings may be needless now", name)
		}
	}
	implicitMappings(doc)
	for _, name := range []string{"PetChoice", "AnyPet"} {
		s := doc.Components.Schemas[name].Value
		if err := s.VisitJSON(dog); err != nil {
			t.Errorf("%s: the Dog is refused: %v", name, err)
		}
		if s.VisitJSON(cat) == nil {
			t.Errorf("%s: a Cat without huntingSkill is accepted", name)
		}
	}
}

// A discriminator whose variants refuse their component names as the tag
// (OpenAI's thread status: ActiveStatus has type: enum [active]) gets no
// implicit mapping: kin-openapi would then refuse every valid value.
func TestNoImplicitMappingForOwnTags(t *testing.T) {
	status := func(tag string) *openapi3.Schema {
		s := openapi3.NewObjectSchema().WithProperty("type", &openapi3.Schema{Type: &openapi3.Types{"string"}, Enum: []any{tag}})
		s.Required = []string{"type"}
		return s
	}
	s := &openapi3.Schema{Discriminator: &openapi3.Discriminator{PropertyName: "type"}, OneOf: openapi3.SchemaRefs{
		{Ref: "#/components/schemas/ActiveStatus", Value: status("active")},
		{Ref: "#/components/schemas/LockedStatus", Value: status("locked")},
	}}
	addImplicitMapping(s)
	if len(s.Discriminator.Mapping) > 0 {
		t.Errorf("mapping %v", s.Discriminator.Mapping)
	}
	if err := s.VisitJSON(map[string]any{"type": "active"}); err != nil {
		t.Error(err)
	}
}
