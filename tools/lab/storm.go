package lab

// The storm: the published retry-storm setup. 50 users × 5 requests, a
// closed loop with no think time, all starting at once, against a server
// that serves 10 at a time (200 ms each), queues 20 in arrival order and
// turns the rest away. The 30 users admitted first keep their places (each
// answer is followed at once by their next request), so the 20 turned
// away at t=0 cannot get in until those finish, about 3 s later: what a
// policy does in those seconds is the experiment.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/resgen/resgen/runtime"
)

// The storm's model, in scenario time.
const (
	stormUsers        = 50
	stormCallsPerUser = 5
	stormCapacity     = 10
	stormService      = 200 * time.Millisecond
	stormQueueSize    = 20
	// stormHold is how long the timeout overload mode holds an excess
	// request before its 503.
	stormHold = 10 * time.Second
	// stormBucket is the width of the plots' buckets, in seconds.
	stormBucket = 0.1
)

// stormFloor is the least wall time the model allows: every logical call
// served once at the server's full throughput.
var stormFloor = time.Duration(stormUsers*stormCallsPerUser) * stormService / stormCapacity

// OverloadPreset is the retry policy docs/x-resilience.md recommends for
// overload-prone endpoints (the `overload` preset; testdata/specs/lab.yaml
// has the same values as YAML, a test keeps them equal). An overload lasts
// seconds, not milliseconds: each wait is drawn in [1.25 s, 2.5 s] (equal
// jitter on a constant 2.5 s), so nobody comes straight back, the clients
// turned away together come back spread out, and five retries cover a
// backlog of up to ~12 s; a server's longer Retry-After still wins.
func OverloadPreset() runtime.RetryPolicy {
	p := runtime.DefaultRetryPolicy()
	p.Policy = "overload"
	p.MaxAttempts = 6
	p.Backoff = runtime.ConstantBackoff
	p.InitialInterval = 2500 * time.Millisecond
	p.Jitter = runtime.EqualJitter
	return p
}

// stormBudget is Finagle's default RetryBudget (percentCanRetry 0.2,
// minRetriesPerSec 10 over a 10 s TTL), the example of the contract.
var stormBudget = runtime.Budget{Ratio: 0.2, MinPerSecond: 10}

// stormStrategy is a strategy with whether its server sends Retry-After.
type stormStrategy struct {
	Strategy
	hints bool
}

// stormStrategies are the strategies of a run: the spec's policy, and with
// Compare the alternatives, all with the target's breaker.
func stormStrategies(t *Target, o Options) []stormStrategy {
	out := []stormStrategy{{stormSpec(t), o.RetryAfter}}
	if !o.Compare {
		return out
	}
	add := func(name, about string, r *runtime.RetryPolicy, hints bool) {
		s := SpecStrategy(t)
		s.Name, s.About, s.Retry = name, about, r
		out = append(out, stormStrategy{s, hints})
	}
	add("none", "no retry", nil, o.RetryAfter)
	naive := runtime.DefaultRetryPolicy()
	naive.Policy, naive.MaxAttempts, naive.Backoff, naive.InitialInterval, naive.Jitter, naive.RetryAfter =
		"naive", 5, runtime.ConstantBackoff, 0, runtime.NoJitter, false
	add("naive", "5 attempts at once, no wait, Retry-After ignored", &naive, o.RetryAfter)
	for _, budget := range []bool{false, true} {
		for _, j := range []runtime.Jitter{runtime.NoJitter, runtime.FullJitter, runtime.EqualJitter, runtime.DecorrelatedJitter} {
			p := runtime.DefaultRetryPolicy()
			p.Policy, p.MaxAttempts, p.Jitter = "exp-"+j.String(), 5, j
			name, about := "exp-"+j.String(), "5 attempts, 100ms × 2 up to 5s, "+j.String()+" jitter"
			if budget {
				b := stormBudget
				p.Budget = &b
				name += "+budget"
				about += ", budget 20% + 10/s"
			}
			add(name, about, &p, o.RetryAfter)
		}
	}
	preset := OverloadPreset()
	add("overload", "the overload preset: "+retryWords(&preset), &preset, o.RetryAfter)
	if !o.RetryAfter {
		p := OverloadPreset()
		add("overload+hints", "the overload preset, the server sending Retry-After", &p, true)
	}
	return out
}

