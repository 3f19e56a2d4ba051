package resgenredis

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/resgen/resgen/redis/redistest"
	"github.com/resgen/resgen/runtime"
)

// Every value the script reads from Redis is
// untrusted (any client of the server can write the keys). Each case
// writes one corrupt value into a breaker's keys, as another client
// would, and checks the next Sync's answer: within the breaker's own
// policy (a known state, a valid generation, an open of at most
// waitInOpen, at most halfOpenCalls permits and trials, consistent
// totals), and the breaker working again after.

// corruptPolicy: a count window of 10, 4 calls to open, a 300 ms wait, 2
// trials, a 200 ms lease.
var corruptPolicy = runtime.FleetPolicy{
	CountWindow: 10, MinimumCalls: 4, FailureRateThreshold: 50,
	WaitInOpen: 300 * time.Millisecond, HalfOpenCalls: 2, PermitLease: 200 * time.Millisecond,
}

// maxGenGo is sync.lua's maxGen, plus one: the highest generation an
// answer can carry.
const maxGenGo = 1<<53 - 1<<32 + 1

// inPolicy fails unless st is an answer the state machine can give for p.
func inPolicy(t *testing.T, what string, st runtime.FleetState, p runtime.FleetPolicy) {
	t.Helper()
	bad := st.State > runtime.StateHalfOpen || st.Gen < 1 || st.Gen > maxGenGo ||
		st.OpenFor < 0 || st.OpenFor > p.WaitInOpen || (st.State != runtime.StateOpen && st.OpenFor != 0) ||
		st.Granted < 0 || st.Granted > p.HalfOpenCalls || st.Cause > runtime.FleetCauseTrials ||
		st.Calls < 0 || st.Failed < 0 || st.Slow < 0 || st.Failed > st.Calls || st.Slow > st.Calls ||
		(p.CountWindow > 0 && st.State == runtime.StateClosed && st.Calls > int64(p.CountWindow)) ||
		(st.State == runtime.StateHalfOpen && st.Calls > int64(p.HalfOpenCalls))
	if bad {
		t.Fatalf("%s: answer %+v is outside the policy %+v", what, st, p)
	}
}

// corruption is one attack on a breaker's keys: state is the hash, window
// the window's key.
type corruption struct {
	name string
	// setup brings the breaker to the state the attack needs: 0 closed
	// with 3 calls, 1 open, 2 half-open.
	setup int
	do    func(ctx context.Context, rdb *redis.Client, state, window string) error
	// then checks the first answer after the attack, beyond inPolicy.
	then func(t *testing.T, st runtime.FleetState)
}

func hset(field string, v any) func(context.Context, *redis.Client, string, string) error {
	return func(ctx context.Context, rdb *redis.Client, state, _ string) error {
		return rdb.HSet(ctx, state, field, v).Err()
	}
}

func wantState(want runtime.State) func(*testing.T, runtime.FleetState) {
	return func(t *testing.T, st runtime.FleetState) {
		t.Helper()
		if st.State != want {
			t.Fatalf("state %v, want %v", st.State, want)
		}
	}
}

