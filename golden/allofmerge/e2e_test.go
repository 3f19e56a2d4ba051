package allofmerge

// End-to-end tests of allOf parts that declare the same property with
// members of their own (testdata/specs/allofmerge.yaml): the property's
// type has the members of every declaration, so a list
// answer keeps its pagination token and a request keeps every part's
// required members. Every request is checked with kin-openapi's
// openapi3filter, an oracle that shares no code with resgen.

import (
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const specFile = "../../testdata/specs/allofmerge.yaml"

func newClient(t *testing.T, s *wirecheck.Server) *Client {
	t.Helper()
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const page = `{"meta":{"count":2,"next_token":"c2","total":9},"data":[{"id":"a"},{"id":"b"}]}`

// Decoded and encoded again, the answer is what the server sent: the
// members "meta" has in either part are all kept.
func TestMergedPropertyAnswerRoundTrips(t *testing.T) {
	s := wirecheck.NewReplying(t, specFile, page)
	resp, err := newClient(t, s).ListPets(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	again, err := json.Marshal(resp.JSON200)
	if err != nil {
		t.Fatal(err)
	}
	wirecheck.SameJSON(t, "the answer decoded and encoded again", again, page)
}

// The pagination token, declared by one part, is a field beside the count
// another part declares.
func TestMergedPropertyKeepsPaginationToken(t *testing.T) {
	s := wirecheck.NewReplying(t, specFile, page)
	resp, err := newClient(t, s).ListPets(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	m := resp.JSON200.Meta
	if m.NextToken == nil || *m.NextToken != "c2" || m.Count != 2 || m.Total == nil || *m.Total != 9 {
		t.Errorf("meta %+v, want next_token c2, count 2, total 9", m)
	}
}

// A request body whose parts both declare "filter" and "rows" sends the
// members of both, the required ones of each too: the oracle accepts it.
func TestMergedPropertyRequest(t *testing.T) {
	const body = `{"filter":{"name":"rex","species":"dog"},"rows":[{"label":"a","weight":1.5}],"limit":3}`
	var in SearchBody
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		t.Fatal(err)
	}
	s := wirecheck.New(t, specFile, 204)
	if _, err := newClient(t, s).Search(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	wirecheck.SameJSON(t, "the request", s.Received(t), body)
}

// What a caller writes: every part's members are fields of one type.
func TestMergedPropertyTypedRequest(t *testing.T) {
	s := wirecheck.New(t, specFile, 204)
	in := SearchBody{
		Filter: SearchBodyFilter{Name: "rex", Species: "dog"},
		Rows:   []SearchBodyRowsItem{{Label: "a", Weight: 2}},
	}
	if _, err := newClient(t, s).Search(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	wirecheck.SameJSON(t, "the request", s.Received(t), `{"filter":{"name":"rex","species":"dog"},"rows":[{"label":"a","weight":2}]}`)
}
