// Package resgenotel is an OpenTelemetry runtime.Observer for resgen's
// generated clients: a span per logical call with a child span per attempt,
// and metrics of calls, attempts, retries, breaker rejections, breaker
// state and durations. It is a module of its own so that clients that do
// not use it link no OpenTelemetry.
//
//	obs, err := resgenotel.New()
//	c, err := petstore.NewClient(url, petstore.WithObserver(obs))
//	obs.AddBreakers(c.Breakers())
//
// docs/observer.md lists every span, attribute and metric.
package resgenotel

import (
	"context"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/semconv/v1.43.0/httpconv"
	"go.opentelemetry.io/otel/trace"

	"github.com/resgen/resgen/runtime"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/resgen/resgen/otel"

// Attribute keys of resgen's own (the others are OpenTelemetry's semantic
// conventions).
const (
	KeyOperation     = attribute.Key("resgen.operation")
	KeyBreaker       = attribute.Key("resgen.breaker")
	KeyBreakerState  = attribute.Key("resgen.breaker.state")
	KeyHalfOpenTrial = attribute.Key("resgen.breaker.half_open_trial")
	KeyAttempt       = attribute.Key("resgen.attempt")
	KeyAttempts      = attribute.Key("resgen.attempts")
	KeyRetryReason   = attribute.Key("resgen.retry.reason")
	KeyRetryWait     = attribute.Key("resgen.retry.wait")
	KeyStopReason    = attribute.Key("resgen.stop_reason")
	KeyStop          = attribute.Key("resgen.stop")
	KeyFrom          = attribute.Key("resgen.breaker.from")
	KeyTo            = attribute.Key("resgen.breaker.to")
	KeyReason        = attribute.Key("resgen.breaker.reason")
	KeyRetryAt       = attribute.Key("resgen.breaker.retry_at")
)

// The values of error.type that are not a status code.
const (
	ErrorTimeout     = "timeout"      // no answer in time
	ErrorCancelled   = "cancelled"    // the caller's context was cancelled
	ErrorTransport   = "transport"    // no answer: connection, TLS, protocol
	ErrorCircuitOpen = "circuit_open" // a breaker refused the call
	ErrorDecode      = "decode"       // the declared body did not decode
)

// Option configures New.
type Option func(*config)

type config struct {
	tp trace.TracerProvider
	mp metric.MeterProvider
}

// WithTracerProvider sets the tracer provider (default otel.GetTracerProvider()).
func WithTracerProvider(tp trace.TracerProvider) Option { return func(c *config) { c.tp = tp } }

// WithMeterProvider sets the meter provider (default otel.GetMeterProvider()).
func WithMeterProvider(mp metric.MeterProvider) Option { return func(c *config) { c.mp = mp } }

// Observer is a runtime.Observer that reports to OpenTelemetry. It is safe
// for concurrent use; one may serve several clients.
type Observer struct {
	tracer trace.Tracer

	calls, attempts, retries, rejections, transitions metric.Int64Counter
	attemptDuration                                   httpconv.ClientRequestDuration
	callDuration                                      metric.Float64Histogram

	ops   cache[opKey, *opInfo]
	trans cache[transKey, []metric.AddOption]

	mu       sync.Mutex
	breakers []watched // read by the breaker-state gauge's callback
}

var _ runtime.Observer = (*Observer)(nil)

type watched struct {
	b   *runtime.Breaker
	opt []metric.ObserveOption
}

// New returns an Observer reporting to the given providers (by default the
// global ones).
func New(opts ...Option) (*Observer, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.tp == nil {
		c.tp = otel.GetTracerProvider()
	}
	if c.mp == nil {
		c.mp = otel.GetMeterProvider()
	}
	o := &Observer{tracer: c.tp.Tracer(ScopeName, trace.WithSchemaURL(semconv.SchemaURL))}
	m := c.mp.Meter(ScopeName, metric.WithSchemaURL(semconv.SchemaURL))
	var err error
	counter := func(name, unit, desc string) metric.Int64Counter {
		if err != nil {
			return nil
		}
		var ctr metric.Int64Counter
		ctr, err = m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		return ctr
	}
	o.calls = counter("resgen.client.calls", "{call}", "Logical calls ended, refused ones included.")
	o.attempts = counter("resgen.client.attempts", "{attempt}", "Requests sent.")
	o.retries = counter("resgen.client.retries", "{retry}", "Retries decided: waits before another attempt.")
	o.rejections = counter("resgen.client.rejections", "{call}", "Calls a circuit breaker refused; nothing was sent.")
	o.transitions = counter("resgen.client.breaker.transitions", "{transition}", "Circuit breaker state changes.")
	if err != nil {
		return nil, err
	}
	if o.attemptDuration, err = httpconv.NewClientRequestDuration(m); err != nil {
		return nil, err
	}
	// The bucket advice of http.client.request.duration.
	if o.callDuration, err = m.Float64Histogram("resgen.client.call.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of logical calls: every attempt and the waits between them."),
		metric.WithExplicitBucketBoundaries(0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10)); err != nil {
		return nil, err
	}
	_, err = m.Int64ObservableGauge("resgen.client.breaker.state", metric.WithUnit("{state}"),
		metric.WithDescription("Circuit breaker state: 0 closed, 1 half-open, 2 open."),
		metric.WithInt64Callback(o.observeBreakers))
	if err != nil {
		return nil, err
	}
	return o, nil
}

