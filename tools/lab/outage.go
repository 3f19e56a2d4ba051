package lab

// The outage scenario: a healthy server goes down for a while, then comes
// back. What it measures is what a breaker is for: how soon it stops the
// load on a dead server, what still reaches it (half-open trials, and the
// retries of calls admitted before the open), how long the callers fail
// fast, and how long after the server is back they still do.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/resgen/resgen/runtime"
)

// The model, in scenario time.
const (
	// outageUsers call in a closed loop, each waiting outageThink after
	// every call (success, failure or refusal) before the next. User u
	// makes its first call u/outageUsers of a think time after the start,
	// so the users do not call in lockstep.
	outageUsers = 20
	outageThink = 100 * time.Millisecond
	// outageHealthy is the healthy time before the outage: enough calls
	// to fill the breaker's window with successes, so the open is a
	// healthy breaker's reaction to an outage.
	outageHealthy = 5 * time.Second
	// outageDown is the outage's length when Options.Down is 0.
	outageDown = 10 * time.Second
	// outageTail is the healthy traffic kept after the breaker could have
	// closed again.
	outageTail = 2 * time.Second
	// outagePoll is how often the run looks whether it may end.
	outagePoll = 100 * time.Millisecond
	// outageBucket is the width of the rate plot's buckets, in seconds.
	outageBucket = 0.5
	// outageSync is a fleet replica's sync interval, runtime.FleetOptions'
	// default; outageLease its permit lease, the default for that interval.
	outageSync  = 100 * time.Millisecond
	outageLease = time.Second
	// maxReplicas bounds Options.Replicas: each is a client with its own
	// connections, and a hundred make the point of a thousand.
	maxReplicas = 100
)

// outagePlan is one run's timeline (scenario time from the server's start).
type outagePlan struct {
	users        int
	think        time.Duration
	downAt, upAt time.Duration
	// horizon is when the run ends if every breaker is closed by then
	// (upAt + the breaker's wait in open + outageTail: a breaker that
	// re-opened just before the server came back has had its trials);
	// bound is when it ends anyway.
	horizon, bound time.Duration
	// replicas is how many clients (each its own engine and breaker)
	// share the users, round robin, against the one server.
	replicas int
	// fleet makes the stores of the fleet strategy's run.
	fleet FleetStores
}

// newOutagePlan: with more replicas than outageUsers, one user each.
func newOutagePlan(t *Target, down time.Duration, o Options) outagePlan {
	wait := 60 * time.Second // the runtime's meaning of WaitInOpen ≤ 0
	if t.Breaker.WaitInOpen > 0 {
		wait = t.Breaker.WaitInOpen
	}
	replicas := max(o.Replicas, 1)
	p := outagePlan{users: max(outageUsers, replicas), think: outageThink, downAt: outageHealthy, replicas: replicas, fleet: o.Fleet}
	p.upAt = p.downAt + down
	p.horizon = p.upAt + wait + outageTail
	p.bound = p.horizon + wait
	return p
}

// outage runs the scenario: the spec's policy and, with Compare, the same
// retry without a breaker and the breaker inside the retry, concurrently,
// each against its own server.
func outage(ctx context.Context, t *Target, o Options) (*Report, error) {
	if t.Breaker == nil {
		return nil, fmt.Errorf("%w: lab outage measures how a breaker opens on a dead server and recovers after it, and %s %s (%s) has breaker: none; give it a breaker in its x-resilience, or run the lab on an operation that has one",
			ErrRefused, t.Method, t.Path, t.OperationID)
	}
	down := o.Down
	switch {
	case down < 0:
		return nil, fmt.Errorf("lab outage: the outage's length must be positive, not %v", down)
	case down == 0:
		down = outageDown
	}
	if o.Replicas > maxReplicas {
		return nil, fmt.Errorf("lab outage: at most %d replicas, not %d", maxReplicas, o.Replicas)
	}
	strategies := outageStrategies(t, o.Compare, o.Fleet != nil)
	for _, s := range strategies {
		if err := checkRetrySafe(t, s); err != nil {
			return nil, err
		}
	}
	clk := clock{o.Speed}
	p := newOutagePlan(t, down, o)
	runs, err := clk.runOutages(ctx, o, t, strategies, p, true)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return outageReport(t, o, p, runs), nil
}

