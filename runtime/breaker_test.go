package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// outcomeServer answers each request with the next code of a script
// (repeating the last), so a test decides every recorded outcome.
func scripted(t *testing.T, codes ...int) *server {
	return newServer(t, func(n int64, w http.ResponseWriter, _ *http.Request) {
		i := int(n - 1)
		if i >= len(codes) {
			i = len(codes) - 1
		}
		w.WriteHeader(codes[i])
	})
}

// drive makes n single-attempt calls through a fresh breaker and returns
// the breaker and the state after each call.
func drive(t *testing.T, p BreakerPolicy, s *server, n int) (*Breaker, []State) {
	t.Helper()
	e := newEngine(config{Logger: quiet})
	b := e.Breaker("b", p)
	op := e.operation(operationSpec{Name: "op", Breaker: b})
	var states []State
	for range n {
		do(t, op, get(t, s))
		states = append(states, b.State())
	}
	return b, states
}

// openedAt returns the 1-based call after which the breaker was open, 0 if never.
func openedAt(states []State) int {
	for i, s := range states {
		if s == StateOpen {
			return i + 1
		}
	}
	return 0
}

func TestMinimumCalls(t *testing.T) {
	for _, min := range []int{3, 5} {
		s := scripted(t, 500)
		_, states := drive(t, countBreaker(10, min, 50), s, 6)
		if got := openedAt(states); got != min {
			t.Errorf("minimumCalls %d: opened after call %d", min, got)
		}
	}
}

func TestWindowSizeEvicts(t *testing.T) {
	// 4 successes then failures: a window of 4 reaches 50% at the 6th
	// call (S S F F); a window of 10 only at the 8th (4 of 8).
	for _, tc := range []struct{ size, want int }{{4, 6}, {10, 8}} {
		s := scripted(t, 200, 200, 200, 200, 500)
		_, states := drive(t, countBreaker(tc.size, 4, 50), s, 10)
		if got := openedAt(states); got != tc.want {
			t.Errorf("windowSize %d: opened after call %d, want %d", tc.size, got, tc.want)
		}
	}
}

func TestFailureRateThreshold(t *testing.T) {
	// Alternating failures: 50% over 4 calls.
	for _, tc := range []struct {
		pct  float64
		want int
	}{{50, 4}, {60, 0}} {
		s := newServer(t, func(n int64, w http.ResponseWriter, _ *http.Request) {
			if n%2 == 1 {
				w.WriteHeader(500)
			}
		})
		_, states := drive(t, countBreaker(4, 4, tc.pct), s, 8)
		if got := openedAt(states); got != tc.want {
			t.Errorf("threshold %v%%: opened after call %d, want %d", tc.pct, got, tc.want)
		}
	}
}

func TestMinimumCallsCappedAtWindowSize(t *testing.T) { // experiment 5
	s := scripted(t, 500)
	b, states := drive(t, countBreaker(10, 100, 50), s, 10)
	if got := openedAt(states); got != 10 {
		t.Fatalf("minimumCalls 100 / windowSize 10: opened after call %d, want 10", got)
	}
	if s.calls.Load() != 10 || b.State() != StateOpen {
		t.Fatalf("calls %d state %v", s.calls.Load(), b.State())
	}
}

// timeWindowRun records 3 failures, advances the fake clock by gap, then
// records one more, with a time window of dur; it returns the state.
func timeWindowRun(t *testing.T, wt WindowType, dur, gap time.Duration) State {
	s := scripted(t, 500)
	clk := &fakeClock{}
	clk.advance(1000 * time.Second)
	e := newEngineClock(config{Logger: quiet}, clk.now)
	p := countBreaker(100, 4, 50)
	p.WindowType, p.WindowDuration = wt, dur
	b := e.Breaker("b", p)
	op := e.operation(operationSpec{Name: "op", Breaker: b})
	for range 3 {
		do(t, op, get(t, s))
	}
	clk.advance(gap)
	do(t, op, get(t, s))
	return b.State()
}

