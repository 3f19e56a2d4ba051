package runtime

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// operation is one API operation with its resolved policy. Its exported
// methods are package impl's Operation.
type operation struct {
	e            *engine
	spec         operationSpec
	auth         []*authScheme // the schemes sent, chosen from spec.Security (auth.go)
	retry        *RetryPolicy  // a normalised copy; nil = single attempt
	maxAttempts  int
	retryOutside bool
	plan         atomic.Pointer[plan] // how Call decodes the response type
	accept       []string             // spec.Accept as a header value, nil when none
}

func newOperation(e *engine, spec operationSpec, retryOutside bool) *operation {
	op := &operation{e: e, spec: spec, auth: e.authPlan(spec.Security), maxAttempts: 1, retryOutside: retryOutside}
	if spec.Accept != "" {
		op.accept = []string{spec.Accept}
	}
	if spec.Retry != nil && !spec.NotRetrySafe {
		r := clampRetry(e, spec.Name, *spec.Retry)
		op.retry, op.maxAttempts = &r, r.MaxAttempts
	}
	return op
}

// clampRetry bounds a retry policy built by hand as the contract bounds a
// spec's (rules.go): at most MaxRetryAttempts attempts, and no
// informational or success status in RetryOn. It warns once when it had
// to.
func clampRetry(e *engine, op string, r RetryPolicy) RetryPolicy {
	r.MaxAttempts = max(r.MaxAttempts, 1)
	var clamped []string
	if r.MaxAttempts > MaxRetryAttempts {
		clamped = append(clamped, "maxAttempts "+strconv.Itoa(r.MaxAttempts)+" to "+strconv.Itoa(MaxRetryAttempts))
		r.MaxAttempts = MaxRetryAttempts
	}
	success := func(c int) bool { return c < 300 }
	if slices.ContainsFunc(r.RetryOn.Codes, success) {
		r.RetryOn.Codes = slices.DeleteFunc(slices.Clone(r.RetryOn.Codes), success)
		clamped = append(clamped, "retryOn without its 1xx and 2xx codes")
	}
	if slices.ContainsFunc(r.RetryOn.Classes, func(c int) bool { return c < 3 }) {
		r.RetryOn.Classes = slices.DeleteFunc(slices.Clone(r.RetryOn.Classes), func(c int) bool { return c < 3 })
		clamped = append(clamped, "retryOn without 1xx and 2xx")
	}
	if len(clamped) > 0 {
		e.log.LogAttrs(context.Background(), slog.LevelWarn,
			"operation "+strconv.Quote(op)+": retry policy "+strconv.Quote(r.Policy)+" exceeds the runtime's limits; clamped "+strings.Join(clamped, ", "),
			slog.String("op", op), slog.String("policy", r.Policy))
	}
	return r
}

// Do runs one logical call: the breaker admits it (or it fails at once
// with a *CircuitOpenError and attempts == 0), the retry loop makes up to
// MaxAttempts attempts, and the breaker records one outcome.
//
// If the last attempt produced an HTTP response, Do returns it with a nil
// error whatever its status; its body is open and the caller must close
// it. Otherwise Do returns a *CallError wrapping the last attempt's error.
// attempts is the number of requests sent.
func (op *operation) Do(ctx context.Context, req *http.Request) (resp *http.Response, attempts int, err error) {
	var c call
	c.req = req
	return op.do(ctx, &c)
}

// do runs the call c (its request, c.req or the fields Call sets, already set).
func (op *operation) do(ctx context.Context, c *call) (*http.Response, int, error) {
	if swappedOrder && op.retryOutside {
		c.start(op, ctx, false)
		c.guard = true
		c.run()
		return c.finish()
	}
	b := op.spec.Breaker
	if b == nil {
		c.start(op, ctx, false)
		c.run()
		return c.finish()
	}
	if l := b.link; l != nil {
		if v := l.snap.Load(); v&1 != 0 {
			return op.doFleet(ctx, c, b, l, v)
		}
		if until := l.heldUntil.Load(); until != 0 && int64(op.e.now()) < until {
			// The fleet's open holds while the store is unreachable.
			return nil, 0, b.refuse(c.startEvent(op, ctx, false), refusedOpen)
		}
	}
	why := b.run(func() error {
		gen, st := b.admitted()
		// Any state but closed here is a half-open trial (or a call
		// admitted just before a change): a single attempt.
		c.start(op, ctx, st != StateClosed)
		c.run()
		o, ignored := c.outcome(c.active)
		return b.record(c.caller, gen, o, ignored, c.end)
	})
	b.flush()
	if why != admitted {
		return nil, 0, b.refuse(c.startEvent(op, ctx, false), why)
	}
	return c.finish()
}

