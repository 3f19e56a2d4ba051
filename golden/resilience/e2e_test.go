package resilience

// End-to-end tests of the generated Resilience client against a loopback
// server: each x-resilience form of testdata/specs/resilience.yaml must
// change what reaches the server (how many attempts, which key header,
// which breaker refuses what).

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type got struct {
	Method, Path string
	Header       http.Header
	Body         string
}

type answer struct {
	status int
	header map[string]string
}

// server records requests and answers fn(n) for the n-th (0-based).
type server struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []got
}

func newServer(t *testing.T, fn func(n int, r *http.Request) answer) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, got{r.Method, r.URL.Path, r.Header.Clone(), string(b)})
		s.mu.Unlock()
		a := fn(n, r)
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(a.status)
		io.WriteString(w, "status body")
	}))
	t.Cleanup(s.Close)
	return s
}

// script answers the next status of codes, repeating the last one.
func script(codes ...int) func(int, *http.Request) answer {
	return func(n int, _ *http.Request) answer { return answer{status: codes[min(n, len(codes)-1)]} }
}

func (s *server) hits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

func (s *server) all() []got {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

func newClient(t *testing.T, s *server) *Client {
	t.Helper()
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

// wantStatusError checks err is a *runtime.StatusError with this status
// after this many attempts.
func wantStatusError(t *testing.T, what string, err error, status, attempts int) {
	t.Helper()
	var se *runtime.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("%s: got %v; want a *runtime.StatusError", what, err)
	}
	if se.StatusCode != status || se.Attempts != attempts {
		t.Fatalf("%s: got status %d after %d attempts; want %d after %d", what, se.StatusCode, se.Attempts, status, attempts)
	}
}

func wantOpen(t *testing.T, what string, err error, breaker string) {
	t.Helper()
	var open *runtime.CircuitOpenError
	if !errors.As(err, &open) || !errors.Is(err, runtime.ErrCircuitOpen) || open.Breaker != breaker {
		t.Fatalf("%s: got %v; want a CircuitOpenError of breaker %q", what, err, breaker)
	}
}

func metrics(t *testing.T, c *Client, breaker string) runtime.BreakerMetrics {
	t.Helper()
	b := c.Breakers()[breaker]
	if b == nil {
		t.Fatalf("no breaker %q", breaker)
	}
	return b.Metrics()
}

var uuidForm = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestBreakerInstances(t *testing.T) {
	c := newClient(t, newServer(t, script(200)))
	var names []string
	for n := range c.Breakers() {
		names = append(names, n)
	}
	slices.Sort(names)
	// strict is only extended, never named by an operation: no instance.
	// perop has scope: operation: one instance per operation. The inline
	// breaker of inlinePolicies is its own instance, not timed's.
	want := []string{"base", "inlinePolicies", "perop/perOperationOne", "perop/perOperationTwo", "stricter", "timed"}
	if !slices.Equal(names, want) {
		t.Fatalf("breakers %q; want %q", names, want)
	}
}

func TestRetryNoneBreakerNoneIsSentOnceAndNeverRefused(t *testing.T) {
	s := newServer(t, script(503))
	c := newClient(t, s)
	// base opens after 10 calls at 25%: 30 failed deleteNoRetry calls
	// would open it three times over if they were recorded anywhere.
	for i := range 30 {
		_, err := c.DeleteNoRetry(t.Context())
		if errors.Is(err, runtime.ErrCircuitOpen) {
			t.Fatalf("call %d refused by a breaker; deleteNoRetry has breaker: none", i+1)
		}
		wantStatusError(t, "deleteNoRetry", err, 503, 1)
		if s.hits() != i+1 {
			t.Fatalf("call %d: the server saw %d requests; want one per call", i+1, s.hits())
		}
	}
	for n, b := range c.Breakers() {
		if m := b.Metrics(); m.Calls != 0 {
			t.Errorf("breaker %s recorded %d calls of an operation without a breaker", n, m.Calls)
		}
	}
}

func TestNonRetriedOperationsAreSentOnceOn503(t *testing.T) {
	for _, tc := range []struct {
		name, method, path string
		call               func(*Client) error
	}{
		{"putNotIdempotent (PUT marked idempotent: false)", "PUT", "/a", func(c *Client) error {
			_, err := c.PutNotIdempotent(t.Context())
			return err
		}},
		{"postNotRetried (POST, defaults.retry skipped)", "POST", "/a", func(c *Client) error {
			_, err := c.PostNotRetried(t.Context())
			return err
		}},
		{"pathRetrySkipped (POST, path-level retry skipped)", "POST", "/b", func(c *Client) error {
			_, err := c.PathRetrySkipped(t.Context())
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, script(503, 200))
			c := newClient(t, s)
			wantStatusError(t, tc.name, tc.call(c), 503, 1)
			if s.hits() != 1 {
				t.Fatalf("the server saw %d requests; want 1", s.hits())
			}
			if r := s.all()[0]; r.Method != tc.method || r.Path != tc.path {
				t.Errorf("sent %s %s; want %s %s", r.Method, r.Path, tc.method, tc.path)
			}
			for _, h := range []string{"X-Idempotency-Key", "Idempotency-Key", "Request-Id"} {
				if v := s.all()[0].Header.Get(h); v != "" {
					t.Errorf("an operation without a key sent %s: %q", h, v)
				}
			}
		})
	}
	t.Run("control: the same 503 is retried on a GET", func(t *testing.T) {
		s := newServer(t, script(503, 200))
		c := newClient(t, s)
		resp, err := c.DefaultsOnly(t.Context())
		if err != nil || resp.StatusCode != 200 || resp.Attempts != 2 || s.hits() != 2 {
			t.Fatalf("got %+v, %v; want 200 after 2 attempts", resp, err)
		}
	})
}

