package model

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/resgen/resgen/internal/human"
	"github.com/resgen/resgen/runtime"
)

// The one description of a policy's fields is the runtime's: each field
// of runtime.BreakerPolicy, RetryPolicy and Budget carries a `policy` tag
// with its x-resilience key and when it applies. PolicyFields reads the
// tags, so explain, diff, the doc comments, emit's literals and the lab
// list a field added to the runtime with no edit of their own, and none
// of them names a field. A tag (rather than a table beside the struct)
// sits on the field itself, so a field cannot be added without saying
// its key, and it adds nothing to the runtime's exported API.

// PolicyField is one field of a runtime policy value.
type PolicyField struct {
	// Key is the x-resilience key ("windowSize"); "" for a field that is
	// no key (the policy's name).
	Key string
	// Go is the Go field name ("WindowSize").
	Go string
	// Value is the field's value.
	Value reflect.Value
	// Percent: the number is a percentage.
	Percent bool
}

// policyTag is a parsed `policy` tag: key[,percent][,when=key:value].
type policyTag struct {
	key, whenKey, whenValue string
	percent                 bool
}

func parsePolicyTag(tag string) policyTag {
	parts := strings.Split(tag, ",")
	t := policyTag{key: parts[0]}
	if t.key == "-" {
		t.key = ""
	}
	for _, o := range parts[1:] {
		switch {
		case o == "percent":
			t.percent = true
		case strings.HasPrefix(o, "when="):
			t.whenKey, t.whenValue, _ = strings.Cut(strings.TrimPrefix(o, "when="), ":")
		}
	}
	return t
}

// PolicyFields lists the x-resilience keys of p (a runtime policy struct
// or a pointer to one) that apply to it, in the struct's order. A field
// tagged when=k:v applies only while key k reads v: windowSize only for
// count windows.
func PolicyFields(p any) []PolicyField {
	var out []PolicyField
	for _, f := range LiteralFields(p) {
		if f.Key != "" {
			out = append(out, f)
		}
	}
	return out
}

// LiteralFields is PolicyFields with the fields that are no key (the
// policy's name): every field a Go literal of p sets.
func LiteralFields(p any) []PolicyField {
	v := reflect.Indirect(reflect.ValueOf(p))
	t := v.Type()
	words := map[string]string{}
	var out []PolicyField
	var when []policyTag
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("policy")
		if !ok || !sf.IsExported() {
			continue
		}
		pt := parsePolicyTag(tag)
		f := PolicyField{Key: pt.key, Go: sf.Name, Value: v.Field(i), Percent: pt.percent}
		if pt.key != "" {
			words[pt.key] = f.Words()
		}
		out = append(out, f)
		when = append(when, pt)
	}
	n := 0
	for i, f := range out {
		if w := when[i]; w.whenKey == "" || words[w.whenKey] == w.whenValue {
			out[n] = f
			n++
		}
	}
	return out[:n]
}

// Words is the value as x-resilience writes it: 10, 1m30s, 50%, count,
// transport, timeout, 5xx, true; "none" for a nested object not set, its
// keys and values for one that is.
func (f PolicyField) Words() string {
	v := f.Value
	switch x := v.Interface().(type) {
	case time.Duration:
		return human.Duration(x)
	case runtime.Match:
		if t := x.Tokens(); len(t) > 0 {
			return strings.Join(t, ", ")
		}
		return "nothing"
	case interface{ String() string }:
		return x.String()
	}
	switch v.Kind() {
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int64, reflect.Int32:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Float64:
		s := strconv.FormatFloat(v.Float(), 'g', -1, 64)
		if f.Percent {
			s += "%"
		}
		return s
	case reflect.Pointer:
		if v.IsNil() {
			return "none"
		}
		var parts []string
		for _, s := range Settings(v.Interface()) {
			parts = append(parts, s.String())
		}
		return strings.Join(parts, ", ")
	}
	return v.String()
}

// JSON is the value for JSON output: numbers and booleans as they are,
// durations as x-resilience writes them ("5s"), enums as their word, an
// outcome list as its tokens, a nested object as its keys (nil when not
// set).
func (f PolicyField) JSON() any {
	v := f.Value
	switch x := v.Interface().(type) {
	case time.Duration:
		return human.Duration(x)
	case runtime.Match:
		if t := x.Tokens(); t != nil {
			return t
		}
		return []string{}
	case interface{ String() string }:
		return x.String()
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		return PolicyJSON(v.Interface())
	}
	return v.Interface()
}

// PolicyJSON is p as a JSON object of its keys, in order; a nested
// object not set is left out.
func PolicyJSON(p any) Object {
	var o Object
	for _, f := range PolicyFields(p) {
		if v := f.JSON(); v != nil {
			o = append(o, Member{f.Key, v})
		}
	}
	return o
}

// Object is a JSON object that keeps its members' order (encoding/json
// sorts a map's keys; readers expect a policy in the contract's order).
type Object []Member

// Member is one key of an Object.
type Member struct {
	Key   string
	Value any
}

// MarshalJSON writes the members in order; a nil Object is null.
func (o Object) MarshalJSON() ([]byte, error) {
	if o == nil {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(m.Key); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		if err := enc.Encode(m.Value); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Registered is the policy a generated client registers for p: p with
// the fields that do not apply to it zero, as its Go literal leaves them
// out (emit prints LiteralFields). A nested object is copied.
func Registered[P any](p P) P {
	var out P
	ov := reflect.ValueOf(&out).Elem()
	for _, f := range LiteralFields(&p) {
		v := f.Value
		if v.Kind() == reflect.Pointer && !v.IsNil() {
			c := reflect.New(v.Type().Elem())
			c.Elem().Set(v.Elem())
			v = c
		}
		ov.FieldByName(f.Go).Set(v)
	}
	return out
}

// PolicyKeys are every x-resilience key of a runtime policy type (p, a
// value or pointer of it), applying or not, in the struct's order.
func PolicyKeys(p any) []string {
	t := reflect.Indirect(reflect.ValueOf(p)).Type()
	var out []string
	for i := range t.NumField() {
		if tag, ok := t.Field(i).Tag.Lookup("policy"); ok {
			if k := parsePolicyTag(tag).key; k != "" {
				out = append(out, k)
			}
		}
	}
	return out
}
