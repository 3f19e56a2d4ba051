package runtime

import (
	"errors"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Many goroutines on one breaker shared by several operations, with
// failures, retries, half-open cycles and metrics readers, under -race.
// TestMain's goleak check runs after it.
func TestConcurrentCallsOneBreaker(t *testing.T) {
	var sent atomic.Int64
	d := doerFunc(func(*http.Request) (*http.Response, error) {
		sent.Add(1)
		switch r := rand.IntN(10); {
		case r < 4:
			return &http.Response{StatusCode: 500, Body: http.NoBody}, nil
		case r == 4:
			return nil, errors.New("connection reset")
		}
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	})
	logger, logs := newLogger(0)
	rec := &recorder{}
	e := newEngine(config{HTTPClient: d, Logger: logger, Observer: rec})
	p := countBreaker(20, 10, 50)
	p.WaitInOpen, p.HalfOpenCalls = time.Millisecond, 3
	b := e.Breaker("shared", p)
	ops := []*operation{
		e.operation(operationSpec{Name: "a", Breaker: b}),
		e.operation(operationSpec{Name: "b", Breaker: e.Breaker("shared", p), Retry: constRetry(3, 0)}),
		e.operation(operationSpec{Name: "c", Breaker: b, Retry: constRetry(2, 0), Timeout: time.Second}),
	}
	const goroutines, calls = 64, 300
	var attempts, rejected atomic.Int64
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			req, _ := http.NewRequest("GET", "http://example.invalid/", nil)
			for i := range calls {
				resp, n, err := ops[(g+i)%len(ops)].Do(req.Context(), req)
				attempts.Add(int64(n))
				switch {
				case n == 0:
					if !errors.Is(err, ErrCircuitOpen) {
						t.Errorf("no attempt, error %v", err)
						return
					}
					rejected.Add(1)
				case resp != nil:
					resp.Body.Close()
				case err == nil:
					t.Error("no response and no error")
					return
				}
				if i%50 == 0 {
					b.Metrics()
				}
			}
		})
	}
	wg.Wait()
	// An open breaker's timer moves it to half-open on its own goroutine,
	// which logs the change and then reports it: wait until the breaker
	// has left open and both of the last change are in (a bounded wait,
	// not a timed assertion: the checks below decide).
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		open := b.State() == StateOpen
		rec.mu.Lock()
		n := len(rec.changes)
		rec.mu.Unlock()
		if !open && strings.Count(logs.String(), `breaker "shared" `) == n {
			break
		}
	}

	if attempts.Load() != sent.Load() {
		t.Fatalf("attempts %d, requests sent %d", attempts.Load(), sent.Load())
	}
	if rejected.Load() == 0 || rec.opens() == 0 {
		t.Fatalf("no rejection (%d) or no opening (%d): the test exercised nothing", rejected.Load(), rec.opens())
	}
	// Every change logged once, observed once, in order.
	rec.mu.Lock()
	changes := rec.changes
	rec.mu.Unlock()
	if lines := strings.Count(logs.String(), `breaker "shared" `); lines != len(changes) {
		t.Fatalf("%d log lines for %d state changes", lines, len(changes))
	}
	prev := StateClosed
	for i, c := range changes {
		if c.From != prev || c.From == c.To {
			t.Fatalf("change %d: %v → %v after %v", i, c.From, c.To, prev)
		}
		prev = c.To
	}
	if len(rec.rejects) != int(rejected.Load()) {
		t.Fatalf("%d rejection events for %d rejections", len(rec.rejects), rejected.Load())
	}
	t.Logf("%d calls, %d attempts, %d rejected, %d state changes", goroutines*calls, attempts.Load(), rejected.Load(), len(changes))
}
