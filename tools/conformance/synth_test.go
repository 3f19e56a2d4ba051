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

// A required readOnly property is never sent in a request (kin-openapi
// refuses it there and does not require it), even when only one allOf
// part says readOnly; a required writeOnly one never in a response.
func TestSynthLeavesReadOnlyOut(t *testing.T) {
	id := openapi3.NewStringSchema()
	id.ReadOnly = true
	plain := openapi3.NewObjectSchema().WithProperty("id", id).WithProperty("name", openapi3.NewStringSchema())
	plain.Required = []string{"id", "name"}
	merged := &openapi3.Schema{Type: &openapi3.Types{"object"}, Required: []string{"id"},
		AllOf: openapi3.SchemaRefs{{Value: &openapi3.Schema{Properties: openapi3.Schemas{"id": {Value: id}}}},
			{Value: &openapi3.Schema{Properties: openapi3.Schemas{"id": openapi3.NewStringSchema().NewRef()}}}}}
	// A readOnly inside the property's own allOf is none to kin-openapi
	// (Cloudflare's ruleset id: allOf [$ref, {readOnly: true}]): required,
	// it is sent.
	inner := openapi3.NewObjectSchema().WithProperty("id", &openapi3.Schema{AllOf: openapi3.SchemaRefs{openapi3.NewStringSchema().NewRef(), {Value: &openapi3.Schema{ReadOnly: true}}}})
	inner.Required = []string{"id"}
	if v, err := (&planner{}).instance(inner.NewRef(), 0, -1, true, inJSON); err != nil {
		t.Errorf("inner readOnly: %v", err)
	} else if _, ok := v.(map[string]any)["id"]; !ok {
		t.Errorf("inner readOnly: id left out: %v", v)
	}
	for name, s := range map[string]*openapi3.Schema{"plain": plain, "allOf": merged} {
		p := &planner{}
		v, err := p.instance(s.NewRef(), 0, -1, true, inJSON)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, ok := v.(map[string]any)["id"]; ok {
			t.Errorf("%s: the request holds readOnly id: %v", name, v)
		}
	}
	secret := openapi3.NewStringSchema()
	secret.WriteOnly = true
	resp := openapi3.NewObjectSchema().WithProperty("secret", secret)
	resp.Required = []string{"secret"}
	v, err := (&planner{}).instance(resp.NewRef(), 0, -1, false, inJSON)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := v.(map[string]any)["secret"]; ok {
		t.Errorf("the response holds writeOnly secret: %v", v)
	}
}

// A oneOf value matches exactly one variant, when the variant picked
// first would match two: Cloudflare's app_id (an identifier of at most 32
// characters or a uuid of at most 36, both plain strings), a variant whose
// required keys another variant's value holds too.
func TestSynthMatchesOneOfOnce(t *testing.T) {
	short, long := uint64(32), uint64(36)
	ids := &openapi3.Schema{OneOf: openapi3.SchemaRefs{
		{Value: &openapi3.Schema{Type: &openapi3.Types{"string"}, MaxLength: &short}},
		{Value: &openapi3.Schema{Type: &openapi3.Types{"string"}, MaxLength: &long}},
	}}
	named := openapi3.NewObjectSchema().WithProperty("name", openapi3.NewStringSchema()).WithProperty("size", openapi3.NewIntegerSchema())
	named.Required = []string{"name"}
	linked := openapi3.NewObjectSchema().WithProperty("name", openapi3.NewStringSchema()).WithProperty("url", openapi3.NewStringSchema())
	linked.Required = []string{"name", "url"}
	objs := &openapi3.Schema{OneOf: openapi3.SchemaRefs{named.NewRef(), linked.NewRef()}}
	for name, s := range map[string]*openapi3.Schema{"strings": ids, "objects": objs} {
		for seed := 0; seed < 6; seed++ {
			for variant := range 2 {
				for _, at := range []valuePlace{inPath, inJSON} {
					g := newSynth(seed, variant, true)
					g.place = at
					v, err := g.value(s.NewRef(), 0, 0)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if err := s.VisitJSON(v); err != nil {
						t.Errorf("%s seed %d variant %d: %v: %v", name, seed, variant, v, err)
					}
				}
			}
		}
	}
}

