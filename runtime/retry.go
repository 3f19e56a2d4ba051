package runtime

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	retry "github.com/avast/retry-go/v4"
)

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
	if !r.c.deadline.IsZero() {
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

// decide is called after a failed attempt worth retrying. It returns true
// and sets c.wait when another attempt follows; otherwise it sets c.stop
// and the last result stands.
func (c *call) decide() bool {
	p, e := c.op.retry, c.op.e
	if c.tries >= c.max {
		c.halt(ErrAttemptsExhausted, "retries exhausted")
		return false
	}
	if c.req != nil && !noBody(c.req) && c.req.GetBody == nil {
		c.halt(ErrNotRetryable, "request body cannot be re-sent")
		return false
	}
	wait := backoff(p, c.attempts, c.prevWait)
	c.prevWait = wait
	if p.RetryAfter && c.kind == kResponse && (c.status == http.StatusTooManyRequests || c.status == http.StatusServiceUnavailable) {
		if ra, ok := retryAfter(c.header, time.Now()); ok {
			if p.MaxRetryAfter > 0 && ra > p.MaxRetryAfter {
				c.halt(ErrRetryAfterTooLong, "Retry-After "+ra.String()+" exceeds maxRetryAfter "+p.MaxRetryAfter.String())
				return false
			}
			wait = max(wait, ra)
		}
	}
	if dl, ok := c.ctx.Deadline(); ok && time.Until(dl) < wait {
		c.halt(ErrDeadline, "a wait of "+wait.String()+" would pass the deadline")
		return false
	}
	if p.Budget != nil && !e.budget.withdraw(e.now(), *p.Budget) {
		c.halt(ErrBudgetSpent, "retry budget spent")
		return false
	}
	c.wait, c.waiting = wait, true
	reason := c.reason()
	c.discard()
	c.retrying(wait, reason)
	return true
}

// retrying logs and observes that attempt c.attempts failed and the next
// follows after wait.
func (c *call) retrying(wait time.Duration, reason string) {
	e := c.op.e
	if e.log.Enabled(c.ctx, slog.LevelDebug) {
		e.log.LogAttrs(c.ctx, slog.LevelDebug, "retrying "+c.op.spec.Name,
			slog.String("op", c.op.spec.Name), slog.Int("attempt", c.attempts),
			slog.Duration("wait", wait), slog.String("reason", reason))
	}
	if e.observe {
		e.obs.RetryWait(RetryEvent{Context: c.caller, Operation: c.op.spec.Name, Attempt: c.attempts, Wait: wait, Reason: reason})
	}
}

// reason names what made the last attempt fail.
func (c *call) reason() string {
	switch c.kind {
	case kResponse:
		return "status " + strconv.Itoa(c.status)
	case kTimeout:
		return "timeout: " + c.err.Error()
	case kRejected:
		return "breaker refused the attempt"
	}
	return "transport: " + c.err.Error()
}