// stormSpec is the spec's strategy as the generated client runs it: an
// operation that is not retry-safe makes one attempt whatever its retry.
func stormSpec(t *Target) Strategy {
	s := SpecStrategy(t)
	if t.NotRetrySafe {
		s.Retry = nil
	}
	return s
}

// StormResults are a storm run's numbers (scenario time).
type StormResults struct {
	Users        int     `json:"users"`
	CallsPerUser int     `json:"callsPerUser"`
	LogicalCalls int     `json:"logicalCalls"`
	Capacity     int     `json:"capacity"`
	ServiceS     float64 `json:"serviceS"`
	Queue        int     `json:"queue"`
	Overload     string  `json:"overload"`
	FloorS       float64 `json:"floorS"`
	// Strategies are in the table's order.
	Strategies []StormStrategyResult `json:"strategies"`
}

// StormStrategyResult is one strategy's row.
type StormStrategyResult struct {
	Name  string `json:"name"`
	About string `json:"about"`
	// RetryAfter: the server sent Retry-After hints to this strategy.
	RetryAfter     bool    `json:"retryAfter"`
	ServerRequests int64   `json:"serverRequests"`
	Amplification  float64 `json:"amplification"`
	Succeeded      int     `json:"succeeded"`
	SuccessPct     float64 `json:"successPct"`
	WallS          float64 `json:"wallS"`
	WallOverFloor  float64 `json:"wallOverFloor"`
	P50S           float64 `json:"p50S"`
	P99S           float64 `json:"p99S"`
	// Rejected are the server's refusals (503s, or held requests in the
	// timeout mode).
	Rejected int `json:"rejected"`
	// Answers503 and AttemptTimeouts are what the client's attempts got.
	Answers503      int64 `json:"answers503"`
	AttemptTimeouts int64 `json:"attemptTimeouts"`
	// BreakerOpens counts the breaker's changes to open.
	BreakerOpens int `json:"breakerOpens"`
	// BudgetRefused counts calls whose retry the budget refused.
	BudgetRefused int64 `json:"budgetRefused"`
	// CallsRefused counts calls the breaker refused (nothing sent).
	CallsRefused int64 `json:"callsRefused"`

	load, rejects []Point
	log           []string
}

func storm(ctx context.Context, t *Target, o Options) (*Report, error) {
	return stormRun(ctx, t, o, false)
}

// stormRun runs every strategy, each with its own server and client, all
// at once unless sequential (the check that running them together does
// not change the numbers).
func stormRun(ctx context.Context, t *Target, o Options, sequential bool) (*Report, error) {
	switch o.Overload {
	case "":
		o.Overload = "reject"
	case "reject", "timeout":
	default:
		return nil, fmt.Errorf("storm: -overload must be reject or timeout, not %q", o.Overload)
	}
	strategies := stormStrategies(t, o)
	for _, s := range strategies {
		if err := checkRetrySafe(t, s.Strategy); err != nil {
			return nil, err
		}
	}
	clk := clock{o.Speed}
	// At real speed the strategies run together: each is 50 users at 50
	// requests/s, far from what the machine can serve, and the whole
	// comparison stays under a minute. Sped up ×N, each strategy asks N
	// times as much of the machine, so fewer run at once: about as many
	// requests per second in all as at real speed, or the run would
	// measure the scheduler instead of the policies.
	parallel := max(1, int(math.Round(float64(len(strategies))/o.Speed)))
	if sequential {
		parallel = 1
	}
	results, err := runEach(o, "storm", fmt.Sprintf("%d strategies", len(strategies)), clk.d(3*stormFloor/2), len(strategies), parallel,
		func(i int) (StormStrategyResult, error) {
			return stormOne(ctx, clk, t, strategies[i], o.Overload == "timeout")
		})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	return stormReport(t, o, results), nil
}

