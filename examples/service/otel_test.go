package service_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/resgen/resgen/examples/service"
	resgenotel "github.com/resgen/resgen/otel"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestDashboardIsTraced: with resgenotel's observer on both clients, each
// downstream call of a dashboard request is a span under the request's own
// span (the observer parents on the call's context), and the breaker-state
// gauge reads both clients' breakers.
func TestDashboardIsTraced(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	obs, err := resgenotel.New(resgenotel.WithTracerProvider(tp), resgenotel.WithMeterProvider(mp))
	if err != nil {
		t.Fatal(err)
	}

	inv := newDownstream(t, failing(1, http.StatusServiceUnavailable, items))
	bill := newDownstream(t, billingMux(balance, nil))
	s, err := service.New(inv.URL, bill.URL, slog.New(slog.DiscardHandler), obs)
	if err != nil {
		t.Fatal(err)
	}
	obs.AddBreakers(s.Inventory.Breakers())
	obs.AddBreakers(s.Billing.Breakers())

	// The span an HTTP server middleware would start for the request.
	ctx, root := tp.Tracer("test").Start(context.Background(), "GET /dashboard")
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequestWithContext(ctx, http.MethodGet, "/dashboard?account=acct-7", nil))
	root.End()
	if rec.Code != http.StatusOK {
		t.Fatalf("dashboard: %d %s", rec.Code, rec.Body)
	}

	calls := 0
	for _, sp := range spans.Ended() {
		if sp.SpanContext().TraceID() != root.SpanContext().TraceID() {
			t.Errorf("span %q is not in the request's trace", sp.Name())
		}
		if sp.Parent().SpanID() == root.SpanContext().SpanID() {
			calls++
		}
	}
	if calls != 2 {
		t.Errorf("%d spans under the request's, want 2 (one per downstream call)", calls)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	points := -1
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if g, ok := m.Data.(metricdata.Gauge[int64]); ok && strings.Contains(m.Name, "breaker") {
				points = len(g.DataPoints)
			}
		}
	}
	if points != 2 {
		t.Errorf("breaker-state gauge: %d points, want 2 (inventory, billing)", points)
	}
}