func TestKeyedByPolicySendsXIdempotencyKeyOnEveryAttempt(t *testing.T) {
	s := newServer(t, script(503, 500, 200))
	c := newClient(t, s)
	resp, err := c.KeyedByPolicy(t.Context(), nil)
	if err != nil || resp.StatusCode != 200 || resp.Attempts != 3 || s.hits() != 3 {
		t.Fatalf("got %+v, %v; want 200 after 3 attempts (PATCH keyed by policy, retry stubborn)", resp, err)
	}
	reqs := s.all()
	key := reqs[0].Header.Get("X-Idempotency-Key")
	if !uuidForm.MatchString(key) {
		t.Fatalf("X-Idempotency-Key %q is not a random UUID", key)
	}
	for i, r := range reqs {
		if r.Method != "PATCH" || r.Path != "/b" {
			t.Errorf("attempt %d: %s %s", i+1, r.Method, r.Path)
		}
		if v := r.Header.Values("X-Idempotency-Key"); !slices.Equal(v, []string{key}) {
			t.Errorf("attempt %d sent X-Idempotency-Key %q; attempt 1 sent %q", i+1, v, key)
		}
		if v := r.Header.Get("Idempotency-Key"); v != "" {
			t.Errorf("attempt %d sent Idempotency-Key %q: the spec's idempotencyKeyHeader is X-Idempotency-Key", i+1, v)
		}
	}

	t.Run("a new call makes a new key", func(t *testing.T) {
		if _, err := c.KeyedByPolicy(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		if k := s.all()[3].Header.Get("X-Idempotency-Key"); k == key || !uuidForm.MatchString(k) {
			t.Fatalf("second call sent key %q, first %q", k, key)
		}
	})
	t.Run("the caller's key is used on every attempt", func(t *testing.T) {
		s := newServer(t, script(502, 200))
		c := newClient(t, s)
		if _, err := c.KeyedByPolicy(t.Context(), &KeyedByPolicyParams{IdempotencyKey: ptr("mine-1")}); err != nil {
			t.Fatal(err)
		}
		for i, r := range s.all() {
			if v := r.Header.Values("X-Idempotency-Key"); !slices.Equal(v, []string{"mine-1"}) {
				t.Errorf("attempt %d sent %q", i+1, v)
			}
		}
		if s.hits() != 2 {
			t.Errorf("the server saw %d requests; want 2", s.hits())
		}
	})
}

func TestKeyedByParameterUsesTheCallersHeaderOnEveryAttempt(t *testing.T) {
	s := newServer(t, script(503, 504, 200))
	c := newClient(t, s)
	resp, err := c.KeyedByParameter(t.Context(), &KeyedByParameterParams{XIdempotencyKey: ptr("pay-2024-0001")})
	if err != nil || resp.StatusCode != 200 || resp.Attempts != 3 {
		t.Fatalf("got %+v, %v; want 200 after 3 attempts (POST keyed by its header parameter)", resp, err)
	}
	for i, r := range s.all() {
		if r.Method != "POST" || r.Path != "/c" {
			t.Errorf("attempt %d: %s %s", i+1, r.Method, r.Path)
		}
		if v := r.Header.Values("X-Idempotency-Key"); !slices.Equal(v, []string{"pay-2024-0001"}) {
			t.Errorf("attempt %d sent x-idempotency-key %q; want the caller's, once", i+1, v)
		}
	}

	t.Run("without the caller's value a key is made, the same on every attempt", func(t *testing.T) {
		s := newServer(t, script(503, 200))
		c := newClient(t, s)
		if _, err := c.KeyedByParameter(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		r := s.all()
		if k := r[0].Header.Get("X-Idempotency-Key"); !uuidForm.MatchString(k) || r[1].Header.Get("X-Idempotency-Key") != k {
			t.Fatalf("keys %q, %q", k, r[1].Header.Get("X-Idempotency-Key"))
		}
	})
}

func TestCustomKeyHeaderUsesRequestID(t *testing.T) {
	s := newServer(t, script(500, 200))
	c := newClient(t, s)
	resp, err := c.CustomKeyHeader(t.Context(), nil)
	if err != nil || resp.StatusCode != 200 || resp.Attempts != 2 {
		t.Fatalf("got %+v, %v; want 200 after 2 attempts", resp, err)
	}
	reqs := s.all()
	key := reqs[0].Header.Get("Request-Id")
	if !uuidForm.MatchString(key) {
		t.Fatalf("Request-Id %q is not a random UUID", key)
	}
	for i, r := range reqs {
		if r.Method != "PUT" || r.Header.Get("Request-Id") != key {
			t.Errorf("attempt %d: %s with Request-Id %q; want PUT with %q", i+1, r.Method, r.Header.Get("Request-Id"), key)
		}
		if v := r.Header.Get("X-Idempotency-Key"); v != "" {
			t.Errorf("attempt %d also sent X-Idempotency-Key %q: Request-Id is used instead", i+1, v)
		}
	}
	if _, err := c.CustomKeyHeader(t.Context(), &CustomKeyHeaderParams{IdempotencyKey: ptr("req-9")}); err != nil {
		t.Fatal(err)
	}
	if v := s.all()[2].Header.Get("Request-Id"); v != "req-9" {
		t.Errorf("the caller's key: sent Request-Id %q", v)
	}
}

func TestSearchIdempotentPOSTIsRetriedWithItsBody(t *testing.T) {
	s := newServer(t, script(503, 200))
	c := newClient(t, s)
	resp, err := c.SearchIdempotent(t.Context(), &SearchIdempotentBody{Query: ptr("name:rex")})
	if err != nil || resp.Attempts != 2 {
		t.Fatalf("got %+v, %v; want 200 after 2 attempts", resp, err)
	}
	for i, r := range s.all() {
		if r.Body != `{"query":"name:rex"}` || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("attempt %d sent %q (%s)", i+1, r.Body, r.Header.Get("Content-Type"))
		}
	}
	if m := metrics(t, c, "timed"); m.Calls != 1 || m.Failed != 0 {
		t.Errorf("timed recorded %d calls, %d failed; want 1 and 0", m.Calls, m.Failed)
	}
}

func TestInlineBreakerIsItsOwnInstance(t *testing.T) {
	s := newServer(t, script(200))
	c := newClient(t, s)
	if _, err := c.InlinePolicies(t.Context()); err != nil {
		t.Fatal(err)
	}
	if m := metrics(t, c, "inlinePolicies"); m.Calls != 1 {
		t.Errorf("inline breaker recorded %d calls; want 1", m.Calls)
	}
	if m := metrics(t, c, "timed"); m.Calls != 0 {
		t.Errorf("timed recorded %d calls of inlinePolicies, which only extends it", m.Calls)
	}
}

func TestPerOperationBreakersAreSeparate(t *testing.T) {
	s := newServer(t, func(_ int, r *http.Request) answer {
		if r.Method == "GET" {
			return answer{status: 501} // a 5xx that standard does not retry
		}
		return answer{status: 200}
	})
	c := newClient(t, s)
	// perop is the built-in default (minimumCalls 100, 50%): 100 failed
	// calls open perOperationOne's breaker, not one fewer.
	for i := range 100 {
		if m := metrics(t, c, "perop/perOperationOne"); m.State != runtime.StateClosed {
			t.Fatalf("opened after %d calls; want 100", i)
		}
		_, err := c.PerOperationOne(t.Context(), "x")
		wantStatusError(t, "perOperationOne", err, 501, 1)
	}
	if m := metrics(t, c, "perop/perOperationOne"); m.State != runtime.StateOpen {
		t.Fatalf("perOperationOne's breaker is %v after 100 failures", m.State)
	}
	_, err := c.PerOperationOne(t.Context(), "x")
	wantOpen(t, "perOperationOne", err, "perop/perOperationOne")
	if s.hits() != 100 {
		t.Fatalf("the server saw %d requests; want 100", s.hits())
	}

	// perOperationTwo, same path and policy, has its own breaker.
	resp, err := c.PerOperationTwo(t.Context(), "x")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("perOperationTwo: %+v, %v; its breaker is not perOperationOne's", resp, err)
	}
	if r := s.all()[100]; r.Method != "HEAD" || r.Path != "/d/x" {
		t.Errorf("perOperationTwo sent %s %s", r.Method, r.Path)
	}
	if m := metrics(t, c, "perop/perOperationTwo"); m.State != runtime.StateClosed || m.Calls != 1 || m.Failed != 0 {
		t.Errorf("perOperationTwo's breaker: %+v", m)
	}
}

