package runtime

import (
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// backoff returns the wait before retry number k (k = 1 after the first
// attempt), exactly as AWS's "Exponential Backoff and Jitter" defines it,
// with the cap (MaxInterval) applied before the jitter:
//
//	none:         w = min(cap, base·mult^(k-1))      (constant: base)
//	full:         random in [0, w]
//	equal:        w/2 + random in [0, w/2]
//	decorrelated: min(cap, random in [base, 3·prev]), prev starting at base
//
// Decorrelated ignores Backoff: it has its own growth, and needs the
// previous wait of the same call (prev).
func backoff(p *RetryPolicy, k int, prev time.Duration) time.Duration {
	base, cap := p.InitialInterval, p.MaxInterval
	if base < 0 {
		base = 0
	}
	if p.Jitter == DecorrelatedJitter {
		prev = max(prev, base)
		hi := prev
		if hi <= math.MaxInt64/3 {
			hi *= 3
		} else {
			hi = math.MaxInt64
		}
		return capped(between(base, hi), cap)
	}
	w := base
	if p.Backoff == ExponentialBackoff && k > 1 {
		m := p.Multiplier
		if m <= 0 {
			m = 2
		}
		f := float64(base) * math.Pow(m, float64(k-1))
		if f >= math.MaxInt64 {
			w = math.MaxInt64
		} else {
			w = time.Duration(f)
		}
	}
	w = capped(w, cap)
	switch p.Jitter {
	case FullJitter:
		return between(0, w)
	case EqualJitter:
		return w/2 + between(0, w-w/2)
	}
	return w
}

func capped(w, cap time.Duration) time.Duration {
	if cap > 0 && w > cap {
		return cap
	}
	return w
}

// between returns a uniform random duration in [lo, hi], both included.
// math/rand/v2's top-level functions share no state a caller can seed.
func between(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	span := uint64(hi - lo)
	if span == math.MaxUint64 {
		return lo + time.Duration(rand.Uint64()>>1)
	}
	return lo + time.Duration(rand.Uint64N(span+1))
}

// retryAfter reads the server's wait: Retry-After-Ms (milliseconds, the
// header Stainless and OpenAI's servers send) first, else Retry-After.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && !math.IsInf(ms, 0) {
			if ms >= float64(math.MaxInt64/time.Millisecond) {
				return math.MaxInt64, true
			}
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	return parseRetryAfter(h.Get("Retry-After"), now)
}

// parseRetryAfter reads a Retry-After value: delta-seconds or an HTTP-date
// (RFC 9110 §10.2.3). A date in the past is a wait of 0. Anything else is
// not a Retry-After (ok false) and the backoff applies.
func parseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if v[0] >= '0' && v[0] <= '9' {
		// All digits, or not a Retry-After: HTTP dates start with a day
		// name. Checked first, as ParseUint reports a range error for
		// "99999999999999999999x" before it sees the x.
		if strings.Trim(v, "0123456789") != "" {
			return 0, false
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n > uint64(math.MaxInt64/time.Second) {
			// Only a range error is possible: absurdly long, ends the retries.
			return math.MaxInt64, true
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	if d = t.Sub(now); d < 0 {
		d = 0
	}
	return d, true
}