// doFleet runs the call c as the fleet's state v (the link's snapshot)
// decides: closed, a full call whose outcome is counted for the next
// Sync; open, a refusal; half-open (or open past its wait), a single-
// attempt trial if the link holds a permit, else a refusal that asks the
// worker for permits.
func (op *operation) doFleet(ctx context.Context, c *call, b *Breaker, l *fleetLink, v uint64) (*http.Response, int, error) {
	gen := v >> 3
	st := State(v >> 1 & 3)
	if st == StateClosed {
		c.start(op, ctx, false)
		c.run()
		if o, ignored := c.outcome(c.active); !ignored && l.snap.Load()>>3 == gen {
			l.closed[o].Add(1)
		}
		return c.finish()
	}
	if st == StateOpen && int64(op.e.now()) < l.heldUntil.Load() {
		l.demand.Add(1)
		return nil, 0, b.refuse(c.startEvent(op, ctx, false), refusedOpen)
	}
	if !l.permit(op.e.now()) {
		l.demand.Add(1)
		l.f.wake()
		return nil, 0, b.refuse(c.startEvent(op, ctx, false), refusedFull)
	}
	c.start(op, ctx, true)
	c.run()
	if l.snap.Load()>>3 == gen {
		if o, ignored := c.outcome(c.active); ignored {
			l.returned.Add(1)
		} else {
			l.trials[o].Add(1)
		}
		l.f.wake()
	}
	return c.finish()
}

// Breaker returns the operation's breaker, nil when it has none.
func (op *operation) Breaker() *Breaker { return op.spec.Breaker }

// kind is what an attempt produced.
type kind uint8

const (
	kResponse  kind = iota // an HTTP response, any status
	kTransport             // no response: connection, TLS, protocol error
	kTimeout               // no response in time
	kCancelled             // the caller's context ended: not recorded, not retried
	kLocal                 // the request could not be built (editor, body): not recorded
	kRejected              // retry-outside only: the breaker refused the attempt
)

// call is the state of one logical call. It lives on the Do's stack on the
// fast path; the retry path copies it to the heap (see retryLoop).
type call struct {
	op     *operation
	caller context.Context // as given to Do
	// ctx bounds the waits and parents the attempts. It is the caller's
	// context until the retry loop starts; then, with a TotalTimeout, a
	// child ending at deadline (made lazily so a first attempt that
	// succeeds costs one context, not two).
	ctx      context.Context
	cancel   context.CancelFunc
	deadline time.Time // start + TotalTimeout; zero when none
	// t0 is engine.mono at the start of a call that has a timeout: the
	// first attempt's deadline is t0 + Timeout, so the fast path reads
	// the clock once for both deadlines.
	t0 time.Duration
	// req is the caller's request (Do). With built set (Call), the
	// runtime builds every attempt from header0, body and the URL u.
	req     *http.Request
	built   bool
	header0 http.Header
	body    []byte
	up      *upload     // a streamed body (upload.go), instead of body
	upStop  func() bool // stops closing up's body when the attempt's context ends
	u       url.URL
	opts    []CallOption // the call's own options (the client's are in engine)
	timeout time.Duration
	total   time.Duration
	max     int
	trial   bool
	guard   bool // retry-outside order: the breaker guards each attempt
	noRetry bool // WithNoRetry
	edited  bool // an option changes each attempt's header or request (set by apply)
	// pl, set by Call, says how the answer decodes: its body is read in
	// the attempt (body.go), into raw; tooLarge is the cap it exceeded.
	pl       *plan
	raw      []byte
	tooLarge int
	read     bool // the answer's body is read and closed
	maxBody  int  // WithMaxBody
	maxErr   int  // WithMaxErrorBody
	// A call whose answer may be handed over unread (c.pl.handsOver)
	// runs its timeouts on timers it stops at hand-over (handover.go).
	atimer, ttimer *time.Timer   // the last attempt's, the total timeout's
	idle           time.Duration // the idle timeout of a handed-over body
	readTimeouts   bool          // WithReadTimeouts: the timers keep running
	maxEvent       int           // WithMaxEventSize

	attempts int           // requests sent
	tries    int           // attempts begun, refused ones included (retry-outside order)
	active   time.Duration // sum of attempt durations
	end      time.Duration // engine clock when the last attempt ended

	kind       kind
	resp       *http.Response // last response, nil once drained
	respCancel context.CancelFunc
	spareBody  *cancelBody // allocated with the first attempt's request, for finish
	status     int
	header     http.Header
	err        error // last attempt's error when there was no response

	stop     string        // why no further attempt was made, in words
	stopErr  error         // the same as a sentinel
	wait     time.Duration // next wait, decided in RetryIf
	prevWait time.Duration // previous backoff, for decorrelated jitter
	waiting  bool          // a wait was decided and the next attempt not begun
}