// outageStrategies: the spec's policy first; with fleet, named local, and
// then the same with the replicas' breakers shared (fleet); with compare,
// the same retry with no breaker (the load a breaker saves) and, when the
// spec retries, the breaker inside the retry (each attempt a sample,
// refusals retried). Without retries the two orders are one.
func outageStrategies(t *Target, compare, fleet bool) []Strategy {
	spec := SpecStrategy(t)
	spec.About = "as generated: " + strategyWords(spec) + "; the breaker outside the retry"
	ss := []Strategy{spec}
	if fleet {
		ss[0].Name = "local"
		ss[0].About += "; one breaker per replica"
		shared := ss[0]
		shared.Name, shared.Fleet = "fleet", true
		shared.About = "as generated, the replicas' breakers shared through a runtime.Fleet (WithFleet)"
		ss = append(ss, shared)
	}
	if !compare {
		return ss
	}
	none := SpecStrategy(t)
	none.Name, none.Breaker = "no breaker", nil
	none.About = "the spec's retry without a breaker: " + strategyWords(none)
	ss = append(ss, none)
	if !outageRetries(spec) {
		return ss
	}
	swapped := SpecStrategy(t)
	swapped.Name, swapped.Swapped = "swapped", true
	swapped.About = "the spec's policy with the breaker inside the retry: each attempt is a sample, a refused attempt is retried"
	return append(ss, swapped)
}

func outageRetries(s Strategy) bool { return s.Retry != nil && s.Retry.MaxAttempts > 1 }

// runOutages runs every strategy, concurrently or one after the other.
func (c clock) runOutages(ctx context.Context, o Options, t *Target, ss []Strategy, p outagePlan, concurrent bool) ([]*outageRun, error) {
	parallel := 1
	if concurrent {
		parallel = len(ss)
	}
	return runEach(o, "outage", strategyNames(ss), c.d(p.horizon), len(ss), parallel,
		func(i int) (*outageRun, error) { return c.runOutage(ctx, t, ss[i], p) })
}

// outageRun is what one strategy's run saw, in scenario seconds from the
// server's start.
type outageRun struct {
	s       Strategy
	clients []*outageClient
	// arrivals are when requests reached the server, sorted.
	arrivals []float64
	calls    []outageCall
	end      float64
}

// outageClient is one replica: a client with its own engine, breaker and
// observer.
type outageClient struct {
	*Client
	obs *outageObserver
	log *outageLog
}

// outageCall is one logical call as its user saw it; sent and dead are
// filled by the observer (its events arrive on the caller's goroutine).
type outageCall struct {
	start, end float64
	ok         bool
	// refused by the breaker without a request reaching the server.
	refused bool
	// sent requests that got an answer, dead the 503s among them.
	sent, dead int
}

type outageCallKey struct{}

