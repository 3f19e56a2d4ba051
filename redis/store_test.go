package resgenredis

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/resgen/resgen/redis/redistest"
	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var prefixes atomic.Int64

// newStore is a Store on srv under a prefix no other test uses.
func newStore(t *testing.T, srv *redistest.Server) *Store {
	t.Helper()
	s, err := NewStore(srv.Client(), fmt.Sprintf("t%d", prefixes.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var countPolicy = runtime.FleetPolicy{
	CountWindow: 10, MinimumCalls: 4, FailureRateThreshold: 50, SlowCallRateThreshold: 0,
	WaitInOpen: 150 * time.Millisecond, HalfOpenCalls: 2, PermitLease: time.Minute,
}

func sync1(t *testing.T, s *Store, r runtime.FleetSync) runtime.FleetState {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := s.Sync(ctx, []runtime.FleetSync{r})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Key != r.Key {
		t.Fatalf("Sync answered %+v for key %q", out, r.Key)
	}
	return out[0]
}

// check compares the parts of a state a test knows in advance.
func check(t *testing.T, what string, got runtime.FleetState, gen uint64, st runtime.State, calls, failed, slow int64, cause runtime.FleetCause) {
	t.Helper()
	if got.Gen != gen || got.State != st || got.Calls != calls || got.Failed != failed || got.Slow != slow || got.Cause != cause {
		t.Fatalf("%s: got gen %d %v calls %d failed %d slow %d cause %d; want gen %d %v %d/%d/%d cause %d",
			what, got.Gen, got.State, got.Calls, got.Failed, got.Slow, got.Cause, gen, st, calls, failed, slow, cause)
	}
}

// watcher collects what Watch delivers, until the test ends.
type watcher struct {
	mu     sync.Mutex
	states []runtime.FleetState
	err    chan error
	cancel context.CancelFunc
}

func watch(t *testing.T, s *Store) *watcher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &watcher{err: make(chan error, 1), cancel: cancel}
	ready := make(chan struct{})
	go func() {
		w.err <- s.Watch(ctx, func() { close(ready) }, func(st runtime.FleetState) {
			w.mu.Lock()
			w.states = append(w.states, st)
			w.mu.Unlock()
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-w.err; err != nil {
			t.Errorf("Watch ended with %v after ctx ended, want nil", err)
		}
	})
	select {
	case <-ready:
	case err := <-w.err:
		t.Fatalf("Watch: %v before ready", err)
	case <-time.After(5 * time.Second):
		t.Fatal("Watch did not call ready")
	}
	return w
}

// wait returns the n-th state delivered, waiting up to a second for it.
func (w *watcher) wait(t *testing.T, n int) runtime.FleetState {
	t.Helper()
	for deadline := time.Now().Add(time.Second); ; time.Sleep(2 * time.Millisecond) {
		w.mu.Lock()
		if len(w.states) >= n {
			st := w.states[n-1]
			w.mu.Unlock()
			return st
		}
		w.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("Watch delivered %d states, want %d", len(w.states), n)
		}
	}
}

func (w *watcher) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.states)
}