func (c *call) start(op *operation, ctx context.Context, trial bool) {
	e := op.e
	if e.observe {
		ctx = e.obs.CallStart(c.startEvent(op, ctx, trial))
	}
	c.op, c.caller, c.ctx, c.trial = op, ctx, ctx, trial
	c.max, c.timeout, c.total, c.idle = op.maxAttempts, op.spec.Timeout, op.spec.TotalTimeout, op.spec.IdleTimeout
	if len(e.opts) > 0 || len(c.opts) > 0 {
		c.apply(e.opts)
		c.apply(c.opts)
	}
	if trial {
		c.max = 1
	}
	if c.timeout > 0 || c.total > 0 {
		c.t0 = e.mono()
		if c.total > 0 {
			c.deadline = e.wall(c.t0 + c.total)
		}
	}
	if op.retry != nil && op.retry.Budget != nil {
		e.budget.deposit(e.now())
	}
}

// startEvent is the CallStart event of the call c of op.
func (c *call) startEvent(op *operation, ctx context.Context, trial bool) CallStartEvent {
	var host string
	switch {
	case c.built:
		host = c.u.Host
	case c.req != nil && c.req.URL != nil:
		host = c.req.URL.Host
	}
	return CallStartEvent{Context: ctx, Operation: op.spec.Name, Breaker: op.spec.Breaker.Name(),
		Method: op.spec.Method, Path: op.spec.Path, Host: host, HalfOpenTrial: trial}
}

// run makes the first attempt directly and enters retry-go only after a
// failure worth retrying: retry-go allocates four objects per Do even when
// the first attempt succeeds.
func (c *call) run() {
	c.attempt()
	err := c.attemptErr()
	switch {
	case err == nil:
		if c.kind == kResponse && c.status >= 400 {
			c.notRetried()
		}
	case c.kind == kCancelled:
		c.halt(c.cancelled(), "cancelled")
	case c.kind == kLocal:
		why := "request not built"
		if _, ok := c.err.(*uploadError); ok {
			why = "the request body failed while sent"
		}
		c.halt(ErrNotRetryable, why)
	case !recoverable(err):
		c.notRetried()
	case c.noRetry:
		c.halt(ErrRetryDisabled, "retries disabled for this call")
	case c.trial:
		c.halt(ErrHalfOpenTrial, "half-open trial: single attempt")
	case c.max <= 1:
		c.halt(ErrAttemptsExhausted, "retries exhausted")
	default:
		c.retryLoop()
	}
}

// halt records why no further attempt is made.
func (c *call) halt(stop error, why string) { c.stopErr, c.stop = stop, why }

