package runtime

import (
	"context"
	"log/slog"
	"time"
)

// Observer receives the events of an Engine. Methods are called
// synchronously on the calling goroutine (never under a lock), so they must
// be quick and safe for concurrent use. Events are small structs passed by
// value.
type Observer interface {
	CallStart(CallStartEvent)
	CallEnd(CallEndEvent)
	Attempt(AttemptEvent)
	RetryWait(RetryEvent)
	BreakerStateChange(StateChangeEvent)
	Rejected(RejectionEvent)
}

// CallStartEvent: a logical call begins (after the breaker admitted it).
type CallStartEvent struct {
	Operation string
	// Breaker is empty when the operation has none.
	Breaker string
	// HalfOpenTrial is true when the call is a half-open trial (one attempt).
	HalfOpenTrial bool
}

// CallEndEvent: a logical call ends.
type CallEndEvent struct {
	Operation string
	Attempts  int
	// StatusCode of the returned response, 0 when there is none.
	StatusCode int
	// Err is the error Do returns, nil when it returns a response.
	Err error
	// Active is the sum of the attempts' durations (waits excluded).
	Active time.Duration
	// Stop says why no further attempt was made.
	Stop string
}

// AttemptEvent: one attempt finished.
type AttemptEvent struct {
	Operation  string
	Attempt    int
	StatusCode int
	Err        error
	Duration   time.Duration
}

// RetryEvent: the call will wait, then make attempt Attempt+1.
type RetryEvent struct {
	Operation string
	// Attempt is the attempt that failed (1-based).
	Attempt int
	Wait    time.Duration
	// Reason is what made the attempt worth retrying ("status 503",
	// "transport", "timeout").
	Reason string
}

// StateChangeEvent: a breaker changed state.
type StateChangeEvent struct {
	Breaker  string
	From, To State
	// Reason is the human line also logged, without the breaker's name.
	Reason string
}

// RejectionEvent: a breaker refused a call; nothing was sent.
type RejectionEvent struct {
	Operation string
	Breaker   string
	State     State
	RetryAt   time.Time
}

// NopObserver ignores every event; it is the default and costs nothing.
type NopObserver struct{}

func (NopObserver) CallStart(CallStartEvent)            {}
func (NopObserver) CallEnd(CallEndEvent)                {}
func (NopObserver) Attempt(AttemptEvent)                {}
func (NopObserver) RetryWait(RetryEvent)                {}
func (NopObserver) BreakerStateChange(StateChangeEvent) {}
func (NopObserver) Rejected(RejectionEvent)             {}

// SlogObserver writes every event to a *slog.Logger: calls and attempts at
// debug, retries and rejections at info, state changes at warn. The
// Engine's own Logger already logs state changes and retries; use this for
// a full trace.
type SlogObserver struct{ l *slog.Logger }

// NewSlogObserver returns an Observer that logs to l (nil: slog.Default()).
func NewSlogObserver(l *slog.Logger) *SlogObserver {
	if l == nil {
		l = slog.Default()
	}
	return &SlogObserver{l: l}
}

func (o *SlogObserver) CallStart(e CallStartEvent) {
	o.l.LogAttrs(context.Background(), slog.LevelDebug, "call start",
		slog.String("op", e.Operation), slog.String("breaker", e.Breaker), slog.Bool("trial", e.HalfOpenTrial))
}

func (o *SlogObserver) CallEnd(e CallEndEvent) {
	o.l.LogAttrs(context.Background(), slog.LevelDebug, "call end",
		slog.String("op", e.Operation), slog.Int("attempts", e.Attempts), slog.Int("status", e.StatusCode),
		slog.Any("err", e.Err), slog.Duration("active", e.Active), slog.String("stop", e.Stop))
}

func (o *SlogObserver) Attempt(e AttemptEvent) {
	o.l.LogAttrs(context.Background(), slog.LevelDebug, "attempt",
		slog.String("op", e.Operation), slog.Int("attempt", e.Attempt), slog.Int("status", e.StatusCode),
		slog.Any("err", e.Err), slog.Duration("duration", e.Duration))
}

func (o *SlogObserver) RetryWait(e RetryEvent) {
	o.l.LogAttrs(context.Background(), slog.LevelInfo, "retry",
		slog.String("op", e.Operation), slog.Int("attempt", e.Attempt), slog.Duration("wait", e.Wait), slog.String("reason", e.Reason))
}

func (o *SlogObserver) BreakerStateChange(e StateChangeEvent) {
	o.l.LogAttrs(context.Background(), slog.LevelWarn, "breaker state change",
		slog.String("breaker", e.Breaker), slog.String("from", e.From.String()), slog.String("to", e.To.String()), slog.String("reason", e.Reason))
}

func (o *SlogObserver) Rejected(e RejectionEvent) {
	o.l.LogAttrs(context.Background(), slog.LevelInfo, "breaker rejected call",
		slog.String("op", e.Operation), slog.String("breaker", e.Breaker), slog.String("state", e.State.String()), slog.Time("retry_at", e.RetryAt))
}