// stormOne runs one strategy: its server, its client, the 50 users.
func stormOne(ctx context.Context, clk clock, t *Target, s stormStrategy, holdExcess bool) (StormStrategyResult, error) {
	stop := make(chan struct{})
	q := &stormQueue{clk: clk, hints: s.hints, hold: holdExcess, stop: stop}
	srv := clk.NewServer(q.handle)
	defer srv.Close()
	defer close(stop) // before Close: no handler outlives the run
	obs := &stormObserver{Counter: clk.NewCounter()}
	var logs lockedBuffer
	cl := clk.NewClient(t, s.Strategy, srv.URL, obs, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn, ReplaceAttr: dropTime})))
	defer cl.Close()

	latency := make([]time.Duration, stormUsers*stormCallsPerUser)
	var ok atomic.Int64
	start := time.Now()
	Users(stormUsers, stormCallsPerUser, func(u, i int) {
		if ctx.Err() != nil {
			return
		}
		req, err := http.NewRequestWithContext(ctx, t.Method, cl.URL, nil)
		if err != nil {
			return
		}
		t0 := time.Now()
		resp, _, err := cl.Op.Do(ctx, req)
		latency[u*stormCallsPerUser+i] = clk.back(time.Since(t0))
		if err == nil && resp.StatusCode < 300 {
			ok.Add(1)
		}
		Drain(resp)
	})
	wall := clk.back(time.Since(start))
	if err := ctx.Err(); err != nil {
		return StormStrategyResult{}, err
	}
	calls := stormUsers * stormCallsPerUser
	r := StormStrategyResult{
		Name: s.Name, About: s.About, RetryAfter: s.hints,
		ServerRequests: srv.Requests(), Succeeded: int(ok.Load()),
		WallS: wall.Seconds(), WallOverFloor: wall.Seconds() / stormFloor.Seconds(),
		P50S: Percentile(latency, 50).Seconds(), P99S: Percentile(latency, 99).Seconds(),
		Answers503: obs.answers503.Load(), AttemptTimeouts: obs.timeouts.Load(),
		BudgetRefused: obs.budgetRefused.Load(), CallsRefused: obs.Rejections.Load(),
		load: peakPerBucket(srv.Load(), stormBucket), log: logs.lines(),
	}
	r.Amplification = float64(r.ServerRequests) / float64(calls)
	r.SuccessPct = 100 * float64(r.Succeeded) / float64(calls)
	rejects := srv.RejectTimes()
	r.Rejected, r.rejects = len(rejects), Rate(rejects, stormBucket)
	for _, c := range obs.Changes() {
		if c.To == runtime.StateOpen {
			r.BreakerOpens++
		}
	}
	return r, nil
}

// stormQueue is the server's model: stormCapacity requests served at a
// time, stormQueueSize more waiting in arrival order (Go's mutexes and
// channels promise no order, so the queue is explicit), the rest refused.
type stormQueue struct {
	clk   clock
	hints bool // send Retry-After
	hold  bool // the timeout overload mode
	stop  <-chan struct{}

	mu      sync.Mutex
	busy    int
	waiting []chan struct{} // closed when the slot passes to its waiter
}

func (q *stormQueue) handle(s *Server, w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q.mu.Lock()
	switch {
	case q.busy < stormCapacity:
		q.busy++
		q.mu.Unlock()
	case len(q.waiting) < stormQueueSize:
		turn := make(chan struct{})
		q.waiting = append(q.waiting, turn)
		q.mu.Unlock()
		select {
		case <-turn:
		case <-ctx.Done():
			q.leave(turn)
			return
		case <-q.stop:
			q.leave(turn)
			return
		}
	default:
		q.mu.Unlock()
		q.refuse(s, w, ctx)
		return
	}
	defer q.release()
	if q.sleep(ctx, stormService) {
		w.WriteHeader(http.StatusOK)
	}
}

// refuse answers a request beyond the queue: a 503 now, or in the timeout
// mode no answer for stormHold (holding no slot), then the 503.
func (q *stormQueue) refuse(s *Server, w http.ResponseWriter, ctx context.Context) {
	s.Rejected()
	if q.hold && !q.sleep(ctx, stormHold) {
		return
	}
	if q.hints {
		secs := q.hint()
		if q.clk.speed <= 1 {
			w.Header().Set("Retry-After", strconv.Itoa(secs))
		} else {
			// The same hint on the sped-up clock; the runtime reads
			// Retry-After-Ms before Retry-After.
			w.Header().Set("Retry-After-Ms", strconv.FormatFloat(float64(secs)*1000/q.clk.speed, 'f', -1, 64))
		}
	}
	w.WriteHeader(http.StatusServiceUnavailable)
}