func TestBaseBreakerOpensWhileBreakerNoneStillSends(t *testing.T) {
	s := newServer(t, script(501))
	c := newClient(t, s)
	// base: minimumCalls 10, 25%.
	for range 10 {
		c.DefaultsOnly(t.Context())
	}
	if m := metrics(t, c, "base"); m.State != runtime.StateOpen {
		t.Fatalf("base is %v after 10 failures", m.State)
	}
	_, err := c.PutNotIdempotent(t.Context())
	wantOpen(t, "putNotIdempotent", err, "base")
	_, err = c.PostNotRetried(t.Context())
	wantOpen(t, "postNotRetried", err, "base")
	_, err = c.CustomKeyHeader(t.Context(), nil)
	wantOpen(t, "customKeyHeader", err, "base")
	if s.hits() != 10 {
		t.Fatalf("the server saw %d requests while base was open", s.hits()-10)
	}
	_, err = c.DeleteNoRetry(t.Context())
	wantStatusError(t, "deleteNoRetry", err, 501, 1)
	if s.hits() != 11 {
		t.Fatalf("deleteNoRetry (breaker: none) did not reach the server")
	}
	// Other breakers are untouched: pathLevel (stricter) reaches the server.
	_, err = c.PathLevel(t.Context())
	wantStatusError(t, "pathLevel", err, 501, 1)
	if s.hits() != 12 {
		t.Fatalf("pathLevel (breaker stricter) did not reach the server")
	}
}