// notRetried halts a call whose failure the policy does not retry.
func (c *call) notRetried() {
	switch {
	case c.op.spec.NotRetrySafe:
		c.halt(ErrNotRetrySafe, "not retry-safe")
	case c.op.retry == nil:
		c.halt(ErrRetryOff, "no retry policy")
	default:
		c.halt(ErrNotRetryable, "not retryable")
	}
}

// cancelled is the Stop of a call whose caller's context ended.
func (c *call) cancelled() error {
	if errors.Is(c.caller.Err(), context.DeadlineExceeded) {
		return ErrDeadline
	}
	return c.caller.Err()
}

// attempt makes the next attempt, through the breaker in the retry-outside
// order.
func (c *call) attempt() {
	c.tries++
	if swappedOrder && c.guard && c.op.spec.Breaker != nil {
		c.guardedAttempt()
		return
	}
	c.plainAttempt()
}

// plainAttempt sends one request and keeps its result in c.
func (c *call) plainAttempt() {
	op, e := c.op, c.op.e
	actx, acancel := c.attemptContext()
	r, gate, err := c.request(actx)
	if err != nil {
		if c.upStop != nil {
			c.upStop()
			c.upStop = nil
		}
		if acancel != nil {
			acancel()
		}
		c.kind, c.err, c.resp, c.status, c.header = kLocal, err, nil, 0, nil
		if c.caller.Err() != nil {
			c.kind = kCancelled
		}
		return
	}
	c.attempts++
	start := e.now()
	resp, err := e.client.Do(r)
	if c.upStop != nil {
		c.upStop()
		c.upStop = nil
	}
	if gate != nil {
		if n := gate.sent(resp); n > 0 {
			c.resent(n, int(gate.withdrawn.Load()))
		}
	}
	c.raw, c.tooLarge, c.read = nil, 0, false
	if err == nil && c.pl != nil {
		// Call's answer is read now, within the attempt: a body that
		// fails fails the attempt.
		if c.read, err = c.readAnswer(resp); c.read {
			resp.Body = http.NoBody
			if err != nil {
				c.raw, c.tooLarge = nil, 0
			}
		}
	}
	c.end = e.now()
	d := c.end - start
	c.active += d
	if err != nil {
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		e.redact.redactError(err)
		c.kind, c.err = c.classify(err, actx)
		if c.up != nil && c.kind != kCancelled {
			// The caller's stream failed, not the server: like a
			// request that could not be built.
			if rerr := c.up.readErr(); rerr != nil {
				c.kind, c.err = kLocal, &uploadError{rerr}
			}
		}
		c.resp, c.status, c.header = nil, 0, nil
		if acancel != nil {
			acancel()
		}
	} else {
		c.kind, c.err = kResponse, nil
		c.resp, c.respCancel, c.status, c.header = resp, acancel, resp.StatusCode, resp.Header
		if c.read && acancel != nil {
			acancel() // nothing left to read under the attempt's context
			c.respCancel = nil
		}
		if h2 := resp.ProtoMajor == 2; h2 != e.h2.Load() {
			e.h2.Store(h2)
		}
	}
	if e.observe {
		e.obs.Attempt(AttemptEvent{Context: c.caller, Operation: op.spec.Name, Attempt: c.attempts, StatusCode: c.status, Err: c.err, Duration: d})
	}
}

// attemptContext returns the next attempt's context: one context whose
// deadline is the earlier of the attempt's Timeout (cause
// ErrAttemptTimeout) and the call's TotalTimeout, or c.ctx when neither
// applies or c.ctx's own deadline comes first (a child would change
// nothing but cost a context, a timer, a request copy and a body
// wrapper). The first attempt's Timeout counts from the call's start (the
// microseconds of CallStart and the budget deposit included), later
// attempts' from their own start.
func (c *call) attemptContext() (context.Context, context.CancelFunc) {
	if c.pl != nil && c.pl.handsOver {
		return c.handoverContext()
	}
	t := c.timeout
	total := !c.deadline.IsZero() && c.cancel == nil // not yet in c.ctx
	var d time.Time
	cause := false
	switch {
	case t > 0:
		now := c.t0
		if c.tries > 1 {
			now = c.op.e.mono()
		}
		d, cause = c.op.e.wall(now+t), true
		if total && c.deadline.Before(d) {
			d, cause = c.deadline, false
		}
	case total:
		d = c.deadline
	default:
		return c.ctx, nil
	}
	if dl, ok := c.ctx.Deadline(); ok && !dl.After(d) {
		return c.ctx, nil
	}
	if cause {
		return context.WithDeadlineCause(c.ctx, d, ErrAttemptTimeout)
	}
	return context.WithDeadline(c.ctx, d)
}

