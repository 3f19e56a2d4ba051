package resgenredis_test

// The fleet's benchmarks (the cost a shared breaker adds to a call, how
// fast an open reaches the other replicas, throughput against gobreaker's
// distributed breaker), printed as one table by `make bench-fleet`
// (TestFleetBenchTable with RESGEN_FLEET_BENCH=1): every number comes from
// the same run, on one redis-server on loopback.
//
//  1. The added cost per call: the generated client's GetStatus through a
//     fleet breaker whose snapshot is fresh vs the same call through the
//     local breaker, on a canned transport (no network: the breaker's cost
//     is not lost in a round trip's noise); medians of paired blocks,
//     and the Redis commands per call, counted by a go-redis hook (the
//     sync loop's own commands included: they do not grow with the calls).
//  2. The open-propagation delay: 5 replicas, replica A's failures open
//     the fleet; how long after A's breaker each other replica's turns
//     open (State polled every 50 µs), over rounds with a new prefix each.
//  3. Calls per second, 5 replicas × 50 goroutines against one httptest
//     server, in rounds of 1 s of each kind in turn: gobreaker's
//     DistributedCircuitBreaker on the same Redis (the baseline; its lock
//     polling is cut short at the end of each round), resgen's fleet,
//     resgen's local breakers. Only calls completed within a round count.
//
// BenchmarkCallLocal and BenchmarkCallFleet are (1) for go test -bench.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/resgen/resgen/golden/lab"
	"github.com/resgen/resgen/redis/redistest"
	"github.com/resgen/resgen/runtime"
	"github.com/sony/gobreaker/v2"
)

var quiet = slog.New(slog.DiscardHandler)

// cmdCounter is a go-redis hook that counts the commands a client sends
// (a pipeline's each) and its round trips (a pipeline is one).
type cmdCounter struct{ cmds, trips atomic.Int64 }

func (h *cmdCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *cmdCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.cmds.Add(1)
		h.trips.Add(1)
		return next(ctx, cmd)
	}
}

func (h *cmdCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.cmds.Add(int64(len(cmds)))
		h.trips.Add(1)
		return next(ctx, cmds)
	}
}

func countedClient(tb testing.TB, addr string, h *cmdCounter) *redis.Client {
	rdb := newRedisClient(tb, addr)
	rdb.AddHook(h)
	return rdb
}

func overrides(tb testing.TB, doc string) *runtime.Overrides {
	o, err := runtime.ParseOverrides([]byte(doc))
	if err != nil {
		tb.Fatal(err)
	}
	return o
}

// cannedDoer answers 200 without a network, a fresh response each time
// as a transport makes.
type cannedDoer struct{}

func (cannedDoer) Do(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Body: http.NoBody, Header: http.Header{}}, nil
}

func newLabClient(tb testing.TB, server string, opts ...lab.Option) *lab.Client {
	c, err := lab.NewClient(server, append([]lab.Option{lab.WithLogger(quiet)}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// benchCalls is (1)'s loop; with h, it reports h's commands per call.
func benchCalls(b *testing.B, c *lab.Client, h *cmdCounter) {
	ctx := context.Background()
	var before int64
	if h != nil {
		before = h.cmds.Load()
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.GetStatus(ctx); err != nil {
			b.Fatal(err)
		}
	}
	if h != nil {
		b.ReportMetric(float64(h.cmds.Load()-before)/float64(b.N), "cmds/op")
	}
}

// hotFleetClient is (1)'s fleet replica: a lab client on a canned
// transport whose breakers joined a fleet and synced once (a fresh
// snapshot).
func hotFleetClient(tb testing.TB, addr string, h *cmdCounter) *lab.Client {
	const sync = 100 * time.Millisecond
	opt, closeFleet, err := fleetOption(countedClient(tb, addr, h), uniquePrefix("hot"), sync, quiet)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { closeFleet() })
	c := newLabClient(tb, "http://example.invalid", lab.WithHTTPClient(cannedDoer{}), opt)
	if _, err := c.GetStatus(context.Background()); err != nil {
		tb.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); h.trips.Load() == 0; time.Sleep(sync / 10) {
		if time.Now().After(deadline) {
			tb.Fatal("the fleet did not sync")
		}
	}
	time.Sleep(2 * sync)
	return c
}

func BenchmarkCallLocal(b *testing.B) {
	benchCalls(b, newLabClient(b, "http://example.invalid", lab.WithHTTPClient(cannedDoer{})), nil)
}

func BenchmarkCallFleet(b *testing.B) {
	srv := redistest.Start(b)
	h := new(cmdCounter)
	benchCalls(b, hotFleetClient(b, srv.Addr(), h), h)
}

var prefixes atomic.Int64

// uniquePrefix is a key prefix no other fleet of this process uses.
func uniquePrefix(name string) string {
	return fmt.Sprintf("%s-%d-%d", name, os.Getpid(), prefixes.Add(1))
}

// failingServer answers 500 and counts its hits.
func failingServer(tb testing.TB, hits *atomic.Int64) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if hits != nil {
			hits.Add(1)
		}
		w.WriteHeader(http.StatusInternalServerError)
	}))
	tb.Cleanup(s.Close)
	return s
}

