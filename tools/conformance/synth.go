package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
)

// Bounds that keep a hostile spec from making synthesis run away.
const (
	maxDepth     = 16   // nesting of values (objects, arrays, and the unions and allOfs between)
	maxNodes     = 2000 // values in one instance
	maxArray     = 4    // items beyond minItems are never added past this
	maxMinItems  = 16   // a larger minItems is not synthesized
	maxStringLen = 512  // a larger minLength is not synthesized
	maxRepeats   = 2    // times one schema may nest inside itself
)

// undeclared is the value of a required key that no property declares: a
// typed client has no field for it, so comparisons leave it out.
const undeclared = "undeclared-required-key"

// The one entry of a free-form object.
const fillerKey, fillerValue = "key", "value"

// errUnsynthesizable is the reason a value could not be made.
var errUnsynthesizable = errors.New("cannot synthesize")

// synth makes JSON instances (the values encoding/json decodes into any,
// numbers as float64) valid against kin-openapi schemas.
type synth struct {
	// seed varies the choices (which union variant, which enum value) so
	// that different calls of one operation cover different shapes.
	seed int
	// variant is the union variant to take at the top level (-1: by seed).
	variant int
	nodes   int
	stack   map[*openapi3.Schema]int
	// writing drops readOnly properties (a request), reading drops
	// writeOnly ones (a response).
	writing bool
	// minimal leaves out optional properties (so that a oneOf variant
	// matches only itself).
	minimal bool
	// place is where the value goes; its text must be one that place can
	// carry unambiguously (see strPool).
	place valuePlace
	// is31 reads nullable as 3.1 does: only a type list with "null" (3.0's
	// nullable: true is no keyword there).
	is31 bool
	// retries is how many values oneOf has made again (nested unions
	// would otherwise multiply them): at most maxRetries per instance.
	retries int
}

// maxRetries bounds the values oneOf makes again in one instance.
const maxRetries = 48

// valuePlace is where a synthesized value is sent: each place bounds which
// adversarial texts a correct client can carry so that the oracle reads
// them back unambiguously.
type valuePlace int

const (
	// inJSON is a JSON body (request or response): any text, empty
	// strings and explicit nulls included.
	inJSON valuePlace = iota
	// inForm is a form or multipart body: any text, empty strings for
	// properties; items of lists and objects carry no delimiter (a form
	// with explode false joins them with commas, which kin-openapi splits
	// after unescaping); no nulls (no form style writes one).
	inForm
	// inQuery, inPath, inHeader and inCookie are parameters: a scalar
	// string may hold any text but the empty one; the items and values of
	// lists and objects carry no delimiter of any style (kin-openapi
	// splits after unescaping, so an escaped comma inside an item would
	// still split it).
	inQuery
	inPath
	// inPathDelimited is a label or matrix path parameter: whose scalar
	// is written after "." or ";name=" too, so no text holds a delimiter.
	inPathDelimited
	// inHeader: HTTP field values, never a CTL and never leading or
	// trailing white space (HTTP strips it). Non-ASCII text goes as is:
	// OpenAPI's simple style does not percent-encode headers and RFC 9110
	// carries other octets as opaque obs-text, so a client must send the
	// UTF-8 bytes unchanged (and kin-openapi reads them so).
	inHeader
	inCookie
)

func newSynth(seed, variant int, writing bool) *synth {
	return &synth{seed: seed, variant: variant, stack: map[*openapi3.Schema]int{}, writing: writing}
}

// value synthesizes an instance of ref; depth 0 is the top level.
func (g *synth) value(ref *openapi3.SchemaRef, depth int, salt int) (any, error) {
	if ref == nil || ref.Value == nil {
		return "value", nil
	}
	s := ref.Value
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: nesting deeper than %d", errUnsynthesizable, maxDepth)
	}
	g.nodes++
	if g.nodes > maxNodes {
		return nil, fmt.Errorf("%w: more than %d values", errUnsynthesizable, maxNodes)
	}
	if g.stack[s] > maxRepeats {
		return nil, fmt.Errorf("%w: the schema is recursive without an end", errUnsynthesizable)
	}
	g.stack[s]++
	defer func() { g.stack[s]-- }()

	if s.Const != nil {
		return normalize(s.Const), nil
	}
	if len(s.Enum) > 0 {
		var vals []any
		for _, e := range s.Enum {
			if e != nil {
				vals = append(vals, normalize(e))
			}
		}
		if len(vals) > 0 {
			return vals[(g.seed+salt)%len(vals)], nil
		}
		return nil, nil // enum: [null], the one value
	}
	if len(s.AllOf) > 0 {
		return g.allOf(s, depth, salt)
	}
	if alts := unionOf(s); len(alts) > 0 {
		i := (g.seed + salt) % len(alts)
		if depth == 0 && g.variant >= 0 {
			i = g.variant % len(alts)
		}
		v, err := g.variantValue(s, alts[i], depth, salt)
		if err != nil || len(s.OneOf) < 2 || g.oneMatch(s, v) {
			return v, err
		}
		return g.oneOf(s, alts, i, v, depth, salt), nil
	}
	switch typeOf(s) {
	case "object":
		m := map[string]any{}
		if err := g.fillObject(s, m, depth, salt); err != nil {
			return nil, err
		}
		return m, nil
	case "array":
		return g.array(s, depth, salt)
	case "integer":
		return g.number(s, true, depth, salt)
	case "number":
		return g.number(s, false, depth, salt)
	case "boolean":
		return (g.seed+salt)%2 == 0, nil
	case "null":
		return nil, nil
	}
	return g.str(s, depth, salt)
}

