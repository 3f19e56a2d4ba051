package policy

import (
	"math"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
)

// TestWorstCaseSaturatesAndStaysCheap: a policy of 2^31-1 attempts of 24h
// each saturates at the largest Duration instead of wrapping negative, and
// neither it nor a multiplier just above 1 walks every attempt.
func TestWorstCaseSaturatesAndStaysCheap(t *testing.T) {
	start := time.Now()
	huge := &runtime.RetryPolicy{MaxAttempts: 1<<31 - 1, Backoff: runtime.ExponentialBackoff, InitialInterval: time.Hour, Multiplier: 2, MaxInterval: 24 * time.Hour, Jitter: runtime.FullJitter}
	if got := worstCase(huge, 24*time.Hour); got != math.MaxInt64 {
		t.Errorf("worstCase of 2^31-1 attempts = %v, want the largest Duration", got)
	}
	slow := &runtime.RetryPolicy{MaxAttempts: 1<<31 - 1, Backoff: runtime.ExponentialBackoff, InitialInterval: 10 * time.Millisecond, Multiplier: 1.0000001, MaxInterval: 24 * time.Hour, Jitter: runtime.FullJitter}
	if got := worstCase(slow, time.Nanosecond); got <= 0 {
		t.Errorf("worstCase with a slow multiplier = %v", got)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("worstCase took %v", d)
	}
	// Past a thousand growing waits the closed form takes over; it agrees
	// with adding every wait.
	p := &runtime.RetryPolicy{MaxAttempts: 5000, Backoff: runtime.ExponentialBackoff, InitialInterval: time.Millisecond, Multiplier: 1.001, MaxInterval: 10 * time.Second, Jitter: runtime.FullJitter}
	want, w := 5000*time.Second, p.InitialInterval
	for k := 1; k < p.MaxAttempts; k++ {
		want += min(w, p.MaxInterval)
		w = time.Duration(float64(w) * p.Multiplier)
	}
	if got := worstCase(p, time.Second); math.Abs(float64(got-want)) > 0.001*float64(want) {
		t.Errorf("worstCase = %v, adding every wait gives %v", got, want)
	}
}

// TestNearMissOfTheExtensionName: misspellings are near misses; the name
// itself and other extensions are not.
func TestNearMissOfTheExtensionName(t *testing.T) {
	for key, want := range map[string]bool{
		"x-resilience": false, "x-resiliance": true, "x-resillience": true, "X-Resilience": true, "x_resilience": true,
		"x-resilence": true, "X_RESILIENCE": true, "x-ratelimit": false, "x-codegen": false, "x-go-name": false, "resilience": true,
	} {
		if got := isNearMiss(key, extName); got != want {
			t.Errorf("isNearMiss(%q) = %v, want %v", key, got, want)
		}
	}
}
