package typemap

// End-to-end tests of typemap.yaml: the Go types of schemas keep what the
// schema means on the wire. A record with a time, raw JSON, a nullable
// object, an array of uint8 and the rest goes through the generated client
// to a loopback server (openapi3filter judges the request) and comes back
// decoded; encoding the decoded value again must give the JSON the server
// sent.

import (
	"encoding/json"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/resgen/resgen/internal/wirecheck"
	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const specFile = "../../testdata/specs/typemap.yaml"

func newClient(t *testing.T, url string) *Client {
	t.Helper()
	c, err := NewClient(url, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// stored is what a server sends: every field of Record, each in the JSON
// its schema allows.
const stored = `{
	"id": "r1",
	"verified_at": "2024-05-01T10:00:00Z",
	"seen_at": "2024-05-02T11:30:00.5+02:00",
	"traits": {"email": "a@example.com", "tags": [1, "x"]},
	"usage": {"total_tokens": 7},
	"choice": {"value": 3},
	"bag": {"name": "n", "color": "red"},
	"kind": "thing",
	"public_key": [3, 4, 255],
	"small": [-1, 2],
	"label": "plain text",
	"flags": [true, false],
	"note": "hi",
	"switch": true,
	"mapping": {"properties": {"a": "b"}, "expression": "user.email"},
	"versioned": {"version": 2},
	"count": 3,
	"ratio": 0.5
}`

func TestRecordDecodesAndReencodes(t *testing.T) {
	s := wirecheck.NewReplying(t, specFile, stored)
	at := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	traits := json.RawMessage(`{"email":"b@example.com"}`)
	resp, err := newClient(t, s.URL).EchoRecord(t.Context(), Record{
		ID: "r0", VerifiedAt: runtime.Value(at), Traits: &traits, PublicKey: []int64{1, 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The request: a time as RFC 3339 text, raw JSON as itself, uint8s
	// as numbers (openapi3filter checks each against the schema).
	wirecheck.SameJSON(t, "the request", s.Received(t),
		`{"id":"r0","verified_at":"2024-05-01T10:00:00Z","traits":{"email":"b@example.com"},"public_key":[1,2]}`)
	got := resp.JSON200
	if got == nil {
		t.Fatal("no typed 200 body")
	}
	if u, ok := got.Usage.Get(); !ok || u.TotalTokens != 7 {
		t.Errorf("usage decoded as %+v, want total_tokens 7", got.Usage)
	}
	if v, ok := got.VerifiedAt.Get(); !ok || !v.Equal(at) {
		t.Errorf("verified_at decoded as %v, want %v", got.VerifiedAt, at)
	}
	// A oneOf/allOf that only narrows the declared type keeps it.
	if got.Count == nil || *got.Count != 3 || got.Ratio == nil || *got.Ratio != 0.5 {
		t.Errorf("count, ratio decoded as %v, %v; want 3, 0.5", got.Count, got.Ratio)
	}
	if !reflect.DeepEqual(got.PublicKey, []int64{3, 4, 255}) {
		t.Errorf("public_key decoded as %v", got.PublicKey)
	}
	again, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	wirecheck.SameJSON(t, "the decoded record encoded again", again, stored)
}

// A required key is sent even when it is declared in another allOf part
// (version) or nowhere (expression, any value: null when left unset).
func TestRequiredKeysAreSent(t *testing.T) {
	s := wirecheck.NewReplying(t, specFile, `{"id":"r"}`)
	_, err := newClient(t, s.URL).EchoRecord(t.Context(), Record{
		ID: "r0", Versioned: &Versioned{}, Mapping: &Mapping{Properties: map[string]string{"a": "b"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	wirecheck.SameJSON(t, "the request", s.Received(t),
		`{"id":"r0","versioned":{"version":0},"mapping":{"properties":{"a":"b"},"expression":null}}`)
}

// A schema that names another schema is that schema: the named type keeps
// the JSON methods of the one it names.
func TestNamedSchemasKeepJSONMethods(t *testing.T) {
	for _, c := range []struct {
		name, sent string
		into       any
	}{
		{"union", `{"value":3}`, new(ChoiceAlias)},
		{"union scalar", `"s"`, new(ChoiceAlias)},
		{"struct with additional properties", `{"name":"n","color":"red"}`, new(BagAlias)},
		{"time", `"2024-05-02T11:30:00.5+02:00"`, new(SeenAt)},
		{"raw JSON", `{"a":[1,{"b":null}]}`, new(Traits)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := json.Unmarshal([]byte(c.sent), c.into); err != nil {
				t.Fatal(err)
			}
			again, err := json.Marshal(c.into)
			if err != nil {
				t.Fatal(err)
			}
			wirecheck.SameJSON(t, "encoded again", again, c.sent)
		})
	}
	// The zero value of a one-value enum is written as that value.
	text, err := json.Marshal(struct{ K KindAlias }{})
	if err != nil {
		t.Fatal(err)
	}
	wirecheck.SameJSON(t, "a one-value enum left empty", text, `{"K":"thing"}`)
}

// external_id is `type: string` with properties: the type wins, and the
// query carries the text itself.
func TestDeclaredTypeWinsOverProperties(t *testing.T) {
	s := wirecheck.New(t, specFile)
	_, _ = newClient(t, s.URL).FindRecord(t.Context(), FindRecordParams{ExternalID: "ext-42"})
	r := s.Last(t)
	if got := r.Query["external_id"]; !reflect.DeepEqual(got, []string{"ext-42"}) {
		t.Errorf("external_id sent as %q, want [ext-42]", got)
	}
}
