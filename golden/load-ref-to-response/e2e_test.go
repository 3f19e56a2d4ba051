package loadreftoresponse

// End-to-end test of testdata/specs/load/ref-to-response.yaml: schema
// $refs that name a response, which kin-openapi
// refused (at another $ref's line), are read as the schema the response
// holds. The oracle is kin-openapi's openapi3filter on the repaired
// document (kin cannot load the raw one: that is the repair).

import (
	"log/slog"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator"
	"github.com/resgen/resgen/internal/wirecheck"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const spec = "../../testdata/specs/load/ref-to-response.yaml"

func oracle(t *testing.T, reply string) *wirecheck.Server {
	t.Helper()
	data, n, err := generator.Repaired(spec)
	if err != nil || n == 0 {
		t.Fatalf("repaired spec: %d repairs, %v", n, err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(t.Context()); err != nil {
		t.Fatal(err)
	}
	return wirecheck.NewDocReplying(t, doc, reply)
}

func newClient(t *testing.T, url string) *Client {
	t.Helper()
	c, err := NewClient(url, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The list's items are the response's schema: a Thing with its required
// id and its size, decoded from the answer.
func TestSchemaRefToResponseReadsItsSchema(t *testing.T) {
	s := oracle(t, `[{"id":"a","size":3},{"id":"b"}]`)
	resp, err := newClient(t, s.URL).ListThings(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	s.Last(t)
	size := int64(3)
	want := []Thing{{ID: "a", Size: &size}, {ID: "b"}}
	if len(resp.JSON200) != 2 || resp.JSON200[0].ID != "a" || *resp.JSON200[0].Size != 3 || resp.JSON200[1] != want[1] {
		t.Errorf("things %+v, want %+v", resp.JSON200, want)
	}
}

// A response whose schema is itself a $ref gives that schema: the body is
// a Problem, sent as such and accepted by openapi3filter.
func TestSchemaRefToResponseWithRefGivesThatSchema(t *testing.T) {
	s := oracle(t, `{}`)
	title := "t"
	if _, err := newClient(t, s.URL).CreateThing(t.Context(), Problem{Title: &title}); err != nil {
		t.Fatal(err)
	}
	wirecheck.SameJSON(t, "body", s.Received(t), `{"title":"t"}`)
}
