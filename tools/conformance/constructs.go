package conformance

import (
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// constructs are the checked-in exceptions: each a construct kin-openapi
// (v0.153.0) judges wrongly, or a spec contradicting itself. Each At looks
// at the oracle's document at the failure's own place; each has a
// minimal spec in testdata/kin and a test that asserts kin-openapi's wrong
// verdict on it (kin_limits_test.go), which fails once kin-openapi is
// fixed.
var constructs = []Exception{
	{
		Construct: "kin: form property of a shape kin's form decoder refuses",
		Kinds:     []string{"request", "body"},
		Says:      regexp.MustCompile(`unsupported schema of request body's property "`),
		At:        atRefusedFormProperty,
		Reason: "openapi3filter's UrlencodedBodyDecoder refuses, before reading the body, a property that is an array " +
			"of objects or lists, or an object whose encoding is neither deepObject nor form with explode false " +
			"(req_resp_decoder.go, UrlencodedBodyDecoder); the spec is valid. The harness then judges the rest of " +
			"the body against the schema without the refused properties.",
	},
	{
		Construct: "kin: form or multipart body whose schema is not of type object",
		Kinds:     []string{"request", "body"},
		Says:      regexp.MustCompile(`unsupported schema of request body$`),
		At:        atUntypedFormBody,
		Reason: "openapi3filter's UrlencodedBodyDecoder and MultipartBodyDecoder refuse a body schema whose own type " +
			"is not object (a oneOf of objects, an allOf without type), whatever the body holds.",
	},
	{
		Construct: "kin: deepObject value that is not an object",
		Kinds:     []string{"request", "value", "body"},
		Says: regexp.MustCompile(`value is required but missing|property "[^"]+" is missing|, lost$|, lost \(sent |` +
			`decoding anyOf for parameter "[^"]*" failed|decoding oneOf failed: "[^"]*" is required`),
		At: atDeepObjectNonObject,
		Reason: "openapi3filter decodes a deepObject parameter or form property only as an object: for a list or a " +
			"scalar (style deepObject on an array, or on a union with a scalar variant, as Stripe writes them) " +
			"DecodePrimitive and DecodeArray return invalidSerializationMethodErr, which decodeValue and " +
			"decodeSchemaConstructs drop, so the value reads as absent whatever was sent. The exception holds only " +
			"where the request carries the name (or name[...]) on the wire.",
	},
	{
		Construct: "kin: deepObject object none of whose keys kin decodes",
		Kinds:     []string{"request", "value", "body"},
		Says:      regexp.MustCompile(`value is required but missing|property "[^"]+" is missing|, lost$|, lost \(sent `),
		At:        atDeepObjectUndeclaredKeys,
		Reason: "openapi3filter decodes a deepObject value by its schema's own declared properties (and by " +
			"additionalProperties only when that is true or a schema): the keys of a free-form object (no " +
			"properties, additionalProperties unsaid) are dropped, and a union of objects (anyOf or oneOf, no " +
			"properties of its own) reads as absent, as Stripe's card or payment method hashes do.",
	},
	{
		Construct: "kin: deepObject member of a union read as text",
		Kinds:     []string{"request", "value", "body"},
		Says:      regexp.MustCompile(`became "|doesn't match any schema from|doesn't match schema|is not one of the allowed values`),
		At:        atDeepObjectTextFirst,
		Reason: "openapi3filter builds a deepObject member of an anyOf or oneOf from the first variant that " +
			"yields a value (buildFromSchemas): a string variant parses any text without its enum, an object " +
			"variant returns a scalar's text as it is, so Stripe's up_to, anyOf [enum [inf], integer], reads 4 " +
			"as \"4\", and kin judges the text (at the member, or at the union above it).",
	},
	{
		Construct: "kin: schema without type",
		Kinds:     []string{"request", "value", "body"},
		Says: regexp.MustCompile(`empty value is not allowed|value is required but missing|Value is not nullable|became null \(sent |` +
			`decoding oneOf failed: "[^"]*" is required|decoding anyOf for parameter "[^"]*" failed`),
		At: atTypeless,
		Reason: "openapi3filter's decodeValue yields no value for a parameter or form property whose schema has no " +
			"type, const, enum or (form and query) pattern, nor for an allOf with such a part, a oneOf or anyOf of " +
			"only such variants, or an array whose items are such a schema (parsePrimitive of an empty type list); " +
			"MultipartBodyDecoder parses a text part by its schema's own type list, so a part whose schema has none " +
			"(a union such as anyOf [boolean, null]) reads as null. Any text is valid there.",
	},
	{
		Construct: "kin: form-exploded object parameter without declared properties",
		Kinds:     []string{"value"},
		Says:      regexp.MustCompile(`value is required but missing`),
		At:        atFreeFormExplodedObject,
		Reason: "for a query object of style form, explode true, openapi3filter's DecodeObject reports the " +
			"parameter found only when the query has one of the schema's declared properties; an object with " +
			"additionalProperties alone (its keys spread over the query) always reads as absent.",
	},
	{
		Construct: "kin: oneOf parameter read as a later variant",
		Kinds:     []string{"request", "value"},
		Says:      regexp.MustCompile(`doesn't match schema`),
		At:        atOneOfLaterVariant,
		Reason: "openapi3filter's decodeValue decodes a oneOf parameter with every variant and keeps the LAST " +
			"non-nil result (req_resp_decoder.go, \"if v != nil { value = v; isMatched++ }\"): a string or list " +
			"variant after the one the value is of reads any text (3 as \"3\", alpha as [\"alpha\"]), and kin " +
			"then judges that reading.",
	},
	{
		Construct: "kin: form or multipart property whose type list has null",
		Kinds:     []string{"request", "body"},
		Says:      regexp.MustCompile(`schema has non primitive type|value must be one of [a-z]+, null|got object, want [a-z]+ or [a-z]+| became \{`),
		At:        atTypeListProperty,
		Reason: "openapi3filter decodes a form or multipart property whose type is a list (OpenAPI 3.1's " +
			"[array, null]) as a primitive of each listed type, and parsePrimitive fails on array or null " +
			"(\"schema has non primitive type\"), whatever was sent; MultipartBodyDecoder takes only the first " +
			"of the parts of such a list (it repeats parts only for a type that is exactly array).",
	},
	{
		Construct: "kin: form or multipart property that only additionalProperties declares",
		Kinds:     []string{"request", "body"},
		Says:      regexp.MustCompile(`, lost \(sent |part [^:\s]+: undefined`),
		At:        atAdditionalProperty,
		Reason: "openapi3filter's UrlencodedBodyDecoder decodes only declared properties (decodeSchemaConstructs " +
			"walks Properties), so a key additionalProperties admits is dropped; MultipartBodyDecoder looks such a " +
			"part up among the additionalProperties schema's own properties and reports it undefined.",
	},
	{
		Construct: "spec contradiction: required property that no property declares",
		Kinds:     []string{"request"},
		Says:      regexp.MustCompile(`property "[^"]+" is missing`),
		At:        atRequiredUndeclared,
		Reason: "the schema requires a key that none of its properties (nor its allOf parts') declares, so a typed " +
			"client has no field for it and cannot send it (Box's token revocation requires grant_type, " +
			"DigitalOcean's uptime check method, neither declared).",
	},
	{
		Construct: "spec contradiction: request body media type that is no media range",
		Kinds:     []string{"request"},
		Says:      regexp.MustCompile(`header Content-Type has unexpected value`),
		At:        atNoMediaRange,
		Reason: "the request body's content is keyed by a text that is no media range (\"*\" where \"*/*\" was " +
			"meant): no Content-Type a request can carry matches it.",
	},
	{
		Construct: "kin: oneOf of typeless const or enum variants in a parameter",
		Kinds:     []string{"request", "value"},
		Says:      regexp.MustCompile(`decoding oneOf failed: \d+ schemas matched`),
		At:        atOneOfTypelessConsts,
		Reason: "openapi3filter's parseValue parses each variant of a oneOf with parsePrimitive, which for a " +
			"typeless variant with a const or enum returns the text unchecked (\"if constrainedTypeless { return " +
			"raw, nil }\"), so every such variant matches and kin reports \"decoding oneOf failed: N schemas matched\" " +
			"for a value exactly one variant admits.",
	},
	{
		Construct: "kin: multipart part of a media type kin has no decoder for",
		Kinds:     []string{"request", "body"},
		Says:      regexp.MustCompile(`path [^:]+: unsupported content type "`),
		At:        atUndecodablePart,
		Reason: "openapi3filter's MultipartBodyDecoder decodes each part with the decoder of its media type and " +
			"has none for XML or application/sdp, say: a part the encoding declares of such a type cannot be judged.",
	},
	{
		Construct: "spec contradiction: required path parameter that is not in the path",
		Kinds:     []string{"request"},
		Says:      regexp.MustCompile(`in path has an error: value is required but missing`),
		At:        atPathParamNotInPath,
		Reason: "the operation declares a required path parameter its path template does not have, so no request " +
			"can carry it; kin-openapi requires it anyway. resgen warns at the parameter.",
	},
	{
		Construct: "spec contradiction: allOf parts that no value meets",
		Kinds:     []string{"synth"},
		Says:      regexp.MustCompile(`: no value meets the schema at [^:]*: (none of the values|the allOf parts)`),
		At:        atUnmeetable,
		Reason: "the request body's or the response's schema requires, at the place, a value its allOf parts " +
			"admit none of: enumerated values no other part admits (Cloudflare's error envelopes merge a success " +
			"envelope, success: enum [true], with a failure one, success: enum [false], and result: enum [null] with " +
			"a non-nullable array or object), or parts of no common type. No server can send such an answer, nor a " +
			"client such a body, that kin-openapi accepts; the call is not made.",
	},
	{
		Construct: "spec contradiction: oneOf whose variants are all alike",
		Kinds:     []string{"synth"},
		Says:      regexp.MustCompile(`: no value meets the schema at [^:]*: its \d+ oneOf variants are alike`),
		At:        atUnmeetable,
		Reason: "the request body's or the response's schema is, at the place, a oneOf each of whose variants has a " +
			"twin that differs only in annotations (descriptions, examples, x- extensions, formats no validator " +
			"knows), as OpenStack's microversioned answers (os-aggregates add_host and remove_host) are: any value " +
			"one variant admits matches two, so no value is valid (oneOf wants exactly one). The call is not made.",
	},
	{
		Construct: "spec contradiction: oneOf of open objects that admit each other's values",
		Kinds:     []string{"synth"},
		Says:      regexp.MustCompile(`: no value meets the schema at [^:]*: its \d+ oneOf variants are open objects that require nothing`),
		At:        atUnmeetable,
		Reason: "the request body's or the response's schema is, at the place, a oneOf of objects none of which requires " +
			"a key, forbids other keys or declares a key another declares (Okta's AppUserUpdateRequest: oneOf " +
			"[{credentials}, {profile}]): a value made of one variant's declared keys matches every variant, so no " +
			"value a typed client can write is valid (oneOf wants exactly one). The call is not made.",
	},
}

const formCT, multipartCT = "application/x-www-form-urlencoded", "multipart/form-data"

func (s *site) isForm() bool      { return s.body && mediaBase(s.ct) == formCT }
func (s *site) isMultipart() bool { return s.body && mediaBase(s.ct) == multipartCT }

// bodySchema is the request body's schema (nil when there is none).
func (s *site) bodySchema() *openapi3.Schema {
	if s.media == nil || s.media.Schema == nil {
		return nil
	}
	return s.media.Schema.Value
}

// atRefusedFormProperty: the place is a top property of a form body that
// UrlencodedBodyDecoder's up-front check refuses.
func atRefusedFormProperty(s *site) bool {
	toks := s.tokens()
	body := s.bodySchema()
	if !s.isForm() || len(toks) != 1 || body == nil {
		return false
	}
	p := body.Properties[toks[0]]
	return p != nil && p.Value != nil && kinRefusesFormProperty(p.Value, s.media.Encoding[toks[0]])
}

// kinRefusesFormProperty mirrors UrlencodedBodyDecoder's check of one property.
func kinRefusesFormProperty(p *openapi3.Schema, enc *openapi3.Encoding) bool {
	switch {
	case p.Type.Is("object"):
		sm := enc.SerializationMethod()
		return !(sm.Style == openapi3.SerializationDeepObject || (sm.Style == openapi3.SerializationForm && !sm.Explode))
	case p.Type.Is("array"):
		if p.Items == nil || p.Items.Value == nil {
			return true
		}
		it := p.Items.Value.Type
		return !(it.Is("string") || it.Is("integer") || it.Is("number") || it.Is("boolean"))
	}
	return false
}

// atUntypedFormBody: the place is a whole form or multipart body whose
// schema's own type is not object.
func atUntypedFormBody(s *site) bool {
	body := s.bodySchema()
	return (s.isForm() || s.isMultipart()) && s.ptr == "" && body != nil && !body.Type.Is("object")
}

// atDeepObjectNonObject: the place is a query parameter or a top form
// property of style deepObject whose intended value is a list or a
// scalar, and the request carries its name on the wire.
func atDeepObjectNonObject(s *site) bool {
	var style, name string
	switch {
	case s.param != nil && s.param.In == "query" && s.ptr == "":
		style, name = s.param.Style, s.param.Name
	case s.isForm() && len(s.tokens()) == 1:
		name = s.tokens()[0]
		if enc := s.media.Encoding[name]; enc != nil {
			style = enc.Style
		}
	default:
		return false
	}
	if style != openapi3.SerializationDeepObject {
		return false
	}
	v, ok := s.intended()
	if !ok {
		return false
	}
	if _, obj := v.(map[string]any); obj {
		return false
	}
	return wireCarries(s.wire, name, v)
}

// wireCarries reports whether form values carry v, as a deepObject value
// named key is written: a scalar as its text, a list as repeated values or
// indexed (key[0]), an object's members in brackets (key[k]). It is what
// the request must show for an exception to excuse kin-openapi's reading
// of it: the value was sent, as intended.
func wireCarries(wire url.Values, key string, v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if !wireCarries(wire, key+"["+k+"]", e) {
				return false
			}
		}
		return true
	case []any:
		if texts, ok := scalarTexts(x); ok && slices.Equal(wire[key], texts) {
			return true
		}
		for i, e := range x {
			if !wireCarries(wire, key+"["+strconv.Itoa(i)+"]", e) {
				return false
			}
		}
		return true
	}
	got := wire[key]
	return len(got) == 1 && got[0] == scalarText(v)
}

