package runtime

import (
	"strings"
	"testing"
	"time"
)

// A breaker whose fleet open held through a store outage reported open all
// along (State, refusals): when the store comes back in the same open
// generation, nothing changed, so no second "opened" line or event.
func TestFleetResumeDuringHeldOpenIsNoChange(t *testing.T) {
	s := newServer(t, status(500))
	store := &faultyStore{FleetStore: NewMemoryFleetStore()}
	interval := 30 * time.Millisecond
	rs := newReplicas(t, 2, store, fleetPolicyForTest(20, 10, 2, time.Minute), FleetOptions{SyncInterval: interval})
	openFleet(t, rs, s)
	store.down.Store(true)
	waitFor(t, "fallback", func() bool { return !rs[0].b.link.isActive() && !rs[1].b.link.isActive() })
	for _, r := range rs {
		if st := r.b.State(); st != StateOpen {
			t.Fatalf("held open reported %v", st)
		}
	}
	store.down.Store(false)
	waitFor(t, "resume", func() bool { return rs[0].b.link.isActive() && rs[1].b.link.isActive() })
	time.Sleep(3 * interval)
	for i, r := range rs {
		if got := r.log.String(); strings.Count(got, `breaker "b" opened`) != 1 {
			t.Errorf("replica %d logged the fleet's one open more than once:\n%s", i, got)
		}
		if n := r.rec.opens(); n != 1 {
			t.Errorf("replica %d observed %d opens, want 1", i, n)
		}
	}
}
