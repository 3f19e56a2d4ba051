package policy

import "testing"

func TestNearMissHeader(t *testing.T) {
	for _, tc := range []struct {
		name, key string
		want      bool
	}{
		{"Idempotency-Keys", "Idempotency-Key", true},
		{"Idempotancy-Key", "Idempotency-Key", true},
		{"X-Idempotency-Key", "Idempotency-Key", true},
		{"Idempotency_Key", "Idempotency-Key", true},
		{"idempotencykey", "Idempotency-Key", true},
		{"Idempotency-Key", "X-Idempotency-Key", true},
		{"X-Request-Ids", "X-Request-Id", true},
		// The key itself, in any case, is the key, not a near miss.
		{"IDEMPOTENCY-KEY", "Idempotency-Key", false},
		{"X-Trace", "Idempotency-Key", false},
		{"Idempotency-Key-Id", "Idempotency-Key", false},
		{"X-Request", "X-Request-Id", false},
		{"X-Req-Ix", "X-Req-Id", true},
		{"X-Rsq-Ix", "X-Req-Id", false}, // two edits in 8 characters
	} {
		if got := nearMissHeader(tc.name, tc.key); got != tc.want {
			t.Errorf("nearMissHeader(%q, %q) = %v, want %v", tc.name, tc.key, got, tc.want)
		}
	}
}