// propagation is (2): for each of rounds, 5 fresh replicas (a new prefix)
// of which replica 0 calls a failing server until its breaker refuses;
// it returns how long after replica 0's breaker each other's turned open,
// and how many never did within a second.
func propagation(tb testing.TB, addr string, rounds int) (delays []time.Duration, missed int) {
	const replicas, sync = 5, 100 * time.Millisecond
	srv := failingServer(tb, nil)
	rdbs := make([]*redis.Client, replicas)
	for i := range rdbs {
		rdbs[i] = newRedisClient(tb, addr)
	}
	// Single attempts, and an open that outlasts the measurement.
	o := overrides(tb, `{"retries": {"default": {"maxAttempts": 1}}, "breakers": {"downstream": {"waitInOpen": "3s"}}}`)
	for range rounds {
		prefix := uniquePrefix("prop")
		brs := make([]*runtime.Breaker, replicas)
		var closers []func() error
		var clients []*lab.Client
		for i := range replicas {
			opt, closeFleet, err := fleetOption(rdbs[i], prefix, sync, quiet)
			if err != nil {
				tb.Fatal(err)
			}
			closers = append(closers, closeFleet)
			c := newLabClient(tb, srv.URL, lab.WithHTTPClient(srv.Client()), lab.WithOverrides(o), opt)
			clients = append(clients, c)
			brs[i] = c.Breakers()[lab.BreakerDownstream]
		}
		time.Sleep(2 * sync) // every replica's breaker joined and synced
		opened := make([]time.Time, replicas)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for left, end := replicas, time.Now().Add(2*time.Second); left > 0 && time.Now().Before(end); time.Sleep(50 * time.Microsecond) {
				for i, b := range brs {
					if opened[i].IsZero() && b.State() == runtime.StateOpen {
						opened[i] = time.Now()
						left--
					}
				}
			}
		}()
		for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
			if _, err := clients[0].GetStatus(context.Background()); errors.As(err, new(*runtime.CircuitOpenError)) {
				break
			}
		}
		<-done
		for i := 1; i < replicas; i++ {
			if opened[0].IsZero() || opened[i].IsZero() {
				missed++
				continue
			}
			delays = append(delays, opened[i].Sub(opened[0]))
		}
		for _, c := range closers {
			c()
		}
	}
	srv.Client().CloseIdleConnections()
	return delays, missed
}

// load is (3)'s result for one kind of breaker.
type load struct {
	lat    []time.Duration // of the calls completed within the wall time
	failed int             // of those, the calls that returned an error
	idle   int             // goroutines that completed no call
	rounds int
	wall   time.Duration
	cmds   int64 // Redis commands sent within the wall time
}

func (l load) perSecond() float64 { return float64(len(l.lat)) / l.wall.Seconds() }

// add sums the rounds l and m of one kind.
func (l load) add(m load) load {
	return load{lat: append(l.lat, m.lat...), failed: l.failed + m.failed, idle: l.idle + m.idle,
		rounds: l.rounds + m.rounds, wall: l.wall + m.wall, cmds: l.cmds + m.cmds}
}

