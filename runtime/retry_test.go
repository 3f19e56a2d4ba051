package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// retryRun calls op once against a server that always answers code, and
// returns the attempts and the waits the observer saw.
func retryRun(t *testing.T, p *RetryPolicy, code int) (int, []time.Duration, *recorder) {
	t.Helper()
	s := scripted(t, code)
	rec := &recorder{}
	e := newEngine(config{Observer: rec, Logger: quiet})
	op := e.operation(operationSpec{Name: "op", Retry: p})
	_, n, _ := do(t, op, get(t, s))
	if int64(n) != s.calls.Load() {
		t.Fatalf("attempts %d, server saw %d", n, s.calls.Load())
	}
	return n, rec.waits(), rec
}

func ms(v ...int) []time.Duration {
	var d []time.Duration
	for _, x := range v {
		d = append(d, time.Duration(x)*time.Millisecond)
	}
	return d
}

func TestMaxAttempts(t *testing.T) {
	for _, max := range []int{1, 2, 4} {
		if n, _, rec := retryRun(t, constRetry(max, time.Millisecond), 503); n != max {
			t.Errorf("maxAttempts %d: %d attempts", max, n)
		} else if rec.lastEnd().Stop != "retries exhausted" && max > 1 {
			t.Errorf("stop %q", rec.lastEnd().Stop)
		}
	}
}

func TestBackoffKeys(t *testing.T) {
	exp := func(mult float64, cap time.Duration) *RetryPolicy {
		p := constRetry(5, time.Millisecond)
		p.Backoff, p.Multiplier, p.MaxInterval = ExponentialBackoff, mult, cap
		return p
	}
	cases := []struct {
		name string
		p    *RetryPolicy
		want []time.Duration
	}{
		{"constant 1ms", constRetry(4, time.Millisecond), ms(1, 1, 1)},
		{"constant 3ms (initialInterval)", constRetry(4, 3*time.Millisecond), ms(3, 3, 3)},
		{"exponential ×2", exp(2, time.Second), ms(1, 2, 4, 8)},
		{"exponential ×3 (multiplier)", exp(3, time.Second), ms(1, 3, 9, 27)},
		{"exponential capped at 5ms (maxInterval)", exp(2, 5*time.Millisecond), ms(1, 2, 4, 5)},
	}
	for _, tc := range cases {
		if _, w, _ := retryRun(t, tc.p, 503); !slices.Equal(w, tc.want) {
			t.Errorf("%s: waits %v, want %v", tc.name, w, tc.want)
		}
	}
}

func TestJitterKeyIsUsed(t *testing.T) {
	// With jitter the waits are not all exactly the backoff (the chance
	// that 4 full-jitter waits all land on 20ms exactly is nil).
	p := constRetry(5, 20*time.Millisecond)
	p.Jitter = FullJitter
	_, w, _ := retryRun(t, p, 503)
	if len(w) != 4 || slices.Equal(w, ms(20, 20, 20, 20)) {
		t.Fatalf("full jitter waits %v", w)
	}
	for _, d := range w {
		if d < 0 || d > 20*time.Millisecond {
			t.Fatalf("full jitter wait %v out of [0, 20ms]", d)
		}
	}
}

