//go:build resgen_swapped

package runtime

import (
	"testing"
	"time"
)

// swapOrder returns op in the swapped order (breaker inside the retry
// loop), for the tests that compare the two orders.
func swapOrder(_ *testing.T, op *operation) *operation { return op.retryOutsideCopy() }

func TestRetryOutsideWithoutBreaker(t *testing.T) {
	s := scripted(t, 503, 200)
	e := newEngine(config{Logger: quiet})
	op := swapOrder(t, e.operation(operationSpec{Name: "op", Retry: constRetry(2, time.Millisecond)}))
	if code, n, err := do(t, op, get(t, s)); code != 200 || n != 2 || err != nil {
		t.Fatalf("code %d attempts %d err %v", code, n, err)
	}
}
