// Package lab runs an operation's resolved x-resilience policy, through
// the real runtime (its breaker, retry loop, budget and Retry-After
// handling), against in-process loopback servers that model the field's
// published experiments: a retry storm, the order of breaker and retry,
// slow calls, an outage, an event stream broken mid-way. It is `resgen lab`.
//
// Every scenario is a function of a Target (the operation and its
// resolved policies) and Options, giving a Report: tables, plots and
// scenario-specific results, which report.go prints and writes.
//
// Durations are divided by Options.Speed everywhere (the server's model
// and every duration of the policy), so a sped-up run is the same
// experiment on a faster clock; counts are never scaled.
//
// It is resgen's own tool, behind `resgen lab` and the redis module's
// fleetlab, not an API: it may change with any resgen version.
package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/resgen/resgen/generator"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/internal/rawval"
	"github.com/resgen/resgen/runtime"
	"github.com/resgen/resgen/runtime/impl"
)

// Scenarios are the lab's scenario names, in the order help lists them.
var Scenarios = []string{"storm", "order", "slow", "outage", "stream"}

// Options are a lab run's settings (the CLI's flags).
type Options struct {
	// Speed divides every duration; 1 is real time. Must be ≥ 1.
	Speed float64
	// Compare adds the scenario's alternative strategies.
	Compare bool
	// Overload (storm): "reject" answers an overloaded server's excess
	// with an immediate 503, "timeout" with slow answers instead.
	Overload string
	// RetryAfter (storm): the server sends a Retry-After hint.
	RetryAfter bool
	// Down (outage) is how long the server is down, in scenario time.
	Down time.Duration
	// Replicas (outage) is how many clients share the users, round robin,
	// each with its own engine and breaker; below 1 means 1.
	Replicas int
	// Fleet (outage), when not nil, adds a strategy whose replicas share
	// their breaker through a runtime.Fleet on the stores it returns.
	Fleet FleetStores
	// FleetAbout names the fleet's store in the report ("the runtime's
	// memory store").
	FleetAbout string
	// Progress, when not nil, receives progress lines (a terminal).
	Progress io.Writer
}

// FleetStores returns the stores of a new fleet, one per replica (they
// may all be one store): the replicas of one run share them, and nothing
// of them is shared with the stores of another call. done releases them,
// after the run has closed its Fleets.
type FleetStores func(replicas int) (stores []runtime.FleetStore, done func(), err error)

// MemoryFleet is FleetStores in this process: one runtime memory store
// for every replica.
func MemoryFleet(replicas int) ([]runtime.FleetStore, func(), error) {
	store := runtime.NewMemoryFleetStore()
	stores := make([]runtime.FleetStore, replicas)
	for i := range stores {
		stores[i] = store
	}
	return stores, func() {}, nil
}

// Target is the operation under test with its resolved policies, exactly
// what the generated client registers for it.
type Target struct {
	// Spec is the spec file; OperationID the operation's id, Method and
	// Path its HTTP method and path template.
	Spec, OperationID, Method, Path string
	// GoName is the generated client's method name.
	GoName string
	// pointers are where the spec writes what the target runs: the
	// operation, and the policies it uses (for Concerns).
	pointers []string
	// BreakerName is the breaker instance ("" with breaker: none).
	BreakerName string
	Breaker     *runtime.BreakerPolicy // nil: breaker none
	Retry       *runtime.RetryPolicy   // nil: not retried
	// RetryWhy says why retry is on or off ("GET", "POST without key: off").
	RetryWhy string
	// NotRetrySafe: no strategy may retry this operation.
	NotRetrySafe          bool
	Timeout, TotalTimeout time.Duration
}