func TestJitterFormulas(t *testing.T) {
	base, cap := 10*time.Millisecond, 100*time.Millisecond
	p := &RetryPolicy{Backoff: ExponentialBackoff, InitialInterval: base, Multiplier: 2, MaxInterval: cap}
	const n = 20000
	for k := 1; k <= 6; k++ {
		w := min(cap, base<<(k-1)) // the cap applies before the jitter
		type rng struct{ lo, hi time.Duration }
		for _, tc := range []struct {
			j    Jitter
			want rng
		}{{NoJitter, rng{w, w}}, {FullJitter, rng{0, w}}, {EqualJitter, rng{w / 2, w}}} {
			p.Jitter = tc.j
			lo, hi := time.Duration(1<<62), time.Duration(-1)
			for range n {
				d := backoff(p, k, 0)
				lo, hi = min(lo, d), max(hi, d)
			}
			if lo < tc.want.lo || hi > tc.want.hi {
				t.Errorf("%v k=%d: range [%v, %v] outside [%v, %v]", tc.j, k, lo, hi, tc.want.lo, tc.want.hi)
			}
			// The whole range is used: the extremes come within 2%.
			if span := tc.want.hi - tc.want.lo; lo-tc.want.lo > span/50 || tc.want.hi-hi > span/50 {
				t.Errorf("%v k=%d: range [%v, %v] does not fill [%v, %v]", tc.j, k, lo, hi, tc.want.lo, tc.want.hi)
			}
		}
	}
	// Decorrelated: min(cap, random in [base, 3·prev]), prev from base.
	p.Jitter = DecorrelatedJitter
	prev := time.Duration(0)
	for range n {
		d := backoff(p, 1, prev)
		hi := min(cap, 3*max(prev, base))
		if d < base || d > hi {
			t.Fatalf("decorrelated: %v outside [%v, %v] (prev %v)", d, base, hi, prev)
		}
		prev = d
	}
	lo, hi := time.Duration(1<<62), time.Duration(0)
	for range n {
		d := backoff(p, 1, 0)
		lo, hi = min(lo, d), max(hi, d)
	}
	if lo > base+base/50 || hi < 3*base-base/50 || hi > 3*base {
		t.Fatalf("decorrelated from base: [%v, %v], want [%v, %v]", lo, hi, base, 3*base)
	}
	// The cap is reached (and never passed) once prev is large.
	if d := backoff(p, 9, time.Hour); d != cap {
		t.Fatalf("decorrelated with large prev: %v, want the cap %v", d, cap)
	}
}

func TestRetryOn(t *testing.T) {
	p := constRetry(3, time.Millisecond)
	p.RetryOn = Match{Codes: []int{503}}
	if n, _, _ := retryRun(t, p, 500); n != 1 {
		t.Errorf("500 not in [503]: %d attempts", n)
	}
	if n, _, _ := retryRun(t, p, 503); n != 3 {
		t.Errorf("503 in [503]: %d attempts", n)
	}
	p.RetryOn = Match{Classes: []int{4}}
	if n, _, _ := retryRun(t, p, 404); n != 3 {
		t.Errorf("404 in [4xx]: %d attempts", n)
	}
	if n, _, rec := retryRun(t, p, 503); n != 1 || rec.lastEnd().Stop != "not retryable" {
		t.Errorf("503 not in [4xx]: %d attempts, stop %q", n, rec.lastEnd().Stop)
	}
	// transport
	dead := newServer(t, status(200))
	url := dead.URL
	dead.Close()
	for _, tc := range []struct {
		m    Match
		want int
	}{{Match{Transport: true}, 3}, {Match{Timeout: true, Classes: []int{5}}, 1}} {
		p.RetryOn = tc.m
		e := newEngine(config{Logger: quiet})
		req, _ := http.NewRequest("GET", url, nil)
		_, n, err := e.operation(operationSpec{Name: "op", Retry: p}).Do(t.Context(), req)
		if n != tc.want || err == nil {
			t.Errorf("retryOn %+v, transport error: %d attempts (%v)", tc.m, n, err)
		}
	}
}

