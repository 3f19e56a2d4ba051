package policy

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/internal/rawval"
)

// The idempotency key's header, checked where the key is resolved: a
// header a spec declares itself may have any schema, and the key the
// client makes when the caller leaves it nil must fit that schema. What
// cannot carry a key (a boolean, an object...) is an ordinary header, and
// the operation is retry-safe only if something else makes it so.

// maxSafeInt is the largest integer every JSON reader holds exactly.
const maxSafeInt = 1<<53 - 1

// maxKeySchemaDepth bounds the walk of a key header's schema through
// wrappers, lists and variants: a spec's $ref cycle must not hang it.
const maxKeySchemaDepth = 16

// checkKey settles res's key for operation o once its policy is resolved.
// With no declared header to carry the key it warns about a header
// parameter whose name is a near miss of the key header. With one, it
// checks that the header's schema can hold a key the client makes and
// says which (a UUID for text, a random integer for integers and
// numbers; a list holds one); when it cannot, it warns at the parameter
// and drops the key: the header is then an ordinary one, the caller's to
// set, and the retry is turned off unless something else makes the
// operation retry-safe.
func (r *Resolver) checkKey(o load.Operation, res *Resolved) {
	p := res.KeyParam
	if p == nil {
		r.keyNearMiss(o.Params, o.ParamPtr, res.keyHeader)
		return
	}
	var why, fix string
	switch kind := keyKind(p); kind {
	case "string":
	case "integer", "number":
		lo, hi, ok := keyIntRange(keyIntSchema(p.Schema))
		if !ok {
			why, fix = "its schema allows no non-negative integer the client could make a key of", "widen minimum/maximum, or declare the header as type: string"
			break
		}
		res.intKey, res.keyLo, res.keyHi = true, lo, hi
	default:
		why, fix = "its schema is "+kind+": a key must be a string or an integer", "declare the header as type: string (or integer)"
	}
	if why == "" {
		return
	}
	off := ""
	if res.dropKey() {
		off = ", and the operation is not retried (nothing else makes it retry-safe)"
	}
	r.warnf(o.ParamPtr[p], fix,
		"header %q cannot carry the idempotency key: %s; the client sends it as an ordinary header, only when the caller sets it%s", p.Name, why, off)
}

// keyKind is the kind of value the header p holds, as a key sees it:
// "string", "integer" or "number" when the client can make a key of it,
// else what it is, in words ("a boolean", "an object", "an enum", "a
// date-time", "not text"). It follows the shape build gives the header:
// a header with content and no schema is sent as is (text), unless the
// content is JSON; a schema with no type is text; a list holds one key,
// so its items decide.
func keyKind(p *openapi3.Parameter) string {
	if p.Schema == nil {
		// A parameter's content has one entry: the first in sorted order.
		if len(p.Content) > 0 {
			if ct := slices.Min(slices.Collect(maps.Keys(p.Content))); p.Content[ct] != nil && isJSONMedia(ct) {
				return "not text"
			}
		}
		return "string"
	}
	return schemaKeyKind(p.Schema.Value, false, 0)
}

// schemaKeyKind is keyKind for a schema; inList is set for a list's items
// (a list of lists holds no key) and a union's variants.
func schemaKeyKind(s *openapi3.Schema, inList bool, depth int) string {
	if s == nil {
		return "string" // no schema: the text as it is
	}
	if depth > maxKeySchemaDepth {
		return "not text"
	}
	unions := len(s.OneOf) > 0 || len(s.AnyOf) > 0
	if prim := primitiveKind(s); prim != "" && unions && len(s.Properties) == 0 {
		// A scalar type beside its oneOf/anyOf: the type is the value's.
		return prim
	}
	if inner := keyWrapped(s); inner != nil {
		return schemaKeyKind(inner.Value, inList, depth+1)
	}
	types := load.NonNullTypes(s)
	switch {
	case len(s.Properties) > 0 && !unions:
		return "an object"
	case unions || len(types) > 1:
		return unionKeyKind(s, depth)
	case len(s.AllOf) > 0:
		// Parts that add properties make an object; one part that is a
		// union makes s that union; parts that only narrow the value (a
		// minimum, a pattern) leave it as s says; anything else is a
		// value no key fits.
		var union *openapi3.Schema
		for _, part := range s.AllOf {
			switch {
			case part == nil || part.Value == nil:
				return "not text"
			case len(part.Value.Properties) > 0:
				return "an object"
			case unionsOf(part.Value) && union == nil && len(part.Value.AllOf) == 0:
				union = part.Value
			case unionsOf(part.Value) || len(part.Value.AllOf) > 0 || part.Value.Items != nil:
				return "not text"
			}
		}
		if union != nil {
			return unionKeyKind(union, depth+1)
		}
	}
	prim := primitiveKind(s)
	switch {
	case enumerated(s) && prim != "" && prim != "a date-time":
		return "an enum"
	case prim != "":
		return prim
	case len(types) == 1 && types[0] == "array" || len(types) == 0 && s.Items != nil:
		if inList {
			return "not text"
		}
		if s.Items == nil {
			return "string"
		}
		return schemaKeyKind(s.Items.Value, true, depth+1)
	case len(types) == 1 && types[0] == "object", len(types) == 0 && (s.AdditionalProperties.Schema != nil || s.AdditionalProperties.Has != nil):
		return "an object"
	case len(types) == 0 && !enumerated(s):
		return "string" // no type: the text as it is
	}
	return "not text"
}

