package runtime

import (
	"context"
	"log/slog"
	"time"
)

// Observer receives the events of a client (its WithObserver option).
// Methods are called
// synchronously (never under a lock), on the calling goroutine, except a
// breaker's timer-driven open -> half-open change, which arrives on the
// timer's goroutine: they must be quick and safe for concurrent use.
// Events are small structs passed by value.
//
// Every call, admitted or rejected, produces exactly one CallStart first
// and exactly one CallEnd last; its Attempt, RetryWait and Rejected events
// come between them. Every event of a call carries the context CallStart
// returned, so an observer can start a span in CallStart, put it in the
// context it returns, and find it again in every later event of that call
// (as gRPC's stats.Handler does with TagRPC); that context also parents
// every attempt's request, so a tracing transport nests under the span.
type Observer interface {
	// CallStart returns the context the call continues with: e.Context,
	// or a context derived from it (never one that ends sooner: the call's
	// own deadlines and cancellation come from e.Context).
	CallStart(e CallStartEvent) context.Context
	CallEnd(CallEndEvent)
	Attempt(AttemptEvent)
	RetryWait(RetryEvent)
	BreakerStateChange(StateChangeEvent)
	Rejected(RejectionEvent)
}

// CallStartEvent: a logical call begins, before any attempt. A call the
// breaker refuses gets one too, followed by Rejected and CallEnd.
type CallStartEvent struct {
	// Context is the context the caller passed to the method.
	Context   context.Context
	Operation string
	// Breaker is empty when the operation has none.
	Breaker string
	// Method and Path are the operation's HTTP method and path template
	// ("/pets/{petId}"), as OpenTelemetry's http.request.method and
	// url.template want them.
	Method, Path string
	// Host is the host (and port, if any) the call's requests go to.
	Host string
	// HalfOpenTrial is true when the breaker admitted the call as one of
	// its half-open trials, so it makes a single attempt. It is false for
	// a call in the closed state and for a call the breaker refuses.
	HalfOpenTrial bool
}

// CallEndEvent: a logical call ends. Every call ends with exactly one.
type CallEndEvent struct {
	// Context is the call's context, as CallStart returned it.
	Context   context.Context
	Operation string
	// Attempts is the number of requests sent; 0 when the breaker refused
	// the call.
	Attempts int
	// StatusCode of the returned response, 0 when there is none.
	StatusCode int
	// Err is the error the call returns: a *CircuitOpenError when the
	// breaker refused it, the *StatusError of a status of 400 or more,
	// the *DecodeError of an answer whose declared body did not decode
	// (for impl.Operation.Do, which decodes nothing, nil with any response).
	Err error
	// StopErr is why no further attempt was made, as a sentinel
	// (ErrAttemptsExhausted, ErrNotRetrySafe, ...; ErrCircuitOpen for a
	// refused call); nil when the first answer was the call's answer.
	StopErr error
	// Active is the sum of the attempts' durations (waits excluded).
	Active time.Duration
	// Stop says why no further attempt was made; for a refused call it
	// starts with "rejected".
	Stop string
}

// AttemptEvent: one attempt finished.
type AttemptEvent struct {
	// Context is the call's context (as CallStart returned it), not the
	// attempt's own: it carries the same values without the attempt's
	// deadline, and stays valid after the attempt.
	Context    context.Context
	Operation  string
	Attempt    int
	StatusCode int
	Err        error
	Duration   time.Duration
}

// RetryEvent: the call will wait, then make attempt Attempt+1.
type RetryEvent struct {
	// Context is the call's context, as CallStart returned it.
	Context   context.Context
	Operation string
	// Attempt is the attempt that failed (1-based).
	Attempt int
	Wait    time.Duration
	// Reason is what made the attempt worth retrying ("status 503",
	// "transport", "timeout").
	Reason string
}

// StateChangeEvent: a breaker changed state. It is reported when the
// change happens: open -> half-open by a timer when the wait in open ends,
// even if no call is made.
type StateChangeEvent struct {
	// Context is the context of the call whose outcome caused the change
	// (closed -> open, half-open -> open or closed), or
	// context.Background() for open -> half-open, which time causes.
	Context  context.Context
	Breaker  string
	From, To State
	// Reason is the human line also logged, without the breaker's name.
	Reason string
}

// RejectionEvent: a breaker refused a call (or, in the retry-outside test
// order, an attempt); nothing was sent.
type RejectionEvent struct {
	// Context is the call's context, as CallStart returned it.
	Context   context.Context
	Operation string
	Breaker   string
	State     State
	RetryAt   time.Time
}

// NopObserver ignores every event; it is the default and costs nothing.
type NopObserver struct{}

func (NopObserver) CallStart(e CallStartEvent) context.Context { return e.Context }
func (NopObserver) CallEnd(CallEndEvent)                       {}
func (NopObserver) Attempt(AttemptEvent)                       {}
func (NopObserver) RetryWait(RetryEvent)                       {}
func (NopObserver) BreakerStateChange(StateChangeEvent)        {}
func (NopObserver) Rejected(RejectionEvent)                    {}

// SlogObserver writes every event to a *slog.Logger: calls and attempts at
// debug, retries and rejections at info, state changes at warn. Each line
// is logged with the event's Context, so a slog.Handler can add the trace
// and span IDs it carries. The
// client's own logger (WithLogger) already logs state changes and retries;
// use this for a full trace.
type SlogObserver struct{ l *slog.Logger }

// NewSlogObserver returns an Observer that logs to l (nil: slog.Default()).
func NewSlogObserver(l *slog.Logger) *SlogObserver {
	if l == nil {
		l = slog.Default()
	}
	return &SlogObserver{l: l}
}

func (o *SlogObserver) CallStart(e CallStartEvent) context.Context {
	o.l.LogAttrs(e.Context, slog.LevelDebug, "call start",
		slog.String("op", e.Operation), slog.String("breaker", e.Breaker), slog.Bool("trial", e.HalfOpenTrial))
	return e.Context
}

func (o *SlogObserver) CallEnd(e CallEndEvent) {
	o.l.LogAttrs(e.Context, slog.LevelDebug, "call end",
		slog.String("op", e.Operation), slog.Int("attempts", e.Attempts), slog.Int("status", e.StatusCode),
		slog.Any("err", e.Err), slog.Duration("active", e.Active), slog.String("stop", e.Stop))
}

func (o *SlogObserver) Attempt(e AttemptEvent) {
	o.l.LogAttrs(e.Context, slog.LevelDebug, "attempt",
		slog.String("op", e.Operation), slog.Int("attempt", e.Attempt), slog.Int("status", e.StatusCode),
		slog.Any("err", e.Err), slog.Duration("duration", e.Duration))
}

func (o *SlogObserver) RetryWait(e RetryEvent) {
	o.l.LogAttrs(e.Context, slog.LevelInfo, "retry",
		slog.String("op", e.Operation), slog.Int("attempt", e.Attempt), slog.Duration("wait", e.Wait), slog.String("reason", e.Reason))
}

func (o *SlogObserver) BreakerStateChange(e StateChangeEvent) {
	o.l.LogAttrs(e.Context, slog.LevelWarn, "breaker state change",
		slog.String("breaker", e.Breaker), slog.String("from", e.From.String()), slog.String("to", e.To.String()), slog.String("reason", e.Reason))
}

func (o *SlogObserver) Rejected(e RejectionEvent) {
	o.l.LogAttrs(e.Context, slog.LevelInfo, "breaker rejected call",
		slog.String("op", e.Operation), slog.String("breaker", e.Breaker), slog.String("state", e.State.String()), slog.Time("retry_at", e.RetryAt))
}
