package build

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/internal/rawval"
)

// The idempotency-key header a spec declares itself may have any schema:
// the caller's value is written by style simple, and the key the client
// makes when the caller leaves it nil must fit the schema too.

// maxSafeInt is the largest integer every JSON reader holds exactly.
const maxSafeInt = 1<<53 - 1

// keyParam checks that mp, the header that carries the idempotency key,
// can hold a random key, and says which: a UUID for text, a random
// integer for integers and numbers (a list holds one). Booleans, objects
// and the like cannot be a key: a warning at ptr, and false; the header is
// then an ordinary one (the caller's to set) and drop takes the key out of
// the operation's policy, turning its retry off unless something else
// makes it retry-safe.
func (b *builder) keyParam(mp *model.Param, p *openapi3.Parameter, ptr string, drop func() bool) bool {
	t := mp.Type
	if t.Kind == model.Slice {
		t = t.Elem
	}
	kind := b.keyKind(t)
	what := "one random key"
	var why, fix string
	switch kind {
	case "string":
	case "integer", "number":
		s := keyIntSchema(p.Schema)
		lo, hi, ok := keyIntRange(s)
		if !ok {
			why, fix = "its schema allows no non-negative integer the client could make a key of", "widen minimum/maximum, or declare the header as type: string"
			break
		}
		mp.KeyInts = &[2]int64{lo, hi}
		what = fmt.Sprintf("one random integer from %d to %d", lo, hi)
	default:
		why, fix = "its schema is "+kind+": a key must be a string or an integer", "declare the header as type: string (or integer)"
	}
	if why != "" {
		off := ""
		if drop() {
			off = ", and the operation is not retried (nothing else makes it retry-safe)"
		}
		b.diags = append(b.diags, b.s.Diag(diag.Warning, ptr,
			fmt.Sprintf("header %q cannot carry the idempotency key: %s; the client sends it as an ordinary header, only when the caller sets it%s", p.Name, why, off), fix))
		return false
	}
	mp.Doc = append(mp.Doc, "Left nil, the client makes "+what+" per call and sends it on every attempt.")
	return true
}

// keyKind is the kind of value t holds, as a key sees it: string,
// integer, number, or what else it is. The text it is written as decides
// (textOf), as it decides how the header is sent.
func (b *builder) keyKind(t *model.GoType) string {
	if b.isEnum(t) {
		return "an enum"
	}
	switch tx := b.textOf(t); tx.Form {
	case model.TextString:
		return "string"
	case model.TextInt, model.TextUint:
		return "integer"
	case model.TextFloat32, model.TextFloat64:
		return "number"
	case model.TextBool:
		return "a boolean"
	case model.TextTime:
		return "a date-time"
	case model.TextMethod:
		// Any variant's text is the union's: text if one is text.
		if n := len(tx.Via); n > 0 {
			t = tx.Via[n-1] // the union a type is defined as
		}
		kind := "not text"
		for _, v := range b.decl(t.Name).Variants {
			switch k := b.keyKind(v.Type); {
			case k == "string":
				return k
			case k == "integer" || k == "number":
				kind = k
			}
		}
		return kind
	}
	if isObject(b, t) {
		return "an object"
	}
	return "not text"
}

// isEnum reports whether t is an enum, or a type defined as one.
func (b *builder) isEnum(t *model.GoType) bool {
	for t.Kind == model.Named {
		d := b.decl(t.Name)
		if d == nil || d.Kind == model.Struct || d.Underlying == nil {
			return false
		}
		if len(d.Values) > 0 {
			return true
		}
		t = d.Underlying
	}
	return false
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
func (b *builder) keyNearMiss(params []*openapi3.Parameter, ptrs map[*openapi3.Parameter]string, key string) {
	for _, p := range params {
		if p.In != "header" || !nearMissHeader(p.Name, key) {
			continue
		}
		b.diags = append(b.diags, b.s.Diag(diag.Warning, ptrs[p],
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