// AddBreakers makes the breaker-state gauge read these breakers (a
// generated client's c.Breakers()); callable more than once, safe for
// concurrent use. A breaker added again is read once.
func (o *Observer) AddBreakers(bs map[string]*runtime.Breaker) {
	names := make([]string, 0, len(bs))
	for n := range bs {
		names = append(names, n)
	}
	slices.Sort(names)
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, n := range names {
		b := bs[n]
		if b == nil || slices.ContainsFunc(o.breakers, func(w watched) bool { return w.b == b }) {
			continue
		}
		o.breakers = append(o.breakers, watched{b, []metric.ObserveOption{metric.WithAttributeSet(attribute.NewSet(KeyBreaker.String(n)))}})
	}
}

// observeBreakers reads each breaker's state at collection, so the gauge
// is right on an idle client.
func (o *Observer) observeBreakers(_ context.Context, obs metric.Int64Observer) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, w := range o.breakers {
		obs.Observe(stateValue(w.b.State()), w.opt...)
	}
	return nil
}

// stateValue is the gauge's number for s.
func stateValue(s runtime.State) int64 {
	switch s {
	case runtime.StateHalfOpen:
		return 1
	case runtime.StateOpen:
		return 2
	}
	return 0
}

// callState is what one call's events share: the context CallStart returns
// is the callState itself (one allocation per call), and every later event
// carries it back. Events of one call come one after another, so it needs
// no lock.
type callState struct {
	context.Context // the caller's, with the call's span
	op              *opInfo
	span            trace.Span
	start           time.Time
	// pending is the last attempt's span, ended (at pendingEnd) by the
	// next event so a RetryWait can add its reason to it.
	pending    trace.Span
	pendingEnd time.Time
}

type stateKey struct{}

func (s *callState) Value(k any) any {
	if k == (stateKey{}) {
		return s
	}
	return s.Context.Value(k)
}

// stateOf finds the call's state in an event's context.
func stateOf(ctx context.Context) *callState {
	if s, ok := ctx.(*callState); ok {
		return s
	}
	s, _ := ctx.Value(stateKey{}).(*callState)
	return s
}

// endPending ends the last attempt's span, if still open.
func (s *callState) endPending() {
	if s.pending != nil {
		s.pending.End(trace.WithTimestamp(s.pendingEnd))
		s.pending = nil
	}
}

// CallStart starts the call's span, a child of the caller's.
func (o *Observer) CallStart(e runtime.CallStartEvent) context.Context {
	op := o.ops.get(opKey{e.Operation, e.Breaker, e.Method, e.Path, e.Host}, newOpInfo)
	opts := op.start
	if e.HalfOpenTrial {
		opts = op.startTrial
	}
	ctx, span := o.tracer.Start(e.Context, e.Operation, opts...)
	return &callState{Context: ctx, op: op, span: span, start: time.Now()}
}

