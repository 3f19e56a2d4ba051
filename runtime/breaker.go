package runtime

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// State is a breaker's state.
type State uint8

const (
	StateClosed State = iota
	StateOpen
	StateHalfOpen
)

func (s State) String() string {
	switch s {
	case StateOpen:
		return "open"
	case StateHalfOpen:
		return "half-open"
	}
	return "closed"
}

// Breaker is one circuit breaker instance, shared by the operations that
// name it.
//
// gobreaker owns the state machine, the open timer and half-open
// admission; the Breaker owns what gobreaker lacks (sliding windows,
// minimum calls, failure and slow-call rates, Resilience4j's half-open
// rule) and tells gobreaker only its decisions:
//   - closed: every outcome is reported as a success, except the one
//     after which the window's rates cross a threshold, reported as
//     errTrip; ReadyToTrip always agrees, so gobreaker opens exactly then,
//     whether that call failed or was a slow success;
//   - half-open: MaxRequests = HalfOpenCalls admits exactly that many
//     trials; each is reported as a success except the last, which is
//     errTrip when the trials' rates cross a threshold. After
//     HalfOpenCalls successes gobreaker closes;
//   - ignored outcomes (caller cancelled) are excluded, which frees their
//     half-open slot, as Resilience4j releases the permit.
//
// It uses CircuitBreaker.Execute rather than TwoStepCircuitBreaker, whose
// Allow allocates its done closure (48 B) on every call, while Execute with
// a closure that does not escape costs nothing, and the closure gives the
// same control: it classifies the call with full context and returns
// gobreaker an internal verdict (errTrip, errIgnored) that differs from
// what the caller receives.
type Breaker struct {
	e        *engine
	name     string
	p        BreakerPolicy
	minCalls int
	cb       *machine // gobreaker (gobreaker.go)
	// link is the breaker's membership in its engine's Fleet; nil without
	// one (the local breaker alone).
	link *fleetLink

	// gs packs gen<<2 | state for lock-free reads at admission; written
	// under mu by onStateChange.
	gs atomic.Uint64
	// openUntil is when the open state ends (engine clock, ns).
	openUntil atomic.Int64
	// hasPending says state changes wait to be logged.
	hasPending atomic.Bool

	flushMu sync.Mutex

	mu    sync.Mutex
	gen   uint64
	state State
	win   window
	trial tally
	// tripped is the tally that opened the breaker (the window's, or the
	// trials'), which Metrics reports while open.
	tripped tally
	reason  string          // why the next state change happens, set by record
	cause   context.Context // the call whose outcome makes that change, set by record
	pending []StateChangeEvent
	// timer ends the wait in open on time, so an idle breaker reports
	// open -> half-open when it happens; nil when not open.
	timer *time.Timer
}

func newBreaker(e *engine, name string, p BreakerPolicy) *Breaker {
	p = clampPolicy(e, name, p)
	b := &Breaker{e: e, name: name, p: p}
	if p.WindowType == TimeWindow {
		b.win = newTimeWindow(int((p.WindowDuration + time.Second - 1) / time.Second))
		b.minCalls = max(p.MinimumCalls, 1)
	} else {
		b.win = newCountWindow(p.WindowSize)
		b.minCalls = min(max(p.MinimumCalls, 1), len(b.win.ring))
	}
	b.cb = newMachine(b)
	return b
}