// scalarTexts are the texts of a list of scalars (ok false when an item is
// no scalar).
func scalarTexts(list []any) ([]string, bool) {
	out := make([]string, len(list))
	for i, e := range list {
		switch e.(type) {
		case map[string]any, []any:
			return nil, false
		}
		out[i] = scalarText(e)
	}
	return out, true
}

// deepObjectTop is the deepObject parameter or form property the place
// is in (its name and the path inside it), "" when it is in none.
func (s *site) deepObjectTop() (name string, inner []string, schema *openapi3.Schema) {
	toks := s.tokens()
	switch {
	case s.param != nil && s.param.In == "query" && s.param.Style == openapi3.SerializationDeepObject:
		if r := s.root(); r != nil && r.Value != nil {
			return s.param.Name, toks, r.Value
		}
	case s.isForm() && len(toks) > 0:
		if enc := s.media.Encoding[toks[0]]; enc != nil && enc.Style == openapi3.SerializationDeepObject {
			if p := s.topSchema(); p != nil {
				return toks[0], toks[1:], p
			}
		}
	}
	return "", nil, nil
}

// kinDecodesKeys mirrors what openapi3filter's deepObject decoding keeps
// of an object: its declared properties, and other keys only when
// additionalProperties is true or a schema.
func kinDecodesKeys(sc *openapi3.Schema) bool {
	return len(sc.Properties) > 0 || decodesAdditional(sc)
}

