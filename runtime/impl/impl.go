// Package impl is what only resgen-generated code and the generator call:
// the engine a generated client builds, its operations, and the call each
// generated method makes; the generator's checks of x-resilience values.
// Client users never need it: what they touch (call and client options,
// errors, events, policies, breakers, fleets, overrides) is in package
// runtime, and the data a generated method fills is in package wire. Its
// API may change with any resgen version, in step with the generator.
//
// The engine's implementation stays in package runtime, beside the
// breakers, options and fleets whose internals it shares; runtime
// registers it once at init and impl reaches it through interfaces, so
// runtime exports none of it. A call costs one interface call more than a
// direct one. The other ways fare worse: the engine in an internal package
// would need runtime's errors, events, policies and Breaker as aliases of
// its types, and go doc shows no field or method of an alias; and a
// package below runtime (as wire is) cannot name the runtime's types that
// Config and OperationSpec hold (Fleet, Overrides, Breaker, RetryPolicy).
// Config and OperationSpec reach the runtime as unnamed struct types, the
// same type in both packages.
package impl

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/resgen/resgen/runtime"
	"github.com/resgen/resgen/runtime/internal/link"
	"github.com/resgen/resgen/runtime/wire"
)

// SupportPackageIsVersion1 is referenced by generated code so that output
// from an incompatible resgen fails to compile instead of misbehaving.
const SupportPackageIsVersion1 = true

// Config is what a generated client passes to NewEngine.
type Config struct {
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient runtime.Doer
	// Logger receives breaker state changes (warn/info) and retries
	// (debug); nil means slog.Default() at the time NewEngine is called.
	Logger *slog.Logger
	// Observer receives every event; nil means none.
	Observer runtime.Observer
	// RequestEditors run in order on each attempt.
	RequestEditors []runtime.RequestEditor
	// SecretQueryParams names the query parameters that carry credentials
	// beyond the built-in name rule (see runtime.RedactURL): the generated
	// client lists the spec's apiKey security schemes "in: query". Their
	// values never appear in an error, a log line or an event.
	SecretQueryParams []string
	// Overrides adjust the generated policies; nil means none.
	// CheckOverrides reports what they could not do.
	Overrides *runtime.Overrides
	// Credentials are the client's credentials for the spec's security
	// schemes; each operation gets those its Security names.
	Credentials []wire.Credential
	// Server is the base URL (checked by ServerURL) that Call's requests
	// go to.
	Server string
	// CallOptions apply to every call, before the call's own options.
	CallOptions []runtime.CallOption
	// Fleet, when set, shares every breaker of the engine with the
	// breakers of the same name in the other replicas (see runtime.Fleet).
	Fleet *runtime.Fleet
}

// config is Config as the runtime's engine takes it: the same fields in an
// unnamed struct type, which both packages can name (runtime cannot import
// impl). A field that differs from the runtime's fails the conversion in
// NewEngine at compile time, or the assertion of rt at init.
type config = struct {
	HTTPClient        runtime.Doer
	Logger            *slog.Logger
	Observer          runtime.Observer
	RequestEditors    []runtime.RequestEditor
	SecretQueryParams []string
	Overrides         *runtime.Overrides
	Credentials       []wire.Credential
	Server            string
	CallOptions       []runtime.CallOption
	Fleet             *runtime.Fleet
}

