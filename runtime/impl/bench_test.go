package impl_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
	"github.com/resgen/resgen/runtime/impl"
	"github.com/resgen/resgen/runtime/wire"
)

// freshDoer answers every request with a copy of one 200 response and no
// network (one allocation, as any transport makes).
type freshDoer struct{ resp http.Response }

func (d *freshDoer) Do(*http.Request) (*http.Response, error) {
	r := d.resp
	return &r, nil
}

type benchResponse struct {
	wire.Response `resgen:"200"`
}

// BenchmarkCallTimeouts is a generated method's call through impl.Call,
// the runtime behind an interface: the same call as the runtime's
// BenchmarkOperationCallTimeouts, which calls the operation directly, so
// the two differ by what the interface costs.
func BenchmarkCallTimeouts(b *testing.B) {
	d := &freshDoer{resp: http.Response{StatusCode: 200, Body: http.NoBody, Header: http.Header{}}}
	e := impl.NewEngine(impl.Config{HTTPClient: d, Server: "http://example.invalid"})
	retry := runtime.DefaultRetryPolicy()
	op := e.Operation(impl.OperationSpec{Name: "get", Method: "GET", Path: "/x", Accept: "application/json",
		Breaker: e.Breaker("b", runtime.DefaultBreakerPolicy()), Retry: &retry,
		Timeout: 10 * time.Second, TotalTimeout: 30 * time.Second})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		req := wire.Request{Path: "/x"}
		resp, err := impl.Call(ctx, op, &req, new(benchResponse), nil)
		if err != nil || resp.StatusCode != 200 {
			b.Fatal(err)
		}
	}
}
