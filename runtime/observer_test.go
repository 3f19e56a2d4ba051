package runtime

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// callKey marks a call's context in these tests.
type callKey struct{}

func callCtx(id int) context.Context {
	return context.WithValue(context.Background(), callKey{}, id)
}

func callID(ctx context.Context) any {
	if ctx == nil {
		return "nil context"
	}
	return ctx.Value(callKey{})
}

// contexts returns the context of every event r holds, each with the name of
// its kind, in no particular order across kinds.
func (r *recorder) contexts() map[string][]context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := map[string][]context.Context{}
	for _, e := range r.starts {
		m["CallStart"] = append(m["CallStart"], e.Context)
	}
	for _, e := range r.ends {
		m["CallEnd"] = append(m["CallEnd"], e.Context)
	}
	for _, e := range r.tries {
		m["Attempt"] = append(m["Attempt"], e.Context)
	}
	for _, e := range r.retries {
		m["RetryWait"] = append(m["RetryWait"], e.Context)
	}
	for _, e := range r.rejects {
		m["Rejected"] = append(m["Rejected"], e.Context)
	}
	for _, e := range r.changes {
		m["StateChange"] = append(m["StateChange"], e.Context)
	}
	return m
}

// TestEventsCarryTheCallsContext: each call's events (a retried call, the
// call that opens the breaker, a refused call) carry the context that
// call was made with, and so does the state change that call caused.
func TestEventsCarryTheCallsContext(t *testing.T) {
	s := scripted(t, 503, 200, 500, 500)
	rec := &recorder{}
	e := newEngine(config{Observer: rec, Logger: quiet})
	b := e.Breaker("b", countBreaker(2, 2, 50))
	op := e.operation(operationSpec{Name: "op", Breaker: b, Retry: constRetry(2, time.Millisecond)})
	for id := 1; id <= 3; id++ {
		req := get(t, s).WithContext(callCtx(id))
		rec.mu.Lock()
		rec.starts, rec.ends, rec.tries, rec.retries, rec.rejects, rec.changes = nil, nil, nil, nil, nil, nil
		rec.mu.Unlock()
		do(t, op, req)
		want := map[int]map[string]int{ // events per kind of each call
			1: {"CallStart": 1, "Attempt": 2, "RetryWait": 1, "CallEnd": 1},
			2: {"CallStart": 1, "Attempt": 2, "RetryWait": 1, "StateChange": 1, "CallEnd": 1},
			3: {"CallStart": 1, "Rejected": 1, "CallEnd": 1},
		}[id]
		got := rec.contexts()
		for kind, n := range want {
			if len(got[kind]) != n {
				t.Errorf("call %d: %d %s events, want %d", id, len(got[kind]), kind, n)
			}
		}
		for kind, ctxs := range got {
			if want[kind] == 0 {
				t.Errorf("call %d: unexpected %s event", id, kind)
			}
			for _, ctx := range ctxs {
				if v := callID(ctx); v != id {
					t.Errorf("call %d: %s event carries the context of call %v", id, kind, v)
				}
			}
		}
	}
}

// derivingObserver puts a value of its own in the call's context, as a
// tracing observer puts its span.
type derivingObserver struct {
	recorder
}

type spanKey struct{}

func (o *derivingObserver) CallStart(e CallStartEvent) context.Context {
	o.recorder.CallStart(e)
	return context.WithValue(e.Context, spanKey{}, "span")
}

// spanDoer fails the test if a request lacks the observer's value.
type spanDoer struct {
	t     *testing.T
	inner Doer
}

func (d spanDoer) Do(r *http.Request) (*http.Response, error) {
	if r.Context().Value(spanKey{}) != "span" || r.Context().Value(callKey{}) != 1 {
		d.t.Errorf("attempt's request lacks the context CallStart returned")
	}
	return d.inner.Do(r)
}

// TestCallStartContextParentsTheCall: the context CallStart returns is the
// one every later event carries and every attempt's request is made
// with, values of the caller's context included.
func TestCallStartContextParentsTheCall(t *testing.T) {
	s := scripted(t, 503, 503, 200)
	obs := &derivingObserver{}
	e := newEngine(config{Observer: obs, Logger: quiet, HTTPClient: spanDoer{t, http.DefaultClient}})
	op := e.operation(operationSpec{Name: "op", Retry: constRetry(3, time.Millisecond), Timeout: time.Second})
	if code, n, err := do(t, op, get(t, s).WithContext(callCtx(1))); code != 200 || n != 3 || err != nil {
		t.Fatalf("status %d attempts %d err %v", code, n, err)
	}
	for kind, ctxs := range obs.contexts() {
		for _, ctx := range ctxs {
			want := "span"
			if kind == "CallStart" {
				want = "" // before the observer derived it
			}
			if got, _ := ctx.Value(spanKey{}).(string); got != want || callID(ctx) != 1 {
				t.Errorf("%s event: span %q call %v, want %q and call 1", kind, got, callID(ctx), want)
			}
		}
	}
}