func (c clock) runOutage(ctx context.Context, t *Target, s Strategy, p outagePlan) (*outageRun, error) {
	r := &outageRun{s: s}
	var arrivals outageList[float64]
	srv := c.NewServer(func(srv *Server, w http.ResponseWriter, _ *http.Request) {
		now := srv.Now()
		arrivals.add(now.Seconds())
		if now >= p.downAt && now < p.upAt {
			srv.Rejected()
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	defer srv.Close()
	var stores []runtime.FleetStore
	if s.Fleet {
		var done func()
		var err error
		if stores, done, err = p.fleet(p.replicas); err != nil {
			return nil, fmt.Errorf("lab outage: the fleet's store: %w", err)
		}
		defer done() // after the Fleets' Close, deferred below
		if len(stores) != p.replicas {
			return nil, fmt.Errorf("lab outage: the fleet has %d stores for %d replicas", len(stores), p.replicas)
		}
	}
	for i := range p.replicas {
		obs := &outageObserver{Counter: &Counter{clk: c, start: srv.start}}
		log := &outageLog{clk: c, start: srv.start}
		var fleet *runtime.Fleet
		if s.Fleet {
			// The fleet's durations are scaled like the policy's.
			// A Sync may take the whole interval: at a speed-up the
			// default (half of it) is a few ms, which a loaded machine's
			// round trip can overrun, and the lab would then measure
			// fallbacks instead of the fleet.
			sync := c.d(outageSync)
			fleet = runtime.NewFleet(stores[i], runtime.FleetOptions{SyncInterval: sync, Timeout: sync, PermitLease: c.d(outageLease), Logger: slog.New(log)})
			defer fleet.Close()
		}
		cl := &outageClient{Client: c.newClient(t, s, srv.URL, obs, slog.New(log), fleet), obs: obs, log: log}
		defer cl.Close()
		r.clients = append(r.clients, cl)
	}

	// Each user has its own request, which each call copies with its
	// context: no two users share a header map.
	reqs := make([]*http.Request, p.users)
	for u := range reqs {
		req, err := http.NewRequest(t.Method, r.clients[u%len(r.clients)].URL, nil)
		if err != nil {
			return nil, fmt.Errorf("lab outage: %s %s: %w", t.Method, t.Path, err)
		}
		reqs[u] = req
	}

	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		defer close(stop)
		tick := time.NewTicker(c.d(outagePoll))
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if now := srv.Now(); now >= p.bound || now >= p.horizon && r.closed() {
				return
			}
		}
	}()

	perUser := make([][]outageCall, p.users)
	var wg sync.WaitGroup
	for u := range p.users {
		cl := r.clients[u%len(r.clients)]
		first := p.think * time.Duration(u) / time.Duration(p.users)
		wg.Go(func() { perUser[u] = c.outageUser(ctx, srv, cl, reqs[u], stop, first, p.think) })
	}
	wg.Wait()
	<-watched
	r.end = srv.Now().Seconds()
	for _, calls := range perUser {
		r.calls = append(r.calls, calls...)
	}
	r.arrivals = arrivals.all()
	slices.Sort(r.arrivals)
	return r, nil
}

// closed reports whether every replica's breaker (if any) is closed.
func (r *outageRun) closed() bool {
	for _, cl := range r.clients {
		if cl.Breaker != nil && cl.Breaker.State() != runtime.StateClosed {
			return false
		}
	}
	return true
}

// outageUser calls in a closed loop with think time until stop or ctx,
// the first call after first.
func (c clock) outageUser(ctx context.Context, srv *Server, cl *outageClient, base *http.Request, stop <-chan struct{}, first, think time.Duration) []outageCall {
	var calls []outageCall
	pause := time.NewTimer(c.d(first))
	defer pause.Stop()
	for {
		select {
		case <-pause.C:
		case <-stop:
			return calls
		case <-ctx.Done():
			return calls
		}
		oc := &outageCall{start: srv.Now().Seconds()}
		cctx := context.WithValue(ctx, outageCallKey{}, oc)
		resp, _, err := cl.Op.Do(cctx, base.WithContext(cctx))
		oc.end = srv.Now().Seconds()
		oc.ok = err == nil && resp.StatusCode == http.StatusOK
		oc.refused = oc.sent == 0 && errors.Is(err, runtime.ErrCircuitOpen)
		Drain(resp)
		if ctx.Err() != nil {
			return calls // a cancelled call is not the model's
		}
		calls = append(calls, *oc)
		pause.Reset(c.d(think))
	}
}

// outageObserver counts like Counter and keeps every answered request:
// when, whether it was a half-open trial, and the call it belongs to.
type outageObserver struct {
	*Counter
	sends outageList[outageSend]
}

// outageSend is one request that got an answer.
type outageSend struct {
	at     float64 // when the answer came (scenario s)
	status int
	trial  bool
	// callStart is when its user began the logical call.
	callStart float64
}

type outageTrialKey struct{}

func (o *outageObserver) CallStart(e runtime.CallStartEvent) context.Context {
	ctx := o.Counter.CallStart(e)
	if e.HalfOpenTrial {
		ctx = context.WithValue(ctx, outageTrialKey{}, true)
	}
	return ctx
}

func (o *outageObserver) Attempt(e runtime.AttemptEvent) {
	o.Counter.Attempt(e)
	if e.StatusCode == 0 {
		return // no answer: nothing the server counted as an answer
	}
	s := outageSend{at: o.now().Seconds(), status: e.StatusCode, trial: e.Context.Value(outageTrialKey{}) != nil}
	if oc, ok := e.Context.Value(outageCallKey{}).(*outageCall); ok {
		oc.sent++
		if e.StatusCode == http.StatusServiceUnavailable {
			oc.dead++
		}
		s.callStart = oc.start
	}
	o.sends.add(s)
}

// outageLog keeps the runtime's log lines (breaker state changes) with
// their scenario times.
type outageLog struct {
	clk   clock
	start time.Time
	lines outageList[string]
}

// Enabled leaves out debug: the runtime logs every retry there.
func (l *outageLog) Enabled(_ context.Context, lv slog.Level) bool { return lv >= slog.LevelInfo }

func (l *outageLog) Handle(_ context.Context, r slog.Record) error {
	l.lines.add(fmt.Sprintf("%6.2fs %-4s %s", l.clk.back(r.Time.Sub(l.start)).Seconds(), r.Level, r.Message))
	return nil
}

func (l *outageLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *outageLog) WithGroup(string) slog.Handler      { return l }

// outageList is a list that many goroutines append to.
type outageList[T any] struct {
	mu    sync.Mutex
	items []T
}

func (l *outageList[T]) add(v T) {
	l.mu.Lock()
	l.items = append(l.items, v)
	l.mu.Unlock()
}

func (l *outageList[T]) all() []T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.items)
}

