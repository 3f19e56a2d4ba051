package loaddanglingref

// A $ref to a schema and one to a response that do not exist
// (testdata/specs/load/dangling-ref.yaml): the other operations are typed
// as usual, the dangling schema is a json.RawMessage that keeps what the
// server sent, and the dangling 404 is a response without a typed body.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/resgen/resgen/runtime"
)

func TestTheOtherOperationsAndTheUntypedPart(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/pets":
			io.WriteString(w, `[{"name":"rex"}]`)
		case "/stores/s1":
			io.WriteString(w, `{"id":"s1","owner":{"name":"ann","since":2019}}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":"no such store"}`)
		}
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	pets, err := c.ListPets(context.Background())
	if err != nil || len(pets.JSON200) != 1 || pets.JSON200[0] != (Pet{Name: "rex"}) {
		t.Fatalf("list pets: %+v, %v", pets, err)
	}
	store, err := c.GetStore(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	var owner json.RawMessage = store.JSON200.Owner
	if store.JSON200.ID != "s1" || string(owner) != `{"name":"ann","since":2019}` {
		t.Fatalf("store %+v, owner %s", store.JSON200, owner)
	}
	missing, err := c.GetStore(context.Background(), "s2")
	if !errors.Is(err, runtime.ErrNotRetryable) || missing.StatusCode != http.StatusNotFound || string(missing.Body) != `{"error":"no such store"}` {
		t.Fatalf("404: %+v, %v", missing, err)
	}
}
