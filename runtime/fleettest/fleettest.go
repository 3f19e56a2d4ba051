// Package fleettest is the conformance suite of runtime.FleetStore: every
// store (the memory store, the Redis store, one of your own) must pass Run.
//
// The suite drives Sync and Watch directly, with real time (a store's clock
// cannot be set): waits in open are 50–200 ms and one check waits for whole
// seconds of a time window, so Run takes about 4 s, its checks running in
// parallel. Each check computes what the store must answer from the rules
// of the state machine (docs/fleet.md), never by asking the store.
package fleettest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
)

// Run checks a FleetStore against the state machine. newStore returns a
// store under prefix: called twice with one prefix it must return stores
// that share their breakers, as two replicas connected to one Redis do,
// and stores under different prefixes must share nothing. Each check uses
// prefixes of its own (at most 80 bytes of letters, digits, '-' and '_');
// closing a store is newStore's to register with t.Cleanup.
func Run(t *testing.T, newStore func(t *testing.T, prefix string) runtime.FleetStore) {
	checks := []struct {
		name string
		run  func(*testing.T, *fleet)
	}{
		{"InitialGeneration", initialGeneration},
		{"CountWindowEvictsOldestFirst", countWindowEvictsOldestFirst},
		{"MinimumCalls", minimumCalls},
		{"FailureRate", failureRate},
		{"SlowCallRate", slowCallRate},
		{"ThresholdsOff", thresholdsOff},
		{"TimeWindowBuckets", timeWindowBuckets},
		{"StaleGenerationDropped", staleGenerationDropped},
		{"OutcomesOfAnotherStateDropped", outcomesOfAnotherStateDropped},
		{"OpenUntilWaitInOpen", openUntilWaitInOpen},
		{"PermitsCappedFleetWide", permitsCappedFleetWide},
		{"ReturnedFreesPermits", returnedFreesPermits},
		{"PermitLeaseReoffers", permitLeaseReoffers},
		{"TrialsDecide", trialsDecide},
		{"CappedTrialsCountFailuresFirst", cappedTrialsCountFailuresFirst},
		{"WatchSeesEachChangeOnce", watchSeesEachChangeOnce},
		{"RequestsApplyInOrder", requestsApplyInOrder},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, &fleet{t: t, newStore: newStore})
		})
	}
}

// fleet makes one check's stores: prefix(i) is the i-th prefix of the
// check, replica(i) a new store under it.
type fleet struct {
	t        *testing.T
	newStore func(*testing.T, string) runtime.FleetStore
	mu       sync.Mutex
	prefixes []string
}

func (f *fleet) prefix(i int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.prefixes) <= i {
		name := f.t.Name()
		if j := strings.LastIndexByte(name, '/'); j >= 0 {
			name = name[j+1:]
		}
		f.prefixes = append(f.prefixes, fmt.Sprintf("fleettest-%.40s-%d-%016x", name, len(f.prefixes), rand.Uint64()))
	}
	return f.prefixes[i]
}

func (f *fleet) replica(i int) runtime.FleetStore { return f.newStore(f.t, f.prefix(i)) }

// policy is the checks' usual policy: a window of 10 calls opening at 50%
// failures after 4 calls, a wait of 60 ms, 3 trial calls.
func policy() runtime.FleetPolicy {
	return runtime.FleetPolicy{CountWindow: 10, MinimumCalls: 4, FailureRateThreshold: 50,
		WaitInOpen: 60 * time.Millisecond, HalfOpenCalls: 3, PermitLease: time.Minute}
}

// breaker is one Key seen through one store.
type breaker struct {
	t   *testing.T
	s   runtime.FleetStore
	key string
	p   runtime.FleetPolicy
}

func newBreaker(t *testing.T, s runtime.FleetStore, key string, p runtime.FleetPolicy) *breaker {
	return &breaker{t: t, s: s, key: key, p: p}
}

// on is the same breaker through another store (replica).
func (b *breaker) on(s runtime.FleetStore) *breaker { c := *b; c.s = s; return &c }

func (b *breaker) req(gen uint64) runtime.FleetSync {
	return runtime.FleetSync{Key: b.key, Breaker: b.key, Policy: b.p, Gen: gen}
}

