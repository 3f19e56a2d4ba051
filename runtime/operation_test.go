package runtime

import (
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime/wire"
)

func TestSuccessSingleAttempt(t *testing.T) {
	s := newServer(t, status(200))
	e := newEngine(config{Logger: quiet})
	op := e.operation(operationSpec{Name: "get", Breaker: e.Breaker("b", DefaultBreakerPolicy()), Retry: constRetry(3, time.Millisecond)})
	code, n, err := do(t, op, get(t, s))
	if err != nil || code != 200 || n != 1 || s.calls.Load() != 1 {
		t.Fatalf("code %d attempts %d err %v calls %d", code, n, err, s.calls.Load())
	}
}

func TestRetryThenSuccess(t *testing.T) {
	s := newServer(t, func(n int64, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			w.WriteHeader(503)
			io.WriteString(w, strings.Repeat("x", 1000))
			return
		}
		io.WriteString(w, "ok")
	})
	e := newEngine(config{Logger: quiet})
	op := e.operation(operationSpec{Name: "get", Retry: constRetry(3, time.Millisecond)})
	resp, n, err := op.Do(t.Context(), get(t, s))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "ok" || n != 2 || s.calls.Load() != 2 {
		t.Fatalf("status %d body %q attempts %d calls %d", resp.StatusCode, b, n, s.calls.Load())
	}
}

func TestLastResponseReturnedWhenExhausted(t *testing.T) {
	s := newServer(t, status(503))
	e := newEngine(config{Logger: quiet})
	op := e.operation(operationSpec{Name: "get", Retry: constRetry(3, time.Millisecond)})
	code, n, err := do(t, op, get(t, s))
	if err != nil || code != 503 || n != 3 || s.calls.Load() != 3 {
		t.Fatalf("code %d attempts %d err %v calls %d", code, n, err, s.calls.Load())
	}
}

func TestBodyResentAndSameKey(t *testing.T) {
	var mu sync.Mutex
	var bodies, keys []string
	s := newServer(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		mu.Unlock()
		if n < 3 {
			w.WriteHeader(502)
		}
	})
	e := newEngine(config{Logger: quiet})
	op := e.operation(operationSpec{Name: "pay", Method: "POST", Retry: constRetry(3, time.Millisecond)})
	req := post(t, s, `{"amount":1}`)
	key := wire.NewIdempotencyKey()
	req.Header.Set("Idempotency-Key", key)
	code, n, err := do(t, op, req)
	if err != nil || code != 200 || n != 3 {
		t.Fatalf("code %d attempts %d err %v", code, n, err)
	}
	for i := range bodies {
		if bodies[i] != `{"amount":1}` || keys[i] != key {
			t.Fatalf("attempt %d: body %q key %q", i+1, bodies[i], keys[i])
		}
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(key) {
		t.Fatalf("key %q is not a UUID v4", key)
	}
	if wire.NewIdempotencyKey() == key {
		t.Fatal("two keys are equal")
	}
}

func TestOpenBreakerFailsFast(t *testing.T) {
	s := newServer(t, status(500))
	e := newEngine(config{Logger: quiet})
	b := e.Breaker("nova", countBreaker(10, 5, 50))
	if e.Breaker("nova", DefaultBreakerPolicy()) != b {
		t.Fatal("same name gave another breaker")
	}
	op := e.operation(operationSpec{Name: "list", Breaker: b, Retry: constRetry(2, time.Millisecond)})
	for range 5 {
		do(t, op, get(t, s))
	}
	if b.State() != StateOpen || s.calls.Load() != 10 {
		t.Fatalf("state %v calls %d", b.State(), s.calls.Load())
	}
	_, n, err := do(t, op, get(t, s))
	var coe *CircuitOpenError
	if !errors.Is(err, ErrCircuitOpen) || !errors.As(err, &coe) || coe.Breaker != "nova" || n != 0 || s.calls.Load() != 10 {
		t.Fatalf("err %v attempts %d calls %d", err, n, s.calls.Load())
	}
	if !coe.RetryAt.After(time.Now().Add(50*time.Second)) || !strings.Contains(err.Error(), `"nova"`) {
		t.Fatalf("RetryAt %v, message %q", coe.RetryAt, err)
	}
}

func TestTransportErrorWrapped(t *testing.T) {
	s := newServer(t, status(200))
	url := s.URL
	s.Close()
	e := newEngine(config{Logger: quiet})
	op := e.operation(operationSpec{Name: "get", Retry: constRetry(3, time.Millisecond)})
	req, _ := http.NewRequest("GET", url, nil)
	resp, n, err := op.Do(t.Context(), req)
	var ce *CallError
	if resp != nil || n != 3 || !errors.As(err, &ce) || ce.Reason != "retries exhausted" || !strings.Contains(err.Error(), "3 attempts") {
		t.Fatalf("resp %v attempts %d err %v", resp, n, err)
	}
}
