package fleettest

import (
	"fmt"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
)

func timeWindowBuckets(t *testing.T, f *fleet) {
	s := f.replica(0)
	p := policy()
	p.CountWindow, p.TimeWindow, p.MinimumCalls, p.FailureRateThreshold = 0, 1500*time.Millisecond, 3, 60
	two := newBreaker(t, s, "two", p) // 1.5 s: ceil, 2 buckets
	p.TimeWindow = time.Second
	one := newBreaker(t, s, "one", p)
	g2, g1 := two.first(), one.first()
	// The store buckets by its clock's second; the check acts 200 ms into
	// a wall-clock second and must be done 200 ms before its end.
	sec := time.Now().Unix() + 1
	at := func(k int64) { time.Sleep(time.Until(time.UnixMilli((sec+k)*1000 + 200))) }
	done := func(k int64) {
		if end := time.UnixMilli((sec+k)*1000 + 800); time.Now().After(end) {
			t.Fatalf("second %d: the Syncs ended %v after %v: too slow to tell the store's seconds apart", k, time.Since(end), end)
		}
	}
	at(0)
	r2, r1 := two.req(g2), one.req(g1)
	r2.Closed.Failed, r1.Closed.Failed = 2, 2
	two.check("second 0: 2 failures (minimum 3)", two.sync(r2), want{gen: g2, calls: 2, failed: 2})
	one.check("second 0: 2 failures (minimum 3)", one.sync(r1), want{gen: g1, calls: 2, failed: 2})
	done(0)
	at(1)
	r2.Closed = runtime.FleetCounts{OK: 2}
	two.check("second 1: 2 OK, second 0 still in the 2 buckets (2 of 4 failed < 60%)", two.sync(r2), want{gen: g2, calls: 4, failed: 2})
	r1.Closed = runtime.FleetCounts{Failed: 1}
	one.check("second 1: a failure, second 0 out of the 1 bucket", one.sync(r1), want{gen: g1, calls: 1, failed: 1})
	done(1)
	at(2)
	two.check("second 2, no calls: second 0 out", two.sync(two.req(g2)), want{gen: g2, calls: 2})
	one.check("second 2, no calls: second 1 out", one.sync(one.req(0)), want{gen: g1})
	r2.Closed = runtime.FleetCounts{Failed: 2}
	two.check("second 2: 2 failures (2 of 4)", two.sync(r2), want{gen: g2, calls: 4, failed: 2})
	r2.Closed = runtime.FleetCounts{Failed: 1}
	two.check("second 2: a 3rd failure (3 of 5 ≥ 60%)", two.sync(r2),
		want{gen: g2 + 1, state: runtime.StateOpen, calls: 5, failed: 3, cause: runtime.FleetCauseWindow, justOpened: true})
	done(2)
}

func staleGenerationDropped(t *testing.T, f *fleet) {
	b := newBreaker(t, f.replica(0), "closed", policy())
	gen := b.first()
	for _, g := range []uint64{gen - 1, gen + 1, 0} {
		r := b.req(g)
		r.Closed.Failed = 10
		b.check(fmt.Sprintf("10 failures of generation %d, the store's being %d", g, gen), b.sync(r), want{gen: gen})
	}
	r := b.req(gen)
	r.Closed = runtime.FleetCounts{OK: 1, Failed: 1}
	b.check("outcomes of the store's generation", b.sync(r), want{gen: gen, calls: 2, failed: 1})

	h := newBreaker(t, b.s, "half-open", policy())
	open, at := h.trip(h.first())
	h.halfOpen(open, at, 3)
	r = h.req(open)
	r.Trials.Failed, r.Returned = 3, 3
	h.check("trials and returns of the open generation", h.sync(r), want{gen: open + 1, state: runtime.StateHalfOpen, cause: runtime.FleetCauseWait})
	r = h.req(open + 1)
	r.Want = 1
	h.check("then asking for a permit (the stale returns freed none)", h.sync(r), want{gen: open + 1, state: runtime.StateHalfOpen, cause: runtime.FleetCauseWait})
}

