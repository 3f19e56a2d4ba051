package runtime

import (
	"context"
	"time"
)

// A FleetStore keeps the state of breakers shared by the replicas of a
// service: one window and one state per breaker for the whole fleet. The
// runtime's Fleet batches each breaker's outcomes and sends them with Sync;
// the store decides the state changes atomically and announces them with
// Watch. resgenredis.Store (module github.com/resgen/resgen/redis) keeps
// them in Redis; NewMemoryFleetStore keeps them in one process.
//
// The decisions a store makes are the runtime's own breaker rules (see the
// package doc), applied to the fleet's outcomes instead of one client's:
// docs/fleet.md states them step by step, and every store must pass
// fleettest.Run (package github.com/resgen/resgen/runtime/fleettest).
type FleetStore interface {
	// Sync applies each request atomically, in order, and returns each
	// breaker's state after its request (same length and order). It is
	// called from one goroutine per Fleet, with a deadline; an error means
	// none or only some of the requests were applied, and the Fleet falls
	// back to local breakers until a Sync succeeds again.
	Sync(ctx context.Context, reqs []FleetSync) ([]FleetState, error)
	// Watch calls fn with every state change (new generation) that any
	// replica's Sync made under this store's prefix, as soon as the store
	// learns of it, until ctx ends (it then returns nil) or the store's
	// connection fails (it returns the error; the Fleet calls it again
	// later). It calls ready once it is subscribed, before any fn. fn is
	// called from one goroutine and must not block. The Fleet trusts no
	// state fn is given (anyone who can publish where the store listens
	// can forge one): it takes each as a hint to Sync at once, and takes
	// the Sync's answer.
	Watch(ctx context.Context, ready func(), fn func(FleetState)) error
}

// FleetSync is one breaker's outcomes since the last Sync, and its request
// for half-open trial permits.
type FleetSync struct {
	// Key identifies the fleet's breaker: the breaker's name and a
	// fingerprint of its policy, so that replicas with different policies
	// for one name do not share a window they would judge differently. The
	// store puts its prefix before it.
	Key string
	// Breaker is the breaker's name, for the store's messages.
	Breaker string
	Policy  FleetPolicy
	// Gen is the generation the outcomes were counted in; outcomes of
	// another generation than the store's are dropped, as a local breaker
	// drops the outcome of a call admitted before a state change.
	Gen uint64
	// Closed are the outcomes of calls admitted while closed; Trials those
	// of half-open trial calls.
	Closed, Trials FleetCounts
	// Returned is how many trial permits granted in Gen were given back
	// unused (a trial call whose caller gave up is not an outcome).
	Returned int
	// Want is how many trial permits the replica asks for (0 unless it
	// sees the breaker half-open, or open past its wait).
	Want int
}

// FleetCounts counts outcomes by kind; a call is one of the four.
type FleetCounts struct {
	OK, Failed, Slow, FailedSlow int64
}

// Calls is the number of calls counted.
func (c FleetCounts) Calls() int64 { return c.OK + c.Failed + c.Slow + c.FailedSlow }

// FleetPolicy is what a store needs of a BreakerPolicy, normalised by the
// runtime (the same limits and defaults as a local breaker).
type FleetPolicy struct {
	// Exactly one of CountWindow (the last N calls) and TimeWindow (the
	// calls of the last whole seconds, bucketed by the store's clock) is
	// set.
	CountWindow int
	TimeWindow  time.Duration
	// MinimumCalls is at least 1, and at most CountWindow for a count
	// window.
	MinimumCalls int
	// Thresholds are percentages; ≤ 0 is off.
	FailureRateThreshold, SlowCallRateThreshold float64
	// WaitInOpen is > 0.
	WaitInOpen time.Duration
	// HalfOpenCalls is ≥ 1: the trial calls the whole fleet admits.
	HalfOpenCalls int
	// PermitLease is how long granted trial permits may go unreported
	// before the store offers them again (a replica that died holding
	// them must not keep the fleet half-open for ever).
	PermitLease time.Duration
}

// FleetCause says what made a breaker's last state change.
type FleetCause uint8

const (
	FleetCauseNone   FleetCause = iota // no change yet (a new breaker)
	FleetCauseWindow                   // closed → open: the window's rates
	FleetCauseWait                     // open → half-open: WaitInOpen elapsed
	FleetCauseTrials                   // half-open → open or closed: the trials' rates
)

// FleetState is a fleet breaker's state as the store holds it.
type FleetState struct {
	Key string
	// Gen grows by one on every state change. A breaker the store has
	// never seen (or has forgotten, its keys having expired) starts at a
	// generation taken from the store's clock (milliseconds × 1024), so a
	// re-created breaker never goes back to a generation replicas have
	// seen.
	Gen   uint64
	State State
	// OpenFor is, when open, the time left until the wait ends, by the
	// store's clock when it answered.
	OpenFor time.Duration
	// Granted is how many trial permits this Sync was granted (0 in
	// Watch).
	Granted int
	// Calls, Failed and Slow are, when closed, the window's totals; when
	// open, the totals that opened it (the window's or the trials'); when
	// half-open, the trials recorded so far.
	Calls, Failed, Slow int64
	// Cause is what made the change to this generation.
	Cause FleetCause
	// TrialCalls, TrialFailed and TrialSlow are, when Cause is
	// FleetCauseTrials, the trial calls that decided the change: when
	// open they equal Calls, Failed and Slow; when closed they are what
	// the log line reports, Calls then counting the new window. 0 for any
	// other Cause.
	TrialCalls, TrialFailed, TrialSlow int64
}
