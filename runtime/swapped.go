//go:build resgen_swapped

package runtime

// The swapped order, the breaker inside the retry loop, exists only so
// tests can show what resgen's order (breaker outside) changes: it is
// built only with -tags resgen_swapped (make test runs those tests), so
// no production build carries it.
const swappedOrder = true

// OperationRetryOutside registers an operation whose breaker sits INSIDE
// the retry loop, the order of Resilience4j's and Polly's defaults: every
// attempt is admitted and recorded by the breaker on its own, and a
// refused attempt is retried like a failure. It exists only so tests can
// show what resgen's order (breaker outside) changes; generated clients
// never call it.
func (e *engine) OperationRetryOutside(spec operationSpec) any {
	return newOperation(e, spec, true)
}

// RetryOutside is retryOutside for package impl, which cannot name the
// result's type.
func (op *operation) RetryOutside() any { return op.retryOutsideCopy() }

// retryOutsideCopy returns a copy of op in the swapped order, the breaker
// inside the retry loop (see engine.OperationRetryOutside). For tests
// that compare the two orders only.
func (op *operation) retryOutsideCopy() *operation {
	return &operation{e: op.e, spec: op.spec, auth: op.auth, retry: op.retry, maxAttempts: op.maxAttempts, retryOutside: true, accept: op.accept}
}

// guardedAttempt is one attempt admitted and recorded by the breaker on
// its own (retry-outside order only).
func (c *call) guardedAttempt() {
	b := c.op.spec.Breaker
	before := c.active
	why := b.run(func() error {
		gen, _ := b.admitted()
		c.plainAttempt()
		o, ignored := c.outcome(c.active - before) // slow is judged per attempt here
		return b.record(c.caller, gen, o, ignored, c.end)
	})
	b.flush()
	if why != admitted {
		c.kind, c.err = kRejected, b.rejection(c.caller, c.op.spec.Name, why)
		c.discard()
		c.status, c.header = 0, nil
	}
}
