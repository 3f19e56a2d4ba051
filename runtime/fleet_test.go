package runtime

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// replica is one engine of a test fleet: its Fleet, operation and log.
type replica struct {
	fleet *Fleet
	e     *engine
	b     *Breaker
	op    *operation
	log   *logBuffer
	rec   *recorder
}

// newReplicas makes n engines, each with its own Fleet on store, and one
// operation through breaker "b" with policy p to s.
func newReplicas(t *testing.T, n int, store FleetStore, p BreakerPolicy, opt FleetOptions) []*replica {
	t.Helper()
	rs := make([]*replica, n)
	for i := range rs {
		r := &replica{rec: &recorder{}}
		var flog *slog.Logger
		flog, r.log = newLogger(slog.LevelInfo)
		o := opt
		o.Logger = flog
		r.fleet = NewFleet(store, o)
		t.Cleanup(func() { r.fleet.Close() })
		r.e = newEngine(config{Logger: flog, Observer: r.rec, Fleet: r.fleet})
		r.b = r.e.Breaker("b", p)
		r.op = r.e.operation(operationSpec{Name: "op", Method: "GET", Path: "/x", Breaker: r.b})
		rs[i] = r
	}
	waitFor(t, "every replica shares the fleet's state", func() bool {
		for _, r := range rs {
			if !r.b.link.isActive() {
				return false
			}
		}
		return true
	})
	return rs
}

func (l *fleetLink) isActive() bool { return l.snap.Load()&1 != 0 }

// waitFor polls cond for up to 2s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func fleetPolicyForTest(size, minCalls, halfOpen int, wait time.Duration) BreakerPolicy {
	p := countBreaker(size, minCalls, 50)
	p.HalfOpenCalls, p.WaitInOpen = halfOpen, wait
	return p
}

// The fleet opens after MinimumCalls failures counted across replicas, none
// of which saw enough to open its local breaker, and then every replica
// refuses without calling.
func TestFleetOpensAcrossReplicas(t *testing.T) {
	s := newServer(t, status(500))
	rs := newReplicas(t, 5, NewMemoryFleetStore(), fleetPolicyForTest(20, 10, 2, time.Minute), FleetOptions{SyncInterval: 50 * time.Millisecond})
	for _, r := range rs {
		for range 2 { // 2 per replica, 10 in all: no local breaker would open
			if code, _, err := do(t, r.op, get(t, s)); code != 500 || err != nil {
				t.Fatalf("closed call: %d %v", code, err)
			}
		}
	}
	waitFor(t, "every replica sees the fleet open", func() bool {
		for _, r := range rs {
			if r.b.State() != StateOpen {
				return false
			}
		}
		return true
	})
	for _, r := range rs {
		_, n, err := do(t, r.op, get(t, s))
		var coe *CircuitOpenError
		if !errors.As(err, &coe) || coe.HalfOpen || n != 0 {
			t.Fatalf("open fleet: attempts %d, err %v", n, err)
		}
		if left := time.Until(coe.RetryAt); left < 50*time.Second || left > time.Minute {
			t.Errorf("RetryAt in %v, want about 1m", left)
		}
		if m := r.b.Metrics(); m.State != StateOpen || m.Calls != 10 || m.Failed != 10 {
			t.Errorf("metrics %+v, want open with 10 of 10 failed", m)
		}
		want := `WARN breaker "b" opened: failure rate 100% (10 of 10 calls) ≥ 50%; slow-call rate 0% (fleet)`
		if got := r.log.String(); strings.Count(got, want) != 1 {
			t.Errorf("log:\n%s\nwant once: %s", got, want)
		}
		if r.rec.opens() != 1 {
			t.Errorf("observed %d opens, want 1", r.rec.opens())
		}
	}
	if got := s.calls.Load(); got != 10 {
		t.Errorf("server saw %d calls, want 10", got)
	}
}

// openFleet makes the fleet of rs open with 10 failures.
func openFleet(t *testing.T, rs []*replica, s *server) {
	t.Helper()
	for i := range 10 {
		do(t, rs[i%len(rs)].op, get(t, s))
	}
	waitFor(t, "the fleet opens", func() bool {
		for _, r := range rs {
			if r.b.State() != StateOpen {
				return false
			}
		}
		return true
	})
}