// hint is the Retry-After a server can honestly compute from its queue:
// the time until a request joining the queue now would be served, in
// whole seconds (Retry-After has no finer unit), at least 1.
func (q *stormQueue) hint() int {
	q.mu.Lock()
	n := len(q.waiting) + 1
	q.mu.Unlock()
	drain := time.Duration(n) * stormService / stormCapacity
	return max(1, int(math.Ceil(drain.Seconds())))
}

// leave takes a waiter that gave up out of the queue; if its turn had
// come already, it passes the slot on.
func (q *stormQueue) leave(turn chan struct{}) {
	q.mu.Lock()
	if i := slices.Index(q.waiting, turn); i >= 0 {
		q.waiting = slices.Delete(q.waiting, i, i+1)
		q.mu.Unlock()
		return
	}
	q.mu.Unlock()
	q.release()
}

// release frees a slot: the queue's head gets it, else it is free.
func (q *stormQueue) release() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiting) > 0 {
		close(q.waiting[0])
		q.waiting = q.waiting[1:]
		return
	}
	q.busy--
}

// sleep waits d of scenario time; false when the request or the run ended first.
func (q *stormQueue) sleep(ctx context.Context, d time.Duration) bool {
	tm := time.NewTimer(q.clk.d(d))
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
	case <-q.stop:
	}
	return false
}

// stormObserver counts, beyond Counter, what the attempts got and the
// retries the budget refused.
type stormObserver struct {
	*Counter
	answers503, timeouts, budgetRefused atomic.Int64
}

func (o *stormObserver) Attempt(e runtime.AttemptEvent) {
	o.Counter.Attempt(e)
	switch {
	case e.StatusCode == http.StatusServiceUnavailable:
		o.answers503.Add(1)
	case errors.Is(e.Err, runtime.ErrAttemptTimeout):
		o.timeouts.Add(1)
	}
}

func (o *stormObserver) CallEnd(e runtime.CallEndEvent) {
	if errors.Is(e.StopErr, runtime.ErrBudgetSpent) {
		o.budgetRefused.Add(1)
	}
}

// peakPerBucket reduces a step series to the highest value in each bucket
// of width seconds, so a plot of hundreds of changes stays small and
// still shows every peak. A point stamped a hair before the one kept
// before it (the server takes the time before its lock) joins that
// bucket, so X stays ascending.
func peakPerBucket(pts []Point, width float64) []Point {
	var out []Point
	for _, p := range pts {
		x := math.Floor(p.X/width) * width
		if n := len(out); n > 0 && out[n-1].X >= x {
			out[n-1].Y = max(out[n-1].Y, p.Y)
			continue
		}
		out = append(out, Point{x, p.Y})
	}
	return out
}

// stormPlotted are the strategies the plots draw when there are more:
// one of each kind (the spec's, none, naive, backoff with and without a
// budget, the preset).
var stormPlotted = []string{"spec", "none", "naive", "exp-full", "exp-full+budget", "overload", "overload+hints"}

