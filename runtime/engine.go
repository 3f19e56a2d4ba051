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

	"github.com/resgen/resgen/runtime/wire"
)

// Doer sends one HTTP request; *http.Client is one.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// RequestEditor changes every attempt's request just before it is sent
// (auth headers, tracing). It runs once per attempt.
type RequestEditor func(ctx context.Context, req *http.Request) error

// config is the configuration of one client's engine. It is an unnamed
// struct type so that package impl (which imports runtime, so runtime
// cannot name its types) passes its Config, documented there, as this
// very type.
type config = struct {
	HTTPClient        Doer
	Logger            *slog.Logger
	Observer          Observer
	RequestEditors    []RequestEditor
	SecretQueryParams []string
	Overrides         *Overrides
	Credentials       []wire.Credential
	Server            string
	CallOptions       []CallOption
	Fleet             *Fleet
}

// engine runs the operations of one client: its breakers, its retry
// budget, its logger and observer. It is safe for concurrent use and
// starts no goroutines; an open breaker arms one timer (see the package
// doc). Its exported methods are package impl's Engine.
type engine struct {
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

// newEngine builds the engine of one client.
func newEngine(cfg config) *engine { return newEngineClock(cfg, nil) }

// newEngineClock is newEngine with clock replacing the monotonic clock
// (tests of time windows and budgets); nil means the real one.
func newEngineClock(cfg config, clock func() time.Duration) *engine {
	e := &engine{
		client:   cfg.HTTPClient,
		log:      cfg.Logger,
		obs:      cfg.Observer,
		editors:  cfg.RequestEditors,
		redact:   newRedactor(append(secretQueryParams(cfg.Credentials), cfg.SecretQueryParams...)),
		auth:     newAuth(cfg.Credentials),
		server:   cfg.Server,
		opts:     cfg.CallOptions,
		base:     time.Now(),
		clock:    clock,
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
func (e *engine) now() time.Duration {
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
func (e *engine) mono() time.Duration { return time.Since(e.base) }

// wall converts a reading of e.now (or e.mono) to wall-clock time.
func (e *engine) wall(t time.Duration) time.Time { return e.base.Add(t) }

// Breaker returns the engine's breaker instance with this name, creating it
// with p on first use; later calls with the same name return the same
// instance (a shared scope) and ignore p. The config's override for name,
// if any, adjusts p.
func (e *engine) Breaker(name string, p BreakerPolicy) *Breaker {
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

// Operation is operation for package impl, which cannot name the result's
// type.
func (e *engine) Operation(spec operationSpec) any { return e.operation(spec) }

// operation registers one API operation. The config's overrides for its
// retry policy (by policy name) and its timeouts (by operation name), if
// any, adjust spec.
func (e *engine) operation(spec operationSpec) *operation {
	if e.ov != nil {
		e.mu.Lock()
		spec = e.ov.operation(spec)
		e.mu.Unlock()
	}
	return newOperation(e, spec, false)
}

// serverURL checks a client's base URL (an absolute http or https URL)
// and returns it without trailing slashes. Its error quotes the URL
// without the password and without the query, which may hold keys.
func serverURL(server string) (string, error) {
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
