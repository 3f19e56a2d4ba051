package runtime

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"
)

// ErrCircuitOpen is matched (errors.Is) by every error returned because a
// breaker refused a call.
var ErrCircuitOpen = errors.New("circuit breaker is open")

// ErrAttemptTimeout is matched (errors.Is) by the error of an attempt that
// ran out of its per-attempt Timeout. Such an error also matches
// context.DeadlineExceeded.
var ErrAttemptTimeout = errors.New("attempt timed out")

// CircuitOpenError is returned when a breaker refuses a call; no attempt
// was made.
type CircuitOpenError struct {
	// Breaker is the breaker instance's name.
	Breaker string
	// HalfOpen is true when the breaker is half-open and all its trial
	// calls are taken.
	HalfOpen bool
	// RetryAt is when the breaker will next let a call through. While
	// half-open it is the time of the refusal: a call may pass as soon as
	// the trial calls have decided.
	RetryAt time.Time
}

func (e *CircuitOpenError) Error() string {
	if e.HalfOpen {
		return "breaker " + strconv.Quote(e.Breaker) + " is half-open and its trial calls are taken; retry after " + e.RetryAt.Format(time.RFC3339Nano)
	}
	return "breaker " + strconv.Quote(e.Breaker) + " is open; it lets a trial call through at " + e.RetryAt.Format(time.RFC3339Nano)
}

// Is makes errors.Is(err, ErrCircuitOpen) true.
func (e *CircuitOpenError) Is(target error) bool { return target == ErrCircuitOpen }

// StatusError is the error for an HTTP answer the caller cannot use: an
// undeclared status, or a status the retry loop gave up on.
type StatusError struct {
	Method, URL string
	StatusCode  int
	Header      http.Header
	// Body holds at most the first 64 KiB of the answer.
	Body []byte
	// Attempts is how many attempts the call made.
	Attempts int
}

func (e *StatusError) Error() string {
	s := e.Method + " " + e.URL + ": unexpected status " + strconv.Itoa(e.StatusCode) + " " + http.StatusText(e.StatusCode)
	if e.Attempts > 1 {
		s += " after " + strconv.Itoa(e.Attempts) + " attempts"
	}
	return s
}

// CallError is returned by Operation.Do when the call ends without an HTTP
// response to return: the last attempt failed in transport or timed out,
// or the call was cancelled while waiting to retry.
type CallError struct {
	// Operation is the operation's name.
	Operation string
	// Attempts is how many attempts were made.
	Attempts int
	// Reason says why no further attempt was made, e.g. "retries
	// exhausted", "not retryable", "retry budget spent".
	Reason string
	// Err is the last attempt's error.
	Err error
	// Cause is set when the call's context ended while waiting between
	// attempts (context.Canceled, context.DeadlineExceeded or a cause).
	Cause error
}

func (e *CallError) Error() string {
	s := e.Operation + ": "
	if e.Attempts == 1 {
		s += "1 attempt"
	} else {
		s += strconv.Itoa(e.Attempts) + " attempts"
	}
	s += ", " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	if e.Cause != nil {
		s += " (then " + e.Cause.Error() + ")"
	}
	return s
}

// Unwrap gives both the last attempt's error and the context's cause, so
// errors.Is and errors.As reach either.
func (e *CallError) Unwrap() []error {
	switch {
	case e.Cause == nil:
		return []error{e.Err}
	case e.Err == nil:
		return []error{e.Cause}
	}
	return []error{e.Err, e.Cause}
}

// attemptTimeoutError marks an attempt that ran out of its own Timeout
// (rather than the caller's deadline or the TotalTimeout).
type attemptTimeoutError struct {
	d   time.Duration
	err error
}

func (e *attemptTimeoutError) Error() string {
	return "attempt timed out after " + e.d.String() + ": " + e.err.Error()
}

func (e *attemptTimeoutError) Unwrap() error { return e.err }

// Is matches both ErrAttemptTimeout and context.DeadlineExceeded, whatever
// the transport wrapped (ctx.Err() or context.Cause(ctx)).
func (e *attemptTimeoutError) Is(target error) bool {
	return target == ErrAttemptTimeout || target == context.DeadlineExceeded
}

// statusAttemptError stands for a retryable HTTP answer inside the retry
// loop; the response itself travels in the call state.
type statusAttemptError struct{ code int }

func (e statusAttemptError) Error() string { return "status " + strconv.Itoa(e.code) }

// errTrip and errIgnored are what a breaker reports to gobreaker: errTrip
// makes it open (ReadyToTrip always agrees), errIgnored is excluded.
var (
	errTrip    = errors.New("resgen: breaker thresholds exceeded")
	errIgnored = errors.New("resgen: outcome not recorded")
)
