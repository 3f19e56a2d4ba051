// Package rawval holds what the generator and the runtime both need to read
// and report x-resilience values as JSON and YAML decode them: numbers,
// their printing in messages, bounds printed as people write them, and the
// nearest known spelling of a mistyped word.
package rawval

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Number returns v as a float64 when it is a decoded number.
func Number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	}
	return 0, false
}

// Show prints a decoded value as its author wrote it, for messages.
func Show(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(x)
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatFloat(x, 'f', -1, 64) // 4294967297, not 4.294967297e+09
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// Suggest returns the known word nearest to s (case-insensitive edit
// distance at most 2, or a third of its length), or "".
func Suggest(s string, known []string) string {
	// A shortened key ("failureRate") names the one it starts.
	if len(s) >= 4 {
		for _, k := range known {
			if strings.HasPrefix(strings.ToLower(k), strings.ToLower(s)) {
				return k
			}
		}
	}
	best, bestD := "", 1<<30
	for _, k := range known {
		d := EditDistance(strings.ToLower(s), strings.ToLower(k))
		if d < bestD {
			best, bestD = k, d
		}
	}
	if bestD <= 2 || bestD <= len(s)/3 {
		return best
	}
	return ""
}

// EditDistance is the Levenshtein distance of a and b, in bytes.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
