package runtime

import (
	"encoding/json"
	"testing"
)

// A free-form object keeps every number's text, nested ones too: an
// integer above 2^53 is not rounded, and the value encodes again to the
// JSON it came from.
func TestFreeFormKeepsNumbers(t *testing.T) {
	const in = `{"id":9007199254740993,"big":-9223372036854775808,"f":0.1,"e":1e400,"nested":{"n":[12345678901234567890,1.50]},"s":"x","null":null}`
	var f FreeForm
	if err := json.Unmarshal([]byte(in), &f); err != nil {
		t.Fatal(err)
	}
	if n, ok := f["id"].(json.Number); !ok || n.String() != "9007199254740993" {
		t.Errorf("id is %#v, want json.Number 9007199254740993", f["id"])
	}
	out, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"big":-9223372036854775808,"e":1e400,"f":0.1,"id":9007199254740993,"nested":{"n":[12345678901234567890,1.50]},"null":null,"s":"x"}`
	if string(out) != want {
		t.Errorf("encoded again:\n got %s\nwant %s", out, want)
	}
}

func TestFreeFormNullAndErrors(t *testing.T) {
	f := FreeForm{"a": 1}
	if err := json.Unmarshal([]byte(`null`), &f); err != nil || f != nil {
		t.Errorf("null: %v, %v; want nil", f, err)
	}
	for _, bad := range []string{`[1]`, `"x"`, `{"a":1} {}`, `{"a":`} {
		var g FreeForm
		if err := g.UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("%s: decoded as %v, want an error", bad, g)
		}
	}
	// Inside a struct, as generated types hold it.
	var s struct {
		M FreeForm `json:"m"`
	}
	if err := json.Unmarshal([]byte(`{"m":{"n":9007199254740993}}`), &s); err != nil || s.M["n"] != json.Number("9007199254740993") {
		t.Errorf("in a struct: %v, %v", s.M, err)
	}
}

func BenchmarkFreeFormDecode(b *testing.B) {
	data := []byte(`{"id":9007199254740993,"name":"x","tags":["a","b"],"meta":{"n":1.5}}`)
	b.ReportAllocs()
	for b.Loop() {
		var f FreeForm
		if err := f.UnmarshalJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}