// Attempt counts the attempt, records its duration and starts its span at
// its beginning (now - Duration); the span ends at the next event.
func (o *Observer) Attempt(e runtime.AttemptEvent) {
	s := stateOf(e.Context)
	if s == nil {
		return
	}
	s.endPending()
	end := time.Now()
	a := s.op.attempts.get(outcomeKey{status: e.StatusCode, kind: errorKind(e.Err)}, s.op.newAttempt)
	o.attempts.Add(s, 1, a.add...)
	o.attemptDuration.Inst().Record(s, e.Duration.Seconds(), a.record...)
	if !s.span.IsRecording() {
		return
	}
	attrs := []attribute.KeyValue{KeyAttempt.Int(e.Attempt)}
	if e.Attempt > 1 {
		attrs = append(attrs, semconv.HTTPRequestResendCount(e.Attempt-1))
	}
	_, span := o.tracer.Start(s, s.op.attemptName, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(end.Add(-e.Duration)), trace.WithAttributes(s.op.base...), trace.WithAttributes(a.span...),
		trace.WithAttributes(attrs...))
	if a.failed {
		desc := ""
		if e.Err != nil {
			desc = e.Err.Error()
		}
		span.SetStatus(codes.Error, desc)
	}
	s.pending, s.pendingEnd = span, end
}

// RetryWait counts the retry and gives its reason and wait to the failed
// attempt's span.
func (o *Observer) RetryWait(e runtime.RetryEvent) {
	s := stateOf(e.Context)
	if s == nil {
		return
	}
	o.retries.Add(s, 1, s.op.retries.get(e.Reason, s.op.newRetry)...)
	if s.pending != nil {
		s.pending.SetAttributes(KeyRetryReason.String(e.Reason), KeyRetryWait.Float64(e.Wait.Seconds()))
	}
	s.endPending()
}

// Rejected counts the refusal and adds an event to the call's span.
func (o *Observer) Rejected(e runtime.RejectionEvent) {
	s := stateOf(e.Context)
	if s == nil {
		return
	}
	s.endPending()
	add := s.op.rejectOpen
	if e.State == runtime.StateHalfOpen {
		add = s.op.rejectHalfOpen
	}
	o.rejections.Add(s, 1, add...)
	if s.span.IsRecording() {
		s.span.AddEvent("breaker rejected call", trace.WithAttributes(KeyBreaker.String(e.Breaker),
			KeyBreakerState.String(e.State.String()), KeyRetryAt.String(e.RetryAt.UTC().Format(time.RFC3339Nano))))
	}
}

// CallEnd counts the call, records its duration and ends its span.
func (o *Observer) CallEnd(e runtime.CallEndEvent) {
	s := stateOf(e.Context)
	if s == nil {
		return
	}
	s.endPending()
	k := outcomeKey{status: e.StatusCode, kind: errorKind(e.Err)}
	if e.StopErr != nil {
		k.stop = e.StopErr.Error()
	}
	c := s.op.calls.get(k, s.op.newCall)
	o.calls.Add(s, 1, c.add...)
	o.callDuration.Record(s, time.Since(s.start).Seconds(), c.record...)
	if !s.span.IsRecording() {
		return
	}
	s.span.SetAttributes(c.span...)
	s.span.SetAttributes(KeyAttempts.Int(e.Attempts), KeyStop.String(e.Stop))
	switch {
	case e.Err != nil:
		s.span.SetStatus(codes.Error, e.Err.Error())
	case c.failed: // Operation.Do returns a status of 400 or more without an error
		s.span.SetStatus(codes.Error, "")
	}
	s.span.End()
}

// BreakerStateChange counts the change and, when a call caused it, adds an
// event to that call's span.
func (o *Observer) BreakerStateChange(e runtime.StateChangeEvent) {
	o.transitions.Add(e.Context, 1, o.trans.get(transKey{e.Breaker, e.From, e.To}, newTransition)...)
	if span := trace.SpanFromContext(e.Context); span.IsRecording() {
		span.AddEvent("breaker state change", trace.WithAttributes(KeyBreaker.String(e.Breaker),
			KeyFrom.String(e.From.String()), KeyTo.String(e.To.String()), KeyReason.String(e.Reason)))
	}
}

type transKey struct {
	breaker  string
	from, to runtime.State
}

func newTransition(k transKey) []metric.AddOption {
	return []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(KeyBreaker.String(k.breaker),
		KeyFrom.String(k.from.String()), KeyTo.String(k.to.String())))}
}

// opKey names what the attributes of an operation's measurements come from.
type opKey struct{ op, breaker, method, path, host string }