// variantValue is a value of the union s's variant alt: with its
// discriminator tag, and the properties beside the union.
func (g *synth) variantValue(s *openapi3.Schema, alt *openapi3.SchemaRef, depth, salt int) (any, error) {
	if av := alt.Value; av != nil && len(s.Properties) > 0 && len(av.Properties) == 0 && len(av.Required) > 0 &&
		av.Type == nil && len(av.AllOf)+len(av.OneOf)+len(av.AnyOf) == 0 {
		// A variant that only requires some of the properties beside
		// the union (OpenAI's file batch: anyOf [{required: [file_ids]},
		// {required: [files]}]): those properties, required.
		cp := *s
		cp.OneOf, cp.AnyOf, cp.Discriminator = nil, nil, nil
		cp.Required = append(slices.Clone(s.Required), av.Required...)
		return g.value(&openapi3.SchemaRef{Value: &cp}, depth+1, salt)
	}
	v, err := g.value(alt, depth+1, salt)
	if err != nil {
		return nil, err
	}
	if m, ok := v.(map[string]any); ok && s.Discriminator != nil && s.Discriminator.PropertyName != "" {
		if tag := discriminatorValue(s.Discriminator, alt); tag != "" && admitsTag(alt, s.Discriminator.PropertyName, tag) {
			m[s.Discriminator.PropertyName] = tag
		}
	}
	// Properties beside oneOf apply to every variant.
	if m, ok := v.(map[string]any); ok && len(s.Properties) > 0 {
		if err := g.fillObject(s, m, depth, salt); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// admitsTag reports whether the variant alt admits tag as its property
// pn: a component's name is its implicit tag only where the variant does
// not constrain the property otherwise (OpenAI's ActiveStatus has type:
// enum [active], whose value the variant's own synthesis already is).
func admitsTag(alt *openapi3.SchemaRef, pn, tag string) bool {
	if alt == nil || alt.Value == nil {
		return true
	}
	for _, part := range flatParts(alt.Value) {
		if p := part.Properties[pn]; p != nil && p.Value != nil && p.Value.VisitJSON(tag) != nil {
			return false
		}
	}
	return true
}

// admits reports whether every schema of refs accepts v (kin-openapi's
// verdict).
func (g *synth) admits(refs []*openapi3.SchemaRef, v any) bool {
	for _, r := range refs {
		if r != nil && r.Value != nil && r.Value.VisitJSON(v, g.visitOpts()...) != nil {
			return false
		}
	}
	return true
}

func (g *synth) visitOpts() []openapi3.SchemaValidationOption {
	if g.writing {
		return []openapi3.SchemaValidationOption{openapi3.EnableFormatValidation(), openapi3.VisitAsRequest()}
	}
	return []openapi3.SchemaValidationOption{openapi3.EnableFormatValidation(), openapi3.VisitAsResponse()}
}

// oneMatch reports whether v is valid against exactly one of s's oneOf
// variants (kin-openapi's verdict).
func (g *synth) oneMatch(s *openapi3.Schema, v any) bool {
	opts := g.visitOpts()
	// No JSON Schema 2020 validator for 3.1 here: it compiles the schema
	// on each call (seconds on a large spec); the pre-check uses it on
	// the whole value.
	n := 0
	for _, alt := range s.OneOf {
		if alt != nil && alt.Value != nil && alt.Value.VisitJSON(v, opts...) == nil {
			n++
		}
	}
	return n == 1
}

// oneOf is a value of the oneOf s that only one variant admits, when
// first (of variant i) matches more: the same variant with other choices
// (other seeds; optional properties left out, or set; a string variant's
// own example, or its longest text), then the other variants so. When
// none is found, first (the pre-check then says why).
func (g *synth) oneOf(s *openapi3.Schema, alts openapi3.SchemaRefs, i int, first any, depth, salt int) any {
	minimal := g.minimal
	defer func() { g.minimal = minimal }()
	for k := range alts {
		alt := alts[(i+k)%len(alts)]
		for try := 0; try < 4; try++ {
			if g.retries++; g.retries > maxRetries {
				return first
			}
			g.minimal = minimal != (try%2 == 1)
			v, err := g.variantValue(s, alt, depth, salt+k+try*7)
			if err != nil {
				continue
			}
			if g.oneMatch(s, v) {
				return v
			}
		}
		if alt.Value == nil || typeOf(alt.Value) != "string" {
			continue
		}
		var texts []string
		if ex, ok := exampleString(alt.Value); ok {
			texts = append(texts, ex)
		}
		if ml := alt.Value.MaxLength; ml != nil && *ml <= maxStringLen && *ml > 0 {
			if v, err := g.str(alt.Value, depth+1, salt); err == nil {
				if text, ok := v.(string); ok {
					for uint64(len([]rune(text))) < *ml {
						text += "x"
					}
					texts = append(texts, text)
				}
			}
		}
		for _, text := range texts {
			if g.oneMatch(s, text) {
				return text
			}
		}
	}
	return first
}

// nullable reports whether s admits null: 3.0's nullable, a 3.1 type list
// with "null".
func nullable(s *openapi3.Schema, is31 bool) bool {
	return s.Nullable && !is31 || (s.Type != nil && s.Type.IsMultiple() && s.Type.Includes("null"))
}

// unionOf is a schema's oneOf or anyOf alternatives, without the ones
// that admit only null (a Go client sends an absent value, never null).
func unionOf(s *openapi3.Schema) openapi3.SchemaRefs {
	alts := s.OneOf
	if len(alts) == 0 {
		alts = s.AnyOf
	}
	var out openapi3.SchemaRefs
	for _, a := range alts {
		if a != nil && a.Value != nil && a.Value.Type != nil && a.Value.Type.Is("null") {
			continue
		}
		out = append(out, a)
	}
	return out
}

// allOf merges its parts: the properties and required keys of every
// object part are filled as one object (so that a part's required key is
// the value another part describes), union parts are synthesized apart and
// merged in.
func (g *synth) allOf(s *openapi3.Schema, depth, salt int) (any, error) {
	if conflictingNullable(s) {
		return nil, nil // parts of different types that all admit null: null is the one value all meet
	}
	merged := &openapi3.Schema{Properties: openapi3.Schemas{}, AdditionalProperties: s.AdditionalProperties}
	var unions []*openapi3.SchemaRef
	var scalars []*openapi3.Schema
	objectLike := typeOf(s) == "object" && (s.Type != nil || len(s.Properties) > 0)
	var collect func(x *openapi3.Schema, n int)
	collect = func(x *openapi3.Schema, n int) {
		if n > maxDepth {
			return
		}
		for k, v := range x.Properties {
			if prev, seen := merged.Properties[k]; seen && prev != v {
				// Both parts describe it: the value must meet both.
				merged.Properties[k] = &openapi3.SchemaRef{Value: &openapi3.Schema{AllOf: openapi3.SchemaRefs{prev, v}, Extensions: mergedMark}}
			} else {
				merged.Properties[k] = v
			}
		}
		merged.Required = append(merged.Required, x.Required...)
		if x.AdditionalProperties.Has != nil && !*x.AdditionalProperties.Has {
			merged.AdditionalProperties = x.AdditionalProperties
		}
		if x.AdditionalProperties.Schema != nil && merged.AdditionalProperties.Schema == nil && merged.AdditionalProperties.Has == nil {
			// A map part (allOf: [{additionalProperties: {...}}]): an
			// object whose values are that schema's.
			merged.AdditionalProperties = x.AdditionalProperties
		}
		if len(x.Properties) > 0 || len(x.Required) > 0 || (x.Type != nil && x.Type.Is("object")) || x.AdditionalProperties.Schema != nil {
			objectLike = true
		}
		for _, part := range x.AllOf {
			if part == nil || part.Value == nil {
				continue
			}
			switch pv := part.Value; {
			case len(unionOf(pv)) > 0:
				unions = append(unions, part)
				collect(&openapi3.Schema{Properties: pv.Properties, Required: pv.Required}, n+1)
			case len(pv.Enum) > 0 || pv.Const != nil || (!objectLike && typeOf(pv) != "object"):
				if len(pv.Properties) == 0 && len(pv.AllOf) == 0 {
					scalars = append(scalars, pv)
				} else {
					collect(pv, n+1)
				}
			default:
				collect(pv, n+1)
			}
		}
	}
	collect(s, 0)
	if !objectLike {
		if arr := mergedArray(s); arr != nil {
			return g.value(&openapi3.SchemaRef{Value: arr}, depth+1, salt)
		}
	}
	if !objectLike && len(scalars) > 0 {
		// The parts' constraints together, with the whole's
		// (type: integer, allOf: [{minimum: 0}] is an integer;
		// allOf: [{type: number}, {enum: [400]}] is 400); beside a union
		// (Cloudflare's result: allOf [anyOf [object, array, string],
		// {type: array}]), when the union admits it.
		cp := *scalars[0]
		for _, x := range append(scalars[1:], s) {
			meet(&cp, x)
		}
		cp.AllOf = nil
		v, err := g.value(&openapi3.SchemaRef{Value: &cp}, depth+1, salt)
		// Only typed parts say what the value is: an empty part ({},
		// items that allow anything) beside a union of typeless objects
		// would give a string the union admits but no typed client reads
		// as a variant (testdata/artifacts.yaml's TunnelList).
		typed := cp.Type != nil && len(cp.Type.Slice()) > 0
		if len(unions) == 0 || (err == nil && typed && g.admits(unions, v)) {
			return v, err
		}
	}
	if !objectLike && len(unions) == 0 {
		return g.str(s, depth, salt)
	}
	m := map[string]any{}
	unionObject := false
	for _, u := range unions {
		v, err := g.value(u, depth+1, salt)
		if err != nil {
			return nil, err
		}
		if _, obj := v.(map[string]any); !obj && !objectLike && len(unions) == 1 && len(merged.Properties) == 0 {
			// One union beside parts that describe no object (OpenAI's
			// tool_choice: allOf [oneOf [enum, object], {nullable:
			// true}]): its value, a scalar one included, is the value.
			return v, nil
		}
		if vm, ok := v.(map[string]any); ok {
			if len(vm) == 1 && vm[fillerKey] == fillerValue && len(unions) > 1 {
				// A free-form variant ({type: object}) beside unions that
				// describe the object: its filler would be a key no variant
				// holds (and steer the client to the wrong one).
				continue
			}
			unionObject = true
			for k, x := range vm {
				m[k] = x
			}
		}
	}
	if len(merged.Properties) > 0 && merged.Properties[fillerKey] == nil && m[fillerKey] == fillerValue {
		// A free-form part beside declared properties: the filler would be
		// a key no typed field holds.
		delete(m, fillerKey)
	}
	if err := g.fillObject(merged, m, depth, salt); err != nil {
		return nil, err
	}
	if unionObject && len(m) == 1 && m[fillerKey] == fillerValue {
		// A variant's object with nothing set: no filler beside it either.
		delete(m, fillerKey)
	}
	return m, nil
}

// conflictingNullable reports whether s's allOf parts (and s) declare
// different types and each admits null.
func conflictingNullable(s *openapi3.Schema) bool {
	types := map[string]bool{}
	for _, x := range append([]*openapi3.Schema{s}, partsOf(s.AllOf)...) {
		if x.Type == nil || len(x.Type.Slice()) == 0 {
			continue
		}
		if !x.Nullable && !x.Type.Includes("null") {
			return false
		}
		for _, t := range x.Type.Slice() {
			if t != "null" {
				types[t] = true
			}
		}
	}
	return len(types) > 1
}

func partsOf(refs openapi3.SchemaRefs) []*openapi3.Schema {
	var out []*openapi3.Schema
	for _, r := range refs {
		if r != nil && r.Value != nil {
			out = append(out, r.Value)
		}
	}
	return out
}

// meet narrows the scalar schema cp by x's type, format, enum, const,
// bounds, pattern and lengths (the tighter of the two).
func meet(cp, x *openapi3.Schema) {
	if cp.Type == nil {
		cp.Type = x.Type
	}
	if cp.Format == "" {
		cp.Format = x.Format
	}
	if len(x.Enum) > 0 && len(cp.Enum) == 0 {
		cp.Enum = x.Enum
	}
	if x.Const != nil && cp.Const == nil {
		cp.Const = x.Const
	}
	if x.Min != nil && (cp.Min == nil || *x.Min > *cp.Min) {
		cp.Min, cp.ExclusiveMin = x.Min, x.ExclusiveMin
	}
	if x.Max != nil && (cp.Max == nil || *x.Max < *cp.Max) {
		cp.Max, cp.ExclusiveMax = x.Max, x.ExclusiveMax
	}
	if cp.MultipleOf == nil {
		cp.MultipleOf = x.MultipleOf
	}
	if cp.Pattern == "" {
		cp.Pattern = x.Pattern
	}
	if x.MinLength > cp.MinLength {
		cp.MinLength = x.MinLength
	}
	if x.MaxLength != nil && (cp.MaxLength == nil || *x.MaxLength < *cp.MaxLength) {
		cp.MaxLength = x.MaxLength
	}
	switch {
	case cp.Items == nil:
		cp.Items = x.Items
	case x.Items != nil && x.Items != cp.Items:
		cp.Items = &openapi3.SchemaRef{Value: &openapi3.Schema{AllOf: openapi3.SchemaRefs{cp.Items, x.Items}}}
	}
	if x.Nullable != cp.Nullable {
		cp.Nullable = false // null only where every part admits it
	}
}

// mergedArray is the one array the array parts of an allOf (nested
// allOfs included) describe together, their items' schemas all applying to
// each item; nil unless one part is of type array and two or more parts
// describe arrays. A part {type: array, items: {}} beside one whose items
// are objects must not make the items strings (nor a union beside them
// make the value an object).
func mergedArray(s *openapi3.Schema) *openapi3.Schema {
	var arrays []*openapi3.Schema
	typed := false
	var walk func(x *openapi3.Schema, n int)
	walk = func(x *openapi3.Schema, n int) {
		if n > maxDepth {
			return
		}
		for _, part := range x.AllOf {
			if part == nil || part.Value == nil {
				continue
			}
			pv := part.Value
			switch {
			case len(pv.AllOf) > 0:
				walk(pv, n+1)
			case pv.Type.Is("array"):
				typed = true
				arrays = append(arrays, pv)
			case pv.Type == nil && pv.Items != nil:
				arrays = append(arrays, pv)
			}
		}
	}
	walk(s, 0)
	if !typed || len(arrays) < 2 {
		return nil
	}
	merged := *arrays[0]
	merged.Type = &openapi3.Types{"array"}
	items := &openapi3.Schema{}
	for _, a := range arrays {
		if a.Items != nil {
			items.AllOf = append(items.AllOf, a.Items)
		}
		merged.MinItems = max(merged.MinItems, a.MinItems)
		if a.MaxItems != nil && (merged.MaxItems == nil || *a.MaxItems < *merged.MaxItems) {
			merged.MaxItems = a.MaxItems
		}
	}
	merged.Items = &openapi3.SchemaRef{Value: items}
	return &merged
}

// fillObject adds s's properties to m: all of them near the top, only the
// required ones deeper down or inside a recursion.
func (g *synth) fillObject(s *openapi3.Schema, m map[string]any, depth, salt int) error {
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	shallow := depth < 5 && g.stack[s] <= 1 && !g.minimal
	for i, n := range names {
		p := s.Properties[n]
		if p == nil || p.Value == nil {
			continue
		}
		if hidden(p, g.writing, 0) {
			// Never sent (kin-openapi refuses a readOnly property in a
			// request, a writeOnly one in a response), required or not:
			// a required one is not required there.
			continue
		}
		if !required[n] && !shallow {
			continue
		}
		if _, set := m[n]; set {
			continue
		}
		if g.place == inJSON && nullable(p.Value, g.is31) && !g.minimal && (g.seed+salt+i)%3 == 1 {
			// An explicit null, where the schema admits one: the client
			// must send it (and keep it when it reads it), not drop it.
			m[n] = nil
			continue
		}
		v, err := g.value(p, depth+1, salt+i+1)
		if err != nil {
			if required[n] {
				return err
			}
			continue
		}
		m[n] = v
	}
	// minProperties counts optional properties too: take them in order.
	for _, n := range names {
		if uint64(len(m)) >= s.MinProps {
			break
		}
		p := s.Properties[n]
		if _, set := m[n]; set || p == nil || p.Value == nil || hidden(p, g.writing, 0) {
			continue
		}
		if v, err := g.value(p, depth+1, salt+1); err == nil {
			m[n] = v
		}
	}
	for _, r := range s.Required {
		if p := s.Properties[r]; p != nil && hidden(p, g.writing, 0) {
			continue
		}
		if _, set := m[r]; !set {
			// A required key no property describes: any value will do,
			// and no client can be asked to keep it (see undeclared).
			m[r] = undeclared
		}
	}
	if ap := s.AdditionalProperties.Schema; ap != nil && len(s.Properties) == 0 && shallow {
		for i, k := range []string{"alpha", "bravo"} {
			v, err := g.value(ap, depth+1, salt+i)
			if err != nil {
				break
			}
			m[k] = v
		}
	}
	if len(m) == 0 && len(s.Properties) == 0 && (s.AdditionalProperties.Has == nil || *s.AdditionalProperties.Has) && s.AdditionalProperties.Schema == nil {
		m[fillerKey] = fillerValue
	}
	return nil
}

// mergedMark marks the schema allOf makes of a property two parts
// declare (an allOf of their two schemas).
var mergedMark = map[string]any{"x-conformance-merged": true}

// hidden reports whether a property is readOnly in a request (writing)
// or writeOnly in a response: by its own schema, as kin-openapi reads it
// (a readOnly inside the property's own allOf does not count), or, for
// a property two allOf parts declare, by either part's.
func hidden(p *openapi3.SchemaRef, writing bool, depth int) bool {
	if p == nil || p.Value == nil || depth > maxDepth {
		return false
	}
	if (writing && p.Value.ReadOnly) || (!writing && p.Value.WriteOnly) {
		return true
	}
	if p.Value.Extensions["x-conformance-merged"] == nil {
		return false
	}
	for _, part := range p.Value.AllOf {
		if hidden(part, writing, depth+1) {
			return true
		}
	}
	return false
}

func (g *synth) array(s *openapi3.Schema, depth, salt int) (any, error) {
	if s.MinItems > maxMinItems {
		return nil, fmt.Errorf("%w: minItems %d", errUnsynthesizable, s.MinItems)
	}
	n := max(int(s.MinItems), 2)
	if depth > 3 {
		n = max(int(s.MinItems), 1)
	}
	n = min(n, max(maxArray, int(s.MinItems)))
	if s.MaxItems != nil && uint64(n) > *s.MaxItems {
		n = int(*s.MaxItems)
	}
	out := make([]any, 0, n)
	var keys []string
	for i := 0; len(out) < n && i < n+4; i++ {
		v, err := g.value(s.Items, depth+1, salt+i)
		if err != nil {
			return nil, err
		}
		// Items differ so that a style's separators can be told apart.
		k := canonical(v)
		if containsString(keys, k) {
			continue
		}
		keys = append(keys, k)
		out = append(out, v)
	}
	if uint64(len(out)) < s.MinItems {
		return nil, fmt.Errorf("%w: not enough distinct items", errUnsynthesizable)
	}
	return out, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Numbers to try, in turn by seed and salt: each one a careless client
// gets wrong, so that whichever a value's seed and salt pick shows the
// bug: values above 2^53 (a float64 loses them), the int64 extremes,
// magnitudes past a million (strconv's 'g' format writes 1e+06; a float32
// keeps 7 digits), fractions (an integer truncates them), a tiny one
// ('g' writes 1.2345e-05). A float's values are ones a float32 holds
// exactly and writes as they are (its field is one: encoding/json writes
// a float32's shortest text, so -2097151.25 would go as -2097151.2). A schema's bounds that admit none of them
// get a small value (number's fallback).
var (
	int32Values  = []string{"2147483647", "-2147483648", "1234567", "-7654321"}
	int64Values  = []string{"9007199254740993", "-9223372036854775808", "9223372036854775807", "-9007199254740993", "1234567890123456789"}
	uint32Values = []string{"4294967295", "3000000000", "1234567"}
	uint64Values = []string{"18446744073709551615", "9007199254740993", "12345678901234567890"}
	floatValues  = []string{"1234567.5", "-1048575.5", "3000000.5"}
	doubleValues = []string{"1234567.891", "-1234567.25", "1e+21", "9876543.21", "0.000012345"}
)

// exactFloat is the largest magnitude below which every integer is a
// float64; an integer at or past it is synthesized as a json.Number.
const exactFloat = 1 << 53

func (g *synth) number(s *openapi3.Schema, integer bool, depth, salt int) (any, error) {
	lo, hi := math.Inf(-1), math.Inf(1)
	if s.Min != nil {
		lo = *s.Min
		if s.ExclusiveMin.IsTrue() {
			lo = nextAbove(lo, integer)
		}
	}
	if v := s.ExclusiveMin.Value; v != nil {
		lo = math.Max(lo, nextAbove(*v, integer))
	}
	if s.Max != nil {
		hi = *s.Max
		if s.ExclusiveMax.IsTrue() {
			hi = nextBelow(hi, integer)
		}
	}
	if v := s.ExclusiveMax.Value; v != nil {
		hi = math.Min(hi, nextBelow(*v, integer))
	}
	if s.Format == "int32" || s.Format == "int64" || s.Format == "uint" || s.Format == "uint32" || s.Format == "uint64" {
		integer = true
	}
	var pool []string
	switch {
	case s.Format == "int32":
		pool = int32Values
	case s.Format == "uint32" || s.Format == "uint":
		pool = uint32Values
	case s.Format == "uint64":
		pool = uint64Values
	case integer:
		pool = int64Values
	case s.Format == "float":
		pool = floatValues // float32 holds each exactly
	default:
		pool = doubleValues
	}
	// The adversarial values go in every place but a composite
	// parameter's items (where one item a style mangles would hide the
	// others), integers aside: they hold no delimiter of any style, and
	// a lost digit of an item or property is what a float64 does to
	// them. Not in a label or matrix parameter's items, though: the
	// harness's value check cannot pin an integer past 2^53 (kin reads
	// it as a float64), and only that check reads those styles back (the
	// others' items checkText reads exactly). Each is tried from the
	// seed's own on.
	if (depth == 0 || integer && g.place != inPathDelimited || g.place == inJSON || g.place == inForm) && (g.place != inPathDelimited || integer) {
		start := g.seed + salt
		for k := range pool {
			text := pool[(start+k)%len(pool)]
			if v, ok := fitNumber(text, integer, lo, hi, s.MultipleOf); ok {
				return v, nil
			}
		}
	}
	// A value that is not zero (omitempty would drop it) and differs by salt.
	want := float64(3 + (g.seed+salt)%5)
	if !integer && g.place != inPathDelimited { // a label's "." would split a fraction
		want += 0.5
	}
	v := math.Min(math.Max(want, lo), hi)
	if integer {
		v = math.Ceil(v)
	}
	if m := s.MultipleOf; m != nil && *m > 0 {
		v = math.Ceil(v / *m) * *m
		if v > hi {
			v = math.Floor(hi / *m) * *m
		}
	}
	if v < lo || v > hi || math.IsInf(v, 0) || math.IsNaN(v) {
		return nil, fmt.Errorf("%w: no number in [%v, %v]", errUnsynthesizable, lo, hi)
	}
	return v, nil
}

// fitNumber is text as a value when it lies in [lo, hi] and is a multiple
// of multipleOf: a float64, or for an integer a float64 cannot hold, a
// json.Number.
func fitNumber(text string, integer bool, lo, hi float64, multipleOf *float64) (any, bool) {
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		return nil, false
	}
	f, _ := r.Float64()
	if f < lo || f > hi {
		return nil, false
	}
	if !math.IsInf(lo, 0) && new(big.Rat).SetFloat64(lo).Cmp(r) > 0 {
		return nil, false
	}
	if !math.IsInf(hi, 0) && new(big.Rat).SetFloat64(hi).Cmp(r) < 0 {
		return nil, false
	}
	if m := multipleOf; m != nil && *m > 0 {
		q := new(big.Rat).Quo(r, new(big.Rat).SetFloat64(*m))
		if !q.IsInt() {
			return nil, false
		}
	}
	if integer && math.Abs(f) >= exactFloat {
		return json.Number(text), true
	}
	return f, true
}

func nextAbove(v float64, integer bool) float64 {
	if integer {
		return math.Floor(v) + 1
	}
	return v + math.Max(math.Abs(v)*1e-9, 0.25)
}

func nextBelow(v float64, integer bool) float64 {
	if integer {
		return math.Ceil(v) - 1
	}
	return v - math.Max(math.Abs(v)*1e-9, 0.25)
}

// formats are valid values of the formats kin-openapi and resgen know: the
// first of each is the adversarial one (an offset and a fraction, a "+"
// that a query must escape, a URL's own reserved characters).
var formats = map[string][]string{
	"date-time": {"2026-01-02T03:04:05.123+05:30", "2024-02-03T04:05:06Z", "2023-11-12T13:14:15.5-07:00"},
	"date":      {"2024-02-03", "2023-11-12"},
	"time":      {"04:05:06", "13:14:15"},
	"uuid":      {"3fa85f64-5717-4562-b3fc-2c963f66afa6", "9b2c3d4e-1f2a-4b3c-8d4e-5f6a7b8c9d0e"},
	"email":     {"alice+tag@example.com", "bob@example.org"},
	"uri":       {"https://example.com/a%20b?c=d&e=f+g#h", "https://example.org/bravo"},
	"url":       {"https://example.com/a%20b?c=d&e=f+g#h", "https://example.org/bravo"},
	"hostname":  {"alpha.example.com", "bravo.example.org"},
	"ipv4":      {"192.0.2.1", "198.51.100.2"},
	"ipv6":      {"2001:db8::1", "2001:db8::2"},
	"byte":      {"aGVsbG8=", "d29ybGQ="},
	"binary":    {"file-content-alpha", "file-content-bravo"},
	"duration":  {"P1D", "PT2H"},
	"password":  {"secret-alpha", "secret-bravo"},
}

var words = []string{"alpha", "bravo", "charlie", "delta", "echo"}

// adversarial are texts a client must escape (or carry as is) to send
// right: the reserved characters of URLs, forms and cookies, a literal
// "%20", quotes and angle brackets, non-ASCII letters, CJK, an emoji.
var adversarial = []string{
	"a/b?c#d&e=f+g,h;i j%20k",
	`say "hi", it's <ok>`,
	"café é",
	"日本語",
	"emoji 😀 ok",
	"100% = 1+1 & more",
}

// plainAdversarial are the texts that hold no delimiter of any parameter
// style or form (, ; . = | space [ ]): the items and values of composite
// parameters and form lists, and label and matrix path parameters.
var plainAdversarial = []string{
	"a/b?c#d&e+f",
	"café",
	"日本語",
	`"quoted"`,
	"😀",
	"100%",
}

// pathAdversarial are plainAdversarial for the items and values of path
// parameters, whose styles (simple, label, matrix) do not split on a
// space: each holds one, which a path writes %20 and a form +.
var pathAdversarial = []string{"a b/c?d#e&f+g", "café au lait", "日本 語", `"quoted" x`, "😀 ok", "100 %"}

// strPool is the strings to pick from for a plain string at depth in the
// place: adversarial and tame ones alternate (adversarial first, so that
// an operation called once meets one), with the empty string where the
// place carries it as itself.
func (g *synth) strPool(depth int) []string {
	adv := adversarial
	composite := (depth > 0 && g.place != inJSON && g.place != inForm) || (depth > 1 && g.place == inForm)
	if composite || g.place == inPathDelimited {
		adv = plainAdversarial
		if g.place == inPath || g.place == inPathDelimited {
			adv = pathAdversarial
		}
	}
	out := make([]string, 0, 2*len(adv)+2)
	for i, a := range adv {
		out = append(out, a, words[i%len(words)])
	}
	// An empty string is a value of its own in a body's property; a
	// parameter's would mean no value (allowEmptyValue), a top-level
	// body's no body.
	if depth > 0 && (g.place == inJSON || g.place == inForm && !composite) {
		out = append(out, "")
	}
	return out
}

func (g *synth) str(s *openapi3.Schema, depth, salt int) (any, error) {
	i := g.seed + salt
	if s.Pattern != "" {
		// An empty text is no parameter value, and no top-level body.
		nonEmpty := depth == 0 || (g.place != inJSON && g.place != inForm)
		if v, ok := fromPattern(s.Pattern, s, i, nonEmpty); ok {
			return v, nil
		}
		if v, ok := exampleString(s); ok {
			return v, nil
		}
		return nil, fmt.Errorf("%w: pattern %q", errUnsynthesizable, s.Pattern)
	}
	if vals, ok := formats[s.Format]; ok {
		return fitLength(vals[i%len(vals)], s)
	}
	if v, ok := exampleString(s); ok && s.Format != "" {
		return v, nil
	}
	// The seed's own text, else the next one that fits without being cut
	// (a cut could end in a space, which a header cannot carry).
	pool := g.strPool(depth)
	for k := range pool {
		v := pool[(i+k)%len(pool)]
		n := uint64(len([]rune(v)))
		if n < s.MinLength && v == "" || s.MaxLength != nil && n > *s.MaxLength {
			continue
		}
		return fitLength(v, s)
	}
	return fitLength(words[i%len(words)], s)
}

func fitLength(v string, s *openapi3.Schema) (any, error) {
	if s.MinLength > maxStringLen {
		return nil, fmt.Errorf("%w: minLength %d", errUnsynthesizable, s.MinLength)
	}
	for uint64(len([]rune(v))) < s.MinLength {
		v += "x"
	}
	if s.MaxLength != nil && uint64(len([]rune(v))) > *s.MaxLength {
		v = string([]rune(v)[:*s.MaxLength])
	}
	return v, nil
}

// exampleString is the schema's own string example, when it has a valid one.
func exampleString(s *openapi3.Schema) (string, bool) {
	cands := append([]any{s.Example}, s.Examples...)
	for _, c := range cands {
		if str, ok := c.(string); ok && s.VisitJSON(str) == nil {
			return str, true
		}
	}
	return "", false
}

// fromPattern generates a string matching pattern (Go syntax, as kin-openapi
// compiles it) that also meets the schema's length bounds.
func fromPattern(pattern string, s *openapi3.Schema, seed int, nonEmpty bool) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	compiled, err := regexp.Compile(pattern)
	if err != nil {
		return "", false
	}
	for _, pad := range []int{0, 1, 4, 16} {
		var b strings.Builder
		budget := 600
		gen(&b, re.Simplify(), seed, pad, &budget)
		v := b.String()
		if budget < 0 || !compiled.MatchString(v) {
			continue
		}
		n := uint64(len([]rune(v)))
		if n < s.MinLength || (s.MaxLength != nil && n > *s.MaxLength) || (nonEmpty && v == "") {
			continue
		}
		return v, true
	}
	return "", false
}

// gen writes one string re matches; pad is how many extra times an
// unbounded repetition runs (to reach a minLength).
func gen(b *strings.Builder, re *syntax.Regexp, seed, pad int, budget *int) {
	*budget--
	if *budget < 0 {
		return
	}
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 {
				r = unicode.ToLower(r)
			}
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		b.WriteRune(pickRune(re.Rune, seed))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteRune('a')
	case syntax.OpCapture:
		gen(b, re.Sub[0], seed, pad, budget)
	case syntax.OpConcat:
		for i, sub := range re.Sub {
			gen(b, sub, seed+i, pad, budget)
		}
	case syntax.OpAlternate:
		gen(b, re.Sub[0], seed, pad, budget)
	case syntax.OpStar:
		for i := 0; i < pad; i++ {
			gen(b, re.Sub[0], seed+i, pad, budget)
		}
	case syntax.OpPlus:
		for i := 0; i < 1+pad; i++ {
			gen(b, re.Sub[0], seed+i, pad, budget)
		}
	case syntax.OpQuest:
		if pad > 0 {
			gen(b, re.Sub[0], seed, pad, budget)
		}
	case syntax.OpRepeat:
		n := re.Min
		if re.Max == -1 || re.Max > n {
			n += pad
			if re.Max != -1 {
				n = min(n, re.Max)
			}
		}
		for i := 0; i < n && *budget >= 0; i++ {
			gen(b, re.Sub[0], seed+i, pad, budget)
		}
	}
}