func TestPerAttemptTimeout(t *testing.T) {
	s := newServer(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		if n < 3 {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return
		}
		io.WriteString(w, "late but fine")
	})
	e := newEngine(config{Logger: quiet})
	p := constRetry(3, time.Millisecond)
	op := e.operation(operationSpec{Name: "op", Retry: p, Timeout: 30 * time.Millisecond})
	code, n, err := do(t, op, get(t, s))
	if err != nil || code != 200 || n != 3 {
		t.Fatalf("code %d attempts %d err %v", code, n, err)
	}
	// Without timeout in retryOn the first timeout ends the call, and the
	// error says what happened.
	p2 := constRetry(3, time.Millisecond)
	p2.RetryOn.Timeout = false
	op = e.operation(operationSpec{Name: "op", Retry: p2, Timeout: 30 * time.Millisecond})
	s.calls.Store(0)
	_, n, err = do(t, op, get(t, s))
	if n != 1 || !errors.Is(err, ErrAttemptTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("attempts %d err %v", n, err)
	}
	if !strings.Contains(err.Error(), "1 attempt, not retryable: attempt timed out after 30ms") {
		t.Fatalf("message %q", err)
	}
}

func TestTotalTimeoutStopsBeforeWaiting(t *testing.T) {
	s := scripted(t, 503)
	rec := &recorder{}
	e := newEngine(config{Observer: rec, Logger: quiet})
	op := e.operation(operationSpec{Name: "op", Retry: constRetry(10, 40*time.Millisecond), TotalTimeout: 100 * time.Millisecond})
	code, n, err := do(t, op, get(t, s))
	// Attempts at ~0, 40, 80 ms; the next wait would end at ~120ms > 100ms.
	if err != nil || code != 503 || n < 2 || n > 3 {
		t.Fatalf("code %d attempts %d err %v", code, n, err)
	}
	if stop := rec.lastEnd().Stop; !strings.Contains(stop, "would pass the deadline") {
		t.Fatalf("stop %q", stop)
	}
	// Without the total timeout all 10 attempts run (the key matters).
	op = e.operation(operationSpec{Name: "op", Retry: constRetry(10, time.Millisecond)})
	if _, n, _ := do(t, op, get(t, s)); n != 10 {
		t.Fatalf("no total timeout: %d attempts", n)
	}
}

func TestCallerDeadlineStopsBeforeWaiting(t *testing.T) {
	s := scripted(t, 503)
	e := newEngine(config{Logger: quiet})
	p := constRetry(3, time.Hour)
	p.MaxInterval = 0 // no cap
	op := e.operation(operationSpec{Name: "op", Retry: p})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL, nil)
	resp, n, err := op.Do(ctx, req)
	if err != nil || n != 1 || resp.StatusCode != 503 {
		t.Fatalf("attempts %d err %v", n, err)
	}
	resp.Body.Close()
}

func TestCancelDuringWait(t *testing.T) {
	s := scripted(t, 503)
	e := newEngine(config{Logger: quiet})
	op := e.operation(operationSpec{Name: "op", Retry: constRetry(3, time.Hour)})
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL, nil)
	time.AfterFunc(30*time.Millisecond, cancel)
	resp, n, err := op.Do(ctx, req)
	var se *StatusError
	if resp != nil || n != 1 || !errors.Is(err, context.Canceled) || !errors.As(err, &se) || se.StatusCode != 503 {
		t.Fatalf("resp %v attempts %d err %v", resp, n, err)
	}
	if want := "op: 1 attempt, cancelled by the caller while waiting to retry: GET " + s.URL + ": status 503 Service Unavailable (then context canceled)"; err.Error() != want {
		t.Fatalf("message %q, want %q", err, want)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"5", 5 * time.Second, true},
		{" 7 ", 7 * time.Second, true},
		{"0", 0, true},
		{"Fri, 02 Jan 2026 03:04:15 GMT", 10 * time.Second, true}, // IMF-fixdate
		{"Friday, 02-Jan-26 03:05:05 GMT", time.Minute, true},     // RFC 850
		{"Fri Jan  2 03:04:06 2026", time.Second, true},           // asctime
		{"Fri, 02 Jan 2026 03:00:00 GMT", 0, true},                // past
		{"99999999999999999999999", 1<<63 - 1, true},
		{"", 0, false},
		{"soon", 0, false},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"5s", 0, false},
	}
	for _, tc := range cases {
		d, ok := parseRetryAfter(tc.in, now)
		if d != tc.want || ok != tc.ok {
			t.Errorf("%q: %v %v, want %v %v", tc.in, d, ok, tc.want, tc.ok)
		}
	}
}

