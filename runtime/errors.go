package runtime

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
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

// Why retrying stopped: the Stop of a *StatusError or a *CallError is one
// of these (a context error when the caller's context ended), so
// errors.Is(err, runtime.ErrBudgetSpent) tells a spent budget from an
// operation that is never retried.
var (
	// ErrNotRetrySafe: the operation is not retry-safe (a POST, PATCH, ...
	// without an idempotency key, or idempotent: false), so no option or
	// policy retries it.
	ErrNotRetrySafe = errors.New("not retry-safe: one attempt")
	// ErrRetryOff: the operation has no retry policy (retry: none).
	ErrRetryOff = errors.New("no retry policy")
	// ErrNotRetryable: the status or error is not in the policy's retryOn.
	ErrNotRetryable = errors.New("not retryable")
	// ErrAttemptsExhausted: the last allowed attempt failed.
	ErrAttemptsExhausted = errors.New("attempts exhausted")
	// ErrBudgetSpent: the client's retry budget had no room for a retry.
	ErrBudgetSpent = errors.New("retry budget spent")
	// ErrRetryAfterTooLong: the server asked for a wait above maxRetryAfter.
	ErrRetryAfterTooLong = errors.New("Retry-After exceeds maxRetryAfter")
	// ErrDeadline: the next wait would pass the caller's deadline or the
	// total timeout, or the total timeout passed.
	ErrDeadline = errors.New("deadline: no time for another attempt")
	// ErrRetryDisabled: a call option (WithNoRetry) turned retries off.
	ErrRetryDisabled = errors.New("retries disabled for this call")
	// ErrHalfOpenTrial: the call was a half-open breaker's trial, which
	// makes one attempt.
	ErrHalfOpenTrial = errors.New("half-open trial: one attempt")
)

// StatusError is the error of every call that ends with a status of 400
// or more, declared by the spec or not: the typed response comes back
// beside it. Unwrap gives Stop and DecodeErr, so errors.Is reaches the
// stop sentinels.
type StatusError struct {
	// Operation is the operation's name.
	Operation   string
	Method, URL string // the URL is redacted (see redact.go)
	StatusCode  int
	Header      http.Header
	// Body holds at most the first 64 KiB of the answer.
	Body []byte
	// Attempts is how many attempts the call made.
	Attempts int
	// Stop says why no further attempt was made: one of the Err...
	// sentinels above.
	Stop error
	// Decoded is the decoded body the spec declares for this status (for
	// example *Error), nil when it declares none or it did not decode.
	Decoded any
	// DecodeErr is why a declared body did not decode, nil otherwise.
	DecodeErr error
}

func (e *StatusError) Error() string {
	s := e.Method + " " + e.URL + ": status " + strconv.Itoa(e.StatusCode) + " " + http.StatusText(e.StatusCode)
	if e.Operation != "" {
		s = e.Operation + ": " + s
	}
	if e.Attempts > 1 {
		s += " after " + strconv.Itoa(e.Attempts) + " attempts"
	}
	if e.Stop != nil && e.Attempts > 0 {
		s += " (" + e.Stop.Error() + ")"
	}
	if e.DecodeErr != nil {
		s += "; its body did not decode: " + e.DecodeErr.Error()
	}
	return s
}

// Unwrap gives Stop and DecodeErr.
func (e *StatusError) Unwrap() []error { return nonNil(e.Stop, e.DecodeErr) }

// DecodeError is the error of a call that ended with a status below 400
// whose declared body did not decode; the typed response comes back beside
// it, with the raw body.
type DecodeError struct {
	Operation  string
	StatusCode int
	Attempts   int
	Err        error
}

func (e *DecodeError) Error() string {
	return e.Operation + ": decode " + strconv.Itoa(e.StatusCode) + " response: " + e.Err.Error()
}

func (e *DecodeError) Unwrap() error { return e.Err }

// RequestError is the error of a call refused before anything was sent:
// its arguments cannot make the request the spec means. An empty required
// path parameter would send another URL (PUT /items/), a header value with
// a control byte or a header name that is not a token cannot be sent at
// all. Such a call fails the same way on every try, so it fails at once:
// no attempt, no retry, no wait, and the breaker is not asked (an open one
// does not hide the mistake, a closed one does not count it). A header
// that a request editor or a call option sets is checked on each attempt;
// that refusal comes wrapped in a *CallError with 0 attempts, as an
// editor's own error does.
type RequestError struct {
	// Operation is the operation's name.
	Operation string
	// Reason says what is wrong, naming the parameter or header; it never
	// holds the value, which may be a secret.
	Reason string
}

func (e *RequestError) Error() string {
	return e.Operation + ": request not sent: " + e.Reason
}

// checkHeader returns the RequestError of the first header of h that
// cannot be sent: a name that is not a token, or a value with a control
// byte other than tab. net/http refuses both only once sending, as a
// transport error that would be retried and counted.
func checkHeader(op string, h http.Header) error {
	for name, vals := range h {
		if !headerName(name) {
			return &RequestError{Operation: op, Reason: "header name " + strconv.Quote(name) + " is not an HTTP token"}
		}
		for _, v := range vals {
			if !headerValue(v) {
				return &RequestError{Operation: op, Reason: "header " + strconv.Quote(name) + " holds a control byte, which a header cannot carry"}
			}
		}
	}
	return nil
}

// headerName reports whether s is an HTTP token (RFC 9110 5.6.2).
func headerName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// CallError is returned when the call ends without an HTTP response to
// return: the last attempt failed in transport or timed out, or the call
// was cancelled while waiting to retry.
type CallError struct {
	// Operation is the operation's name.
	Operation string
	// Attempts is how many attempts were made.
	Attempts int
	// Reason says in words why no further attempt was made, e.g.
	// "retries exhausted", "not retryable", "retry budget spent".
	Reason string
	// Stop is the same as a sentinel (ErrAttemptsExhausted, ...), nil when
	// the call ended by the caller's context.
	Stop error
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

// Unwrap gives the last attempt's error, the context's cause and Stop, so
// errors.Is and errors.As reach any of them.
func (e *CallError) Unwrap() []error { return nonNil(e.Err, e.Cause, e.Stop) }

func nonNil(errs ...error) []error {
	out := errs[:0]
	for _, err := range errs {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
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