func decodesAdditional(sc *openapi3.Schema) bool {
	ap := sc.AdditionalProperties
	return ap.Schema != nil || (ap.Has != nil && *ap.Has)
}

// atDeepObjectUndeclaredKeys: the place is a deepObject value that is an
// object whose schema declares no properties of its own (and does not
// decode others), or a key inside a free-form object of a deepObject
// value; the request carries it on the wire.
func atDeepObjectUndeclaredKeys(s *site) bool {
	name, inner, top := s.deepObjectTop()
	if name == "" {
		return false
	}
	v, ok := s.intended()
	if !ok {
		return false
	}
	_, obj := v.(map[string]any)
	if len(inner) == 0 {
		// DecodeObject finds the value only by the schema's own properties.
		return obj && !kinDecodesKeys(top) && wireCarries(s.wire, name, v)
	}
	if !wireCarries(s.wire, name+"["+strings.Join(inner, "][")+"]", v) {
		return false
	}
	root := &openapi3.SchemaRef{Value: top}
	if obj {
		// An object member none of whose alternatives decodes a key.
		here := schemasAt(root, inner)
		decoded := false
		for _, sc := range here {
			if kinDecodesKeys(sc) {
				decoded = true
			}
		}
		if len(here) > 0 && !decoded {
			return true
		}
	}
	// A key of a free-form object member.
	for _, parent := range schemasAt(root, inner[:len(inner)-1]) {
		if parent.Properties[inner[len(inner)-1]] != nil || decodesAdditional(parent) {
			return false
		}
	}
	return true
}