func outcomesOfAnotherStateDropped(t *testing.T, f *fleet) {
	p := policy()
	p.WaitInOpen = 200 * time.Millisecond // the Syncs while open must end within it
	b := newBreaker(t, f.replica(0), "k", p)
	gen := b.first()
	r := b.req(gen)
	r.Trials.Failed, r.Returned, r.Want = 10, 2, 2
	b.check("trials, returns and a permit request while closed", b.sync(r), want{gen: gen})
	open, at := b.trip(gen)
	n := int64(b.p.MinimumCalls)
	r = b.req(open)
	r.Closed.OK, r.Trials.OK, r.Returned, r.Want = 50, 3, 1, 2
	b.check("closed outcomes, trials and a permit request while open", b.sync(r),
		want{gen: open, state: runtime.StateOpen, calls: n, failed: n, slow: n, cause: runtime.FleetCauseWindow})
	stillOpen(t, at, p)
	h := b.halfOpen(open, at, 0).Gen
	r = b.req(h)
	r.Closed.Failed = 10
	b.check("closed outcomes while half-open", b.sync(r), want{gen: h, state: runtime.StateHalfOpen, cause: runtime.FleetCauseWait})
}

// stillOpen fails the check when the Syncs meant to find the breaker open
// ended too late for that (a slow machine, not a wrong store).
func stillOpen(t *testing.T, at time.Time, p runtime.FleetPolicy) {
	t.Helper()
	if d := time.Since(at); d > p.WaitInOpen-20*time.Millisecond {
		t.Fatalf("the Syncs while open ended %v after the trip: too slow for a wait of %v", d, p.WaitInOpen)
	}
}

func openUntilWaitInOpen(t *testing.T, f *fleet) {
	p := policy()
	p.WaitInOpen = 80 * time.Millisecond
	b := newBreaker(t, f.replica(0), "k", p)
	gen := b.first()
	start := time.Now()
	open, at := b.trip(gen)
	st := b.sync(b.req(open))
	if elapsed := time.Since(start); elapsed < p.WaitInOpen-10*time.Millisecond {
		n := int64(p.MinimumCalls)
		b.check("just after the trip", st, want{gen: open, state: runtime.StateOpen, calls: n, failed: n, slow: n, cause: runtime.FleetCauseWindow})
		if least := p.WaitInOpen - elapsed - time.Millisecond; st.OpenFor < least {
			t.Errorf("%v after the trip began, OpenFor is %v, want ≥ %v", elapsed, st.OpenFor, least)
		}
	} else {
		t.Logf("the Syncs took %v: not checking the open state before its wait ends", elapsed)
	}
	b.halfOpen(open, at, 0)
}

func permitsCappedFleetWide(t *testing.T, f *fleet) {
	a := newBreaker(t, f.replica(0), "k", policy()) // 3 trial calls
	b := a.on(f.replica(0))
	open, at := a.trip(a.first())
	h := a.halfOpen(open, at, 2).Gen
	half := want{gen: h, state: runtime.StateHalfOpen, cause: runtime.FleetCauseWait}
	ask := func(who *breaker, gen uint64, n, granted int) {
		t.Helper()
		r := who.req(gen)
		r.Want = n
		w := half
		w.granted = granted
		who.check(fmt.Sprintf("asking for %d permits (gen %d)", n, gen), who.sync(r), w)
	}
	ask(b, h, 2, 1)    // 1 of 3 left
	ask(a, h, 1, 0)    // none left
	ask(b, open, 5, 0) // a request of the open generation asks too
	ask(a, h, 0, 0)
}