func syncAll(t *testing.T, s runtime.FleetStore, reqs ...runtime.FleetSync) []runtime.FleetState {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := s.Sync(ctx, reqs)
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if len(out) != len(reqs) {
		t.Fatalf("Sync answered %d states to %d requests", len(out), len(reqs))
	}
	for i := range out {
		if out[i].Key != reqs[i].Key {
			t.Fatalf("Sync answer %d is for key %q, want %q", i, out[i].Key, reqs[i].Key)
		}
	}
	return out
}

func (b *breaker) sync(r runtime.FleetSync) runtime.FleetState {
	b.t.Helper()
	return syncAll(b.t, b.s, r)[0]
}

// want is what a FleetState must hold; OpenFor is checked from the state.
type want struct {
	gen                 uint64
	state               runtime.State
	calls, failed, slow int64
	cause               runtime.FleetCause
	granted             int
	// trials are the deciding trials' calls, failed and slow when cause
	// is Trials; unset for an open breaker, they are calls, failed, slow.
	trials [3]int64
	// justOpened: the answer is at the store time of the change, so OpenFor
	// is the whole WaitInOpen.
	justOpened bool
}

func (b *breaker) check(what string, got runtime.FleetState, w want) {
	b.t.Helper()
	wantState := runtime.FleetState{Key: b.key, Gen: w.gen, State: w.state, Granted: w.granted,
		Calls: w.calls, Failed: w.failed, Slow: w.slow, Cause: w.cause, OpenFor: got.OpenFor}
	if w.cause == runtime.FleetCauseTrials {
		if w.state == runtime.StateOpen && w.trials == [3]int64{} {
			w.trials = [3]int64{w.calls, w.failed, w.slow}
		}
		wantState.TrialCalls, wantState.TrialFailed, wantState.TrialSlow = w.trials[0], w.trials[1], w.trials[2]
	}
	wait := b.p.WaitInOpen.Truncate(time.Millisecond)
	switch {
	case w.state != runtime.StateOpen:
		wantState.OpenFor = 0
	case w.justOpened:
		wantState.OpenFor = wait
	case got.OpenFor <= 0 || got.OpenFor > wait:
		b.t.Errorf("%s: OpenFor %v, want in (0, %v]", what, got.OpenFor, wait)
	}
	if got != wantState {
		b.t.Errorf("%s:\n got %+v\nwant %+v", what, got, wantState)
	}
}

// first syncs the breaker with no outcomes and checks it is new.
func (b *breaker) first() uint64 {
	b.t.Helper()
	st := b.sync(b.req(0))
	if st.State != runtime.StateClosed || st.Cause != runtime.FleetCauseNone || st.Calls != 0 {
		b.t.Fatalf("a new breaker: %+v, want closed with no calls and cause None", st)
	}
	return st.Gen
}

// trip opens the closed breaker at gen with MinimumCalls failed slow calls
// (both rates 100%), and returns the open generation and when the Sync
// returned.
func (b *breaker) trip(gen uint64) (uint64, time.Time) {
	b.t.Helper()
	r := b.req(gen)
	n := int64(b.p.MinimumCalls)
	r.Closed.FailedSlow = n
	st := b.sync(r)
	at := time.Now()
	b.check("trip", st, want{gen: gen + 1, state: runtime.StateOpen, calls: n, failed: n, slow: n, cause: runtime.FleetCauseWindow, justOpened: true})
	if b.t.Failed() {
		b.t.FailNow()
	}
	return gen + 1, at
}

// halfOpen waits out the open state that began before at and syncs with
// want permits: the breaker must be half-open at open+1.
func (b *breaker) halfOpen(open uint64, at time.Time, wantPermits int) runtime.FleetState {
	b.t.Helper()
	time.Sleep(time.Until(at.Add(b.p.WaitInOpen + 5*time.Millisecond)))
	r := b.req(open)
	r.Want = wantPermits
	st := b.sync(r)
	b.check("after the wait", st, want{gen: open + 1, state: runtime.StateHalfOpen, cause: runtime.FleetCauseWait,
		granted: min(wantPermits, b.p.HalfOpenCalls)})
	if b.t.Failed() {
		b.t.FailNow()
	}
	return st
}

