package wire

// End-to-end tests of the wire defects of testdata/specs/wire.yaml through
// the generated client against a loopback server: kin-openapi's
// openapi3filter (code resgen does not share) must accept every request,
// and the values the server reads must be the ones the caller set.

import (
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const spec = "../../testdata/specs/wire.yaml"

func ptr[T any](v T) *T { return &v }

func newClient(t *testing.T, server string) *Client {
	t.Helper()
	c, err := NewClient(server, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A "#fragment" in a path key only tells two keys apart: written into the
// URL it swallowed the query, so the required fields never reached the
// server (box, ~170 calls).
func TestFragmentOfPathKeyIsNotSentAndQueryIs(t *testing.T) {
	s := wirecheck.New(t, spec)
	c := newClient(t, s.URL)
	body := AddSharedLinkBody{SharedLink: &AddSharedLinkBodySharedLink{Access: ptr("open")}}
	if _, err := c.AddSharedLink(t.Context(), "f1", AddSharedLinkParams{Fields: "shared_link"}, body); err != nil {
		t.Fatal(err)
	}
	r := s.Last(t)
	if r.RawPath != "/files/f1" {
		t.Errorf("path %q, want /files/f1", r.RawPath)
	}
	if got := r.Query["fields"]; len(got) != 1 || got[0] != "shared_link" {
		t.Errorf("query fields = %q, want [shared_link]", got)
	}
	wirecheck.SameJSON(t, "body", r.Body, `{"shared_link":{"access":"open"}}`)
}

// A required list or map that is not nullable was sent as null when the
// caller left it nil (openstack-compute OsServerGroupsPost); null is not a
// value of the schema, an empty one is.
func TestRequiredNonNullableListAndMapAreSentEmptyNotNull(t *testing.T) {
	s := wirecheck.New(t, spec)
	c := newClient(t, s.URL)
	if _, err := c.CreateGroup(t.Context(), Group{Name: "g"}); err != nil {
		t.Fatal(err)
	}
	wirecheck.SameJSON(t, "body", s.Last(t).Body, `{"name":"g","policies":[],"labels":{}}`)

	// What the caller sets is sent as set.
	if _, err := c.CreateGroup(t.Context(), Group{Name: "g", Policies: []string{"affinity"}, Labels: map[string]string{"a": "b"}, Note: ptr("n")}); err != nil {
		t.Fatal(err)
	}
	wirecheck.SameJSON(t, "body", s.Last(t).Body, `{"name":"g","policies":["affinity"],"labels":{"a":"b"},"note":"n"}`)
}

// A union with several list variants tried each in turn, and a list that
// failed to decode into an earlier one left what did decode there ([[6,7]]
// into []string is [""]); MarshalJSON then wrote that one (openai
// CreateEmbedding sent "input":["",""]).
func TestListVariantOfUnionDecodesIntoItsOwnField(t *testing.T) {
	cases := wirecheck.Cases{
		{Sent: `[[6,7],[8]]`, Variant: "Array3"},
		{Sent: `[1,2]`, Variant: "Array2"},
		{Sent: `["a","b"]`, Variant: "Array"},
		{Sent: `"a"`, Variant: "String"},
	}
	for _, c := range cases {
		var in EmbeddingRequestInput
		if err := json.Unmarshal([]byte(c.Sent), &in); err != nil {
			t.Fatal(err)
		}
		wirecheck.DecodesAs(t, c.Sent, in, c.Variant)

		// Through the client: sent as decoded, read back from the server's echo.
		s := wirecheck.NewReplying(t, spec, "")
		resp, err := newClient(t, s.URL).CreateEmbedding(t.Context(), EmbeddingRequest{Input: in})
		if err != nil {
			t.Fatal(err)
		}
		wirecheck.SameJSON(t, c.Sent+" sent", s.Received(t), `{"input":`+c.Sent+`}`)
		if resp.JSON200 == nil {
			t.Fatalf("%s: no typed answer", c.Sent)
		}
		wirecheck.DecodesAs(t, c.Sent, resp.JSON200.Input, c.Variant)
	}
}