// pickRune takes a letter or digit from a class's ranges when it can.
func pickRune(ranges []rune, seed int) rune {
	var good []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r-ranges[i] < 64; r++ {
			if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
				good = append(good, r)
			}
		}
	}
	if len(good) > 0 {
		return good[seed%len(good)]
	}
	if len(ranges) > 0 {
		return ranges[0]
	}
	return 'a'
}

// typeOf is the one JSON type a value of s is made as.
func typeOf(s *openapi3.Schema) string {
	if s.Type != nil {
		for _, t := range s.Type.Slice() {
			if t != "null" {
				return t
			}
		}
		if s.Type.Is("null") {
			return "null"
		}
	}
	switch {
	case len(s.Properties) > 0 || s.AdditionalProperties.Schema != nil || s.AdditionalProperties.Has != nil ||
		len(s.Required) > 0 || s.MinProps > 0 || s.MaxProps != nil || s.PropertyNames != nil:
		// A typeless schema with object keywords: a client types it as an
		// object (a string would be valid, and decode into no struct).
		return "object"
	case s.Items != nil:
		return "array"
	case s.Min != nil || s.Max != nil || s.MultipleOf != nil:
		return "number"
	}
	return "string"
}

// discriminatorValue is the tag that selects alt: its mapping key, else
// the name of the component it refers to.
func discriminatorValue(d *openapi3.Discriminator, alt *openapi3.SchemaRef) string {
	keys := make([]string, 0, len(d.Mapping))
	for k := range d.Mapping {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if ref := d.Mapping[k].Ref; ref != "" && (ref == alt.Ref || strings.HasSuffix(alt.Ref, ref) || strings.HasSuffix(ref, "/"+refName(alt.Ref))) {
			return k
		}
	}
	if alt.Ref != "" {
		return refName(alt.Ref)
	}
	return ""
}