// OutageResults are the outage scenario's numbers, in scenario time.
type OutageResults struct {
	Users   int     `json:"users"`
	ThinkS  float64 `json:"thinkS"`
	DownAtS float64 `json:"downAtS"`
	UpAtS   float64 `json:"upAtS"`
	// Strategies are in the tables' order; the spec's first.
	Strategies []OutageStrategyResults `json:"strategies"`
}

// OutageStrategyResults are one strategy's numbers. Times of the outage
// are from its start (DownAtS), times of the recovery from the server's
// return (UpAtS); a nil time did not happen.
type OutageStrategyResults struct {
	Name    string `json:"name"`
	About   string `json:"about"`
	Breaker bool   `json:"breaker"`
	Swapped bool   `json:"swapped"`
	// Fleet: the replicas' breakers were shared.
	Fleet    bool `json:"fleet"`
	Replicas int  `json:"replicas"`
	// EndS is when the run ended.
	EndS           float64 `json:"endS"`
	Calls          int     `json:"calls"`
	FailedCalls    int     `json:"failedCalls"`
	ServerRequests int     `json:"serverRequests"`
	// OpenedAfterS: the outage's start to the breaker's first open.
	OpenedAfterS *float64 `json:"openedAfterS"`
	// DeadRequests reached the server while it was down (got its 503):
	// DeadBeforeOpen before the breaker's first open, DeadTrials as
	// half-open trials, DeadInFlight after the open as later attempts of
	// calls the breaker had admitted before it. DeadOther are any others:
	// none, unless the breaker let a call through that it should not.
	DeadRequests   int `json:"deadRequests"`
	DeadBeforeOpen int `json:"deadBeforeOpen"`
	DeadInFlight   int `json:"deadInFlight"`
	DeadTrials     int `json:"deadTrials"`
	DeadOther      int `json:"deadOther"`
	// StoreFallbacks counts the replicas' "store unreachable" lines: each
	// is a switch to the local breakers (a Sync that failed or overran its
	// timeout), after which local breakers may let through what the
	// fleet's would not (DeadOther).
	StoreFallbacks int `json:"storeFallbacks,omitempty"`
	// DeadCalls are the logical calls that sent at least one of them.
	DeadCalls int `json:"deadCalls"`
	// StoppedAfterS: the outage's start to the last request that reached
	// the dead server and was not a half-open trial: when every replica
	// had stopped calling it (retries of calls admitted before the open
	// included).
	StoppedAfterS *float64 `json:"stoppedAfterS"`
	// Refused are calls the breaker refused without any request reaching
	// the server; RefusedWhileUp those begun while the server was healthy
	// (before the outage or after it).
	Refused        int `json:"refused"`
	RefusedWhileUp int `json:"refusedWhileUp"`
	// FailedDownP50S is the median time a call that failed took, of the
	// calls begun while the server was down: how fast the callers failed.
	FailedDownP50S float64 `json:"failedDownP50S"`
	// RefusedAttempts are the breaker's refusals (of calls, or in the
	// swapped order of attempts, which the retry then retries).
	RefusedAttempts int `json:"refusedAttempts"`
	// RecoveredAfterS: the server's return to the breaker's close.
	RecoveredAfterS *float64 `json:"recoveredAfterS"`
	// FirstSuccessAfterS: the server's return to the first call that
	// succeeded after it.
	FirstSuccessAfterS *float64 `json:"firstSuccessAfterS"`
	// RecoveryTrials are the trial calls at recovery: those of the
	// half-open periods that closed the breaker, summed over the replicas
	// (with local breakers each replica has its own such period; with a
	// fleet they all share one).
	RecoveryTrials int              `json:"recoveryTrials"`
	HalfOpen       []OutageHalfOpen `json:"halfOpen"`
	Changes        []OutageChange   `json:"changes"`
}

// OutageHalfOpen is one half-open period: its trial calls and what they
// decided.
type OutageHalfOpen struct {
	AtS    float64 `json:"atS"`
	Trials int     `json:"trials"`
	OK     int     `json:"ok"`
	Failed int     `json:"failed"`
	// Then is the state it left for ("open", "closed"; "" if the run
	// ended first).
	Then string `json:"then"`
}

