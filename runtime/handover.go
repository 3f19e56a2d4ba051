package runtime

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// A body handed over to the caller unread (a download, an event stream)
// is read long after its headers came. So a call whose answer may be
// handed over runs its attempt and total timeouts on timers it can stop:
// they bound the time to the response headers and are stopped when the
// body is handed over; from then on only the caller's context and the
// idle timeout (the longest a single read may wait) bound it.
// WithReadTimeouts keeps both timers running while the caller reads, as
// before. A call whose answer is always read within the attempt (JSON,
// text) keeps its deadline contexts and pays for none of this.

// ErrIdleTimeout is matched (errors.Is) by the error of a read of a
// handed-over body (a download, an event stream) that waited longer than
// the idle timeout for data.
var ErrIdleTimeout = errors.New("idle timeout: no data from the server")

// errTotalTimeout is the cause of an attempt cut by the call's total
// timeout on a stoppable timer (a deadline context says DeadlineExceeded).
var errTotalTimeout = errors.New("total timeout passed")

// WithIdleTimeout bounds each read of a body handed over to the caller (a
// download's io.ReadCloser, an event stream) by d once the response
// headers came, instead of the operation's idleTimeout (d <= 0: none).
// A read that waits longer fails with ErrIdleTimeout: for a stream,
// between two events.
func WithIdleTimeout(d time.Duration) CallOption { return CallOption{kind: optIdleTimeout, d: d} }

// WithReadTimeouts keeps the attempt and total timeouts running while the
// caller reads a body handed over to it, as resgen did before streams:
// the body is cut when either passes. Without it they bound the time to
// the response headers only.
func WithReadTimeouts() CallOption { return CallOption{kind: optReadTimeouts} }

// handoverContext is attemptContext for a call whose answer may be handed
// over: a cancellable context whose timer (kept in c.atimer, stopped at
// hand-over) ends it at the attempt's timeout or the call's total
// timeout, whichever comes first. The context always exists, so an idle
// timeout can end the body's reads.
func (c *call) handoverContext() (context.Context, context.CancelFunc) {
	e := c.op.e
	var at time.Duration // on e.mono's clock; 0: no timer
	var cause error
	if t := c.timeout; t > 0 {
		now := c.t0
		if c.tries > 1 {
			now = e.mono()
		}
		at, cause = now+t, ErrAttemptTimeout
	}
	if c.total > 0 && c.cancel == nil { // the total timeout is not yet in c.ctx
		if end := c.t0 + c.total; cause == nil || end < at {
			at, cause = end, errTotalTimeout
		}
	}
	ctx, cancel := context.WithCancelCause(c.ctx)
	var t *time.Timer
	if cause != nil {
		t = time.AfterFunc(at-e.mono(), func() { cancel(cause) })
	}
	c.atimer = t
	return ctx, func() {
		if t != nil {
			t.Stop()
		}
		cancel(context.Canceled)
	}
}

// totalContext is the retry loop's context of a call whose answer may be
// handed over: the caller's, ended by a timer (c.ttimer) at the total
// timeout.
func (c *call) totalContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(c.caller)
	t := time.AfterFunc(c.t0+c.total-c.op.e.mono(), func() { cancel(errTotalTimeout) })
	c.ttimer = t
	return ctx, func() { t.Stop(); cancel(context.Canceled) }
}

// totalTimeoutError is the error of an attempt cut by errTotalTimeout: it
// matches context.DeadlineExceeded, as a deadline context's would.
type totalTimeoutError struct{ err error }

func (e *totalTimeoutError) Error() string   { return "total timeout: " + e.err.Error() }
func (e *totalTimeoutError) Unwrap() []error { return []error{context.DeadlineExceeded, e.err} }

// handOver wraps the kept response's body for the caller: the timers stop
// (unless WithReadTimeouts), the idle timeout starts bounding reads.
func (c *call) handOver(rc io.ReadCloser) *streamBody {
	if !c.readTimeouts {
		if c.atimer != nil {
			c.atimer.Stop()
		}
		if c.ttimer != nil {
			c.ttimer.Stop()
		}
	}
	return &streamBody{rc: rc, op: c.op, caller: c.caller, idle: c.idle, a: c.respCancel, b: c.cancel}
}

// streamBody is a body handed over to the caller. A read that waits longer
// than idle ends the attempt's context (a, which the transport obeys);
// the first read that fails, unless the caller closed the body or its
// context ended, counts as one more failure on the operation's breaker:
// the server broke the answer after it was recorded as a success.
type streamBody struct {
	rc     io.ReadCloser
	op     *operation
	caller context.Context
	idle   time.Duration
	a, b   context.CancelFunc
	timer  *time.Timer // idle's, made on the first read

	idled   atomic.Bool
	closed  atomic.Bool
	counted bool // a failure was counted (reads are not concurrent)
	once    sync.Once
}

func (s *streamBody) Read(p []byte) (int, error) {
	if s.idle > 0 {
		if s.timer == nil {
			s.timer = time.AfterFunc(s.idle, s.expire)
		} else {
			s.timer.Reset(s.idle)
		}
	}
	n, err := s.rc.Read(p)
	if s.timer != nil {
		s.timer.Stop()
	}
	if err != nil && err != io.EOF {
		err = s.broken(err)
	}
	return n, err
}

func (s *streamBody) expire() {
	s.idled.Store(true)
	if s.a != nil {
		s.a()
	}
}

// broken is the error of a failed read; it counts the failure once.
func (s *streamBody) broken(err error) error {
	if s.closed.Load() || s.caller.Err() != nil {
		return err
	}
	if s.idled.Load() {
		err = &idleError{d: s.idle, err: err}
	}
	if !s.counted {
		s.counted = true
		s.op.lateFailure(s.caller)
	}
	return err
}

// serverBroke says whether err, from Read, is a break by the server (or
// an idle timeout), not the caller's doing.
func (s *streamBody) serverBroke(err error) bool {
	return err != nil && err != io.EOF && !s.closed.Load() && s.caller.Err() == nil
}

// Close closes the body and releases the call's contexts; it may be called
// more than once and concurrently with Read.
func (s *streamBody) Close() error {
	var err error
	s.once.Do(func() {
		s.closed.Store(true)
		if s.a != nil {
			s.a() // unblocks a Read in progress
		}
		err = s.rc.Close()
		// The idle timer is Read's alone: stopped when each Read returns.
		if s.b != nil {
			s.b()
		}
	})
	return err
}

// idleError is the error of a read cut by the idle timeout.
type idleError struct {
	d   time.Duration
	err error
}

func (e *idleError) Error() string {
	return "no data from the server for " + e.d.String() + " (idle timeout): " + e.err.Error()
}
func (e *idleError) Unwrap() []error { return []error{ErrIdleTimeout, e.err} }

// lateFailure counts a handed-over body that the server broke (or that
// idled out) as one more failed call on op's breaker: getting it was
// recorded as a success. An open breaker counts nothing more.
func (op *operation) lateFailure(ctx context.Context) {
	b := op.spec.Breaker
	if b == nil {
		return
	}
	if l := b.link; l != nil {
		if v := l.snap.Load(); v&1 != 0 {
			if State(v>>1&3) == StateClosed {
				l.closed[outFailed].Add(1)
			}
			return
		}
	}
	b.run(func() error {
		gen, _ := b.admitted()
		return b.record(ctx, gen, outFailed, false, op.e.now())
	})
	b.flush()
}
