package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Helpers the generated union types call to tell their variants apart:
// by a discriminator property, by the JSON kind of the value, or by the
// keys an object has and the values of its members.

// JSONKind is the kind of a JSON value.
type JSONKind uint8

const (
	KindInvalid JSONKind = iota
	KindNull
	KindObject
	KindArray
	KindString
	KindInteger // a number without fraction or exponent
	KindNumber  // a number with a fraction or an exponent
	KindBool
)

// Kind returns the kind of the JSON value data holds, looking only at its
// first bytes.
func Kind(data []byte) JSONKind {
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 {
		return KindInvalid
	}
	switch c := data[0]; {
	case c == '{':
		return KindObject
	case c == '[':
		return KindArray
	case c == '"':
		return KindString
	case c == 't' || c == 'f':
		return KindBool
	case c == 'n':
		return KindNull
	case c == '-' || c >= '0' && c <= '9':
		for _, d := range data {
			if d == '.' || d == 'e' || d == 'E' {
				return KindNumber
			}
		}
		return KindInteger
	}
	return KindInvalid
}

// Object is a JSON object's members, parsed once so a union can test
// each variant's required keys and member values against it.
type Object map[string]json.RawMessage

// ParseObject returns the members of the JSON object data (nil when data
// is not one).
func ParseObject(data []byte) Object {
	var m Object
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return m
}

// Has reports whether every name is a member.
func (o Object) Has(names ...string) bool {
	for _, n := range names {
		if _, ok := o[n]; !ok {
			return false
		}
	}
	return true
}

// Within reports whether every member is one of names: the object is
// all a variant that declares names knows, so decoding it loses nothing.
func (o Object) Within(names ...string) bool {
	if o == nil {
		return false
	}
	for m := range o {
		if !slices.Contains(names, m) {
			return false
		}
	}
	return true
}

// EveryObject reports whether the JSON array data holds only objects
// that match accepts: how a union tells apart array variants by the
// form of their elements. An empty array is accepted.
func EveryObject(data []byte, match func(Object) bool) bool {
	var elems []json.RawMessage
	if json.Unmarshal(data, &elems) != nil {
		return false
	}
	for _, el := range elems {
		obj := ParseObject(el)
		if obj == nil || !match(obj) {
			return false
		}
	}
	return true
}

// Allows reports whether member name is absent or equal to one of values,
// JSON texts as the spec's const or enum writes them ("\"redirect\"", 2,
// true, null). Absent is allowed: Has checks the required members.
func (o Object) Allows(name string, values ...string) bool {
	raw, ok := o[name]
	if !ok {
		return true
	}
	for _, v := range values {
		if jsonEqual(raw, v) {
			return true
		}
	}
	return false
}

// Fits reports whether member name is absent, null, or an object that
// match accepts: a variant told apart by the form of an object member.
func (o Object) Fits(name string, match func(Object) bool) bool {
	raw, ok := o[name]
	if !ok || Kind(raw) == KindNull {
		return true
	}
	m := ParseObject(raw)
	return m != nil && match(m)
}

// AllowsKind reports whether member name is absent or of one of kinds.
func (o Object) AllowsKind(name string, kinds ...JSONKind) bool {
	raw, ok := o[name]
	if !ok {
		return true
	}
	k := Kind(raw)
	for _, want := range kinds {
		if k == want {
			return true
		}
	}
	return false
}

// jsonEqual reports whether the JSON scalar raw is the value JSON text
// want: the same text, or the same string or number written differently
// ("\u0061", 1.0). Texts that differ are decoded only when an escape or
// a fraction or exponent could make them the same value, so a check
// allocates nothing in the usual case.
func jsonEqual(raw []byte, want string) bool {
	if string(raw) == want {
		return true
	}
	if len(raw) == 0 || len(want) == 0 {
		return false
	}
	switch r, w := raw[0], want[0]; {
	case r == '"' && w == '"':
		if bytes.IndexByte(raw, '\\') < 0 && strings.IndexByte(want, '\\') < 0 {
			return false
		}
		var sr, sw string
		return json.Unmarshal(raw, &sr) == nil && json.Unmarshal([]byte(want), &sw) == nil && sr == sw
	case isNumberStart(r) && isNumberStart(w):
		if !bytes.ContainsAny(raw, ".eE") && !strings.ContainsAny(want, ".eE") {
			return false
		}
		fr, errR := strconv.ParseFloat(string(raw), 64)
		fw, errW := strconv.ParseFloat(want, 64)
		return errR == nil && errW == nil && fr == fw
	}
	return false
}

