package runtime

import (
	"context"
	"errors"
	"sync"
	"time"
)

// NewMemoryFleetStore returns a FleetStore that keeps the fleet's breakers
// in this process: the Fleets of several clients that share it act as the
// replicas of one fleet. It is the reference for the store's state machine
// (docs/fleet.md), which every store must follow and fleettest.Run checks.
//
// Its clock is the wall clock read when it was made plus the monotonic
// time since, so a step of the wall clock cannot move it back. A breaker
// not synced for 24 hours is forgotten, as the Redis store's keys expire.
func NewMemoryFleetStore() FleetStore {
	now := time.Now()
	s := &memFleetStore{base: now, baseNs: now.UnixNano(),
		keys: map[string]*memBreaker{}, subs: map[*memSub]struct{}{}}
	s.lastSweep = s.nowMs()
	return s
}

const (
	// memIdleMs is how long a breaker nobody syncs is kept (ms).
	memIdleMs = int64(24 * time.Hour / time.Millisecond)
	// memSweepMs is how often Sync looks for idle breakers to forget.
	memSweepMs = int64(time.Hour / time.Millisecond)
	// memSubBuffer is how many state changes a watcher may fall behind
	// before it is dropped: Sync never waits for a watcher.
	memSubBuffer = 256
)

// errMemWatchBehind ends a Watch whose fn did not keep up; the Fleet
// watches again and syncs, which gives it the state it missed.
var errMemWatchBehind = errors.New("resgen fleet: memory store: the watcher fell behind by 256 state changes and was dropped")

type memFleetStore struct {
	base   time.Time
	baseNs int64

	mu        sync.Mutex
	keys      map[string]*memBreaker
	subs      map[*memSub]struct{}
	lastSweep int64
}

// memSub is one Watch: publish sends without blocking and closes ch when
// it is full.
type memSub struct{ ch chan FleetState }

// nowMs is the store's clock in Unix milliseconds.
func (s *memFleetStore) nowMs() int64 {
	return (s.baseNs + int64(time.Since(s.base))) / int64(time.Millisecond)
}

// memTally is a window's, the trials' or a trip's totals.
type memTally struct{ calls, failed, slow int64 }

func (t *memTally) add(c FleetCounts) {
	t.calls += c.Calls()
	t.failed += c.Failed + c.FailedSlow
	t.slow += c.Slow + c.FailedSlow
}

// memPolicy is a FleetPolicy bounded to the runtime's limits, in the
// store's units (ms).
type memPolicy struct {
	countN, timeN   int // exactly one is > 0
	minCalls, half  int
	fail, slow      float64
	waitMs, leaseMs int64
}

func memPolicyOf(p FleetPolicy) memPolicy {
	// As the Redis store bounds them: a wait of at least 1 ms, and a
	// count window unless only TimeWindow is set.
	m := memPolicy{fail: p.FailureRateThreshold, slow: p.SlowCallRateThreshold,
		waitMs: max(p.WaitInOpen.Milliseconds(), 1), leaseMs: max(p.PermitLease.Milliseconds(), 0),
		half: min(max(p.HalfOpenCalls, 1), MaxHalfOpenCalls), minCalls: max(p.MinimumCalls, 1)}
	if p.CountWindow > 0 || p.TimeWindow <= 0 {
		m.countN = min(max(p.CountWindow, 1), MaxWindowSize)
		m.minCalls = min(m.minCalls, m.countN)
	} else {
		d := min(p.TimeWindow, MaxWindowDuration)
		m.timeN = int((d + time.Second - 1) / time.Second)
	}
	return m
}

func memOver(n, of int64, pct float64) bool {
	return pct > 0 && float64(n)*100 >= pct*float64(of)
}

func (p *memPolicy) exceeded(t memTally) bool {
	return t.calls > 0 && (memOver(t.failed, t.calls, p.fail) || memOver(t.slow, t.calls, p.slow))
}

// newMemWindow is a closed breaker's window: runtime/window.go's, fed
// in bulk (addCounts).
func newMemWindow(p *memPolicy) window {
	if p.timeN > 0 {
		return newTimeWindow(p.timeN)
	}
	return newCountWindow(p.countN)
}

// memFits says whether w has the policy's shape (a Key's policy never
// changes, its fingerprint being in the Key; this only guards).
func memFits(w *window, p *memPolicy) bool {
	if p.timeN > 0 {
		return len(w.buckets) == p.timeN
	}
	return w.buckets == nil && len(w.ring) == p.countN
}

// memTallyOf widens a window's totals.
func memTallyOf(t tally) memTally {
	return memTally{calls: int64(t.calls), failed: int64(t.failed), slow: int64(t.slow)}
}

// memBreaker is one Key's state (the normative state machine's fields).
type memBreaker struct {
	gen       uint64
	state     State
	openUntil int64 // ms
	cause     FleetCause
	win       window
	tripped   memTally
	trials    memTally
	taken     int   // permits granted in this gen, less those returned
	lastGrant int64 // ms
	lastUsed  int64 // ms, for forgetting idle breakers
}

// enter moves to a new generation and state.
func (b *memBreaker) enter(st State, cause FleetCause, now int64, p *memPolicy) {
	b.gen++
	b.state, b.cause = st, cause
	b.taken, b.lastGrant = 0, 0
	switch st {
	case StateOpen:
		b.openUntil = now + p.waitMs
	case StateHalfOpen:
		b.trials = memTally{}
	case StateClosed:
		b.win.reset()
	}
}

