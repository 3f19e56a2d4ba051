// Package runtime is what every resgen-generated client calls on each
// operation: a circuit breaker outside, a retry loop inside.
//
// The generated code builds one Engine per client, registers one Operation
// per API operation with its resolved policy, and makes each call with
// Call: it fills a Request, and the runtime builds every attempt's
// *http.Request and decodes the typed response (Operation.Do, with a built
// *http.Request, is for hand use and tests). Nothing here is global: two clients never share
// a breaker, a budget or a logger unless the caller passes the same one. No
// goroutine runs in the background. The one timer is an open breaker's: a
// time.AfterFunc armed when it opens and stopped when it leaves open, which
// moves it to half-open when WaitInOpen ends and reports that change (a
// log line and a StateChangeEvent) on the timer's short-lived goroutine,
// so a gauge fed by events is right on an idle client. A dropped client
// with an open breaker is freed when that timer fires, at most WaitInOpen
// later.
//
// Semantics, where x-resilience leaves room:
//   - A logical call is one breaker sample, recorded after all its retries
//     with RecordOn; a call whose caller's context ended is not recorded.
//     Its duration, for slow calls, is the sum of its attempts (from
//     sending the request to receiving the response headers), waits
//     excluded; slow means ≥ SlowCallDuration.
//   - Windows and thresholds follow Resilience4j: rates are evaluated after
//     every recorded call, success or not, once MinimumCalls calls are in
//     the window (capped at WindowSize for count windows). A threshold ≤ 0
//     is off.
//   - Half-open admits exactly HalfOpenCalls trial calls, one attempt each;
//     once all of them are recorded, their failure and slow-call rates
//     decide: re-open if a threshold is reached, else close. (Resilience4j
//     may decide earlier when MinimumCalls < HalfOpenCalls; resgen always
//     waits for all the trials, as the contract says "all decide".)
//   - Waits: backoff.go has the exact AWS formulas; the cap applies before
//     the jitter; decorrelated jitter keeps its previous wait per call.
//     A Retry-After (429/503) is a minimum wait and is not capped by
//     MaxInterval; above MaxRetryAfter it ends the retries.
//   - A wait that would pass the deadline (caller's or TotalTimeout) is not
//     started: the call ends at once with its last result.
//   - The retry budget is Finagle's RetryBudget over 10 s, one per Engine.
//   - Every send that reaches the wire is an attempt: Attempts,
//     MaxAttempts, the budget and the observer count what the server
//     received, and a call never makes more than MaxAttempts sends.
//     net/http's Transport sends a GET-like request again by itself when a
//     reused connection fails before any answer. Each such send is an
//     attempt (its AttemptEvent's Err is ErrResent, followed by a RetryWait
//     of 0), let through only while the policy would retry a transport
//     failure (an attempt left, RetryOn transport, budget room); the first
//     one it would not is refused and the attempt fails with ErrNotResent.
//     So no retry, a half-open trial and the last attempt are sent once. A
//     keyed request of another method is never resent by net/http. How,
//     and what it costs, is in resend.go.
//   - Errors, log lines and events never show a password of the URL or a
//     credential query parameter (redact.go). A StatusError holds at most
//     the first 64 KiB of a body the spec does not declare.
package runtime

import "time"

// SupportPackageIsVersion1 is referenced by generated code so that output
// from an incompatible resgen fails to compile instead of misbehaving.
const SupportPackageIsVersion1 = true

// The largest sizes a breaker allocates from its policy. resgen's spec
// validation refuses larger values; a BreakerPolicy built by hand with a
// larger one is clamped to these, with one warning in the Engine's log
// when the breaker is created, so a policy value can never make NewClient
// allocate without bound.
const (
	// MaxWindowSize is the most calls a count window keeps.
	MaxWindowSize = 10000
	// MaxWindowDuration is the longest time window: one bucket per
	// second, 3600 buckets.
	MaxWindowDuration = time.Hour
	// MaxHalfOpenCalls is the most trial calls half-open admits (they
	// are counted in gobreaker's uint32).
	MaxHalfOpenCalls = 10000
)