func TestBudgetedRetryOn503Only(t *testing.T) {
	t.Run("a 500 is not retried", func(t *testing.T) {
		s := newServer(t, script(500, 200))
		c := newClient(t, s)
		_, err := c.PathLevel(t.Context())
		wantStatusError(t, "pathLevel", err, 500, 1)
		if s.hits() != 1 {
			t.Fatalf("the server saw %d requests; retryOn is [transport, 503]", s.hits())
		}
		// stricter's recordOn names 500: a failure.
		if m := metrics(t, c, "stricter"); m.Calls != 1 || m.Failed != 1 {
			t.Errorf("stricter recorded %d calls, %d failed; want 1 and 1", m.Calls, m.Failed)
		}
	})
	t.Run("a 503 is retried", func(t *testing.T) {
		s := newServer(t, script(503, 503, 200))
		c := newClient(t, s)
		resp, err := c.PathLevel(t.Context())
		if err != nil || resp.StatusCode != 200 || resp.Attempts != 3 || s.hits() != 3 {
			t.Fatalf("got %+v, %v; want 200 after 3 attempts", resp, err)
		}
		if m := metrics(t, c, "stricter"); m.Calls != 1 || m.Failed != 0 {
			t.Errorf("stricter recorded %d calls, %d failed; want 1 and 0", m.Calls, m.Failed)
		}
	})
	t.Run("a 502 is neither retried nor a failure for stricter", func(t *testing.T) {
		s := newServer(t, script(502, 200))
		c := newClient(t, s)
		_, err := c.PathLevel(t.Context())
		wantStatusError(t, "pathLevel", err, 502, 1)
		if m := metrics(t, c, "stricter"); m.Calls != 1 || m.Failed != 0 {
			t.Errorf("stricter recorded %d calls, %d failed; want 1 and 0 (recordOn: transport, timeout, 500, 503, 429)", m.Calls, m.Failed)
		}
	})
	t.Run("retryAfter false ignores Retry-After", func(t *testing.T) {
		// An hour is past maxRetryAfter (30s): honoured, it would end the
		// retries at once; ignored, the backoff applies and the call heals.
		ra := func(n int, _ *http.Request) answer {
			if n == 0 {
				return answer{status: 503, header: map[string]string{"Retry-After": "3600"}}
			}
			return answer{status: 200}
		}
		s := newServer(t, ra)
		c := newClient(t, s)
		resp, err := c.PathLevel(t.Context())
		if err != nil || resp.StatusCode != 200 || resp.Attempts != 2 {
			t.Fatalf("got %+v, %v; want 200 after 2 attempts", resp, err)
		}

		// Control: standard honours Retry-After, and an hour ends the call.
		s2 := newServer(t, ra)
		c2 := newClient(t, s2)
		_, err = c2.DefaultsOnly(t.Context())
		wantStatusError(t, "defaultsOnly with Retry-After: 3600", err, 503, 1)
	})
}