// atDeepObjectTextFirst: the place is, or (for kin's own verdict, which
// it gives at the union above) holds, a member inside a deepObject value
// whose schema is an anyOf or oneOf in which a string variant, or an object
// variant for a scalar, comes before the intended value's own variant.
func atDeepObjectTextFirst(s *site) bool {
	name, inner, top := s.deepObjectTop()
	if name == "" {
		return false
	}
	v, ok := s.intended()
	if !ok {
		return false
	}
	root := &openapi3.SchemaRef{Value: top}
	found := false
	walkValue(v, inner, 0, func(path []string, x any) {
		if found || len(path) == 0 {
			return
		}
		if _, str := x.(string); str {
			return
		}
		_, obj := x.(map[string]any)
		for _, sc := range schemasAt(root, path) {
			alts := sc.AnyOf
			if len(alts) == 0 {
				alts = sc.OneOf
			}
			for _, alt := range alts {
				if alt == nil || alt.Value == nil {
					continue
				}
				if (alt.Value.Type.Is("string") || (alt.Value.Type.Is("object") && !obj)) &&
					wireCarries(s.wire, name+"["+strings.Join(path, "][")+"]", x) {
					found = true
				}
				if found || alt.Value.VisitJSON(x) == nil {
					break
				}
			}
		}
	})
	return found
}