// clampPolicy bounds the sizes a breaker allocates or counts from its
// policy (see MaxWindowSize), and warns once when it had to.
func clampPolicy(e *engine, name string, p BreakerPolicy) BreakerPolicy {
	p.HalfOpenCalls = max(p.HalfOpenCalls, 1)
	var clamped []string
	if p.WindowType == TimeWindow && p.WindowDuration > MaxWindowDuration {
		clamped = append(clamped, "windowDuration "+p.WindowDuration.String()+" to "+MaxWindowDuration.String())
		p.WindowDuration = MaxWindowDuration
	}
	if p.WindowType != TimeWindow && p.WindowSize > MaxWindowSize {
		clamped = append(clamped, "windowSize "+strconv.Itoa(p.WindowSize)+" to "+strconv.Itoa(MaxWindowSize))
		p.WindowSize = MaxWindowSize
	}
	if p.HalfOpenCalls > MaxHalfOpenCalls {
		clamped = append(clamped, "halfOpenCalls "+strconv.Itoa(p.HalfOpenCalls)+" to "+strconv.Itoa(MaxHalfOpenCalls))
		p.HalfOpenCalls = MaxHalfOpenCalls
	}
	if len(clamped) > 0 {
		e.log.LogAttrs(context.Background(), slog.LevelWarn,
			"breaker "+strconv.Quote(name)+": policy "+strconv.Quote(p.Policy)+" exceeds the runtime's limits; clamped "+strings.Join(clamped, ", "),
			slog.String("breaker", name), slog.String("policy", p.Policy))
	}
	return p
}

// Name is the breaker instance's name ("" for a nil *Breaker: an
// operation without one).
func (b *Breaker) Name() string {
	if b == nil {
		return ""
	}
	return b.name
}

// Policy is the policy the breaker was created with.
func (b *Breaker) Policy() BreakerPolicy { return b.p }

// State returns the breaker's state, moving it from open to half-open if
// its wait is over. The open state's timer (see wake) makes that move on
// time even when nobody calls State; State agrees with the events
// observed: a change it makes is reported before it returns.
func (b *Breaker) State() State {
	if l := b.link; l != nil && l.decides() {
		b.flush()
		return State(l.snap.Load() >> 1 & 3)
	}
	s := b.machineState()
	b.flush()
	return s
}

// BreakerMetrics is a snapshot of a breaker: its state and its calls. When
// closed, the sliding window; when open, the calls that opened it (the
// window's, or the trial calls' when a half-open breaker re-opened), kept
// until it turns half-open; when half-open, the trial calls recorded so
// far (none at first).
type BreakerMetrics struct {
	State State
	// Calls, Failed and Slow are counts; a call may be both failed and slow.
	Calls, Failed, Slow int
	// FailureRate and SlowCallRate are percentages (0 when Calls is 0).
	FailureRate, SlowCallRate float64
}

// Metrics returns a snapshot of the breaker.
// A breaker sharing its state with a fleet reports the fleet's state and
// totals as last synced.
func (b *Breaker) Metrics() BreakerMetrics {
	if l := b.link; l != nil && l.decides() {
		b.flush()
		return l.metrics()
	}
	st := b.State()
	b.mu.Lock()
	defer b.mu.Unlock()
	var t tally
	switch b.state {
	case StateClosed:
		b.win.advance(b.second(b.e.now()))
		t = b.win.total
	case StateOpen:
		t = b.tripped
	case StateHalfOpen:
		t = b.trial
	}
	return BreakerMetrics{State: st, Calls: t.calls, Failed: t.failed, Slow: t.slow,
		FailureRate: rate(t.failed, t.calls), SlowCallRate: rate(t.slow, t.calls)}
}

// admitted returns the generation and state a call was admitted in.
func (b *Breaker) admitted() (uint64, State) {
	v := b.gs.Load()
	return v >> 2, State(v & 3)
}

func (b *Breaker) second(t time.Duration) int64 { return int64(t / time.Second) }

// record takes one logical call's outcome, admitted in generation gen, and
// returns what to report to gobreaker. It never calls gobreaker itself.
// ctx is the call's, given to the state change the outcome causes.
func (b *Breaker) record(ctx context.Context, gen uint64, o outcome, ignored bool, end time.Duration) error {
	if ignored {
		return errIgnored
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if gen != b.gen {
		return nil // admitted before a state change: gobreaker drops it too
	}
	switch b.state {
	case StateClosed:
		b.win.add(o, b.second(end))
		if t := b.win.total; t.calls >= b.minCalls && b.exceeded(t) {
			b.reason, b.cause = b.openReason("", t), ctx
			return errTrip
		}
	case StateHalfOpen:
		b.trial.add(o, 1)
		if b.trial.calls == b.p.HalfOpenCalls {
			if b.exceeded(b.trial) {
				b.reason, b.cause = b.openReason("trial calls: ", b.trial), ctx
				return errTrip
			}
			b.reason, b.cause = b.closeReason(b.trial), ctx
		}
	}
	return nil
}

func (b *Breaker) exceeded(t tally) bool {
	return t.calls > 0 &&
		(over(t.failed, t.calls, b.p.FailureRateThreshold) || over(t.slow, t.calls, b.p.SlowCallRateThreshold))
}

// over reports n/of ≥ pct%; a threshold ≤ 0 is off.
func over(n, of int, pct float64) bool {
	return pct > 0 && float64(n)*100 >= pct*float64(of)
}

func rate(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) * 100 / float64(of)
}