// opInfo holds an operation's span options and attribute sets, made once
// so that a call allocates none.
type opInfo struct {
	base                       []attribute.KeyValue // operation, breaker, method, template, server
	start, startTrial          []trace.SpanStartOption
	attemptName                string
	rejectOpen, rejectHalfOpen []metric.AddOption

	attempts cache[outcomeKey, measure]
	calls    cache[outcomeKey, measure]
	retries  cache[string, []metric.AddOption]
}

func newOpInfo(k opKey) *opInfo {
	op := &opInfo{attemptName: k.method}
	op.base = append(op.base, KeyOperation.String(k.op))
	if k.breaker != "" {
		op.base = append(op.base, KeyBreaker.String(k.breaker))
	}
	if k.method != "" {
		op.base = append(op.base, semconv.HTTPRequestMethodKey.String(k.method))
	}
	if k.path != "" {
		op.base = append(op.base, semconv.URLTemplate(k.path))
		op.attemptName += " " + k.path
	}
	if op.attemptName == "" {
		op.attemptName = k.op
	}
	if k.host != "" {
		host, port, err := net.SplitHostPort(k.host)
		if err != nil {
			host, port = k.host, ""
		}
		op.base = append(op.base, semconv.ServerAddress(host))
		if p, err := strconv.Atoi(port); err == nil {
			op.base = append(op.base, semconv.ServerPort(p))
		}
	}
	op.start = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(op.base...)}
	op.startTrial = append(slices.Clip(op.start), trace.WithAttributes(KeyHalfOpenTrial.Bool(true)))
	op.rejectOpen = op.adds(KeyBreakerState.String(runtime.StateOpen.String()))
	op.rejectHalfOpen = op.adds(KeyBreakerState.String(runtime.StateHalfOpen.String()))
	return op
}

// set is the attribute set of the operation's base attributes and more.
func (op *opInfo) set(more ...attribute.KeyValue) attribute.Set {
	return attribute.NewSet(append(slices.Clip(op.base), more...)...)
}

func (op *opInfo) adds(more ...attribute.KeyValue) []metric.AddOption {
	return []metric.AddOption{metric.WithAttributeSet(op.set(more...))}
}

func (op *opInfo) newRetry(reason string) []metric.AddOption {
	return op.adds(KeyRetryReason.String(reason))
}

// outcomeKey is how an attempt or a call ended.
type outcomeKey struct {
	status int
	kind   errKind
	stop   string // the stop sentinel's text (calls only)
}

// measure holds the options of one outcome's measurements and the span
// attributes that say it.
type measure struct {
	add    []metric.AddOption
	record []metric.RecordOption
	span   []attribute.KeyValue
	failed bool
}

func (op *opInfo) newAttempt(k outcomeKey) measure { return op.withSet(op.measure(k)) }

func (op *opInfo) newCall(k outcomeKey) measure {
	m := op.measure(k)
	if k.stop != "" {
		m.span = append(m.span, KeyStopReason.String(k.stop))
	}
	return op.withSet(m)
}

func (op *opInfo) measure(k outcomeKey) measure {
	var m measure
	if k.status > 0 {
		m.span = append(m.span, semconv.HTTPResponseStatusCode(k.status))
	}
	// OTel's HTTP client conventions: error.type is the status code of a
	// status of 400 or more, else a low-cardinality name of the error.
	switch {
	case k.kind != errNone && k.kind != errStatus:
		m.span, m.failed = append(m.span, semconv.ErrorTypeKey.String(k.kind.String())), true
	case k.status >= 400:
		m.span, m.failed = append(m.span, semconv.ErrorTypeKey.String(strconv.Itoa(k.status))), true
	}
	return m
}

func (op *opInfo) withSet(m measure) measure {
	set := op.set(m.span...)
	m.add = []metric.AddOption{metric.WithAttributeSet(set)}
	m.record = []metric.RecordOption{metric.WithAttributeSet(set)}
	return m
}

// errKind classifies an event's error for error.type.
type errKind uint8

const (
	errNone errKind = iota
	errStatus
	errTimeout
	errCancelled
	errTransport
	errCircuitOpen
	errDecode
)

func (k errKind) String() string {
	switch k {
	case errTimeout:
		return ErrorTimeout
	case errCancelled:
		return ErrorCancelled
	case errTransport:
		return ErrorTransport
	case errCircuitOpen:
		return ErrorCircuitOpen
	case errDecode:
		return ErrorDecode
	}
	return ""
}
