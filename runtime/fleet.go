package runtime

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// FleetOptions tune a Fleet; zero values take the defaults.
type FleetOptions struct {
	// SyncInterval is how often the Fleet sends its breakers' outcomes to
	// the store and reads their states back (default 100ms). A replica
	// falls back to its local breakers within about one interval of the
	// store becoming unreachable.
	SyncInterval time.Duration
	// Timeout bounds one Sync (default SyncInterval/2, at most
	// SyncInterval).
	Timeout time.Duration
	// PermitLease is how long half-open trial permits granted to a replica
	// may go unreported before the store offers them again (default the
	// larger of 1s and 10×SyncInterval).
	PermitLease time.Duration
	// Logger receives the fallback and resume lines; nil means
	// slog.Default() at the time NewFleet is called.
	Logger *slog.Logger
}

// Fleet is one replica's connection to the breakers it shares with the
// other replicas of a service through a FleetStore. Give it to generated
// clients (their WithFleet option): every breaker they create then shares
// one window and one state with the breakers of the same name (and
// policy) in every replica whose Fleet uses the same store.
//
// Calls never wait for the store: they decide from a local snapshot of the
// fleet's state and count their outcomes in memory. One goroutine sends
// the counts and reads the states back every SyncInterval (at once when a
// half-open breaker needs trial permits), and one listens to the store's
// announcements, so a state change reaches every replica within
// milliseconds. While the store cannot be reached the breakers run on
// their local state, as without a Fleet; an open state the fleet decided
// keeps holding until its wait ends.
//
// The goroutines start with the first breaker that joins; Close stops
// them.
type Fleet struct {
	store FleetStore
	opt   FleetOptions
	log   *slog.Logger

	poke chan struct{} // wakes the worker at once; buffered, never blocks

	mu      sync.Mutex
	links   []*fleetLink
	byKey   map[string][]*fleetLink
	started bool
	closed  bool
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	// reach is the worker's view of the store: reachUnknown until the
	// first Sync answers; the fallback and resume lines are logged on the
	// changes between reachOK and reachDown only. Written by the worker,
	// read by Watch's callback.
	reach atomic.Int32
}

const (
	reachUnknown = iota
	reachOK
	reachDown
)

// NewFleet returns a Fleet over store. It starts no goroutine until a
// breaker joins.
func NewFleet(store FleetStore, opt FleetOptions) *Fleet {
	if opt.SyncInterval <= 0 {
		opt.SyncInterval = 100 * time.Millisecond
	}
	if opt.Timeout <= 0 {
		opt.Timeout = opt.SyncInterval / 2
	}
	opt.Timeout = min(opt.Timeout, opt.SyncInterval)
	if opt.PermitLease <= 0 {
		opt.PermitLease = max(time.Second, 10*opt.SyncInterval)
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	return &Fleet{store: store, opt: opt, log: opt.Logger, poke: make(chan struct{}, 1),
		byKey: map[string][]*fleetLink{}}
}

// Close stops the Fleet's goroutines and waits for them; its breakers then
// run on their local state. It is safe to call more than once.
func (f *Fleet) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	if f.cancel != nil {
		f.cancel()
	}
	links := f.links
	f.mu.Unlock()
	f.wg.Wait()
	for _, l := range links {
		l.heldUntil.Store(0) // closed: the local breakers decide, as documented
		l.deactivate("the fleet is closed; the local breaker decides")
	}
	return nil
}

// join links b to the fleet. It touches only the Fleet (the engine calls
// it under its own lock).
func (f *Fleet) join(b *Breaker) *fleetLink {
	pol := fleetPolicy(b.p)
	pol.PermitLease = f.opt.PermitLease
	l := &fleetLink{f: f, b: b, key: fleetKey(b.name, pol), pol: pol, local: true}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return l // never active: the breaker stays local
	}
	f.links = append(f.links, l)
	f.byKey[l.key] = append(f.byKey[l.key], l)
	if !f.started {
		f.started = true
		ctx, cancel := context.WithCancel(context.Background())
		f.cancel = cancel
		f.wg.Add(2)
		go f.work(ctx)
		go f.watch(ctx)
	}
	f.wake() // have its state before the next interval
	return l
}

