package resgenredis_test

// What a fleet of breakers promises, shown end to end: five generated lab
// clients (golden/lab,
// WithFleet) in one process act as the replicas of a service, each with
// its own go-redis client and Fleet, against a real redis-server and
// httptest servers on loopback. Retries are turned off by an override so
// that every call is one server hit; the waits are shortened by overrides
// of the spec's breakers.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resgen/resgen/golden/lab"
	"github.com/resgen/resgen/redis/redistest"
	"github.com/resgen/resgen/runtime"
)

// testSync is the replicas' SyncInterval.
const testSync = 50 * time.Millisecond

// logRecorder is a slog.Handler that keeps the records it is given.
type logRecorder struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *logRecorder) WithGroup(string) slog.Handler            { return r }
func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	r.recs = append(r.recs, rec.Clone())
	r.mu.Unlock()
	return nil
}

// transitions is the Fleet's fallback (F) and resume (R) lines in order.
func (r *logRecorder) transitions() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, rec := range r.recs {
		switch {
		case rec.Level == slog.LevelWarn && strings.Contains(rec.Message, "unreachable"):
			b.WriteByte('F')
		case rec.Level == slog.LevelInfo && strings.Contains(rec.Message, "reachable again"):
			b.WriteByte('R')
		}
	}
	return b.String()
}

// String lists the records, for a failure's message.
func (r *logRecorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, rec := range r.recs {
		fmt.Fprintf(&b, "\n\t%s %s %s", rec.Time.Format("15:04:05.000"), rec.Level, rec.Message)
		rec.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, " %s", a); return true })
	}
	return b.String()
}

// server is a loopback server whose status and delay a test sets, and
// which counts its hits.
type server struct {
	*httptest.Server
	status atomic.Int32
	delay  atomic.Int64 // time.Duration
	hits   atomic.Int64
}

func newServer(t *testing.T) *server {
	s := &server{}
	s.status.Store(http.StatusOK)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.hits.Add(1)
		time.Sleep(time.Duration(s.delay.Load()))
		w.WriteHeader(int(s.status.Load()))
	}))
	t.Cleanup(func() {
		s.Close()
		s.Client().CloseIdleConnections()
	})
	return s
}

// replica is one generated client of a fleet.
type replica struct {
	c   *lab.Client
	log *logRecorder // its Fleet's log
}

// testOverrides: single attempts, and waits short enough for a test.
const testOverrides = `{
  "retries": {"default": {"maxAttempts": 1}},
  "breakers": {
    "downstream": {"waitInOpen": "1s"},
    "slowcalls": {"slowCallDuration": "20ms", "waitInOpen": "2s"}
  }
}`

// newReplicas makes n replicas of the fleet prefix on the Redis at addr,
// calling s, and waits until every one has synced with the store.
func newReplicas(t *testing.T, addr, prefix string, n int, s *server) []*replica {
	t.Helper()
	o := overrides(t, testOverrides)
	rs := make([]*replica, n)
	for i := range rs {
		rec := new(logRecorder)
		opt, closeFleet, err := fleetOption(newRedisClient(t, addr), prefix, testSync, slog.New(rec))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { closeFleet() })
		rs[i] = &replica{c: newLabClient(t, s.URL, lab.WithHTTPClient(s.Client()), lab.WithOverrides(o), opt), log: rec}
	}
	// The breakers joined at NewClient; a replica counts for the fleet
	// from its first answered Sync.
	time.Sleep(3 * testSync)
	return rs
}

func isRefusal(err error) bool { return errors.As(err, new(*runtime.CircuitOpenError)) }

// eachReplica runs fn for every replica at once and waits.
func eachReplica(rs []*replica, fn func(i int, r *replica)) {
	var wg sync.WaitGroup
	for i, r := range rs {
		wg.Go(func() { fn(i, r) })
	}
	wg.Wait()
}

// waitFor polls cond until it holds or within passes.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > within {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(time.Millisecond)
	}
	return time.Since(start)
}

func allIn(rs []*replica, breaker string, st runtime.State) func() bool {
	return func() bool {
		for _, r := range rs {
			if r.c.Breakers()[breaker].State() != st {
				return false
			}
		}
		return true
	}
}