func initialGeneration(t *testing.T, f *fleet) {
	s1, s2 := f.replica(0), f.replica(0)
	p := policy()
	before := uint64(time.Now().UnixMilli())
	r := runtime.FleetSync{Key: "a", Breaker: "a", Policy: p, Want: 3}
	r.Closed.Failed = 10 // of a generation the store never gave: dropped
	st := syncAll(t, s1, r)[0]
	after := uint64(time.Now().UnixMilli())
	if st.Gen%1024 != 0 || st.Gen/1024 < before || st.Gen/1024 > after {
		t.Errorf("a new breaker's generation is %d (%d ms × 1024 + %d), want the store's clock in ms × 1024, in [%d, %d] ms", st.Gen, st.Gen/1024, st.Gen%1024, before, after)
	}
	b := newBreaker(t, s1, "a", p)
	b.check("a new breaker", st, want{gen: st.Gen, state: runtime.StateClosed, cause: runtime.FleetCauseNone})
	b.on(s2).check("the new breaker from a second replica", b.on(s2).sync(b.req(0)), want{gen: st.Gen, state: runtime.StateClosed})
	// Another key is another breaker, with a generation of its own.
	before = uint64(time.Now().UnixMilli())
	other := newBreaker(t, s2, "b", p).sync(runtime.FleetSync{Key: "b", Policy: p})
	after = uint64(time.Now().UnixMilli())
	if other.Gen%1024 != 0 || other.Gen/1024 < before || other.Gen/1024 > after {
		t.Errorf("a second breaker's generation is %d, want in [%d, %d] ms × 1024", other.Gen, before, after)
	}
}

// countModel is the rule's count window: calls appended in the order OK,
// Slow, Failed, FailedSlow, the oldest evicted beyond n.
type countModel struct {
	n     int
	calls []int // 0 OK, 1 slow, 2 failed, 3 failed slow
}

func (m *countModel) add(c runtime.FleetCounts) {
	for kind, k := range []int64{c.OK, c.Slow, c.Failed, c.FailedSlow} {
		for range k {
			m.calls = append(m.calls, kind)
		}
	}
	if len(m.calls) > m.n {
		m.calls = m.calls[len(m.calls)-m.n:]
	}
}

func (m *countModel) totals() (calls, failed, slow int64) {
	for _, k := range m.calls {
		calls++
		if k >= 2 {
			failed++
		}
		if k == 1 || k == 3 {
			slow++
		}
	}
	return
}

// overModel is the rules' threshold: pct > 0 and n/of ≥ pct%.
func overModel(n, of int64, pct float64) bool { return pct > 0 && float64(n)*100 >= pct*float64(of) }

// closedSequence sends batches to a new breaker and checks every answer
// against the count model; the breaker must open exactly at batch opensAt
// (-1: never).
func closedSequence(t *testing.T, s runtime.FleetStore, p runtime.FleetPolicy, opensAt int, batches ...runtime.FleetCounts) {
	t.Helper()
	b := newBreaker(t, s, fmt.Sprintf("seq-%d", rand.Uint32()), p)
	gen := b.first()
	m := countModel{n: p.CountWindow}
	for i, c := range batches {
		r := b.req(gen)
		r.Closed = c
		st := b.sync(r)
		m.add(c)
		calls, failed, slow := m.totals()
		open := calls >= int64(p.MinimumCalls) && (overModel(failed, calls, p.FailureRateThreshold) || overModel(slow, calls, p.SlowCallRateThreshold))
		if open != (i == opensAt) {
			t.Fatalf("the model opens at batch %d: %v; the check expects batch %d (a mistake in the check)", i, open, opensAt)
		}
		what := fmt.Sprintf("batch %d %+v, window %v", i, c, m.calls)
		if open {
			b.check(what, st, want{gen: gen + 1, state: runtime.StateOpen, calls: calls, failed: failed, slow: slow, cause: runtime.FleetCauseWindow, justOpened: true})
			return
		}
		b.check(what, st, want{gen: gen, state: runtime.StateClosed, calls: calls, failed: failed, slow: slow})
	}
}

