package resgenredis_test

// The fleet's fault suite: another client of the fleet's Redis, which a
// fleet cannot trust,
// forges messages on its channel and writes its keys, while three
// replicas (generated lab clients, each with its own go-redis client and
// Fleet) call a healthy loopback server. Whatever the attack, a replica
// refuses calls for at most one waitInOpen (and, when the attack leaves
// the fleet half-open with its permits taken, one PermitLease) beyond
// what its own outcomes justify, which is none here, and recovers on its
// own within that after the forgery stops. A forged message refuses no
// call at all: it is a hint that the replica confirms with a Sync. Two
// attacks run during a downstream outage instead: the fleet must still
// open on the replicas' real failures.
//
// The suite logs a table: attack, calls refused (of the calls made),
// how long a replica refused at most, and when the last refusal came
// after the forgery stopped. Bounds carry a generous slack for a loaded
// machine; they fail only on refusals that do not end.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/resgen/resgen/golden/lab"
	resgenredis "github.com/resgen/resgen/redis"
	"github.com/resgen/resgen/redis/redistest"
	"github.com/resgen/resgen/runtime"
)

const (
	faultWait  = 300 * time.Millisecond // the downstream breaker's waitInOpen
	faultLease = 300 * time.Millisecond // the Fleets' PermitLease
	faultSync  = 50 * time.Millisecond
	// faultSlack is what a loaded 2-core machine may add to a bound.
	faultSlack = 1500 * time.Millisecond
	// faultQuiet is how long the calls must go through, at the end, for a
	// replica to count as recovered.
	faultQuiet = 300 * time.Millisecond
)

const faultOverrides = `{
  "retries": {"default": {"maxAttempts": 1}},
  "breakers": {"downstream": {"waitInOpen": "300ms"}}
}`

// faultFleet is one attack's fleet: its prefix on the shared server, the
// attacker's own client, and the downstream breaker's key.
type faultFleet struct {
	t      *testing.T
	srv    *redistest.Server
	rdb    *redis.Client // the attacker
	prefix string
	key    string // the downstream breaker's key, as the messages name it
	http   *server
	rs     []*lab.Client
	fleets []*runtime.Fleet
}

func newFaultFleet(t *testing.T, srv *redistest.Server) *faultFleet {
	t.Helper()
	f := &faultFleet{t: t, srv: srv, rdb: srv.Client(), prefix: uniquePrefix("fault"), http: newServer(t)}
	o := overrides(t, faultOverrides)
	for range 3 {
		st, err := resgenredis.NewStore(newRedisClient(t, srv.Addr()), f.prefix)
		if err != nil {
			t.Fatal(err)
		}
		fl := runtime.NewFleet(st, runtime.FleetOptions{SyncInterval: faultSync, Timeout: faultSync, PermitLease: faultLease, Logger: quiet})
		t.Cleanup(func() { fl.Close() })
		f.fleets = append(f.fleets, fl)
		f.rs = append(f.rs, newLabClient(t, f.http.URL, lab.WithHTTPClient(f.http.Client()), lab.WithOverrides(o), lab.WithFleet(fl)))
	}
	ctx := context.Background()
	waitFor(t, 5*time.Second, "the downstream breaker's keys", func() bool {
		keys, err := f.rdb.Keys(ctx, f.prefix+":{downstream#*}:s").Result()
		if err != nil || len(keys) != 1 {
			return false
		}
		f.key = strings.TrimSuffix(strings.TrimPrefix(keys[0], f.prefix+":{"), "}:s")
		return true
	})
	time.Sleep(4 * faultSync)
	return f
}

func (f *faultFleet) stateKey() string  { return f.prefix + ":{" + f.key + "}:s" }
func (f *faultFleet) windowKey() string { return f.prefix + ":{" + f.key + "}:w" }

// publish forges a message on the fleet's channel.
func (f *faultFleet) publish(payload string) {
	if err := f.rdb.Publish(context.Background(), f.prefix+":fleet", payload).Err(); err != nil {
		f.t.Fatal(err)
	}
}

