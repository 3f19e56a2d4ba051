package experiments

// The five experiments that chose breaker outside, retry inside, run
// through the generated client of testdata/specs/experiments.yaml against
// a loopback server, with the experiments' exact counts. Each experiment has its own breaker in the spec.
// "Swapped" is the same client with every operation's breaker moved
// inside its retry loop (the runtime's test-only RetryOutside), the order
// of Resilience4j's and Polly's defaults: the tests show what resgen's
// order (breaker outside) changes, and would fail if the generated code
// used the swapped one. Only counts are asserted, never durations.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind (a
// response body left open, a server not closed).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// server is a loopback server that counts the requests it answered.
type server struct {
	*httptest.Server
	hits atomic.Int64
}

func newServer(t *testing.T, h http.HandlerFunc) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// failing answers 500 to everything.
func failing(w http.ResponseWriter, _ *http.Request) {
	w.WriteHeader(http.StatusInternalServerError)
	io.WriteString(w, `{"done": false}`)
}

// firstAttemptFails answers 503 the first time it sees a path and 200
// after that: each Recovering(id) call fails once, then succeeds.
func firstAttemptFails() http.HandlerFunc {
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		again := seen[r.URL.Path]
		seen[r.URL.Path] = true
		mu.Unlock()
		if !again {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintf(w, `{"done": true, "id": %q}`, strings.TrimPrefix(r.URL.Path, "/recovering/"))
	}
}

func newClient(t *testing.T, s *server, opts ...Option) *Client {
	t.Helper()
	base := []Option{WithHTTPClient(s.Client()), WithLogger(slog.New(slog.DiscardHandler))}
	c, err := NewClient(s.URL, append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// recorder is an Observer that keeps every event as a line of text.
type recorder struct {
	mu     sync.Mutex
	events []string
	counts map[string]int
	reject []runtime.RejectionEvent
}

func (r *recorder) add(kind, line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, line)
	if r.counts == nil {
		r.counts = map[string]int{}
	}
	r.counts[kind]++
}

// count returns how many events of a kind ("start", "attempt", "wait",
// "end", "state", "rejected") were seen.
func (r *recorder) count(kind string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counts[kind]
}

// since returns the events after the first n.
func (r *recorder) since(n int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events[n:]...)
}

func (r *recorder) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

func (r *recorder) CallStart(e runtime.CallStartEvent) context.Context {
	r.add("start", fmt.Sprintf("start %s breaker=%s trial=%v", e.Operation, e.Breaker, e.HalfOpenTrial))
	return e.Context
}

func (r *recorder) CallEnd(e runtime.CallEndEvent) {
	r.add("end", fmt.Sprintf("end %s attempts=%d status=%d err=%v stop=%s", e.Operation, e.Attempts, e.StatusCode, e.Err != nil, e.Stop))
}

func (r *recorder) Attempt(e runtime.AttemptEvent) {
	r.add("attempt", fmt.Sprintf("attempt %s #%d status=%d err=%v", e.Operation, e.Attempt, e.StatusCode, e.Err))
}

func (r *recorder) RetryWait(e runtime.RetryEvent) {
	r.add("wait", fmt.Sprintf("wait %s after #%d %s (%s)", e.Operation, e.Attempt, e.Wait, e.Reason))
}

func (r *recorder) BreakerStateChange(e runtime.StateChangeEvent) {
	r.add("state", fmt.Sprintf("state %s %s→%s: %s", e.Breaker, e.From, e.To, e.Reason))
}

func (r *recorder) Rejected(e runtime.RejectionEvent) {
	r.add("rejected", fmt.Sprintf("rejected %s breaker=%s state=%s", e.Operation, e.Breaker, e.State))
	r.mu.Lock()
	r.reject = append(r.reject, e)
	r.mu.Unlock()
}