func countWindowEvictsOldestFirst(t *testing.T, f *fleet) {
	p := policy()
	p.CountWindow, p.MinimumCalls, p.FailureRateThreshold = 5, 1, 0
	closedSequence(t, f.replica(0), p, -1,
		runtime.FleetCounts{OK: 1, Slow: 1, Failed: 1, FailedSlow: 1}, // OK S F FS
		runtime.FleetCounts{OK: 2},                                    // S F FS OK OK
		runtime.FleetCounts{Failed: 1},                                // F FS OK OK F
		runtime.FleetCounts{FailedSlow: 1, Slow: 1},                   // OK OK F S FS
		runtime.FleetCounts{OK: 3, Failed: 4},                         // longer than the window: OK F F F F
		runtime.FleetCounts{Slow: 2, FailedSlow: 2},                   // F F S FS FS
		runtime.FleetCounts{OK: 1, Failed: 1, Slow: 1},                // FS FS OK S F
	)
}

func minimumCalls(t *testing.T, f *fleet) {
	p := policy()
	p.CountWindow, p.MinimumCalls = 10, 5
	s := f.replica(0)
	// 4 failures of 4 are 100% but below the minimum; the 5th opens.
	closedSequence(t, s, p, 1, runtime.FleetCounts{Failed: 4}, runtime.FleetCounts{Failed: 1})
	// A time window counts its minimum over the window too.
	p.CountWindow, p.TimeWindow, p.MinimumCalls = 0, 2*time.Second, 3
	b := newBreaker(t, s, "time", p)
	gen := b.first()
	r := b.req(gen)
	r.Closed.Failed = 2
	b.check("2 failures, minimum 3", b.sync(r), want{gen: gen, state: runtime.StateClosed, calls: 2, failed: 2})
	r.Closed.Failed = 1
	b.check("a 3rd failure", b.sync(r), want{gen: gen + 1, state: runtime.StateOpen, calls: 3, failed: 3, cause: runtime.FleetCauseWindow, justOpened: true})
}

func failureRate(t *testing.T, f *fleet) {
	p := policy() // 10 calls, minimum 4, 50%
	s := f.replica(0)
	closedSequence(t, s, p, 4,
		runtime.FleetCounts{OK: 3, Failed: 1}, // 25%
		runtime.FleetCounts{Slow: 1},          // 20%: slow calls are not failures
		runtime.FleetCounts{Failed: 1},        // 33%
		runtime.FleetCounts{FailedSlow: 1},    // 3 of 7: 42.9%
		runtime.FleetCounts{Failed: 1},        // 4 of 8: 50% ≥ 50%
	)
	p.FailureRateThreshold = 100
	closedSequence(t, s, p, 2,
		runtime.FleetCounts{OK: 1, Failed: 3}, // 75%
		runtime.FleetCounts{Failed: 6},        // 9 of 10
		runtime.FleetCounts{Failed: 1},        // 10 of 10: the OK is evicted
	)
}

func slowCallRate(t *testing.T, f *fleet) {
	p := policy()
	p.CountWindow, p.MinimumCalls, p.FailureRateThreshold, p.SlowCallRateThreshold = 4, 4, 0, 50
	s := f.replica(0)
	closedSequence(t, s, p, 2,
		runtime.FleetCounts{OK: 1, Slow: 1}, // below the minimum
		runtime.FleetCounts{Failed: 2},      // slow 1 of 4; the failure rate is off
		runtime.FleetCounts{FailedSlow: 1},  // S F F FS: slow 2 of 4
	)
	// Both rates on: the slow one opens it.
	p.CountWindow, p.FailureRateThreshold = 10, 50
	closedSequence(t, s, p, 2,
		runtime.FleetCounts{OK: 2, Slow: 1, Failed: 1}, // 25%, 25%
		runtime.FleetCounts{Slow: 1},                   // slow 40%
		runtime.FleetCounts{Slow: 1},                   // slow 3 of 6
	)
}

func thresholdsOff(t *testing.T, f *fleet) {
	p := policy()
	p.CountWindow, p.MinimumCalls, p.FailureRateThreshold, p.SlowCallRateThreshold = 20, 1, 0, -1
	closedSequence(t, f.replica(0), p, -1,
		runtime.FleetCounts{Failed: 5, Slow: 5, FailedSlow: 5},
		runtime.FleetCounts{FailedSlow: 10},
	)
}