func retryAfterServer(t *testing.T, code int, value string) *server {
	return newServer(t, func(n int64, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			w.Header().Set("Retry-After", value)
			w.WriteHeader(code)
		}
	})
}

func TestRetryAfter(t *testing.T) {
	p := constRetry(3, time.Millisecond)
	p.MaxRetryAfter = 30 * time.Second
	for _, code := range []int{429, 503} {
		s := retryAfterServer(t, code, "1")
		rec := &recorder{}
		e := newEngine(config{Observer: rec, Logger: quiet})
		code2, n, err := do(t, e.operation(operationSpec{Name: "op", Retry: p}), get(t, s))
		if err != nil || code2 != 200 || n != 2 || !slices.Equal(rec.waits(), []time.Duration{time.Second}) {
			t.Fatalf("%d Retry-After 1: code %d attempts %d waits %v", code, code2, n, rec.waits())
		}
	}
	// Off: the backoff applies.
	p.RetryAfter = false
	if _, w, _ := retryRun(t, p, 503); !slices.Equal(w, ms(1, 1)) {
		t.Fatalf("retryAfter false: waits %v", w)
	}
	// Only on 429 and 503.
	p.RetryAfter = true
	s := retryAfterServer(t, 502, "1")
	rec := &recorder{}
	e := newEngine(config{Observer: rec, Logger: quiet})
	do(t, e.operation(operationSpec{Name: "op", Retry: p}), get(t, s))
	if !slices.Equal(rec.waits(), ms(1)) {
		t.Fatalf("502 with Retry-After: waits %v", rec.waits())
	}
}

func TestMaxRetryAfter(t *testing.T) {
	p := constRetry(3, time.Millisecond)
	for _, tc := range []struct {
		max  time.Duration
		want int
	}{{30 * time.Second, 1}, {5 * time.Minute, 0}} {
		p.MaxRetryAfter = tc.max
		s := retryAfterServer(t, 503, "120")
		rec := &recorder{}
		e := newEngine(config{Observer: rec, Logger: quiet})
		ctx, cancel := context.WithCancel(t.Context())
		if tc.want == 0 {
			time.AfterFunc(50*time.Millisecond, cancel) // it would wait 2 minutes
		}
		req, _ := http.NewRequestWithContext(ctx, "GET", s.URL, nil)
		resp, n, err := e.operation(operationSpec{Name: "op", Retry: p}).Do(ctx, req)
		cancel()
		if tc.want == 1 {
			if err != nil || n != 1 || resp.StatusCode != 503 || !strings.Contains(rec.lastEnd().Stop, "Retry-After 2m0s exceeds maxRetryAfter 30s") {
				t.Fatalf("maxRetryAfter 30s: attempts %d err %v stop %q", n, err, rec.lastEnd().Stop)
			}
			resp.Body.Close()
		} else if !slices.Equal(rec.waits(), []time.Duration{2 * time.Minute}) {
			t.Fatalf("maxRetryAfter 5m: waits %v", rec.waits())
		}
	}
}

func TestBudgetAccounting(t *testing.T) {
	var b budget
	p := Budget{Ratio: 0.2}
	at := func(s int) time.Duration { return time.Duration(s) * time.Second }
	for range 10 {
		b.deposit(at(0))
	}
	if !b.withdraw(at(0), p) || !b.withdraw(at(1), p) || b.withdraw(at(2), p) {
		t.Fatal("10 calls at 20% should give exactly 2 retries")
	}
	// 10 s later the calls and retries have aged out.
	if b.withdraw(at(11), p) {
		t.Fatal("no calls in the window, yet a retry")
	}
	for range 5 {
		b.deposit(at(11))
	}
	if !b.withdraw(at(11), p) || b.withdraw(at(11), p) {
		t.Fatal("5 calls at 20% should give exactly 1 retry")
	}
	// minPerSecond: 1/s over the 10 s window = 10 retries with no calls.
	var m budget
	q := Budget{MinPerSecond: 1}
	for i := range 10 {
		if !m.withdraw(at(100), q) {
			t.Fatalf("retry %d refused", i+1)
		}
	}
	if m.withdraw(at(100), q) {
		t.Fatal("11th retry allowed")
	}
}

