package callcontract

// The client's contract with its callers (docs/errors.md), through the
// generated client on loopback: the one error rule (every status of 400 or more is a
// *runtime.StatusError beside the typed response, with the reason retrying
// stopped), each stop sentinel, each call option, Retry-After-Ms.

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// answer is one scripted reply.
type answer struct {
	status int
	ctype  string
	body   string
	header map[string]string
	delay  time.Duration
}

// server answers each request with the next scripted answer (the last
// one repeats) and keeps every request's headers.
type server struct {
	*httptest.Server
	mu      sync.Mutex
	script  []answer
	headers []http.Header
	bodies  []string
}

func newServer(t *testing.T, script ...answer) *server {
	s := &server{script: script}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.headers)
		s.headers = append(s.headers, r.Header.Clone())
		s.bodies = append(s.bodies, string(b))
		a := s.script[min(n, len(s.script)-1)]
		s.mu.Unlock()
		if a.delay > 0 {
			select {
			case <-time.After(a.delay):
			case <-r.Context().Done():
				return
			}
		}
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		if a.ctype != "" {
			w.Header().Set("Content-Type", a.ctype)
		}
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) hits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.headers)
}

func (s *server) header(i int) http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.headers[i]
}

func newClient(t *testing.T, s *server, opts ...Option) *Client {
	c, err := NewClient(s.URL, append([]Option{WithLogger(slog.New(slog.DiscardHandler))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const problem = `{"code": 7, "message": "down"}`

func jsonAnswer(status int, body string) answer {
	return answer{status: status, ctype: "application/json", body: body}
}

// statusError checks err is a *runtime.StatusError of status after
// attempts, stopped by stop.
func statusError(t *testing.T, err error, status, attempts int, stop error) *runtime.StatusError {
	t.Helper()
	var se *runtime.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("err %v (%T); want a *runtime.StatusError", err, err)
	}
	if se.StatusCode != status || se.Attempts != attempts || !errors.Is(err, stop) || se.Stop != stop {
		t.Fatalf("status %d after %d attempts, stop %v; want %d after %d, stop %v", se.StatusCode, se.Attempts, se.Stop, status, attempts, stop)
	}
	return se
}

func TestDeclaredStatusesAreErrorsWithTheTypedBody(t *testing.T) {
	t.Run("a declared 404 without default", func(t *testing.T) {
		s := newServer(t, jsonAnswer(404, problem))
		resp, err := newClient(t, s).GetThing(t.Context(), "x")
		se := statusError(t, err, 404, 1, runtime.ErrNotRetryable)
		if resp == nil || resp.JSON404 == nil || resp.JSON404.Code != 7 || se.Decoded != resp.JSON404 || se.DecodeErr != nil {
			t.Fatalf("resp %+v, decoded %v", resp, se.Decoded)
		}
		if string(se.Body) != problem || string(resp.Body) != problem || se.Method != "GET" || se.Operation != "getThing" {
			t.Fatalf("error %+v", se)
		}
	})
	t.Run("an undeclared 409 without default", func(t *testing.T) {
		s := newServer(t, jsonAnswer(409, `{"x": 1}`))
		resp, err := newClient(t, s).GetThing(t.Context(), "x")
		se := statusError(t, err, 409, 1, runtime.ErrNotRetryable)
		if resp == nil || resp.StatusCode != 409 || resp.JSON404 != nil || se.Decoded != nil || string(se.Body) != `{"x": 1}` {
			t.Fatalf("resp %+v, error %+v", resp, se)
		}
	})
	t.Run("default after every attempt: an outage is an error", func(t *testing.T) {
		s := newServer(t, jsonAnswer(503, problem))
		resp, err := newClient(t, s).ListThings(t.Context())
		se := statusError(t, err, 503, 3, runtime.ErrAttemptsExhausted)
		if resp.JSONDefault == nil || resp.JSONDefault.Message == nil || *resp.JSONDefault.Message != "down" || se.Decoded != resp.JSONDefault || resp.Attempts != 3 || s.hits() != 3 {
			t.Fatalf("resp %+v after %d requests", resp, s.hits())
		}
	})
	t.Run("a non-JSON 503 on a JSON default keeps its attempts", func(t *testing.T) {
		s := newServer(t, answer{status: 503, ctype: "text/html", body: "<h1>busy</h1>"})
		resp, err := newClient(t, s).ListThings(t.Context())
		se := statusError(t, err, 503, 3, runtime.ErrAttemptsExhausted)
		if se.DecodeErr == nil || se.Decoded != nil || resp == nil || resp.JSONDefault != nil || string(resp.Body) != "<h1>busy</h1>" {
			t.Fatalf("error %+v, resp %+v", se, resp)
		}
	})
	t.Run("4XX and 5XX ranges", func(t *testing.T) {
		s := newServer(t, jsonAnswer(418, problem))
		resp, err := newClient(t, s).RangeThing(t.Context())
		se := statusError(t, err, 418, 1, runtime.ErrNotRetryable)
		if resp.JSON4XX == nil || se.Decoded != resp.JSON4XX || resp.JSON5XX != nil {
			t.Fatalf("resp %+v", resp)
		}
		s = newServer(t, jsonAnswer(502, problem))
		resp, err = newClient(t, s).RangeThing(t.Context())
		se = statusError(t, err, 502, 3, runtime.ErrAttemptsExhausted)
		if resp.JSON5XX == nil || se.Decoded != resp.JSON5XX || resp.JSON4XX != nil {
			t.Fatalf("resp %+v", resp)
		}
	})
	t.Run("a 2xx whose body does not decode", func(t *testing.T) {
		s := newServer(t, jsonAnswer(200, `{"name": 5}`))
		resp, err := newClient(t, s).GetThing(t.Context(), "x")
		var de *runtime.DecodeError
		if !errors.As(err, &de) || de.StatusCode != 200 || de.Attempts != 1 || de.Operation != "getThing" || resp == nil || string(resp.Body) != `{"name": 5}` {
			t.Fatalf("resp %+v, err %v", resp, err)
		}
	})
	t.Run("a 2xx is no error", func(t *testing.T) {
		s := newServer(t, jsonAnswer(200, `{"name": "a"}`))
		resp, err := newClient(t, s).GetThing(t.Context(), "x")
		if err != nil || resp.JSON200 == nil || resp.JSON200.Name != "a" {
			t.Fatalf("resp %+v, err %v", resp, err)
		}
	})
}

func TestStopReasons(t *testing.T) {
	t.Run("not retry-safe", func(t *testing.T) {
		s := newServer(t, jsonAnswer(503, problem))
		resp, err := newClient(t, s).CreateThing(t.Context(), Thing{Name: "a"})
		statusError(t, err, 503, 1, runtime.ErrNotRetrySafe)
		if s.hits() != 1 || resp.JSONDefault == nil {
			t.Fatalf("%d requests, resp %+v", s.hits(), resp)
		}
	})
	t.Run("retry off", func(t *testing.T) {
		s := newServer(t, answer{status: 503})
		_, err := newClient(t, s).OffThing(t.Context())
		statusError(t, err, 503, 1, runtime.ErrRetryOff)
	})
	t.Run("not retryable", func(t *testing.T) {
		s := newServer(t, answer{status: 501})
		_, err := newClient(t, s).OffThing(t.Context())
		statusError(t, err, 501, 1, runtime.ErrRetryOff)
		_, err = newClient(t, s).BudgetThing(t.Context())
		statusError(t, err, 501, 1, runtime.ErrNotRetryable)
	})
	t.Run("attempts exhausted", func(t *testing.T) {
		s := newServer(t, answer{status: 500})
		_, err := newClient(t, s).BudgetThing(t.Context(), runtime.WithMaxAttempts(2))
		statusError(t, err, 500, 2, runtime.ErrAttemptsExhausted)
	})
	t.Run("budget spent", func(t *testing.T) {
		// ratio 0.01 and 0.1 a second over 10 s: one retry in all.
		s := newServer(t, answer{status: 500})
		_, err := newClient(t, s).BudgetThing(t.Context())
		statusError(t, err, 500, 2, runtime.ErrBudgetSpent)
	})
	t.Run("Retry-After too long", func(t *testing.T) {
		s := newServer(t, answer{status: 503, header: map[string]string{"Retry-After": "5"}})
		_, err := newClient(t, s).BudgetThing(t.Context())
		statusError(t, err, 503, 1, runtime.ErrRetryAfterTooLong)
	})
	t.Run("Retry-After-Ms too long", func(t *testing.T) {
		s := newServer(t, answer{status: 429, header: map[string]string{"Retry-After-Ms": "1500", "Retry-After": "0"}})
		_, err := newClient(t, s).BudgetThing(t.Context())
		statusError(t, err, 429, 1, runtime.ErrRetryAfterTooLong)
	})
	t.Run("deadline", func(t *testing.T) {
		// waits of 300ms against a total timeout of 200ms
		s := newServer(t, answer{status: 503})
		_, err := newClient(t, s).SlowThing(t.Context())
		statusError(t, err, 503, 1, runtime.ErrDeadline)
		// the caller's deadline: a Retry-After-Ms of 300ms does not fit in 100ms
		s = newServer(t, answer{status: 503, header: map[string]string{"Retry-After-Ms": "300"}})
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		_, err = newClient(t, s).ListThings(ctx)
		statusError(t, err, 503, 1, runtime.ErrDeadline)
	})
	t.Run("retry disabled", func(t *testing.T) {
		s := newServer(t, answer{status: 503})
		_, err := newClient(t, s).ListThings(t.Context(), runtime.WithNoRetry())
		statusError(t, err, 503, 1, runtime.ErrRetryDisabled)
	})
	t.Run("half-open trial", func(t *testing.T) {
		s := newServer(t, answer{status: 503})
		c := newClient(t, s)
		for range 2 {
			c.TrialThing(t.Context())
		}
		if st := c.Breakers()["tiny"].State(); st != runtime.StateOpen {
			t.Fatalf("breaker %v", st)
		}
		time.Sleep(80 * time.Millisecond)
		before := s.hits()
		_, err := c.TrialThing(t.Context())
		statusError(t, err, 503, 1, runtime.ErrHalfOpenTrial)
		if s.hits() != before+1 {
			t.Fatalf("the trial sent %d requests", s.hits()-before)
		}
	})
	t.Run("transport: a CallError with Stop", func(t *testing.T) {
		s := newServer(t, answer{status: 200})
		url := s.URL
		s.Close()
		c, err := NewClient(url, WithLogger(slog.New(slog.DiscardHandler)))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.ListThings(t.Context())
		var ce *runtime.CallError
		if resp != nil || !errors.As(err, &ce) || ce.Attempts != 3 || !errors.Is(err, runtime.ErrAttemptsExhausted) {
			t.Fatalf("resp %v, err %v", resp, err)
		}
	})
}

func TestCallOptions(t *testing.T) {
	t.Run("WithMaxAttempts only lowers", func(t *testing.T) {
		s := newServer(t, answer{status: 503})
		_, err := newClient(t, s).ListThings(t.Context(), runtime.WithMaxAttempts(10))
		statusError(t, err, 503, 3, runtime.ErrAttemptsExhausted)
	})
	t.Run("WithAttemptTimeout: the timed-out attempt is retried", func(t *testing.T) {
		s := newServer(t, answer{status: 200, delay: time.Second}, answer{status: 200, delay: time.Second}, jsonAnswer(200, `[]`))
		resp, err := newClient(t, s).ListThings(t.Context(), runtime.WithAttemptTimeout(30*time.Millisecond))
		if err != nil || resp.Attempts != 3 || resp.JSON200 == nil {
			t.Fatalf("resp %+v, err %v", resp, err)
		}
	})
	t.Run("WithTotalTimeout", func(t *testing.T) {
		s := newServer(t, answer{status: 200, delay: time.Second})
		start := time.Now()
		_, err := newClient(t, s).ListThings(t.Context(), runtime.WithTotalTimeout(50*time.Millisecond))
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 500*time.Millisecond {
			t.Fatalf("err %v after %v", err, time.Since(start))
		}
	})
	t.Run("WithHeader, WithRequestEditor, WithAttemptHeader on every attempt", func(t *testing.T) {
		s := newServer(t, answer{status: 503}, jsonAnswer(200, `[]`))
		var order []string
		c := newClient(t, s, WithRequestEditor(func(_ context.Context, r *http.Request) error {
			order = append(order, "client:"+r.Header.Get("X-Extra"))
			return nil
		}))
		_, err := c.ListThings(t.Context(),
			runtime.WithHeader("X-Extra", "yes"),
			runtime.WithAttemptHeader("X-Attempt"),
			runtime.WithRequestEditor(func(_ context.Context, r *http.Request) error {
				order = append(order, "call:"+r.Header.Get("X-Attempt"))
				r.Header.Add("X-Edited", "1")
				return nil
			}))
		if err != nil || s.hits() != 2 {
			t.Fatalf("err %v, %d requests", err, s.hits())
		}
		for i := range 2 {
			h := s.header(i)
			if h.Get("X-Extra") != "yes" || h.Get("X-Attempt") != strconv.Itoa(i+1) || len(h.Values("X-Edited")) != 1 || h.Get("Accept") != "application/json" {
				t.Errorf("attempt %d sent %v", i+1, h)
			}
		}
		if want := []string{"client:yes", "call:1", "client:yes", "call:2"}; !equal(order, want) {
			t.Errorf("editors ran %v; want %v", order, want)
		}
	})
	t.Run("WithCallOptions applies to every call, call options after", func(t *testing.T) {
		s := newServer(t, answer{status: 503})
		c := newClient(t, s, WithCallOptions(runtime.WithNoRetry(), runtime.WithHeader("X-Client", "1")))
		_, err := c.ListThings(t.Context(), runtime.WithHeader("X-Client", "2"))
		statusError(t, err, 503, 1, runtime.ErrRetryDisabled)
		if s.header(0).Get("X-Client") != "2" {
			t.Errorf("sent X-Client %q", s.header(0).Get("X-Client"))
		}
	})
	t.Run("no option retries an operation that is not retry-safe", func(t *testing.T) {
		s := newServer(t, answer{status: 503})
		c := newClient(t, s, WithCallOptions(runtime.WithMaxAttempts(5)))
		_, err := c.CreateThing(t.Context(), Thing{Name: "a"},
			runtime.WithMaxAttempts(9), runtime.WithAttemptTimeout(time.Second), runtime.WithTotalTimeout(time.Minute),
			runtime.WithHeader("Idempotency-Key", "k"), runtime.WithAttemptHeader("X-Attempt"))
		statusError(t, err, 503, 1, runtime.ErrNotRetrySafe)
		if s.hits() != 1 {
			t.Fatalf("a POST without key was sent %d times", s.hits())
		}
	})
	t.Run("the caller's own idempotency key, on every attempt", func(t *testing.T) {
		s := newServer(t, answer{status: 503}, answer{status: 201})
		key := "caller-key"
		resp, err := newClient(t, s).KeyedThing(t.Context(), &KeyedThingParams{IdempotencyKey: &key}, Thing{Name: "a"})
		if err != nil || resp.Attempts != 2 {
			t.Fatalf("resp %+v, err %v", resp, err)
		}
		for i := range 2 {
			if got := s.header(i).Get("Idempotency-Key"); got != key {
				t.Errorf("attempt %d sent key %q", i+1, got)
			}
		}
		if s.bodies[0] != `{"name":"a"}` || s.bodies[1] != s.bodies[0] {
			t.Errorf("bodies %q", s.bodies)
		}
	})
}

func TestRetryAfterMs(t *testing.T) {
	s := newServer(t, answer{status: 429, header: map[string]string{"Retry-After-Ms": "120"}}, jsonAnswer(200, `[]`))
	start := time.Now()
	resp, err := newClient(t, s).ListThings(t.Context())
	if err != nil || resp.Attempts != 2 {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	if d := time.Since(start); d < 120*time.Millisecond {
		t.Fatalf("retried after %v; Retry-After-Ms asked for 120ms", d)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