// walkValue calls f with the path of v (under at) and of each member in
// it, at most a few hundred of them.
func walkValue(v any, at []string, n int, f func([]string, any)) int {
	if n > maxNodes {
		return n
	}
	f(at, v)
	n++
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			n = walkValue(e, append(slices.Clip(at), k), n, f)
		}
	case []any:
		for i, e := range x {
			n = walkValue(e, append(slices.Clip(at), strconv.Itoa(i)), n, f)
		}
	}
	return n
}

// paramSent reports whether the request carries the place's parameter:
// its name, or (an object spread over the query) each of its keys.
func (s *site) paramSent() bool {
	if sentUnder(s.wire, s.param.Name) {
		return true
	}
	v, _ := s.intended()
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return false
	}
	for k := range m {
		if _, ok := s.wire[k]; !ok {
			return false
		}
	}
	return true
}

// sentUnder reports whether form values carry name, or name[...].
func sentUnder(wire url.Values, name string) bool {
	if _, ok := wire[name]; ok {
		return true
	}
	for k := range wire {
		if strings.HasPrefix(k, name+"[") {
			return true
		}
	}
	return false
}

// atTypeless: the place is a parameter or a top form property whose
// schema openapi3filter decodes to no value.
func atTypeless(s *site) bool {
	switch {
	case s.param != nil && s.ptr == "":
		ref := s.root()
		return ref != nil && ref.Value != nil && kinDecodesToNothing(ref.Value, s.param.In == "query", 0) && s.paramSent()
	case s.isForm() && len(s.tokens()) == 1 && s.bodySchema() != nil:
		p := s.bodySchema().Properties[s.tokens()[0]]
		return p != nil && p.Value != nil && kinDecodesToNothing(p.Value, true, 0)
	case s.isMultipart() && len(s.tokens()) == 1:
		// parsePrimitive of a text part by the part's own type list.
		p := s.topSchema()
		if p != nil && p.Type.Is("array") && p.Items != nil {
			p = p.Items.Value
		}
		return p != nil && len(p.Type.Slice()) == 0 && p.Const == nil && len(p.Enum) == 0
	}
	return false
}