// unionKeyKind is the kind of a union's value: the text of any variant
// when every variant is a scalar (a key is made as text if any variant is
// text, else as an integer if any is a number), else not text.
func unionKeyKind(s *openapi3.Schema, depth int) string {
	if len(s.Properties) > 0 || s.Discriminator != nil {
		return "not text"
	}
	var kinds []string
	for _, list := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf} {
		for _, v := range list {
			if v == nil || v.Value == nil {
				return "not text"
			}
			if v.Value.Type != nil && v.Value.Type.Is("null") {
				continue
			}
			kinds = append(kinds, schemaKeyKind(v.Value, true, depth+1))
		}
	}
	if !unionsOf(s) {
		for _, t := range load.NonNullTypes(s) {
			kinds = append(kinds, map[string]string{"string": "string", "integer": "integer", "number": "number", "boolean": "a boolean"}[t])
		}
	}
	kind := ""
	for _, k := range kinds {
		switch k {
		case "string":
			kind = k
		case "integer", "number":
			if kind != "string" {
				kind = k
			}
		case "a boolean", "an enum", "a date-time":
		default:
			return "not text" // a variant no style writes as text
		}
	}
	if kind == "" {
		return "not text"
	}
	return kind
}

func unionsOf(s *openapi3.Schema) bool { return len(s.OneOf) > 0 || len(s.AnyOf) > 0 }

// keyWrapped is the one schema s stands for when it only wraps it: the
// only non-null variant of a oneOf/anyOf, or the one part of an allOf,
// with no properties of its own, unless that schema says nothing of the
// type s declares (`type: integer, allOf: [{minimum: 0}]`); else nil.
func keyWrapped(s *openapi3.Schema) *openapi3.SchemaRef {
	if len(s.Properties) > 0 {
		return nil
	}
	var inner *openapi3.SchemaRef
	switch {
	case unionsOf(s):
		for _, list := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf} {
			for _, v := range list {
				if v == nil || v.Value == nil {
					return nil
				}
				if v.Value.Type != nil && v.Value.Type.Is("null") {
					continue
				}
				if inner != nil {
					return nil
				}
				inner = v
			}
		}
	case len(s.AllOf) == 1 && len(load.NonNullTypes(s)) <= 1:
		inner = s.AllOf[0]
	}
	if inner == nil || inner.Value == nil || len(load.NonNullTypes(s)) > 0 && saysNoKind(inner.Value) {
		return nil
	}
	return inner
}

// saysNoKind reports whether s says nothing of the JSON kind of a value:
// no type, enum, properties, items or variants.
func saysNoKind(s *openapi3.Schema) bool {
	return len(load.NonNullTypes(s)) == 0 && !enumerated(s) && len(s.Properties) == 0 && s.Items == nil &&
		s.AdditionalProperties.Schema == nil && s.AdditionalProperties.Has == nil && !unionsOf(s) && len(s.AllOf) == 0
}

// primitiveKind is the key kind of a string, integer, number or boolean
// schema (its type, or for one with no type its enum's values' type), or
// "" for any other.
func primitiveKind(s *openapi3.Schema) string {
	types := load.NonNullTypes(s)
	if t := load.ValueType(s); len(types) == 0 && t != "" {
		types = []string{t}
	}
	if len(types) != 1 {
		return ""
	}
	switch types[0] {
	case "string":
		switch s.Format {
		case "date-time":
			return "a date-time"
		case "byte":
			return "not text" // the header would carry base64 of bytes
		}
		return "string"
	case "integer", "number":
		return types[0]
	case "boolean":
		return "a boolean"
	}
	return ""
}

