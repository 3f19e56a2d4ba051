package runtime

import (
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

// decide is called after a failed attempt worth retrying. It returns true
// and sets c.wait when another attempt follows; otherwise it sets c.stop
// and the last result stands.
func (c *call) decide() bool {
	p, e := c.op.retry, c.op.e
	if c.tries >= c.max {
		c.halt(ErrAttemptsExhausted, "retries exhausted")
		return false
	}
	if c.req != nil && !noBody(c.req) && c.req.GetBody == nil || c.up != nil && !c.up.replay {
		c.halt(ErrBodyNotReplayable, "the request body cannot be replayed")
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
	dl, ok := c.ctx.Deadline()
	if !c.deadline.IsZero() && (!ok || c.deadline.Before(dl)) {
		dl, ok = c.deadline, true // a total timeout on a timer (handover.go)
	}
	if ok && time.Until(dl) < wait {
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