// wake asks the worker for a Sync now.
func (f *Fleet) wake() {
	select {
	case f.poke <- struct{}{}:
	default:
	}
}

// work is the sync loop: every SyncInterval, when poked, and when an open
// breaker's wait ends.
func (f *Fleet) work(ctx context.Context) {
	defer f.wg.Done()
	tick := time.NewTicker(f.opt.SyncInterval)
	defer tick.Stop()
	wait := time.NewTimer(time.Hour)
	defer wait.Stop()
	var links []*fleetLink
	var reqs []FleetSync
	for {
		links, reqs = f.sync(ctx, links[:0], reqs[:0])
		for _, l := range links {
			if l.snap.Load()&1 == 0 && l.heldUntil.Load() != 0 {
				l.endHold()
			}
		}
		if d, ok := f.nextWake(links); ok {
			wait.Reset(d)
		} else {
			wait.Stop()
		}
		synced := time.Now()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-wait.C:
		case <-f.poke:
			// Every refused half-open call pokes: keep the Syncs it
			// causes at most one per SyncInterval/pokeDivisor.
			if gap := f.opt.SyncInterval/pokeDivisor - time.Since(synced); gap > 0 {
				t := time.NewTimer(gap)
				select {
				case <-ctx.Done():
					t.Stop()
					return
				case <-t.C:
				}
			}
		}
	}
}

// pokeDivisor spaces the Syncs a poke causes by SyncInterval/pokeDivisor.
const pokeDivisor = 10

// sync sends one Sync for every link and applies the answers. It returns
// the links it synced and the requests (both reused between rounds).
func (f *Fleet) sync(ctx context.Context, links []*fleetLink, reqs []FleetSync) ([]*fleetLink, []FleetSync) {
	f.mu.Lock()
	links = append(links, f.links...)
	f.mu.Unlock()
	if len(links) == 0 {
		return links, reqs
	}
	for _, l := range links {
		reqs = append(reqs, l.take())
	}
	sctx, cancel := context.WithTimeout(ctx, f.opt.Timeout)
	// The Fleet enforces Timeout itself: a store that overruns its
	// deadline (go-redis ignores contexts unless ContextTimeoutEnabled)
	// must not keep the breakers on a stale state. They fall back when
	// Timeout ends, while the Sync runs on, and its late answer counts as
	// a failure: applying it would resume on a store that just proved too
	// slow, and log a resume and a second fallback for one stall.
	// A quarter of Timeout's grace lets a store that honours its context
	// report its own error.
	stuck := make(chan struct{})
	dog := time.AfterFunc(f.opt.Timeout+f.opt.Timeout/4, func() {
		defer close(stuck)
		f.fallBack(links, errStuckSync)
	})
	states, err := f.store.Sync(sctx, reqs)
	cancel()
	late := !dog.Stop()
	if late {
		<-stuck
	}
	if ctx.Err() != nil {
		return links, reqs // closing
	}
	if late {
		return links, reqs // already fallen back; the counts are dropped
	}
	if err == nil && len(states) != len(reqs) {
		err = errShortSync
	}
	if err == nil {
		for i, l := range links {
			if err = l.check(&states[i]); err != nil {
				break
			}
		}
	}
	if err != nil {
		// The counts are dropped, not resent: at most once, never twice.
		f.fallBack(links, err)
		return links, reqs
	}
	for i, l := range links {
		l.apply(states[i])
	}
	if f.reach.Swap(reachOK) == reachDown {
		f.log.LogAttrs(context.Background(), slog.LevelInfo, "resgen fleet: store reachable again; breakers share state")
	}
	return links, reqs
}

// fallBack makes links run on their local breakers, logging the switch
// once.
func (f *Fleet) fallBack(links []*fleetLink, err error) {
	if f.reach.Swap(reachDown) == reachDown {
		return
	}
	f.log.LogAttrs(context.Background(), slog.LevelWarn,
		"resgen fleet: store unreachable ("+err.Error()+"); breakers fall back to local state",
		slog.String("error", err.Error()))
	for _, l := range links {
		l.deactivate("no answer from the fleet's store; the local breaker decides")
	}
}