// atFreeFormExplodedObject: the place is a query parameter of style form,
// explode true, whose schema is an object with no declared properties.
func atFreeFormExplodedObject(s *site) bool {
	if s.param == nil || s.param.In != "query" || s.ptr != "" {
		return false
	}
	sm, err := s.param.SerializationMethod()
	ref := s.root()
	if err != nil || sm.Style != openapi3.SerializationForm || !sm.Explode || ref == nil || ref.Value == nil {
		return false
	}
	sc := ref.Value
	return sc.Type.Is("object") && len(sc.Properties) == 0 && len(sc.AllOf)+len(sc.AnyOf)+len(sc.OneOf) == 0 && s.paramSent()
}

// atOneOfLaterVariant: the place is a parameter whose schema is a oneOf
// in which, after the first variant the intended value is valid against, a
// string variant (for a value that is no string) or a list variant (for a
// value that is no list) follows.
func atOneOfLaterVariant(s *site) bool {
	if s.param == nil || s.ptr != "" {
		return false
	}
	ref := s.root()
	v, ok := s.intended()
	if ref == nil || ref.Value == nil || !ok {
		return false
	}
	_, isStr := v.(string)
	_, isList := v.([]any)
	own := -1
	for i, alt := range ref.Value.OneOf {
		if alt == nil || alt.Value == nil {
			continue
		}
		if own < 0 {
			if alt.Value.VisitJSON(v) == nil {
				own = i
			}
			continue
		}
		t := alt.Value.Type
		if (t.Is("string") && !isStr) || (t.Is("array") && !isList) {
			return s.paramSent()
		}
	}
	return false
}

// atTypeListProperty: the place is a top property of a form or multipart
// body whose type is a list of two or more types.
func atTypeListProperty(s *site) bool {
	p := s.topSchema()
	return p != nil && len(s.tokens()) == 1 && len(p.Type.Slice()) > 1
}

// topSchema is the schema the body's own properties give the place's top
// property, in a form or multipart body (nil elsewhere).
func (s *site) topSchema() *openapi3.Schema {
	toks, body := s.tokens(), s.bodySchema()
	if !(s.isForm() || s.isMultipart()) || len(toks) == 0 || body == nil {
		return nil
	}
	if p := body.Properties[toks[0]]; p != nil {
		return p.Value
	}
	return nil
}

// atAdditionalProperty: the place is a top key of a form or multipart body
// that no property declares and additionalProperties admits.
func atAdditionalProperty(s *site) bool {
	toks, body := s.tokens(), s.bodySchema()
	if !(s.isForm() || s.isMultipart()) || len(toks) != 1 || body == nil || body.Properties[toks[0]] != nil {
		return false
	}
	ap := body.AdditionalProperties
	return ap.Schema != nil || (ap.Has != nil && *ap.Has) || ap.Has == nil
}

// atRequiredUndeclared: the place is a key of the request body that the
// schema there requires and none of its alternatives declares.
func atRequiredUndeclared(s *site) bool {
	toks := s.tokens()
	if !s.body || len(toks) == 0 || s.media == nil {
		return false
	}
	key := toks[len(toks)-1]
	required := false
	for _, sc := range schemasAt(s.media.Schema, toks[:len(toks)-1]) {
		if sc.Properties[key] != nil {
			return false
		}
		if slices.Contains(sc.Required, key) {
			required = true
		}
	}
	return required
}

