package fleettest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
)

// watcher collects what one Watch delivers.
type watcher struct {
	t    *testing.T
	name string
	more chan struct{}

	mu    sync.Mutex
	ready int
	early bool // fn was called before ready
	got   []runtime.FleetState
	seen  int // how many of got the check has looked at
}

// watch starts a Watch on s and waits until it is ready; t.Cleanup ends
// it and checks it returned nil.
func watch(t *testing.T, name string, s runtime.FleetStore) *watcher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &watcher{t: t, name: name, more: make(chan struct{}, 1)}
	ready := make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	go func() {
		done <- s.Watch(ctx, func() {
			w.mu.Lock()
			w.ready++
			w.mu.Unlock()
			once.Do(func() { close(ready) })
		}, func(st runtime.FleetState) {
			w.mu.Lock()
			w.early = w.early || w.ready == 0
			w.got = append(w.got, st)
			w.mu.Unlock()
			select {
			case w.more <- struct{}{}:
			default:
			}
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("watcher %s: Watch ended with %v after its context ended, want nil", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("watcher %s: Watch still running 5 s after its context ended", name)
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.ready != 1 || w.early {
			t.Errorf("watcher %s: ready called %d times (fn before it: %v), want once, before any fn", name, w.ready, w.early)
		}
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("watcher %s: Watch ended before it was ready: %v", name, err)
	case <-time.After(5 * time.Second):
		t.Fatalf("watcher %s: Watch not ready after 5 s", name)
	}
	return w
}

// next checks the next message, waiting up to 2 s for it.
func (w *watcher) next(b *breaker, what string, wt want) {
	w.t.Helper()
	deadline := time.After(2 * time.Second)
	for {
		w.mu.Lock()
		if w.seen < len(w.got) {
			st := w.got[w.seen]
			w.seen++
			w.mu.Unlock()
			b.check("watcher "+w.name+": "+what, st, wt)
			return
		}
		w.mu.Unlock()
		select {
		case <-w.more:
		case <-deadline:
			w.t.Fatalf("watcher %s: no message in 2 s for %s", w.name, what)
		}
	}
}

// quiet checks that no message came beyond those looked at.
func (w *watcher) quiet() {
	w.t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if extra := w.got[w.seen:]; len(extra) > 0 {
		w.t.Errorf("watcher %s: %d messages no state change made: %+v", w.name, len(extra), extra)
	}
}

// A change reaches every watcher under the prefix once, in order, with its
// new generation; Syncs that change nothing publish nothing, and a fleet
// under another prefix, with the same key, neither sees nor disturbs it.
func watchSeesEachChangeOnce(t *testing.T, f *fleet) {
	s1, s2, other := f.replica(0), f.replica(0), f.replica(1)
	w1, w2, wo := watch(t, "1", s1), watch(t, "2", s2), watch(t, "other", other)
	p := policy()
	p.WaitInOpen = 200 * time.Millisecond // the Sync while open must end within it
	n := int64(p.MinimumCalls)
	a := newBreaker(t, s2, "k", p)
	o := newBreaker(t, other, "k", p)
	ogen := o.first()

	gen := a.first() // a new breaker is no change
	open, at := a.trip(gen)
	opened := want{gen: open, state: runtime.StateOpen, calls: n, failed: n, slow: n, cause: runtime.FleetCauseWindow, justOpened: true}
	w1.next(a, "the open", opened)
	w2.next(a, "the open", opened)

	r := a.req(open)
	r.Closed.OK, r.Want = 5, 1
	a.on(s1).check("closed outcomes and a permit request while open", a.on(s1).sync(r),
		want{gen: open, state: runtime.StateOpen, calls: n, failed: n, slow: n, cause: runtime.FleetCauseWindow})
	stillOpen(t, at, p)
	a.on(s1).halfOpen(open, at, 1)
	half := want{gen: open + 1, state: runtime.StateHalfOpen, cause: runtime.FleetCauseWait}
	w1.next(a, "the half-open", half)
	w2.next(a, "the half-open", half)
	a.check("3 good trials", a.trials(open+1, runtime.FleetCounts{OK: 3}), want{gen: open + 2, cause: runtime.FleetCauseTrials, trials: [3]int64{3, 0, 0}})
	closed := want{gen: open + 2, cause: runtime.FleetCauseTrials, trials: [3]int64{3, 0, 0}}
	w1.next(a, "the close", closed)
	w2.next(a, "the close", closed)

	// Two changes in one Sync arrive in the Sync's order.
	k2, k3 := newBreaker(t, s1, "k2", p), newBreaker(t, s1, "k3", p)
	g2, g3 := k2.first(), k3.first()
	r2, r3 := k2.req(g2), k3.req(g3)
	r2.Closed.FailedSlow, r3.Closed.FailedSlow = n, n
	syncAll(t, s1, r3, r2)
	for _, w := range []*watcher{w1, w2} {
		opened.gen = g3 + 1
		w.next(k3, "the first open of one Sync", opened)
		opened.gen = g2 + 1
		w.next(k2, "the second open of one Sync", opened)
	}

	// The other prefix: its breaker "k" is untouched, and its own change
	// reaches only its own watcher.
	o.check("the same key under another prefix", o.sync(o.req(ogen)), want{gen: ogen})
	oopen, _ := o.trip(ogen)
	opened.gen = oopen
	wo.next(o, "the other prefix's open", opened)

	time.Sleep(150 * time.Millisecond) // for messages that should not come
	w1.quiet()
	w2.quiet()
	wo.quiet()
}
