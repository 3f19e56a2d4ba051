package runtime

import (
	"log/slog"
	"strings"
	"testing"
)

// TestRetryStormIsBounded: a retry policy built by
// hand that retries successes, with 2^31-1 attempts and no wait, is
// clamped when the operation is registered (with a warning): a 200 is not
// retried, and a failing server sees at most MaxRetryAttempts requests per
// call, on a loopback server.
func TestRetryStormIsBounded(t *testing.T) {
	storm := &RetryPolicy{Policy: "storm", MaxAttempts: 1<<31 - 1, Backoff: ConstantBackoff,
		RetryOn: Match{Transport: true, Codes: []int{200, 204, 503}, Classes: []int{1, 2}}}
	for _, c := range []struct {
		status, want int
	}{{200, 1}, {204, 1}, {503, MaxRetryAttempts}} {
		s := newServer(t, status(c.status))
		log, buf := newLogger(slog.LevelWarn)
		e := newEngine(config{Logger: log})
		op := e.operation(operationSpec{Name: "get", Method: "GET", Retry: storm})
		code, attempts, _ := do(t, op, get(t, s))
		if code != c.status || attempts != c.want || s.calls.Load() != int64(c.want) {
			t.Errorf("status %d: %d attempts reported, %d sent; want %d", c.status, attempts, s.calls.Load(), c.want)
		}
		if !strings.Contains(buf.String(), "clamped maxAttempts 2147483647 to 10") {
			t.Errorf("no warning of the clamp: %q", buf.String())
		}
	}
	// The caller's policy itself is left as it was.
	if storm.MaxAttempts != 1<<31-1 || len(storm.RetryOn.Codes) != 3 || len(storm.RetryOn.Classes) != 2 {
		t.Errorf("the caller's policy changed: %+v", storm)
	}
}

// TestOverridesRefuseARetryStorm: an overrides document cannot
// bring back what the spec refuses.
func TestOverridesRefuseARetryStorm(t *testing.T) {
	for doc, want := range map[string]string{
		`{"retries": {"quick": {"maxAttempts": 2147483647}}}`: "maxAttempts must be a whole number from 1 to 10",
		`{"retries": {"quick": {"maxAttempts": 11}}}`:         "maxAttempts must be a whole number from 1 to 10",
		`{"retries": {"quick": {"retryOn": ["2xx"]}}}`:        "retryOn must not name a success or informational status",
		`{"retries": {"quick": {"retryOn": [503, 200]}}}`:     "retryOn must not name a success or informational status, got 200",
	} {
		if _, err := ParseOverrides([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", doc, err, want)
		}
	}
	if _, err := ParseOverrides([]byte(`{"retries": {"quick": {"maxAttempts": 10, "retryOn": [503, "3xx"]}}}`)); err != nil {
		t.Errorf("10 attempts on 503 and 3xx: %v", err)
	}
}