func TestBudgetSharedByOperations(t *testing.T) {
	s := scripted(t, 503)
	rec := &recorder{}
	e := newEngine(config{Observer: rec, Logger: quiet})
	p := constRetry(5, time.Millisecond)
	p.Budget = &Budget{Ratio: 0.2}
	ok := e.operation(operationSpec{Name: "a", Retry: p})
	other := e.operation(operationSpec{Name: "b", Retry: p})
	good := newServer(t, status(200))
	for range 9 {
		do(t, ok, get(t, good))
	}
	// 10th call: 10 deposits at 20% = 2 retries, then the budget is spent.
	if code, n, _ := do(t, ok, get(t, s)); code != 503 || n != 3 || rec.lastEnd().Stop != "retry budget spent" {
		t.Fatalf("code %d attempts %d stop %q", code, n, rec.lastEnd().Stop)
	}
	// Another operation of the same engine shares the spent budget: 11
	// calls allow 2.2 retries, 2 are taken.
	if _, n, _ := do(t, other, get(t, s)); n != 1 {
		t.Fatalf("other operation: %d attempts", n)
	}
	// Without a budget the same call makes all 5 attempts.
	if _, n, _ := do(t, e.operation(operationSpec{Name: "c", Retry: constRetry(5, time.Millisecond)}), get(t, s)); n != 5 {
		t.Fatalf("no budget: %d attempts", n)
	}
}

func TestEditorsRunPerAttemptOnFreshCopies(t *testing.T) {
	var mu sync.Mutex
	var seen [][]string
	s := newServer(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Values("X-Attempt-Tag"))
		mu.Unlock()
		if n < 3 {
			w.WriteHeader(503)
		}
	})
	var runs atomic.Int32
	ed := func(_ context.Context, r *http.Request) error {
		runs.Add(1)
		r.Header.Add("X-Attempt-Tag", "t")
		return nil
	}
	rec := &recorder{}
	e := newEngine(config{RequestEditors: []RequestEditor{ed}, Logger: quiet, Observer: rec})
	op := e.operation(operationSpec{Name: "op", Retry: constRetry(3, time.Millisecond)})
	req := post(t, s, "body")
	if code, n, err := do(t, op, req); code != 200 || n != 3 || err != nil {
		t.Fatalf("code %d attempts %d err %v", code, n, err)
	}
	if stop := rec.lastEnd().Stop; stop != "done" {
		t.Fatalf("stop %q after a successful retry", stop)
	}
	if runs.Load() != 3 {
		t.Fatalf("editor ran %d times", runs.Load())
	}
	for i, v := range seen {
		if len(v) != 1 {
			t.Fatalf("attempt %d carried %v", i+1, v)
		}
	}
	if len(req.Header.Values("X-Attempt-Tag")) != 0 {
		t.Fatal("editor changed the caller's request")
	}
	// An editor error ends the call, nothing sent, not recorded.
	fail := func(context.Context, *http.Request) error { return errors.New("no token") }
	e = newEngine(config{RequestEditors: []RequestEditor{fail}, Logger: quiet})
	b := e.Breaker("b", countBreaker(1, 1, 1))
	s.calls.Store(0)
	_, n, err := do(t, e.operation(operationSpec{Name: "op", Breaker: b, Retry: constRetry(3, time.Millisecond)}), get(t, s))
	if n != 0 || err == nil || !strings.Contains(err.Error(), "no token") || s.calls.Load() != 0 || b.Metrics().Calls != 0 {
		t.Fatalf("attempts %d err %v calls %d metrics %+v", n, err, s.calls.Load(), b.Metrics())
	}
}