// OperationSpec is what the generated client registers for one API
// operation. It is an unnamed struct type, which package runtime names
// too.
type OperationSpec = struct {
	// Name is the operationId (or the name resgen made for it).
	Name string
	// Method and Path are the operation's HTTP method and path template.
	Method, Path string
	// Breaker is nil when the policy says breaker: none.
	Breaker *runtime.Breaker
	// Retry is nil when the operation is not retried.
	Retry *runtime.RetryPolicy
	// Timeout bounds each attempt, TotalTimeout the whole call; 0 = none.
	Timeout, TotalTimeout time.Duration
	// Security are the spec's alternatives of schemes the operation
	// requires (any one alternative will do); nil sends no credentials.
	Security []wire.SecurityRequirement
	// Accept is the Accept header every attempt of Call sends ("" none).
	Accept string
	// NotRetrySafe marks an operation that must never be retried (a
	// method that is not idempotent, without an idempotency key): its
	// failures stop with runtime.ErrNotRetrySafe, and no option retries
	// it.
	NotRetrySafe bool
	// IdleTimeout bounds the wait for each read of a body handed over to
	// the caller (a download or an event stream) once its headers came;
	// 0 = none. runtime.WithIdleTimeout overrides it for one call.
	IdleTimeout time.Duration
	// Resume lets an event stream (text/event-stream) broken by the server
	// reconnect with Last-Event-ID through the breaker and retry, so the
	// caller sees one unbroken sequence; only when the operation is
	// retry-safe (NotRetrySafe false).
	Resume bool
}

// rt is the runtime's implementation, registered by its init, which ran
// before this package's (impl imports runtime).
var rt = link.Runtime().(interface {
	NewEngine(cfg config) any
	DescribeConfig(cfg config) string
	ServerURL(server string) (string, error)
	ReadOverridesFile(path string) ([]byte, error)
	DecodeBreaker(p *runtime.BreakerPolicy, m map[string]any, own ...string) error
	DecodeRetry(p *runtime.RetryPolicy, m map[string]any, own ...string) error
	DecodeTimeouts(s *OperationSpec, m map[string]any, own ...string) error
})

// engine is the runtime's engine of one client.
type engine interface {
	Breaker(name string, p runtime.BreakerPolicy) *runtime.Breaker
	Operation(spec OperationSpec) any
	CheckOverrides() error
	DescribeClient() string
	String() string
}

// operation is the runtime's operation.
type operation interface {
	Call(ctx context.Context, rq wire.Request, out wire.Typed, opts []runtime.CallOption) (hasAnswer bool, err error)
	Do(ctx context.Context, req *http.Request) (*http.Response, int, error)
	Breaker() *runtime.Breaker
}

// Engine runs the operations of one client: its breakers, its retry
// budget, its logger and observer. It is safe for concurrent use and
// starts no goroutine; an open breaker arms one timer (see the runtime's
// package doc).
type Engine struct{ e engine }

// NewEngine builds the engine of one client.
func NewEngine(cfg Config) *Engine { return &Engine{rt.NewEngine(config(cfg)).(engine)} }

// Breaker returns the engine's breaker instance with this name, creating it
// with p on first use; later calls with the same name return the same
// instance (a shared scope) and ignore p. The Config's override for name,
// if any, adjusts p.
func (e *Engine) Breaker(name string, p runtime.BreakerPolicy) *runtime.Breaker {
	return e.e.Breaker(name, p)
}

// Operation registers one API operation. The Config's overrides for its
// retry policy (by policy name) and its timeouts (by operation name), if
// any, adjust spec.
func (e *Engine) Operation(spec OperationSpec) *Operation {
	return &Operation{e.e.Operation(spec).(operation)}
}

// CheckOverrides reports what the Config's Overrides could not do: a value
// that breaks a rule with the policy it adjusts, or a name that no breaker,
// retry policy or operation registered so far carries. The generated
// NewClient calls it once every operation is registered, and fails with
// its error.
func (e *Engine) CheckOverrides() error { return e.e.CheckOverrides() }

// Operation is one API operation with its resolved policy.
type Operation struct{ o operation }

// Do runs one logical call of a request built by hand (generated code
// calls Call): the breaker admits it (or it fails at once with a
// *runtime.CircuitOpenError and attempts == 0), the retry loop makes up to
// MaxAttempts attempts, and the breaker records one outcome.
//
// If the last attempt produced an HTTP response, Do returns it with a nil
// error whatever its status; its body is open and the caller must close
// it. Otherwise Do returns a *runtime.CallError wrapping the last attempt's
// error. attempts is the number of requests sent.
func (op *Operation) Do(ctx context.Context, req *http.Request) (resp *http.Response, attempts int, err error) {
	return op.o.Do(ctx, req)
}

