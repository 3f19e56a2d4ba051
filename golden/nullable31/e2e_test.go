package nullable31

// End-to-end tests of optional properties that may be null, in OpenAPI
// 3.1's spellings (testdata/specs/nullable31.yaml):
// type: [T, "null"], oneOf/anyOf with {type: "null"}. Every request is
// checked with kin-openapi's openapi3filter.

import (
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const specFile = "../../testdata/specs/nullable31.yaml"

func newClient(t *testing.T, s *wirecheck.Server) *Client {
	t.Helper()
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A PATCH decoded from JSON is sent as that JSON, nulls and absent members
// as they were, and the answer (the same JSON) decodes and encodes again
// unchanged.
func TestNullsRoundTrip(t *testing.T) {
	for _, body := range []string{
		`{"id":"a","required_but_null":null,"bio":null,"score":null,"address":null,"links":null}`,
		`{"id":"a","required_but_null":1,"bio":"","score":0,"address":{"city":"Oslo"},"links":[]}`,
		`{"id":"a","required_but_null":null}`,
	} {
		var in Profile
		if err := json.Unmarshal([]byte(body), &in); err != nil {
			t.Fatal(err)
		}
		s := wirecheck.NewReplying(t, specFile, body)
		resp, err := newClient(t, s).PatchProfile(t.Context(), in)
		if err != nil {
			t.Fatal(err)
		}
		wirecheck.SameJSON(t, "the request", s.Received(t), body)
		again, err := json.Marshal(resp.JSON200)
		if err != nil {
			t.Fatal(err)
		}
		wirecheck.SameJSON(t, "the answer decoded and encoded again", again, body)
	}
}

func TestTypedPatch(t *testing.T) {
	s := wirecheck.NewReplying(t, specFile, `{"id":"a","required_but_null":null}`)
	_, err := newClient(t, s).PatchProfile(t.Context(), Profile{
		ID:      "a",
		Bio:     runtime.Null[string](),
		Address: runtime.Value(Address{City: "Oslo"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	wirecheck.SameJSON(t, "the request", s.Received(t), `{"id":"a","required_but_null":null,"bio":null,"address":{"city":"Oslo"}}`)
}