// TestStateMachine walks one count-window breaker through the normative
// rules: a new generation from the clock, the window, open on its rate,
// half-open after the wait, fleet-wide permits, close on good trials, and
// each change published with the state the Sync answered.
func TestStateMachine(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	s := newStore(t, srv)
	w := watch(t, s)
	r := runtime.FleetSync{Key: "b#1", Breaker: "b", Policy: countPolicy}

	before := uint64(time.Now().UnixMilli()) * 1024
	st := sync1(t, s, r)
	after := uint64(time.Now().UnixMilli()) * 1024
	if st.Gen < before-1024*1000 || st.Gen > after+1024*1000 || st.State != runtime.StateClosed || st.Cause != runtime.FleetCauseNone {
		t.Fatalf("new breaker: %+v, want closed at gen ≈ ms×1024 in [%d, %d]", st, before, after)
	}
	g := st.Gen

	// Outcomes of another generation are dropped.
	r.Gen, r.Closed = g-1, runtime.FleetCounts{Failed: 9}
	check(t, "stale gen", sync1(t, s, r), g, runtime.StateClosed, 0, 0, 0, runtime.FleetCauseNone)

	r.Gen, r.Closed = g, runtime.FleetCounts{OK: 2, Failed: 1}
	check(t, "3 calls", sync1(t, s, r), g, runtime.StateClosed, 3, 1, 0, runtime.FleetCauseNone)
	r.Closed = runtime.FleetCounts{FailedSlow: 1}
	open := sync1(t, s, r)
	check(t, "4 calls, 2 failed", open, g+1, runtime.StateOpen, 4, 2, 1, runtime.FleetCauseWindow)
	if open.OpenFor <= 100*time.Millisecond || open.OpenFor > 150*time.Millisecond {
		t.Fatalf("OpenFor %v, want about the 150ms wait", open.OpenFor)
	}
	msg := w.wait(t, 1)
	if msg.OpenFor != open.OpenFor || msg.Granted != 0 {
		t.Fatalf("published %+v, want OpenFor %v, Granted 0", msg, open.OpenFor)
	}
	msg.OpenFor, open.OpenFor = 0, 0
	if msg != open {
		t.Fatalf("published %+v, Sync answered %+v", msg, open)
	}

	// Open: closed outcomes and permit requests get nothing.
	r.Gen, r.Closed, r.Want = g+1, runtime.FleetCounts{OK: 5}, 2
	st = sync1(t, s, r)
	check(t, "open", st, g+1, runtime.StateOpen, 4, 2, 1, runtime.FleetCauseWindow)
	if st.Granted != 0 {
		t.Fatalf("open granted %d", st.Granted)
	}

	time.Sleep(160 * time.Millisecond)
	r.Closed, r.Want = runtime.FleetCounts{}, 5
	st = sync1(t, s, r)
	check(t, "after the wait", st, g+2, runtime.StateHalfOpen, 0, 0, 0, runtime.FleetCauseWait)
	if st.Granted != 2 {
		t.Fatalf("half-open granted %d of 5 asked, want 2 (halfOpenCalls)", st.Granted)
	}
	if m := w.wait(t, 2); m.Gen != g+2 || m.State != runtime.StateHalfOpen || m.Cause != runtime.FleetCauseWait {
		t.Fatalf("published %+v, want half-open gen %d", m, g+2)
	}
	r.Want = 1
	if st = sync1(t, s, r); st.Granted != 0 {
		t.Fatalf("granted %d more, want 0: halfOpenCalls are fleet-wide", st.Granted)
	}
	// A permit given back is offered again.
	r.Gen, r.Returned, r.Want = g+2, 1, 1
	if st = sync1(t, s, r); st.Granted != 1 {
		t.Fatalf("granted %d after one was returned, want 1", st.Granted)
	}
	r.Returned, r.Want = 0, 0
	r.Trials = runtime.FleetCounts{OK: 1}
	check(t, "1 trial", sync1(t, s, r), g+2, runtime.StateHalfOpen, 1, 0, 0, runtime.FleetCauseWait)
	r.Trials = runtime.FleetCounts{Slow: 1}
	check(t, "2 good trials", sync1(t, s, r), g+3, runtime.StateClosed, 0, 0, 0, runtime.FleetCauseTrials)
	if m := w.wait(t, 3); m.Gen != g+3 || m.State != runtime.StateClosed || m.Cause != runtime.FleetCauseTrials {
		t.Fatalf("published %+v, want closed gen %d", m, g+3)
	}
	// Trials of a closed breaker are dropped; its window starts empty.
	r.Gen = g + 3
	check(t, "closed again", sync1(t, s, r), g+3, runtime.StateClosed, 0, 0, 0, runtime.FleetCauseTrials)
	if n := w.count(); n != 3 {
		t.Fatalf("%d messages, want 3 (one per change)", n)
	}
}

