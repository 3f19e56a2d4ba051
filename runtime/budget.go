package runtime

import (
	"sync"
	"time"
)

// budgetSeconds is how far back a budget looks, as Finagle's RetryBudget
// (its TTL).
const budgetSeconds = 10

// budget is an engine's retry budget, shared by all its operations that
// have one: in any budgetSeconds window, retries may be at most
// Ratio × calls + MinPerSecond × budgetSeconds (Finagle's RetryBudget:
// percentCanRetry and minRetriesPerSec over a 10 s TTL). Every call of an
// operation with a budget deposits; every retry withdraws. Each operation
// weighs the shared counts with its own policy's numbers.
type budget struct {
	mu      sync.Mutex
	buckets [budgetSeconds]budgetBucket
	last    int64 // newest second seen
	calls   int64 // totals over the buckets
	retries int64
}

type budgetBucket struct{ calls, retries int64 }

func (b *budget) advance(sec int64) {
	if sec <= b.last {
		return
	}
	from := b.last + 1
	if sec-from >= budgetSeconds {
		from = sec - budgetSeconds + 1
	}
	for s := from; s <= sec; s++ {
		k := &b.buckets[s%budgetSeconds]
		b.calls -= k.calls
		b.retries -= k.retries
		*k = budgetBucket{}
	}
	b.last = sec
}

// deposit counts one call made at engine time now.
func (b *budget) deposit(now time.Duration) {
	sec := int64(now / time.Second)
	b.mu.Lock()
	b.advance(sec)
	b.buckets[b.last%budgetSeconds].calls++
	b.calls++
	b.mu.Unlock()
}

// withdraw takes one retry from the budget, or reports that it is spent.
func (b *budget) withdraw(now time.Duration, p Budget) bool {
	return b.take(now, p, 1, false)
}

// charge counts n retries made without asking (net/http sent a request
// again by itself), even past the budget.
func (b *budget) charge(now time.Duration, n int) {
	b.take(now, Budget{}, n, true)
}

func (b *budget) take(now time.Duration, p Budget, n int, force bool) bool {
	sec := int64(now / time.Second)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.advance(sec)
	if !force && float64(b.retries+1) > p.Ratio*float64(b.calls)+p.MinPerSecond*budgetSeconds {
		return false
	}
	b.buckets[b.last%budgetSeconds].retries += int64(n)
	b.retries += int64(n)
	return true
}