// TestEveryCallHasOneStartAndOneEnd: closed, half-open trial, refused
// while open and refused while half-open, each call has exactly one
// CallStart and one CallEnd; a refused call's CallEnd has Attempts 0, the
// *CircuitOpenError and a "rejected" Stop.
func TestEveryCallHasOneStartAndOneEnd(t *testing.T) {
	release := make(chan struct{})
	var blocking sync.Once
	entered := make(chan struct{})
	var mode sync.Mutex
	fail := true
	s := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		mode.Lock()
		f := fail
		mode.Unlock()
		if f {
			w.WriteHeader(500)
			return
		}
		blocking.Do(func() { close(entered) })
		<-release
	})
	p := countBreaker(2, 2, 50)
	p.WaitInOpen, p.HalfOpenCalls = 30*time.Millisecond, 1
	rec := &recorder{}
	e := newEngine(config{Observer: rec, Logger: quiet})
	b := e.Breaker("b", p)
	op := e.operation(operationSpec{Name: "op", Breaker: b})
	calls := 0
	call := func(id int) error {
		calls++
		_, _, err := do(t, op, get(t, s).WithContext(callCtx(id)))
		return err
	}
	call(1)
	call(2) // opens
	if b.State() != StateOpen {
		t.Fatalf("breaker %v, want open", b.State())
	}
	openErr := call(3)
	var coe *CircuitOpenError
	if !errors.As(openErr, &coe) || coe.HalfOpen {
		t.Fatalf("call while open: %v", openErr)
	}
	time.Sleep(p.WaitInOpen + 30*time.Millisecond)
	mode.Lock()
	fail = false
	mode.Unlock()
	done := make(chan struct{})
	calls++
	go func() { do(t, op, get(t, s).WithContext(callCtx(4))); close(done) }() // the one trial, held
	<-entered
	halfErr := call(5)
	if !errors.As(halfErr, &coe) || !coe.HalfOpen {
		t.Fatalf("call while half-open: %v", halfErr)
	}
	close(release)
	<-done

	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.starts) != calls || len(rec.ends) != calls {
		t.Fatalf("%d calls: %d CallStart, %d CallEnd", calls, len(rec.starts), len(rec.ends))
	}
	seen := map[any]int{}
	for _, ev := range rec.starts {
		seen[callID(ev.Context)]++
		if ev.Breaker != "b" || ev.HalfOpenTrial != (callID(ev.Context) == 4) {
			t.Errorf("CallStart %+v: want breaker b, trial only for call 4", ev)
		}
	}
	for _, ev := range rec.ends {
		id := callID(ev.Context)
		seen[id] += 10
		switch id {
		case 3, 5:
			if ev.Attempts != 0 || !errors.Is(ev.Err, ErrCircuitOpen) || !strings.HasPrefix(ev.Stop, "rejected") {
				t.Errorf("refused call %v: CallEnd %+v", id, ev)
			}
		default:
			if ev.Attempts != 1 || errors.Is(ev.Err, ErrCircuitOpen) {
				t.Errorf("admitted call %v: CallEnd %+v", id, ev)
			}
		}
	}
	for id := 1; id <= 5; id++ {
		if seen[id] != 11 {
			t.Errorf("call %d: %d CallStart and %d CallEnd, want one each", id, seen[id]%10, seen[id]/10)
		}
	}
	if len(rec.rejects) != 2 {
		t.Errorf("%d Rejected events, want 2", len(rec.rejects))
	}
}