func refName(ref string) string {
	return ref[strings.LastIndex(ref, "/")+1:]
}

// normalize turns a YAML- or JSON-decoded value into encoding/json's
// shapes (numbers as float64).
func normalize(v any) any { return jsonShapes(v, true) }

// jsonShapes gives maps string keys and, with floats, numbers float64
// (without, integers stay exact: a spec re-encoded for kin-openapi keeps
// its bounds).
func jsonShapes(v any, floats bool) any {
	switch x := v.(type) {
	case int:
		if floats {
			return float64(x)
		}
	case int64:
		if floats {
			return float64(x)
		}
	case uint64:
		if floats {
			return float64(x)
		}
	case float32:
		return float64(x)
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = jsonShapes(e, floats)
		}
		return m
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = jsonShapes(e, floats)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonShapes(e, floats)
		}
		return out
	}
	return v
}

// flatParts are s and its allOf parts, nested allOfs included: the
// schemas that all apply to one value (bounded: composition can be cyclic).
func flatParts(s *openapi3.Schema) []*openapi3.Schema {
	return composedParts(s, false)
}

// jsonTypes are the JSON types a schema admits by its type keyword and
// nullable (nil: any; 3.1 reads only a type list's "null").
func jsonTypes(s *openapi3.Schema, is31 bool) map[string]bool {
	if s.Type == nil || len(s.Type.Slice()) == 0 {
		return nil
	}
	out := map[string]bool{}
	for _, t := range s.Type.Slice() {
		out[t] = true
	}
	if s.Nullable && !is31 {
		out["null"] = true
	}
	return out
}

