package runtime

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// A breaker whose fleet open held through a store outage reported open all
// along (State, refusals): when the store comes back in the same open
// generation, nothing changed, so no second "opened" line or event.
func TestFleetResumeDuringHeldOpenIsNoChange(t *testing.T) {
	_, store, rs := heldOpenFleet(t)
	for _, r := range rs {
		if st := r.b.State(); st != StateOpen {
			t.Fatalf("held open reported %v", st)
		}
	}
	store.down.Store(false)
	waitFor(t, "resume", func() bool { return rs[0].b.link.isActive() && rs[1].b.link.isActive() })
	time.Sleep(3 * heldOpenSync)
	for i, r := range rs {
		if got := r.log.String(); strings.Count(got, `breaker "b" opened`) != 1 {
			t.Errorf("replica %d logged the fleet's one open more than once:\n%s", i, got)
		}
		if n := r.rec.opens(); n != 1 {
			t.Errorf("replica %d observed %d opens, want 1", i, n)
		}
	}
}

// Permits a replica held past PermitLease, which the store then offered
// to another replica, are not the holder's any more: halfOpenCalls trial
// calls in the whole fleet, not one more per stale holder.
func TestFleetStalePermitsNotUsedAfterLease(t *testing.T) {
	fail := newServer(t, status(500))
	rs := newReplicas(t, 2, NewMemoryFleetStore(), fleetPolicyForTest(20, 10, 1, 150*time.Millisecond),
		FleetOptions{SyncInterval: 20 * time.Millisecond, PermitLease: 100 * time.Millisecond})
	a, b := rs[0], rs[1]
	openFleet(t, rs, fail)
	waitFor(t, "half-open", func() bool { return a.b.State() == StateHalfOpen })
	do(t, a.op, get(t, fail)) // refused: a asks for a permit and holds it, unused
	waitFor(t, "a holds a permit", func() bool { return a.b.link.permits.Load() == 1 })
	time.Sleep(150 * time.Millisecond) // past the lease: the store offers it again

	release := make(chan struct{})
	slow := newServer(t, func(int64, http.ResponseWriter, *http.Request) { <-release })
	done := make(chan struct{})
	go func() { // b's trial: refused until b is granted the permit, then in flight
		defer close(done)
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
			if _, n, _ := do(t, b.op, get(t, slow)); n > 0 {
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	waitFor(t, "b's trial in flight", func() bool { return slow.calls.Load() == 1 })
	ok := newServer(t, status(200))
	do(t, a.op, get(t, ok))
	close(release)
	<-done
	if n := ok.calls.Load(); n != 0 {
		t.Errorf("a sent %d trial calls on a permit the store had given b: 2 trials for halfOpenCalls 1", n)
	}
}

// The observed state changes of a breaker form one chain (each From is
// the previous To) that ends in the state it reports, through a fallback
// whose fleet open holds, the end of that hold, and the resume: a
// breaker that switches from the fleet's state to its local one says so.
func TestFleetFallbackStateChangesChain(t *testing.T) {
	s := newServer(t, status(500))
	store := &faultyStore{FleetStore: NewMemoryFleetStore()}
	r := newReplicas(t, 1, store, fleetPolicyForTest(20, 10, 2, 300*time.Millisecond), FleetOptions{SyncInterval: 30 * time.Millisecond})[0]
	chain := func(what string) {
		t.Helper()
		r.rec.mu.Lock()
		defer r.rec.mu.Unlock()
		prev := StateClosed
		for _, c := range r.rec.changes {
			if c.From != prev {
				t.Fatalf("%s: %v -> %v after a change to %v; changes %+v", what, c.From, c.To, prev, r.rec.changes)
			}
			prev = c.To
		}
		if st := r.b.State(); st != prev {
			t.Fatalf("%s: the breaker reports %v, its last change was to %v", what, st, prev)
		}
	}
	openFleet(t, []*replica{r}, s)
	store.down.Store(true)
	waitFor(t, "fallback", func() bool { return !r.b.link.isActive() })
	chain("held in fallback")
	time.Sleep(350 * time.Millisecond) // the fleet's open ends
	waitFor(t, "the end of the hold reported", func() bool {
		r.rec.mu.Lock()
		defer r.rec.mu.Unlock()
		return r.rec.changes[len(r.rec.changes)-1].To == StateClosed
	})
	chain("after the hold")
	store.down.Store(false)
	waitFor(t, "resume", func() bool { return r.b.link.isActive() })
	chain("resumed")
	if got := r.log.String(); !strings.Contains(got, `INFO breaker "b" closed: the fleet's open ended without an answer from its store; the local breaker decides`) {
		t.Errorf("log lacks the end of the hold:\n%s", got)
	}
}