// trackDoer records every response body and whether it was drained and closed.
type trackDoer struct {
	inner  Doer
	mu     sync.Mutex
	bodies []*trackBody
}

type trackBody struct {
	io.ReadCloser
	read   int
	closed bool
}

func (b *trackBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.read += n
	return n, err
}
func (b *trackBody) Close() error { b.closed = true; return b.ReadCloser.Close() }

func (d *trackDoer) Do(r *http.Request) (*http.Response, error) {
	resp, err := d.inner.Do(r)
	if resp != nil {
		tb := &trackBody{ReadCloser: resp.Body}
		resp.Body = tb
		d.mu.Lock()
		d.bodies = append(d.bodies, tb)
		d.mu.Unlock()
	}
	return resp, err
}

func TestFailedBodiesDrainedBounded(t *testing.T) {
	s := newServer(t, func(n int64, w http.ResponseWriter, _ *http.Request) {
		switch n {
		case 1:
			w.WriteHeader(503)
			io.WriteString(w, strings.Repeat("a", 10_000))
		case 2:
			w.WriteHeader(503)
			io.WriteString(w, strings.Repeat("b", 1_000_000))
		default:
			io.WriteString(w, "ok")
		}
	})
	d := &trackDoer{inner: s.Client()}
	e := newEngine(config{HTTPClient: d, Logger: quiet})
	op := e.operation(operationSpec{Name: "op", Retry: constRetry(3, time.Millisecond), Timeout: time.Minute})
	resp, n, err := op.Do(t.Context(), get(t, s))
	if err != nil || n != 3 {
		t.Fatalf("attempts %d err %v", n, err)
	}
	if b := d.bodies; !b[0].closed || b[0].read != 10_000 || !b[1].closed || b[1].read != drainMax || b[2].closed {
		t.Fatalf("bodies: %+v %+v %+v", *b[0], *b[1], *b[2])
	}
	// The returned body is readable although an attempt timeout was set:
	// its context ends only when the body is closed.
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(body) != "ok" || !d.bodies[2].closed {
		t.Fatalf("body %q err %v", body, err)
	}
}

func TestAttemptContextCancelledOnClose(t *testing.T) {
	var ctxs []context.Context
	var mu sync.Mutex
	s := newServer(t, status(200))
	inner := s.Client()
	d := doerFunc(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		ctxs = append(ctxs, r.Context())
		mu.Unlock()
		return inner.Do(r)
	})
	e := newEngine(config{HTTPClient: d, Logger: quiet})
	op := e.operation(operationSpec{Name: "op", Timeout: time.Minute, TotalTimeout: time.Hour})
	resp, _, err := op.Do(t.Context(), get(t, s))
	if err != nil {
		t.Fatal(err)
	}
	if ctxs[0].Err() != nil {
		t.Fatal("attempt context ended before the body was closed")
	}
	resp.Body.Close()
	if ctxs[0].Err() == nil {
		t.Fatal("attempt context still alive after Close")
	}
}

type doerFunc func(*http.Request) (*http.Response, error)

func (f doerFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }

func TestRetryLoggedAtDebug(t *testing.T) {
	s := scripted(t, 503, 200)
	logger, logs := newLogger(-4)
	e := newEngine(config{Logger: logger})
	do(t, e.operation(operationSpec{Name: "listServers", Retry: constRetry(3, time.Millisecond)}), get(t, s))
	want := "DEBUG retrying listServers op=listServers attempt=1 wait=1ms reason=status 503"
	if !strings.Contains(logs.String(), want) {
		t.Fatalf("log lacks %q:\n%s", want, logs)
	}
}

