package runtime

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime/wire"
)

// server is an httptest server whose handler is chosen per test; it counts
// the requests it saw.
type server struct {
	*httptest.Server
	calls atomic.Int64
}

func newServer(t testing.TB, h func(n int64, w http.ResponseWriter, r *http.Request)) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.calls.Add(1)
		h(n, w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func status(code int) func(int64, http.ResponseWriter, *http.Request) {
	return func(_ int64, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }
}

func get(t testing.TB, s *server) *http.Request {
	req, err := http.NewRequestWithContext(context.Background(), "GET", s.URL+"/x", nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func post(t testing.TB, s *server, body string) *http.Request {
	req, err := http.NewRequestWithContext(context.Background(), "POST", s.URL+"/x", bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// do runs one call and closes the body; it returns the status (0 if none).
func do(t testing.TB, op *operation, req *http.Request) (int, int, error) {
	t.Helper()
	resp, n, err := op.Do(req.Context(), req)
	if resp == nil {
		return 0, n, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, n, err
}

// logBuffer is a concurrency-safe slog sink.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// newLogger returns a logger that writes "LEVEL message" lines, unquoted,
// at level and above.
func newLogger(level slog.Level) (*slog.Logger, *logBuffer) {
	lb := &logBuffer{}
	return slog.New(&msgHandler{w: lb, level: level}), lb
}

type msgHandler struct {
	w     *logBuffer
	level slog.Level
}

func (h *msgHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }
func (h *msgHandler) Handle(_ context.Context, r slog.Record) error {
	line := r.Level.String() + " " + r.Message
	r.Attrs(func(a slog.Attr) bool { line += " " + a.String(); return true })
	h.w.Write([]byte(line + "\n"))
	return nil
}
func (h *msgHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *msgHandler) WithGroup(string) slog.Handler      { return h }

// quiet is a logger for tests that do not read the log.
var quiet = slog.New(slog.DiscardHandler)

// constRetry is a retry policy with a constant wait and no jitter.
func constRetry(attempts int, wait time.Duration) *RetryPolicy {
	p := DefaultRetryPolicy()
	p.MaxAttempts, p.Backoff, p.InitialInterval, p.Jitter = attempts, ConstantBackoff, wait, NoJitter
	return &p
}

// countBreaker is a count-window policy that only trips on failures.
func countBreaker(size, minCalls int, failPct float64) BreakerPolicy {
	p := DefaultBreakerPolicy()
	p.WindowSize, p.MinimumCalls, p.FailureRateThreshold = size, minCalls, failPct
	p.SlowCallRateThreshold = 0 // off
	p.WaitInOpen = time.Minute
	return p
}

// fakeClock is an engine clock that moves only when told.
type fakeClock struct{ t atomic.Int64 }

func (c *fakeClock) now() time.Duration      { return time.Duration(c.t.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.t.Add(int64(d)) }

// clockDoer makes every request "take" d on the fake clock, so slow calls
// are decided without sleeping.
type clockDoer struct {
	inner Doer
	clk   *fakeClock
	d     func(*http.Request) time.Duration
}

func (c *clockDoer) Do(r *http.Request) (*http.Response, error) {
	resp, err := c.inner.Do(r)
	c.clk.advance(c.d(r))
	return resp, err
}

// recorder is an Observer that keeps every event.
type recorder struct {
	mu      sync.Mutex
	starts  []CallStartEvent
	ends    []CallEndEvent
	tries   []AttemptEvent
	retries []RetryEvent
	changes []StateChangeEvent
	rejects []RejectionEvent
}

func (r *recorder) CallStart(e CallStartEvent) context.Context {
	r.mu.Lock()
	r.starts = append(r.starts, e)
	r.mu.Unlock()
	return e.Context
}
func (r *recorder) CallEnd(e CallEndEvent) { r.mu.Lock(); r.ends = append(r.ends, e); r.mu.Unlock() }
func (r *recorder) Attempt(e AttemptEvent) { r.mu.Lock(); r.tries = append(r.tries, e); r.mu.Unlock() }
func (r *recorder) RetryWait(e RetryEvent) {
	r.mu.Lock()
	r.retries = append(r.retries, e)
	r.mu.Unlock()
}
func (r *recorder) BreakerStateChange(e StateChangeEvent) {
	r.mu.Lock()
	r.changes = append(r.changes, e)
	r.mu.Unlock()
}
func (r *recorder) Rejected(e RejectionEvent) {
	r.mu.Lock()
	r.rejects = append(r.rejects, e)
	r.mu.Unlock()
}

func (r *recorder) waits() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	var w []time.Duration
	for _, e := range r.retries {
		w = append(w, e.Wait)
	}
	return w
}

func (r *recorder) lastEnd() CallEndEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ends[len(r.ends)-1]
}

func (r *recorder) opens() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.changes {
		if c.To == StateOpen {
			n++
		}
	}
	return n
}

// Call is impl.Call, which tests here cannot import (impl imports
// runtime): one call of op decoded into out.
func Call[P wire.Typed](ctx context.Context, op *operation, rq *wire.Request, out P, opts []CallOption) (P, error) {
	hasAnswer, err := op.Call(ctx, *rq, out, opts)
	if !hasAnswer {
		var zero P
		return zero, err
	}
	return out, err
}