func TestTimeWindow(t *testing.T) {
	// Failures 11 s old fall out of a 10 s window, not out of a 20 s one,
	// and never out of a count window.
	if st := timeWindowRun(t, TimeWindow, 10*time.Second, 11*time.Second); st != StateClosed {
		t.Errorf("10s window, 11s gap: %v, want closed", st)
	}
	if st := timeWindowRun(t, TimeWindow, 20*time.Second, 11*time.Second); st != StateOpen {
		t.Errorf("20s window, 11s gap: %v, want open", st)
	}
	if st := timeWindowRun(t, CountWindow, 10*time.Second, 11*time.Second); st != StateOpen {
		t.Errorf("count window: %v, want open", st)
	}
}

func TestTimeWindowUnit(t *testing.T) {
	w := newTimeWindow(3)
	w.add(outFailed, 100)
	w.add(0, 101)
	w.add(outFailed|outSlow, 102)
	if w.total != (tally{3, 2, 1}) {
		t.Fatalf("total %+v", w.total)
	}
	w.add(0, 103) // second 100 falls out
	if w.total != (tally{3, 1, 1}) {
		t.Fatalf("after 1 s: %+v", w.total)
	}
	w.advance(200)
	if w.total != (tally{}) {
		t.Fatalf("after a long gap: %+v", w.total)
	}
}

// slowRun makes n successful calls that each take d on the fake clock.
func slowRun(t *testing.T, p BreakerPolicy, d func(i int) time.Duration, n int) (*Breaker, []State, string) {
	s := scripted(t, 200)
	clk := &fakeClock{}
	i := 0
	logger, logs := newLogger(0)
	e := newEngineClock(config{Logger: logger,
		HTTPClient: &clockDoer{inner: s.Client(), clk: clk, d: func(*http.Request) time.Duration { i++; return d(i) }}}, clk.now)
	b := e.Breaker("nova", p)
	op := e.operation(operationSpec{Name: "op", Breaker: b})
	var states []State
	for range n {
		do(t, op, get(t, s))
		states = append(states, b.State())
	}
	return b, states, logs.String()
}

func slowPolicy(dur time.Duration, pct float64) BreakerPolicy {
	p := countBreaker(10, 10, 50)
	p.SlowCallDuration, p.SlowCallRateThreshold = dur, pct
	return p
}

func TestSlowCallDuration(t *testing.T) {
	every := func(int) time.Duration { return 200 * time.Millisecond }
	if _, states, _ := slowRun(t, slowPolicy(200*time.Millisecond, 50), every, 10); openedAt(states) != 10 {
		t.Errorf("200ms calls, slowCallDuration 200ms: opened after %d, want 10", openedAt(states))
	}
	if _, states, _ := slowRun(t, slowPolicy(201*time.Millisecond, 50), every, 10); openedAt(states) != 0 {
		t.Errorf("200ms calls, slowCallDuration 201ms: opened after %d, want never", openedAt(states))
	}
}

func TestSlowCallRateThreshold(t *testing.T) {
	// 6 of 10 calls slow: 60%.
	d := func(i int) time.Duration {
		if i <= 6 {
			return time.Second
		}
		return time.Millisecond
	}
	_, states, logs := slowRun(t, slowPolicy(200*time.Millisecond, 50), d, 10)
	if openedAt(states) != 10 {
		t.Fatalf("60%% slow, threshold 50%%: opened after %d, want 10", openedAt(states))
	}
	want := `breaker "nova" opened: slow-call rate 60% (6 of 10 calls ≥ 200ms) ≥ 50%; failure rate 0%`
	if !strings.Contains(logs, want) {
		t.Fatalf("log lacks %q:\n%s", want, logs)
	}
	if _, states, _ := slowRun(t, slowPolicy(200*time.Millisecond, 70), d, 10); openedAt(states) != 0 {
		t.Errorf("60%% slow, threshold 70%%: opened after %d, want never", openedAt(states))
	}
}

