package conformance

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
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

// The synthesizer's values are adversarial where the schema allows, tame
// on other seeds, valid by kin-openapi, and the same for the same seed.
func TestSynthIsAdversarial(t *testing.T) {
	str := openapi3.NewStringSchema().NewRef()
	seen := map[string]bool{}
	var values []string
	for seed := 0; seed < 16; seed++ {
		v, err := newSynth(seed, -1, true).value(str, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := newSynth(seed, -1, true).value(str, 1, 0)
		if v != again {
			t.Errorf("seed %d: %q then %q: not deterministic", seed, v, again)
		}
		values = append(values, v.(string))
		seen[v.(string)] = true
	}
	all := strings.Join(values, "\x00")
	for _, want := range []string{"/", "?", "#", "&", "=", "+", "%20", ",", ";", " ", `"`, "é", "日本", "😀"} {
		if !strings.Contains(all, want) {
			t.Errorf("no string holds %q: %q", want, values)
		}
	}
	if !seen["alpha"] || !seen[""] {
		t.Errorf("want a tame word and an empty string (a body's property) among %q", values)
	}

	// In a header: no control character, no white space at either end;
	// a parameter's items hold no style's delimiter; no empty parameter.
	for seed := 0; seed < 16; seed++ {
		g := newSynth(seed, -1, true)
		g.place = inHeader
		v, _ := g.value(str, 0, 0)
		s := v.(string)
		if s == "" || strings.TrimSpace(s) != s || strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			t.Errorf("header value %q", s)
		}
		g = newSynth(seed, -1, true)
		g.place = inQuery
		item, _ := g.value(str, 1, 0)
		if strings.ContainsAny(item.(string), ",;.=| []") || item == "" {
			t.Errorf("query list item %q holds a delimiter", item)
		}
	}

	// Numbers: past 2^53 exactly (a json.Number), the int64 extremes, a
	// million, fractions, a tiny one; within the schema's bounds.
	nums := map[string]bool{}
	for _, s := range []*openapi3.Schema{openapi3.NewInt64Schema(), openapi3.NewFloat64Schema(), openapi3.NewIntegerSchema()} {
		for seed := 0; seed < 8; seed++ {
			v, err := newSynth(seed, -1, true).value(&openapi3.SchemaRef{Value: s}, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.VisitJSON(v); err != nil {
				t.Errorf("%v: %v", v, err)
			}
			nums[fmt.Sprint(v)] = true
		}
	}
	for _, want := range []string{"9007199254740993", "9223372036854775807", "-9223372036854775808", "1.234567891e+06", "1e+21", "1.2345e-05"} {
		if !nums[want] {
			t.Errorf("no number %s among %v", want, nums)
		}
	}
	min, max := 1.0, 100.0
	bounded := &openapi3.Schema{Type: &openapi3.Types{"integer"}, Min: &min, Max: &max}
	for seed := 0; seed < 8; seed++ {
		v, _ := newSynth(seed, -1, true).value(&openapi3.SchemaRef{Value: bounded}, 0, 0)
		if err := bounded.VisitJSON(v); err != nil {
			t.Errorf("bounded: %v: %v", v, err)
		}
	}

	// A date-time with an offset and a fraction; a short string cut to
	// its maxLength.
	dt, _ := newSynth(0, -1, true).value(&openapi3.SchemaRef{Value: &openapi3.Schema{Type: &openapi3.Types{"string"}, Format: "date-time"}}, 0, 0)
	if dt != "2026-01-02T03:04:05.123+05:30" {
		t.Errorf("date-time %v", dt)
	}
	three := uint64(3)
	short := &openapi3.Schema{Type: &openapi3.Types{"string"}, MaxLength: &three}
	for seed := 0; seed < 12; seed++ {
		v, _ := newSynth(seed, -1, true).value(&openapi3.SchemaRef{Value: short}, 0, 0)
		if err := short.VisitJSON(v); err != nil {
			t.Errorf("maxLength: %q: %v", v, err)
		}
	}
}

// An optional nullable property is sometimes an explicit null in JSON,
// never in a form (no style writes one) nor where 3.1 ignores nullable.
func TestSynthSendsNulls(t *testing.T) {
	nick := openapi3.NewStringSchema()
	nick.Nullable = true
	obj := openapi3.NewObjectSchema().WithProperty("nick", nick)
	nulls := map[valuePlace]int{}
	for _, at := range []valuePlace{inJSON, inForm} {
		for seed := 0; seed < 6; seed++ {
			g := newSynth(seed, -1, true)
			g.place = at
			v, _ := g.value(obj.NewRef(), 0, 0)
			if x, ok := v.(map[string]any)["nick"]; ok && x == nil {
				nulls[at]++
			}
		}
	}
	if nulls[inJSON] == 0 || nulls[inForm] != 0 {
		t.Errorf("nulls by place: %v; want some in JSON, none in forms", nulls)
	}
	for seed := 0; seed < 6; seed++ {
		g := newSynth(seed, -1, true)
		g.is31 = true
		v, _ := g.value(obj.NewRef(), 0, 0)
		if x, ok := v.(map[string]any)["nick"]; ok && x == nil {
			t.Errorf("3.1: a null for nullable: true, which 3.1 does not know")
		}
	}
}
