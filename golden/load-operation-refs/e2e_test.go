package loadoperationrefs

// Each operation of the spec is a $ref to a file, and one schema's
// properties map is a $ref too (testdata/specs/load/operation-refs): the
// methods have the parameters, body and responses those files declare.
// openapi3filter checks each request against bundled.yaml, the same API
// written as OpenAPI in one file (it reads openapi.yaml's operations as
// empty, so would check nothing).

import (
	"log/slog"
	"net/url"
	"reflect"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const oracle = "../../testdata/specs/load/operation-refs/bundled.yaml"

func newClient(t *testing.T, s *wirecheck.Server) *Client {
	t.Helper()
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestOperationFromAFileSendsItsParametersAndDecodesItsResponse(t *testing.T) {
	s := wirecheck.NewReplying(t, oracle, `{"id":7,"name":"rex"}`)
	dog := PetGetType("dog")
	resp, err := newClient(t, s).PetGet(t.Context(), 7, PetGetParams{Type: &dog, Fields: []string{"id", "name"}})
	if err != nil {
		t.Fatal(err)
	}
	r := s.Last(t)
	if r.RawPath != "/pets/7" {
		t.Errorf("path %q", r.RawPath)
	}
	if want := (url.Values{"type": {"dog"}, "fields": {"id", "name"}}); !reflect.DeepEqual(r.Query, want) {
		t.Errorf("query %v, want %v", r.Query, want)
	}
	if p := resp.JSON200; p == nil || p.ID != 7 || p.Name != "rex" {
		t.Fatalf("decoded %+v", p)
	}
}

func TestOperationFromAFileSendsItsBody(t *testing.T) {
	s := wirecheck.New(t, oracle, 204)
	resp, err := newClient(t, s).PetUpdate(t.Context(), 3, PetUpdateBody{Tags: []string{"good"}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 204 {
		t.Errorf("status %d", resp.StatusCode)
	}
	// The properties map of the $ref, by name.
	wirecheck.SameJSON(t, "body", s.Received(t), `{"tags":["good"]}`)
	if r := s.Last(t); r.RawPath != "/pets/3" || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("%s %s, content type %q", r.Method, r.RawPath, r.Header.Get("Content-Type"))
	}
}
