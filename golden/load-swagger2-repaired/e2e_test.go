package loadswagger2repaired

// End-to-end test of a Swagger 2.0 JSON spec that needs one of resgen's
// decode repairs (testdata/specs/load/swagger2-repaired.json). The repair
// re-encodes the spec as YAML in flow style, where a look for "swagger: 2"
// at the start of a line found nothing: the spec was read as OpenAPI 3,
// which has no parameter-level type, so every integer, boolean and number
// parameter became a string and the formData body was dropped (slack).
// The oracle is kin-openapi's openapi2conv and openapi3filter, given the
// repaired bytes (kin cannot decode the raw file: that is the repair).

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/url"
	"testing"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator"
	"github.com/resgen/resgen/internal/wirecheck"
	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
	"go.yaml.in/yaml/v4"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const spec = "../../testdata/specs/load/swagger2-repaired.json"

func ptr[T any](v T) *T { return &v }

func oracle(t *testing.T) *wirecheck.Server {
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
	// The repair reads Pair's items list as 2020-12 prefixItems, which
	// kin's 3.0 validator refuses (items must be set); Pair is only the
	// answer, which this server does not send.
	*doc.Components.Schemas["Pair"].Value = *openapi3.NewArraySchema().WithItems(&openapi3.Schema{})
	return wirecheck.NewDoc(t, doc)
}

func TestRepairedSwaggerParametersAreTypedAsTheirSchemaSays(t *testing.T) {
	s := oracle(t)
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	// Typed fields: this does not compile where they are strings.
	params := UpdateItemParams{Limit: 3, Active: ptr(true), XRatio: ptr(0.5)}
	// The server answers without the body the spec declares: the request
	// went out, and the empty answer is a DecodeError.
	if _, err := c.UpdateItem(t.Context(), int64(7), params, &UpdateItemForm{Count: 2, Public: ptr(false)}); !errors.Is(err, runtime.ErrEmptyBody) {
		t.Fatalf("err %v, want runtime.ErrEmptyBody", err)
	}
	r := s.Last(t)
	if r.RawPath != "/items/7" {
		t.Errorf("path %q, want /items/7", r.RawPath)
	}
	if q := r.Query.Encode(); q != "active=true&limit=3" {
		t.Errorf("query %q, want active=true&limit=3", q)
	}
	if h := r.Header.Get("X-Ratio"); h != "0.5" {
		t.Errorf("X-Ratio %q, want 0.5", h)
	}
	form, err := url.ParseQuery(string(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	if f := form.Encode(); f != "count=2&public=false" {
		t.Errorf("form %q, want count=2&public=false", f)
	}
}