// failSpread makes each replica call getStatus per times at once against
// the failing s, and checks each call reached the server and failed.
func failSpread(t *testing.T, rs []*replica, per int) {
	t.Helper()
	var refused atomic.Int64
	eachReplica(rs, func(_ int, r *replica) {
		for range per {
			_, err := r.c.GetStatus(context.Background())
			if err == nil || isRefusal(err) {
				refused.Add(1)
			}
		}
	})
	if refused.Load() > 0 {
		t.Fatalf("%d calls did not fail at the server", refused.Load())
	}
}

// openFleet: 5 replicas × 2 failing calls = the downstream breaker's
// minimumCalls (10) in total, which no replica reaches alone, open every
// replica's breaker within a few sync intervals; then every replica
// refuses, and the server sees no call after the 10.
func openFleet(t *testing.T, rs []*replica, s *server) {
	t.Helper()
	s.status.Store(http.StatusInternalServerError)
	before := s.hits.Load()
	failSpread(t, rs, 2)
	took := waitFor(t, 10*testSync, "every replica's breaker open", allIn(rs, lab.BreakerDownstream, runtime.StateOpen))
	t.Logf("every replica open %s after the last failure", took)
	for i, r := range rs {
		if _, err := r.c.GetStatus(context.Background()); !isRefusal(err) {
			t.Fatalf("replica %d after the fleet opened: %v, want a refusal", i, err)
		}
	}
	if n := s.hits.Load() - before; n != 10 {
		t.Fatalf("the server saw %d calls, want the 10 that opened the fleet", n)
	}
}

// TestFleetOpensOnFailuresAcrossReplicas: the fleet opens after
// minimumCalls failures in total across the replicas, and every replica
// rejects once the open is published.
func TestFleetOpensOnFailuresAcrossReplicas(t *testing.T) {
	srv := redistest.Start(t)
	s := newServer(t)
	openFleet(t, newReplicas(t, srv.Addr(), uniquePrefix("open"), 5, s), s)
}

// TestFleetHalfOpenTrialsFleetWide: at half-open the whole fleet sends
// halfOpenCalls (3) trial calls, not 3 per replica: 5 replicas call the
// failing server all through the first half-open, and it sees 3 calls
// between the open and the next open's end (the trials fail, so the
// breaker opens again for its 1 s wait).
func TestFleetHalfOpenTrialsFleetWide(t *testing.T) {
	srv := redistest.Start(t)
	s := newServer(t)
	rs := newReplicas(t, srv.Addr(), uniquePrefix("trials"), 5, s)
	openFleet(t, rs, s)
	opened := time.Now()
	before := s.hits.Load()
	// The trials go out about 1 s after the open; the next half-open is
	// 1 s after they fail. Stop in between.
	until := opened.Add(1500 * time.Millisecond)
	eachReplica(rs, func(_ int, r *replica) {
		for time.Now().Before(until) {
			r.c.GetStatus(context.Background())
			time.Sleep(2 * time.Millisecond)
		}
	})
	if n := s.hits.Load() - before; n != 3 {
		t.Fatalf("the server saw %d trial calls from 5 replicas, want halfOpenCalls = 3 in all", n)
	}
	if !allIn(rs, lab.BreakerDownstream, runtime.StateOpen)() {
		t.Fatal("the failed trials did not open every replica's breaker again")
	}
}

// latencies collects call durations from many goroutines.
type latencies struct {
	mu sync.Mutex
	ds []time.Duration
}

func (l *latencies) add(d time.Duration) { l.mu.Lock(); l.ds = append(l.ds, d); l.mu.Unlock() }

func (l *latencies) p(pct int) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	ds := slices.Clone(l.ds)
	slices.Sort(ds)
	return ds[min(len(ds)*pct/100, len(ds)-1)]
}