// commonTypes are the JSON types every part admits (nil: any); an
// integer meets a number.
func commonTypes(parts []*openapi3.Schema, is31 bool) map[string]bool {
	var common map[string]bool
	for _, p := range parts {
		ts := jsonTypes(p, is31)
		if ts == nil {
			continue
		}
		if common == nil {
			common = ts
			continue
		}
		next := map[string]bool{}
		for t := range common {
			switch {
			case ts[t]:
				next[t] = true
			case t == "integer" && ts["number"], t == "number" && ts["integer"]:
				next["integer"] = true
			}
		}
		common = next
	}
	return common
}

// noValueMeets says why no JSON value is valid against every one of parts
// (the schemas allOf applies to one value), "" when it cannot tell: the
// enumerated values of one part that every part admits (by kin-openapi's
// own verdict) are none, or the parts admit no common type.
func noValueMeets(parts []*openapi3.Schema, is31 bool) string {
	var opts []openapi3.SchemaValidationOption
	if is31 {
		opts = append(opts, openapi3.EnableJSONSchema2020())
	}
	for _, p := range parts {
		var cands []any
		switch {
		case p.Const != nil:
			cands = []any{normalize(p.Const)}
		case len(p.Enum) > 0:
			for _, e := range p.Enum {
				cands = append(cands, normalize(e))
			}
		default:
			continue
		}
		for _, c := range cands {
			ok := true
			for _, q := range parts {
				if q.VisitJSON(c, opts...) != nil {
					ok = false
					break
				}
			}
			if ok {
				return ""
			}
		}
		return fmt.Sprintf("none of the values %s enumerates meets every allOf part", canonical(cands))
	}
	if ts := commonTypes(parts, is31); ts != nil && len(ts) == 0 {
		var each []string
		for _, p := range parts {
			if t := jsonTypes(p, is31); t != nil {
				names := make([]string, 0, len(t))
				for n := range t {
					names = append(names, n)
				}
				sort.Strings(names)
				each = append(each, strings.Join(names, "|"))
			}
		}
		return "the allOf parts admit no common type (" + strings.Join(each, " and ") + ")"
	}
	return ""
}