// TestTrialsFailuresFirst: a batch of trials larger than what is left of
// halfOpenCalls counts its failures first, and a failed trial reopens.
func TestTrialsFailuresFirst(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	s := newStore(t, srv)
	p := countPolicy
	p.HalfOpenCalls, p.MinimumCalls, p.CountWindow = 1, 1, 1
	r := runtime.FleetSync{Key: "k", Policy: p}
	g := sync1(t, s, r).Gen
	r.Gen, r.Closed = g, runtime.FleetCounts{Failed: 1}
	check(t, "opened", sync1(t, s, r), g+1, runtime.StateOpen, 1, 1, 0, runtime.FleetCauseWindow)
	time.Sleep(160 * time.Millisecond)
	r.Closed, r.Want = runtime.FleetCounts{}, 3
	if st := sync1(t, s, r); st.State != runtime.StateHalfOpen || st.Granted != 1 {
		t.Fatalf("%+v, want half-open with 1 permit", st)
	}
	r.Gen, r.Want, r.Trials = g+2, 0, runtime.FleetCounts{OK: 3, Slow: 1, Failed: 1}
	st := sync1(t, s, r)
	check(t, "trials", st, g+3, runtime.StateOpen, 1, 1, 0, runtime.FleetCauseTrials)
	if st.OpenFor <= 0 {
		t.Fatalf("reopened with OpenFor %v", st.OpenFor)
	}
}

// TestCountWindowEvicts: the count window keeps the last CountWindow
// outcomes, a batch in the order OK, Slow, Failed, FailedSlow.
func TestCountWindowEvicts(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	s := newStore(t, srv)
	p := countPolicy
	p.CountWindow, p.MinimumCalls, p.FailureRateThreshold = 3, 3, 100
	r := runtime.FleetSync{Key: "k", Policy: p}
	g := sync1(t, s, r).Gen
	r.Gen, r.Closed = g, runtime.FleetCounts{OK: 1, Slow: 1, Failed: 1, FailedSlow: 1}
	check(t, "last 3 of o s f x", sync1(t, s, r), g, runtime.StateClosed, 3, 2, 2, runtime.FleetCauseNone)
	r.Closed = runtime.FleetCounts{OK: 1}
	check(t, "s evicted", sync1(t, s, r), g, runtime.StateClosed, 3, 2, 1, runtime.FleetCauseNone)
	r.Closed = runtime.FleetCounts{OK: 2}
	check(t, "f, x evicted", sync1(t, s, r), g, runtime.StateClosed, 3, 0, 0, runtime.FleetCauseNone)
	r.Closed = runtime.FleetCounts{Failed: 2500}
	check(t, "a batch of many failures", sync1(t, s, r), g+1, runtime.StateOpen, 3, 3, 0, runtime.FleetCauseWindow)
	if n, err := srv.Client().Exists(context.Background(), s.prefix+":{k}:w").Result(); err != nil || n != 0 {
		t.Fatalf("window still there after open (%d, %v)", n, err)
	}
}

