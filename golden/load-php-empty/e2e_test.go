package loadphpempty

// Empty objects written as [] (testdata/specs/load/php-empty.json): the
// 204 written [] is a response without a body, and the schema written []
// in allOf adds nothing to the object beside it.

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestEmptyObjectsWrittenAsListsWork(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"t1","meta":{"k":"v"}}`)
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	del, err := c.DeleteThing(context.Background(), "t1")
	if err != nil || del.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %+v, %v", del, err)
	}
	got, err := c.GetThing(context.Background(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	if th := got.JSON200; th == nil || th.ID != "t1" || th.Meta == nil || (*th.Meta)["k"] != "v" {
		t.Fatalf("decoded %+v", got.JSON200)
	}
}
