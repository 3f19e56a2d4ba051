package petstore

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/resgen/resgen/runtime"
)

// TestUndeclaredStatusBodyIsBounded: ShowPetByID declares 200 and 404; a
// 500 with a 100 MiB body (after the retries) is a StatusError holding at
// most 64 KiB of it, and the call allocates far less than the body.
func TestUndeclaredStatusBodyIsBounded(t *testing.T) {
	const size = 100 << 20
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(size))
		w.WriteHeader(500)
		for range size / len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer s.Close()
	c, err := NewClient(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	_, err = c.ShowPetByID(context.Background(), "1")
	goruntime.GC()
	goruntime.ReadMemStats(&after)
	var se *runtime.StatusError
	if !errors.As(err, &se) || se.StatusCode != 500 || se.Attempts != 3 {
		t.Fatalf("err %v; want a StatusError for 500 after 3 attempts", err)
	}
	if len(se.Body) > 64<<10 || len(se.Body) == 0 || se.Body[0] != 'x' {
		t.Fatalf("StatusError.Body holds %d bytes; want the first 64 KiB at most", len(se.Body))
	}
	const bound = 16 << 20
	if grew := after.TotalAlloc - before.TotalAlloc; grew > bound {
		t.Fatalf("the call allocated %d MiB for a 100 MiB error body; want under %d MiB", grew>>20, bound>>20)
	}
	if kept := int64(after.HeapAlloc) - int64(before.HeapAlloc); kept > bound {
		t.Fatalf("the error keeps %d MiB alive; want under %d MiB", kept>>20, bound>>20)
	}
	goruntime.KeepAlive(se)
}

// TestDeclaredBodyIsReadWhole: a declared answer is never cut short, even
// far past 64 KiB.
func TestDeclaredBodyIsReadWhole(t *testing.T) {
	name := strings.Repeat("n", 3<<20)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id": 1, "name": "` + name + `"}`))
	}))
	defer s.Close()
	c, err := NewClient(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.ShowPetByID(context.Background(), "1")
	if err != nil || resp.JSON200 == nil || resp.JSON200.Name != name {
		t.Fatalf("err %v; a 3 MiB declared answer must decode whole", err)
	}
}
