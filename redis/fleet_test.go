package resgenredis

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resgen/resgen/redis/redistest"
	"github.com/resgen/resgen/runtime"
)

// syncBuffer is a log the Fleet's goroutines write while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// replica is one engine with its own Redis client and Fleet.
type replica struct {
	b   *runtime.Breaker
	op  *runtime.Operation
	log *syncBuffer
}

func newReplicas(t *testing.T, srv *redistest.Server, prefix string, n int, p runtime.BreakerPolicy) []*replica {
	t.Helper()
	rs := make([]*replica, n)
	for i := range rs {
		log := &syncBuffer{}
		lg := slog.New(slog.NewTextHandler(log, nil))
		f, err := NewFleet(srv.Client(), prefix, runtime.FleetOptions{SyncInterval: 50 * time.Millisecond, Logger: lg})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		e := runtime.NewEngine(runtime.Config{Logger: lg, Fleet: f})
		b := e.Breaker("downstream", p)
		rs[i] = &replica{b: b, op: e.Operation(runtime.OperationSpec{Name: "op", Method: "GET", Path: "/", Breaker: b}), log: log}
	}
	return rs
}

func (r *replica) call(t *testing.T, url string) (int, error) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, n, err := r.op.Do(context.Background(), req)
	if resp != nil {
		resp.Body.Close()
	}
	return n, err
}

// allIn says whether every replica's breaker is in state st.
func allIn(rs []*replica, st runtime.State) bool {
	for _, r := range rs {
		if r.b.State() != st {
			return false
		}
	}
	return true
}

// failAcross makes 10 failing calls, dealt round robin over rs (2 each
// for 5: fewer than any local breaker opens on), none of which may fail
// for another reason.
func failAcross(t *testing.T, rs []*replica, url string) {
	t.Helper()
	for i := range 10 {
		if _, err := rs[i%len(rs)].call(t, url); err != nil {
			t.Fatalf("closed call %d: %v", i, err)
		}
	}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}

// TestFleetOnRedis: five replicas, each with its own client and Fleet,
// share one breaker through a real Redis: it opens on the failures of all
// of them, every replica refuses at once; with Redis killed the replicas
// fall back to their local breakers and no call fails for it; with Redis
// back, sharing resumes; a fleet under another prefix is not touched.
func TestFleetOnRedis(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer down.Close()
	srv := redistest.Start(t)
	p := runtime.DefaultBreakerPolicy()
	p.WindowSize, p.MinimumCalls, p.FailureRateThreshold, p.SlowCallRateThreshold = 20, 10, 50, 0
	p.WaitInOpen, p.HalfOpenCalls = time.Minute, 2
	rs := newReplicas(t, srv, "fleet", 5, p)
	other := newReplicas(t, srv, "other", 1, p)[0]
	// Let every replica's first Sync land: calls before it count locally.
	time.Sleep(200 * time.Millisecond)
	failAcross(t, rs, down.URL)
	eventually(t, "every replica sees the fleet open", func() bool { return allIn(rs, runtime.StateOpen) })
	for _, r := range rs {
		var coe *runtime.CircuitOpenError
		if n, err := r.call(t, down.URL); !errors.As(err, &coe) || n != 0 {
			t.Fatalf("open fleet: %d attempts, %v", n, err)
		}
	}
	if n := hits.Load(); n != 10 {
		t.Fatalf("the downstream saw %d calls, want 10", n)
	}
	if st := other.b.State(); st != runtime.StateClosed {
		t.Fatalf("the other prefix's breaker is %v", st)
	}

	// Redis gone: the fleet's open holds (its wait is 1m), and the other
	// fleet's calls go on, on the local breaker, none failing for Redis.
	logged := len(other.log.String())
	srv.Kill()
	eventually(t, "the fallback line", func() bool {
		return strings.Contains(other.log.String()[logged:], "store unreachable")
	})
	for i := range 3 {
		if n, err := other.call(t, down.URL); n != 1 || err != nil {
			t.Fatalf("call %d without Redis: %d attempts, %v", i, n, err)
		}
	}
	for _, r := range rs {
		if _, err := r.call(t, down.URL); !errors.As(err, new(*runtime.CircuitOpenError)) {
			t.Fatalf("fleet open during the outage: %v, want refused", err)
		}
	}

	// Redis back, empty: sharing resumes on a fresh breaker.
	srv.Restart()
	eventually(t, "the resume line", func() bool {
		return strings.Contains(other.log.String()[logged:], "store reachable again")
	})
	if got := other.log.String()[logged:]; strings.Count(got, "store unreachable") != 1 {
		t.Fatalf("fallback logged more than once:\n%s", got)
	}
	// The new Redis knows no breaker: a new generation, closed, which
	// every replica takes, and which opens again for all on 10 failures.
	eventually(t, "every replica takes the new, closed state", func() bool { return allIn(rs, runtime.StateClosed) })
	hits.Store(0)
	failAcross(t, rs, down.URL)
	eventually(t, "every replica sees the fleet open again", func() bool { return allIn(rs, runtime.StateOpen) })
	if n := hits.Load(); n != 10 {
		t.Fatalf("the downstream saw %d calls after the restart, want 10", n)
	}
}