// TestTimeWindow: a time window counts the calls of the last whole
// seconds by the store's clock, bucket by bucket; old ones drop out even
// without calls.
func TestTimeWindow(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	s := newStore(t, srv)
	p := countPolicy
	p.CountWindow, p.TimeWindow, p.MinimumCalls = 0, 1500*time.Millisecond, 100 // 2 buckets
	r := runtime.FleetSync{Key: "k", Policy: p}
	g := sync1(t, s, r).Gen
	// Each step 100 ms into the next second of the store's clock.
	nextSecond := func() {
		now, err := srv.Client().Time(context.Background()).Result()
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second - time.Duration(now.Nanosecond()) + 100*time.Millisecond)
	}
	nextSecond()
	r.Gen, r.Closed = g, runtime.FleetCounts{OK: 3, Failed: 2}
	check(t, "5 calls", sync1(t, s, r), g, runtime.StateClosed, 5, 2, 0, runtime.FleetCauseNone)
	ttl, err := srv.Client().PTTL(context.Background(), s.prefix+":{k}:w").Result()
	if err != nil || ttl < time.Minute || ttl > 2*time.Minute {
		t.Fatalf("window TTL %v (%v), want max(1.5s, 1m) + 1m", ttl, err)
	}
	nextSecond()
	r.Closed = runtime.FleetCounts{Slow: 1, FailedSlow: 1}
	check(t, "the next second", sync1(t, s, r), g, runtime.StateClosed, 7, 3, 2, runtime.FleetCauseNone)
	r.Closed = runtime.FleetCounts{}
	nextSecond()
	check(t, "the first second out", sync1(t, s, r), g, runtime.StateClosed, 2, 1, 2, runtime.FleetCauseNone)
	nextSecond()
	check(t, "both out", sync1(t, s, r), g, runtime.StateClosed, 0, 0, 0, runtime.FleetCauseNone)
}

// TestPermitLease: permits nobody reported for PermitLease are offered again.
func TestPermitLease(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	s := newStore(t, srv)
	p := countPolicy
	p.MinimumCalls, p.WaitInOpen, p.PermitLease = 1, 10*time.Millisecond, 300*time.Millisecond
	r := runtime.FleetSync{Key: "k", Policy: p}
	g := sync1(t, s, r).Gen
	r.Gen, r.Closed = g, runtime.FleetCounts{Failed: 1}
	sync1(t, s, r)
	time.Sleep(20 * time.Millisecond)
	r.Closed, r.Want = runtime.FleetCounts{}, 2
	if st := sync1(t, s, r); st.Granted != 2 {
		t.Fatalf("granted %d, want 2", st.Granted)
	}
	if st := sync1(t, s, r); st.Granted != 0 {
		t.Fatalf("granted %d within the lease, want 0", st.Granted)
	}
	time.Sleep(310 * time.Millisecond)
	if st := sync1(t, s, r); st.Granted != 2 {
		t.Fatalf("granted %d after the lease, want 2", st.Granted)
	}
}

// TestPipelined: one Sync of many requests is one round trip, and each
// request gets its own answer.
func TestPipelined(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	rdb := srv.Client()
	var calls atomic.Int64
	rdb.AddHook(countHook{&calls})
	s, err := NewStore(rdb, "pipe")
	if err != nil {
		t.Fatal(err)
	}
	reqs := make([]runtime.FleetSync, 20)
	for i := range reqs {
		reqs[i] = runtime.FleetSync{Key: fmt.Sprint("k", i), Policy: countPolicy}
	}
	out, err := s.Sync(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range reqs {
		reqs[i].Gen, reqs[i].Closed = out[i].Gen, runtime.FleetCounts{OK: int64(i % 4)}
	}
	calls.Store(0)
	if out, err = s.Sync(context.Background(), reqs); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d round trips for one Sync, want 1", n)
	}
	for i, st := range out {
		if st.Key != reqs[i].Key || st.Calls != int64(i%4) {
			t.Fatalf("answer %d: %+v", i, st)
		}
	}
}

// countHook counts round trips: single commands and pipelines.
type countHook struct{ n *atomic.Int64 }

func (countHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { h.n.Add(1); return next(ctx, cmd) }
}
func (h countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { h.n.Add(1); return next(ctx, cmds) }
}

