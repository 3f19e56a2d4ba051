package runtime

import (
	"bytes"
	"encoding/json"
)

// Nullable is an optional property that the spec also allows to be null.
// It has three states, so a request can say each: its zero value is unset
// (a struct field of this type is tagged omitzero, and left out of the
// JSON), Null is null (sent as null: a PATCH that clears the field), and
// Value(v) is v. A decoded answer tells an absent member (unset) from a
// null one.
type Nullable[T any] struct {
	v     T
	state nullState
}

type nullState uint8

const (
	unset nullState = iota
	null
	set
)

// Null is the null Nullable: sent as JSON null.
func Null[T any]() Nullable[T] { return Nullable[T]{state: null} }

// Value is the Nullable that holds v.
func Value[T any](v T) Nullable[T] { return Nullable[T]{v: v, state: set} }

// IsSet reports whether n is null or holds a value: whether it is sent.
func (n Nullable[T]) IsSet() bool { return n.state != unset }

// IsNull reports whether n is null.
func (n Nullable[T]) IsNull() bool { return n.state == null }

// Get returns the value n holds and true, or T's zero value and false
// when n is null or unset.
func (n Nullable[T]) Get() (T, bool) { return n.v, n.state == set }

// IsZero reports whether n is unset: encoding/json leaves out a field
// tagged omitzero that is.
func (n Nullable[T]) IsZero() bool { return n.state == unset }

// MarshalJSON writes the value n holds, or null (an unset n is null too,
// where omitzero does not leave it out).
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if n.state != set {
		return []byte("null"), nil
	}
	return json.Marshal(n.v)
}

// UnmarshalJSON makes n null for JSON null, else the value data holds.
func (n *Nullable[T]) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		*n = Nullable[T]{state: null}
		return nil
	}
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*n = Nullable[T]{v: v, state: set}
	return nil
}