// OutageChange is a breaker state change.
type OutageChange struct {
	AtS    float64 `json:"atS"`
	Change string  `json:"change"`
	Reason string  `json:"reason"`
}

// results reduces a run to its numbers.
func (r *outageRun) results(p outagePlan) OutageStrategyResults {
	down, up := p.downAt.Seconds(), p.upAt.Seconds()
	res := OutageStrategyResults{Name: r.s.Name, About: r.s.About, Breaker: r.s.Breaker != nil, Swapped: r.s.Swapped, Fleet: r.s.Fleet, Replicas: len(r.clients),
		EndS: r.end, Calls: len(r.calls), ServerRequests: len(r.arrivals), HalfOpen: []OutageHalfOpen{}, Changes: []OutageChange{}}
	var failedDown []time.Duration
	for _, c := range r.calls {
		if !c.ok {
			res.FailedCalls++
		}
		if c.dead > 0 {
			res.DeadCalls++
		}
		if c.refused {
			res.Refused++
			if c.start < down || c.start >= up {
				res.RefusedWhileUp++
			}
		}
		if !c.ok && c.start >= down && c.start < up {
			failedDown = append(failedDown, time.Duration((c.end-c.start)*float64(time.Second)))
		}
		if c.ok && c.start >= up && (res.FirstSuccessAfterS == nil || c.end-up < *res.FirstSuccessAfterS) {
			res.FirstSuccessAfterS = new(c.end - up)
		}
	}
	res.FailedDownP50S = Percentile(failedDown, 50).Seconds()
	for _, cl := range r.clients {
		res.RefusedAttempts += int(cl.obs.Rejections.Load())
		for _, l := range cl.log.lines.all() {
			if strings.Contains(l, "resgen fleet: store unreachable") {
				res.StoreFallbacks++
			}
		}
		changes := cl.obs.Changes()
		openAt := -1.0
		for _, ch := range changes {
			at := ch.At.Seconds()
			res.Changes = append(res.Changes, OutageChange{AtS: at, Change: ch.Change, Reason: ch.Reason})
			if ch.To == runtime.StateOpen && at >= down && openAt < 0 {
				openAt = at
				if res.OpenedAfterS == nil || at-down < *res.OpenedAfterS {
					res.OpenedAfterS = new(at - down)
				}
			}
			if ch.To == runtime.StateClosed && at >= up && (res.RecoveredAfterS == nil || at-up > *res.RecoveredAfterS) {
				res.RecoveredAfterS = new(at - up)
			}
		}
		sends := cl.obs.sends.all()
		for _, s := range sends {
			if s.status != http.StatusServiceUnavailable {
				continue
			}
			res.DeadRequests++
			if !s.trial && (res.StoppedAfterS == nil || s.at-down > *res.StoppedAfterS) {
				res.StoppedAfterS = new(s.at - down)
			}
			switch {
			case openAt < 0 || s.at < openAt:
				res.DeadBeforeOpen++
			case s.trial:
				res.DeadTrials++
			case s.callStart < openAt:
				res.DeadInFlight++
			default:
				res.DeadOther++
			}
		}
		hs := outageHalfOpens(changes, sends)
		for _, h := range hs {
			if h.Then == runtime.StateClosed.String() {
				res.RecoveryTrials += h.Trials
			}
		}
		res.HalfOpen = append(res.HalfOpen, hs...)
	}
	return res
}

// outageHalfOpens pairs each half-open period with its trials: those
// answered after the change before it (the open) and no later than the
// change that ends it, which the last trial's outcome causes.
func outageHalfOpens(changes []StateChange, sends []outageSend) []OutageHalfOpen {
	var hs []OutageHalfOpen
	for i, ch := range changes {
		if ch.To != runtime.StateHalfOpen {
			continue
		}
		h := OutageHalfOpen{AtS: ch.At.Seconds()}
		from, until := -1.0, 1e18
		if i > 0 {
			from = changes[i-1].At.Seconds()
		}
		if i+1 < len(changes) {
			until, h.Then = changes[i+1].At.Seconds(), changes[i+1].To.String()
		}
		for _, s := range sends {
			if s.trial && s.at > from && s.at <= until {
				h.Trials++
				if s.status == http.StatusOK {
					h.OK++
				} else {
					h.Failed++
				}
			}
		}
		hs = append(hs, h)
	}
	return hs
}

