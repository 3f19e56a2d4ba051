package runtime

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	retry "github.com/avast/retry-go/v4"
	"github.com/resgen/resgen/runtime/wire"
	"github.com/sony/gobreaker/v2"
)

// cannedDoer answers every request with the same 200 response and no
// network: it isolates the wrapper's cost. With fresh set it returns a
// copy each time (one allocation, as any transport makes), for callers
// that replace the body.
type cannedDoer struct {
	resp  *http.Response
	fresh bool
}

func (d *cannedDoer) Do(*http.Request) (*http.Response, error) {
	if d.fresh {
		r := *d.resp
		return &r, nil
	}
	return d.resp, nil
}

// callDoer calls d through the interface the way the runtime does: not
// inlined, so the compiler cannot devirtualize it and keep a fresh
// response on the stack, which no real transport allows either.
//
//go:noinline
func callDoer(d Doer, req *http.Request) (*http.Response, error) { return d.Do(req) }

func newCanned() *cannedDoer {
	return &cannedDoer{resp: &http.Response{StatusCode: 200, Body: http.NoBody, Header: http.Header{}}}
}

func benchReq(b *testing.B) *http.Request {
	req, err := http.NewRequestWithContext(context.Background(), "GET", "http://example.invalid/x", nil)
	if err != nil {
		b.Fatal(err)
	}
	return req
}

// BenchmarkBareDoer is the floor: the canned Doer called directly.
func BenchmarkBareDoer(b *testing.B) {
	d, req := newCanned(), benchReq(b)
	var doer Doer = d
	b.ReportAllocs()
	for b.Loop() {
		resp, err := doer.Do(req)
		if err != nil || resp.StatusCode != 200 {
			b.Fatal(err)
		}
	}
}

// BenchmarkBareDoerTimeout is the floor with a timeout: the canned Doer
// (a fresh response each time, as in BenchmarkOperationDoTimeouts) behind
// the context.WithTimeout that any hand-written call with a timeout
// makes and cancels. BenchmarkOperationDoTimeouts minus this is the
// wrapper's own cost when the operation has timeouts.
func BenchmarkBareDoerTimeout(b *testing.B) {
	d, req := newCanned(), benchReq(b)
	d.fresh = true
	var doer Doer = d
	b.ReportAllocs()
	for b.Loop() {
		ctx, cancel := context.WithTimeout(req.Context(), 10*time.Second)
		resp, err := callDoer(doer, req)
		if err != nil || resp.StatusCode != 200 || ctx.Err() != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		cancel()
	}
}

// BenchmarkGobreakerExecute is gobreaker alone around the canned Doer.
func BenchmarkGobreakerExecute(b *testing.B) {
	d, req := newCanned(), benchReq(b)
	var doer Doer = d
	cb := gobreaker.NewCircuitBreaker[*http.Response](gobreaker.Settings{Name: "x"})
	b.ReportAllocs()
	for b.Loop() {
		resp, err := cb.Execute(func() (*http.Response, error) { return doer.Do(req) })
		if err != nil || resp.StatusCode != 200 {
			b.Fatal(err)
		}
	}
}

// BenchmarkRetryGoDo is retry-go alone (explicit options) around the Doer.
func BenchmarkRetryGoDo(b *testing.B) {
	d, req := newCanned(), benchReq(b)
	var doer Doer = d
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		resp, err := retry.DoWithData(func() (*http.Response, error) { return doer.Do(req) },
			retry.Attempts(3), retry.Context(ctx), retry.LastErrorOnly(true), retry.Delay(time.Millisecond))
		if err != nil || resp.StatusCode != 200 {
			b.Fatal(err)
		}
	}
}

// BenchmarkNaiveComposition is gobreaker.Execute around retry-go.
func BenchmarkNaiveComposition(b *testing.B) {
	d, req := newCanned(), benchReq(b)
	var doer Doer = d
	ctx := context.Background()
	cb := gobreaker.NewCircuitBreaker[*http.Response](gobreaker.Settings{Name: "x"})
	b.ReportAllocs()
	for b.Loop() {
		resp, err := cb.Execute(func() (*http.Response, error) {
			return retry.DoWithData(func() (*http.Response, error) { return doer.Do(req) },
				retry.Attempts(3), retry.Context(ctx), retry.LastErrorOnly(true), retry.Delay(time.Millisecond))
		})
		if err != nil || resp.StatusCode != 200 {
			b.Fatal(err)
		}
	}
}