// Half-open admits HalfOpenCalls trial calls in the whole fleet, however
// many replicas ask; their successes close the fleet's breaker.
func TestFleetHalfOpenTrialsFleetWide(t *testing.T) {
	for _, tc := range []struct {
		name  string
		trial int // status of the trial calls
		want  State
	}{{"close", 200, StateClosed}, {"reopen", 500, StateOpen}} {
		t.Run(tc.name, func(t *testing.T) {
			var code atomic.Int64
			code.Store(500)
			s := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(int(code.Load())) })
			wait := 150 * time.Millisecond
			rs := newReplicas(t, 5, NewMemoryFleetStore(), fleetPolicyForTest(20, 10, 3, wait), FleetOptions{SyncInterval: 50 * time.Millisecond})
			openFleet(t, rs, s)
			code.Store(int64(tc.trial))
			before := s.calls.Load()
			time.Sleep(wait)
			// Every replica calls as fast as it can until the trials decide.
			var wg sync.WaitGroup
			var trials, refused, failed atomic.Int64
			for _, r := range rs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
						_, n, err := do(t, r.op, get(t, s))
						var coe *CircuitOpenError
						switch {
						case errors.As(err, &coe):
							refused.Add(1)
							time.Sleep(time.Millisecond)
						case err != nil && n == 0:
							failed.Add(1)
						}
						if r.rec.decided(tc.want) {
							return
						}
					}
				}()
			}
			wg.Wait()
			for _, r := range rs {
				trials.Add(int64(r.rec.trialStarts()))
				if st := r.b.State(); st != tc.want {
					t.Errorf("replica state %v, want %v", st, tc.want)
				}
			}
			if trials.Load() != 3 {
				t.Errorf("%d trial calls in the fleet, want 3", trials.Load())
			}
			if failed.Load() != 0 {
				t.Errorf("%d calls failed without a response", failed.Load())
			}
			hits := s.calls.Load() - before
			if tc.want == StateOpen && hits != 3 {
				t.Errorf("server saw %d calls after the wait, want the 3 trials", hits)
			}
			if tc.want == StateClosed && hits < 3 {
				t.Errorf("server saw %d calls after the wait, want at least the 3 trials", hits)
			}
			if refused.Load() == 0 {
				t.Error("no call was refused while half-open: the trials were not capped")
			}
			// Every replica's line reports the fleet's 3 trials, as a
			// local breaker reports its own.
			line := `closed: trial calls: failure rate 0% (0 of 3 calls)`
			if tc.want == StateOpen {
				line = `opened: trial calls: failure rate 100% (3 of 3 calls) ≥ 50%`
			}
			for i, r := range rs {
				if got := r.log.String(); !strings.Contains(got, line) {
					t.Errorf("replica %d's log lacks %q:\n%s", i, line, got)
				}
			}
		})
	}
}

// faultyStore wraps a store; while down, Sync blocks until its deadline
// and fails, as a partitioned Redis would.
type faultyStore struct {
	FleetStore
	down  atomic.Bool
	stuck atomic.Bool // Sync ignores its deadline for a while
	syncs atomic.Int64
}