// request returns the request for the next attempt. The first attempt
// sends req itself (no copy) unless it needs a context of its own (a
// timeout, or the trace of a GET, see resend.go), or request editors will
// run on a request that may be sent again: then every attempt gets a
// clone, so editors never see their own earlier changes. Later attempts
// get a fresh body from GetBody. A request net/http could send again by
// itself is then prepared by wire, on resgen's own copy.
func (c *call) request(ctx context.Context) (*http.Request, *resendGate, error) {
	if c.built {
		return c.build(ctx)
	}
	editors := c.op.e.editors
	r := c.req
	var g *resendGate
	own := false
	// A gate is started before the copy, which then carries its trace.
	gated := resendOf(r) == resendGated && !c.op.e.h2.Load()
	if c.attempts == 0 && (len(editors) == 0 || c.max == 1) {
		var f *firstRequest
		if gated {
			gf := new(gatedRequest) // one allocation for the copy and its gate
			g, f = &gf.gate, &gf.firstRequest
			ctx = g.start(c, ctx)
		} else if ctx != r.Context() {
			f = new(firstRequest)
		}
		if f != nil {
			f.req = *r.WithContext(ctx) // WithContext's copy stays on the stack
			r, c.spareBody = &f.req, &f.body
		}
	} else {
		if gated {
			g = new(resendGate)
			ctx = g.start(c, ctx)
		}
		r, own = r.Clone(ctx), true
		if c.attempts > 0 && !noBody(c.req) {
			if c.req.GetBody == nil {
				return nil, nil, errors.New("request body cannot be re-sent: GetBody is nil")
			}
			body, err := c.req.GetBody()
			if err != nil {
				return nil, nil, err
			}
			r.Body = body
		}
	}
	if err := c.op.e.authorize(ctx, c.op.auth, r); err != nil {
		return nil, nil, err
	}
	for _, ed := range editors {
		if err := ed(ctx, r); err != nil {
			return nil, nil, err
		}
	}
	if err := checkHeader(c.op.spec.Name, r.Header); err != nil {
		return nil, nil, err
	}
	r, g = c.wire(r, g, own)
	return r, g, nil
}

// firstRequest is the first attempt's shallow copy of the caller's
// request, carrying the attempt's context, together with the body wrapper
// that finish needs whenever there is such a context to cancel: one
// allocation on the fast path where WithContext and the wrapper make two.
type firstRequest struct {
	req  http.Request
	body cancelBody
}

// gatedRequest is a firstRequest with the gate of a request net/http could
// send again by itself.
type gatedRequest struct {
	firstRequest
	gate resendGate
}

func noBody(r *http.Request) bool { return r.Body == nil || r.Body == http.NoBody }

// classify sorts an error from the Doer.
func (c *call) classify(err error, actx context.Context) (kind, error) {
	switch {
	case c.caller.Err() != nil:
		return kCancelled, err
	case context.Cause(actx) == ErrAttemptTimeout:
		return kTimeout, &attemptTimeoutError{d: c.timeout, err: err}
	case context.Cause(actx) == errTotalTimeout:
		return kTimeout, &totalTimeoutError{err: err}
	case actx.Err() != nil, errors.Is(err, context.DeadlineExceeded):
		return kTimeout, err // the TotalTimeout, or a transport's own timeout
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return kTimeout, err
	}
	return kTransport, err
}