func TestNopObserverAllocatesNothing(t *testing.T) {
	d := newCanned()
	e := newEngine(config{HTTPClient: d, Logger: quiet})
	p := DefaultRetryPolicy()
	op := e.operation(operationSpec{Name: "op", Breaker: e.Breaker("b", DefaultBreakerPolicy()), Retry: &p})
	req, _ := http.NewRequest("POST", "http://example.invalid/", nil)
	ctx := req.Context()
	if a := testing.AllocsPerRun(1000, func() { op.Do(ctx, req) }); a != 0 {
		t.Fatalf("%v allocations per successful call", a)
	}
	// A GET, which net/http could send again by itself, carries the gate
	// that caps and counts its sends (resend.go): the copy of the request
	// with the gate, the trace hook, the GetBody closure, and the context
	// of the trace (httptrace.WithClientTrace).
	get, _ := http.NewRequest("GET", "http://example.invalid/", nil)
	if a := testing.AllocsPerRun(1000, func() { op.Do(ctx, get) }); a > 4 {
		t.Fatalf("%v allocations per successful GET, want at most 4", a)
	}
	// The observer calls themselves cost nothing either.
	var o Observer = NopObserver{}
	ev := CallEndEvent{Operation: "op", Err: errors.New("x")}
	if a := testing.AllocsPerRun(1000, func() {
		o.CallStart(CallStartEvent{Operation: "op"})
		o.CallEnd(ev)
		o.Attempt(AttemptEvent{Operation: "op", Attempt: 1})
		o.RetryWait(RetryEvent{Operation: "op"})
		o.BreakerStateChange(StateChangeEvent{Breaker: "b"})
		o.Rejected(RejectionEvent{Breaker: "b"})
	}); a != 0 {
		t.Fatalf("nop observer: %v allocations", a)
	}
}

func TestSlogObserver(t *testing.T) {
	s := scripted(t, 503, 200)
	logger, logs := newLogger(-4)
	e := newEngine(config{Observer: NewSlogObserver(logger), Logger: quiet})
	do(t, e.operation(operationSpec{Name: "op", Retry: constRetry(3, time.Millisecond)}), get(t, s))
	for _, want := range []string{"DEBUG call start op=op", "DEBUG attempt op=op attempt=1 status=503", "INFO retry op=op attempt=1 wait=1ms reason=status 503", "DEBUG call end op=op attempts=2 status=200"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}

// A request whose header cannot be sent fails at once, in op.Do too: net/http
// refused it only when sending, as a transport error that was retried with
// backoff and counted by the breaker.
func TestUnsendableHeaderIsALocalError(t *testing.T) {
	s := newServer(t, status(200))
	p := constRetry(3, 50*time.Millisecond)
	p.RetryOn = Match{Transport: true}
	e := newEngine(config{Logger: quiet})
	b := e.Breaker("b", BreakerPolicy{WindowSize: 2, MinimumCalls: 1, FailureRateThreshold: 50, WaitInOpen: time.Minute, HalfOpenCalls: 1, RecordOn: Match{Transport: true}})
	op := e.operation(operationSpec{Name: "op", Method: "GET", Retry: p, Breaker: b})
	for _, set := range []func(h http.Header){
		func(h http.Header) { h.Set("X-A", "a\r\nb") },
		func(h http.Header) { h["Bad Name"] = []string{"x"} },
	} {
		req := get(t, s)
		set(req.Header)
		start := time.Now()
		_, n, err := do(t, op, req)
		var re *RequestError
		if n != 0 || !errors.As(err, &re) || time.Since(start) > 40*time.Millisecond {
			t.Errorf("%d attempts in %v, error %v; want none, at once, a *RequestError", n, time.Since(start), err)
		}
	}
	if m := b.Metrics(); m.Calls != 0 || m.State != StateClosed || s.calls.Load() != 0 {
		t.Errorf("breaker %+v, server calls %d; want nothing recorded, nothing sent", m, s.calls.Load())
	}
}