func returnedFreesPermits(t *testing.T, f *fleet) {
	a := newBreaker(t, f.replica(0), "k", policy()) // 3 trial calls
	b := a.on(f.replica(0))
	open, at := a.trip(a.first())
	h := a.halfOpen(open, at, 3).Gen // taken 3
	step := func(who *breaker, gen uint64, trials runtime.FleetCounts, returned, wantN int, w want) {
		t.Helper()
		r := who.req(gen)
		r.Trials, r.Returned, r.Want = trials, returned, wantN
		who.check(fmt.Sprintf("trials %+v, %d returned, %d wanted (gen %d)", trials, returned, wantN, gen), who.sync(r), w)
	}
	half := func(calls int64, granted int) want {
		return want{gen: h, state: runtime.StateHalfOpen, cause: runtime.FleetCauseWait, calls: calls, granted: granted}
	}
	none := runtime.FleetCounts{}
	step(b, h, none, 0, 1, half(0, 0))                                                                                         // taken 3
	step(b, h, none, 1, 0, half(0, 0))                                                                                         // taken 2
	step(a, open, none, 2, 0, half(0, 0))                                                                                      // stale: taken 2
	step(b, h, none, 0, 2, half(0, 1))                                                                                         // taken 3
	step(a, h, runtime.FleetCounts{OK: 1}, 1, 0, half(1, 0))                                                                   // max(3-1, 1 trial) = 2
	step(b, h, none, 0, 3, half(1, 1))                                                                                         // taken 3
	step(a, h, none, 10, 5, half(1, 2))                                                                                        // max(3-10, 1) = 1, then 2 granted
	step(b, h, none, 0, 1, half(1, 0))                                                                                         // taken 3
	step(a, h, runtime.FleetCounts{OK: 2}, 0, 0, want{gen: h + 1, cause: runtime.FleetCauseTrials, trials: [3]int64{3, 0, 0}}) // 3 of 3 OK
}

func permitLeaseReoffers(t *testing.T, f *fleet) {
	p := policy()
	p.HalfOpenCalls, p.PermitLease, p.WaitInOpen = 2, 150*time.Millisecond, 50*time.Millisecond
	a := newBreaker(t, f.replica(0), "k", p)
	b := a.on(f.replica(0))
	open, at := a.trip(a.first())
	time.Sleep(time.Until(at.Add(p.WaitInOpen + 5*time.Millisecond)))
	// grant syncs asking for n permits and returns when it was sent and
	// when it returned: the store's lastGrant is between.
	grant := func(who *breaker, n, granted int, calls int64) (time.Time, time.Time) {
		t.Helper()
		r := who.req(open)
		r.Want = n
		sent := time.Now()
		st := who.sync(r)
		who.check(fmt.Sprintf("asking for %d permits", n), st, want{gen: open + 1, state: runtime.StateHalfOpen, cause: runtime.FleetCauseWait, calls: calls, granted: granted})
		return sent, time.Now()
	}
	inLease := func(sent time.Time) {
		t.Helper()
		if d := time.Since(sent); d > p.PermitLease-10*time.Millisecond {
			t.Fatalf("%v since the grant: too slow to check within the lease of %v", d, p.PermitLease)
		}
	}
	sent, granted := grant(a, 2, 2, 0)
	// Asking in vain half-way through the lease does not renew it.
	time.Sleep(time.Until(sent.Add(p.PermitLease / 2)))
	grant(b, 2, 0, 0)
	inLease(sent)
	r := a.req(open + 1)
	r.Trials.OK = 1 // one permit used, one held by a replica gone quiet
	a.check("one trial", a.sync(r), want{gen: open + 1, state: runtime.StateHalfOpen, cause: runtime.FleetCauseWait, calls: 1})
	time.Sleep(time.Until(granted.Add(p.PermitLease + 5*time.Millisecond)))
	sent, granted = grant(b, 2, 1, 1) // the unreported permit, offered again
	grant(b, 1, 0, 1)
	inLease(sent)
	time.Sleep(time.Until(granted.Add(p.PermitLease + 5*time.Millisecond)))
	grant(a, 2, 1, 1)
	r.Trials = runtime.FleetCounts{Failed: 1}
	a.check("a failed trial: 1 of 2", a.sync(r),
		want{gen: open + 2, state: runtime.StateOpen, calls: 2, failed: 1, cause: runtime.FleetCauseTrials, justOpened: true})
}

