package runtime

import (
	"time"

	"github.com/resgen/resgen/runtime/wire"
)

// The largest sizes a breaker allocates from its policy. resgen's spec
// validation refuses larger values; a BreakerPolicy built by hand with a
// larger one is clamped to these, with one warning in the client's log
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
	// Budget, when set, is shared by every operation of the client.
	Budget *Budget `policy:"budget"`
}

// operationSpec is what a generated client registers for one API
// operation: package impl's OperationSpec, documented there, which names
// this very unnamed struct type (runtime cannot name impl's types).
type operationSpec = struct {
	Name                  string
	Method, Path          string
	Breaker               *Breaker
	Retry                 *RetryPolicy
	Timeout, TotalTimeout time.Duration
	Security              []wire.SecurityRequirement
	Accept                string
	NotRetrySafe          bool
	IdleTimeout           time.Duration
	Resume                bool
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