// unmeetable finds the place in a value of ref that no value meets: the
// value itself or a property required along the way (through allOf parts)
// whose parts admit no common value (noValueMeets). A readOnly property
// in a request, a writeOnly one in a response, is never required. ptr is
// its JSON pointer; why is "" when there is none (then the schema may
// still be hard to synthesize, but not by contradiction).
func unmeetable(ref *openapi3.SchemaRef, writing, is31 bool) (ptr, why string) {
	if ref == nil || ref.Value == nil {
		return "", ""
	}
	var walk func(parts []*openapi3.Schema, ptr string, depth int) (string, string)
	walk = func(parts []*openapi3.Schema, ptr string, depth int) (string, string) {
		if depth > maxDepth {
			return "", ""
		}
		var all []*openapi3.Schema
		for _, p := range parts {
			all = append(all, flatParts(p)...)
		}
		if why := noValueMeets(all, is31); why != "" {
			return ptr, why
		}
		for _, p := range all {
			if alikeVariants(p.OneOf) {
				return ptr, fmt.Sprintf("its %d oneOf variants are alike (each has a twin): no value matches exactly one", len(p.OneOf))
			}
			if openVariants(p.OneOf) {
				return ptr, fmt.Sprintf("its %d oneOf variants are open objects that require nothing: a value of one variant's keys matches every variant", len(p.OneOf))
			}
		}
		required := map[string]bool{}
		for _, p := range all {
			for _, r := range p.Required {
				required[r] = true
			}
		}
		names := make([]string, 0, len(required))
		for n := range required {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			var props []*openapi3.Schema
			skip := false
			for _, p := range all {
				if r := p.Properties[n]; r != nil && r.Value != nil {
					if hidden(r, writing, 0) {
						skip = true
					}
					props = append(props, r.Value)
				}
			}
			if skip || len(props) == 0 {
				continue
			}
			if at, why := walk(props, ptr+"/"+escapePointer(n), depth+1); why != "" {
				return at, why
			}
		}
		return "", ""
	}
	return walk([]*openapi3.Schema{ref.Value}, "", 0)
}

