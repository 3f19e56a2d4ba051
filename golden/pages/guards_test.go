package pages

// The guards of an iteration over pages: a server that names a page twice
// (a loop), a next URL on another host, the maximum number of pages, the
// total timeout of all the pages, and a loop the caller breaks out of.

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
)

func kindNamed(t *testing.T, name string) kind {
	t.Helper()
	for _, kd := range kinds {
		if kd.name == name {
			offsetShort = name == "offset"
			return kd
		}
	}
	t.Fatalf("no kind %q", name)
	return kind{}
}

func TestPagesRepeatedCursorIsAnError(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Every page names c1 as the next: page 2 names it again.
		writeJSON(w, map[string]any{"data": pageOf(0), "meta": map[string]string{"next_cursor": "c1"}})
	}))
	defer s.Close()
	c := newClient(t, &pageServer{Server: s})
	pages := 0
	var stopped error
	for _, err := range c.ListByCursorPagesOf(context.Background(), nil) {
		if err != nil {
			stopped = err
			break
		}
		pages++
	}
	var pe *runtime.PageError
	if !errors.As(stopped, &pe) || pe.Page != 2 || pe.Operation != "listByCursor" {
		t.Fatalf("ended with %#v, want a *runtime.PageError at page 2 of listByCursor", stopped)
	}
	if pages != 2 {
		t.Errorf("%d pages yielded, want 2", pages)
	}
}

func TestPagesNextURLOnAnotherHostIsNotFollowed(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"records": pageOf(0), "links": map[string]any{"next": other.URL + "/v1/nexturl/s1?Page=1"}})
	}))
	defer s.Close()
	c := newClient(t, &pageServer{Server: s})
	var stopped error
	n := 0
	for _, err := range c.ListByNextURLPages(context.Background(), "s1", nil) {
		if err != nil {
			stopped = err
			break
		}
		n++
	}
	var pe *runtime.PageError
	if !errors.As(stopped, &pe) || pe.Page != 1 {
		t.Fatalf("ended with %v, want a *runtime.PageError after page 1", stopped)
	}
	if n != perPage {
		t.Errorf("%d items, want the first page's %d", n, perPage)
	}
	if elsewhere.Load() != 0 {
		t.Error("the other host was sent a request")
	}
	if st := c.Breakers()[BreakerPages].Metrics(); st.Failed != 0 || st.Calls != 1 {
		t.Errorf("the breaker recorded %d calls, %d failed; want the first page only", st.Calls, st.Failed)
	}
}

func TestPagesMaxPages(t *testing.T) {
	kd := kindNamed(t, "token")
	s := newPageServer(t, kd, nil)
	var stopped error
	n := 0
	for _, err := range kd.items(newClient(t, s), context.Background(), runtime.WithMaxPages(2)) {
		if err != nil {
			stopped = err
			break
		}
		n++
	}
	var pe *runtime.PageError
	if !errors.As(stopped, &pe) || pe.Page != 2 {
		t.Fatalf("ended with %v, want a *runtime.PageError after page 2", stopped)
	}
	if got := s.seen(); !slices.Equal(got, []int{0, 1}) || n != 2*perPage {
		t.Errorf("pages %v and %d items, want [0 1] and %d", got, n, 2*perPage)
	}
}

func TestPagesBreakStopsFetching(t *testing.T) {
	forEachKind(t, func(t *testing.T, kd kind) {
		s := newPageServer(t, kd, nil)
		n := 0
		for _, err := range kd.items(newClient(t, s), context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			if n++; n == perPage+1 { // the first item of page 1
				break
			}
		}
		if got := s.seen(); !slices.Equal(got, []int{0, 1}) {
			t.Errorf("the server was asked for pages %v, want [0 1]", got)
		}
	})
}

func TestPagesShareOneTotalTimeout(t *testing.T) {
	kd := kindNamed(t, "cursor/body")
	release := make(chan struct{})
	defer close(release)
	s := newPageServer(t, kd, func(n, k int) bool {
		if k == 1 {
			<-release // page 1 never answers while the test runs
		}
		return false
	})
	var stopped error
	n := 0
	for _, err := range kd.items(newClient(t, s), context.Background(), runtime.WithPagesTotalTimeout(50*time.Millisecond), runtime.WithNoRetry()) {
		if err != nil {
			stopped = err
			break
		}
		n++
	}
	if !errors.Is(stopped, context.DeadlineExceeded) {
		t.Fatalf("ended with %v, want the pages' deadline", stopped)
	}
	if n != perPage {
		t.Errorf("%d items, want page 0's %d", n, perPage)
	}
}