func isNumberStart(c byte) bool { return c == '-' || c >= '0' && c <= '9' }

// OnlyValueError is what encoding a value other than the one the spec
// allows (a const, or an enum of one value) returns: the request would be
// one the spec forbids, so it is not sent.
func OnlyValueError(typeName, want string, got any) error {
	return fmt.Errorf("%s must be %s, the only value the spec allows; not %#v", typeName, want, got)
}

// Discriminator returns the string value of property prop of the JSON
// object data, and whether it has one.
func Discriminator(data []byte, prop string) (string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return "", false
	}
	raw, ok := m[prop]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// ExtraFields decodes the members of the JSON object data that are not
// among known into *dst (a map[string]T), for a struct type that also
// takes additional properties.
func ExtraFields[T any](data []byte, dst *map[string]T, known ...string) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	for _, k := range known {
		delete(all, k)
	}
	if len(all) == 0 {
		*dst = nil
		return nil
	}
	out := make(map[string]T, len(all))
	for k, raw := range all {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		out[k] = v
	}
	*dst = out
	return nil
}

// MarshalWithExtra encodes known (a struct value) and adds the members of
// extra that it does not already have.
func MarshalWithExtra[T any](known any, extra map[string]T) ([]byte, error) {
	data, err := json.Marshal(known)
	if err != nil || len(extra) == 0 {
		return data, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	for k, v := range extra {
		if _, ok := all[k]; ok {
			continue
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		all[k] = raw
	}
	return json.Marshal(all)
}

// Member is a property whose name no Go struct tag can hold ("", or one
// with quotes): generated types encode and decode it by hand.
type Member struct {
	Name  string
	Value any
	// Omit leaves it out (an absent optional value).
	Omit bool
}

// AddMembers adds members to the JSON object data.
func AddMembers(data []byte, members ...Member) ([]byte, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	for _, m := range members {
		if m.Omit {
			continue
		}
		raw, err := json.Marshal(m.Value)
		if err != nil {
			return nil, err
		}
		all[m.Name] = raw
	}
	return json.Marshal(all)
}

// UnmarshalMembers decodes the named members of the JSON object data into
// the pointers of dst; absent members are left alone.
func UnmarshalMembers(data []byte, dst map[string]any) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	for name, p := range dst {
		if raw, ok := all[name]; ok {
			if err := json.Unmarshal(raw, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// MarshalUnion encodes a union's set variant v (nil: null). For an object
// it fills in the discriminator property prop with value when the variant
// leaves it empty, and adds the union's own properties (base, a struct
// value or nil) that the variant does not have.
func MarshalUnion(v any, prop, value string, base any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if (prop == "" || value == "") && base == nil {
		return data, nil
	}
	if Kind(data) != KindObject {
		if Kind(data) == KindNull && base != nil {
			return json.Marshal(base)
		}
		return data, nil
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	if prop != "" && value != "" {
		if cur, ok := all[prop]; !ok || string(cur) == `""` || string(cur) == "null" {
			all[prop], _ = json.Marshal(value)
		}
	}
	if base != nil {
		b, err := json.Marshal(base)
		if err != nil {
			return nil, err
		}
		var extra map[string]json.RawMessage
		if err := json.Unmarshal(b, &extra); err != nil {
			return nil, err
		}
		for k, raw := range extra {
			if _, ok := all[k]; !ok {
				all[k] = raw
			}
		}
	}
	return json.Marshal(all)
}

// IsOneOf reports whether the JSON value data is a string or number equal
// to one of values (as written in the spec), for unions whose variants
// differ only by an enum.
func IsOneOf(data []byte, values ...string) bool {
	v := string(bytes.TrimSpace(data))
	if Kind(data) == KindString {
		var s string
		if json.Unmarshal(data, &s) != nil {
			return false
		}
		v = s
	}
	for _, w := range values {
		if v == w {
			return true
		}
	}
	return false
}