// halfOpenBreaker is a new breaker made half-open, all permits granted.
func halfOpenBreaker(t *testing.T, f *fleet, key string, p runtime.FleetPolicy) (*breaker, uint64) {
	t.Helper()
	b := newBreaker(t, f.replica(0), key, p)
	open, at := b.trip(b.first())
	return b, b.halfOpen(open, at, p.HalfOpenCalls).Gen
}

// trials syncs trial outcomes of generation h.
func (b *breaker) trials(h uint64, c runtime.FleetCounts) runtime.FleetState {
	b.t.Helper()
	r := b.req(h)
	r.Trials = c
	return b.sync(r)
}

func trialsDecide(t *testing.T, f *fleet) {
	p := policy() // 3 trials, 50% failures, minimum 4
	b, h := halfOpenBreaker(t, f, "closes", p)
	b.check("2 good trials", b.trials(h, runtime.FleetCounts{OK: 2}), want{gen: h, state: runtime.StateHalfOpen, calls: 2, cause: runtime.FleetCauseWait})
	b.check("a failed 3rd: 1 of 3", b.trials(h, runtime.FleetCounts{Failed: 1}), want{gen: h + 1, cause: runtime.FleetCauseTrials, trials: [3]int64{3, 1, 0}})
	r := b.req(h + 1)
	r.Closed.Failed = 3
	b.check("3 failures after closing: a new, empty window", b.sync(r), want{gen: h + 1, calls: 3, failed: 3, cause: runtime.FleetCauseTrials, trials: [3]int64{3, 1, 0}})

	b, h = halfOpenBreaker(t, f, "opens", p)
	b.check("trials, 2 of 3 failed", b.trials(h, runtime.FleetCounts{OK: 1, Failed: 2}),
		want{gen: h + 1, state: runtime.StateOpen, calls: 3, failed: 2, cause: runtime.FleetCauseTrials, justOpened: true})
	at := time.Now()
	b.halfOpen(h+1, at, 1) // half-open again, no trials yet

	p.FailureRateThreshold, p.SlowCallRateThreshold = 0, 50
	b, h = halfOpenBreaker(t, f, "slow", p)
	b.check("trials, 2 of 3 slow", b.trials(h, runtime.FleetCounts{OK: 1, Slow: 2}),
		want{gen: h + 1, state: runtime.StateOpen, calls: 3, slow: 2, cause: runtime.FleetCauseTrials, justOpened: true})
	b, h = halfOpenBreaker(t, f, "failure-rate-off", p)
	b.check("trials, 3 of 3 failed, the failure rate off", b.trials(h, runtime.FleetCounts{Failed: 3}), want{gen: h + 1, cause: runtime.FleetCauseTrials, trials: [3]int64{3, 3, 0}})
}

