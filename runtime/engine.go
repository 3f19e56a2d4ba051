package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
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
	// SecretQueryParams names the query parameters that carry credentials
	// beyond the built-in name rule (see redact.go): the generated client
	// lists the spec's apiKey security schemes "in: query". Their values
	// never appear in an error, a log line or an event.
	SecretQueryParams []string
	// Overrides adjust the generated policies (overrides.go); nil means
	// none. CheckOverrides reports what they could not do.
	Overrides *Overrides
	// Credentials are the client's credentials for the spec's security
	// schemes (auth.go); each operation gets those its Security names.
	Credentials []Credential

	// Server is the base URL (checked by ServerURL) that Call's requests
	// go to.
	Server string
	// CallOptions apply to every call, before the call's own options.
	CallOptions []CallOption
	// Fleet, when set, shares every breaker of the engine with the
	// breakers of the same name in the other replicas (see Fleet).
	Fleet *Fleet

	// clock replaces the monotonic clock in tests of time windows and
	// budgets; nil means the real one.
	clock func() time.Duration
}

// Engine runs the operations of one client: its breakers, its retry
// budget, its logger and observer. It is safe for concurrent use and
// starts no goroutines; an open breaker arms one timer (see the package
// doc).
type Engine struct {
	client  Doer
	log     *slog.Logger
	obs     Observer
	observe bool // false when obs is the no-op: skip building events
	editors []RequestEditor
	redact  redactor
	auth    map[string]*authScheme // credentials by scheme name
	server  string
	opts    []CallOption
	// serverURL is server parsed, serverPath its escaped path; nil when
	// Call must parse each URL whole (see target).
	serverURL  *url.URL
	serverPath string

	// base anchors the monotonic clock: time.Since(base) is about half the
	// cost of time.Now(), and the hot path reads the clock twice.
	base  time.Time
	clock func() time.Duration

	budget budget

	// h2 says the last answer came over HTTP/2, where net/http sends a
	// request again only when the server provably did not process it
	// (REFUSED_STREAM, GOAWAY): GETs then go out without a resend gate,
	// whose empty body HTTP/2 would send as a DATA frame (resend.go).
	h2 atomic.Bool

	fleet *Fleet // nil: local breakers only

	mu       sync.Mutex
	breakers map[string]*Breaker
	ov       *overrideState // nil without overrides
}

// NewEngine builds the engine of one client.
func NewEngine(cfg Config) *Engine {
	e := &Engine{
		client:   cfg.HTTPClient,
		log:      cfg.Logger,
		obs:      cfg.Observer,
		editors:  cfg.RequestEditors,
		redact:   newRedactor(append(secretQueryParams(cfg.Credentials), cfg.SecretQueryParams...)),
		auth:     newAuth(cfg.Credentials),
		server:   cfg.Server,
		opts:     cfg.CallOptions,
		base:     time.Now(),
		clock:    cfg.clock,
		fleet:    cfg.Fleet,
		breakers: make(map[string]*Breaker),
	}
	if cfg.Overrides != nil {
		e.ov = &overrideState{o: cfg.Overrides, retried: map[*RetryPolicy]*RetryPolicy{},
			retries: map[string]bool{}, operations: map[string]bool{}}
	}
	if e.client == nil {
		e.client = http.DefaultClient
	}
	e.parseServer()
	if e.log == nil {
		e.log = slog.Default()
	}
	if e.obs == nil {
		e.obs = NopObserver{}
	}
	_, nop := e.obs.(NopObserver)
	e.observe = !nop
	return e
}

// now is the engine's monotonic clock: time elapsed since NewEngine.
func (e *Engine) now() time.Duration {
	if e.clock != nil {
		return e.clock()
	}
	return time.Since(e.base)
}

// mono is the real monotonic clock since NewEngine, even when tests set
// clock: deadlines are built from it with wall, one clock read where
// time.Now makes two (wall and monotonic). Such a deadline carries the
// monotonic reading, so time.Until and the context timers measure it on
// the monotonic clock like any time.Now()-based one.
func (e *Engine) mono() time.Duration { return time.Since(e.base) }

// wall converts a reading of e.now (or e.mono) to wall-clock time.
func (e *Engine) wall(t time.Duration) time.Time { return e.base.Add(t) }

// Breaker returns the engine's breaker instance with this name, creating it
// with p on first use; later calls with the same name return the same
// instance (a shared scope) and ignore p. The Config's override for name,
// if any, adjusts p.
func (e *Engine) Breaker(name string, p BreakerPolicy) *Breaker {
	e.mu.Lock()
	defer e.mu.Unlock()
	if b, ok := e.breakers[name]; ok {
		return b
	}
	if e.ov != nil {
		p = e.ov.breaker(name, p)
	}
	b := newBreaker(e, name, p)
	if e.fleet != nil {
		b.link = e.fleet.join(b) // join touches only the Fleet
	}
	e.breakers[name] = b
	return b
}

// Operation registers one API operation. The Config's overrides for its
// retry policy (by policy name) and its timeouts (by operation name), if
// any, adjust spec.
func (e *Engine) Operation(spec OperationSpec) *Operation {
	if e.ov != nil {
		e.mu.Lock()
		spec = e.ov.operation(spec)
		e.mu.Unlock()
	}
	spec.auth = e.authPlan(spec.Security)
	return newOperation(e, spec, false)
}

// ServerURL checks a client's base URL (an absolute http or https URL)
// and returns it without trailing slashes. Its error quotes the URL
// without the password and without the query, which may hold keys.
func ServerURL(server string) (string, error) {
	u, err := url.Parse(server)
	if err == nil && u.Scheme != "http" && u.Scheme != "https" {
		err = errors.New("the scheme must be http or https")
	}
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		shown, _, _ := strings.Cut(server, "?")
		return "", fmt.Errorf("bad server URL %q: %w", redactUserinfo(shown), err)
	}
	return strings.TrimRight(server, "/"), nil
}
