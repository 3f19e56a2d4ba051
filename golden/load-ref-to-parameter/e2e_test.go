package loadreftoparameter

// End-to-end test of testdata/specs/load/ref-to-parameter.yaml: Swagger 2.0
// schema $refs that name a body parameter, which
// kin-openapi refused with no position, are read as the schema the
// parameter holds. The oracle is kin-openapi's openapi2conv and
// openapi3filter on the repaired document (kin cannot convert the raw one:
// that is the repair).

import (
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/resgen/resgen/generator"
	"github.com/resgen/resgen/internal/wirecheck"
	"go.uber.org/goleak"
	"go.yaml.in/yaml/v4"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const spec = "../../testdata/specs/load/ref-to-parameter.yaml"

func oracle(t *testing.T, reply string) *wirecheck.Server {
	t.Helper()
	data, n, err := generator.Repaired(spec)
	if err != nil || n == 0 {
		t.Fatalf("repaired spec: %d repairs, %v", n, err)
	}
	var tree any
	if err := yaml.Unmarshal(data, &tree); err != nil {
		t.Fatal(err)
	}
	jsonData, err := json.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	var doc2 openapi2.T
	if err := json.Unmarshal(jsonData, &doc2); err != nil {
		t.Fatal(err)
	}
	doc, err := openapi2conv.ToV3(&doc2)
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

func ptr[T any](v T) *T { return &v }

// The body parameter's schema is the list's items: each an Order, sent
// as one; the answer's $ref to the Note parameter is its Note.
func TestSchemaRefToParameterReadsItsSchema(t *testing.T) {
	s := oracle(t, `{"text":"ok"}`)
	resp, err := newClient(t, s.URL).CreateOrders(t.Context(), []Order{{Item: "a", Count: ptr(int64(2))}, {Item: "b"}})
	if err != nil {
		t.Fatal(err)
	}
	wirecheck.SameJSON(t, "body", s.Received(t), `[{"item":"a","count":2},{"item":"b"}]`)
	if resp.JSON200 == nil || resp.JSON200.Text == nil || *resp.JSON200.Text != "ok" {
		t.Errorf("answer %+v, want the note ok", resp.JSON200)
	}
}

// The answer whose schema $ref names the Order parameter decodes as an
// Order.
func TestAnswerRefToParameterDecodesAsItsSchema(t *testing.T) {
	s := oracle(t, `{"item":"x","count":1}`)
	resp, err := newClient(t, s.URL).CreateOrder(t.Context(), CreateOrderBody{Item: "x", Count: ptr(int64(1))})
	if err != nil {
		t.Fatal(err)
	}
	s.Last(t)
	if resp.JSON200 == nil || resp.JSON200.Item != "x" || resp.JSON200.Count == nil || *resp.JSON200.Count != 1 {
		t.Errorf("answer %+v, want item x, count 1", resp.JSON200)
	}
}