func benchOperation(b *testing.B, timeout, total time.Duration) {
	d := newCanned()
	d.fresh = timeout > 0 || total > 0 // the body gets wrapped: no sharing
	e := newEngine(config{HTTPClient: d})
	op := e.operation(operationSpec{Name: "get", Method: "GET", Path: "/x",
		Breaker: e.Breaker("b", DefaultBreakerPolicy()), Retry: &[]RetryPolicy{DefaultRetryPolicy()}[0],
		Timeout: timeout, TotalTimeout: total})
	req := benchReq(b)
	ctx := req.Context()
	b.ReportAllocs()
	for b.Loop() {
		resp, _, err := op.Do(ctx, req)
		if err != nil || resp.StatusCode != 200 {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
}

// BenchmarkHandRequestTimeout is the hand-written baseline of
// BenchmarkOperationCallTimeouts: what a call with a timeout costs without
// resgen (context.WithTimeout, http.NewRequestWithContext with the URL
// joined from the server's, an Accept header, the canned Doer, the body
// drained and closed).
func BenchmarkHandRequestTimeout(b *testing.B) {
	d := newCanned()
	d.fresh = true
	var doer Doer = d
	server := benchServer
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		actx, cancel := context.WithTimeout(ctx, 10*time.Second)
		req, err := http.NewRequestWithContext(actx, "GET", server+"/x", nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Accept", "application/json")
		resp, err := callDoer(doer, req)
		if err != nil || resp.StatusCode != 200 {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		cancel()
	}
}

var benchServer = "http://example.invalid"

// benchResponse is a generated response type without declared bodies.
type benchResponse struct {
	wire.Response `resgen:"200"`
}

// BenchmarkOperationCallTimeouts is the generated path: a runtime.Request
// made into one Call with the default timeouts (10s/30s), breaker and
// retry policy, the response "decoded" into its typed struct.
func BenchmarkOperationCallTimeouts(b *testing.B) {
	d := newCanned()
	d.fresh = true
	e := newEngine(config{HTTPClient: d, Server: benchServer})
	op := e.operation(operationSpec{Name: "get", Method: "GET", Path: "/x", Accept: "application/json",
		Breaker: e.Breaker("b", DefaultBreakerPolicy()), Retry: &[]RetryPolicy{DefaultRetryPolicy()}[0],
		Timeout: 10 * time.Second, TotalTimeout: 30 * time.Second})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		req := wire.Request{Path: "/x"}
		resp, err := Call(ctx, op, &req, new(benchResponse), nil)
		if err != nil || resp.StatusCode != 200 {
			b.Fatal(err)
		}
	}
}

// BenchmarkOperationDo is resgen's call: breaker + retry, no timeouts.
func BenchmarkOperationDo(b *testing.B) { benchOperation(b, 0, 0) }

// BenchmarkOperationDoFleet is BenchmarkOperationDo with the breaker shared
// by a Fleet, the fleet's breaker closed: the call decides from the link's
// snapshot and counts its outcome in an atomic. The store is never on the
// call's path: its Syncs (one per SyncInterval, on the Fleet's goroutine)
// are reported per call.
func BenchmarkOperationDoFleet(b *testing.B) {
	store := &countingStore{}
	f := NewFleet(store, FleetOptions{Logger: quiet})
	defer f.Close()
	e := newEngine(config{HTTPClient: newCanned(), Fleet: f})
	br := e.Breaker("b", DefaultBreakerPolicy())
	op := e.operation(operationSpec{Name: "get", Method: "GET", Path: "/x",
		Breaker: br, Retry: &[]RetryPolicy{DefaultRetryPolicy()}[0]})
	for !br.link.isActive() {
		time.Sleep(time.Millisecond)
	}
	req := benchReq(b)
	ctx := req.Context()
	syncs := store.syncs.Load()
	b.ReportAllocs()
	for b.Loop() {
		resp, _, err := op.Do(ctx, req)
		if err != nil || resp.StatusCode != 200 {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
	b.ReportMetric(float64(store.syncs.Load()-syncs)/float64(b.N), "syncs/op")
}

// countingStore answers every Sync with a closed state and counts them.
type countingStore struct{ syncs atomic.Int64 }

func (s *countingStore) Sync(_ context.Context, reqs []FleetSync) ([]FleetState, error) {
	s.syncs.Add(1)
	out := make([]FleetState, len(reqs))
	for i, r := range reqs {
		out[i] = FleetState{Key: r.Key, Gen: 1024}
	}
	return out, nil
}

func (s *countingStore) Watch(ctx context.Context, ready func(), _ func(FleetState)) error {
	ready()
	<-ctx.Done()
	return nil
}

// BenchmarkOperationDoTimeouts adds the per-attempt and total timeouts
// (two contexts with timers, and the body wrapper that cancels them).
func BenchmarkOperationDoTimeouts(b *testing.B) { benchOperation(b, 10*time.Second, 30*time.Second) }

// BenchmarkOperationDoCallerDeadline has timeouts, but the caller's
// context ends first: the attempt needs no context of its own.
func BenchmarkOperationDoCallerDeadline(b *testing.B) {
	e := newEngine(config{HTTPClient: newCanned()})
	op := e.operation(operationSpec{Name: "get", Method: "GET", Path: "/x",
		Breaker: e.Breaker("b", DefaultBreakerPolicy()), Retry: &[]RetryPolicy{DefaultRetryPolicy()}[0],
		Timeout: time.Hour, TotalTimeout: 2 * time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	req := benchReq(b).WithContext(ctx)
	b.ReportAllocs()
	for b.Loop() {
		resp, _, err := op.Do(ctx, req)
		if err != nil || resp.StatusCode != 200 {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
}

// BenchmarkRejection is a call refused by an open breaker.
func BenchmarkRejection(b *testing.B) {
	e := newEngine(config{HTTPClient: &cannedDoer{resp: &http.Response{StatusCode: 500, Body: http.NoBody}}, Logger: quiet})
	p := countBreaker(1, 1, 50)
	br := e.Breaker("b", p)
	op := e.operation(operationSpec{Name: "get", Breaker: br})
	req := benchReq(b)
	op.Do(req.Context(), req)
	if br.State() != StateOpen {
		b.Fatal("not open")
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := op.Do(req.Context(), req); err == nil {
			b.Fatal("admitted")
		}
	}
}

// Loopback: one Operation.Do against a real local server, next to the
// same request sent with a plain http.Client, in the same run. timeout
// gives the runtime its default Timeout/TotalTimeout (10s/30s) and the
// plain call a context.WithTimeout of 10s, the hand-written equivalent.
func benchLoopback(b *testing.B, viaRuntime, timeout bool) {
	srv := newServer(b, func(_ int64, w http.ResponseWriter, _ *http.Request) { io.WriteString(w, `{"ok":true}`) })
	client := srv.Client()
	spec := operationSpec{Name: "get", Method: "GET", Path: "/x", Retry: &[]RetryPolicy{DefaultRetryPolicy()}[0]}
	if timeout {
		spec.Timeout, spec.TotalTimeout = 10*time.Second, 30*time.Second
	}
	e := newEngine(config{HTTPClient: client, Logger: quiet})
	spec.Breaker = e.Breaker("b", DefaultBreakerPolicy())
	op := e.operation(spec)
	b.ReportAllocs()
	for b.Loop() {
		ctx, cancel := context.Background(), context.CancelFunc(func() {})
		if timeout && !viaRuntime {
			ctx, cancel = context.WithTimeout(ctx, 10*time.Second)
		}
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/x", nil)
		var resp *http.Response
		var err error
		if viaRuntime {
			resp, _, err = op.Do(ctx, req)
		} else {
			resp, err = client.Do(req)
		}
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		cancel()
	}
}

func BenchmarkLoopbackPlainHTTP(b *testing.B)        { benchLoopback(b, false, false) }
func BenchmarkLoopbackRuntime(b *testing.B)          { benchLoopback(b, true, false) }
func BenchmarkLoopbackPlainHTTPTimeout(b *testing.B) { benchLoopback(b, false, true) }
func BenchmarkLoopbackRuntimeTimeouts(b *testing.B)  { benchLoopback(b, true, true) }
