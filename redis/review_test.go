package resgenredis

import (
	"context"
	"testing"
	"time"

	"github.com/resgen/resgen/redis/redistest"
	"github.com/resgen/resgen/runtime"
)

// TestWindowKeyLost: a window key that went while its state stayed (Redis
// evicts keys with a TTL first under volatile-* maxmemory policies, and a
// time window's key has the shorter TTL) must not leave phantom calls in
// the totals: the window starts empty, and never holds more calls than a
// count window has room for.
func TestWindowKeyLost(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	s := newStore(t, srv)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		p    runtime.FleetPolicy
	}{
		{"count", runtime.FleetPolicy{CountWindow: 4, MinimumCalls: 4, FailureRateThreshold: 50,
			WaitInOpen: time.Minute, HalfOpenCalls: 1, PermitLease: time.Minute}},
		{"time", runtime.FleetPolicy{TimeWindow: 10 * time.Second, MinimumCalls: 4, FailureRateThreshold: 50,
			WaitInOpen: time.Minute, HalfOpenCalls: 1, PermitLease: time.Minute}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runtime.FleetSync{Key: tc.name, Policy: tc.p}
			r.Gen = sync1(t, s, r).Gen
			r.Closed = runtime.FleetCounts{OK: 2, Failed: 1}
			check(t, "3 calls", sync1(t, s, r), r.Gen, runtime.StateClosed, 3, 1, 0, runtime.FleetCauseNone)
			if err := srv.Client().Del(ctx, s.prefix+":{"+tc.name+"}:w").Err(); err != nil {
				t.Fatal(err)
			}
			// One failure after the loss: 1 of 1 call, not 2 of 4 (which
			// would open the fleet on calls no longer in the window).
			r.Closed = runtime.FleetCounts{Failed: 1}
			check(t, "after the window went", sync1(t, s, r), r.Gen, runtime.StateClosed, 1, 1, 0, runtime.FleetCauseNone)
		})
	}
}