// alikeVariants reports whether a oneOf's variants (two or more) each
// have a twin: one that differs only in annotations (description, title,
// examples), so any value one admits matches two.
func alikeVariants(alts openapi3.SchemaRefs) bool {
	if len(alts) < 2 || len(alts) > 16 {
		return false
	}
	keys := make([]string, len(alts))
	for i, a := range alts {
		if a == nil || a.Value == nil {
			return false
		}
		data, err := json.Marshal(a.Value)
		if err != nil {
			return false
		}
		var v any
		if json.Unmarshal(data, &v) != nil {
			return false
		}
		keys[i] = canonical(withoutAnnotations(v, 0))
	}
	for i, k := range keys {
		twin := false
		for j, o := range keys {
			if i != j && k == o {
				twin = true
				break
			}
		}
		if !twin {
			return false
		}
	}
	return true
}

// withoutAnnotations is a schema's JSON without the keywords that do not
// constrain a value.
func withoutAnnotations(v any, depth int) any {
	if depth > 64 {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			switch k {
			case "description", "title", "example", "examples", "externalDocs", "deprecated", "xml":
				continue
			}
			if strings.HasPrefix(k, "x-") {
				continue
			}
			if f, ok := e.(string); ok && k == "format" && !knownFormat(f) {
				continue // a format no validator knows constrains nothing
			}
			out[k] = withoutAnnotations(e, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutAnnotations(e, depth+1)
		}
		return out
	}
	return v
}