// TestKeysExpireInOneSlot: a breaker's two keys carry the breaker key as
// their hash tag, and expire (state 24h, a count window with it).
func TestKeysExpireInOneSlot(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	s := newStore(t, srv)
	r := runtime.FleetSync{Key: "svc#0123456789abcdef", Policy: countPolicy}
	r.Gen = sync1(t, s, r).Gen
	r.Closed = runtime.FleetCounts{OK: 1}
	sync1(t, s, r)
	ctx := context.Background()
	rdb := srv.Client()
	keys, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{s.prefix + ":{svc#0123456789abcdef}:s": true, s.prefix + ":{svc#0123456789abcdef}:w": true}
	if len(keys) != 2 || !want[keys[0]] || !want[keys[1]] {
		t.Fatalf("keys %q, want %v", keys, want)
	}
	for _, k := range keys {
		if tag := hashTag(k); tag != r.Key {
			t.Fatalf("%s: hash tag %q, want the breaker key", k, tag)
		}
		ttl, err := rdb.PTTL(ctx, k).Result()
		if err != nil || ttl < 23*time.Hour || ttl > 24*time.Hour {
			t.Fatalf("%s: TTL %v (%v), want 24h", k, ttl, err)
		}
	}
}

// hashTag is the part of a key Redis Cluster hashes (the cluster spec's
// rule: the first "{" and the next "}", if not empty).
func hashTag(k string) string {
	i := strings.IndexByte(k, '{')
	if i < 0 {
		return k
	}
	j := strings.IndexByte(k[i+1:], '}')
	if j <= 0 {
		return k
	}
	return k[i+1 : i+1+j]
}

