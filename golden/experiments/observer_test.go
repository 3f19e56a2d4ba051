package experiments

// The observer's contract with its callers, through the generated client
// on loopback: every event of a call carries the caller's context, every
// call (refused ones included) has exactly one CallStart and one CallEnd,
// an idle open breaker reports half-open on time, and Metrics keeps the
// numbers that opened it.

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
)

type callKey struct{}

// event is one observed event: its kind and the call id its context holds.
type event struct {
	kind string
	id   any
}

// ctxObserver keeps, for every event, the call id of its context.
type ctxObserver struct {
	mu      sync.Mutex
	events  []event
	ends    map[any]runtime.CallEndEvent
	changes chan runtime.StateChangeEvent
}

func (o *ctxObserver) add(kind string, ctx context.Context) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var id any = "nil context"
	if ctx != nil {
		id = ctx.Value(callKey{})
	}
	o.events = append(o.events, event{kind, id})
}

func (o *ctxObserver) CallStart(e runtime.CallStartEvent) context.Context {
	o.add("start", e.Context)
	return e.Context
}

func (o *ctxObserver) CallEnd(e runtime.CallEndEvent) {
	o.add("end", e.Context)
	o.mu.Lock()
	o.ends[e.Context.Value(callKey{})] = e
	o.mu.Unlock()
}

func (o *ctxObserver) Attempt(e runtime.AttemptEvent)    { o.add("attempt", e.Context) }
func (o *ctxObserver) RetryWait(e runtime.RetryEvent)    { o.add("wait", e.Context) }
func (o *ctxObserver) Rejected(e runtime.RejectionEvent) { o.add("rejected", e.Context) }
func (o *ctxObserver) BreakerStateChange(e runtime.StateChangeEvent) {
	o.add("state", e.Context)
	o.changes <- e
}

// lineLog is a concurrency-safe slog sink of "LEVEL message" lines.
type lineLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lineLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *lineLog) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	l.b.WriteString(r.Level.String() + " " + r.Message + "\n")
	l.mu.Unlock()
	return nil
}
func (l *lineLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *lineLog) WithGroup(string) slog.Handler      { return l }
func (l *lineLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestObserverContractOnLoopback(t *testing.T) {
	s := newServer(t, failing)
	obs := &ctxObserver{ends: map[any]runtime.CallEndEvent{}, changes: make(chan runtime.StateChangeEvent, 8)}
	logs := &lineLog{}
	c := newClient(t, s, WithObserver(obs), WithLogger(slog.New(logs)))
	b := c.Breakers()["sustained"]

	// 20 calls of 3 attempts open the breaker (window 50, decides after
	// 20, 40% failures); the 5 after it are refused.
	const calls = 25
	for id := 1; id <= calls; id++ {
		_, err := c.SustainedFailure(context.WithValue(context.Background(), callKey{}, id))
		if refused := errors.Is(err, runtime.ErrCircuitOpen); refused != (id > 20) {
			t.Fatalf("call %d: %v", id, err)
		}
	}
	opened := <-obs.changes
	if opened.To != runtime.StateOpen || opened.Context.Value(callKey{}) != 20 {
		t.Fatalf("first change -> %v caused by call %v, want -> open by call 20", opened.To, opened.Context.Value(callKey{}))
	}
	openedAt := time.Now()

	// Metrics while open: the window that opened it, not 0 of 0.
	want := runtime.BreakerMetrics{State: runtime.StateOpen, Calls: 20, Failed: 20, FailureRate: 100}
	if m := b.Metrics(); m != want {
		t.Errorf("Metrics while open: %+v, want %+v", m, want)
	}

	obs.mu.Lock()
	perCall := map[any]map[string]int{}
	for _, ev := range obs.events {
		if perCall[ev.id] == nil {
			perCall[ev.id] = map[string]int{}
		}
		perCall[ev.id][ev.kind]++
	}
	for id := 1; id <= calls; id++ {
		wantKinds := map[string]int{"start": 1, "attempt": 3, "wait": 2, "end": 1}
		if id == 20 {
			wantKinds["state"] = 1
		}
		if id > 20 {
			wantKinds = map[string]int{"start": 1, "rejected": 1, "end": 1}
		}
		if got := perCall[id]; !sameCounts(got, wantKinds) {
			t.Errorf("call %d: events %v, want %v", id, got, wantKinds)
		}
		end := obs.ends[id]
		if id > 20 && (end.Attempts != 0 || !errors.Is(end.Err, runtime.ErrCircuitOpen) || !strings.HasPrefix(end.Stop, "rejected")) {
			t.Errorf("refused call %d: CallEnd attempts=%d err=%v stop=%q", id, end.Attempts, end.Err, end.Stop)
		}
		delete(perCall, id)
	}
	if len(perCall) != 0 {
		t.Errorf("events without a call's context: %v", perCall)
	}
	obs.mu.Unlock()

	// Idle: no call, nobody reads the state; the breaker reports half-open
	// when its 50ms in open end.
	hits := s.hits.Load()
	select {
	case ev := <-obs.changes:
		if took := time.Since(openedAt); took > 2*time.Second {
			t.Errorf("half-open reported after %v, waitInOpen is 50ms", took)
		}
		if ev.From != runtime.StateOpen || ev.To != runtime.StateHalfOpen || ev.Context != context.Background() {
			t.Errorf("change %v -> %v (ctx %v), want open -> half-open with context.Background()", ev.From, ev.To, ev.Context)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("an idle open breaker never reported half-open")
	}
	if st := b.State(); st != runtime.StateHalfOpen {
		t.Errorf("State() %v after the half-open event", st)
	}
	if !strings.Contains(logs.String(), `INFO breaker "sustained" half-open`) {
		t.Errorf("log lacks the half-open line:\n%s", logs)
	}
	if s.hits.Load() != hits {
		t.Errorf("the half-open report sent %d requests", s.hits.Load()-hits)
	}
}

func sameCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
