package runtime

import (
	"context"
	"time"

	retry "github.com/avast/retry-go/v4"
)

// The adapter to retry-go: the only file that names it. retry-go runs the
// loop, its waits and their end when the context ends; every decision
// (whether to retry, how long to wait) is the call's (decide.go), since
// retry-go knows nothing of budgets, Retry-After, deadlines or the sends
// net/http makes by itself. It is fed the first attempt's result again
// because the first attempt runs before it (see run): retry-go cannot
// start from a result it did not make, and running the first attempt
// inside it costs four allocations on every call that succeeds at once.

func unrecoverable(err error) error { return retry.Unrecoverable(err) }

func recoverable(err error) bool { return retry.IsRecoverable(err) }

// retrier is the heap copy of a call that retry-go's closures hold; the
// fast path keeps call on the stack.
type retrier struct {
	c        call
	replayed bool
}

// retryLoop runs the attempts after the first on retry-go. retry-go's
// first "attempt" replays the first attempt's result, so every decision
// and every wait goes through retry-go: RetryIf decides (and computes the
// next wait, since it runs before DelayType), DelayType returns that wait,
// Context ends a wait early, and LastErrorOnly keeps errors.Is from
// matching earlier attempts. MaxDelay is not used: it caps after jitter
// and would cut Retry-After short.
func (c *call) retryLoop() {
	r := &retrier{c: *c}
	switch {
	case r.c.deadline.IsZero():
	case r.c.pl != nil && r.c.pl.handsOver:
		r.c.ctx, r.c.cancel = r.c.totalContext()
	default:
		r.c.ctx, r.c.cancel = context.WithDeadline(r.c.caller, r.c.deadline)
	}
	err := retry.Do(r.attempt,
		retry.Attempts(uint(r.c.max)),
		retry.Context(r.c.ctx),
		retry.RetryIf(r.retryIf),
		retry.DelayType(r.delay),
		retry.LastErrorOnly(true),
	)
	*c = r.c
	if err != nil && c.stop == "" { // retry-go saw the context end
		c.halt(ErrDeadline, "total timeout passed")
		if c.caller.Err() != nil {
			c.halt(c.cancelled(), "cancelled by the caller")
		}
		if c.waiting {
			c.stop += " while waiting to retry"
		}
	}
}

func (r *retrier) attempt() error {
	if !r.replayed {
		r.replayed = true
	} else {
		r.c.waiting = false
		r.c.attempt()
	}
	return r.c.attemptErr()
}

func (r *retrier) retryIf(err error) bool {
	if !retry.IsRecoverable(err) {
		r.c.halt(ErrNotRetryable, "not retryable")
		if r.c.kind == kCancelled {
			r.c.halt(r.c.cancelled(), "cancelled")
		}
		return false
	}
	return r.c.decide()
}

func (r *retrier) delay(uint, error, *retry.Config) time.Duration { return r.c.wait }
