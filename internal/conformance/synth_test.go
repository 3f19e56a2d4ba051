package conformance

import (
	"errors"
	"regexp"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// A hostile schema ends synthesis with an error, not a run away.
func TestSynthIsBounded(t *testing.T) {
	loop := &openapi3.Schema{Type: &openapi3.Types{"object"}, Required: []string{"next"}}
	loop.Properties = openapi3.Schemas{"next": {Value: loop}}
	huge := uint64(1 << 40)
	wide := &openapi3.Schema{Type: &openapi3.Types{"array"}, MinItems: huge, Items: openapi3.NewStringSchema().NewRef()}
	long := &openapi3.Schema{Type: &openapi3.Types{"string"}, MinLength: huge}
	for name, s := range map[string]*openapi3.Schema{"required recursion": loop, "minItems": wide, "minLength": long} {
		_, err := newSynth(0, -1, true).value(&openapi3.SchemaRef{Value: s}, 0, 0)
		if !errors.Is(err, errUnsynthesizable) {
			t.Errorf("%s: err %v; want errUnsynthesizable", name, err)
		}
	}
}

func TestSynthMeetsConstraints(t *testing.T) {
	min, max, mult := 10.0, 20.0, 7.0
	cases := map[string]*openapi3.Schema{
		"pattern":    {Type: &openapi3.Types{"string"}, Pattern: `^[A-Z]{2}-\d{3,}$`},
		"multipleOf": {Type: &openapi3.Types{"integer"}, Min: &min, Max: &max, MultipleOf: &mult},
		"date-time":  {Type: &openapi3.Types{"string"}, Format: "date-time"},
		"array":      {Type: &openapi3.Types{"array"}, UniqueItems: true, Items: openapi3.NewStringSchema().NewRef()},
	}
	for name, s := range cases {
		v, err := newSynth(0, -1, true).value(&openapi3.SchemaRef{Value: s}, 0, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := s.VisitJSON(v, openapi3.EnableFormatValidation()); err != nil {
			t.Errorf("%s: %v is invalid: %v", name, v, err)
		}
		if a, ok := v.([]any); ok && (len(a) < 2 || a[0] == a[1]) {
			t.Errorf("array %v: want two distinct items (styles must be told apart)", a)
		}
	}
	if v, _ := newSynth(0, -1, true).value(&openapi3.SchemaRef{Value: cases["pattern"]}, 0, 0); !regexp.MustCompile(`^[A-Z]{2}-\d{3,}$`).MatchString(v.(string)) {
		t.Errorf("pattern: %q", v)
	}
}