func TestSlowIsSumOfAttemptsWithoutWaits(t *testing.T) {
	// Two attempts of 60ms each = 120ms ≥ 100ms: slow, though each
	// attempt is fast; the 1h wait between them is not counted... the
	// wait is real time, which the fake clock never sees, so use a tiny one.
	s := scripted(t, 503, 200)
	clk := &fakeClock{}
	e := newEngineClock(config{Logger: quiet,
		HTTPClient: &clockDoer{inner: s.Client(), clk: clk, d: func(*http.Request) time.Duration { return 60 * time.Millisecond }}}, clk.now)
	p := slowPolicy(100*time.Millisecond, 100)
	p.MinimumCalls = 1
	b := e.Breaker("b", p)
	op := e.operation(operationSpec{Name: "op", Breaker: b, Retry: constRetry(2, time.Millisecond)})
	if code, n, _ := do(t, op, get(t, s)); code != 200 || n != 2 {
		t.Fatalf("code %d attempts %d", code, n)
	}
	if b.State() != StateOpen {
		t.Fatalf("2×60ms call not slow at 100ms: %v %+v", b.State(), b.Metrics())
	}
}

func TestRecordOn(t *testing.T) {
	// 404 is a success unless named.
	s := scripted(t, 404)
	if _, states := drive(t, countBreaker(4, 4, 50), s, 4); openedAt(states) != 0 {
		t.Errorf("404 counted as failure by default")
	}
	p := countBreaker(4, 4, 50)
	p.RecordOn = Match{Codes: []int{404}}
	if _, states := drive(t, p, s, 4); openedAt(states) != 4 {
		t.Errorf("recordOn [404]: opened after %d, want 4", openedAt(states))
	}
	p.RecordOn = Match{Classes: []int{4}}
	if _, states := drive(t, p, s, 4); openedAt(states) != 4 {
		t.Errorf("recordOn [4xx]: opened after %d, want 4", openedAt(states))
	}
	// 5xx not named: 500 is a success.
	p.RecordOn = Match{Transport: true}
	if _, states := drive(t, p, scripted(t, 500), 4); openedAt(states) != 0 {
		t.Errorf("recordOn [transport]: 500 counted")
	}
}

func TestRecordOnTransportAndTimeout(t *testing.T) {
	dead := newServer(t, status(200))
	url := dead.URL
	dead.Close()
	slow := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	run := func(rec Match, target string, timeout time.Duration) State {
		e := newEngine(config{Logger: quiet})
		p := countBreaker(2, 2, 50)
		p.RecordOn = rec
		b := e.Breaker("b", p)
		op := e.operation(operationSpec{Name: "op", Breaker: b, Timeout: timeout})
		for range 2 {
			req, _ := http.NewRequest("GET", target, nil)
			_, _, err := op.Do(t.Context(), req)
			if err == nil {
				t.Fatal("no error")
			}
		}
		return b.State()
	}
	if st := run(Match{Transport: true}, url, 0); st != StateOpen {
		t.Errorf("transport recorded: %v", st)
	}
	if st := run(Match{Timeout: true}, url, 0); st != StateClosed {
		t.Errorf("transport not named: %v", st)
	}
	if st := run(Match{Timeout: true}, slow.URL, 10*time.Millisecond); st != StateOpen {
		t.Errorf("timeout recorded: %v", st)
	}
	if st := run(Match{Transport: true}, slow.URL, 10*time.Millisecond); st != StateClosed {
		t.Errorf("timeout not named: %v", st)
	}
}

