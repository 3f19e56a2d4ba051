package resgenredis

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/resgen/resgen/redis/redistest"
	"github.com/resgen/resgen/runtime"
	"github.com/resgen/resgen/runtime/fleettest"
	"github.com/resgen/resgen/runtime/impl"
)

// fleetACL is the ACL rule docs/fleet.md gives for a fleet on a shared
// Redis, for the prefix pattern p: its keys and its channel only, and
// only the commands the Store and its script send. (The script's commands
// are checked against the user's rules too.)
func fleetACL(p string) []any {
	return []any{"on", ">fleet-secret", "resetkeys", "~" + p + ":*", "resetchannels", "&" + p + ":fleet",
		"-@all", "+evalsha", "+eval", "+subscribe", "+unsubscribe", "+ping", "+hello",
		"+time", "+type", "+exists", "+hmget", "+hget", "+hset", "+hdel", "+del", "+llen", "+rpush", "+lpop",
		"+pexpire", "+publish"}
}

// aclClient sets up user name on srv with fleetACL(p), and returns a
// go-redis client that logs in as that user.
func aclClient(t *testing.T, srv *redistest.Server, name, p string) *redis.Client {
	t.Helper()
	ctx := context.Background()
	if err := srv.Client().Do(ctx, append([]any{"ACL", "SETUSER", name, "reset"}, fleetACL(p)...)...).Err(); err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), Username: name, Password: "fleet-secret", ContextTimeoutEnabled: true})
	t.Cleanup(func() { rdb.Close() })
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatalf("the ACL user cannot log in: %v", err)
	}
	return rdb
}

// TestACLUser: a Store whose go-redis client logs in as an ACL user
// limited to the fleet's key prefix and channel passes the FleetStore
// conformance suite (every command the script runs is allowed), and the
// user can touch nothing else.
func TestACLUser(t *testing.T) {
	srv := redistest.Start(t)
	rdb := aclClient(t, srv, "fleet", "fleettest-*")
	ctx := context.Background()
	for what, err := range map[string]error{
		"a key outside the prefix":        rdb.Set(ctx, "other:x", "1", 0).Err(),
		"a read outside the prefix":       rdb.HGet(ctx, "other:{k}:s", "g").Err(),
		"another channel":                 rdb.Publish(ctx, "other:fleet", "x").Err(),
		"a command the fleet never sends": rdb.FlushAll(ctx).Err(),
		"a script's key outside":          rdb.Eval(ctx, "return redis.call('SET', KEYS[1], '1')", []string{"other:x"}).Err(),
	} {
		if err == nil || !strings.Contains(err.Error(), "NOPERM") {
			t.Errorf("the ACL user could reach %s: %v", what, err)
		}
	}
	fleettest.Run(t, func(t *testing.T, prefix string) runtime.FleetStore {
		s, err := NewStore(aclClient(t, srv, "fleet", "fleettest-*"), prefix)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// syncLog is a slog.Handler that keeps warnings.
type syncLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *syncLog) Enabled(_ context.Context, lv slog.Level) bool { return lv >= slog.LevelWarn }
func (l *syncLog) WithAttrs([]slog.Attr) slog.Handler            { return l }
func (l *syncLog) WithGroup(string) slog.Handler                 { return l }
func (l *syncLog) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	l.lines = append(l.lines, r.Message)
	l.mu.Unlock()
	return nil
}

// TestACLUserFleet: two Fleets logged in as the ACL user share a breaker
// (a third replica's failures open both, through the store and its
// channel), and no Sync fails for want of a permission (a loaded machine
// may time one out).
func TestACLUserFleet(t *testing.T) {
	srv := redistest.Start(t)
	const prefix = "checkout"
	log := new(syncLog)
	p := runtime.BreakerPolicy{WindowSize: 10, MinimumCalls: 4, FailureRateThreshold: 50, WaitInOpen: time.Minute, HalfOpenCalls: 1}
	var bs []*runtime.Breaker
	for range 2 {
		f, err := NewFleet(aclClient(t, srv, "checkout-fleet", prefix), prefix, runtime.FleetOptions{SyncInterval: 100 * time.Millisecond, Timeout: 100 * time.Millisecond, Logger: slog.New(log)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		e := impl.NewEngine(impl.Config{Logger: slog.New(slog.DiscardHandler), Fleet: f})
		bs = append(bs, e.Breaker("pets", p))
	}
	waitForState(t, bs[1], runtime.StateClosed)
	st, err := NewStore(aclClient(t, srv, "checkout-fleet", prefix), prefix)
	if err != nil {
		t.Fatal(err)
	}
	// The breakers' key is theirs: open it through the store as a third
	// replica would, with 4 failures.
	keys, err := srv.Client().Keys(context.Background(), prefix+":{pets#*}:s").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys %v, %v", keys, err)
	}
	key := strings.TrimSuffix(strings.TrimPrefix(keys[0], prefix+":{"), "}:s")
	pol := runtime.FleetPolicy{CountWindow: 10, MinimumCalls: 4, FailureRateThreshold: 50, WaitInOpen: time.Minute, HalfOpenCalls: 1, PermitLease: time.Second}
	r := runtime.FleetSync{Key: key, Policy: pol}
	a, err := st.Sync(context.Background(), []runtime.FleetSync{r})
	if err != nil {
		t.Fatal(err)
	}
	r.Gen, r.Closed = a[0].Gen, runtime.FleetCounts{Failed: 4}
	if _, err := st.Sync(context.Background(), []runtime.FleetSync{r}); err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		waitForState(t, b, runtime.StateOpen)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, l := range log.lines {
		if strings.Contains(l, "NOPERM") || strings.Contains(l, "permission") {
			t.Errorf("a Sync failed under the ACL user: %s", l)
		}
	}
}

func waitForState(t *testing.T, b *runtime.Breaker, want runtime.State) {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Second); b.State() != want; time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("breaker %v, want %v", b.State(), want)
		}
	}
}