// outageReport builds the report from the runs; runs[0] is the spec's.
func outageReport(t *Target, o Options, p outagePlan, runs []*outageRun) *Report {
	res := OutageResults{Users: p.users, ThinkS: p.think.Seconds(), DownAtS: p.downAt.Seconds(), UpAtS: p.upAt.Seconds()}
	for _, r := range runs {
		res.Strategies = append(res.Strategies, r.results(p))
	}
	down := p.upAt - p.downAt
	rep := &Report{Policy: strategyWords(runs[0].s), Results: res}
	rep.Setup = []string{
		fmt.Sprintf("%d users in a closed loop: each calls %s %s, waits %v after the answer (or the refusal), and calls again; their first calls are spread over the first %v", p.users, t.Method, t.Path, p.think, p.think),
		fmt.Sprintf("the server answers 200 at once while healthy; from %v to %v (%v) it is down: it answers every request 503 at once, without Retry-After", p.downAt, p.upAt, down),
		fmt.Sprintf("the run ends once every breaker is closed, at %v at the earliest (the server's return + the breaker's wait in open + %v) and at %v at the latest", p.horizon, outageTail, p.bound),
		"a request reached the dead server when it got the 503; \"before the open\" are those answered before the breaker first opened, \"in flight\" the later attempts of calls the breaker admitted before it opened, \"trials\" its half-open trial calls",
	}
	if p.replicas > 1 {
		rep.Setup = append(rep.Setup, fmt.Sprintf("%d replicas: each a client with its own engine and breaker; user u calls through replica u mod %d", p.replicas, p.replicas))
	}
	if p.fleet != nil {
		rep.Setup = append(rep.Setup,
			fmt.Sprintf("fleet: each replica's breaker joins a runtime.Fleet on the same store (%s), syncing every %v (permit lease %v); local: the same replicas, each breaker on its own", o.FleetAbout, outageSync, outageLease),
			"trial calls at recovery are the half-open trial calls of the half-open periods that closed the breakers, summed over the replicas; \"stopped calling after\" is the outage's start to the last request that reached the dead server other than a trial")
	}
	if len(runs) > 1 {
		rep.Setup = append(rep.Setup, "each strategy has its own server and clients; they run at the same time")
	}
	if o.Compare && !outageRetries(runs[0].s) {
		rep.Setup = append(rep.Setup, "no swapped order: the operation is not retried, so the breaker is inside or outside the same single attempt")
	}
	var notes []string
	if o.Speed > 1 {
		sped := speedNote(o.Speed)
		rep.Setup = append(rep.Setup, sped, "the log lines are the runtime's own, with the sped-up durations it ran with")
		notes = append(notes, sped)
	}
	during := Table{Title: fmt.Sprintf("While the server was down (%v from %v)", down, p.downAt), Notes: notes,
		Columns: []string{"strategy", "opened after", "requests to the dead server", "before the open", "in flight after the open", "half-open trials", "calls that reached it", "calls refused", "failed calls' p50"}}
	after := Table{Title: fmt.Sprintf("After the server came back (at %v)", p.upAt), Notes: notes,
		Columns: []string{"strategy", "breaker closed after", "first success after", "calls refused while healthy", "failed calls", "calls", "server requests"}}
	trials := Table{Title: "Half-open periods", Notes: notes,
		Columns: []string{"strategy", "half-open at", "trial calls", "ok", "failed", "then"}}
	for _, s := range res.Strategies {
		dash := func(n int) string {
			if !s.Breaker {
				return "—"
			}
			return strconv.Itoa(n)
		}
		during.Rows = append(during.Rows, []string{s.Name, outageSecs(s.OpenedAfterS, s.Breaker),
			strconv.Itoa(s.DeadRequests), dash(s.DeadBeforeOpen), dash(s.DeadInFlight + s.DeadOther), dash(s.DeadTrials),
			strconv.Itoa(s.DeadCalls), dash(s.Refused - s.RefusedWhileUp), fmt.Sprintf("%.1fms", s.FailedDownP50S*1000)})
		after.Rows = append(after.Rows, []string{s.Name, outageSecs(s.RecoveredAfterS, s.Breaker), outageSecs(s.FirstSuccessAfterS, true),
			dash(s.RefusedWhileUp), strconv.Itoa(s.FailedCalls), strconv.Itoa(s.Calls), strconv.Itoa(s.ServerRequests)})
		for _, h := range s.HalfOpen {
			then := h.Then
			if then == "" {
				then = "(run ended)"
			}
			trials.Rows = append(trials.Rows, []string{s.Name, fmt.Sprintf("%.2fs", h.AtS), strconv.Itoa(h.Trials), strconv.Itoa(h.OK), strconv.Itoa(h.Failed), then})
		}
	}
	rep.Tables = []Table{during, after}
	if p.fleet != nil {
		rep.Tables = append([]Table{outageReplicasTable(p, res, notes)}, rep.Tables...)
	}
	// With replicas each has its own rows: the replicas table sums them.
	if len(trials.Rows) > 0 && p.replicas == 1 {
		rep.Tables = append(rep.Tables, trials)
	}
	rep.Plots = outagePlots(p, runs, res)
	rep.Log = runs[0].clients[0].log.lines.all()
	if p.fleet != nil {
		for _, l := range runs[1].clients[0].log.lines.all() {
			rep.Log = append(rep.Log, "fleet "+l)
		}
	}
	rep.Findings = outageFindings(p, res.Strategies)
	if p.fleet != nil {
		rep.Findings = append(outageFleetFindings(t, p, res.Strategies[0], res.Strategies[1]), rep.Findings...)
	}
	return rep
}