// msg is a message as the store publishes it, with any field values.
func (f *faultFleet) msg(gen any, state any, openFor any) string {
	b, err := json.Marshal(map[string]any{"Key": f.key, "Gen": gen, "State": state, "OpenFor": openFor,
		"Calls": 10, "Failed": 10, "Slow": 0, "Cause": 1})
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

// storeGen is the generation the store holds.
func (f *faultFleet) storeGen() int64 {
	g, err := f.rdb.HGet(context.Background(), f.stateKey(), "g").Int64()
	if err != nil {
		f.t.Fatal(err)
	}
	return g
}

func (f *faultFleet) hset(vals ...any) {
	if err := f.rdb.HSet(context.Background(), f.stateKey(), vals...).Err(); err != nil {
		f.t.Fatal(err)
	}
}

// during repeats fn every 5 ms for d: a forgery that goes on.
func during(d time.Duration, fn func()) {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		fn()
	}
}

// traffic is every replica calling getStatus every 5 ms, counting
// refusals and when each replica's first and last came.
type traffic struct {
	calls, refused atomic.Int64
	first, last    []atomic.Int64 // unix ns of refusals, per replica; 0: none
	ok             []atomic.Int64 // unix ns of the last call that went through, per replica
	stop           chan struct{}
	wg             sync.WaitGroup
}

func (f *faultFleet) traffic() *traffic {
	n := len(f.rs)
	tr := &traffic{first: make([]atomic.Int64, n), last: make([]atomic.Int64, n), ok: make([]atomic.Int64, n), stop: make(chan struct{})}
	for i, c := range f.rs {
		tr.wg.Go(func() {
			for {
				select {
				case <-tr.stop:
					return
				case <-time.After(5 * time.Millisecond):
				}
				_, err := c.GetStatus(context.Background())
				tr.calls.Add(1)
				if isRefusal(err) {
					tr.refused.Add(1)
					now := time.Now().UnixNano()
					tr.first[i].CompareAndSwap(0, now)
					tr.last[i].Store(now)
				} else {
					tr.ok[i].Store(time.Now().UnixNano())
				}
			}
		})
	}
	return tr
}

func (tr *traffic) end() { close(tr.stop); tr.wg.Wait() }

// recovered reports whether, since stopped, every replica has had a call
// go through after its last refusal, and no replica refused for the last
// faultQuiet. (A replica starved of CPU may make no call for a while, and
// then be refused by an open it still holds: the last call of each
// replica is what counts.)
func (tr *traffic) recovered(stopped time.Time) bool {
	if last := tr.lastRefusal(); !last.IsZero() && time.Since(last) < faultQuiet {
		return false
	}
	for i := range tr.ok {
		if ok := tr.ok[i].Load(); ok < stopped.UnixNano() || ok < tr.last[i].Load() {
			return false
		}
	}
	return true
}

// lastRefusal is the latest refusal of any replica (zero: none).
func (tr *traffic) lastRefusal() time.Time {
	var l int64
	for i := range tr.last {
		l = max(l, tr.last[i].Load())
	}
	if l == 0 {
		return time.Time{}
	}
	return time.Unix(0, l)
}

// longest is the longest span from a replica's first refusal to its last.
func (tr *traffic) longest() time.Duration {
	var d time.Duration
	for i := range tr.first {
		if a := tr.first[i].Load(); a != 0 {
			d = max(d, time.Duration(tr.last[i].Load()-a))
		}
	}
	return d
}

// faultRow is one line of the suite's table.
type faultRow struct {
	attack           string
	refused, calls   int64
	longest, recover time.Duration
	note             string
}

type faultAttack struct {
	name string
	// run makes the attack and returns when the forgery stopped.
	run func(f *faultFleet) time.Time
	// message: a forged message only, which must refuse no call.
	message bool
	// halfOpen: the attack can leave the fleet half-open with its
	// permits taken: the bound adds one PermitLease.
	halfOpen bool
}

