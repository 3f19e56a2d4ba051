package runtime

// The experiments that chose breaker outside, retry inside (the order of
// every generated operation), against a real loopback server. The
// policy of experiments 1-3 is count 50 / min 20 / 40% / maxAttempts 3 /
// constant wait; the 200ms wait is scaled to 20ms, the counts are not.
// "Swapped" is the same runtime with the breaker inside the retry loop
// (Operation.RetryOutside), the order of Resilience4j's and Polly's
// defaults.

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const expWait = 20 * time.Millisecond

func expEngine(t *testing.T, swapped bool, waitInOpen time.Duration) (*operation, *Breaker, *recorder) {
	rec := &recorder{}
	e := newEngine(config{Observer: rec, Logger: quiet})
	p := countBreaker(50, 20, 40)
	p.WaitInOpen = waitInOpen
	b := e.Breaker("nova", p)
	op := e.operation(operationSpec{Name: "listServers", Method: "GET", Path: "/servers", Breaker: b, Retry: constRetry(3, expWait)})
	if swapped {
		op = swapOrder(t, op)
	}
	return op, b, rec
}

// untilOpen sends requests until the breaker is open and returns how many.
func untilOpen(t *testing.T, op *operation, b *Breaker, s *server) int {
	t.Helper()
	for n := 1; n <= 100; n++ {
		do(t, op, get(t, s))
		if b.State() == StateOpen {
			return n
		}
	}
	t.Fatal("never opened")
	return 0
}

// Experiment 1 and 2, breaker outside (resgen's order): sustained failure
// opens the breaker after 20 requests = 60 server calls; then 10 more
// requests are 10 fast rejections, 0 server calls, no retry wait.
func TestExperiment1And2BreakerOutside(t *testing.T) {
	s := scripted(t, 500)
	// waitInOpen must outlast 10 rejections (microseconds) but not the
	// swapped order's retry waits (10 requests × 2 × 20ms).
	op, b, rec := expEngine(t, false, 100*time.Millisecond)
	if n := untilOpen(t, op, b, s); n != 20 || s.calls.Load() != 60 {
		t.Fatalf("opened after %d requests = %d server calls, want 20 = 60", n, s.calls.Load())
	}
	waits := len(rec.waits())
	for i := range 10 {
		_, n, err := do(t, op, get(t, s))
		if !errors.Is(err, ErrCircuitOpen) || n != 0 {
			t.Fatalf("request %d: attempts %d err %v", i+1, n, err)
		}
	}
	if s.calls.Load() != 60 || len(rec.waits()) != waits || len(rec.rejects) != 10 {
		t.Fatalf("after 10 more: %d server calls, %d new waits, %d rejections", s.calls.Load()-60, len(rec.waits())-waits, len(rec.rejects))
	}
}

// Experiment 1 and 2, swapped: opens after 7 requests = 20 calls; the
// next 10 requests keep retrying into the breaker, and once it half-opens
// their attempts reach the server.
func TestExperiment1And2Swapped(t *testing.T) {
	s := scripted(t, 500)
	op, b, _ := expEngine(t, true, 100*time.Millisecond)
	if n := untilOpen(t, op, b, s); n != 7 || s.calls.Load() != 20 {
		t.Fatalf("opened after %d requests = %d server calls, want 7 = 20", n, s.calls.Load())
	}
	for range 10 {
		do(t, op, get(t, s))
	}
	if s.calls.Load() == 20 {
		t.Fatal("swapped: no call reached the server")
	}
}

// firstAttemptFails fails the first attempt of each request (by its
// X-Req header) and lets the second succeed.
func firstAttemptFails(t *testing.T) *server {
	var mu sync.Mutex
	seen := map[string]bool{}
	return newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		id := r.Header.Get("X-Req")
		if !seen[id] {
			seen[id] = true
			w.WriteHeader(503)
		}
	})
}

func exp3(t *testing.T, swapped bool) (ok int, errs []error, b *Breaker, rec *recorder) {
	s := firstAttemptFails(t)
	op, b, rec := expEngine(t, swapped, time.Minute)
	for i := range 50 {
		req := get(t, s)
		req.Header.Set("X-Req", strconv.Itoa(i))
		code, _, err := do(t, op, req)
		if err == nil && code == 200 {
			ok++
		} else {
			errs = append(errs, err)
		}
	}
	return ok, errs, b, rec
}

// Experiment 3, breaker outside: 50 requests whose first attempt fails
// and second succeeds all succeed; the breaker stays closed at 0%.
func TestExperiment3BreakerOutside(t *testing.T) {
	ok, errs, b, rec := exp3(t, false)
	m := b.Metrics()
	if ok != 50 || m.State != StateClosed || m.FailureRate != 0 || m.Calls != 50 || rec.opens() != 0 {
		t.Fatalf("%d/50 succeeded (%v), metrics %+v", ok, errs, m)
	}
}

// Experiment 3, swapped: every failed first attempt is a failure sample,
// 50% ≥ 40% after 20 attempts: the breaker opens and requests fail.
func TestExperiment3Swapped(t *testing.T) {
	ok, errs, b, rec := exp3(t, true)
	if rec.opens() == 0 || b.State() != StateOpen || ok != 10 || len(errs) != 40 {
		t.Fatalf("%d/50 succeeded, %d opens, state %v", ok, rec.opens(), b.State())
	}
	for _, err := range errs {
		if !errors.Is(err, ErrCircuitOpen) {
			t.Fatalf("failed request: %v", err)
		}
	}
}

// Experiment 4: slow calls only, all 200 OK: the breaker opens, and the
// log line says it was the slow-call rate.
func TestExperiment4SlowCallsOnly(t *testing.T) {
	s := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		time.Sleep(3 * time.Millisecond) // slowCallDuration 1ms: always slow
	})
	logger, logs := newLogger(0)
	e := newEngine(config{Logger: logger})
	p := countBreaker(10, 10, 50)
	p.SlowCallDuration, p.SlowCallRateThreshold = time.Millisecond, 50
	b := e.Breaker("nova", p)
	op := e.operation(operationSpec{Name: "listServers", Breaker: b, Retry: constRetry(3, time.Millisecond)})
	for i := range 10 {
		if code, n, err := do(t, op, get(t, s)); code != 200 || n != 1 || err != nil {
			t.Fatalf("call %d: code %d attempts %d err %v", i+1, code, n, err)
		}
	}
	if b.State() != StateOpen {
		t.Fatalf("10 slow successes: %v", b.State())
	}
	want := `WARN breaker "nova" opened: slow-call rate 100% (10 of 10 calls ≥ 1ms) ≥ 50%; failure rate 0%`
	if !strings.Contains(logs.String(), want) {
		t.Fatalf("log lacks %q:\n%s", want, logs)
	}
}

// Experiment 5 is TestMinimumCallsCappedAtWindowSize (breaker_test.go).