// requestsUntilOpen calls SustainedFailure until the breaker is open and
// returns how many requests that took. Every request before it opens
// must fail with the server's 500, never with a rejection.
func requestsUntilOpen(t *testing.T, c *Client) int {
	t.Helper()
	b := c.Breakers()["sustained"]
	for n := 1; n <= 100; n++ {
		_, err := c.SustainedFailure(context.Background())
		if err == nil {
			t.Fatalf("request %d succeeded against a failing server", n)
		}
		if b.State() == runtime.StateOpen {
			return n
		}
		if errors.Is(err, runtime.ErrCircuitOpen) {
			t.Fatalf("request %d refused while the breaker is %v: %v", n, b.State(), err)
		}
	}
	t.Fatal("the breaker never opened")
	return 0
}

// Experiments 1 and 2, policy count 50 / min 20 / 40% / maxAttempts 3 /
// constant wait, against a server that always fails.
func TestExperiment1And2SustainedFailure(t *testing.T) {
	t.Run("breaker outside", func(t *testing.T) {
		s := newServer(t, failing)
		rec := &recorder{}
		c := newClient(t, s, WithObserver(rec))
		// 1: each request is one sample after its 3 attempts; the 20th
		// sample reaches minimumCalls at 100% ≥ 40%.
		if n, hits := requestsUntilOpen(t, c), s.hits.Load(); n != 20 || hits != 60 {
			t.Fatalf("opened after %d requests = %d server calls; want 20 = 60", n, hits)
		}
		// 2: ten more requests are refused before any attempt: nothing
		// reaches the server, nothing waits, nothing is retried.
		attempts, waits := rec.count("attempt"), rec.count("wait")
		for i := range 10 {
			resp, err := c.SustainedFailure(context.Background())
			var open *runtime.CircuitOpenError
			if resp != nil || !errors.Is(err, runtime.ErrCircuitOpen) || !errors.As(err, &open) || open.Breaker != "sustained" {
				t.Fatalf("request %d after opening: got %v, %v; want a CircuitOpenError of breaker sustained", i+1, resp, err)
			}
		}
		if hits := s.hits.Load(); hits != 60 {
			t.Fatalf("the open breaker let %d server calls through", hits-60)
		}
		if n := rec.count("rejected"); n != 10 {
			t.Fatalf("%d rejections observed; want 10", n)
		}
		if a, w := rec.count("attempt")-attempts, rec.count("wait")-waits; a != 0 || w != 0 {
			t.Fatalf("rejected requests made %d attempts and %d retry waits; want 0 and 0", a, w)
		}
	})

	t.Run("swapped", func(t *testing.T) {
		s := newServer(t, failing)
		rec := &recorder{}
		c := newClient(t, s, WithObserver(rec))
		swap(t, c)
		// 1: every attempt is a sample: 6 requests make 18, the 7th's
		// second attempt is the 20th and opens it; its third is refused.
		if n, hits := requestsUntilOpen(t, c), s.hits.Load(); n != 7 || hits != 20 {
			t.Fatalf("opened after %d requests = %d server calls; want 7 = 20", n, hits)
		}
		// 2: the next requests retry into the open breaker, waiting
		// between refusals, until it half-opens (waitInOpen 50ms < 10
		// requests × 2 waits × 5ms) and their attempts reach the server.
		waits := rec.count("wait")
		for range 10 {
			c.SustainedFailure(context.Background())
		}
		if s.hits.Load() == 20 {
			t.Fatal("swapped: no call reached the server after the breaker opened")
		}
		if rec.count("wait") == waits {
			t.Fatal("swapped: the refused requests did not wait to retry")
		}
	})
}

