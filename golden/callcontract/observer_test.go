package callcontract

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/resgen/resgen/runtime"
)

// endRecorder keeps the CallEnd events.
type endRecorder struct {
	runtime.NopObserver
	mu   sync.Mutex
	ends []runtime.CallEndEvent
}

func (r *endRecorder) CallStart(e runtime.CallStartEvent) context.Context { return e.Context }

func (r *endRecorder) CallEnd(e runtime.CallEndEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ends = append(r.ends, e)
}

// TestCallEndCarriesTheCallsError: the observer's CallEnd has the error
// the method returns, so a span or a metric fed by events marks an outage
// as a failure: the *StatusError of a 503 after every attempt, with the
// stop sentinel; nil for a success.
func TestCallEndCarriesTheCallsError(t *testing.T) {
	s := newServer(t, jsonAnswer(503, problem))
	rec := new(endRecorder)
	_, err := newClient(t, s, WithObserver(rec)).ListThings(t.Context())
	var se *runtime.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("err %v", err)
	}
	ok := newServer(t, jsonAnswer(200, `[]`))
	if _, err := newClient(t, ok, WithObserver(rec)).ListThings(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(rec.ends) != 2 {
		t.Fatalf("%d CallEnd events, want 2", len(rec.ends))
	}
	failed, passed := rec.ends[0], rec.ends[1]
	if failed.Err != err || failed.StatusCode != 503 || failed.Attempts != 3 || failed.StopErr != runtime.ErrAttemptsExhausted {
		t.Fatalf("CallEnd of the outage %+v; the call returned %v", failed, err)
	}
	if passed.Err != nil || passed.StatusCode != 200 || passed.StopErr != nil {
		t.Fatalf("CallEnd of the success %+v", passed)
	}
}