func (f *faultyStore) Sync(ctx context.Context, reqs []FleetSync) ([]FleetState, error) {
	f.syncs.Add(1)
	if f.stuck.Load() {
		time.Sleep(200 * time.Millisecond)
	}
	if f.down.Load() {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return f.FleetStore.Sync(ctx, reqs)
}

// An unreachable store makes every replica fall back to its local breaker
// with one warning; no call fails or waits for it; when the store answers
// again, sharing resumes with one info line.
func TestFleetFallbackAndResume(t *testing.T) {
	s := newServer(t, status(200))
	store := &faultyStore{FleetStore: NewMemoryFleetStore()}
	// A Sync blocks for its whole timeout (the interval) while the store is
	// down; a call that waited for one would take up to that long, so the
	// bound is 3/4 of it: a loaded 2-core machine under -race has been seen
	// to take ~90 ms for a local call, so the interval is not shorter.
	interval := 300 * time.Millisecond
	rs := newReplicas(t, 3, store, fleetPolicyForTest(20, 10, 2, time.Minute), FleetOptions{SyncInterval: interval, Timeout: interval})
	store.down.Store(true)
	// Calls made while the Syncs block: none waits for one.
	for deadline := time.Now().Add(3 * interval); time.Now().Before(deadline); {
		for _, r := range rs {
			start := time.Now()
			if code, _, err := do(t, r.op, get(t, s)); code != 200 || err != nil {
				t.Fatalf("call during the outage: %d %v", code, err)
			}
			if d := time.Since(start); d > 3*interval/4 {
				t.Errorf("a call took %v during the outage", d)
			}
		}
		time.Sleep(time.Millisecond)
	}
	for _, r := range rs {
		if r.b.link.isActive() {
			t.Fatal("replica still on the fleet's state after 3 intervals of failed syncs")
		}
	}
	// The local breaker decides now: 10 local failures open it alone.
	local := rs[0]
	fail := newServer(t, status(500))
	for range 10 {
		do(t, local.op, get(t, fail))
	}
	if st := local.b.State(); st != StateOpen {
		t.Errorf("local breaker %v after 10 failures in fallback, want open", st)
	}
	store.down.Store(false)
	waitFor(t, "sharing resumes", func() bool {
		for _, r := range rs {
			if !r.b.link.isActive() {
				return false
			}
		}
		return true
	})
	time.Sleep(3 * interval) // no further lines
	for _, r := range rs {
		got := r.log.String()
		// The cause is the Sync's deadline, or, when the machine is too
		// busy to run the Sync's goroutine in time, the watchdog's own.
		n := strings.Count(got, "WARN resgen fleet: store unreachable (context deadline exceeded); breakers fall back to local state") +
			strings.Count(got, "WARN resgen fleet: store unreachable (sync overran its timeout); breakers fall back to local state")
		if n != 1 {
			t.Errorf("%d fallback warnings, want 1:\n%s", n, got)
		}
		if n := strings.Count(got, "INFO resgen fleet: store reachable again; breakers share state"); n != 1 {
			t.Errorf("%d resume lines, want 1:\n%s", n, got)
		}
	}
	if st := local.b.State(); st != StateClosed {
		t.Errorf("resumed breaker %v, want the fleet's closed", st)
	}
	local.rec.mu.Lock()
	last := local.rec.changes[len(local.rec.changes)-1]
	local.rec.mu.Unlock()
	if last.From != StateOpen || last.To != StateClosed || !strings.HasSuffix(last.Reason, " (fleet)") {
		t.Errorf("resume reported %+v, want open -> closed (fleet)", last)
	}
}

// An open state reaches the other replicas through Watch, not at their
// next Sync: the announcement makes each of them Sync at once (a hint,
// confirmed by the store), however long their interval. frozen: a
// replica whose store answers its old state again does not take the
// announced state (see TestFleetAnnouncementIsOnlyAHint).
func TestFleetOpenPropagatesByWatch(t *testing.T) {
	s := newServer(t, status(500))
	shared := NewMemoryFleetStore()
	p := fleetPolicyForTest(20, 10, 2, time.Minute)
	opener := newReplicas(t, 1, shared, p, FleetOptions{SyncInterval: 20 * time.Millisecond})[0]
	// The others would not Sync again for 5 s but for the announcement
	// (which makes them Sync within a tenth of that: waitFor's 2 s).
	rs := newReplicas(t, 4, shared, p, FleetOptions{SyncInterval: 5 * time.Second})
	for range 10 {
		do(t, opener.op, get(t, s))
	}
	waitFor(t, "the opener sees the fleet open", func() bool { return opener.b.State() == StateOpen })
	opened := time.Now()
	waitFor(t, "the watchers see it", func() bool {
		for _, r := range rs {
			if r.b.State() != StateOpen {
				return false
			}
		}
		return true
	})
	t.Logf("propagated in %v", time.Since(opened))
}

// heldOpenSync is heldOpenFleet's sync interval.
const heldOpenSync = 30 * time.Millisecond

// heldOpenFleet opens a 2-replica fleet on a failing server, then makes
// its store unreachable and waits until both replicas fell back: the
// fleet's open (a minute) holds.
func heldOpenFleet(t *testing.T) (*server, *faultyStore, []*replica) {
	t.Helper()
	s := newServer(t, status(500))
	store := &faultyStore{FleetStore: NewMemoryFleetStore()}
	rs := newReplicas(t, 2, store, fleetPolicyForTest(20, 10, 2, time.Minute), FleetOptions{SyncInterval: heldOpenSync})
	openFleet(t, rs, s)
	store.down.Store(true)
	waitFor(t, "fallback", func() bool { return !rs[0].b.link.isActive() && !rs[1].b.link.isActive() })
	return s, store, rs
}

// A fleet's open keeps refusing when the store becomes unreachable during
// the wait: a store outage during a downstream outage must not let every
// replica's traffic through.
func TestFleetOpenHoldsInFallback(t *testing.T) {
	s, _, rs := heldOpenFleet(t)
	hits := s.calls.Load()
	for _, r := range rs {
		_, n, err := do(t, r.op, get(t, s))
		var coe *CircuitOpenError
		if !errors.As(err, &coe) || coe.HalfOpen || n != 0 {
			t.Errorf("fallback during the fleet's open: attempts %d, err %v", n, err)
		}
	}
	if s.calls.Load() != hits {
		t.Error("a call reached the dead server while the fleet's open held")
	}
}

// The store's answer supersedes whatever the link had, an older
// generation included (a store whose keys were lost or forged starts
// anew); an equal generation refreshes; permits are bounded by the
// policy.
func TestFleetGenerationRule(t *testing.T) {
	f := NewFleet(NewMemoryFleetStore(), FleetOptions{Logger: quiet})
	defer f.Close()
	e := newEngine(config{Logger: quiet, Fleet: f})
	b := e.Breaker("b", fleetPolicyForTest(20, 10, 2, time.Minute))
	l := b.link
	f.Close() // the link is driven by hand below
	l.apply(FleetState{Key: l.key, Gen: 100, State: StateOpen, OpenFor: time.Minute, Calls: 10, Failed: 10})
	l.apply(FleetState{Key: l.key, Gen: 100, State: StateOpen, OpenFor: time.Minute, Granted: 0, Calls: 12, Failed: 12})
	if m := b.Metrics(); m.Calls != 12 {
		t.Errorf("equal generation did not refresh: %+v", m)
	}
	if !l.apply(FleetState{Key: l.key, Gen: 99, State: StateClosed}) {
		t.Error("the store's answer of an older generation was not applied")
	}
	if st := b.State(); st != StateClosed {
		t.Errorf("state %v after the store answered closed, want closed", st)
	}
	l.apply(FleetState{Key: l.key, Gen: 101, State: StateHalfOpen, Granted: 2})
	if l.permits.Load() != 2 {
		t.Errorf("%d permits, want 2", l.permits.Load())
	}
	l.apply(FleetState{Key: l.key, Gen: 101, State: StateHalfOpen, Granted: 2})
	if l.permits.Load() != 2 {
		t.Errorf("%d permits held, more than halfOpenCalls 2", l.permits.Load())
	}
	l.apply(FleetState{Key: l.key, Gen: 102, State: StateClosed, Cause: FleetCauseTrials, Calls: 2})
	if l.permits.Load() != 0 {
		t.Errorf("%d permits left from an earlier generation", l.permits.Load())
	}
	// A corrupt OpenFor holds the breaker no longer than its own wait.
	now := e.now()
	l.apply(FleetState{Key: l.key, Gen: 103, State: StateOpen, OpenFor: math.MaxInt64, Calls: 10, Failed: 10})
	if held := time.Duration(l.heldUntil.Load()) - now; held <= 0 || held > time.Minute+time.Second {
		t.Errorf("held open for %v after OpenFor = MaxInt64, want about the policy's 1m", held)
	}
}

// Close stops the goroutines and the breakers run on their local state.
func TestFleetClose(t *testing.T) {
	s := newServer(t, status(500))
	rs := newReplicas(t, 1, NewMemoryFleetStore(), fleetPolicyForTest(4, 4, 1, time.Minute), FleetOptions{SyncInterval: 20 * time.Millisecond})
	r := rs[0]
	if err := r.fleet.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.fleet.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	goleak.VerifyNone(t, goleak.IgnoreCurrent())
	if r.b.link.isActive() {
		t.Fatal("link active after Close")
	}
	for range 4 {
		do(t, r.op, get(t, s))
	}
	if st := r.b.State(); st != StateOpen {
		t.Errorf("local breaker after Close: %v, want open after 4 failures", st)
	}
}

// The key fingerprints the normalised policy: equal after normalisation,
// different when the judgment differs.
func TestFleetKey(t *testing.T) {
	a := countBreaker(10, 50, 50) // minimum calls capped at the window: 10
	b := countBreaker(10, 10, 50)
	b.WaitInOpen = 0
	a.WaitInOpen = 60 * time.Second
	if ka, kb := fleetKey("x", fleetPolicy(a)), fleetKey("x", fleetPolicy(b)); ka != kb || len(ka) != len("x#")+16 {
		t.Errorf("keys %q %q, want equal, name#16 hex", ka, kb)
	}
	c := b
	c.FailureRateThreshold = 60
	if fleetKey("x", fleetPolicy(b)) == fleetKey("x", fleetPolicy(c)) {
		t.Error("a different threshold gave the same key")
	}
	tw := DefaultBreakerPolicy()
	tw.WindowType, tw.WindowDuration = TimeWindow, 1500*time.Millisecond
	if fp := fleetPolicy(tw); fp.TimeWindow != 2*time.Second || fp.CountWindow != 0 {
		t.Errorf("time window normalised to %+v", fp)
	}
}

// trialStarts counts the half-open trial calls started.
func (r *recorder) trialStarts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.starts {
		if e.HalfOpenTrial {
			n++
		}
	}
	return n
}

