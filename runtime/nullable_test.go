package runtime

import (
	"encoding/json"
	"testing"
)

type patch struct {
	Name  Nullable[string]   `json:"name,omitzero"`
	Tags  Nullable[[]string] `json:"tags,omitzero"`
	Count Nullable[int64]    `json:"count,omitzero"`
}

// Each of the three states is written as the spec means it: unset is left
// out, null is null, a value is the value (also a zero one).
func TestNullableEncodes(t *testing.T) {
	for _, tc := range []struct {
		in   patch
		want string
	}{
		{patch{}, `{}`},
		{patch{Name: Null[string]()}, `{"name":null}`},
		{patch{Name: Value("")}, `{"name":""}`},
		{patch{Name: Value("x"), Tags: Value([]string{}), Count: Value[int64](0)}, `{"name":"x","tags":[],"count":0}`},
		{patch{Tags: Null[[]string](), Count: Value[int64](9007199254740993)}, `{"tags":null,"count":9007199254740993}`},
	} {
		got, err := json.Marshal(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("%+v encodes as %s, want %s", tc.in, got, tc.want)
		}
	}
}

// Decoding tells an absent member from a null one and from a value, and
// encoding the result again gives the JSON decoded.
func TestNullableDecodes(t *testing.T) {
	for _, in := range []string{`{}`, `{"name":null}`, `{"name":"x","count":0}`, `{"tags":["a"],"count":null}`} {
		var p patch
		if err := json.Unmarshal([]byte(in), &p); err != nil {
			t.Fatal(err)
		}
		again, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != in {
			t.Errorf("%s decoded and encoded again is %s", in, again)
		}
	}
	var p patch
	if err := json.Unmarshal([]byte(`{"name":null,"count":7}`), &p); err != nil {
		t.Fatal(err)
	}
	if !p.Name.IsSet() || !p.Name.IsNull() {
		t.Errorf("name: IsSet %v IsNull %v, want null", p.Name.IsSet(), p.Name.IsNull())
	}
	if v, ok := p.Name.Get(); ok || v != "" {
		t.Errorf("name: Get() = %q, %v, want no value", v, ok)
	}
	if v, ok := p.Count.Get(); !ok || v != 7 || p.Count.IsNull() {
		t.Errorf("count: Get() = %v, %v, want 7", v, ok)
	}
	if p.Tags.IsSet() || p.Tags.IsNull() {
		t.Error("tags: absent, want unset")
	}
	if err := json.Unmarshal([]byte(`{"count":"x"}`), &p); err == nil {
		t.Error("a string decoded as Nullable[int64]")
	}
	// Where omitzero does not apply (a list), unset is null.
	out, err := json.Marshal([]Nullable[int]{{}, Null[int](), Value(1)})
	if err != nil || string(out) != `[null,null,1]` {
		t.Errorf("list: %s, %v", out, err)
	}
}
