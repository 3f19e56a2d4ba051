package multifile

// End-to-end tests of the client generated from a spec split over several
// files: the types and the response that live in refs/ must decode.

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

func newClient(t *testing.T, url string) *Client {
	t.Helper()
	c, err := NewClient(url, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func orders(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/orders/o-1":
		io.WriteString(w, `{"id": "o-1", "lines": [{"sku": "A-1", "qty": 2}, {"sku": "B"}, {}]}`)
	case "/orders/empty":
		io.WriteString(w, `{"id": "empty", "lines": []}`)
	case "/orders/boom":
		w.WriteHeader(500)
		io.WriteString(w, `{"message": "db down"}`)
	default:
		w.WriteHeader(404)
		io.WriteString(w, `{"message": "no order `+r.URL.EscapedPath()+`"}`)
	}
}

func TestOrderWithLinesFromOtherFilesDecodes(t *testing.T) {
	s, n := newServer(t, orders)
	c := newClient(t, s.URL)
	resp, err := c.GetOrder(t.Context(), "o-1")
	if err != nil {
		t.Fatal(err)
	}
	o := resp.JSON200
	if resp.StatusCode != 200 || o == nil || o.ID != "o-1" || len(o.Lines) != 3 || resp.JSON404 != nil {
		t.Fatalf("got %d %+v", resp.StatusCode, o)
	}
	l := o.Lines
	if l[0].Sku == nil || *l[0].Sku != "A-1" || l[0].Qty == nil || *l[0].Qty != 2 {
		t.Errorf("line 0 %+v", l[0])
	}
	if l[1].Sku == nil || *l[1].Sku != "B" || l[1].Qty != nil || l[2].Sku != nil || l[2].Qty != nil {
		t.Errorf("lines 1 and 2: %+v %+v", l[1], l[2])
	}
	// The component Order (a $ref to refs/order.yaml) is the same type.
	var _ Order = Order(*o)

	resp, err = c.GetOrder(t.Context(), "empty")
	if err != nil || resp.JSON200 == nil || resp.JSON200.Lines == nil || len(resp.JSON200.Lines) != 0 {
		t.Errorf("empty order: %+v, %v", resp, err)
	}
	if n.Load() != 2 {
		t.Errorf("the server saw %d requests", n.Load())
	}
}

func TestNotFoundFromCommonFileDecodes(t *testing.T) {
	s, n := newServer(t, orders)
	c := newClient(t, s.URL)
	resp, err := c.GetOrder(t.Context(), "x/y z")
	var se *runtime.StatusError
	if !errors.As(err, &se) || se.StatusCode != 404 || se.Decoded != resp.JSON404 {
		t.Fatalf("a declared 404 is a *runtime.StatusError with the decoded body: %v", err)
	}
	if resp.StatusCode != 404 || resp.JSON404 == nil || resp.JSON404.Message == nil || resp.JSON200 != nil {
		t.Fatalf("got %d %+v", resp.StatusCode, resp.JSON404)
	}
	// The id parameter (from refs/common.yaml) is one escaped path segment.
	if m := *resp.JSON404.Message; m != "no order /orders/x%2Fy%20z" {
		t.Errorf("message %q", m)
	}
	if resp.Attempts != 1 || n.Load() != 1 {
		t.Errorf("a 404 was retried: %d attempts", resp.Attempts)
	}
}

func TestUndeclared500IsAStatusError(t *testing.T) {
	s, n := newServer(t, orders)
	c := newClient(t, s.URL)
	_, err := c.GetOrder(t.Context(), "boom")
	var se *runtime.StatusError
	if !errors.As(err, &se) || se.StatusCode != 500 || string(se.Body) != `{"message": "db down"}` || se.Attempts != 3 {
		t.Fatalf("got %v; want a StatusError 500 with the body after 3 attempts", err)
	}
	if n.Load() != 3 {
		t.Errorf("the server saw %d requests; want 3", n.Load())
	}
}