// stormReport builds the report from the strategies' results.
func stormReport(t *Target, o Options, rs []StormStrategyResult) *Report {
	calls := stormUsers * stormCallsPerUser
	excess := "an immediate 503"
	if o.Overload == "timeout" {
		excess = fmt.Sprintf("no answer for %v (holding no slot), then a 503: overload shows as slow answers", stormHold)
	}
	bk := "no breaker"
	if t.Breaker != nil {
		bk = "breaker " + t.BreakerName
		if t.Breaker.Policy != "" && t.Breaker.Policy != t.BreakerName {
			bk += " (" + t.Breaker.Policy + ")"
		}
	}
	rep := &Report{Policy: policyWords(t)}
	rep.Setup = []string{
		fmt.Sprintf("%d users × %d requests each, a closed loop with no think time, all starting at t=0 (%d logical calls)", stormUsers, stormCallsPerUser, calls),
		fmt.Sprintf("server: %d served at a time, %v each; a queue of %d in arrival order; beyond %d in the system, %s", stormCapacity, stormService, stormQueueSize, stormCapacity+stormQueueSize, excess),
		fmt.Sprintf("floor: %d calls ÷ (%d / %v) = %v", calls, stormCapacity, stormService, stormFloor),
	}
	if o.RetryAfter {
		rep.Setup = append(rep.Setup, "every 503 carries Retry-After: the time until a request joining the queue would be served, whole seconds, at least 1")
	}
	if o.Speed > 1 {
		rep.Setup = append(rep.Setup, speedNote(o.Speed))
	}
	tb := Table{
		Title:   "storm: " + t.OperationID,
		Columns: []string{"strategy", "server requests", "amplification", "success", "wall (s)", "wall/floor", "p50 (s)", "p99 (s)", "breaker opens", "budget refused"},
	}
	for _, r := range rs {
		tb.Rows = append(tb.Rows, []string{r.Name, strconv.FormatInt(r.ServerRequests, 10), fmt.Sprintf("%.2f×", r.Amplification),
			fmt.Sprintf("%.0f%%", r.SuccessPct), fmt.Sprintf("%.2f", r.WallS), fmt.Sprintf("%.2f×", r.WallOverFloor),
			fmt.Sprintf("%.2f", r.P50S), fmt.Sprintf("%.2f", r.P99S), strconv.Itoa(r.BreakerOpens), strconv.FormatInt(r.BudgetRefused, 10)})
		tb.Notes = append(tb.Notes, r.Name+": "+r.About)
	}
	tb.Notes = append(tb.Notes,
		fmt.Sprintf("every strategy keeps the spec's breaker (%s): it is what the client would have", bk),
		fmt.Sprintf("amplification = server requests ÷ %d logical calls; latency is of logical calls (waits included, failures too); wall/floor against %v", calls, stormFloor))
	if o.Speed > 1 {
		tb.Notes = append(tb.Notes, speedNote(o.Speed))
	}
	rep.Tables = []Table{tb}

	load := Plot{Name: "storm", Title: "server in-flight requests (queue + served), peak per 100 ms", XLabel: "time (s)", YLabel: "in-flight requests", Step: true}
	rejects := Plot{Name: "storm-rejections", Title: "server rejections per second", XLabel: "time (s)", YLabel: "rejections/s", Step: true}
	for _, r := range rs {
		if len(rs) > len(stormPlotted) && !slices.Contains(stormPlotted, r.Name) {
			continue // results.json has every strategy; a plot of 13 lines shows none
		}
		load.Series = append(load.Series, Series{Name: r.Name, Points: r.load})
		rejects.Series = append(rejects.Series, Series{Name: r.Name, Points: r.rejects})
		for _, l := range r.log {
			if len(rep.Log) < 6 {
				rep.Log = append(rep.Log, r.Name+": "+l)
			}
		}
	}
	load.Marks = []Mark{{X: stormFloor.Seconds(), Label: "floor"}}
	rep.Plots = []Plot{load, rejects}
	rep.Findings = stormFindings(rs)
	rep.Results = StormResults{Users: stormUsers, CallsPerUser: stormCallsPerUser, LogicalCalls: calls, Capacity: stormCapacity,
		ServiceS: stormService.Seconds(), Queue: stormQueueSize, Overload: o.Overload, FloorS: stormFloor.Seconds(), Strategies: rs}
	return rep
}

// stormFindings says what the numbers show.
func stormFindings(rs []StormStrategyResult) []string {
	var f []string
	for _, r := range rs {
		if r.BreakerOpens > 0 {
			times := "once"
			if r.BreakerOpens > 1 {
				times = strconv.Itoa(r.BreakerOpens) + " times"
			}
			f = append(f, fmt.Sprintf("%s: the breaker opened %s; %d calls were refused without reaching the server", r.Name, times, r.CallsRefused))
		}
	}
	var best *StormStrategyResult
	for i := range rs {
		r := &rs[i]
		if r.SuccessPct >= 99 && (best == nil || r.Amplification < best.Amplification) {
			best = r
		}
	}
	if best != nil {
		f = append(f, fmt.Sprintf("least amplification with ≥ 99%% success: %s, %.2f× at %.0f%%, wall %.2f× the floor", best.Name, best.Amplification, best.SuccessPct, best.WallOverFloor))
	} else {
		f = append(f, "no strategy reached 99% success")
	}
	worst := slices.MaxFunc(rs, func(a, b StormStrategyResult) int { return cmp.Compare(a.Amplification, b.Amplification) })
	if worst.Amplification > 1.5 {
		f = append(f, fmt.Sprintf("most load: %s, %d requests for %d calls (%.2f×), %.0f%% succeeded", worst.Name, worst.ServerRequests, stormUsers*stormCallsPerUser, worst.Amplification, worst.SuccessPct))
	}
	return f
}