func TestCallerCancelNotRecorded(t *testing.T) {
	s := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	e := newEngine(config{Logger: quiet})
	b := e.Breaker("b", countBreaker(1, 1, 1))
	op := e.operation(operationSpec{Name: "op", Breaker: b, Retry: constRetry(3, time.Millisecond)})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL, nil)
	_, n, err := op.Do(ctx, req)
	if !errors.Is(err, context.DeadlineExceeded) || n != 1 {
		t.Fatalf("attempts %d err %v", n, err)
	}
	if m := b.Metrics(); m.Calls != 0 || m.State != StateClosed {
		t.Fatalf("cancelled call recorded: %+v", m)
	}
}

// openBreaker returns an engine whose breaker "b" (policy p) is open after
// failing calls against s, with waitInOpen already elapsed when it returns.
func openThenWait(t *testing.T, p BreakerPolicy, s *server, obs Observer) (*engine, *Breaker) {
	e := newEngine(config{Observer: obs, Logger: quiet})
	b := e.Breaker("b", p)
	op := e.operation(operationSpec{Name: "op", Breaker: b})
	for b.State() != StateOpen {
		do(t, op, get(t, s))
	}
	time.Sleep(p.WaitInOpen + 30*time.Millisecond)
	return e, b
}

func TestWaitInOpen(t *testing.T) {
	s := scripted(t, 500)
	for _, tc := range []struct {
		wait time.Duration
		want State
	}{{20 * time.Millisecond, StateHalfOpen}, {time.Minute, StateOpen}} {
		e := newEngine(config{Logger: quiet})
		p := countBreaker(1, 1, 50)
		p.WaitInOpen = tc.wait
		b := e.Breaker("b", p)
		do(t, e.operation(operationSpec{Name: "op", Breaker: b}), get(t, s))
		time.Sleep(100 * time.Millisecond)
		if st := b.State(); st != tc.want {
			t.Errorf("waitInOpen %v after 100ms: %v, want %v", tc.wait, st, tc.want)
		}
	}
}

func TestHalfOpenAdmitsExactlyHalfOpenCalls(t *testing.T) {
	release := make(chan struct{})
	mode := make(chan bool, 1) // true: fail fast; false: block until released
	mode <- true
	s := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		m := <-mode
		mode <- m
		if m {
			w.WriteHeader(500)
			return
		}
		<-release
	})
	p := countBreaker(2, 2, 50)
	p.WaitInOpen, p.HalfOpenCalls = 20*time.Millisecond, 3
	rec := &recorder{}
	e, b := openThenWait(t, p, s, rec)
	<-mode
	mode <- false
	before := s.calls.Load()
	op := e.operation(operationSpec{Name: "op", Breaker: b, Retry: constRetry(3, time.Millisecond)})

	const callers = 10
	var wg sync.WaitGroup
	results := make(chan error, callers)
	for range callers {
		wg.Go(func() {
			code, n, err := do(t, op, get(t, s))
			if err == nil && (code != 200 || n != 1) {
				err = fmt.Errorf("trial made %d attempts", n)
			}
			results <- err
		})
	}
	// Rejections return at once; the 3 trials block in the server.
	rejected := 0
	for rejected < callers-3 {
		err := <-results
		var coe *CircuitOpenError
		if !errors.As(err, &coe) || !coe.HalfOpen {
			t.Fatalf("want a half-open rejection, got %v", err)
		}
		rejected++
	}
	close(release)
	wg.Wait()
	close(results)
	for err := range results {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := s.calls.Load() - before; got != 3 {
		t.Fatalf("server saw %d trial requests, want 3", got)
	}
	if b.State() != StateClosed {
		t.Fatalf("3 successful trials: %v", b.State())
	}
}