// TestIdleOpenToHalfOpenIsReported: with no call and nobody reading the
// state, an open breaker reports half-open when WaitInOpen ends, in the
// log and to the observer (with context.Background()), and State agrees.
// Its timer goroutine is gone afterwards.
func TestIdleOpenToHalfOpenIsReported(t *testing.T) {
	s := scripted(t, 500)
	logger, logs := newLogger(slog.LevelInfo)
	changed := make(chan StateChangeEvent, 4)
	obs := &notifyObserver{changes: changed}
	e := newEngine(config{Observer: obs, Logger: logger})
	p := countBreaker(1, 1, 50)
	p.WaitInOpen = 50 * time.Millisecond
	b := e.Breaker("b", p)
	do(t, e.operation(operationSpec{Name: "op", Breaker: b}), get(t, s).WithContext(callCtx(1)))
	opened := time.Now()
	before := goleak.IgnoreCurrent() // the timer has not fired yet
	if ev := <-changed; ev.To != StateOpen || callID(ev.Context) != 1 {
		t.Fatalf("first change %v -> %v with call %v, want -> open caused by call 1", ev.From, ev.To, callID(ev.Context))
	}
	select {
	case ev := <-changed:
		took := time.Since(opened)
		if ev.From != StateOpen || ev.To != StateHalfOpen || ev.Context != context.Background() {
			t.Fatalf("change %v -> %v ctx %v, want open -> half-open with context.Background()", ev.From, ev.To, ev.Context)
		}
		if took < p.WaitInOpen || took > p.WaitInOpen+time.Second {
			t.Errorf("half-open reported %v after opening, want about %v", took, p.WaitInOpen)
		}
		if st := b.State(); st != StateHalfOpen {
			t.Errorf("State() %v after the half-open event", st)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no open -> half-open event on an idle breaker")
	}
	if !strings.Contains(logs.String(), `INFO breaker "b" half-open: 50ms in open elapsed`) {
		t.Errorf("log lacks the half-open line:\n%s", logs)
	}
	select {
	case ev := <-changed:
		t.Errorf("extra change %v -> %v", ev.From, ev.To)
	case <-time.After(100 * time.Millisecond):
	}
	goleak.VerifyNone(t, before)
}

// notifyObserver sends every state change on a channel.
type notifyObserver struct {
	NopObserver
	changes chan StateChangeEvent
}

func (o *notifyObserver) BreakerStateChange(e StateChangeEvent) { o.changes <- e }

// TestBreakerTimerFollowsTheState: a breaker that a read moved to
// half-open before its timer fired, then closed, reports nothing more when
// the old timer's time comes; a re-opened breaker has a timer of its own
// and reports half-open once per opening; a wake of an older generation
// changes nothing.
func TestBreakerTimerFollowsTheState(t *testing.T) {
	codes := make(chan int, 100)
	s := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(<-codes) })
	rec := &recorder{}
	e := newEngine(config{Observer: rec, Logger: quiet})
	p := countBreaker(1, 1, 50)
	p.WaitInOpen, p.HalfOpenCalls = 40*time.Millisecond, 1
	b := e.Breaker("b", p)
	op := e.operation(operationSpec{Name: "op", Breaker: b})
	call := func(code int) { codes <- code; do(t, op, get(t, s)) }
	changes := func() []State {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		var to []State
		for _, c := range rec.changes {
			to = append(to, c.To)
		}
		return to
	}
	waitFor := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); len(changes()) < n; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("changes %v, want %d", changes(), n)
			}
		}
	}
	call(500)  // open
	waitFor(2) // half-open by the timer
	call(500)  // the trial fails: open again, a new timer
	b.mu.Lock()
	gen := b.gen
	b.mu.Unlock()
	b.wake(gen - 2) // a wake of the first opening: nothing happens
	if st := b.State(); st != StateOpen {
		t.Fatalf("a stale wake moved the breaker to %v", st)
	}
	waitFor(4)
	call(200) // the trial passes: closed, no timer
	b.mu.Lock()
	timer := b.timer
	b.mu.Unlock()
	if timer != nil {
		t.Error("a closed breaker keeps a timer")
	}
	time.Sleep(2 * p.WaitInOpen)
	want := []State{StateOpen, StateHalfOpen, StateOpen, StateHalfOpen, StateClosed}
	if got := changes(); !equalStates(got, want) {
		t.Errorf("changes %v, want %v", got, want)
	}
}

