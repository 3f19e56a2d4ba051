package runtime

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"
)

// Doer sends one HTTP request; *http.Client is one.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// RequestEditor changes every attempt's request just before it is sent
// (auth headers, tracing). It runs once per attempt.
type RequestEditor func(ctx context.Context, req *http.Request) error

// Config is what a generated client passes to NewEngine.
type Config struct {
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient Doer
	// Logger receives breaker state changes (warn/info) and retries
	// (debug); nil means slog.Default() at the time NewEngine is called.
	Logger *slog.Logger
	// Observer receives every event; nil means none.
	Observer Observer
	// RequestEditors run in order on each attempt.
	RequestEditors []RequestEditor
}

// ErrCircuitOpen is matched (errors.Is) by every error returned because a
// breaker refused a call.
var ErrCircuitOpen = errors.New("circuit breaker is open")

// CircuitOpenError is returned when a breaker refuses a call; no attempt
// was made.
type CircuitOpenError struct {
	// Breaker is the breaker instance's name.
	Breaker string
	// HalfOpen is true when the breaker is half-open and all its trial
	// calls are taken.
	HalfOpen bool
	// RetryAt is when the breaker will next let a call through.
	RetryAt time.Time
}

func (e *CircuitOpenError) Error() string {
	if e.HalfOpen {
		return "breaker " + quote(e.Breaker) + " is half-open and its trial calls are taken; retry after " + e.RetryAt.Format(time.RFC3339Nano)
	}
	return "breaker " + quote(e.Breaker) + " is open; it lets a trial call through at " + e.RetryAt.Format(time.RFC3339Nano)
}

// Is makes errors.Is(err, ErrCircuitOpen) true.
func (e *CircuitOpenError) Is(target error) bool { return target == ErrCircuitOpen }

func quote(s string) string { return "\"" + s + "\"" }

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
	s := e.Method + " " + e.URL + ": unexpected status " + http.StatusText(e.StatusCode)
	if e.Attempts > 1 {
		s += " after " + itoa(e.Attempts) + " attempts"
	}
	return s
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