// attemptErr is the last attempt's result as the retry loop sees it: nil
// when there is nothing to retry (a response whose status is not in
// RetryOn), an unrecoverable error when retrying cannot help, else an
// error for RetryIf to weigh.
func (c *call) attemptErr() error {
	var m *Match
	if c.op.retry != nil {
		m = &c.op.retry.RetryOn
	}
	switch c.kind {
	case kResponse:
		if m != nil && m.status(c.status) {
			return statusAttemptError{c.status}
		}
		return nil
	case kTransport:
		if m != nil && m.Transport {
			return c.err
		}
	case kTimeout:
		if m != nil && m.Timeout {
			return c.err
		}
	case kRejected:
		return c.err // Resilience4j's default retries everything
	}
	return unrecoverable(c.err)
}

// outcome classifies the call for its breaker; active is the time the
// downstream took.
func (c *call) outcome(active time.Duration) (o outcome, ignored bool) {
	if c.caller.Err() != nil || c.kind == kLocal || c.kind == kCancelled {
		return 0, true
	}
	b := c.op.spec.Breaker
	rec := &b.p.RecordOn
	switch c.kind {
	case kResponse:
		if rec.status(c.status) {
			o |= outFailed
		}
	case kTransport:
		if rec.Transport {
			o |= outFailed
		}
	case kTimeout:
		if rec.Timeout {
			o |= outFailed
		}
	}
	if d := b.p.SlowCallDuration; d > 0 && active >= d {
		o |= outSlow
	}
	return o, false
}

// finish builds Do's results.
func (c *call) finish() (*http.Response, int, error) {
	var err error
	if c.resp != nil {
		if c.read {
			if c.cancel != nil {
				c.cancel()
			}
		} else if c.pl != nil {
			c.resp.Body = c.handOver(c.resp.Body)
		} else if c.respCancel != nil || c.cancel != nil {
			// The contexts must outlive the body: cancel them on Close.
			cb := c.spareBody
			if cb == nil {
				cb = new(cancelBody)
			}
			*cb = cancelBody{ReadCloser: c.resp.Body, a: c.respCancel, b: c.cancel}
			c.resp.Body = cb
		}
		if c.stop == "" {
			c.stop = "done"
		}
	} else {
		last := c.err
		if last == nil && c.status != 0 {
			last = &StatusError{Method: c.method(), URL: c.redactedURL(), StatusCode: c.status, Header: c.header, Attempts: c.attempts}
		}
		ce := &CallError{Operation: c.op.spec.Name, Attempts: c.attempts, Reason: c.stop, Stop: c.stopErr, Err: last}
		if c.waiting {
			ce.Cause = context.Cause(c.ctx)
		}
		err = ce
		if c.cancel != nil {
			c.cancel()
		}
	}
	// Call reports the end once the answer is decoded, with its error.
	if !c.built || c.resp == nil {
		c.reportEnd(err)
	}
	return c.resp, c.attempts, err
}

// reportEnd reports the call's end to the observer, err being what it returns.
func (c *call) reportEnd(err error) {
	if e := c.op.e; e.observe {
		e.obs.CallEnd(CallEndEvent{Context: c.caller, Operation: c.op.spec.Name, Attempts: c.attempts, StatusCode: statusOf(c.resp), Err: err, StopErr: c.stopErr, Active: c.active, Stop: c.stop})
	}
}

func statusOf(r *http.Response) int {
	if r == nil {
		return 0
	}
	return r.StatusCode
}

// cancelBody cancels the attempt's and the call's contexts once the caller
// has closed the body.
type cancelBody struct {
	io.ReadCloser
	a, b context.CancelFunc
}

func (cb *cancelBody) Close() error {
	err := cb.ReadCloser.Close()
	if cb.a != nil {
		cb.a()
	}
	if cb.b != nil {
		cb.b()
	}
	return err
}

// drainMax bounds what is read from a failed attempt's body so the
// connection can be reused; a longer body is closed unread.
const drainMax = 64 << 10

// discard drains and closes the last response, which will not be returned.
func (c *call) discard() {
	if c.resp != nil {
		io.CopyN(io.Discard, c.resp.Body, drainMax)
		c.resp.Body.Close()
		c.resp = nil
	}
	if c.respCancel != nil {
		c.respCancel()
		c.respCancel = nil
	}
}
