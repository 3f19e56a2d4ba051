package pages

// End-to-end tests of the generated paging iterators against a loopback
// server, one per kind of testdata/specs/pages.yaml: every item in order
// across the pages, a 503 on one page retried (the server sees the
// retry), and a breaker opened between pages that ends the iteration with
// a *runtime.CircuitOpenError before the next page is sent.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// perPage items on each of the pages a kind's server has: page k (from 0)
// holds ids 3k+1 to 3k+3; offset's last page is short.
const perPage, nPages = 3, 3

func pageOf(k int) []Widget {
	var out []Widget
	for i := range perPage {
		id := int64(k*perPage + i + 1)
		if k == nPages-1 && i == perPage-1 && offsetShort {
			break
		}
		out = append(out, Widget{ID: id})
	}
	return out
}

// offsetShort is set for the offset kind's server only (tests of one kind
// run one at a time: no t.Parallel).
var offsetShort bool

// kind is one paging kind: which page (from 0) a request asks for, and
// how the server writes page k (its status, headers and body).
type kind struct {
	name string
	// page is the page a request asks for, from its query or headers.
	page func(r *http.Request) int
	// write answers page k; base is the server's URL.
	write func(w http.ResponseWriter, base string, k int)
	// items ranges over the items with the generated iterator.
	items func(c *Client, ctx context.Context, opts ...runtime.CallOption) iter.Seq2[Widget, error]
	// requests is how many pages the server answers in a full iteration
	// (page's last request is an empty page).
	requests int
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func num(s, prefix string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(s, prefix))
	return n
}

var kinds = []kind{
	{
		name: "cursor/body",
		page: func(r *http.Request) int { return num(r.URL.Query().Get("after"), "c") },
		write: func(w http.ResponseWriter, _ string, k int) {
			meta := map[string]string{}
			if k < nPages-1 {
				meta["next_cursor"] = fmt.Sprintf("c%d", k+1)
			}
			writeJSON(w, map[string]any{"data": pageOf(k), "meta": meta})
		},
		items: func(c *Client, ctx context.Context, opts ...runtime.CallOption) iter.Seq2[Widget, error] {
			return c.ListByCursorPages(ctx, nil, opts...)
		},
		requests: nPages,
	},
	{
		name: "cursor/item",
		page: func(r *http.Request) int { return num(r.URL.Query().Get("starting_after"), "card") / perPage },
		write: func(w http.ResponseWriter, _ string, k int) {
			var cards []Card
			for _, w := range pageOf(k) {
				cards = append(cards, Card{ID: fmt.Sprintf("card%d", w.ID), N: w.ID})
			}
			writeJSON(w, map[string]any{"data": cards, "has_more": k < nPages-1})
		},
		items: func(c *Client, ctx context.Context, opts ...runtime.CallOption) iter.Seq2[Widget, error] {
			return func(yield func(Widget, error) bool) {
				for card, err := range c.ListAfterLastItemPages(ctx, nil, opts...) {
					if !yield(Widget{ID: card.N}, err) {
						return
					}
				}
			}
		},
		requests: nPages, // has_more is false on the last
	},
	{
		name: "cursor/header",
		page: func(r *http.Request) int { return num(r.Header.Get("X-Cursor"), "h") },
		write: func(w http.ResponseWriter, _ string, k int) {
			if k < nPages-1 {
				w.Header().Set("X-Next-Cursor", fmt.Sprintf("h%d", k+1))
			}
			writeJSON(w, pageOf(k))
		},
		items: func(c *Client, ctx context.Context, opts ...runtime.CallOption) iter.Seq2[Widget, error] {
			return c.ListByHeaderCursorPages(ctx, nil, opts...)
		},
		requests: nPages,
	},
	{
		name: "token",
		page: func(r *http.Request) int { return num(r.URL.Query().Get("pageToken"), "t") },
		write: func(w http.ResponseWriter, _ string, k int) {
			body := map[string]any{"items": pageOf(k)}
			if k < nPages-1 {
				body["nextPageToken"] = fmt.Sprintf("t%d", k+1)
			}
			writeJSON(w, body)
		},
		items: func(c *Client, ctx context.Context, opts ...runtime.CallOption) iter.Seq2[Widget, error] {
			return c.ListByTokenPages(ctx, nil, opts...)
		},
		requests: nPages,
	},
	{
		name: "offset",
		page: func(r *http.Request) int { return num(r.URL.Query().Get("offset"), "") / perPage },
		write: func(w http.ResponseWriter, _ string, k int) {
			writeJSON(w, map[string]any{"results": pageOf(k)})
		},
		items: func(c *Client, ctx context.Context, opts ...runtime.CallOption) iter.Seq2[Widget, error] {
			limit := int32(perPage)
			return c.ListByOffsetPages(ctx, &ListByOffsetParams{Limit: &limit}, opts...)
		},
		requests: nPages, // the last page is short: no request after it
	},
	{
		name: "page",
		page: func(r *http.Request) int {
			if p := r.URL.Query().Get("page"); p != "" {
				return num(p, "") - 1
			}
			return 0
		},
		write: func(w http.ResponseWriter, _ string, k int) {
			var items []Widget
			if k < nPages {
				items = pageOf(k)
			}
			writeJSON(w, map[string]any{"entries": items})
		},
		items: func(c *Client, ctx context.Context, opts ...runtime.CallOption) iter.Seq2[Widget, error] {
			return c.ListByPagePages(ctx, nil, opts...)
		},
		requests: nPages + 1, // the empty page after the last
	},
	{
		name: "nextURL",
		page: func(r *http.Request) int { return num(r.URL.Query().Get("Page"), "") },
		write: func(w http.ResponseWriter, base string, k int) {
			var next any
			switch {
			case k == 0: // absolute, as Twilio writes it
				next = base + "/v1/nexturl/s1?Page=1&PageSize=3"
			case k < nPages-1: // relative to the operation's URL
				next = "/v1/nexturl/s1?Page=" + strconv.Itoa(k+1) + "&PageSize=3"
			}
			writeJSON(w, map[string]any{"records": pageOf(k), "links": map[string]any{"next": next}})
		},
		items: func(c *Client, ctx context.Context, opts ...runtime.CallOption) iter.Seq2[Widget, error] {
			size := int64(perPage)
			return c.ListByNextURLPages(ctx, "s1", &ListByNextURLParams{PageSize: &size}, opts...)
		},
		requests: nPages,
	},
	{
		name: "link",
		page: func(r *http.Request) int { return num(r.URL.Query().Get("page"), "") },
		write: func(w http.ResponseWriter, base string, k int) {
			if k < nPages-1 {
				w.Header().Add("Link", fmt.Sprintf(`<%s/v1/link?page=%d&per_page=3>; rel="next", <%s/v1/link?page=%d&per_page=3>; rel="last"`, base, k+1, base, nPages-1))
			}
			writeJSON(w, pageOf(k))
		},
		items: func(c *Client, ctx context.Context, opts ...runtime.CallOption) iter.Seq2[Widget, error] {
			return c.ListByLinkPages(ctx, nil, opts...)
		},
		requests: nPages,
	},
}