// outageReplicasTable compares the strategies over the replicas: what the
// fleet is for.
func outageReplicasTable(p outagePlan, res OutageResults, notes []string) Table {
	t := Table{Title: fmt.Sprintf("%d replicas: local breakers and a fleet", p.replicas), Notes: notes,
		Columns: []string{"strategy", "calls that reached the dead server", "requests to it", "stopped calling after", "trial calls at recovery", "calls refused while healthy"}}
	for _, s := range res.Strategies {
		rt, rf := "—", "—"
		if s.Breaker {
			rt, rf = strconv.Itoa(s.RecoveryTrials), strconv.Itoa(s.RefusedWhileUp)
		}
		t.Rows = append(t.Rows, []string{s.Name, strconv.Itoa(s.DeadCalls), strconv.Itoa(s.DeadRequests), outageSecs(s.StoppedAfterS, true), rt, rf})
	}
	return t
}

// outageSecs prints a time in seconds; "—" when it cannot apply, "never"
// when it did not happen.
func outageSecs(s *float64, applies bool) string {
	switch {
	case !applies:
		return "—"
	case s == nil:
		return "never"
	}
	return fmt.Sprintf("%.2fs", *s)
}

// outagePlots: requests/s reaching each strategy's server, and the
// breakers' states, with the outage and the spec breaker's changes marked.
func outagePlots(p outagePlan, runs []*outageRun, res OutageResults) []Plot {
	marks := []Mark{{X: p.downAt.Seconds(), Label: "server down"}, {X: p.upAt.Seconds(), Label: "server up"}}
	for _, ch := range res.Strategies[0].Changes {
		_, to, _ := strings.Cut(ch.Change, " → ")
		marks = append(marks, Mark{X: ch.AtS, Label: runs[0].s.Name + " " + to})
	}
	load := Plot{Name: "outage", Title: "Requests reaching the server", XLabel: "time (s)", YLabel: "requests/s", Marks: marks}
	states := Plot{Name: "outage-breaker", Title: "Breaker state (0 closed, 1 half-open, 2 open)", XLabel: "time (s)", YLabel: "state",
		Marks: marks[:2], Step: true}
	level := map[runtime.State]float64{runtime.StateClosed: 0, runtime.StateHalfOpen: 1, runtime.StateOpen: 2}
	for i, r := range runs {
		load.Series = append(load.Series, Series{Name: r.s.Name, Points: outageRate(r.arrivals, r.end)})
		if r.s.Breaker == nil {
			continue
		}
		pts := []Point{{0, 0}}
		last := 0.0
		for _, ch := range r.clients[0].obs.Changes() {
			last = level[ch.To]
			pts = append(pts, Point{ch.At.Seconds(), last})
		}
		states.Series = append(states.Series, Series{Name: r.s.Name, Points: append(pts, Point{res.Strategies[i].EndS, last})})
	}
	return []Plot{load, states}
}

// outageRate is requests/s in buckets of outageBucket, each drawn at its
// middle; a last bucket the run ended inside is left out, as its rate
// would be too low.
func outageRate(times []float64, end float64) []Point {
	var pts []Point
	for _, p := range Rate(times, outageBucket) {
		if p.X+outageBucket <= end {
			pts = append(pts, Point{p.X + outageBucket/2, p.Y})
		}
	}
	return pts
}

