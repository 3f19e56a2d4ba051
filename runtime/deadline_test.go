package runtime

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"
)

// attemptDeadlines runs one call of op's policy against a server answering
// the given statuses in turn and returns each attempt's context deadline,
// with the wall-clock times just before and after the call.
func attemptDeadlines(t *testing.T, spec OperationSpec, codes ...int) (dls []time.Time, before, after time.Time) {
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
	e := NewEngine(Config{HTTPClient: d, Logger: quiet})
	op := e.Operation(spec)
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
	dls, before, after := attemptDeadlines(t, OperationSpec{Name: "op", Timeout: time.Minute, TotalTimeout: time.Hour}, 200)
	within(t, "Timeout first", dls[0], before.Add(time.Minute), after.Add(time.Minute))

	dls, before, after = attemptDeadlines(t, OperationSpec{Name: "op", Timeout: time.Hour, TotalTimeout: time.Minute}, 200)
	within(t, "TotalTimeout first", dls[0], before.Add(time.Minute), after.Add(time.Minute))

	dls, before, after = attemptDeadlines(t, OperationSpec{Name: "op", TotalTimeout: time.Minute}, 200)
	within(t, "TotalTimeout only", dls[0], before.Add(time.Minute), after.Add(time.Minute))

	spec := OperationSpec{Name: "op", Retry: constRetry(3, 20*time.Millisecond), Timeout: time.Minute, TotalTimeout: time.Hour}
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
	e := NewEngine(Config{HTTPClient: d, Logger: quiet})
	op := e.Operation(OperationSpec{Name: "op", Timeout: time.Minute})
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
