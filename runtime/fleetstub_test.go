package runtime

import (
	"context"
	"sync"
	"time"
)

// stubStore is a stand-in for the reference memory store (fleetmem.go,
// written at the same time): the normative state machine of design14.md
// for count windows only, in one process. Replace it with
// NewMemoryFleetStore once that is merged.
type stubStore struct {
	mu       sync.Mutex
	keys     map[string]*stubKey
	watchers map[chan FleetState]struct{}
}

type stubKey struct {
	gen       uint64
	state     State
	openUntil time.Time
	cause     FleetCause
	ring      []outcome // count window, oldest first
	total     tally
	tripped   tally
	trial     tally
	taken     int
	lastGrant time.Time
}

func newStubStore() *stubStore {
	return &stubStore{keys: map[string]*stubKey{}, watchers: map[chan FleetState]struct{}{}}
}

func (s *stubStore) Sync(ctx context.Context, reqs []FleetSync) ([]FleetState, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	out := make([]FleetState, len(reqs))
	for i, r := range reqs {
		out[i] = s.syncOne(now, r)
	}
	return out, nil
}

func (s *stubStore) syncOne(now time.Time, r FleetSync) FleetState {
	p := r.Policy
	k := s.keys[r.Key]
	if k == nil {
		k = &stubKey{gen: uint64(now.UnixMilli()) * 1024}
		s.keys[r.Key] = k
	}
	if k.state == StateOpen && !now.Before(k.openUntil) {
		k.gen, k.state, k.trial, k.taken, k.cause = k.gen+1, StateHalfOpen, tally{}, 0, FleetCauseWait
		s.publish(k.answer(r.Key, now, 0))
	}
	exceeded := func(t tally) bool {
		return t.calls > 0 && (over(t.failed, t.calls, p.FailureRateThreshold) || over(t.slow, t.calls, p.SlowCallRateThreshold))
	}
	if r.Gen == k.gen {
		switch k.state {
		case StateClosed:
			c := r.Closed
			for _, kc := range []struct {
				o outcome
				n int64
			}{{0, c.OK}, {outSlow, c.Slow}, {outFailed, c.Failed}, {outFailed | outSlow, c.FailedSlow}} {
				for range kc.n {
					k.ring = append(k.ring, kc.o)
					k.total.add(kc.o, 1)
					if len(k.ring) > p.CountWindow {
						k.total.add(k.ring[0], -1)
						k.ring = k.ring[1:]
					}
				}
			}
			if k.total.calls >= p.MinimumCalls && exceeded(k.total) {
				k.gen, k.state, k.openUntil, k.tripped, k.cause = k.gen+1, StateOpen, now.Add(p.WaitInOpen), k.total, FleetCauseWindow
				k.ring, k.total = nil, tally{}
				s.publish(k.answer(r.Key, now, 0))
			}
		case StateHalfOpen:
			k.taken = max(k.taken-r.Returned, k.trial.calls)
			t := r.Trials
			for _, kc := range []struct {
				o outcome
				n int64
			}{{outFailed | outSlow, t.FailedSlow}, {outFailed, t.Failed}, {outSlow, t.Slow}, {0, t.OK}} {
				for range kc.n {
					if k.trial.calls < p.HalfOpenCalls {
						k.trial.add(kc.o, 1)
					}
				}
			}
			if k.trial.calls >= p.HalfOpenCalls {
				if exceeded(k.trial) {
					k.gen, k.state, k.openUntil, k.tripped = k.gen+1, StateOpen, now.Add(p.WaitInOpen), k.trial
				} else {
					k.gen, k.state, k.ring, k.total = k.gen+1, StateClosed, nil, tally{}
				}
				k.cause = FleetCauseTrials
				s.publish(k.answer(r.Key, now, 0))
			}
		}
	}
	grant := 0
	if k.state == StateHalfOpen && r.Want > 0 {
		if k.taken > k.trial.calls && now.Sub(k.lastGrant) >= p.PermitLease {
			k.taken = k.trial.calls
		}
		grant = max(min(r.Want, p.HalfOpenCalls-k.taken), 0)
		k.taken += grant
		if grant > 0 {
			k.lastGrant = now
		}
	}
	return k.answer(r.Key, now, grant)
}

func (k *stubKey) answer(key string, now time.Time, grant int) FleetState {
	st := FleetState{Key: key, Gen: k.gen, State: k.state, Granted: grant, Cause: k.cause}
	t := k.total
	switch k.state {
	case StateOpen:
		st.OpenFor, t = max(k.openUntil.Sub(now), 0), k.tripped
	case StateHalfOpen:
		t = k.trial
	}
	st.Calls, st.Failed, st.Slow = int64(t.calls), int64(t.failed), int64(t.slow)
	return st
}

// publish runs under s.mu; a full watcher misses the message, as a slow
// pub/sub subscriber would.
func (s *stubStore) publish(st FleetState) {
	for ch := range s.watchers {
		select {
		case ch <- st:
		default:
		}
	}
}

func (s *stubStore) Watch(ctx context.Context, ready func(), fn func(FleetState)) error {
	ch := make(chan FleetState, 64)
	s.mu.Lock()
	s.watchers[ch] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.watchers, ch)
		s.mu.Unlock()
	}()
	ready()
	for {
		select {
		case <-ctx.Done():
			return nil
		case st := <-ch:
			fn(st)
		}
	}
}