// outageFleetFindings compares the local breakers (l) and the fleet (f).
func outageFleetFindings(t *Target, p outagePlan, l, f OutageStrategyResults) []string {
	fs := []string{fmt.Sprintf("%d replicas: %d calls reached the dead server with a fleet, %d with local breakers (%s)",
		p.replicas, f.DeadCalls, l.DeadCalls, ratio(f.DeadCalls, l.DeadCalls))}
	h := t.Breaker.HalfOpenCalls
	fs = append(fs, fmt.Sprintf("trial calls at recovery: %d with a fleet, %d with local breakers (halfOpenCalls %d: the fleet's %d in all, against %d for %d replicas each on its own)",
		f.RecoveryTrials, l.RecoveryTrials, h, h, p.replicas*h, p.replicas))
	if f.StoppedAfterS != nil && l.StoppedAfterS != nil {
		fs = append(fs, fmt.Sprintf("the replicas stopped calling the dead server %.2fs into the outage with a fleet, %.2fs with local breakers", *f.StoppedAfterS, *l.StoppedAfterS))
	}
	if f.StoreFallbacks > 0 {
		fs = append(fs, fmt.Sprintf("the fleet's store did not answer in time %d times (a replica's Sync failed or overran its timeout): those replicas' local breakers decided until the next Sync; %d requests reached the dead server that the fleet's breaker would have refused", f.StoreFallbacks, f.DeadOther))
	}
	if f.RecoveredAfterS != nil && l.RecoveredAfterS != nil {
		fs = append(fs, fmt.Sprintf("after the server came back the last breaker closed %.2fs later with a fleet (one half-open for all), %.2fs with local breakers (each opened, and so went half-open, at its own time); calls refused while healthy: %d and %d",
			*f.RecoveredAfterS, *l.RecoveredAfterS, f.RefusedWhileUp, l.RefusedWhileUp))
	}
	return fs
}

// ratio says a as a fraction of b ("0.12×"), or "—" when b is 0.
func ratio(a, b int) string {
	if b == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f×", float64(a)/float64(b))
}

// outageFindings says what the numbers show, strategy by strategy.
func outageFindings(p outagePlan, ss []OutageStrategyResults) []string {
	var fs []string
	spec := ss[0]
	down := (p.upAt - p.downAt).Seconds()
	for _, s := range ss {
		switch {
		case !s.Breaker:
			f := fmt.Sprintf("%s: %d requests reached the dead server, from %d calls", s.Name, s.DeadRequests, s.DeadCalls)
			if s.Name != spec.Name && spec.DeadRequests > 0 {
				f += fmt.Sprintf(": %.1f× the spec's %d", float64(s.DeadRequests)/float64(spec.DeadRequests), spec.DeadRequests)
			}
			fs = append(fs, f)
		case s.OpenedAfterS == nil:
			fs = append(fs, fmt.Sprintf("%s: the breaker did not open in the %gs outage; %d requests reached the dead server", s.Name, down, s.DeadRequests))
		default:
			fs = append(fs, fmt.Sprintf("%s: the breaker opened %.2fs into the outage, after %d requests reached the dead server; in the %.1fs it stayed down after that, %d more did: %d half-open trials and %d later attempts of calls admitted before the open",
				s.Name, *s.OpenedAfterS, s.DeadBeforeOpen, down-*s.OpenedAfterS, s.DeadRequests-s.DeadBeforeOpen, s.DeadTrials, s.DeadInFlight+s.DeadOther))
		}
		if s.Breaker && s.RecoveredAfterS != nil {
			fs = append(fs, fmt.Sprintf("%s: the breaker closed %.2fs after the server came back (at its next half-open); meanwhile it refused %d calls a healthy server would have answered", s.Name, *s.RecoveredAfterS, s.RefusedWhileUp))
		} else if s.Breaker {
			fs = append(fs, fmt.Sprintf("%s: the breaker had not closed when the run ended, %.2fs after the server came back", s.Name, s.EndS-p.upAt.Seconds()))
		} else if s.FirstSuccessAfterS != nil {
			fs = append(fs, fmt.Sprintf("%s: its first call after the outage succeeded %.2fs after the server came back", s.Name, *s.FirstSuccessAfterS))
		}
		if s.DeadOther > 0 {
			fs = append(fs, fmt.Sprintf("%s: %d requests reached the dead server after the open that were neither trials nor calls admitted before it", s.Name, s.DeadOther))
		}
		if s.Swapped && s.RefusedAttempts > 0 {
			fs = append(fs, fmt.Sprintf("%s: the retry spent %d attempts on the breaker's refusals, so a call the breaker refused still took its backoff: failed calls took %.0fms (median) during the outage, against %.0fms for the spec's",
				s.Name, s.RefusedAttempts, s.FailedDownP50S*1000, spec.FailedDownP50S*1000))
		}
	}
	return fs
}