// TestFleetRedisOutage: Redis hung (SIGSTOP), then killed, while 5
// replicas call a healthy server: every replica falls back within a few
// sync intervals, every call still reaches the server and succeeds, none
// is slower for it, and each replica logs the fallback once (once per
// real change: see fallbacks), nothing while Redis is dead; meanwhile each
// replica's breaker decides alone (one replica's failures open its own
// breaker only). Redis restarted: each replica logs the resume once and
// the breakers are shared again (failures spread over the replicas open
// them all).
func TestFleetRedisOutage(t *testing.T) {
	srv := redistest.Start(t)
	s := newServer(t)
	rs := newReplicas(t, srv.Addr(), uniquePrefix("outage"), 5, s)

	var calls, failed atomic.Int64
	var before, during latencies
	var down atomic.Bool
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, r := range rs {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				t0 := time.Now()
				_, err := r.c.GetStatus(context.Background())
				d := time.Since(t0)
				calls.Add(1)
				if err != nil {
					failed.Add(1)
				}
				if down.Load() {
					during.add(d)
				} else {
					before.add(d)
				}
				time.Sleep(time.Millisecond)
			}
		})
	}
	time.Sleep(10 * testSync)
	// First Redis hangs (a partition: every command waits for its
	// timeout), then it dies.
	down.Store(true)
	srv.Freeze()
	fellBack := waitFor(t, 20*testSync, "every replica's fallback line", func() bool {
		for _, r := range rs {
			if !strings.HasSuffix(r.log.transitions(), "F") {
				return false
			}
		}
		return true
	})
	time.Sleep(10 * testSync)
	srv.Kill()
	time.Sleep(10 * testSync)
	close(stop)
	wg.Wait()
	if failed.Load() > 0 {
		t.Fatalf("%d of %d calls failed", failed.Load(), calls.Load())
	}
	if h, c := s.hits.Load(), calls.Load(); h != c {
		t.Fatalf("%d calls, %d reached the server", c, h)
	}
	// A call that waited for Redis would take its sync timeout (half an
	// interval) or more: the calls with Redis down are as fast as before,
	// within what a loaded machine's noise allows.
	for _, p := range []int{50, 90} {
		if b, d := before.p(p), during.p(p); d > 3*b+5*time.Millisecond {
			t.Fatalf("p%d call latency %s with Redis down, %s before", p, d, b)
		}
	}
	t.Logf("fallback logged %s after Redis hung (sync interval %s); call latency p50 %s → %s, p90 %s → %s (%d calls)",
		fellBack, testSync, before.p(50), during.p(50), before.p(90), during.p(90), calls.Load())
	// One fallback line per replica; a second only after a resume line,
	// when a Sync sent before the freeze answered after the fallback (a
	// loaded machine can delay one that long).
	dead := make([]string, len(rs))
	for i, r := range rs {
		dead[i] = r.log.transitions()
		if !fallbacks.MatchString(dead[i]) {
			t.Fatalf("replica %d's fallback (F) and resume (R) lines: %s, want F, or F after each R:%s", i, dead[i], r.log)
		}
		if dead[i] != "F" {
			t.Logf("replica %d: a late Sync answered after the fallback: %s", i, dead[i])
		}
	}

	// Local decisions: replica 0's 10 failures open its breaker only.
	s.status.Store(http.StatusInternalServerError)
	failSpread(t, rs[:1], 10)
	waitFor(t, time.Second, "replica 0's local breaker open", allIn(rs[:1], lab.BreakerDownstream, runtime.StateOpen))
	for i, r := range rs[1:] {
		if _, err := r.c.GetStatus(context.Background()); err == nil || isRefusal(err) {
			t.Fatalf("replica %d while Redis is down: %v, want the server's failure", i+1, err)
		}
	}

	for i, r := range rs {
		if got := r.log.transitions(); got != dead[i] {
			t.Fatalf("replica %d logged %s while Redis was dead, want no line", i, got[len(dead[i]):])
		}
	}
	srv.Restart()
	for i, r := range rs {
		waitFor(t, 5*time.Second, "the resume line", func() bool { return r.log.transitions() != dead[i] })
		if got := r.log.transitions(); got != dead[i]+"R" {
			t.Fatalf("replica %d after the restart: %s, want one resume line:%s", i, got[len(dead[i]):], r.log)
		}
	}
	// Replica 0's local open ends with its wait (1 s): let it, so that the
	// fleet's state is what every replica shows.
	waitFor(t, 2*time.Second, "every replica closed (the fleet's new breaker)", allIn(rs, lab.BreakerDownstream, runtime.StateClosed))
	time.Sleep(3 * testSync)
	openFleet(t, rs, s)
	for i, r := range rs {
		if got := r.log.transitions(); got != dead[i]+"R" {
			t.Fatalf("replica %d logged %s after the resume, want no line:%s", i, got[len(dead[i])+1:], r.log)
		}
	}
}

