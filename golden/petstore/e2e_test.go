package petstore

// End-to-end tests of the generated Petstore client against a real HTTP
// server on loopback. Each test also runs the same calls with the
// breaker moved inside the retry loop (the runtime's test-only
// RetryOutside), and asserts the numbers differ: the tests would fail if
// the generated code used that order.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/resgen/resgen/runtime"
)

// server is an httptest server that answers with the next status of a
// script (repeating the last one) and records what it received.
type server struct {
	*httptest.Server
	mu     sync.Mutex
	script []int
	reqs   []*http.Request
	bodies []string
}

func newServer(t *testing.T, body string, script ...int) *server {
	s := &server{script: script}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, r)
		s.bodies = append(s.bodies, string(b))
		code := s.script[min(n, len(s.script)-1)]
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		if code < 300 {
			io.WriteString(w, body)
		} else {
			io.WriteString(w, `{"code": 1, "message": "down"}`)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) hits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

func newClient(t *testing.T, s *server, opts ...Option) *Client {
	t.Helper()
	c, err := NewClient(s.URL, append([]Option{WithLogger(slog.New(slog.DiscardHandler))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestGETFailingOnceIsRetriedAndSucceeds(t *testing.T) {
	s := newServer(t, `{"id": 1, "name": "rex"}`, 503, 200)
	c := newClient(t, s)
	resp, err := c.ShowPetByID(context.Background(), "1")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.JSON200 == nil || resp.JSON200.Name != "rex" || resp.JSON200.ID != 1 {
		t.Fatalf("got status %d, pet %+v", resp.StatusCode, resp.JSON200)
	}
	if resp.Attempts != 2 || s.hits() != 2 {
		t.Fatalf("attempts %d, server calls %d; want 2 and 2", resp.Attempts, s.hits())
	}
	if s.reqs[1].URL.Path != "/pets/1" {
		t.Errorf("path %q", s.reqs[1].URL.Path)
	}
	// The breaker saw one call, and it succeeded: the failed attempt was
	// fixed by the retry before the breaker heard of it.
	m := c.Breakers()["pets"].Metrics()
	if m.Calls != 1 || m.Failed != 0 {
		t.Fatalf("breaker recorded %d calls, %d failed; want 1 and 0", m.Calls, m.Failed)
	}

	t.Run("swapped order records the failed attempt", func(t *testing.T) {
		s := newServer(t, `{"id": 1, "name": "rex"}`, 503, 200)
		c := newClient(t, s)
		swapped(t, c)
		if _, err := c.ShowPetByID(context.Background(), "1"); err != nil {
			t.Fatal(err)
		}
		if m := c.Breakers()["pets"].Metrics(); m.Calls != 2 || m.Failed != 1 {
			t.Fatalf("swapped: breaker recorded %d calls, %d failed; want 2 and 1", m.Calls, m.Failed)
		}
	})
}

func TestPOSTWithoutKeyIsSentOnceOn503(t *testing.T) {
	s := newServer(t, ``, 503)
	c := newClient(t, s)
	resp, err := c.CreatePets(context.Background(), Pet{ID: 9, Name: "tom"})
	var se *runtime.StatusError
	if !errors.As(err, &se) || !errors.Is(err, runtime.ErrNotRetrySafe) || se.Decoded != resp.JSONDefault {
		t.Fatalf("%v; want a *runtime.StatusError stopped by ErrNotRetrySafe", err)
	}
	if s.hits() != 1 || resp.Attempts != 1 {
		t.Fatalf("server calls %d, attempts %d; a POST without a key must be sent exactly once", s.hits(), resp.Attempts)
	}
	if resp.StatusCode != 503 || resp.JSONDefault == nil || resp.JSONDefault.Message != "down" {
		t.Fatalf("got %d %+v; want the declared default error", resp.StatusCode, resp.JSONDefault)
	}
	var sent Pet
	if err := json.Unmarshal([]byte(s.bodies[0]), &sent); err != nil || sent.Name != "tom" {
		t.Fatalf("server got body %q", s.bodies[0])
	}
	if ct := s.reqs[0].Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if m := c.Breakers()["pets"].Metrics(); m.Calls != 1 || m.Failed != 1 {
		t.Fatalf("breaker recorded %d calls, %d failed; want 1 and 1", m.Calls, m.Failed)
	}
}

var uuidForm = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestKeyedPOSTIsRetriedWithOneKey(t *testing.T) {
	s := newServer(t, `{"owner": "ann"}`, 503, 502, 201)
	c := newClient(t, s)
	resp, err := c.AdoptPet(context.Background(), "7", nil, Adoption{Owner: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 201 || resp.JSON201 == nil || resp.JSON201.Owner != "ann" {
		t.Fatalf("got %d %+v", resp.StatusCode, resp.JSON201)
	}
	if s.hits() != 3 || resp.Attempts != 3 {
		t.Fatalf("server calls %d, attempts %d; want 3", s.hits(), resp.Attempts)
	}
	key := s.reqs[0].Header.Get("Idempotency-Key")
	if !uuidForm.MatchString(key) {
		t.Fatalf("key %q is not a random UUID", key)
	}
	for i, r := range s.reqs {
		if got := r.Header.Get("Idempotency-Key"); got != key {
			t.Errorf("attempt %d sent key %q, attempt 1 sent %q", i+1, got, key)
		}
		if s.bodies[i] != s.bodies[0] || !strings.Contains(s.bodies[i], `"owner":"ann"`) {
			t.Errorf("attempt %d sent body %q, attempt 1 sent %q", i+1, s.bodies[i], s.bodies[0])
		}
	}
	if m := c.Breakers()["pets"].Metrics(); m.Calls != 1 || m.Failed != 0 {
		t.Fatalf("breaker recorded %d calls, %d failed; want 1 and 0", m.Calls, m.Failed)
	}

	t.Run("a new call makes a new key", func(t *testing.T) {
		s2 := newServer(t, `{"owner": "bo"}`, 201)
		c2 := newClient(t, s2)
		for range 2 {
			if _, err := c2.AdoptPet(context.Background(), "7", nil, Adoption{Owner: "bo"}); err != nil {
				t.Fatal(err)
			}
		}
		if a, b := s2.reqs[0].Header.Get("Idempotency-Key"), s2.reqs[1].Header.Get("Idempotency-Key"); a == b {
			t.Fatalf("two calls sent the same key %q", a)
		}
	})
	t.Run("the caller's key is used on every attempt", func(t *testing.T) {
		s3 := newServer(t, `{"owner": "cy"}`, 500, 201)
		c3 := newClient(t, s3)
		mine := "order-42"
		if _, err := c3.AdoptPet(context.Background(), "7", &AdoptPetParams{IdempotencyKey: &mine}, Adoption{Owner: "cy"}); err != nil {
			t.Fatal(err)
		}
		for i, r := range s3.reqs {
			if got := r.Header.Get("Idempotency-Key"); got != mine {
				t.Errorf("attempt %d sent %q, want %q", i+1, got, mine)
			}
		}
	})
	t.Run("swapped order records every failed attempt", func(t *testing.T) {
		s4 := newServer(t, `{"owner": "ann"}`, 503, 502, 201)
		c4 := newClient(t, s4)
		swapped(t, c4)
		if _, err := c4.AdoptPet(context.Background(), "7", nil, Adoption{Owner: "ann"}); err != nil {
			t.Fatal(err)
		}
		if m := c4.Breakers()["pets"].Metrics(); m.Calls != 3 || m.Failed != 2 {
			t.Fatalf("swapped: breaker recorded %d calls, %d failed; want 3 and 2", m.Calls, m.Failed)
		}
	})
}

// callsUntilOpen calls ShowPetByID until the breaker refuses one, and
// returns how many calls and server calls that took.
func callsUntilOpen(t *testing.T, c *Client, s *server) (calls, hits int) {
	t.Helper()
	for calls = 1; calls <= 50; calls++ {
		_, err := c.ShowPetByID(context.Background(), "1")
		if errors.Is(err, runtime.ErrCircuitOpen) {
			return calls - 1, s.hits()
		}
	}
	t.Fatal("the breaker never opened")
	return 0, 0
}

func TestOpenBreakerFailsFastWithoutReachingTheServer(t *testing.T) {
	var logs bytes.Buffer
	s := newServer(t, ``, 500)
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	// Policy pets: minimumCalls 4, failureRateThreshold 50; retry quick: 3
	// attempts. Four failed calls of three attempts each open it.
	calls, hits := callsUntilOpen(t, c, s)
	if calls != 4 || hits != 12 {
		t.Fatalf("breaker opened after %d calls = %d server calls; want 4 = 12", calls, hits)
	}
	for range 5 {
		_, err := c.ShowPetByID(context.Background(), "1")
		var open *runtime.CircuitOpenError
		if !errors.As(err, &open) || !errors.Is(err, runtime.ErrCircuitOpen) || open.Breaker != "pets" {
			t.Fatalf("got %v; want a CircuitOpenError of breaker pets", err)
		}
		if !strings.Contains(err.Error(), `"pets"`) {
			t.Errorf("error %q does not name the breaker", err)
		}
	}
	if s.hits() != 12 {
		t.Fatalf("the server saw %d calls while the breaker was open", s.hits()-12)
	}
	// Every operation behind the same shared breaker fails fast too.
	if _, err := c.ListPets(context.Background(), nil); !errors.Is(err, runtime.ErrCircuitOpen) {
		t.Fatalf("ListPets: got %v; the shared breaker is open", err)
	}
	if !strings.Contains(logs.String(), `breaker \"pets\" opened: failure rate 100%`) {
		t.Errorf("no state-change log line with its reason; log:\n%s", logs.String())
	}

	t.Run("swapped order opens on attempts", func(t *testing.T) {
		s := newServer(t, ``, 500)
		c := newClient(t, s)
		swapped(t, c)
		calls, hits := callsUntilOpen(t, c, s)
		if calls == 4 && hits == 12 {
			t.Fatalf("swapped order gave the same numbers as breaker-outside")
		}
		if hits != 4 {
			t.Fatalf("swapped: breaker opened after %d server calls; want 4 (one per attempt)", hits)
		}
	})
}

func TestDeclaredResponseHeaderIsTyped(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("limit") == "2" {
			w.Header().Set("X-Next", "/pets?page=2")
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `[{"id": 1, "name": "rex"}, {"id": 2, "name": "tom"}]`)
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	limit := int32(2)
	resp, err := c.ListPets(context.Background(), &ListPetsParams{Limit: &limit})
	if err != nil {
		t.Fatal(err)
	}
	if resp.XNext == nil || *resp.XNext != "/pets?page=2" || resp.JSON200 == nil || len(*resp.JSON200) != 2 {
		t.Fatalf("x-next %v, pets %v", resp.XNext, resp.JSON200)
	}
	resp, err = c.ListPets(context.Background(), nil)
	if err != nil || resp.XNext != nil {
		t.Fatalf("without the header: %v, %v", resp.XNext, err)
	}
}