// enumerated reports whether s lists the values it allows (enum, or a
// scalar const).
func enumerated(s *openapi3.Schema) bool { return load.EnumValues(s) != nil }

// isJSONMedia reports whether a media type is JSON (application/json, or
// any ending in /json or +json).
func isJSONMedia(ct string) bool {
	l := strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]))
	return strings.HasSuffix(l, "/json") || strings.HasSuffix(l, "+json")
}

// keyIntSchema is the integer (or number) schema of a key header: the
// schema, its items, or its first such variant; nil when none.
func keyIntSchema(ref *openapi3.SchemaRef) *openapi3.Schema {
	if ref == nil || ref.Value == nil {
		return nil
	}
	s := ref.Value
	if s.Items != nil {
		return keyIntSchema(s.Items)
	}
	if s.Type != nil && (s.Type.Includes("integer") || s.Type.Includes("number")) {
		return s
	}
	for _, list := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf} {
		for _, v := range list {
			if is := keyIntSchema(v); is != nil {
				return is
			}
		}
	}
	return nil
}

// keyIntRange is the range of non-negative integers a key may take under
// s's format, minimum and maximum (at most 2^53-1, which every JSON
// reader holds exactly); ok is false when it is empty.
func keyIntRange(s *openapi3.Schema) (lo, hi int64, ok bool) {
	hi = maxSafeInt
	if s == nil {
		return 0, hi, true
	}
	switch s.Format {
	case "int32":
		hi = math.MaxInt32
	case "uint32":
		hi = math.MaxUint32
	}
	if m, ok := bound(s.Min, s.ExclusiveMin, math.Ceil, 1); ok && m > 0 {
		if m > float64(hi) {
			return 0, 0, false
		}
		lo = int64(m)
	}
	if m, ok := bound(s.Max, s.ExclusiveMax, math.Floor, -1); ok {
		if m < float64(lo) {
			return 0, 0, false
		}
		hi = min(hi, int64(m))
	}
	return lo, hi, true
}

// keyNearMiss warns about a header parameter whose name is a near miss of
// key, the idempotency key header, in an operation that does not declare
// the key itself: the author most likely meant it, and the client neither
// sends a key there nor retries on its account.
func (r *Resolver) keyNearMiss(params []*openapi3.Parameter, ptrs map[*openapi3.Parameter]string, key string) {
	for _, p := range params {
		if p.In != "header" || !nearMissHeader(p.Name, key) {
			continue
		}
		r.diags = append(r.diags, r.s.Diag(diag.Warning, ptrs[p],
			fmt.Sprintf("header %q is not the idempotency key header; did you mean %q?", p.Name, key),
			"rename it to "+strconv.Quote(key)+", or name it as the key with x-resilience idempotencyKey: "+strconv.Quote(p.Name)))
	}
}

// nearMissHeader reports whether name looks like a misspelling of key
// without being it (header names are case-insensitive): the same once
// both are lowercased, stripped of an "x-" prefix and of every character
// that is not a letter or digit (X-Idempotency-Key, Idempotency_Key,
// IdempotencyKey), or an edit distance of at most one per six characters
// of the key, at least one (Idempotency-Keys, Idempotancy-Key).
func nearMissHeader(name, key string) bool {
	n, k := strings.ToLower(name), strings.ToLower(key)
	if n == k || k == "" {
		return false
	}
	if squash(n) == squash(k) {
		return true
	}
	return rawval.EditDistance(n, k) <= max(1, len(k)/6)
}

// bound is the nearest integer a minimum or maximum allows (round is
// math.Ceil or math.Floor, step +1 or -1 past an exclusive bound), in
// either spelling: 3.0's boolean next to the bound, 3.1's number.
func bound(inclusive *float64, exclusive openapi3.ExclusiveBound, round func(float64) float64, step float64) (float64, bool) {
	v, excl := inclusive, exclusive.IsTrue()
	if exclusive.Value != nil {
		v, excl = exclusive.Value, true
	}
	if v == nil {
		return 0, false
	}
	m := round(*v)
	if excl && m == *v {
		m += step
	}
	return m, true
}

func squash(h string) string {
	h = strings.TrimPrefix(h, "x-")
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, h)
}