// TestNoScript: after SCRIPT FLUSH the next Sync loads the script again,
// and applies each request once.
func TestNoScript(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	s := newStore(t, srv)
	r := runtime.FleetSync{Key: "k", Policy: countPolicy}
	r.Gen = sync1(t, s, r).Gen
	if err := srv.Client().ScriptFlush(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	r.Closed = runtime.FleetCounts{OK: 1}
	check(t, "after SCRIPT FLUSH", sync1(t, s, r), r.Gen, runtime.StateClosed, 1, 0, 0, runtime.FleetCauseNone)
	check(t, "again", sync1(t, s, r), r.Gen, runtime.StateClosed, 2, 0, 0, runtime.FleetCauseNone)
}

// TestWatchServerKilled: Watch returns an error when the server dies, and
// a new Watch works once it is back (as the Fleet's loop does).
func TestWatchServerKilled(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	s := newStore(t, srv)
	errc := make(chan error, 1)
	ready := make(chan struct{})
	go func() { errc <- s.Watch(context.Background(), func() { close(ready) }, func(runtime.FleetState) {}) }()
	<-ready
	srv.Kill()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("Watch returned nil when the server died")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Watch still running 5s after the server died")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	_, err := s.Sync(ctx, []runtime.FleetSync{{Key: "k", Policy: countPolicy}})
	cancel()
	if err == nil {
		t.Fatal("Sync without a server succeeded")
	}
	if err := s.Watch(context.Background(), func() { t.Error("ready without a server") }, nil); err == nil {
		t.Fatal("Watch without a server returned nil")
	}

	srv.Restart()
	w := watch(t, s)
	r := runtime.FleetSync{Key: "k", Policy: countPolicy}
	r.Gen = sync1(t, s, r).Gen
	r.Closed = runtime.FleetCounts{Failed: 4}
	sync1(t, s, r)
	if m := w.wait(t, 1); m.State != runtime.StateOpen {
		t.Fatalf("after restart: published %+v", m)
	}
}

// TestOtherPrefixIgnored: a Store sees its own prefix's changes only,
// and skips (and counts) messages on its channel that are not states.
func TestOtherPrefixIgnored(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	rdb := srv.Client()
	a, _ := NewStore(rdb, "fleet")
	b, _ := NewStore(rdb, "fleet:fleet")
	w := watch(t, a)
	r := runtime.FleetSync{Key: "k", Policy: countPolicy}
	r.Gen = sync1(t, b, r).Gen
	r.Closed = runtime.FleetCounts{Failed: 4}
	check(t, "b opens", sync1(t, b, r), r.Gen+1, runtime.StateOpen, 4, 4, 0, runtime.FleetCauseWindow)
	// a's breaker of the same key is its own.
	if st := sync1(t, a, runtime.FleetSync{Key: "k", Policy: countPolicy}); st.State != runtime.StateClosed || st.Gen == r.Gen+1 {
		t.Fatalf("a's breaker: %+v", st)
	}
	ctx := context.Background()
	for _, m := range []string{"not json", `{"Key":"k","Gen":1,"State":7}`, `{"Key":"","Gen":1}`,
		`{"Key":"k","Gen":1,"Calls":1,"Failed":2}`, `{"Key":"k","Gen":-1}`, `{"Key":"` + strings.Repeat("k", maxMessage) + `","Gen":1}`,
		`{"Key":"~00","Gen":1}`, // a digest this store never synced
		`{"Key":"k\n{x}","Gen":5,"State":1,"OpenFor":1000000,"Calls":3,"Failed":2,"Slow":1,"Cause":1,"Granted":9,"Later":{"a":[1]}}`,
	} {
		if err := rdb.Publish(ctx, a.channel, m).Err(); err != nil {
			t.Fatal(err)
		}
	}
	want := runtime.FleetState{Key: "k\n{x}", Gen: 5, State: runtime.StateOpen, OpenFor: time.Millisecond, Calls: 3, Failed: 2, Slow: 1, Cause: runtime.FleetCauseWindow}
	if got := w.wait(t, 1); got != want {
		t.Fatalf("delivered %+v, want %+v", got, want)
	}
	if n := w.count(); n != 1 {
		t.Fatalf("%d states delivered, want only the good one", n)
	}
	if n := a.BadMessages(); n != 7 {
		t.Fatalf("%d bad messages counted, want 7", n)
	}
}

// TestHostileNames: prefixes that could break the key layout are
// refused; any breaker key works, keeps its own two keys, and comes back
// intact in messages.
func TestHostileNames(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	rdb := srv.Client()
	for _, p := range []string{"", "a{b", "a}b", "a\nb", "a\x00", strings.Repeat("p", MaxPrefix+1), "\xff"} {
		if _, err := NewStore(rdb, p); err == nil {
			t.Errorf("NewStore(%q) accepted", p)
		}
	}
	if _, err := NewStore(rdb, strings.Repeat("p", MaxPrefix)); err != nil {
		t.Errorf("a prefix of MaxPrefix bytes: %v", err)
	}
	s := newStore(t, srv)
	w := watch(t, s)
	keys := []string{"x", "x}:w", "x}:s", "{x}", "a\nb\r\"\\/", "~x", "\xff\xfe", strings.Repeat("m", 1<<20), "ключ#0"}
	gens := map[string]uint64{}
	for _, k := range keys {
		r := runtime.FleetSync{Key: k, Policy: countPolicy}
		gens[k] = sync1(t, s, r).Gen
	}
	// Each key its own breaker: open them one by one, each message names it.
	for i, k := range keys {
		r := runtime.FleetSync{Key: k, Policy: countPolicy, Gen: gens[k], Closed: runtime.FleetCounts{Failed: 4}}
		check(t, "open", sync1(t, s, r), gens[k]+1, runtime.StateOpen, 4, 4, 0, runtime.FleetCauseWindow)
		if m := w.wait(t, i+1); m.Key != k || m.Gen != gens[k]+1 {
			t.Fatalf("message for key %.40q: key %.40q gen %d", k, m.Key, m.Gen)
		}
	}
	n, err := rdb.DBSize(context.Background()).Result()
	if err != nil || n != int64(len(keys)) {
		t.Fatalf("%d keys (%v), want one state per breaker (windows emptied at open)", n, err)
	}
	all, _ := rdb.Keys(context.Background(), "*").Result()
	for _, k := range all {
		if len(k) > len(s.prefix)+600 {
			t.Fatalf("a Redis key of %d bytes", len(k))
		}
	}
}

// TestMessageIsFleetStateJSON: a message is what encoding/json makes of
// a FleetState (Granted aside), so any JSON encoder can speak it.
func TestMessageIsFleetStateJSON(t *testing.T) {
	s, err := NewStore(redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}), "p")
	if err != nil {
		t.Fatal(err)
	}
	defer s.rdb.Close()
	want := runtime.FleetState{Key: "k\n\"", Gen: 1<<51 + 3, State: runtime.StateHalfOpen, OpenFor: 7 * time.Millisecond,
		Calls: 1, Failed: 1, Slow: 1, Cause: runtime.FleetCauseTrials, TrialCalls: 3, TrialFailed: 2, TrialSlow: 1}
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := s.decode(string(b)); !ok || got != want {
		t.Fatalf("decode(%s) = %+v, %v", b, got, ok)
	}
}

