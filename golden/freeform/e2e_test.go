package freeform

// End-to-end tests of free-form objects (testdata/specs/freeform.yaml):
// their numbers keep their text through the generated
// client, so an int64 above 2^53 is neither rounded when an answer decodes
// nor when the value is sent again. Every request is checked with
// kin-openapi's openapi3filter, an oracle that shares no code with resgen.

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"reflect"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const specFile = "../../testdata/specs/freeform.yaml"

func newClient(t *testing.T, s *wirecheck.Server) *Client {
	t.Helper()
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// 2^53+1 and the int64 extremes, which a float64 rounds, in every
// free-form position, nested objects and lists too; 1.50 and 1e2 keep
// their spelling.
const thing = `{
	"id": 9007199254740993,
	"meta": {"big": 9007199254740993, "min": -9223372036854775808, "nested": {"list": [9223372036854775807, 1.50, 1e2]}},
	"attrs": {"n": 18014398509481985},
	"groups": {"g": {"n": 9007199254740995}},
	"payload": {"n": 9007199254740997},
	"open": {"name": "x", "n": 9007199254740999}
}`

// An answer decoded and encoded again is the JSON the server sent.
func TestFreeFormAnswerKeepsNumbers(t *testing.T) {
	s := wirecheck.NewReplying(t, specFile, thing)
	resp, err := newClient(t, s).PutThing(t.Context(), Thing{ID: 1})
	if err != nil {
		t.Fatal(err)
	}
	s.Received(t)
	again, err := json.Marshal(resp.JSON200)
	if err != nil {
		t.Fatal(err)
	}
	sameJSONText(t, "the answer decoded and encoded again", again, thing)
}

// A value decoded from JSON and sent is the same JSON: the request keeps
// every number's digits.
func TestFreeFormRequestKeepsNumbers(t *testing.T) {
	var in Thing
	if err := json.Unmarshal([]byte(thing), &in); err != nil {
		t.Fatal(err)
	}
	s := wirecheck.NewReplying(t, specFile, `{"id":1}`)
	if _, err := newClient(t, s).PutThing(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	sameJSONText(t, "the request", s.Received(t), thing)
}

// A component schema that is a free-form object (type Settings =
// runtime.FreeForm) keeps them too; its numbers are json.Number.
func TestFreeFormComponentKeepsNumbers(t *testing.T) {
	const settings = `{"quota": 9007199254740993, "ratio": 0.1}`
	s := wirecheck.NewReplying(t, specFile, settings)
	resp, err := newClient(t, s).GetSettings(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := (*resp.JSON200)["quota"].(json.Number); !ok || n.String() != "9007199254740993" {
		t.Errorf("quota is %#v, want json.Number 9007199254740993", (*resp.JSON200)["quota"])
	}
	again, err := json.Marshal(resp.JSON200)
	if err != nil {
		t.Fatal(err)
	}
	sameJSONText(t, "the answer decoded and encoded again", again, settings)
}

// What a caller writes: a map literal, numbers as Go values.
func TestFreeFormTypedRequest(t *testing.T) {
	s := wirecheck.NewReplying(t, specFile, `{"id":1}`)
	in := Thing{ID: 1, Meta: map[string]any{"n": int64(9007199254740993), "s": "x"}}
	if _, err := newClient(t, s).PutThing(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	sameJSONText(t, "the request", s.Received(t), `{"id":1,"meta":{"n":9007199254740993,"s":"x"}}`)
}

// sameJSONText fails unless got and want are the same JSON value, numbers
// compared by their text (wirecheck.SameJSON compares them as float64,
// which cannot tell 9007199254740993 from 9007199254740992).
func sameJSONText(t *testing.T, what string, got []byte, want string) {
	t.Helper()
	same, err := equalJSONText(got, []byte(want))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !same {
		t.Errorf("%s:\n got %s\nwant %s", what, got, want)
	}
}

func equalJSONText(a, b []byte) (bool, error) {
	decode := func(data []byte) (any, error) {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		return v, dec.Decode(&v)
	}
	x, err := decode(a)
	if err != nil {
		return false, err
	}
	y, err := decode(b)
	if err != nil {
		return false, err
	}
	return reflect.DeepEqual(x, y), nil
}

// The check above tells numbers apart by their text.
func TestEqualJSONTextSeesRounding(t *testing.T) {
	if same, err := equalJSONText([]byte(`{"n":9007199254740992}`), []byte(`{"n":9007199254740993}`)); same || err != nil {
		t.Errorf("a rounded number is the same: %v, %v", same, err)
	}
	if same, err := equalJSONText([]byte(`{"b":[1.50],"a":1}`), []byte(`{"a":1,"b":[1.50]}`)); !same || err != nil {
		t.Errorf("the same value written in another order differs: %v, %v", same, err)
	}
}