// WindowType says how a breaker's sliding window counts calls.
type WindowType uint8

const (
	// CountWindow keeps the last WindowSize recorded calls.
	CountWindow WindowType = iota
	// TimeWindow keeps the calls of the last WindowDuration, in one-second buckets.
	TimeWindow
)

func (w WindowType) String() string {
	if w == TimeWindow {
		return "time"
	}
	return "count"
}

// GoString is the constant's Go name (resgen prints it in generated code).
func (w WindowType) GoString() string {
	if w == TimeWindow {
		return "runtime.TimeWindow"
	}
	return "runtime.CountWindow"
}

// Match is a set of call outcomes: a transport failure, a timeout, or an
// HTTP status given exactly (503) or by class (5 for 5xx).
type Match struct {
	Transport bool
	Timeout   bool
	Codes     []int
	Classes   []int
}

// BreakerPolicy is one resolved breaker policy of x-resilience.
// Percentages are in (0, 100] (≤ 0 turns that rate off); durations are
// positive (WaitInOpen ≤ 0 means 60s); WindowSize, MinimumCalls and
// HalfOpenCalls below 1 count as 1; WindowSize, WindowDuration and
// HalfOpenCalls above MaxWindowSize, MaxWindowDuration and
// MaxHalfOpenCalls count as those.
//
// Each field's policy tag is its x-resilience key; resgen's explain, diff,
// doc comments and generated literals are all read from these tags, so a
// field added here shows up in each of them. "when=key:value" says the
// field counts only while that key has that value; "percent" that the
// number is a percentage.
type BreakerPolicy struct {
	// Policy is the name of the x-resilience policy this came from (for logs).
	Policy                string        `policy:"-"`
	WindowType            WindowType    `policy:"windowType"`
	WindowSize            int           `policy:"windowSize,when=windowType:count"`
	WindowDuration        time.Duration `policy:"windowDuration,when=windowType:time"`
	MinimumCalls          int           `policy:"minimumCalls"`
	FailureRateThreshold  float64       `policy:"failureRateThreshold,percent"`
	SlowCallDuration      time.Duration `policy:"slowCallDuration"`
	SlowCallRateThreshold float64       `policy:"slowCallRateThreshold,percent"`
	WaitInOpen            time.Duration `policy:"waitInOpen"`
	HalfOpenCalls         int           `policy:"halfOpenCalls"`
	RecordOn              Match         `policy:"recordOn"`
}

// Backoff is the growth of the wait between attempts.
type Backoff uint8

const (
	ExponentialBackoff Backoff = iota
	ConstantBackoff
)

func (b Backoff) String() string {
	if b == ConstantBackoff {
		return "constant"
	}
	return "exponential"
}

// GoString is the constant's Go name.
func (b Backoff) GoString() string {
	if b == ConstantBackoff {
		return "runtime.ConstantBackoff"
	}
	return "runtime.ExponentialBackoff"
}

// Jitter is how a wait is randomised, as AWS's "Exponential Backoff and
// Jitter" defines the variants.
type Jitter uint8

const (
	FullJitter Jitter = iota
	NoJitter
	EqualJitter
	DecorrelatedJitter
)

func (j Jitter) String() string {
	switch j {
	case NoJitter:
		return "none"
	case EqualJitter:
		return "equal"
	case DecorrelatedJitter:
		return "decorrelated"
	}
	return "full"
}

// GoString is the constant's Go name.
func (j Jitter) GoString() string {
	switch j {
	case NoJitter:
		return "runtime.NoJitter"
	case EqualJitter:
		return "runtime.EqualJitter"
	case DecorrelatedJitter:
		return "runtime.DecorrelatedJitter"
	}
	return "runtime.FullJitter"
}