func cappedTrialsCountFailuresFirst(t *testing.T, f *fleet) {
	p := policy() // 3 trials
	p.FailureRateThreshold = 30
	b, h := halfOpenBreaker(t, f, "failed-before-ok", p)
	b.check("4 trials for 3: the failure counts", b.trials(h, runtime.FleetCounts{OK: 3, Failed: 1}),
		want{gen: h + 1, state: runtime.StateOpen, calls: 3, failed: 1, cause: runtime.FleetCauseTrials, justOpened: true})

	p.FailureRateThreshold, p.HalfOpenCalls = 50, 2
	b, h = halfOpenBreaker(t, f, "failed-slow-first", p)
	b.check("5 trials for 2: failed slow, then failed", b.trials(h, runtime.FleetCounts{FailedSlow: 1, Failed: 2, Slow: 1, OK: 1}),
		want{gen: h + 1, state: runtime.StateOpen, calls: 2, failed: 2, slow: 1, cause: runtime.FleetCauseTrials, justOpened: true})

	p.FailureRateThreshold, p.SlowCallRateThreshold, p.HalfOpenCalls = 0, 50, 3
	b, h = halfOpenBreaker(t, f, "slow-before-ok", p)
	b.check("1 good trial", b.trials(h, runtime.FleetCounts{OK: 1}), want{gen: h, state: runtime.StateHalfOpen, calls: 1, cause: runtime.FleetCauseWait})
	b.check("8 trials for the 2 left: the slow ones", b.trials(h, runtime.FleetCounts{OK: 5, Slow: 3}),
		want{gen: h + 1, state: runtime.StateOpen, calls: 3, slow: 2, cause: runtime.FleetCauseTrials, justOpened: true})

	p.FailureRateThreshold, p.SlowCallRateThreshold = 50, 0
	b, h = halfOpenBreaker(t, f, "one-left", p)
	b.check("2 trials", b.trials(h, runtime.FleetCounts{OK: 1, Slow: 1}), want{gen: h, state: runtime.StateHalfOpen, calls: 2, slow: 1, cause: runtime.FleetCauseWait})
	b.check("5 failures for the 1 left: 1 of 3", b.trials(h, runtime.FleetCounts{Failed: 5}), want{gen: h + 1, cause: runtime.FleetCauseTrials, trials: [3]int64{3, 1, 1}})
}

func requestsApplyInOrder(t *testing.T, f *fleet) {
	s := f.replica(0)
	p := policy() // minimum 4, 3 trials
	k1, k2 := newBreaker(t, s, "k1", p), newBreaker(t, s, "k2", p)
	g := k1.first()
	r0, r1, r2, r3, r4 := k1.req(g), k1.req(g), k1.req(g), k2.req(0), k1.req(g+1)
	r0.Closed.Failed, r1.Closed.Failed, r2.Closed.OK, r4.Closed.OK = 2, 2, 9, 1
	before := uint64(time.Now().UnixMilli())
	out := syncAll(t, s, r0, r1, r2, r3, r4)
	at := time.Now()
	k1.check("request 0: 2 failures", out[0], want{gen: g, calls: 2, failed: 2})
	opened := want{gen: g + 1, state: runtime.StateOpen, calls: 4, failed: 4, cause: runtime.FleetCauseWindow, justOpened: true}
	k1.check("request 1: 2 more open it", out[1], opened)
	// Each request has its own store time: a later one may find less of
	// the wait left.
	opened.justOpened = false
	k1.check("request 2: outcomes of the closed generation", out[2], opened)
	if out[3].Gen/1024 < before || out[3].Gen/1024 > uint64(at.UnixMilli()) {
		t.Errorf("request 3, a new breaker: generation %d, want the store's clock × 1024", out[3].Gen)
	}
	k2.check("request 3: another breaker", out[3], want{gen: out[3].Gen})
	k1.check("request 4: closed outcomes while open", out[4], opened)

	time.Sleep(time.Until(at.Add(p.WaitInOpen + 5*time.Millisecond)))
	r0, r1, r2, r3 = k1.req(g+1), k1.req(g+1), k1.req(g+2), k1.req(g+2)
	r0.Want, r1.Want, r2.Trials.OK, r3.Want = 2, 2, 3, 1
	out = syncAll(t, s, r0, r1, r2, r3)
	half := want{gen: g + 2, state: runtime.StateHalfOpen, cause: runtime.FleetCauseWait, granted: 2}
	k1.check("request 0: 2 permits wanted after the wait", out[0], half)
	half.granted = 1
	k1.check("request 1: 2 more wanted", out[1], half)
	closed := want{gen: g + 3, cause: runtime.FleetCauseTrials, trials: [3]int64{3, 0, 0}}
	k1.check("request 2: 3 good trials", out[2], closed)
	k1.check("request 3: a permit wanted once closed", out[3], closed)
}