func faultAttacks() []faultAttack {
	maxU := uint64(math.MaxUint64)
	var as []faultAttack
	msgs := []struct {
		name    string
		payload func(f *faultFleet) string
	}{
		{"msg: gen 2^64-1, open 1h", func(f *faultFleet) string { return f.msg(maxU, 1, int64(time.Hour)) }},
		{"msg: gen 2^64-1, half-open", func(f *faultFleet) string { return f.msg(maxU, 2, 0) }},
		{"msg: gen 2^64-1, closed", func(f *faultFleet) string { return f.msg(maxU, 0, 0) }},
		{"msg: gen -1, open", func(f *faultFleet) string { return f.msg(-1, 1, int64(time.Hour)) }},
		{"msg: gen 0, open", func(f *faultFleet) string { return f.msg(0, 1, int64(time.Hour)) }},
		{"msg: gen 1e300, open", func(f *faultFleet) string { return f.msg(1e300, 1, int64(time.Hour)) }},
		{"msg: next gen, open", func(f *faultFleet) string { return f.msg(f.storeGen()+1, 1, int64(time.Hour)) }},
		{"msg: next gen, half-open", func(f *faultFleet) string { return f.msg(f.storeGen()+1, 2, 0) }},
		{"msg: next gen, state 3", func(f *faultFleet) string { return f.msg(f.storeGen()+1, 3, 0) }},
		{"msg: next gen, state 255", func(f *faultFleet) string { return f.msg(f.storeGen()+1, 255, 0) }},
		{"msg: next gen, open, OpenFor -1", func(f *faultFleet) string { return f.msg(f.storeGen()+1, 1, -1) }},
		{"msg: wrong types (strings)", func(f *faultFleet) string { return f.msg("1", "open", "1h") }},
		{"msg: wrong types (Key a number)", func(f *faultFleet) string {
			return `{"Key":1,"Gen":` + strconv.FormatInt(f.storeGen()+1, 10) + `,"State":1}`
		}},
		{"msg: an array", func(*faultFleet) string { return `[1,2,3]` }},
		{"msg: not JSON", func(*faultFleet) string { return "\x00\xff{" }},
		{"msg: 1 MiB", func(f *faultFleet) string {
			return `{"Key":"` + f.key + `","Gen":18446744073709551615,"State":1,"Pad":"` + strings.Repeat("x", 1<<20) + `"}`
		}},
		{"msg: another breaker's key", func(f *faultFleet) string {
			return strings.Replace(f.msg(maxU, 1, int64(time.Hour)), "downstream#", "slowcalls#", 1)
		}},
	}
	for _, m := range msgs {
		as = append(as, faultAttack{name: m.name + " ×60", message: true, run: func(f *faultFleet) time.Time {
			p := m.payload(f)
			during(300*time.Millisecond, func() { f.publish(p) })
			return time.Now()
		}})
	}
	// Store: one write by another client, unless it says it goes on.
	far := int64(1) << 52
	as = append(as,
		faultAttack{name: "hash: open until 2^52 ms", run: func(f *faultFleet) time.Time {
			f.hset("st", 1, "ou", far, "g", f.storeGen()+1)
			return time.Now()
		}},
		faultAttack{name: "hash: open until 2^52 ms, rewritten 1 s", run: func(f *faultFleet) time.Time {
			g := f.storeGen() + 1
			during(time.Second, func() { f.hset("st", 1, "ou", far, "g", g) })
			return time.Now()
		}},
		// A new open generation every 5 ms: the store cannot tell it from
		// the replicas' own failures, so the fleet refuses while it goes
		// on (what access rules are for); it must end within one wait of
		// the last write.
		faultAttack{name: "hash: a new open generation every 5 ms for 1 s", run: func(f *faultFleet) time.Time {
			g := f.storeGen()
			during(time.Second, func() {
				g++
				f.hset("st", 1, "ou", far, "g", g)
			})
			return time.Now()
		}},
		faultAttack{name: "hash: open, gen 2^60", run: func(f *faultFleet) time.Time {
			f.hset("st", 1, "ou", far, "g", int64(1)<<60)
			return time.Now()
		}},
		faultAttack{name: "hash: half-open, permits taken, grant ahead", halfOpen: true, run: func(f *faultFleet) time.Time {
			f.hset("st", 2, "tk", 1000, "lg", far, "hc", 0, "g", f.storeGen()+1)
			return time.Now()
		}},
		faultAttack{name: "hash: unknown state 7", run: func(f *faultFleet) time.Time {
			f.hset("st", 7, "g", f.storeGen()+1)
			return time.Now()
		}},
	)
	for _, field := range []string{"g", "st", "ou", "c", "wc", "wf", "ws", "wl", "pc", "pf", "ps", "hc", "hf", "hs", "tk", "lg"} {
		as = append(as, faultAttack{name: "hash: open, " + field + " = nan", halfOpen: true, run: func(f *faultFleet) time.Time {
			f.hset("st", 1, "ou", far, "g", f.storeGen()+1, field, "nan")
			return time.Now()
		}})
	}
	as = append(as,
		faultAttack{name: "hash: a string key instead", run: func(f *faultFleet) time.Time {
			if err := f.rdb.Set(context.Background(), f.stateKey(), "open", 0).Err(); err != nil {
				f.t.Fatal(err)
			}
			return time.Now()
		}},
		faultAttack{name: "window: 100000 failures pushed", run: func(f *faultFleet) time.Time {
			vals := make([]any, 100000)
			for i := range vals {
				vals[i] = "f"
			}
			if err := f.rdb.RPush(context.Background(), f.windowKey(), vals...).Err(); err != nil {
				f.t.Fatal(err)
			}
			return time.Now()
		}},
		faultAttack{name: "keys deleted while forged open", run: func(f *faultFleet) time.Time {
			f.hset("st", 1, "ou", far, "g", f.storeGen()+1)
			time.Sleep(100 * time.Millisecond)
			if err := f.rdb.Del(context.Background(), f.stateKey(), f.windowKey()).Err(); err != nil {
				f.t.Fatal(err)
			}
			return time.Now()
		}},
		faultAttack{name: "forged open (hash, and msgs at gen 2^64-1), then FLUSHALL", run: func(f *faultFleet) time.Time {
			f.hset("st", 1, "ou", far, "g", f.storeGen()+1)
			during(100*time.Millisecond, func() { f.publish(f.msg(maxU, 1, int64(time.Hour))) })
			if err := f.rdb.FlushAll(context.Background()).Err(); err != nil {
				f.t.Fatal(err)
			}
			return time.Now()
		}},
		faultAttack{name: "another breaker's state copied in", halfOpen: true, run: func(f *faultFleet) time.Time {
			// A breaker of another policy (an hour's wait, 100 trials),
			// opened through the store itself, then its hash copied over.
			st, err := resgenredis.NewStore(f.rdb, f.prefix)
			if err != nil {
				f.t.Fatal(err)
			}
			p := runtime.FleetPolicy{CountWindow: 1, MinimumCalls: 1, FailureRateThreshold: 50, WaitInOpen: time.Hour, HalfOpenCalls: 100, PermitLease: time.Hour}
			r := runtime.FleetSync{Key: "other#0", Policy: p}
			ctx := context.Background()
			a, err := st.Sync(ctx, []runtime.FleetSync{r})
			if err != nil {
				f.t.Fatal(err)
			}
			r.Gen, r.Closed = a[0].Gen, runtime.FleetCounts{Failed: 1}
			if _, err := st.Sync(ctx, []runtime.FleetSync{r}); err != nil {
				f.t.Fatal(err)
			}
			if err := f.rdb.Copy(ctx, f.prefix+":{other#0}:s", f.stateKey(), 0, true).Err(); err != nil {
				f.t.Fatal(err)
			}
			return time.Now()
		}},
	)
	return as
}

