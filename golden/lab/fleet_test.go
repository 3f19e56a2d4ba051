package lab

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
)

// TestWithFleetSharesTheBreaker: two generated clients (two replicas)
// with WithFleet on one store share breaker "downstream" (count window 20,
// minimum 10 calls, 50%): 5 failed calls each open it for both, which 5
// calls of one client alone would not, and then neither sends a request.
// Without WithFleet the same calls leave both breakers closed.
func TestWithFleetSharesTheBreaker(t *testing.T) {
	const sync = 10 * time.Millisecond
	for _, shared := range []bool{true, false} {
		var hits atomic.Int64
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			hits.Add(1)
			w.WriteHeader(http.StatusServiceUnavailable)
		}))
		store := runtime.NewMemoryFleetStore()
		var clients [2]*Client
		for i := range clients {
			opts := []Option{WithHTTPClient(s.Client()), WithLogger(slog.New(slog.DiscardHandler)), WithCallOptions(runtime.WithNoRetry())}
			if shared {
				f := runtime.NewFleet(store, runtime.FleetOptions{SyncInterval: sync, Logger: slog.New(slog.DiscardHandler)})
				defer f.Close()
				opts = append(opts, WithFleet(f))
			}
			c, err := NewClient(s.URL, opts...)
			if err != nil {
				t.Fatal(err)
			}
			clients[i] = c
		}
		// A breaker shares once its Fleet's first Sync has answered (at
		// once, as it joins); until then it decides locally.
		time.Sleep(10 * sync)
		ctx := context.Background()
		for range 5 {
			for _, c := range clients {
				if _, err := c.GetStatus(ctx); errors.Is(err, runtime.ErrCircuitOpen) || err == nil {
					t.Fatalf("shared %v: a call before the 10th failure: %v", shared, err)
				}
			}
		}
		if got := hits.Load(); got != 10 {
			t.Fatalf("shared %v: %d requests, want 10", shared, got)
		}
		open := func(c *Client) bool { return c.Breakers()[BreakerDownstream].State() == runtime.StateOpen }
		if !shared {
			if open(clients[0]) || open(clients[1]) {
				t.Fatal("local breakers opened after 5 failures each, below minimumCalls 10")
			}
			s.Close()
			continue
		}
		// The open is decided at the next sync and reaches both replicas.
		deadline := time.Now().Add(2 * time.Second)
		for !open(clients[0]) || !open(clients[1]) {
			if time.Now().After(deadline) {
				t.Fatalf("the fleet did not open both breakers: %v, %v", clients[0].Breakers()[BreakerDownstream].State(), clients[1].Breakers()[BreakerDownstream].State())
			}
			time.Sleep(5 * time.Millisecond)
		}
		for _, c := range clients {
			_, err := c.GetStatus(ctx)
			var coe *runtime.CircuitOpenError
			if !errors.As(err, &coe) || coe.Breaker != BreakerDownstream {
				t.Fatalf("err = %v, want the fleet's open breaker to refuse", err)
			}
		}
		if got := hits.Load(); got != 10 {
			t.Fatalf("%d requests, want no more after the open", got)
		}
		s.Close()
	}
}