// onStateChange runs under gobreaker's lock: it touches only the Breaker's
// own fields and queues the event; flush logs it after gobreaker returns.
func (b *Breaker) onStateChange(from, to State) {
	now := b.e.now()
	b.mu.Lock()
	b.gen++
	prev := b.state
	b.state = to
	reason, cause := b.reason, b.cause
	b.reason, b.cause = "", nil
	if b.timer != nil {
		b.timer.Stop() // a wake already running sees the new generation
		b.timer = nil
	}
	switch b.state {
	case StateClosed:
		b.win.reset()
	case StateOpen:
		wait := b.waitInOpen()
		b.openUntil.Store(int64(now + wait))
		b.tripped = b.win.total
		if prev == StateHalfOpen {
			b.tripped = b.trial
		}
		gen := b.gen
		b.timer = time.AfterFunc(wait, func() { b.wake(gen) })
	case StateHalfOpen:
		b.trial = tally{}
		reason = b.waitInOpen().String() + " in open elapsed; letting " + strconv.Itoa(b.p.HalfOpenCalls) + " trial calls through"
		cause = nil // time ends the wait, not the call that happens to see it
	}
	if cause == nil {
		cause = context.Background()
	}
	b.pending = append(b.pending, StateChangeEvent{Context: cause, Breaker: b.name, From: from, To: b.state, Reason: reason})
	b.gs.Store(b.gen<<2 | uint64(b.state))
	b.mu.Unlock()
	b.hasPending.Store(true)
}

// wake runs on the open state's timer: it lets gobreaker, which changes
// state only when asked, move to half-open, and reports the change. The
// timer is armed just after gobreaker computed its expiry, so it seldom
// fires early; when it does, it looks again a millisecond later. A wake
// left over from an earlier generation does nothing.
func (b *Breaker) wake(gen uint64) {
	b.mu.Lock()
	stale := b.gen != gen
	b.mu.Unlock()
	if stale {
		return
	}
	if b.machineState() == StateOpen {
		b.mu.Lock()
		if b.gen == gen && b.timer != nil {
			b.timer.Reset(time.Millisecond)
		}
		b.mu.Unlock()
		return
	}
	b.flush()
}

// waitInOpen is the open duration gobreaker applies (it takes ≤ 0 as 60s).
func (b *Breaker) waitInOpen() time.Duration {
	if b.p.WaitInOpen <= 0 {
		return 60 * time.Second
	}
	return b.p.WaitInOpen
}

// flush logs and observes queued state changes, outside gobreaker's lock
// and b.mu. flushMu keeps them in order; TryLock lets an observer that
// calls back into the breaker return instead of deadlocking, and whoever
// holds flushMu re-checks after unlocking so no event is left behind.
func (b *Breaker) flush() {
	for b.hasPending.Load() {
		if !b.flushMu.TryLock() {
			return
		}
		for {
			b.mu.Lock()
			evs := b.pending
			b.pending = nil
			b.hasPending.Store(false)
			b.mu.Unlock()
			if len(evs) == 0 {
				break
			}
			for _, ev := range evs {
				b.emit(ev)
			}
		}
		b.flushMu.Unlock()
	}
}