// knownFormat reports whether a validator of the harness's (kin-openapi's
// own formats, JSON Schema's) checks format f.
func knownFormat(f string) bool {
	if _, ok := openapi3.SchemaStringFormats[f]; ok {
		return true
	}
	switch f {
	case "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6",
		"uri", "uri-reference", "iri", "iri-reference", "uri-template", "uuid", "json-pointer", "relative-json-pointer",
		"regex", "byte", "int32", "int64", "float", "double":
		return true
	}
	return false
}

// openVariants reports whether a oneOf's variants (two or more) are all
// objects that require no key, admit any other key and declare no key
// another declares (Okta's AppUserUpdateRequest: oneOf [{credentials},
// {profile}]): a value made of one variant's keys matches every variant,
// so none a typed client writes matches exactly one.
func openVariants(alts openapi3.SchemaRefs) bool {
	if len(alts) < 2 {
		return false
	}
	declared := map[string]bool{}
	for _, a := range alts {
		if a == nil || a.Value == nil {
			return false
		}
		v := a.Value
		if !v.Type.Is("object") || len(v.Required) > 0 || len(v.Properties) == 0 || v.AdditionalProperties.Has != nil ||
			v.AdditionalProperties.Schema != nil || v.MinProps > 0 || v.MaxProps != nil || v.PropertyNames != nil ||
			len(v.AllOf)+len(v.OneOf)+len(v.AnyOf) > 0 || v.Not != nil || len(v.Enum) > 0 || v.Const != nil || v.Nullable {
			return false
		}
		for k := range v.Properties {
			if declared[k] {
				return false
			}
			declared[k] = true
		}
	}
	return true
}