// TestFleetFaultSuite runs every attack on a fleet of its own (one
// redis-server for all, the attacks one after another) and logs the
// table.
func TestFleetFaultSuite(t *testing.T) {
	srv := redistest.Start(t)
	var rows []faultRow
	for _, a := range faultAttacks() {
		t.Run(a.name, func(t *testing.T) {
			rows = append(rows, runFaultAttack(t, srv, a))
		})
	}
	for _, o := range outageAttacks() {
		t.Run(o.name, func(t *testing.T) {
			rows = append(rows, runOutageAttack(t, srv, o))
		})
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "attack\tcalls refused\tlongest refusal\trecovered after the forgery stopped\tnote\t\n")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d of %d\t%s\t%s\t%s\t\n", r.attack, r.refused, r.calls,
			r.longest.Round(time.Millisecond), r.recover.Round(time.Millisecond), r.note)
	}
	tw.Flush()
	t.Logf("fleet fault suite (waitInOpen %s, PermitLease %s, SyncInterval %s, 3 replicas calling every 5 ms):\n%s",
		faultWait, faultLease, faultSync, b.String())
}

func runFaultAttack(t *testing.T, srv *redistest.Server, a faultAttack) faultRow {
	f := newFaultFleet(t, srv)
	tr := f.traffic()
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	stopped := a.run(f)
	bound := faultWait + faultSlack
	if a.halfOpen {
		bound += faultLease
	}
	// Watch until the calls have gone through for faultQuiet, or the
	// bound (and that quiet time) ran out.
	recovered := false
	for !recovered && time.Since(stopped) < bound+faultQuiet {
		time.Sleep(10 * time.Millisecond)
		recovered = time.Since(stopped) > faultQuiet && tr.recovered(stopped)
	}
	tr.end()
	row := faultRow{attack: a.name, refused: tr.refused.Load(), calls: tr.calls.Load(), longest: tr.longest()}
	if last := tr.lastRefusal(); !last.IsZero() {
		row.recover = max(last.Sub(stopped), 0)
	}
	if h := f.http.hits.Load(); h == 0 {
		t.Fatalf("no call reached the server")
	}
	switch {
	case a.message && row.refused > 0:
		t.Errorf("%s: %d calls refused: a message must refuse none", a.name, row.refused)
	case row.recover > bound:
		t.Errorf("%s: the last refusal came %s after the forgery stopped, want within %s", a.name, row.recover, bound)
	case row.longest > bound+stopped.Sub(start):
		t.Errorf("%s: a replica refused for %s, want at most %s", a.name, row.longest, bound+stopped.Sub(start))
	}
	if !recovered {
		t.Errorf("%s: not recovered within %s of the forgery's end (last refusal %s after it)", a.name, bound+faultQuiet, row.recover)
	}
	return row
}