// A discriminator without a mapping tags a variant with its component's
// name only where the variant admits that name: OpenAI's thread status
// (ActiveStatus has type: enum [active]) keeps its own value.
func TestSynthKeepsVariantsOwnTag(t *testing.T) {
	status := func(tag string) *openapi3.Schema {
		s := openapi3.NewObjectSchema().WithProperty("type", &openapi3.Schema{Type: &openapi3.Types{"string"}, Enum: []any{tag}})
		s.Required = []string{"type"}
		return s
	}
	s := &openapi3.Schema{Discriminator: &openapi3.Discriminator{PropertyName: "type"}, OneOf: openapi3.SchemaRefs{
		{Ref: "#/components/schemas/ActiveStatus", Value: status("active")},
		{Ref: "#/components/schemas/LockedStatus", Value: status("locked")},
	}}
	for variant := range 2 {
		v, err := newSynth(0, variant, false).value(s.NewRef(), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.VisitJSON(v); err != nil {
			t.Errorf("variant %d: %v: %v", variant, v, err)
		}
	}
}

// A value nested deeper than eight levels (OpenAI's chat completions, a
// scan report's required chain) is made: the bound is for a hostile
// spec's runaway, not a real API's depth.
func TestSynthNestsDeep(t *testing.T) {
	leaf := openapi3.NewStringSchema()
	s := leaf
	for i := 0; i < 12; i++ {
		next := openapi3.NewObjectSchema().WithProperty("in", s)
		next.Required = []string{"in"}
		if i%3 == 0 {
			next = &openapi3.Schema{AllOf: openapi3.SchemaRefs{next.NewRef()}}
		}
		s = next
	}
	v, err := newSynth(0, -1, false).value(s.NewRef(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.VisitJSON(v); err != nil {
		t.Errorf("%v: %v", v, err)
	}
}

// A union of variants that only require properties declared beside it
// (OpenAI's file batch: anyOf [{required: [file_ids]}, {required:
// [files]}]) is an object of those properties, the variant's required.
func TestSynthRequiredOnlyVariants(t *testing.T) {
	ids := &openapi3.Schema{Type: &openapi3.Types{"array"}, MinItems: 1, Items: openapi3.NewStringSchema().NewRef()}
	s := openapi3.NewObjectSchema().WithProperty("file_ids", ids).WithProperty("files", ids)
	s.AdditionalProperties = openapi3.AdditionalProperties{Has: new(bool)}
	s.AnyOf = openapi3.SchemaRefs{{Value: &openapi3.Schema{Required: []string{"file_ids"}}}, {Value: &openapi3.Schema{Required: []string{"files"}}}}
	for variant := range 2 {
		g := newSynth(0, variant, true)
		g.minimal = true
		v, err := g.value(s.NewRef(), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.VisitJSON(v); err != nil {
			t.Errorf("variant %d: %v: %v", variant, v, err)
		}
	}
}

// An allOf of a union and a part that describes no object (OpenAI's
// tool_choice: allOf [oneOf [enum, object], {nullable: true}]) is the
// union's value, a string when the string variant is picked.
func TestSynthAllOfScalarUnion(t *testing.T) {
	named := openapi3.NewObjectSchema().WithProperty("type", openapi3.NewStringSchema())
	named.Required = []string{"type"}
	choice := &openapi3.Schema{OneOf: openapi3.SchemaRefs{{Value: &openapi3.Schema{Type: &openapi3.Types{"string"}, Enum: []any{"none", "auto"}}}, named.NewRef()}}
	s := &openapi3.Schema{AllOf: openapi3.SchemaRefs{choice.NewRef(), {Value: &openapi3.Schema{Nullable: true}}}}
	for seed := 0; seed < 4; seed++ {
		v, err := newSynth(seed, -1, false).value(s.NewRef(), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.VisitJSON(v); err != nil {
			t.Errorf("seed %d: %v: %v", seed, v, err)
		}
	}
}

// A pattern that admits the empty text gives a parameter a text that is
// not empty (Cloudflare's dataset_id, ^[a-zA-Z0-9_\-]*$, was sent as ""
// and the client refused the call); a body's property may be empty.
func TestSynthPatternNotEmptyInParams(t *testing.T) {
	s := &openapi3.Schema{Type: &openapi3.Types{"string"}, Pattern: `^[a-zA-Z0-9_\-]*$`}
	for _, at := range []valuePlace{inPath, inQuery, inHeader} {
		for seed := 0; seed < 4; seed++ {
			g := newSynth(seed, -1, true)
			g.place = at
			v, err := g.value(s.NewRef(), 0, 0)
			if err != nil || v == "" {
				t.Errorf("place %d seed %d: %q, %v", at, seed, v, err)
			}
		}
	}
}

// An allOf of a loose union and a typed part that is no object
// (Cloudflare's list result: allOf [anyOf [object, array, string],
// {type: array, items}]) is a value of the typed part.
func TestSynthAllOfTypedBesideUnion(t *testing.T) {
	loose := &openapi3.Schema{AnyOf: openapi3.SchemaRefs{openapi3.NewObjectSchema().NewRef(),
		{Value: &openapi3.Schema{Type: &openapi3.Types{"array"}, Items: &openapi3.SchemaRef{Value: &openapi3.Schema{}}}}, openapi3.NewStringSchema().NewRef()}}
	list := &openapi3.Schema{Type: &openapi3.Types{"array"}, Items: openapi3.NewObjectSchema().WithProperty("id", openapi3.NewStringSchema()).NewRef()}
	s := &openapi3.Schema{AllOf: openapi3.SchemaRefs{loose.NewRef(), list.NewRef()}}
	for seed := 0; seed < 4; seed++ {
		v, err := newSynth(seed, -1, false).value(s.NewRef(), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.VisitJSON(v); err != nil {
			t.Errorf("seed %d: %v: %v", seed, v, err)
		}
	}
}
