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
func do(t testing.TB, op *Operation, req *http.Request) (int, int, error) {
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

func newLogger(level slog.Level) (*slog.Logger, *logBuffer) {
	lb := &logBuffer{}
	return slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: level})), lb
}

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