func (b *memBreaker) answer(key string, now int64, granted int) FleetState {
	st := FleetState{Key: key, Gen: b.gen, State: b.state, Granted: granted, Cause: b.cause}
	var t memTally
	switch b.state {
	case StateClosed:
		t = memTallyOf(b.win.total)
	case StateOpen:
		t = b.tripped
		st.OpenFor = time.Duration(max(b.openUntil-now, 0)) * time.Millisecond
	case StateHalfOpen:
		t = b.trials
	}
	st.Calls, st.Failed, st.Slow = t.calls, t.failed, t.slow
	if b.cause == FleetCauseTrials {
		// The trials stay as they were until the next half-open.
		st.TrialCalls, st.TrialFailed, st.TrialSlow = b.trials.calls, b.trials.failed, b.trials.slow
	}
	return st
}

// Sync applies the requests in order under one lock, at one store time.
func (s *memFleetStore) Sync(ctx context.Context, reqs []FleetSync) ([]FleetState, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]FleetState, len(reqs))
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.nowMs()
	if now-s.lastSweep >= memSweepMs {
		s.lastSweep = now
		for k, b := range s.keys {
			if now-b.lastUsed >= memIdleMs {
				delete(s.keys, k)
			}
		}
	}
	for i := range reqs {
		out[i] = s.apply(&reqs[i], now)
	}
	return out, nil
}

// apply is steps 1–5 of the state machine for one request.
func (s *memFleetStore) apply(r *FleetSync, now int64) FleetState {
	p := memPolicyOf(r.Policy)
	b := s.keys[r.Key]
	if b == nil || now-b.lastUsed >= memIdleMs {
		b = &memBreaker{gen: uint64(now) * 1024, win: newMemWindow(&p)}
		s.keys[r.Key] = b
	} else if !memFits(&b.win, &p) {
		b.win = newMemWindow(&p)
	}
	b.lastUsed = now
	sec := now / 1000

	if b.state == StateOpen && now >= b.openUntil {
		b.enter(StateHalfOpen, FleetCauseWait, now, &p)
		s.publish(b, r.Key, now)
	}
	if r.Gen == b.gen {
		switch b.state {
		case StateClosed:
			if c := memNonNeg(r.Closed); c.Calls() > 0 {
				b.win.addCounts(c, sec)
				if t := memTallyOf(b.win.total); t.calls >= int64(p.minCalls) && p.exceeded(t) {
					b.tripped = t
					b.enter(StateOpen, FleetCauseWindow, now, &p)
					b.win.reset()
					s.publish(b, r.Key, now)
				}
			}
		case StateHalfOpen:
			// Permits used are never offered again: taken ≥ the trials
			// recorded before this request's.
			b.taken = max(b.taken-max(r.Returned, 0), int(b.trials.calls))
			if c := memNonNeg(r.Trials); c.Calls() > 0 {
				b.trials.add(memCapFailuresFirst(c, int64(p.half)-b.trials.calls))
				if b.trials.calls >= int64(p.half) {
					if p.exceeded(b.trials) {
						b.tripped = b.trials
						b.enter(StateOpen, FleetCauseTrials, now, &p)
					} else {
						b.enter(StateClosed, FleetCauseTrials, now, &p)
					}
					s.publish(b, r.Key, now)
				}
			}
		}
	}
	if b.state == StateClosed {
		b.win.advance(sec)
	}
	grant := 0
	if b.state == StateHalfOpen && r.Want > 0 {
		if used := int(b.trials.calls); b.taken > used && now-b.lastGrant >= p.leaseMs {
			b.taken = used // re-offer the permits nobody reported
		}
		grant = max(min(r.Want, p.half-b.taken), 0)
		b.taken += grant
		if grant > 0 {
			b.lastGrant = now
		}
	}
	return b.answer(r.Key, now, grant)
}

// memCapFailuresFirst keeps at most n of c, taking FailedSlow, Failed,
// Slow, then OK: a capped trial batch must not hide a failure.
func memCapFailuresFirst(c FleetCounts, n int64) FleetCounts {
	n = max(n, 0)
	take := func(v *int64) {
		*v = min(*v, n)
		n -= *v
	}
	take(&c.FailedSlow)
	take(&c.Failed)
	take(&c.Slow)
	take(&c.OK)
	return c
}

func memNonNeg(c FleetCounts) FleetCounts {
	return FleetCounts{OK: max(c.OK, 0), Failed: max(c.Failed, 0), Slow: max(c.Slow, 0), FailedSlow: max(c.FailedSlow, 0)}
}

// publish sends b's new state to every watcher, dropping those whose
// buffer is full. Called with s.mu held, which keeps the order.
func (s *memFleetStore) publish(b *memBreaker, key string, now int64) {
	st := b.answer(key, now, 0)
	for sub := range s.subs {
		select {
		case sub.ch <- st:
		default:
			close(sub.ch)
			delete(s.subs, sub)
		}
	}
}

// Watch subscribes, calls ready, then calls fn with each published state
// from this goroutine until ctx ends or the watcher falls behind.
func (s *memFleetStore) Watch(ctx context.Context, ready func(), fn func(FleetState)) error {
	if ctx.Err() != nil {
		return nil
	}
	sub := &memSub{ch: make(chan FleetState, memSubBuffer)}
	s.mu.Lock()
	s.subs[sub] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.subs, sub)
		s.mu.Unlock()
	}()
	if ready != nil {
		ready()
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case st, ok := <-sub.ch:
			if !ok {
				return errMemWatchBehind
			}
			fn(st)
		}
	}
}