// TestConcurrentSyncsAtomic: replicas syncing one breaker at once lose
// no outcome, and the slow-call rate opens it like the failure rate.
func TestConcurrentSyncsAtomic(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	p := countPolicy
	p.CountWindow, p.MinimumCalls, p.FailureRateThreshold, p.SlowCallRateThreshold = 1000, 1000, 0, 10
	prefix := fmt.Sprintf("t%d", prefixes.Add(1))
	replica := func() *Store {
		s, err := NewStore(srv.Client(), prefix)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := replica()
	r := runtime.FleetSync{Key: "k", Policy: p}
	g := sync1(t, s, r).Gen
	var wg sync.WaitGroup
	for range 5 {
		s := replica()
		wg.Go(func() {
			for range 20 {
				r := runtime.FleetSync{Key: "k", Policy: p, Gen: g, Closed: runtime.FleetCounts{OK: 2}}
				if _, err := s.Sync(context.Background(), []runtime.FleetSync{r}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	r.Gen = g
	check(t, "5 replicas × 20 syncs × 2", sync1(t, s, r), g, runtime.StateClosed, 200, 0, 0, runtime.FleetCauseNone)
	r.Closed = runtime.FleetCounts{OK: 700, Slow: 99}
	check(t, "999 calls, 99 slow", sync1(t, s, r), g, runtime.StateClosed, 999, 0, 99, runtime.FleetCauseNone)
	r.Closed = runtime.FleetCounts{Slow: 1}
	check(t, "1000 calls, 100 slow", sync1(t, s, r), g+1, runtime.StateOpen, 1000, 0, 100, runtime.FleetCauseWindow)
}

// TestForgottenBreakerNewGen: a breaker whose keys expired starts again
// at a generation above any it had.
func TestForgottenBreakerNewGen(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	s := newStore(t, srv)
	r := runtime.FleetSync{Key: "k", Policy: countPolicy}
	r.Gen = sync1(t, s, r).Gen
	r.Closed = runtime.FleetCounts{Failed: 4}
	old := sync1(t, s, r).Gen
	time.Sleep(2 * time.Millisecond)
	if err := srv.Client().FlushAll(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	if st := sync1(t, s, r); st.Gen <= old || st.State != runtime.StateClosed || st.Calls != 0 {
		t.Fatalf("after the keys went: %+v, want closed, empty, gen above %d", st, old)
	}
}

// TestWatchServerFrozen: a server that stops answering without closing
// the connection (a partition) ends Watch after a ping goes unanswered.
func TestWatchServerFrozen(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	s := newStore(t, srv)
	s.watchPing = 100 * time.Millisecond
	errc := make(chan error, 1)
	ready := make(chan struct{})
	go func() { errc <- s.Watch(context.Background(), func() { close(ready) }, func(runtime.FleetState) {}) }()
	<-ready
	time.Sleep(250 * time.Millisecond) // idle: pinged and answered
	select {
	case err := <-errc:
		t.Fatalf("Watch ended with %v while the server answered pings", err)
	default:
	}
	srv.Freeze()
	defer srv.Thaw()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("Watch returned nil for a frozen server")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Watch still running 2s after the server froze")
	}
}

// BenchmarkSync is one Sync of a replica with 10 closed breakers, each
// with a batch of outcomes: one round trip, ten script runs.
func BenchmarkSync(b *testing.B) {
	srv := redistest.Start(b)
	s, err := NewStore(srv.Client(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	p := countPolicy
	p.CountWindow, p.MinimumCalls = 100, 100
	reqs := make([]runtime.FleetSync, 10)
	for i := range reqs {
		reqs[i] = runtime.FleetSync{Key: fmt.Sprintf("svc%d#0123456789abcdef", i), Policy: p}
	}
	ctx := context.Background()
	out, err := s.Sync(ctx, reqs)
	if err != nil {
		b.Fatal(err)
	}
	for i := range reqs {
		reqs[i].Gen, reqs[i].Closed = out[i].Gen, runtime.FleetCounts{OK: 20}
	}
	for b.Loop() {
		if _, err := s.Sync(ctx, reqs); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCluster: on a Redis Cluster, which refuses a script whose keys are
// in different slots (CROSSSLOT), every breaker key, hostile ones too,
// has its two keys in one slot, and messages reach a subscriber.
func TestCluster(t *testing.T) {
	t.Parallel()
	srv := redistest.StartCluster(t)
	rdb := srv.ClusterClient()
	s, err := NewStore(rdb, "cl")
	if err != nil {
		t.Fatal(err)
	}
	w := watch(t, s)
	keys := []string{"svc#0123456789abcdef", "a}b", "{a}{b}", "}", "{", "", "x\n}:s{"}
	for i, k := range keys {
		r := runtime.FleetSync{Key: k, Policy: countPolicy}
		r.Gen = sync1(t, s, r).Gen
		r.Closed = runtime.FleetCounts{Failed: 4}
		check(t, "open", sync1(t, s, r), r.Gen+1, runtime.StateOpen, 4, 4, 0, runtime.FleetCauseWindow)
		if m := w.wait(t, i+1); m.Key != k {
			t.Fatalf("message for %q names %q", k, m.Key)
		}
		ctx := context.Background()
		base := "cl:{" + s.keyPart(k) + "}:"
		a, errA := rdb.ClusterKeySlot(ctx, base+"s").Result()
		b, errB := rdb.ClusterKeySlot(ctx, base+"w").Result()
		if errA != nil || errB != nil || a != b {
			t.Fatalf("key %q: slots %d, %d (%v, %v)", k, a, b, errA, errB)
		}
	}
}

// BenchmarkOpenPropagation is the time from the start of the Sync that
// opens a breaker on one replica's Store to another replica's Watch
// delivering it (the store's share of the open-propagation delay):
// reported as p50 and p99 over b.N opens.
func BenchmarkOpenPropagation(b *testing.B) {
	srv := redistest.Start(b)
	from, err := NewStore(srv.Client(), "prop")
	if err != nil {
		b.Fatal(err)
	}
	to, _ := NewStore(srv.Client(), "prop")
	got := make(chan time.Time, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ready := make(chan struct{})
	go func() {
		done <- to.Watch(ctx, func() { close(ready) }, func(st runtime.FleetState) {
			if st.State == runtime.StateOpen {
				got <- time.Now()
			}
		})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	}()
	<-ready
	var delays []time.Duration
	i := 0
	for b.Loop() {
		i++
		r := runtime.FleetSync{Key: fmt.Sprint("k", i), Policy: countPolicy}
		st, err := from.Sync(ctx, []runtime.FleetSync{r})
		if err != nil {
			b.Fatal(err)
		}
		r.Gen, r.Closed = st[0].Gen, runtime.FleetCounts{Failed: 4}
		start := time.Now()
		if _, err := from.Sync(ctx, []runtime.FleetSync{r}); err != nil {
			b.Fatal(err)
		}
		delays = append(delays, (<-got).Sub(start))
	}
	slices.Sort(delays)
	b.ReportMetric(float64(delays[len(delays)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(delays[len(delays)*99/100].Microseconds()), "p99-µs")
}