func corruptions() []corruption {
	var cs []corruption
	// Every field of the hash, with values no Sync writes: the breaker
	// starts anew, closed and empty.
	for _, f := range []string{"g", "st", "ou", "c", "wc", "wf", "ws", "wl", "pc", "pf", "ps", "hc", "hf", "hs", "tk", "lg"} {
		for _, v := range []string{"-1", "abc", "nan", "inf", "1e300", "1.5", "", "9223372036854775808"} {
			cs = append(cs, corruption{name: f + "=" + strconv.Quote(v), setup: 1, do: hset(f, v), then: wantState(runtime.StateClosed)})
		}
		cs = append(cs, corruption{name: f + " missing", setup: 1, do: func(ctx context.Context, rdb *redis.Client, state, _ string) error {
			return rdb.HDel(ctx, state, f).Err()
		}, then: wantState(runtime.StateClosed)})
	}
	cs = append(cs,
		corruption{name: "unknown state 3", setup: 1, do: hset("st", 3), then: wantState(runtime.StateClosed)},
		corruption{name: "unknown state 255", setup: 1, do: hset("st", 255), then: wantState(runtime.StateClosed)},
		corruption{name: "unknown cause", setup: 1, do: hset("c", 4), then: wantState(runtime.StateClosed)},
		corruption{name: "generation 2^60", setup: 1, do: hset("g", int64(1)<<60), then: wantState(runtime.StateClosed)},
		// In range, but against the policy: bounded by it.
		corruption{name: "open until far ahead", setup: 1, do: hset("ou", int64(1)<<52), then: wantState(runtime.StateOpen)},
		corruption{name: "closed to open, until far ahead", setup: 0, do: func(ctx context.Context, rdb *redis.Client, state, _ string) error {
			return rdb.HSet(ctx, state, "st", 1, "ou", int64(1)<<52).Err()
		}, then: wantState(runtime.StateOpen)},
		corruption{name: "half-open, all permits taken, grant ahead", setup: 2, do: func(ctx context.Context, rdb *redis.Client, state, _ string) error {
			return rdb.HSet(ctx, state, "tk", 1000, "lg", int64(1)<<52).Err()
		}, then: wantState(runtime.StateHalfOpen)},
		corruption{name: "half-open, trials beyond halfOpenCalls", setup: 2, do: hset("hc", 1000)},
		corruption{name: "window totals beyond the window", setup: 0, do: func(ctx context.Context, rdb *redis.Client, state, _ string) error {
			return rdb.HSet(ctx, state, "wc", 1000, "wf", 1000).Err()
		}, then: wantState(runtime.StateClosed)},
		corruption{name: "window failed above calls", setup: 0, do: hset("wf", 9), then: wantState(runtime.StateClosed)},
		corruption{name: "window list of 100000", setup: 0, do: func(ctx context.Context, rdb *redis.Client, _, window string) error {
			vals := make([]any, 100000)
			for i := range vals {
				vals[i] = "f"
			}
			return rdb.RPush(ctx, window, vals...).Err()
		}, then: wantState(runtime.StateClosed)},
		corruption{name: "state of another type", setup: 1, do: func(ctx context.Context, rdb *redis.Client, state, _ string) error {
			return rdb.Set(ctx, state, "x", 0).Err()
		}, then: wantState(runtime.StateClosed)},
		corruption{name: "window of another type", setup: 0, do: func(ctx context.Context, rdb *redis.Client, _, window string) error {
			if err := rdb.Del(ctx, window).Err(); err != nil {
				return err
			}
			return rdb.SAdd(ctx, window, "x").Err()
		}, then: wantState(runtime.StateClosed)},
		corruption{name: "junk fields", setup: 1, do: func(ctx context.Context, rdb *redis.Client, state, _ string) error {
			vals := make([]any, 0, 20000)
			for i := range 10000 {
				vals = append(vals, "junk"+strconv.Itoa(i), i)
			}
			return rdb.HSet(ctx, state, vals...).Err()
		}, then: func(t *testing.T, st runtime.FleetState) {
			t.Helper()
			// The state is kept: open, or half-open when a loaded
			// machine took longer than the wait to get here.
			if st.State == runtime.StateClosed {
				t.Fatalf("state %v, want the open kept", st.State)
			}
		}},
		// Another breaker's state (another policy: an hour's wait, 100
		// trials, half of them failed, permits all taken) written over
		// this one's: its trials are capped at this policy's 2, which
		// decide (they failed: open for this policy's wait).
		corruption{name: "another breaker's state", setup: 0, do: func(ctx context.Context, rdb *redis.Client, state, _ string) error {
			return rdb.HSet(ctx, state, "st", 2, "hc", 50, "hf", 50, "tk", 100, "lg", int64(1)<<52, "ou", int64(1)<<52).Err()
		}, then: wantState(runtime.StateOpen)},
	)
	return cs
}

