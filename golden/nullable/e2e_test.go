package nullable

// End-to-end tests of optional properties that may be null, OpenAPI 3.0
// (testdata/specs/nullable.yaml): a request can leave
// each out, send null (a PATCH that clears a field) or send a value, and
// an answer keeps which it was. Every request is checked with kin-openapi's
// openapi3filter, an oracle that shares no code with resgen.

import (
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const specFile = "../../testdata/specs/nullable.yaml"

func newClient(t *testing.T, s *wirecheck.Server) *Client {
	t.Helper()
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A PATCH decoded from JSON is sent as that JSON: a null stays null, an
// absent member stays absent (the oracle accepts each).
func TestNullsAreSent(t *testing.T) {
	for _, body := range []string{
		`{"note":null,"name":null,"age":null,"tags":null,"owner":null,"status":null,"parent":null}`,
		`{"note":"n","name":"Rex","age":0,"tags":[],"owner":{"login":"ada"},"status":"sold","parent":{"note":null,"name":null}}`,
		`{"note":null}`,
	} {
		var in PetPatch
		if err := json.Unmarshal([]byte(body), &in); err != nil {
			t.Fatal(err)
		}
		s := wirecheck.NewReplying(t, specFile, `{"note":null}`)
		if _, err := newClient(t, s).PatchPet(t.Context(), "p1", in); err != nil {
			t.Fatal(err)
		}
		wirecheck.SameJSON(t, "the request", s.Received(t), body)
	}
}

// An answer decoded and encoded again is what the server sent: null and
// absent members are told apart.
func TestAnswerKeepsNullAndAbsent(t *testing.T) {
	for _, reply := range []string{
		`{"note":null,"name":null,"tags":null,"status":null}`,
		`{"note":"n","age":3,"owner":{"login":"ada"}}`,
	} {
		s := wirecheck.NewReplying(t, specFile, reply)
		resp, err := newClient(t, s).PatchPet(t.Context(), "p1", PetPatch{})
		if err != nil {
			t.Fatal(err)
		}
		again, err := json.Marshal(resp.JSON200)
		if err != nil {
			t.Fatal(err)
		}
		wirecheck.SameJSON(t, "the answer decoded and encoded again", again, reply)
	}
}

// What a caller writes: Null clears a field, Value sets it, the zero
// Nullable leaves it out; the required nullable note is a pointer, nil
// sent as null.
func TestTypedPatch(t *testing.T) {
	s := wirecheck.NewReplying(t, specFile, `{"note":null,"name":null,"age":7}`)
	c := newClient(t, s)
	resp, err := c.PatchPet(t.Context(), "p1", PetPatch{
		Name:   runtime.Null[string](),
		Age:    runtime.Value[int64](7),
		Status: runtime.Value(StatusSold),
		Parent: runtime.Value(&PetPatch{Name: runtime.Value("mum")}),
	})
	if err != nil {
		t.Fatal(err)
	}
	wirecheck.SameJSON(t, "the request", s.Received(t), `{"note":null,"name":null,"age":7,"status":"sold","parent":{"note":null,"name":"mum"}}`)
	got := resp.JSON200
	if !got.Name.IsNull() || got.Tags.IsSet() || got.Note != nil {
		t.Errorf("name %+v (want null), tags %+v (want unset), note %v (want nil)", got.Name, got.Tags, got.Note)
	}
	if age, ok := got.Age.Get(); !ok || age != 7 {
		t.Errorf("age %d, %v; want 7", age, ok)
	}
}