func (b *Breaker) emit(ev StateChangeEvent) {
	level, verb := slog.LevelInfo, ev.To.String()
	switch ev.To {
	case StateOpen:
		level, verb = slog.LevelWarn, "opened"
	case StateClosed:
		verb = "closed"
	}
	b.e.log.LogAttrs(ev.Context, level,
		"breaker "+strconv.Quote(b.name)+" "+verb+": "+ev.Reason,
		slog.String("breaker", b.name), slog.String("policy", b.p.Policy),
		slog.String("from", ev.From.String()), slog.String("to", ev.To.String()))
	b.e.obs.BreakerStateChange(ev)
}

// openReason says which rates crossed which thresholds, e.g.
// `slow-call rate 60% (6 of 10 calls ≥ 200ms) ≥ 50%; failure rate 0%`.
func (b *Breaker) openReason(prefix string, t tally) string {
	fail := "failure rate " + pct(rate(t.failed, t.calls))
	failLong := fail + " (" + strconv.Itoa(t.failed) + " of " + strconv.Itoa(t.calls) + " calls) ≥ " + pct(b.p.FailureRateThreshold)
	slow := "slow-call rate " + pct(rate(t.slow, t.calls))
	slowLong := slow + " (" + strconv.Itoa(t.slow) + " of " + strconv.Itoa(t.calls) + " calls ≥ " + b.p.SlowCallDuration.String() + ") ≥ " + pct(b.p.SlowCallRateThreshold)
	fo, so := over(t.failed, t.calls, b.p.FailureRateThreshold), over(t.slow, t.calls, b.p.SlowCallRateThreshold)
	switch {
	case fo && so:
		return prefix + failLong + "; " + slowLong
	case so:
		return prefix + slowLong + "; " + fail
	}
	return prefix + failLong + "; " + slow
}

func (b *Breaker) closeReason(t tally) string {
	s := "trial calls: failure rate " + pct(rate(t.failed, t.calls)) + " (" + strconv.Itoa(t.failed) + " of " + strconv.Itoa(t.calls) + " calls)"
	if b.p.FailureRateThreshold > 0 {
		s += " < " + pct(b.p.FailureRateThreshold)
	}
	s += "; slow-call rate " + pct(rate(t.slow, t.calls))
	if b.p.SlowCallRateThreshold > 0 {
		s += " (" + strconv.Itoa(t.slow) + " of " + strconv.Itoa(t.calls) + " calls ≥ " + b.p.SlowCallDuration.String() + ") < " + pct(b.p.SlowCallRateThreshold)
	}
	return s
}

// pct prints a percentage with at most one decimal: 60%, 33.3%.
func pct(v float64) string {
	return strconv.FormatFloat(float64(int64(v*10+0.5))/10, 'f', -1, 64) + "%"
}

// refuse ends a call the breaker refused, and observes it like any call:
// CallStart, Rejected, then CallEnd with Attempts 0.
func (b *Breaker) refuse(start CallStartEvent, why refusal) error {
	e := b.e
	ctx, op := start.Context, start.Operation
	if e.observe {
		ctx = e.obs.CallStart(start)
	}
	err := b.rejection(ctx, op, why)
	if e.observe {
		stop := "rejected: breaker open"
		if err.HalfOpen {
			stop = "rejected: half-open, its trial calls are taken"
		}
		e.obs.CallEnd(CallEndEvent{Context: ctx, Operation: op, Err: err, StopErr: ErrCircuitOpen, Stop: stop})
	}
	return err
}

// rejection builds the error for a call (or, in the retry-outside order,
// an attempt) the breaker refused, and observes the refusal.
func (b *Breaker) rejection(ctx context.Context, op string, why refusal) *CircuitOpenError {
	e := &CircuitOpenError{Breaker: b.name}
	st := StateOpen
	if why == refusedFull {
		e.HalfOpen, st = true, StateHalfOpen
		e.RetryAt = b.e.wall(b.e.now())
	} else {
		e.RetryAt = b.e.wall(time.Duration(b.openUntil.Load()))
	}
	if b.e.observe {
		b.e.obs.Rejected(RejectionEvent{Context: ctx, Operation: op, Breaker: b.name, State: st, RetryAt: e.RetryAt})
	}
	return e
}
