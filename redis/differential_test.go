package resgenredis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/resgen/resgen/redis/redistest"
	"github.com/resgen/resgen/runtime"
)

// TestSameAsMemoryStore runs random Syncs against the Redis store and
// runtime.NewMemoryFleetStore (the reference state machine, in Go, by
// another hand) side by side and wants the same answers: generations
// relative to each store's first one, OpenFor within the clocks' skew.
// Count windows only (a time window's buckets follow each store's own
// seconds); a breaker found open waits out its WaitInOpen before the next
// step, so that both stores see the wait end.
func TestSameAsMemoryStore(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	red := newStore(t, srv)
	mem := runtime.NewMemoryFleetStore()
	rng := rand.New(rand.NewPCG(14, uint64(time.Now().UnixNano())))
	seed := rng.Uint64()
	rng = rand.New(rand.NewPCG(14, seed))
	t.Logf("seed %d", seed)

	const wait = 40 * time.Millisecond
	type breaker struct {
		key        string
		policy     runtime.FleetPolicy
		base       [2]uint64 // each store's first generation
		gen        uint64    // relative, as both answered last
		state      runtime.State
		open, half int
	}
	bs := make([]*breaker, 3)
	for i := range bs {
		p := runtime.FleetPolicy{
			CountWindow: 1 + rng.IntN(8), FailureRateThreshold: []float64{0, 30, 50, 100}[rng.IntN(4)],
			SlowCallRateThreshold: []float64{0, 40, 100}[rng.IntN(3)], WaitInOpen: wait,
			HalfOpenCalls: 1 + rng.IntN(4), PermitLease: []time.Duration{0, time.Minute}[rng.IntN(2)],
		}
		if p.FailureRateThreshold == 0 && p.SlowCallRateThreshold == 0 {
			p.FailureRateThreshold = 50
		}
		p.MinimumCalls = 1 + rng.IntN(p.CountWindow)
		bs[i] = &breaker{key: fmt.Sprintf("b%d#%x", i, rng.Uint64()), policy: p}
	}
	ctx := context.Background()
	syncBoth := func(reqs [2][]runtime.FleetSync) [2][]runtime.FleetState {
		var out [2][]runtime.FleetState
		for i, s := range []runtime.FleetStore{red, mem} {
			var err error
			if out[i], err = s.Sync(ctx, reqs[i]); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	var first [2][]runtime.FleetSync
	for _, b := range bs {
		for i := range first {
			first[i] = append(first[i], runtime.FleetSync{Key: b.key, Policy: b.policy})
		}
	}
	for j, b := range syncBoth(first)[0] {
		bs[j].base[0] = b.Gen
	}
	out := syncBoth(first)
	for j := range bs {
		bs[j].base[1] = out[1][j].Gen
	}

	count := func(max int) runtime.FleetCounts {
		return runtime.FleetCounts{OK: int64(rng.IntN(max + 1)), Failed: int64(rng.IntN(max + 1)),
			Slow: int64(rng.IntN(max + 1)), FailedSlow: int64(rng.IntN(max + 1))}
	}
	for step := range 120 {
		var reqs [2][]runtime.FleetSync
		for _, b := range bs {
			if rng.IntN(4) == 0 {
				continue // this breaker had nothing to say
			}
			r := runtime.FleetSync{Key: b.key, Policy: b.policy}
			gen := b.gen
			if rng.IntN(8) == 0 && gen > 0 {
				gen-- // a late replica
			}
			switch b.state {
			case runtime.StateClosed:
				r.Closed = count(2)
			case runtime.StateHalfOpen:
				r.Trials = count(1)
				r.Returned = rng.IntN(2)
			}
			if rng.IntN(6) == 0 { // outcomes of the wrong kind
				r.Closed, r.Trials = r.Trials, r.Closed
			}
			r.Want = rng.IntN(4)
			for i := range reqs {
				ri := r
				ri.Gen = b.base[i] + gen
				reqs[i] = append(reqs[i], ri)
			}
		}
		if len(reqs[0]) == 0 {
			continue
		}
		out := syncBoth(reqs)
		sawOpen := false
		for j := range out[0] {
			a, m := out[0][j], out[1][j]
			b := bs[0]
			for _, c := range bs {
				if c.key == a.Key {
					b = c
				}
			}
			ag, mg := a.Gen-b.base[0], m.Gen-b.base[1]
			if ag != mg || a.State != m.State || a.Calls != m.Calls || a.Failed != m.Failed || a.Slow != m.Slow ||
				a.Cause != m.Cause || a.Granted != m.Granted || a.OpenFor-m.OpenFor > 30*time.Millisecond || m.OpenFor-a.OpenFor > 30*time.Millisecond {
				t.Fatalf("step %d, %s %+v after %+v:\nredis  gen +%d %+v\nmemory gen +%d %+v", step, b.key, b.policy, reqs[0][j], ag, a, mg, m)
			}
			b.gen, b.state = ag, a.State
			switch a.State {
			case runtime.StateOpen:
				sawOpen = true
				b.open++
			case runtime.StateHalfOpen:
				b.half++
			}
		}
		if sawOpen {
			time.Sleep(wait + 20*time.Millisecond)
		}
	}
	for _, b := range bs {
		t.Logf("%s: %d open answers, %d half-open, generation +%d", b.key, b.open, b.half, b.gen)
	}
}
