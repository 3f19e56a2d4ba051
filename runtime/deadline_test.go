package runtime

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"
)

// attemptDeadlines runs one call of op's policy against a server answering
// the given statuses in turn and returns each attempt's context deadline,
// with the wall-clock times just before and after the call.
func attemptDeadlines(t *testing.T, spec operationSpec, codes ...int) (dls []time.Time, before, after time.Time) {
	t.Helper()
	s := scripted(t, codes...)
	inner := s.Client()
	var mu sync.Mutex
	d := doerFunc(func(r *http.Request) (*http.Response, error) {
		dl, ok := r.Context().Deadline()
		if !ok {
			t.Error("attempt without a deadline")
		}
		mu.Lock()
		dls = append(dls, dl)
		mu.Unlock()
		return inner.Do(r)
	})
	e := newEngine(config{HTTPClient: d, Logger: quiet})
	op := e.operation(spec)
	before = time.Now()
	do(t, op, get(t, s))
	after = time.Now()
	return dls, before, after
}

func within(t *testing.T, what string, got, lo, hi time.Time) {
	t.Helper()
	if got.Before(lo) || got.After(hi) {
		t.Errorf("%s: deadline %v not in [%v, %v]", what, got, lo, hi)
	}
}

// The deadlines the fast path builds from one clock reading (Engine.mono)
// are the ones time.Now would give: the first attempt's is the call's
// start plus the earlier of Timeout and TotalTimeout, and a retry's counts
// its Timeout from its own start, within the call's TotalTimeout.
func TestAttemptDeadlines(t *testing.T) {
	dls, before, after := attemptDeadlines(t, operationSpec{Name: "op", Timeout: time.Minute, TotalTimeout: time.Hour}, 200)
	within(t, "Timeout first", dls[0], before.Add(time.Minute), after.Add(time.Minute))

	dls, before, after = attemptDeadlines(t, operationSpec{Name: "op", Timeout: time.Hour, TotalTimeout: time.Minute}, 200)
	within(t, "TotalTimeout first", dls[0], before.Add(time.Minute), after.Add(time.Minute))

	dls, before, after = attemptDeadlines(t, operationSpec{Name: "op", TotalTimeout: time.Minute}, 200)
	within(t, "TotalTimeout only", dls[0], before.Add(time.Minute), after.Add(time.Minute))

	spec := operationSpec{Name: "op", Retry: constRetry(3, 20*time.Millisecond), Timeout: time.Minute, TotalTimeout: time.Hour}
	dls, before, after = attemptDeadlines(t, spec, 503, 200)
	if len(dls) != 2 {
		t.Fatalf("%d attempts; want 2", len(dls))
	}
	within(t, "first attempt", dls[0], before.Add(time.Minute), after.Add(time.Minute))
	within(t, "second attempt", dls[1], dls[0].Add(20*time.Millisecond), after.Add(time.Minute))

	spec.Timeout, spec.TotalTimeout = time.Hour, time.Minute
	dls, _, _ = attemptDeadlines(t, spec, 503, 200)
	if !dls[1].Equal(dls[0]) {
		t.Errorf("retry under TotalTimeout: deadline %v, first attempt's %v; want the call's one deadline", dls[1], dls[0])
	}
}

// The first attempt's request copy carries the attempt's context, and
// the body wrapper allocated with it cancels that context on Close.
func TestFirstAttemptRequestCopy(t *testing.T) {
	s := scripted(t, 200)
	inner := s.Client()
	var sent *http.Request
	d := doerFunc(func(r *http.Request) (*http.Response, error) {
		sent = r
		return inner.Do(r)
	})
	e := newEngine(config{HTTPClient: d, Logger: quiet})
	op := e.operation(operationSpec{Name: "op", Timeout: time.Minute})
	req := get(t, s)
	resp, _, err := op.Do(req.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if sent == req || req.Context() != context.Background() {
		t.Fatal("the caller's request was changed instead of copied")
	}
	if resp.Request != sent || sent.Context().Err() != nil {
		t.Fatal("response not tied to the live attempt request")
	}
	resp.Body.Close()
	if sent.Context().Err() == nil {
		t.Fatal("attempt context alive after Close")
	}
}

// When the caller's deadline comes before both timeouts, the attempt is
// sent with the caller's context and request as they are: no context, no
// copy, no body wrapper; a call that runs past it is the caller's
// cancellation (not recorded, not retried), as with a child context. (A
// POST: a GET is sent as a copy that carries its resend gate, resend.go.)
func TestCallerDeadlineFirstNeedsNoAttemptContext(t *testing.T) {
	s := newServer(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		if n == 2 {
			<-r.Context().Done()
		}
	})
	inner := s.Client()
	var sent *http.Request
	d := doerFunc(func(r *http.Request) (*http.Response, error) {
		sent = r
		return inner.Do(r)
	})
	e := newEngine(config{HTTPClient: d, Logger: quiet})
	b := e.Breaker("b", countBreaker(10, 1, 50))
	op := e.operation(operationSpec{Name: "op", Breaker: b, Retry: constRetry(3, time.Millisecond), Timeout: time.Minute, TotalTimeout: time.Hour})

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL, nil)
	resp, _, err := op.Do(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if sent != req || sent.Context() != ctx {
		t.Fatal("the attempt did not send the caller's request and context")
	}
	if _, ok := resp.Body.(*cancelBody); ok {
		t.Fatal("body wrapped with nothing to cancel")
	}
	resp.Body.Close()

	// A later caller deadline: the attempt gets its own context.
	late, cancelLate := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancelLate()
	ctx2, cancel2 := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel2()
	req, _ = http.NewRequestWithContext(late, "POST", s.URL, nil)
	_, n, err := op.Do(ctx2, req)
	if n != 1 || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrAttemptTimeout) {
		t.Fatalf("past the caller's deadline: %d attempts, %v; want 1 attempt ended by the caller's deadline", n, err)
	}
	if sent.Context() != ctx2 {
		t.Fatal("the attempt did not use the caller's context")
	}
	if m := b.Metrics(); m.Calls != 1 || m.Failed != 0 {
		t.Fatalf("breaker %+v: the caller's deadline must not be recorded", m)
	}
}