// pageServer answers a kind's pages and records which page each request
// asked for; fail(n, k) makes the n-th request (from 0), for page k,
// answer 503 instead. A request with X-Fail is answered 503 at once.
type pageServer struct {
	*httptest.Server
	mu    sync.Mutex
	pages []int // the page each request asked for
}

func newPageServer(t *testing.T, kd kind, fail func(n, k int) bool) *pageServer {
	t.Helper()
	s := &pageServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Fail") != "" {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		k := kd.page(r)
		s.mu.Lock()
		n := len(s.pages)
		s.pages = append(s.pages, k)
		s.mu.Unlock()
		if fail != nil && fail(n, k) {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		kd.write(w, s.URL, k)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *pageServer) seen() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.pages)
}

func newClient(t *testing.T, s *pageServer) *Client {
	t.Helper()
	c, err := NewClient(s.URL+"/v1", WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wantIDs are the ids of every item of every page, in order.
func wantIDs() []int64 {
	var ids []int64
	for k := range nPages {
		for _, w := range pageOf(k) {
			ids = append(ids, w.ID)
		}
	}
	return ids
}

func forEachKind(t *testing.T, test func(t *testing.T, kd kind)) {
	for _, kd := range kinds {
		t.Run(kd.name, func(t *testing.T) {
			offsetShort = kd.name == "offset"
			test(t, kd)
		})
	}
}

func TestPagesAllItemsInOrder(t *testing.T) {
	forEachKind(t, func(t *testing.T, kd kind) {
		s := newPageServer(t, kd, nil)
		var ids []int64
		for w, err := range kd.items(newClient(t, s), context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, w.ID)
		}
		if want := wantIDs(); !slices.Equal(ids, want) {
			t.Errorf("items %v, want %v", ids, want)
		}
		want := []int{0, 1, 2, 3}[:kd.requests]
		if got := s.seen(); !slices.Equal(got, want) {
			t.Errorf("the server was asked for pages %v, want %v", got, want)
		}
	})
}

func TestPagesRetryA503(t *testing.T) {
	forEachKind(t, func(t *testing.T, kd kind) {
		// The first request for page 1 fails; its retry succeeds.
		s := newPageServer(t, kd, func(n, k int) bool { return n == 1 && k == 1 })
		var ids []int64
		for w, err := range kd.items(newClient(t, s), context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, w.ID)
		}
		if want := wantIDs(); !slices.Equal(ids, want) {
			t.Errorf("items %v, want %v", ids, want)
		}
		want := append([]int{0, 1}, []int{1, 2, 3}[:kd.requests-1]...)
		if got := s.seen(); !slices.Equal(got, want) {
			t.Errorf("the server was asked for pages %v, want %v (page 1 twice: the retry)", got, want)
		}
	})
}

func TestPagesStopAtOpenBreaker(t *testing.T) {
	forEachKind(t, func(t *testing.T, kd kind) {
		s := newPageServer(t, kd, nil)
		c := newClient(t, s)
		ctx := context.Background()
		var ids []int64
		var stopped error
		for w, err := range kd.items(c, ctx) {
			if err != nil {
				stopped = err
				break
			}
			ids = append(ids, w.ID)
			if len(ids) == perPage {
				// Between pages, other calls behind the same breaker
				// fail and open it.
				for range 2 {
					c.ListByLink(ctx, nil, runtime.WithHeader("X-Fail", "1"), runtime.WithNoRetry())
				}
			}
		}
		if st := c.Breakers()[BreakerPages].State(); st != runtime.StateOpen {
			t.Fatalf("breaker %v, want open", st)
		}
		var open *runtime.CircuitOpenError
		if !errors.As(stopped, &open) {
			t.Fatalf("the iteration ended with %v, want a *runtime.CircuitOpenError", stopped)
		}
		if want := wantIDs()[:perPage]; !slices.Equal(ids, want) {
			t.Errorf("items %v, want %v (the first page only)", ids, want)
		}
		if got := s.seen(); !slices.Equal(got, []int{0}) {
			t.Errorf("the server was asked for pages %v, want [0]: the open breaker sends nothing", got)
		}
	})
}