// Breaker returns the operation's breaker, nil when it has none.
func (op *Operation) Breaker() *runtime.Breaker { return op.o.Breaker() }

// Call runs one call of op for the generated method: the breaker, the
// attempts (each built from rq), then the answer decoded into out by the
// struct tags of its fields (see wire.Response). It returns out whenever
// there is an HTTP answer; with a status of 400 or more the error is a
// *runtime.StatusError, and a declared body below 400 that did not decode
// is a *runtime.DecodeError. Without an answer it returns nil and the
// call's error (*runtime.CallError, *runtime.CircuitOpenError, or a
// request that could not be built).
func Call[P wire.Typed](ctx context.Context, op *Operation, rq *wire.Request, out P, opts []runtime.CallOption) (P, error) {
	hasAnswer, err := op.o.Call(ctx, *rq, out, opts)
	if !hasAnswer {
		var zero P
		return zero, err
	}
	return out, err
}

// ServerURL checks a client's base URL (an absolute http or https URL)
// and returns it without trailing slashes. Its error quotes the URL
// without the password and without the query, which may hold keys.
func ServerURL(server string) (string, error) { return rt.ServerURL(server) }

// DescribeClient is the String of a generated client whose engine is e:
// its server, redacted.
func DescribeClient(e *Engine) string {
	if e == nil {
		return `Client{Server: ""}`
	}
	return e.e.DescribeClient()
}

// String describes the configuration without its secrets: the server URL
// redacted, the credentials by scheme, the call options without header
// values, and how many request editors there are.
func (cfg Config) String() string { return rt.DescribeConfig(config(cfg)) }

// GoString is String, for %#v.
func (cfg Config) GoString() string { return cfg.String() }

// Format writes cfg redacted for every verb.
func (cfg Config) Format(f fmt.State, verb rune) { wire.FormatRedacted(f, verb, cfg.String()) }

// String describes the engine without its secrets: its server, redacted.
func (e *Engine) String() string {
	if e == nil {
		return "(*impl.Engine)(nil)"
	}
	return e.e.String()
}

// GoString is String, for %#v.
func (e *Engine) GoString() string { return e.String() }

// Format writes e redacted for every verb.
func (e *Engine) Format(f fmt.State, verb rune) { wire.FormatRedacted(f, verb, e.String()) }

// The generator's checks of x-resilience values: resgen's spec validation
// reads policy keys through these, and a client's overrides through the
// same code, so a rule cannot hold in one and not the other.

// DecodeBreaker sets the keys of one x-resilience breaker policy object,
// its values as encoding/json or a YAML decoder gives them, on p, checking
// each against the contract's rules. A value that breaks one leaves its
// field unchanged and is returned as a *wire.PolicyError (several are
// joined, in key order; wire.PolicyErrors lists them). Keys named in own
// are the caller's (extends, scope) and skipped; any other key is an
// error.
func DecodeBreaker(p *runtime.BreakerPolicy, m map[string]any, own ...string) error {
	return rt.DecodeBreaker(p, m, own...)
}

// DecodeRetry sets the keys of one x-resilience retry policy object on p,
// as DecodeBreaker does. A budget object replaces p's budget, its missing
// keys taking the contract's defaults.
func DecodeRetry(p *runtime.RetryPolicy, m map[string]any, own ...string) error {
	return rt.DecodeRetry(p, m, own...)
}

// DecodeTimeouts sets the timeout, totalTimeout and idleTimeout keys of an
// x-resilience operation policy object on s (0 turns one off), and resume
// (true or false), as DecodeBreaker does.
func DecodeTimeouts(s *OperationSpec, m map[string]any, own ...string) error {
	return rt.DecodeTimeouts(s, m, own...)
}

// ReadOverridesFile reads the file at path, refusing one larger than
// runtime.MaxOverridesBytes without reading past that: what
// runtime.LoadOverrides reads, for readers of other formats
// (overridesyaml).
func ReadOverridesFile(path string) ([]byte, error) { return rt.ReadOverridesFile(path) }