// runRecovering makes 50 Recovering calls, each of whose first attempt
// fails (503) and second succeeds.
func runRecovering(t *testing.T, c *Client) (ok int, errs []error) {
	t.Helper()
	for i := range 50 {
		id := strconv.Itoa(i)
		resp, err := c.Recovering(context.Background(), id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if resp.StatusCode != 200 || resp.Attempts != 2 || resp.JSON200 == nil || !resp.JSON200.Done || resp.JSON200.ID == nil || *resp.JSON200.ID != id {
			t.Fatalf("request %s: status %d, attempts %d, body %s", id, resp.StatusCode, resp.Attempts, resp.Body)
		}
		ok++
	}
	return ok, errs
}

// Experiment 3: 50 requests whose first attempt fails and second succeeds.
func TestExperiment3FirstAttemptFails(t *testing.T) {
	t.Run("breaker outside", func(t *testing.T) {
		s := newServer(t, firstAttemptFails())
		c := newClient(t, s)
		ok, errs := runRecovering(t, c)
		if ok != 50 || len(errs) != 0 {
			t.Fatalf("%d/50 succeeded; errors: %v", ok, errs)
		}
		m := c.Breakers()["recovering"].Metrics()
		if m.State != runtime.StateClosed || m.Calls != 50 || m.Failed != 0 || m.FailureRate != 0 {
			t.Fatalf("breaker %+v; want closed, 50 calls, 0 failed, failure rate 0%%", m)
		}
		if hits := s.hits.Load(); hits != 100 {
			t.Fatalf("%d server calls; want 100", hits)
		}
	})

	t.Run("swapped", func(t *testing.T) {
		s := newServer(t, firstAttemptFails())
		c := newClient(t, s)
		swap(t, c)
		// Each failed first attempt is a failure sample: after 10
		// requests, 10 of 20 samples failed (50% ≥ 40%) and it opens;
		// the other 40 requests are refused on every attempt.
		ok, errs := runRecovering(t, c)
		if ok != 10 || len(errs) != 40 {
			t.Fatalf("%d/50 succeeded, %d failed; want 10 and 40", ok, len(errs))
		}
		for _, err := range errs {
			if !errors.Is(err, runtime.ErrCircuitOpen) {
				t.Fatalf("failed request: %v; want a rejection", err)
			}
		}
		if st := c.Breakers()["recovering"].State(); st != runtime.StateOpen {
			t.Fatalf("breaker %v; want open", st)
		}
		if hits := s.hits.Load(); hits != 20 {
			t.Fatalf("%d server calls; want 20", hits)
		}
	})
}

// Experiment 4: every call succeeds (200 OK), each slower than
// slowCallDuration (5ms): the breaker opens on the slow-call rate alone,
// and its log line says so.
func TestExperiment4SlowCallsOnly(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(10 * time.Millisecond)
		io.WriteString(w, `{"done": true}`)
	})
	var logs bytes.Buffer // written only by the calling goroutine
	c := newClient(t, s, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	b := c.Breakers()["slow"]
	for i := 1; i <= 10; i++ {
		resp, err := c.SlowSuccess(context.Background())
		if err != nil || resp.StatusCode != 200 || resp.Attempts != 1 || resp.JSON200 == nil || !resp.JSON200.Done {
			t.Fatalf("call %d: %+v, %v; want a 200 OK in one attempt", i, resp, err)
		}
		if want := map[bool]runtime.State{true: runtime.StateOpen, false: runtime.StateClosed}[i == 10]; b.State() != want {
			t.Fatalf("after %d slow successes the breaker is %v; want %v", i, b.State(), want)
		}
	}
	if hits := s.hits.Load(); hits != 10 {
		t.Fatalf("%d server calls; want 10", hits)
	}
	want := `level=WARN msg="breaker \"slow\" opened: slow-call rate 100% (10 of 10 calls ≥ 5ms) ≥ 50%; failure rate 0%"`
	if !strings.Contains(logs.String(), want) || strings.Count(logs.String(), "opened") != 1 {
		t.Fatalf("want one log line\n%s\ngot:\n%s", want, logs.String())
	}
	if _, err := c.SlowSuccess(context.Background()); !errors.Is(err, runtime.ErrCircuitOpen) {
		t.Fatalf("call 11: %v; want a rejection", err)
	}
}