func TestRetryBudgetIsSpent(t *testing.T) {
	// budgeted: ratio 0.2, minPerSecond 10, over the runtime's 10 s window:
	// 130 calls may make at most 100 + 0.2·130 = 126 retries. The server
	// holds every first attempt until all 130 calls have started, so every
	// call has deposited before any retry is asked for.
	const calls = 130
	release := make(chan struct{})
	var once sync.Once
	s := newServer(t, func(n int, _ *http.Request) answer {
		if n < calls {
			if n == calls-1 {
				once.Do(func() { close(release) })
			}
			select {
			case <-release:
			case <-time.After(10 * time.Second):
			}
			return answer{status: 503}
		}
		return answer{status: 200}
	})
	c := newClient(t, s)
	var wg sync.WaitGroup
	var mu sync.Mutex
	healed, spent := 0, 0
	for range calls {
		wg.Go(func() {
			resp, err := c.PathLevel(t.Context())
			mu.Lock()
			defer mu.Unlock()
			var se *runtime.StatusError
			switch {
			case err == nil && resp.StatusCode == 200 && resp.Attempts == 2:
				healed++
			case errors.As(err, &se) && se.StatusCode == 503 && se.Attempts == 1:
				spent++
			default:
				t.Errorf("got %+v, %v", resp, err)
			}
		})
	}
	wg.Wait()
	if healed != 126 || spent != 4 {
		t.Fatalf("%d calls retried, %d refused a retry; want 126 and 4", healed, spent)
	}
	if s.hits() != calls+126 {
		t.Fatalf("the server saw %d requests; want %d", s.hits(), calls+126)
	}
}

func TestCallCancelledByTheCallerIsNotRecordedNorRetried(t *testing.T) {
	arrived := make(chan struct{}, 1)
	s := newServer(t, func(_ int, r *http.Request) answer {
		arrived <- struct{}{}
		<-r.Context().Done() // hang until the client gives up
		return answer{status: 503}
	})
	c := newClient(t, s)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-arrived
		cancel()
	}()
	resp, err := c.DefaultsOnly(ctx)
	if err == nil || !errors.Is(err, context.Canceled) || resp != nil {
		t.Fatalf("got %+v, %v; want an error matching context.Canceled", resp, err)
	}
	if s.hits() != 1 {
		t.Errorf("the server saw %d requests; a cancelled call is not retried", s.hits())
	}
	if m := metrics(t, c, "base"); m.Calls != 0 {
		t.Errorf("base recorded %d calls; a call cancelled by its caller is not recorded", m.Calls)
	}
}