// Resolve loads the spec (with overlays, as generate would) and returns
// the operation whose operationId is opID.
func Resolve(ctx context.Context, cfg generator.Config, opID string) (*Target, error) {
	if cfg.Package == "" {
		cfg.Package = "client"
	}
	checked, err := generator.Check(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return Find(checked, cfg.Spec, opID)
}

// Find returns the operation of a checked spec whose operationId is opID:
// Resolve without the load, for a caller (the CLI) that prints the
// check's warnings itself.
func Find(checked *generator.Checked, spec, opID string) (*Target, error) {
	var ids []string
	for _, op := range checked.Model.Operations {
		if op.ID == opID {
			return target(spec, op), nil
		}
		ids = append(ids, op.ID)
	}
	return nil, &NoOperationError{Spec: spec, ID: opID, Known: ids}
}

// NoOperationError: the spec has no operation with that operationId.
type NoOperationError struct {
	Spec, ID string
	Known    []string
}

func (e *NoOperationError) Error() string {
	return fmt.Sprintf("%s: no operation has operationId %q%s", e.Spec, e.ID, suggest(e.ID, e.Known))
}

func target(spec string, op *model.Operation) *Target {
	t := &Target{Spec: spec, OperationID: op.ID, Method: op.Method, Path: op.URLPath, GoName: op.Name}
	esc := strings.NewReplacer("~", "~0", "/", "~1")
	t.pointers = []string{"#/paths/" + esc.Replace(op.Path) + "/" + strings.ToLower(op.Method), "#/x-resilience/defaults"}
	p := op.Policy
	if p == nil {
		return t
	}
	if p.Breaker != nil {
		t.pointers = append(t.pointers, "#/x-resilience/breakers/"+esc.Replace(p.Breaker.Policy.Policy))
	}
	if p.Retry != nil {
		t.pointers = append(t.pointers, "#/x-resilience/retries/"+esc.Replace(p.Retry.Policy))
	}
	t.RetryWhy, t.NotRetrySafe, t.Timeout, t.TotalTimeout = p.RetryWhy, p.NotRetrySafe, p.Timeout, p.TotalTimeout
	if p.Breaker != nil {
		b := model.Registered(p.Breaker.Policy.BreakerPolicy)
		t.Breaker, t.BreakerName = &b, p.Breaker.Instance
	}
	if p.Retry != nil {
		r := model.Registered(p.Retry.RetryPolicy)
		t.Retry = &r
	}
	return t
}

// Concerns reports whether a diagnostic at the JSON pointer ptr is about
// what the lab runs: the operation or a policy it uses. The lab shows
// those and only counts the rest, which `resgen lint` lists.
func (t *Target) Concerns(ptr string) bool {
	for _, p := range t.pointers {
		if ptr == p || strings.HasPrefix(ptr, p+"/") {
			return true
		}
	}
	return false
}

// Strategy is one way of calling the target: its breaker and retry
// policies (copies, so a strategy may change them) and the order.
type Strategy struct {
	// Name is what tables and plots call it ("spec", "naive", ...).
	Name string
	// About says in a few words what it is ("5 attempts, no wait").
	About   string
	Breaker *runtime.BreakerPolicy // nil: none
	Retry   *runtime.RetryPolicy   // nil: no retry
	// Swapped puts the breaker inside the retry loop (each attempt is
	// admitted and recorded on its own), the order of Resilience4j's and
	// Polly's defaults; resgen's is the breaker outside.
	Swapped bool
	// Fleet shares the breaker of every replica through a runtime.Fleet
	// (Options.Fleet).
	Fleet bool
}

// SpecStrategy is the target's own policy, as generated.
func SpecStrategy(t *Target) Strategy {
	s := Strategy{Name: "spec", About: "the spec's policy, as generated"}
	if t.Breaker != nil {
		b := *t.Breaker
		s.Breaker = &b
	}
	if t.Retry != nil {
		r := *t.Retry
		s.Retry = &r
	}
	return s
}

// ErrRefused: the scenario cannot run on this target (an operation
// without the breaker the scenario is about). A scenario wraps it in an
// error that says why; the CLI answers it, like ErrNotRetrySafe, as bad
// input (exit status 2), and any other error as a resgen fault.
var ErrRefused = errors.New("cannot run on this operation")

// ErrNotRetrySafe: a strategy that retries was asked of an operation
// that must not be retried.
var ErrNotRetrySafe = errors.New("not retry-safe")

// checkRetrySafe refuses a strategy that retries an operation that is
// not retry-safe, saying why and how the spec could make it safe.
func checkRetrySafe(t *Target, s Strategy) error {
	if !t.NotRetrySafe || s.Retry == nil || s.Retry.MaxAttempts <= 1 {
		return nil
	}
	return fmt.Errorf("%w: %s %s (%s) is not retry-safe (%s), so strategy %q, which retries, cannot run on it: mark it idempotent: true, give it an idempotency key, or run the lab on a retry-safe operation",
		ErrNotRetrySafe, t.Method, t.Path, t.OperationID, t.RetryWhy, s.Name)
}

// clock scales scenario time to wall time.
type clock struct{ speed float64 }

// d converts a scenario duration to the wall duration a run uses.
func (c clock) d(d time.Duration) time.Duration {
	if c.speed <= 1 || d <= 0 {
		return d
	}
	return time.Duration(float64(d) / c.speed)
}

// back converts a measured wall duration to scenario time.
func (c clock) back(d time.Duration) time.Duration {
	if c.speed <= 1 {
		return d
	}
	return time.Duration(float64(d) * c.speed)
}

// scaled returns copies of the strategy's policies with every duration
// divided by the speed. A budget's MinPerSecond is left as it is: the
// budget looks back 10 s of wall time, longer than a sped-up run, so its
// allowance over the run is the same at every speed.
func (c clock) scaled(s Strategy) (*runtime.BreakerPolicy, *runtime.RetryPolicy) {
	var bp *runtime.BreakerPolicy
	if s.Breaker != nil {
		b := *s.Breaker
		b.WindowDuration, b.SlowCallDuration, b.WaitInOpen = c.d(b.WindowDuration), c.d(b.SlowCallDuration), c.d(b.WaitInOpen)
		bp = &b
	}
	var rp *runtime.RetryPolicy
	if s.Retry != nil {
		r := *s.Retry
		r.InitialInterval, r.MaxInterval, r.MaxRetryAfter = c.d(r.InitialInterval), c.d(r.MaxInterval), c.d(r.MaxRetryAfter)
		if r.Budget != nil {
			b := *r.Budget
			r.Budget = &b
		}
		rp = &r
	}
	return bp, rp
}

// Client is one strategy's client of a loopback server: the operation
// registered as the generated client registers it.
type Client struct {
	Op      *impl.Operation
	Breaker *runtime.Breaker // nil: none
	// URL is where requests go (the server's base URL + the target's path).
	URL string
	tr  *http.Transport
}

// Close releases the client's idle connections.
func (c *Client) Close() { c.tr.CloseIdleConnections() }

// NewClient builds the runtime operation for strategy s against the
// server at base, with the target's timeouts (scaled), the observer obs
// (nil: none) and the logger log (nil: discard). In the swapped order the
// retry loop is an operation of its own, without a breaker, whose
// requests go through a single-attempt operation that has the breaker:
// both are the real runtime, composed as Resilience4j's
// Retry(CircuitBreaker(call)) composes them, so a refused attempt is
// retried like a failed one.
func (c clock) NewClient(t *Target, s Strategy, base string, obs runtime.Observer, log *slog.Logger) *Client {
	return c.newClient(t, s, base, obs, log, nil)
}

// newClient is NewClient whose breaker joins fleet (nil: local only).
func (c clock) newClient(t *Target, s Strategy, base string, obs runtime.Observer, log *slog.Logger, fleet *runtime.Fleet) *Client {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// Enough idle connections for every simulated user: a lab measures
	// the policy, not connection churn.
	tr := &http.Transport{MaxIdleConns: 0, MaxIdleConnsPerHost: 1000, IdleConnTimeout: time.Minute}
	hc := &http.Client{Transport: tr}
	bp, rp := c.scaled(s)
	name := t.BreakerName
	if name == "" {
		name = "lab"
	}
	spec := impl.OperationSpec{Name: t.OperationID, Method: t.Method, Path: t.Path, Retry: rp,
		Timeout: c.d(t.Timeout), TotalTimeout: c.d(t.TotalTimeout), NotRetrySafe: t.NotRetrySafe && rp == nil}
	cl := &Client{URL: base + t.Path, tr: tr}
	if !s.Swapped || bp == nil {
		e := impl.NewEngine(impl.Config{HTTPClient: hc, Logger: log, Observer: obs, Fleet: fleet})
		if bp != nil {
			cl.Breaker = e.Breaker(name, *bp)
			spec.Breaker = cl.Breaker
		}
		cl.Op = e.Operation(spec)
		return cl
	}
	inner := impl.NewEngine(impl.Config{HTTPClient: hc, Logger: log, Observer: obs, Fleet: fleet})
	cl.Breaker = inner.Breaker(name, *bp)
	in := spec
	in.Retry, in.Breaker, in.TotalTimeout = nil, cl.Breaker, 0
	outer := impl.NewEngine(impl.Config{HTTPClient: attemptDoer{inner.Operation(in)}, Logger: log})
	cl.Op = outer.Operation(spec)
	return cl
}

// attemptDoer sends each attempt of the swapped order's retry loop
// through the breaker's single-attempt operation: an answer is returned
// as the answer, a refusal (or a transport error) as the attempt's error.
type attemptDoer struct{ op *impl.Operation }

func (d attemptDoer) Do(req *http.Request) (*http.Response, error) {
	resp, _, err := d.op.Do(req.Context(), req)
	if resp != nil {
		return resp, nil
	}
	return nil, err
}

// suggest returns ` (did you mean "x"?)` for the known name closest to
// name, or some of the known names when none is close.
func suggest(name string, known []string) string {
	if s := rawval.Suggest(name, known); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	switch {
	case len(known) == 0:
		return " (the spec has no operation with an operationId)"
	case len(known) > 8:
		return fmt.Sprintf(" (it has %d, e.g. %s)", len(known), strings.Join(known[:8], ", "))
	}
	return " (it has " + strings.Join(known, ", ") + ")"
}

// Run runs one scenario on the target. The clock is Options.Speed.
func Run(ctx context.Context, scenario string, t *Target, o Options) (*Report, error) {
	if o.Speed < 1 {
		o.Speed = 1
	}
	var run func(context.Context, *Target, Options) (*Report, error)
	switch scenario {
	case "storm":
		run = storm
	case "order":
		run = order
	case "slow":
		run = slow
	case "outage":
		run = outage
	case "stream":
		run = stream
	default:
		return nil, fmt.Errorf("unknown scenario %q%s", scenario, suggestScenario(scenario))
	}
	start := time.Now()
	r, err := run(ctx, t, o)
	if err != nil {
		return nil, err
	}
	r.Scenario, r.Spec, r.Operation, r.Speed = scenario, t.Spec, t.OperationID, o.Speed
	r.Started, r.Took = start, time.Since(start)
	return r, nil
}

func suggestScenario(s string) string {
	if g := rawval.Suggest(s, Scenarios); g != "" {
		return fmt.Sprintf(" (did you mean %q?)", g)
	}
	return " (scenarios: " + strings.Join(Scenarios, ", ") + ")"
}
