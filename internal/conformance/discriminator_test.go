package conformance

import (
	"path/filepath"
	"testing"
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