// Budget caps retries client-wide: retries may add at most Ratio of the
// calls made, plus MinPerSecond retries each second.
type Budget struct {
	Ratio        float64 `policy:"ratio"`
	MinPerSecond float64 `policy:"minPerSecond"`
}

// RetryPolicy is one resolved retry policy of x-resilience. MaxAttempts
// below 1 counts as 1; Multiplier ≤ 0 means 2; MaxInterval 0 means no cap;
// MaxRetryAfter 0 means no maximum.
// Its policy tags read as BreakerPolicy's do.
type RetryPolicy struct {
	// Policy is the name of the x-resilience policy this came from (for logs).
	Policy          string        `policy:"-"`
	MaxAttempts     int           `policy:"maxAttempts"`
	Backoff         Backoff       `policy:"backoff"`
	InitialInterval time.Duration `policy:"initialInterval"`
	Multiplier      float64       `policy:"multiplier"`
	MaxInterval     time.Duration `policy:"maxInterval"`
	Jitter          Jitter        `policy:"jitter"`
	RetryOn         Match         `policy:"retryOn"`
	// RetryAfter honours a Retry-After header on 429 and 503.
	RetryAfter    bool          `policy:"retryAfter"`
	MaxRetryAfter time.Duration `policy:"maxRetryAfter"`
	// Budget, when set, is shared by every operation of the Engine.
	Budget *Budget `policy:"budget"`
}

// OperationSpec is what the generated client registers for one API operation.
type OperationSpec struct {
	// Name is the operationId (or the name resgen made for it).
	Name string
	// Method and Path are the operation's HTTP method and path template.
	Method, Path string
	// Breaker is nil when the policy says breaker: none.
	Breaker *Breaker
	// Retry is nil when the operation is not retried.
	Retry *RetryPolicy
	// Timeout bounds each attempt, TotalTimeout the whole call; 0 = none.
	Timeout, TotalTimeout time.Duration
	// Security are the spec's alternatives of schemes the operation
	// requires (any one alternative will do); nil sends no credentials.
	Security []SecurityRequirement

	// auth are the schemes the engine sends, chosen from Security when
	// the operation is registered (auth.go).
	auth []*authScheme
	// Accept is the Accept header every attempt of Call sends ("" none).
	Accept string
	// NotRetrySafe marks an operation that must never be retried (a
	// method that is not idempotent, without an idempotency key): its
	// failures stop with ErrNotRetrySafe, and no option retries it.
	NotRetrySafe bool
}

// DefaultBreakerPolicy returns the contract's built-in breaker policy
// (Resilience4j's defaults).
func DefaultBreakerPolicy() BreakerPolicy {
	return BreakerPolicy{
		Policy:                "default",
		WindowType:            CountWindow,
		WindowSize:            100,
		WindowDuration:        60 * time.Second,
		MinimumCalls:          100,
		FailureRateThreshold:  50,
		SlowCallDuration:      60 * time.Second,
		SlowCallRateThreshold: 100,
		WaitInOpen:            60 * time.Second,
		HalfOpenCalls:         10,
		RecordOn:              Match{Transport: true, Timeout: true, Classes: []int{5}},
	}
}

// DefaultRetryPolicy returns the contract's built-in retry policy.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{
		Policy:          "default",
		MaxAttempts:     3,
		Backoff:         ExponentialBackoff,
		InitialInterval: 100 * time.Millisecond,
		Multiplier:      2,
		MaxInterval:     5 * time.Second,
		Jitter:          FullJitter,
		RetryOn:         Match{Transport: true, Timeout: true, Codes: []int{408, 429, 500, 502, 503, 504}},
		RetryAfter:      true,
		MaxRetryAfter:   30 * time.Second,
	}
}

// status reports whether the HTTP status code is in the set.
func (m *Match) status(code int) bool {
	for _, c := range m.Codes {
		if c == code {
			return true
		}
	}
	for _, c := range m.Classes {
		if c == code/100 {
			return true
		}
	}
	return false
}