// trialRun sends HalfOpenCalls (4) sequential trials whose first `fail`
// fail, and returns the state after them.
func trialRun(t *testing.T, fail int, pct float64) (State, string) {
	n := 0
	var mu sync.Mutex
	halfOpen := false
	s := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if !halfOpen {
			w.WriteHeader(500)
			return
		}
		n++
		if n <= fail {
			w.WriteHeader(500)
		}
	})
	p := countBreaker(2, 2, pct)
	p.WaitInOpen, p.HalfOpenCalls = 20*time.Millisecond, 4
	logger, logs := newLogger(0)
	e := newEngine(config{Logger: logger})
	b := e.Breaker("b", p)
	op := e.operation(operationSpec{Name: "op", Breaker: b, Retry: constRetry(3, time.Millisecond)})
	for b.State() != StateOpen {
		do(t, op, get(t, s))
	}
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	halfOpen = true
	mu.Unlock()
	for i := range 4 {
		if st := b.State(); st != StateHalfOpen {
			t.Fatalf("before trial %d: %v", i+1, st)
		}
		if _, n, _ := do(t, op, get(t, s)); n != 1 {
			t.Fatalf("trial made %d attempts", n)
		}
	}
	return b.State(), logs.String()
}

func TestHalfOpenRateRule(t *testing.T) {
	// Resilience4j: the trials' failure rate decides. 1 of 4 = 25% < 50%
	// closes (gobreaker alone would re-open on the first failure); 2 of 4
	// = 50% re-opens.
	st, logs := trialRun(t, 1, 50)
	if st != StateClosed {
		t.Fatalf("1 of 4 trials failed at 50%%: %v\n%s", st, logs)
	}
	if !strings.Contains(logs, `breaker "b" closed: trial calls: failure rate 25% (1 of 4 calls) < 50%`) {
		t.Fatalf("close reason missing:\n%s", logs)
	}
	if !strings.Contains(logs, `breaker "b" half-open: 20ms in open elapsed; letting 4 trial calls through`) {
		t.Fatalf("half-open reason missing:\n%s", logs)
	}
	if st, logs := trialRun(t, 2, 50); st != StateOpen {
		t.Fatalf("2 of 4 trials failed at 50%%: %v\n%s", st, logs)
	}
}

func TestStateChangesLoggedOnceAndObserved(t *testing.T) {
	s := scripted(t, 500)
	logger, logs := newLogger(0)
	rec := &recorder{}
	e := newEngine(config{Logger: logger, Observer: rec})
	b := e.Breaker("nova", countBreaker(20, 20, 40))
	op := e.operation(operationSpec{Name: "op", Breaker: b})
	for range 25 {
		do(t, op, get(t, s))
	}
	want := `breaker "nova" opened: failure rate 100% (20 of 20 calls) ≥ 40%; slow-call rate 0%`
	if c := strings.Count(logs.String(), want); c != 1 {
		t.Fatalf("%d lines %q:\n%s", c, want, logs)
	}
	if rec.opens() != 1 || len(rec.rejects) != 5 || rec.changes[0].Reason != strings.TrimPrefix(want, `breaker "nova" opened: `) {
		t.Fatalf("observer: %+v, %d rejections", rec.changes, len(rec.rejects))
	}
}

func TestMetrics(t *testing.T) {
	s := newServer(t, func(n int64, w http.ResponseWriter, _ *http.Request) {
		if n <= 3 {
			w.WriteHeader(500)
		}
	})
	b, _ := drive(t, countBreaker(100, 100, 50), s, 10)
	m := b.Metrics()
	if m.State != StateClosed || m.Calls != 10 || m.Failed != 3 || m.FailureRate != 30 || m.SlowCallRate != 0 {
		t.Fatalf("%+v", m)
	}
}

func TestPanicDoesNotOpen(t *testing.T) {
	e := newEngine(config{Logger: quiet, HTTPClient: doerFunc(func(*http.Request) (*http.Response, error) { panic("boom") })})
	b := e.Breaker("b", countBreaker(1, 1, 1))
	op := e.operation(operationSpec{Name: "op", Breaker: b})
	req, _ := http.NewRequest("GET", "http://example.invalid/", nil)
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v", r)
			}
		}()
		op.Do(t.Context(), req)
	}()
	if m := b.Metrics(); m.State != StateClosed || m.Calls != 0 {
		t.Fatalf("after a panic: %+v", m)
	}
}