// fallbacks is a replica's fallback (F) and resume (R) lines while the
// store is down: one fallback, or more with a resume before each.
var fallbacks = regexp.MustCompile(`^F(RF)*$`)

// TestFleetPrefixesDoNotInterfere: two fleets on one Redis with the same
// breakers under different prefixes: one's open leaves the other closed,
// and the failures that opened it are not in the other's window (9 more
// failures there do not reach its minimumCalls of 10).
func TestFleetPrefixesDoNotInterfere(t *testing.T) {
	srv := redistest.Start(t)
	s := newServer(t)
	a := newReplicas(t, srv.Addr(), uniquePrefix("a"), 5, s)
	b := newReplicas(t, srv.Addr(), uniquePrefix("b"), 3, s)
	openFleet(t, a, s)
	time.Sleep(3 * testSync)
	before := s.hits.Load()
	failSpread(t, b, 3)
	time.Sleep(3 * testSync)
	if !allIn(b, lab.BreakerDownstream, runtime.StateClosed)() {
		t.Fatal("the other prefix's breakers left closed")
	}
	s.status.Store(http.StatusOK)
	for i, r := range b {
		if _, err := r.c.GetStatus(context.Background()); err != nil {
			t.Fatalf("fleet b replica %d: %v", i, err)
		}
	}
	if n := s.hits.Load() - before; n != 9+3 {
		t.Fatalf("the server saw %d calls from fleet b, want 12", n)
	}
}

// TestFleetSlowCallsShared: the slowcalls breaker (window 10, minimum 10,
// 50% slow) opens on slow calls spread over the replicas: 2 slow
// successes each, which no replica reaches the minimum with alone.
func TestFleetSlowCallsShared(t *testing.T) {
	srv := redistest.Start(t)
	s := newServer(t)
	rs := newReplicas(t, srv.Addr(), uniquePrefix("slow"), 5, s)
	s.delay.Store(int64(30 * time.Millisecond))
	eachReplica(rs, func(i int, r *replica) {
		for range 2 {
			if _, err := r.c.SlowReport(context.Background()); err != nil {
				t.Errorf("replica %d: %v", i, err)
			}
		}
	})
	waitFor(t, 10*testSync, "every replica's slowcalls breaker open", allIn(rs, lab.BreakerSlowcalls, runtime.StateOpen))
	before := s.hits.Load()
	for i, r := range rs {
		if _, err := r.c.SlowReport(context.Background()); !isRefusal(err) {
			t.Fatalf("replica %d: %v, want a refusal", i, err)
		}
	}
	if n := s.hits.Load() - before; n != 0 {
		t.Fatalf("%d calls reached the server after the open", n)
	}
}

// TestFleetCallsSendNoRedisCommands: a call sends nothing to Redis: 2000
// calls through a fleet breaker cost only the sync loop's commands, which
// grow with time, not with the calls (counted by a go-redis hook).
func TestFleetCallsSendNoRedisCommands(t *testing.T) {
	srv := redistest.Start(t)
	s := newServer(t)
	h := new(cmdCounter)
	opt, closeFleet, err := fleetOption(countedClient(t, srv.Addr(), h), uniquePrefix("cmds"), testSync, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeFleet() })
	c := newLabClient(t, s.URL, lab.WithHTTPClient(s.Client()), opt)
	time.Sleep(3 * testSync)
	const calls = 2000
	before, t0 := h.trips.Load(), time.Now()
	for range calls {
		if _, err := c.GetStatus(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	trips, took := h.trips.Load()-before, time.Since(t0)
	// One Sync (a pipeline, one round trip) per interval, and slack for
	// the watch's reconnects: far from one per call.
	if limit := int64(took/testSync) + 5; trips > limit {
		t.Fatalf("%d calls in %s made %d Redis round trips, want at most %d (the sync loop's)", calls, took, trips, limit)
	}
	t.Logf("%d calls in %s: %d Redis round trips", calls, took, trips)
}