// Experiment 5: minimumCalls 100 with windowSize 10 acts as 10: the
// breaker decides, and opens, at the 10th call.
func TestExperiment5MinimumCallsCappedAtWindowSize(t *testing.T) {
	s := newServer(t, failing)
	var logs bytes.Buffer
	c := newClient(t, s, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	b := c.Breakers()["capped"]
	for i := 1; i <= 10; i++ {
		_, err := c.CappedWindow(context.Background())
		var se *runtime.StatusError
		if !errors.As(err, &se) || se.StatusCode != 500 || se.Attempts != 1 {
			t.Fatalf("call %d: %v; want the server's 500 after one attempt", i, err)
		}
		if want := map[bool]runtime.State{true: runtime.StateOpen, false: runtime.StateClosed}[i == 10]; b.State() != want {
			t.Fatalf("after %d failed calls the breaker is %v; want %v", i, b.State(), want)
		}
	}
	if hits := s.hits.Load(); hits != 10 {
		t.Fatalf("%d server calls; want 10", hits)
	}
	if want := `opened: failure rate 100% (10 of 10 calls) ≥ 50%`; !strings.Contains(logs.String(), want) {
		t.Fatalf("log lacks %q:\n%s", want, logs.String())
	}
}

// The observer sees a retried call as call start, attempt, retry wait,
// attempt, call end; and a call refused by an open breaker as call start,
// rejection, call end, with no attempt.
func TestObserverEvents(t *testing.T) {
	t.Run("retried call", func(t *testing.T) {
		s := newServer(t, firstAttemptFails())
		rec := &recorder{}
		c := newClient(t, s, WithObserver(rec))
		if _, err := c.Recovering(context.Background(), "a"); err != nil {
			t.Fatal(err)
		}
		want := []string{
			"start recovering breaker=recovering trial=false",
			"attempt recovering #1 status=503 err=<nil>",
			"wait recovering after #1 5ms (status 503)",
			"attempt recovering #2 status=200 err=<nil>",
			"end recovering attempts=2 status=200 err=false stop=done",
		}
		checkEvents(t, rec.since(0), want)
	})

	t.Run("rejected call", func(t *testing.T) {
		s := newServer(t, failing)
		rec := &recorder{}
		c := newClient(t, s, WithObserver(rec))
		for range 9 {
			c.CappedWindow(context.Background())
		}
		n := rec.len()
		c.CappedWindow(context.Background()) // the 10th call opens it
		checkEvents(t, rec.since(n), []string{
			"start cappedWindow breaker=capped trial=false",
			"attempt cappedWindow #1 status=500 err=<nil>",
			"state capped closed→open: failure rate 100% (10 of 10 calls) ≥ 50%; slow-call rate 0%",
			"end cappedWindow attempts=1 status=500 err=true stop=no retry policy",
		})
		n = rec.len()
		before := time.Now()
		if _, err := c.CappedWindow(context.Background()); !errors.Is(err, runtime.ErrCircuitOpen) {
			t.Fatalf("call 11: %v; want a rejection", err)
		}
		checkEvents(t, rec.since(n), []string{
			"start cappedWindow breaker=capped trial=false",
			"rejected cappedWindow breaker=capped state=open",
			"end cappedWindow attempts=0 status=0 err=true stop=rejected: breaker open",
		})
		// The rejection says when the breaker lets a call through again:
		// waitInOpen (the default, 1m) after it opened.
		if at := rec.reject[0].RetryAt; at.Before(before) || at.After(before.Add(time.Minute)) {
			t.Fatalf("RetryAt %v is not within waitInOpen of now (%v)", at, before)
		}
		if s.hits.Load() != 10 {
			t.Fatalf("%d server calls; want 10", s.hits.Load())
		}
	})
}

func checkEvents(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}