// TestCorruptState runs every corruption on a breaker of its own.
func TestCorruptState(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	s := newStore(t, srv)
	rdb := srv.Client()
	ctx := context.Background()
	p := corruptPolicy
	for i, c := range corruptions() {
		t.Run(c.name, func(t *testing.T) {
			r := runtime.FleetSync{Key: "k" + strconv.Itoa(i), Policy: p}
			base := s.prefix + ":{" + r.Key + "}:"
			r.Gen = sync1(t, s, r).Gen
			switch c.setup {
			case 0:
				r.Closed = runtime.FleetCounts{OK: 2, Failed: 1}
				sync1(t, s, r)
			case 1, 2:
				r.Closed = runtime.FleetCounts{Failed: 4}
				st := sync1(t, s, r)
				if st.State != runtime.StateOpen {
					t.Fatalf("setup: %+v, want open", st)
				}
				r.Gen = st.Gen
				if c.setup == 2 {
					time.Sleep(p.WaitInOpen + 10*time.Millisecond)
					r.Closed = runtime.FleetCounts{}
					st = sync1(t, s, r)
					if st.State != runtime.StateHalfOpen {
						t.Fatalf("setup: %+v, want half-open", st)
					}
					r.Gen = st.Gen
				}
			}
			if err := c.do(ctx, rdb, base+"s", base+"w"); err != nil {
				t.Fatal(err)
			}
			r.Closed, r.Want = runtime.FleetCounts{}, p.HalfOpenCalls
			st := sync1(t, s, r)
			inPolicy(t, "after the attack", st, p)
			if c.then != nil {
				c.then(t, st)
			}
			recovers(t, s, r, st, p)
		})
	}
}

// recovers checks the breaker goes on by the state machine from st: an
// open ends within its wait, a half-open grants its permits within the
// lease and its trials close it, and a closed breaker opens on 4
// failures.
func recovers(t *testing.T, s *Store, r runtime.FleetSync, st runtime.FleetState, p runtime.FleetPolicy) {
	t.Helper()
	deadline := time.Now().Add(p.WaitInOpen + p.PermitLease + time.Second)
	for st.State != runtime.StateClosed {
		if time.Now().After(deadline) {
			t.Fatalf("not closed again within its wait and lease: %+v", st)
		}
		r.Gen, r.Closed, r.Trials, r.Want = st.Gen, runtime.FleetCounts{}, runtime.FleetCounts{}, p.HalfOpenCalls
		if st.State == runtime.StateHalfOpen {
			r.Trials = runtime.FleetCounts{OK: int64(p.HalfOpenCalls)}
		}
		st = sync1(t, s, r)
		inPolicy(t, "recovering", st, p)
		time.Sleep(10 * time.Millisecond)
	}
	r.Gen, r.Trials, r.Want = st.Gen, runtime.FleetCounts{}, 0
	r.Closed = runtime.FleetCounts{Failed: 4}
	if st = sync1(t, s, r); st.State != runtime.StateOpen || st.Calls != 4 {
		t.Fatalf("4 failures after the recovery: %+v, want open on 4 of 4", st)
	}
	inPolicy(t, "open again", st, p)
}

// TestCorruptTimeWindow: a time window whose newest second is far ahead
// (its calls would never drop out) starts empty; a bucket with forged
// counts cannot drive the totals out of range when it drops out.
func TestCorruptTimeWindow(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	s := newStore(t, srv)
	rdb := srv.Client()
	ctx := context.Background()
	p := corruptPolicy
	p.CountWindow, p.TimeWindow = 0, 2*time.Second
	for i, c := range []func(state, window string) error{
		func(state, _ string) error { return rdb.HSet(ctx, state, "wl", int64(1)<<40).Err() },
		func(_, window string) error {
			sec := time.Now().Unix() - 1
			return rdb.HSet(ctx, window, strconv.FormatInt(sec, 10), "999999999999 999999999999 999999999999").Err()
		},
	} {
		r := runtime.FleetSync{Key: "tw" + strconv.Itoa(i), Policy: p}
		base := s.prefix + ":{" + r.Key + "}:"
		r.Gen = sync1(t, s, r).Gen
		r.Closed = runtime.FleetCounts{OK: 3}
		sync1(t, s, r)
		if err := c(base+"s", base+"w"); err != nil {
			t.Fatal(err)
		}
		r.Closed = runtime.FleetCounts{}
		for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
			st := sync1(t, s, r)
			inPolicy(t, "time window "+strconv.Itoa(i), st, p)
			if st.State != runtime.StateClosed {
				t.Fatalf("case %d: %+v, want closed", i, st)
			}
		}
		// The window holds nothing from before now: 4 failures open it.
		r.Closed = runtime.FleetCounts{Failed: 4}
		if st := sync1(t, s, r); st.State != runtime.StateOpen || st.Calls != 4 {
			t.Fatalf("case %d: 4 failures: %+v, want open on 4 of 4", i, st)
		}
	}
}