func equalStates(a, b []State) bool {
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

// TestMetricsWhileOpen: an open breaker reports the calls and rates that
// opened it, not 0 of 0; half-open reports the trial calls so far; a
// breaker re-opened by its trials reports the trials.
func TestMetricsWhileOpen(t *testing.T) {
	codes := make(chan int, 100)
	s := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(<-codes) })
	e := newEngine(config{Logger: quiet})
	p := countBreaker(10, 10, 50)
	p.WaitInOpen, p.HalfOpenCalls = 30*time.Millisecond, 2
	b := e.Breaker("b", p)
	op := e.operation(operationSpec{Name: "op", Breaker: b})
	for _, c := range []int{200, 200, 200, 200, 500, 500, 500, 200, 500, 500} {
		codes <- c
		do(t, op, get(t, s))
	}
	want := BreakerMetrics{State: StateOpen, Calls: 10, Failed: 5, FailureRate: 50}
	if m := b.Metrics(); m != want {
		t.Fatalf("open: %+v, want %+v", m, want)
	}
	time.Sleep(p.WaitInOpen + 30*time.Millisecond)
	if m := b.Metrics(); m != (BreakerMetrics{State: StateHalfOpen}) {
		t.Fatalf("half-open before any trial: %+v", m)
	}
	codes <- 200
	do(t, op, get(t, s))
	if m := b.Metrics(); m != (BreakerMetrics{State: StateHalfOpen, Calls: 1}) {
		t.Fatalf("half-open after one trial: %+v", m)
	}
	codes <- 500
	do(t, op, get(t, s))
	want = BreakerMetrics{State: StateOpen, Calls: 2, Failed: 1, FailureRate: 50}
	if m := b.Metrics(); m != want {
		t.Fatalf("re-opened by its trials: %+v, want %+v", m, want)
	}
}

// ctxHandler keeps the call id of the context of every record.
type ctxHandler struct {
	mu  sync.Mutex
	ids map[string][]any
}

func (h *ctxHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *ctxHandler) Handle(ctx context.Context, r slog.Record) error {
	h.mu.Lock()
	h.ids[r.Message] = append(h.ids[r.Message], callID(ctx))
	h.mu.Unlock()
	return nil
}
func (h *ctxHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *ctxHandler) WithGroup(string) slog.Handler      { return h }

// TestSlogObserverLogsWithTheEventsContext: a slog.Handler sees the
// caller's context on every line of the call, as one that adds trace IDs
// needs, and so does the Engine's own log for the change the call caused.
func TestSlogObserverLogsWithTheEventsContext(t *testing.T) {
	s := scripted(t, 503, 500)
	h := &ctxHandler{ids: map[string][]any{}}
	e := newEngine(config{Observer: NewSlogObserver(slog.New(h)), Logger: slog.New(h)})
	b := e.Breaker("b", countBreaker(1, 1, 50))
	op := e.operation(operationSpec{Name: "op", Breaker: b, Retry: constRetry(2, time.Millisecond)})
	do(t, op, get(t, s).WithContext(callCtx(7)))
	do(t, op, get(t, s).WithContext(callCtx(8))) // refused
	want := map[string][]any{
		"call start":            {7, 8},
		"attempt":               {7, 7},
		"retry":                 {7},
		"retrying op":           {7},
		"breaker state change":  {7},
		"breaker rejected call": {8},
		"call end":              {7, 8},
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for msg, ids := range want {
		if got := h.ids[msg]; len(got) != len(ids) || (len(got) > 0 && (got[0] != ids[0] || got[len(got)-1] != ids[len(ids)-1])) {
			t.Errorf("%q logged with calls %v, want %v", msg, got, ids)
		}
	}
	opened := false
	for msg, ids := range h.ids {
		if strings.HasPrefix(msg, `breaker "b" opened`) {
			opened = len(ids) == 1 && ids[0] == 7
		}
	}
	if !opened {
		t.Errorf("the engine's log of the opening lacks call 7's context: %v", h.ids)
	}
}

// TestBreakerTimerUnderLoad: calls, State and Metrics from many
// goroutines while the breaker's timer keeps moving it from open to
// half-open (run with -race); every call still has one start and one end.
func TestBreakerTimerUnderLoad(t *testing.T) {
	s := scripted(t, 500)
	rec := &recorder{}
	e := newEngine(config{Observer: rec, Logger: quiet})
	p := countBreaker(2, 2, 50)
	p.WaitInOpen, p.HalfOpenCalls = 2*time.Millisecond, 1
	b := e.Breaker("b", p)
	op := e.operation(operationSpec{Name: "op", Breaker: b})
	var wg sync.WaitGroup
	const workers, each = 8, 40
	for range workers {
		wg.Go(func() {
			for range each {
				do(t, op, get(t, s))
				b.State()
				b.Metrics()
				time.Sleep(time.Millisecond)
			}
		})
	}
	wg.Wait()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.starts) != workers*each || len(rec.ends) != workers*each {
		t.Errorf("%d calls: %d starts, %d ends", workers*each, len(rec.starts), len(rec.ends))
	}
	halfOpen, opens := 0, 0
	for _, c := range rec.changes {
		switch c.To {
		case StateHalfOpen:
			halfOpen++
		case StateOpen:
			opens++
		}
	}
	if halfOpen == 0 || opens < halfOpen {
		t.Errorf("%d openings, %d half-open changes", opens, halfOpen)
	}
}
