package runtime_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
)

// memSubBufferForTest is a lower bound of the memory store's per-watcher
// buffer (256).
const memSubBufferForTest = 200

func memSync(t *testing.T, s runtime.FleetStore, reqs ...runtime.FleetSync) []runtime.FleetState {
	t.Helper()
	out, err := s.Sync(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(reqs) {
		t.Fatalf("Sync answered %d states for %d requests", len(out), len(reqs))
	}
	return out
}

var memPolicy = runtime.FleetPolicy{CountWindow: 10, MinimumCalls: 4, FailureRateThreshold: 50,
	WaitInOpen: 50 * time.Millisecond, HalfOpenCalls: 2, PermitLease: time.Minute}

// One breaker's whole cycle: closed, open on the window, half-open after
// the wait, two trials granted to two callers, closed on their outcome.
func TestMemoryFleetStoreCycle(t *testing.T) {
	s := runtime.NewMemoryFleetStore()
	req := runtime.FleetSync{Key: "k", Breaker: "b", Policy: memPolicy}
	st := memSync(t, s, req)[0]
	g := st.Gen
	req.Gen, req.Closed = g, runtime.FleetCounts{OK: 2, Failed: 2}
	st = memSync(t, s, req)[0]
	if st.State != runtime.StateOpen || st.Gen != g+1 || st.Cause != runtime.FleetCauseWindow || st.Calls != 4 || st.Failed != 2 {
		t.Fatalf("after 2 of 4 failed: %+v, want open gen+1 by the window with 4 calls, 2 failed", st)
	}
	time.Sleep(60 * time.Millisecond)
	req.Gen, req.Closed, req.Want = st.Gen, runtime.FleetCounts{}, 1
	a := memSync(t, s, req, req, req)
	if a[0].State != runtime.StateHalfOpen || a[0].Gen != g+2 || a[0].Granted != 1 || a[1].Granted != 1 || a[2].Granted != 0 {
		t.Fatalf("after the wait, three asks for one permit: %+v, want half-open gen+2 granting 1, 1, 0", a)
	}
	req.Gen, req.Want, req.Trials = a[0].Gen, 0, runtime.FleetCounts{OK: 2}
	st = memSync(t, s, req)[0]
	if st.State != runtime.StateClosed || st.Gen != g+3 || st.Cause != runtime.FleetCauseTrials || st.Calls != 0 {
		t.Fatalf("after 2 good trials: %+v, want closed gen+3 by the trials, empty window", st)
	}
}

// A count window never holds more than MaxWindowSize calls, whatever the
// policy says.
func TestMemoryFleetStoreClampsCountWindow(t *testing.T) {
	s := runtime.NewMemoryFleetStore()
	req := runtime.FleetSync{Key: "k", Policy: runtime.FleetPolicy{CountWindow: 1 << 30, MinimumCalls: 1, WaitInOpen: time.Second, HalfOpenCalls: 1}}
	req.Gen = memSync(t, s, req)[0].Gen
	req.Closed = runtime.FleetCounts{OK: 3 * runtime.MaxWindowSize, Failed: 7}
	if st := memSync(t, s, req)[0]; st.Calls != runtime.MaxWindowSize || st.Failed != 7 {
		t.Fatalf("window after %d calls: %+v, want the last %d", 3*runtime.MaxWindowSize+7, st, runtime.MaxWindowSize)
	}
}

// A watcher whose fn is stuck is dropped once its buffer is full (its
// Watch ends with an error when fn returns), and Sync never waits for it;
// a watcher that keeps up sees every change.
func TestMemoryFleetStoreDropsSlowWatcher(t *testing.T) {
	s := runtime.NewMemoryFleetStore()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	release := make(chan struct{})
	var wg sync.WaitGroup
	slowErr, fastErr := make(chan error, 1), make(chan error, 1)
	var fastSeen atomic.Int64
	ready := make(chan struct{}, 2)
	wg.Add(2)
	go func() {
		defer wg.Done()
		slowErr <- s.Watch(ctx, func() { ready <- struct{}{} }, func(runtime.FleetState) { <-release })
	}()
	go func() {
		defer wg.Done()
		fastErr <- s.Watch(ctx, func() { ready <- struct{}{} }, func(runtime.FleetState) { fastSeen.Add(1) })
	}()
	<-ready
	<-ready
	// Every Sync with zero wait in open makes two changes: open, then
	// half-open at the next Sync, then closed by one good trial.
	p := runtime.FleetPolicy{CountWindow: 1, MinimumCalls: 1, FailureRateThreshold: 50, HalfOpenCalls: 1, PermitLease: time.Minute}
	req := runtime.FleetSync{Key: "k", Policy: p}
	g0 := memSync(t, s, req)[0].Gen
	req.Gen, req.Closed.Failed = g0, 1
	start := time.Now()
	for changes := 0; changes < 600; {
		st := memSync(t, s, req)[0]
		req.Gen, changes = st.Gen, int(st.Gen-g0)
		for fastSeen.Load() < int64(changes-memSubBufferForTest/2) {
			time.Sleep(time.Millisecond) // pace the changes for the watcher that keeps up
		}
		req.Closed, req.Trials = runtime.FleetCounts{}, runtime.FleetCounts{}
		switch st.State {
		case runtime.StateClosed:
			req.Closed.Failed = 1
		case runtime.StateHalfOpen:
			req.Trials.OK = 1
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("600 state changes took %v with a stuck watcher", d)
	}
	close(release)
	select {
	case err := <-slowErr:
		if err == nil {
			t.Error("the stuck watcher's Watch returned nil, want an error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stuck watcher was not dropped")
	}
	for deadline := time.Now().Add(5 * time.Second); fastSeen.Load() < 600 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	cancel()
	wg.Wait()
	if err := <-fastErr; err != nil {
		t.Errorf("the watcher that kept up ended with %v", err)
	}
	if n := fastSeen.Load(); n != 600 {
		t.Errorf("the watcher that kept up saw %d changes of 600", n)
	}
}

// Syncs and Watches from many goroutines (run with -race).
func TestMemoryFleetStoreConcurrent(t *testing.T) {
	s := runtime.NewMemoryFleetStore()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = s.Watch(ctx, nil, func(runtime.FleetState) {}) }()
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := runtime.FleetSync{Key: "k", Policy: memPolicy}
			for i := range 200 {
				out, err := s.Sync(context.Background(), []runtime.FleetSync{req})
				if err != nil {
					t.Error(err)
					return
				}
				req.Gen, req.Want = out[0].Gen, 1
				req.Closed = runtime.FleetCounts{OK: int64(i % 3), Failed: int64(g % 2)}
				req.Trials = runtime.FleetCounts{OK: int64(out[0].Granted)}
			}
		}()
	}
	time.Sleep(10 * time.Millisecond)
	cancel()
	wg.Wait()
}