// decided reports whether a half-open state ended in to.
func (r *recorder) decided(to State) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.changes {
		if c.From == StateHalfOpen && c.To == to {
			return true
		}
	}
	return false
}

// A Sync that overruns its deadline makes the replica fall back when its
// Timeout ends, while the Sync still runs; its late answer is not a
// resume.
func TestFleetStuckSyncFallsBack(t *testing.T) {
	store := &faultyStore{FleetStore: NewMemoryFleetStore()}
	r := newReplicas(t, 1, store, fleetPolicyForTest(20, 10, 2, time.Minute), FleetOptions{SyncInterval: 20 * time.Millisecond})[0]
	store.stuck.Store(true)
	waitFor(t, "fallback", func() bool { return !r.b.link.isActive() })
	store.stuck.Store(false)
	waitFor(t, "resume", func() bool { return r.b.link.isActive() })
	if got := r.log.String(); strings.Count(got, "store unreachable (sync overran its timeout)") != 1 ||
		strings.Count(got, "store reachable again") != 1 {
		t.Errorf("log:\n%s", got)
	}
}

// A trial call whose caller gave up is no outcome: its permit is given
// back; a refused half-open call asks for permits.
func TestFleetTrialGivenBack(t *testing.T) {
	s := newServer(t, status(200))
	f := NewFleet(NewMemoryFleetStore(), FleetOptions{Logger: quiet})
	e := newEngine(config{Logger: quiet, Fleet: f})
	b := e.Breaker("b", fleetPolicyForTest(20, 10, 2, time.Minute))
	op := e.operation(operationSpec{Name: "op", Breaker: b})
	f.Close() // the link is driven by hand below
	l := b.link
	l.apply(FleetState{Key: l.key, Gen: 1 << 40, State: StateHalfOpen, Granted: 1})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := get(t, s).WithContext(ctx)
	if _, n, err := op.Do(ctx, req); err == nil || n > 1 {
		t.Fatalf("cancelled trial: attempts %d, err %v", n, err)
	}
	if r := l.take(); r.Returned != 1 || r.Trials.Calls() != 0 {
		t.Errorf("request %+v, want the permit returned and no trial outcome", r)
	}
	_, n, err := do(t, op, get(t, s))
	var coe *CircuitOpenError
	if !errors.As(err, &coe) || !coe.HalfOpen || n != 0 {
		t.Fatalf("no permit left: attempts %d, err %v", n, err)
	}
	if r := l.take(); r.Want != 1 {
		t.Errorf("want %d permits after a refusal, want 1", r.Want)
	}
	l.apply(FleetState{Key: l.key, Gen: 1 << 40, State: StateHalfOpen, Granted: 1})
	if code, n, err := do(t, op, get(t, s)); code != 200 || n != 1 || err != nil {
		t.Fatalf("trial: %d %d %v", code, n, err)
	}
	if r := l.take(); r.Trials.OK != 1 {
		t.Errorf("request %+v, want one OK trial", r)
	}
}