var (
	errShortSync = errorString("store answered a different number of states than requests")
	errStuckSync = errorString("sync overran its timeout")
)

type errorString string

func (e errorString) Error() string { return string(e) }

// nextWake is how long until the earliest open link's wait ends.
func (f *Fleet) nextWake(links []*fleetLink) (time.Duration, bool) {
	var d time.Duration
	ok := false
	for _, l := range links {
		left := time.Duration(l.heldUntil.Load()) - l.b.e.now()
		if left <= 0 {
			continue // not open, or its wait is over (the Sync after it ran)
		}
		left += time.Millisecond // the store's clock may lag a little
		if !ok || left < d {
			d, ok = left, true
		}
	}
	return d, ok
}

// watch listens to the store's announcements, reconnecting after
// SyncInterval when the connection fails.
func (f *Fleet) watch(ctx context.Context) {
	defer f.wg.Done()
	ready := func() { f.wake() } // catch up with what was missed meanwhile
	for {
		err := f.store.Watch(ctx, ready, f.announced)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			f.log.LogAttrs(context.Background(), slog.LevelDebug, "resgen fleet: watch ended ("+err.Error()+"); retrying")
		}
		t := time.NewTimer(f.opt.SyncInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// announced takes an announcement of a state change, while the store is
// reachable (else the local breakers decide). Anyone who can publish on
// the store's channel can announce anything: an announcement is only a
// hint that one of the Fleet's breakers changed, which the worker
// confirms with a Sync at once (at most one per SyncInterval/pokeDivisor,
// however many arrive). The Sync's answer, the store's own, is the state
// the breakers take; the announcement's state is never applied.
func (f *Fleet) announced(st FleetState) {
	if f.reach.Load() != reachOK {
		return
	}
	f.mu.Lock()
	links := f.byKey[st.Key]
	f.mu.Unlock()
	for _, l := range links {
		l.mu.Lock()
		news := st.Gen != l.gen || st.State != l.state
		l.mu.Unlock()
		if news {
			f.wake()
			return
		}
	}
}

// fleetLink is one breaker's membership in a Fleet. The hot path reads
// snap and updates the counters with atomics only.
type fleetLink struct {
	f   *Fleet
	b   *Breaker
	key string
	pol FleetPolicy

	// snap is gen<<3 | state<<1 | active; active=0: the local breaker
	// decides.
	snap atomic.Uint64
	// closed and trials count outcomes since the last Sync, indexed by
	// outcome (0 OK, outFailed, outSlow, outFailed|outSlow: the order of
	// FleetCounts).
	closed, trials [4]atomic.Int64
	returned       atomic.Int64 // trial permits given back unused
	permits        atomic.Int64 // trial permits held for the current gen
	// permitsUntil is the engine-clock end of the held permits' lease:
	// after it the store may offer them to another replica.
	permitsUntil atomic.Int64
	demand       atomic.Int64 // calls refused for want of a permit
	// heldUntil is the engine-clock end of the fleet's open state last
	// applied, 0 when not open: it keeps refusing in fallback.
	heldUntil atomic.Int64

	mu     sync.Mutex
	gen    uint64
	state  State
	active bool
	// local says the breaker reports its local breaker's state (and has
	// reported the switch): inactive, and the fleet's open not holding.
	local bool
	last  FleetState
	// openEnd is the engine-clock end of the open of generation gen, as
	// computed when the link first took it: later answers of the same
	// generation never hold the breaker open longer.
	openEnd int64
	// overdue says the store still answers generation gen open well
	// past openEnd, which a store that follows the state machine never
	// does (a corrupt or forged state): the local breaker decides until
	// the store answers another generation or state.
	overdue bool
}

// take swaps the counters to zero and makes the link's Sync request.
func (l *fleetLink) take() FleetSync {
	r := FleetSync{Key: l.key, Breaker: l.b.name, Policy: l.pol}
	r.Closed = FleetCounts{OK: l.closed[0].Swap(0), Failed: l.closed[outFailed].Swap(0),
		Slow: l.closed[outSlow].Swap(0), FailedSlow: l.closed[outFailed|outSlow].Swap(0)}
	r.Trials = FleetCounts{OK: l.trials[0].Swap(0), Failed: l.trials[outFailed].Swap(0),
		Slow: l.trials[outSlow].Swap(0), FailedSlow: l.trials[outFailed|outSlow].Swap(0)}
	r.Returned = int(l.returned.Swap(0))
	demand := l.demand.Swap(0)
	l.mu.Lock()
	r.Gen = l.gen
	wants := l.state == StateHalfOpen || (l.state == StateOpen && l.b.e.now() >= time.Duration(l.heldUntil.Load()))
	l.mu.Unlock()
	if wants {
		r.Want = int(min(demand, int64(l.pol.HalfOpenCalls)))
	}
	return r
}

// deactivate makes the local breaker decide, once the fleet's open no
// longer holds (endHold), and reports the switch for the reason given.
func (l *fleetLink) deactivate(reason string) {
	l.mu.Lock()
	l.active = false
	l.store()
	queued := !l.held() && l.goLocal(reason)
	l.mu.Unlock()
	if queued {
		l.b.flush()
	}
}

// endHold reports the end of a fleet open that held while inactive: the
// breaker reports its local state from then on.
func (l *fleetLink) endHold() {
	l.mu.Lock()
	queued := !l.active && !l.held() && l.goLocal("the fleet's open ended without an answer from its store; the local breaker decides")
	l.mu.Unlock()
	if queued {
		l.b.flush()
	}
}

// goLocal, under l.mu, marks the switch to the local breaker's state and
// queues it as a change from the fleet's state the breaker reported; the
// caller flushes when it returns true.
func (l *fleetLink) goLocal(reason string) bool {
	if l.local {
		return false
	}
	l.local = true
	b := l.b
	to := b.machineState()
	if to == l.state {
		return false
	}
	b.mu.Lock()
	b.pending = append(b.pending, StateChangeEvent{Context: context.Background(), Breaker: b.name,
		From: l.state, To: to, Reason: reason})
	b.mu.Unlock()
	b.hasPending.Store(true)
	return true
}

func (l *fleetLink) store() {
	v := l.gen<<3 | uint64(l.state)<<1
	if l.active {
		v |= 1
	}
	l.snap.Store(v)
}

// check validates a state the store answered for l, and bounds what it
// may not trust by l's own policy: the answer must be for l's key and
// in a known state; permits are granted only to a half-open breaker and
// never more than its HalfOpenCalls; the totals, which only the log lines
// and Metrics show, are made consistent. An error makes the whole Sync
// count as failed.
func (l *fleetLink) check(st *FleetState) error {
	if st.Key != l.key {
		return errorString("store answered the request of breaker " + strconv.Quote(l.b.name) + " with another breaker's state")
	}
	if st.State > StateHalfOpen {
		return errorString("store answered breaker " + strconv.Quote(l.b.name) + " with an unknown state " + strconv.Itoa(int(st.State)))
	}
	if st.State != StateHalfOpen {
		st.Granted = 0
	}
	st.Granted = min(max(st.Granted, 0), l.pol.HalfOpenCalls)
	if st.Cause > FleetCauseTrials {
		st.Cause = FleetCauseNone
	}
	st.Calls, st.Failed, st.Slow = tallyOf(st.Calls, st.Failed, st.Slow)
	st.TrialCalls, st.TrialFailed, st.TrialSlow = tallyOf(st.TrialCalls, st.TrialFailed, st.TrialSlow)
	return nil
}

// tallyOf bounds totals an untrusted answer gave: none negative, failed
// and slow at most calls, calls at most maxTally (an int on every
// platform).
func tallyOf(calls, failed, slow int64) (int64, int64, int64) {
	calls = min(max(calls, 0), maxTally)
	return calls, min(max(failed, 0), calls), min(max(slow, 0), calls)
}

const maxTally = math.MaxInt32

// apply takes a state the store answered to a Sync (checked by check),
// and activates the link. The store's answer always supersedes what the
// link had, whatever its generation: a store whose keys were lost, or
// were written by someone else, starts its generations anew, and a
// replica that kept a higher one would never agree with it again. It
// reports whether the generation changed.
func (l *fleetLink) apply(st FleetState) bool {
	b := l.b
	now := b.e.now()
	l.mu.Lock()
	changed := st.Gen != l.gen
	if st.State == StateOpen && !changed && l.state == StateOpen &&
		int64(now) >= l.openEnd+int64(l.f.opt.SyncInterval+l.f.opt.Timeout) {
		// The store holds the open past the wait it announced (and this
		// replica gave the store a Sync after it to move on): not a
		// state the store's rules make. Decide locally until it changes.
		first := !l.overdue
		l.overdue = true
		l.active = false
		l.heldUntil.Store(0)
		l.store()
		queued := l.goLocal("the fleet's store holds the breaker open past its waitInOpen; the local breaker decides")
		l.mu.Unlock()
		if first {
			l.f.log.LogAttrs(context.Background(), slog.LevelWarn,
				"resgen fleet: breaker "+strconv.Quote(b.name)+": the store holds it open past its waitInOpen ("+b.waitInOpen().String()+"); its local breaker decides until the store's state changes",
				slog.String("breaker", b.name))
		}
		if queued {
			b.flush()
		}
		return false
	}
	l.overdue = false
	from := l.state
	report := changed
	if !l.active {
		// Resuming: the breaker reported its local state meanwhile, unless
		// the fleet's open held (then it reported l.state all along).
		if l.local {
			from = b.machineState()
		}
		report = true
	}
	sameOpen := !changed && l.state == StateOpen
	l.gen, l.state, l.last = st.Gen, st.State, st
	l.active, l.local = true, false
	if st.State == StateOpen {
		// No store answer holds the breaker open longer than its own
		// wait: a hostile or corrupt OpenFor must not overflow the clock,
		// and a later answer of the same open never extends it.
		until := int64(now + min(max(st.OpenFor, 0), b.waitInOpen()))
		if sameOpen {
			until = min(until, l.openEnd)
		} else {
			l.openEnd = until
		}
		b.openUntil.Store(until) // the RetryAt of its refusals
		l.heldUntil.Store(until)
	} else {
		l.heldUntil.Store(0)
	}
	if changed {
		l.permits.Store(0) // a new generation's permits are granted anew
	}
	if st.Granted > 0 {
		if int64(now) >= l.permitsUntil.Load() {
			l.permits.Store(0) // leased out: the store may have offered them again
		}
		l.permitsUntil.Store(int64(now + l.f.permitHold()))
		for { // at most HalfOpenCalls held, whatever the store grants
			n := l.permits.Load()
			if l.permits.CompareAndSwap(n, min(n+int64(st.Granted), int64(l.pol.HalfOpenCalls))) {
				break
			}
		}
	}
	l.store()
	queued := false
	if report && from != st.State {
		queued = true
		b.mu.Lock()
		b.pending = append(b.pending, StateChangeEvent{Context: context.Background(), Breaker: b.name,
			From: from, To: st.State, Reason: b.fleetReason(st)})
		b.mu.Unlock()
		b.hasPending.Store(true)
	}
	l.mu.Unlock()
	if queued {
		b.flush()
	}
	return changed
}

// fleetReason words a fleet state change as the local breaker would, and
// says it is the fleet's.
func (b *Breaker) fleetReason(st FleetState) string {
	t := tally{calls: int(st.Calls), failed: int(st.Failed), slow: int(st.Slow)}
	var r string
	switch {
	case st.State == StateHalfOpen:
		r = b.waitInOpen().String() + " in open elapsed; letting " + strconv.Itoa(b.p.HalfOpenCalls) + " trial calls through"
	case st.State == StateOpen && st.Cause == FleetCauseTrials:
		r = b.openReason("trial calls: ", t)
	case st.State == StateOpen:
		r = b.openReason("", t)
	case st.Cause == FleetCauseTrials:
		r = b.closeReason(tally{calls: int(st.TrialCalls), failed: int(st.TrialFailed), slow: int(st.TrialSlow)})
	default:
		r = "the fleet's breaker is closed"
	}
	return r + " (fleet)"
}

// decides reports whether the fleet's state is the breaker's: while the
// store is reachable, and in fallback while the fleet's open holds.
func (l *fleetLink) decides() bool {
	return l.snap.Load()&1 != 0 || l.held()
}

// held reports whether the fleet's open last applied has not ended.
func (l *fleetLink) held() bool {
	until := l.heldUntil.Load()
	return until != 0 && int64(l.b.e.now()) < until
}

// metrics reports the fleet's state as last applied.
func (l *fleetLink) metrics() BreakerMetrics {
	l.mu.Lock()
	st := l.last
	l.mu.Unlock()
	calls, failed, slow := int(st.Calls), int(st.Failed), int(st.Slow)
	return BreakerMetrics{State: State(l.snap.Load() >> 1 & 3), Calls: calls, Failed: failed, Slow: slow,
		FailureRate: rate(failed, calls), SlowCallRate: rate(slow, calls)}
}

// permitHold is how long a replica may use the permits of a grant: the
// lease, less the oldest an answer can be when applied (later ones are
// dropped), so that it stops before the store offers them again.
func (f *Fleet) permitHold() time.Duration {
	lease := f.opt.PermitLease
	return lease - min(f.opt.Timeout+f.opt.Timeout/4, lease/2)
}

// permit takes one trial permit, if the link holds any whose lease has not
// ended at now.
func (l *fleetLink) permit(now time.Duration) bool {
	if int64(now) >= l.permitsUntil.Load() {
		return false
	}
	for {
		n := l.permits.Load()
		if n <= 0 {
			return false
		}
		if l.permits.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

// fleetPolicy normalises p as newBreaker and clampPolicy do, so that
// replicas judge (and fingerprint) the same window the same way.
// PermitLease is the Fleet's, set by the caller.
func fleetPolicy(p BreakerPolicy) FleetPolicy {
	fp := FleetPolicy{
		MinimumCalls:          max(p.MinimumCalls, 1),
		FailureRateThreshold:  p.FailureRateThreshold,
		SlowCallRateThreshold: p.SlowCallRateThreshold,
		WaitInOpen:            p.WaitInOpen,
		HalfOpenCalls:         min(max(p.HalfOpenCalls, 1), MaxHalfOpenCalls),
	}
	if p.WindowType == TimeWindow {
		d := min(p.WindowDuration, MaxWindowDuration)
		fp.TimeWindow = time.Duration(max((d+time.Second-1)/time.Second, 1)) * time.Second
	} else {
		fp.CountWindow = min(max(p.WindowSize, 1), MaxWindowSize)
		fp.MinimumCalls = min(fp.MinimumCalls, fp.CountWindow)
	}
	if fp.WaitInOpen <= 0 {
		fp.WaitInOpen = 60 * time.Second
	}
	return fp
}

// fleetKey is the breaker's key in the store: its name, "#", and 16 hex
// digits of FNV-64a over the policy fields that judge the window, each as
// 8 bytes big-endian in FleetPolicy's order (CountWindow, TimeWindow in
// ns, MinimumCalls, the two thresholds as IEEE 754 bits, WaitInOpen in ns,
// HalfOpenCalls). PermitLease is left out: it is the replica's option, and
// replicas that differ only in it judge alike.
func fleetKey(name string, p FleetPolicy) string {
	var buf [7 * 8]byte
	for i, v := range [...]uint64{uint64(p.CountWindow), uint64(p.TimeWindow), uint64(p.MinimumCalls),
		math.Float64bits(p.FailureRateThreshold), math.Float64bits(p.SlowCallRateThreshold),
		uint64(p.WaitInOpen), uint64(p.HalfOpenCalls)} {
		binary.BigEndian.PutUint64(buf[i*8:], v)
	}
	h := fnv.New64a()
	h.Write(buf[:])
	s := strconv.FormatUint(h.Sum64(), 16)
	for len(s) < 16 {
		s = "0" + s
	}
	return name + "#" + s
}