// runLoad runs call(replica) from goroutines per replica until wall ends;
// atEnd runs when it ends (calls finished later are not counted).
func runLoad(replicas, goroutines int, wall time.Duration, call func(replica int) error, atEnd func()) load {
	var mu sync.Mutex
	var lat []time.Duration
	failed, idle := 0, 0
	end := time.Now().Add(wall)
	stop := time.AfterFunc(wall, atEnd)
	defer stop.Stop()
	var wg sync.WaitGroup
	for r := range replicas {
		for range goroutines {
			wg.Go(func() {
				var mine []time.Duration
				bad := 0
				for {
					t0 := time.Now()
					if !t0.Before(end) {
						break
					}
					err := call(r)
					t1 := time.Now()
					if t1.After(end) {
						break
					}
					mine = append(mine, t1.Sub(t0))
					if err != nil {
						bad++
					}
				}
				mu.Lock()
				lat = append(lat, mine...)
				failed += bad
				if len(mine) == 0 {
					idle++
				}
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	return load{lat: lat, failed: failed, idle: idle, rounds: 1, wall: wall}
}

// okServer answers 200.
func okServer(tb testing.TB) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	tb.Cleanup(s.Close)
	return s
}

// replicaHTTP is one replica's own HTTP client, pooled for its goroutines.
func replicaHTTP(tb testing.TB, goroutines int) *http.Client {
	tr := &http.Transport{MaxIdleConnsPerHost: goroutines}
	tb.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

const replicas, goroutines = 5, 50

// loadGobreaker is (3) with gobreaker's DistributedCircuitBreaker: one
// per replica, each with its own go-redis client, all on one lock.
func loadGobreaker(tb testing.TB, addr string, srv *httptest.Server, wall time.Duration) load {
	h := new(cmdCounter)
	prefix := uniquePrefix("gobreaker")
	stores := make([]*gobreakerStore, replicas)
	dcbs := make([]*gobreaker.DistributedCircuitBreaker[struct{}], replicas)
	hcs := make([]*http.Client, replicas)
	for i := range replicas {
		stores[i] = newGobreakerStore(countedClient(tb, addr, h), prefix)
		dcb, err := gobreaker.NewDistributedCircuitBreaker[struct{}](stores[i], gobreaker.Settings{Name: "downstream"})
		if err != nil {
			tb.Fatal(err)
		}
		dcbs[i], hcs[i] = dcb, replicaHTTP(tb, goroutines)
	}
	before := h.cmds.Load()
	var cmds int64
	l := runLoad(replicas, goroutines, wall, func(r int) error {
		_, err := dcbs[r].Execute(func() (struct{}, error) { return struct{}{}, get(hcs[r], srv.URL+"/status") })
		return err
	}, func() {
		cmds = h.cmds.Load() - before
		for _, s := range stores {
			s.released.Store(true)
		}
	})
	l.cmds = cmds
	return l
}

func get(hc *http.Client, url string) error {
	resp, err := hc.Get(url)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return errors.New(resp.Status)
	}
	return nil
}

// loadResgen is (3) with generated lab clients, one per replica; with
// fleet, each is a replica of one fleet with its own go-redis client.
func loadResgen(tb testing.TB, addr string, srv *httptest.Server, wall time.Duration, fleet bool) load {
	h := new(cmdCounter)
	prefix := uniquePrefix("load")
	clients := make([]*lab.Client, replicas)
	for i := range replicas {
		opts := []lab.Option{lab.WithHTTPClient(replicaHTTP(tb, goroutines))}
		if fleet {
			opt, closeFleet, err := fleetOption(countedClient(tb, addr, h), prefix, 100*time.Millisecond, quiet)
			if err != nil {
				tb.Fatal(err)
			}
			tb.Cleanup(func() { closeFleet() })
			opts = append(opts, opt)
		}
		clients[i] = newLabClient(tb, srv.URL, opts...)
	}
	before := h.cmds.Load()
	var cmds int64
	l := runLoad(replicas, goroutines, wall, func(r int) error {
		_, err := clients[r].GetStatus(context.Background())
		return err
	}, func() { cmds = h.cmds.Load() - before })
	l.cmds = cmds
	return l
}

// median of xs (sorted in place).
func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

func percentile(ds []time.Duration, p int) time.Duration {
	slices.Sort(ds)
	return ds[min(len(ds)*p/100, len(ds)-1)]
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// TestFleetBenchTable prints the table of `make bench-fleet`.
// RESGEN_FLEET_BENCH_PAIRS (200) pairs of blocks in (1), RESGEN_FLEET_BENCH_PROP
// (50) rounds of (2), RESGEN_FLEET_BENCH_LOAD (3) rounds of 1 s per kind in (3).
func TestFleetBenchTable(t *testing.T) {
	if os.Getenv("RESGEN_FLEET_BENCH") != "1" {
		t.Skip("RESGEN_FLEET_BENCH=1 (make bench-fleet) runs it")
	}
	srv := redistest.Start(t)
	pairs := envInt("RESGEN_FLEET_BENCH_PAIRS", 200)
	propRounds := envInt("RESGEN_FLEET_BENCH_PROP", 50)
	loadRounds := envInt("RESGEN_FLEET_BENCH_LOAD", 3)
	var rows [][]string
	row := func(cells ...string) { rows = append(rows, cells) }

	// (1) Paired blocks: a block of calls through each client in turn
	// (the order alternating), so that the machine's load drifts over
	// both alike; medians of the blocks' ns per call and of the pairs'
	// differences.
	h := new(cmdCounter)
	local := newLabClient(t, "http://example.invalid", lab.WithHTTPClient(cannedDoer{}))
	fleetClient := hotFleetClient(t, srv.Addr(), h)
	const block = 5000
	ctx := context.Background()
	timeBlock := func(c *lab.Client) float64 {
		t0 := time.Now()
		for range block {
			if _, err := c.GetStatus(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return float64(time.Since(t0).Nanoseconds()) / block
	}
	var fleetCmds int64
	var fleetTime time.Duration
	fleetBlock := func() float64 {
		before, t0 := h.cmds.Load(), time.Now()
		ns := timeBlock(fleetClient)
		fleetCmds, fleetTime = fleetCmds+h.cmds.Load()-before, fleetTime+time.Since(t0)
		return ns
	}
	var nsLocal, nsFleet, diffs []float64
	for i := range pairs {
		var l, f float64
		if i%2 == 0 {
			l, f = timeBlock(local), fleetBlock()
		} else {
			f, l = fleetBlock(), timeBlock(local)
		}
		nsLocal, nsFleet, diffs = append(nsLocal, l), append(nsFleet, f), append(diffs, f-l)
	}
	allocs := func(c *lab.Client) float64 {
		return testing.AllocsPerRun(1000, func() { c.GetStatus(ctx) })
	}
	row(fmt.Sprintf("call cost, GetStatus on a canned transport (medians of %d paired blocks of %d calls)", pairs, block), "",
		fmt.Sprintf("%.0f ns/op, %.0f allocs", median(nsLocal), allocs(local)),
		fmt.Sprintf("%.0f ns/op, %.0f allocs", median(nsFleet), allocs(fleetClient)),
		fmt.Sprintf("%+.0f ns (×%.2f)", median(diffs), median(nsFleet)/median(nsLocal)), "≤ +100 ns")
	fleetCalls := float64(pairs * block)
	row("Redis commands per call (hook; the sync loop's included)", "", "0",
		fmt.Sprintf("%.2g (%d in %.1f s of calls: the sync loop's)", float64(fleetCmds)/fleetCalls, fleetCmds, fleetTime.Seconds()), "", "0")

	// (2)
	if delays, missed := propagation(t, srv.Addr(), propRounds); len(delays) > 0 || missed > 0 {
		cell := "none"
		if len(delays) > 0 {
			cell = fmt.Sprintf("p50 %s, p99 %s, max %s", ms(percentile(delays, 50)), ms(percentile(delays, 99)), ms(slices.Max(delays)))
		}
		if missed > 0 {
			cell += fmt.Sprintf(", %d never opened in 2 s", missed)
		}
		row(fmt.Sprintf("open propagation, replica A → 4 others, %d rounds (State polled every 50 µs)", propRounds), "", "", cell, "", "p99 ≤ 50 ms")
	}

	// (3) Rounds of 1 s of each kind in turn, so that the machine's load
	// drifts over the three alike.
	s := okServer(t)
	var base, loc, fl load
	for range loadRounds {
		base = base.add(loadGobreaker(t, srv.Addr(), s, time.Second))
		loc = loc.add(loadResgen(t, srv.Addr(), s, time.Second, false))
		fl = fl.add(loadResgen(t, srv.Addr(), s, time.Second, true))
	}
	cells := func(l load) string {
		c := fmt.Sprintf("%.0f calls/s (p50 %s, p99 %s", l.perSecond(), ms(percentile(l.lat, 50)), ms(percentile(l.lat, 99)))
		if l.failed > 0 {
			c += fmt.Sprintf(", %d failed", l.failed)
		}
		if l.idle > 0 {
			c += fmt.Sprintf("; %d of %d goroutines completed no call in a round", l.idle/l.rounds, replicas*goroutines)
		}
		return c + ")"
	}
	cmdsPer := func(l load) string {
		return fmt.Sprintf("%.3g (%.0f/s)", float64(l.cmds)/float64(len(l.lat)), float64(l.cmds)/l.wall.Seconds())
	}
	row(fmt.Sprintf("throughput, %d replicas × %d goroutines, httptest server, %d rounds of 1 s", replicas, goroutines, loadRounds),
		cells(base), cells(loc), cells(fl), fmt.Sprintf("×%.1f gobreaker's, ×%.2f local", fl.perSecond()/base.perSecond(), fl.perSecond()/loc.perSecond()), "")
	row("Redis commands per call in that run", cmdsPer(base), "0", cmdsPer(fl), "", "")

	load, _ := os.ReadFile("/proc/loadavg")
	var out strings.Builder
	fmt.Fprintf(&out, "\nresgen fleet breakers on one redis-server (loopback); load average %s\n\n", strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Fprintln(&out, "| measure | gobreaker DistributedCircuitBreaker | resgen local | resgen fleet | fleet vs | goal |")
	fmt.Fprintln(&out, "|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintln(&out, "| "+strings.Join(r, " | ")+" |")
	}
	fmt.Print(out.String())
}