// outageAttack forges during a downstream outage: the fleet must still
// open on the replicas' failures. run forges until stop is closed.
type outageAttack struct {
	name string
	run  func(f *faultFleet, stop <-chan struct{})
}

func outageAttacks() []outageAttack {
	return []outageAttack{
		{"outage, msg: gen 2^64-1, closed, until open", func(f *faultFleet, stop <-chan struct{}) {
			p := f.msg(uint64(math.MaxUint64), 0, 0)
			for {
				select {
				case <-stop:
					return
				case <-time.After(5 * time.Millisecond):
					f.publish(p)
				}
			}
		}},
		{"outage, keys deleted mid-window", func(f *faultFleet, stop <-chan struct{}) {
			select {
			case <-stop:
			case <-time.After(20 * time.Millisecond):
				if err := f.rdb.Del(context.Background(), f.stateKey(), f.windowKey()).Err(); err != nil {
					f.t.Error(err)
				}
			}
		}},
	}
}

func runOutageAttack(t *testing.T, srv *redistest.Server, o outageAttack) faultRow {
	f := newFaultFleet(t, srv)
	f.http.status.Store(http.StatusInternalServerError)
	start := time.Now()
	stop := make(chan struct{})
	var forger sync.WaitGroup
	forger.Go(func() { o.run(f, stop) })
	defer forger.Wait()
	defer close(stop)
	tr := f.traffic()
	var opened time.Duration
	for {
		open := true
		for _, c := range f.rs {
			if c.Breakers()[lab.BreakerDownstream].State() == runtime.StateClosed {
				open = false
			}
		}
		if open {
			opened = time.Since(start)
			break
		}
		if time.Since(start) > 2*time.Second {
			tr.end()
			t.Fatalf("%s: the fleet did not open on the failures within 2 s (%d calls reached the dead server)", o.name, f.http.hits.Load())
		}
		time.Sleep(2 * time.Millisecond)
	}
	tr.end()
	return faultRow{attack: o.name, refused: tr.refused.Load(), calls: tr.calls.Load(),
		note: fmt.Sprintf("opened %s in, after %d calls to the dead server", opened.Round(time.Millisecond), f.http.hits.Load())}
}