// atNoMediaRange: the place is a request body whose content is keyed by a
// text that is no media range.
func atNoMediaRange(s *site) bool {
	if !s.body || s.ptr != "" || s.op.RequestBody == nil || s.op.RequestBody.Value == nil {
		return false
	}
	for ct := range s.op.RequestBody.Value.Content {
		if !strings.Contains(ct, "/") {
			return true
		}
	}
	return false
}

// atOneOfTypelessConsts: the place is a parameter whose schema, or whose
// items' schema, is a oneOf with two or more typeless const or enum variants.
func atOneOfTypelessConsts(s *site) bool {
	if s.param == nil {
		return false
	}
	ref := s.root()
	if ref == nil || ref.Value == nil {
		return false
	}
	sc := ref.Value
	if sc.Items != nil && sc.Items.Value != nil {
		sc = sc.Items.Value
	}
	n := 0
	for _, alt := range sc.OneOf {
		if alt != nil && alt.Value != nil && alt.Value.Type == nil && (alt.Value.Const != nil || len(alt.Value.Enum) > 0) {
			n++
		}
	}
	return n >= 2 && s.paramSent()
}

// atUndecodablePart: the place is a top property of a multipart body whose
// encoding declares a media type openapi3filter has no decoder for.
func atUndecodablePart(s *site) bool {
	name, enc := s.topProperty()
	if !s.isMultipart() || len(s.tokens()) != 1 || enc == nil || enc.ContentType == "" {
		return false
	}
	for _, ct := range strings.Split(enc.ContentType, ",") {
		if bodyDecoder(mediaBase(strings.TrimSpace(ct))) == nil {
			return name != ""
		}
	}
	return false
}

// kinDecodesToNothing mirrors openapi3filter's decodeValue: whether it
// yields nil for a parameter of schema sc whatever was sent.
func kinDecodesToNothing(sc *openapi3.Schema, query bool, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch {
	case len(sc.AllOf) > 0:
		// Each part in turn; the first that yields nothing ends it.
		for _, p := range sc.AllOf {
			if p != nil && p.Value != nil && kinDecodesToNothing(p.Value, query, depth+1) {
				return true
			}
		}
		return false
	case len(sc.AnyOf) > 0 || len(sc.OneOf) > 0:
		alts := sc.AnyOf
		if len(alts) == 0 {
			alts = sc.OneOf
		}
		for _, p := range alts {
			if p == nil || p.Value == nil || !kinDecodesToNothing(p.Value, query, depth+1) {
				return false
			}
		}
		return true
	case sc.Not != nil:
		return false
	case sc.Type == nil:
		return sc.Const == nil && len(sc.Enum) == 0 && !(query && sc.Pattern != "")
	case sc.Type.Is("array"):
		// parseArray: an item parsed as nothing makes the array nothing.
		return sc.Items != nil && sc.Items.Value != nil && kinParsesToNothing(sc.Items.Value, depth+1)
	}
	return false
}

// kinParsesToNothing mirrors parseValue for an item of a list: a schema
// with no type, const or enum parses to nil.
func kinParsesToNothing(sc *openapi3.Schema, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch {
	case len(sc.AllOf) > 0:
		for _, p := range sc.AllOf {
			if p != nil && p.Value != nil && kinParsesToNothing(p.Value, depth+1) {
				return true
			}
		}
		return false
	case len(sc.AnyOf) > 0 || len(sc.OneOf) > 0 || sc.Not != nil:
		return false
	}
	return len(sc.Type.Slice()) == 0 && sc.Const == nil && len(sc.Enum) == 0
}

// atPathParamNotInPath: the place is a required path parameter whose name
// the operation's path template does not have.
func atPathParamNotInPath(s *site) bool {
	return s.param != nil && s.param.In == "path" && s.param.Required && !strings.Contains(s.opPath, "{"+s.param.Name+"}")
}

// atUnmeetable: the place is, in the request body or the response, the
// first required place whose allOf parts no value meets (unmeetable).
func atUnmeetable(s *site) bool {
	if !(s.body || s.response) || s.media == nil || s.media.Schema == nil || s.c == nil {
		return false
	}
	ptr, why := unmeetable(s.media.Schema, s.body, s.c.is31)
	return why != "" && ptr == s.ptr
}
