package loadcomponentsmap

// The spec's paths and its maps of schemas, parameters and responses are
// each a $ref to a file that holds the whole map (testdata/specs/load/components-map): the client
// decodes the types those files declare, a $ref into the map included.

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
)

func TestTypesFromTheReferencedMapsDecode(t *testing.T) {
	var path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path = r.URL.Path
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/owners/gone" {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message":"no such owner"}`)
			return
		}
		io.WriteString(w, `{"name":"ann","pets":[{"name":"rex","kind":"dog","born":"2020-02-03T04:05:06Z"}]}`)
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.GetOwner(context.Background(), "o 1")
	if err != nil {
		t.Fatal(err)
	}
	if path != "/owners/o 1" {
		t.Errorf("path %q", path)
	}
	o := resp.JSON200
	if o == nil || o.Name != "ann" || len(o.Pets) != 1 {
		t.Fatalf("decoded %+v", o)
	}
	p := o.Pets[0]
	if p.Name != "rex" || p.Kind == nil || *p.Kind != PetKindDog || p.Born == nil || !p.Born.Equal(time.Date(2020, 2, 3, 4, 5, 6, 0, time.UTC)) {
		t.Fatalf("pet %+v", p)
	}
	// The 404 of the responses map, through the parameters map.
	gone, err := c.GetOwner(context.Background(), "gone")
	if !errors.Is(err, runtime.ErrNotRetryable) || gone.JSON404 == nil || gone.JSON404.Message != "no such owner" {
		t.Fatalf("404: %+v, %v", gone, err)
	}
}
