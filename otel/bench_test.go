package resgenotel_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/resgen/resgen/golden/petstore"
	resgenotel "github.com/resgen/resgen/otel"
	"github.com/resgen/resgen/runtime"
)

// nopTransport answers every request at once with 200 and an empty list,
// so a benchmark measures the client and its observer, not the network.
type nopTransport struct{ header http.Header }

func (t nopTransport) Do(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, ProtoMajor: 1, Header: t.header, Body: io.NopCloser(strings.NewReader("[]"))}, nil
}

var jsonHeader = http.Header{"Content-Type": {"application/json"}}

// observers are the arms compared: the default NopObserver, this observer
// on OTel's no-op providers (what it costs by itself), and on the SDK
// (every span sampled and kept in memory, a manual metric reader).
func observers(tb testing.TB) map[string]runtime.Observer {
	noop, err := resgenotel.New(resgenotel.WithTracerProvider(tracenoop.NewTracerProvider()),
		resgenotel.WithMeterProvider(metricnoop.NewMeterProvider()))
	if err != nil {
		tb.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider() // samples every span, exports none
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	tb.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	sdk, err := resgenotel.New(resgenotel.WithTracerProvider(tp), resgenotel.WithMeterProvider(mp))
	if err != nil {
		tb.Fatal(err)
	}
	return map[string]runtime.Observer{"nop": runtime.NopObserver{}, "otel-noop": noop, "otel-sdk": sdk}
}

func benchClient(tb testing.TB, o runtime.Observer) *petstore.Client {
	c, err := petstore.NewClient("http://pets.invalid/v1", petstore.WithObserver(o),
		petstore.WithHTTPClient(nopTransport{jsonHeader}))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func callLoop(b *testing.B, c *petstore.Client) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.ListPets(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCall is one successful call per arm; BenchmarkCallRatio
// prints each arm's time over NopObserver's.
func BenchmarkCall(b *testing.B) {
	for _, name := range []string{"nop", "otel-noop", "otel-sdk"} {
		b.Run(name, func(b *testing.B) { callLoop(b, benchClient(b, observers(b)[name])) })
	}
}

func BenchmarkCallRatio(b *testing.B) {
	obs := observers(b)
	names := []string{"nop", "otel-noop", "otel-sdk"}
	clients := map[string]*petstore.Client{}
	for _, n := range names {
		clients[n] = benchClient(b, obs[n])
	}
	// Interleaved batches, so the machine's noise falls on every arm alike.
	const batch = 100
	spent := map[string]time.Duration{}
	ctx := context.Background()
	for b.Loop() {
		for _, n := range names {
			c, t0 := clients[n], time.Now()
			for range batch {
				if _, err := c.ListPets(ctx, nil); err != nil {
					b.Fatal(err)
				}
			}
			spent[n] += time.Since(t0)
		}
	}
	for _, n := range names[1:] {
		ratio := float64(spent[n]) / float64(spent["nop"])
		b.ReportMetric(ratio, n+"/nop")
		b.Logf("%s: %.0f ns/call, nop %.0f ns/call, ratio %.2f", n,
			float64(spent[n])/float64(b.N*batch), float64(spent["nop"])/float64(b.N*batch), ratio)
	}
}

// TestAllocationsOverNop: on OTel's no-op providers the observer costs
// two allocations a call: its call state (which is the context it returns)
// and the context the no-op tracer's Start makes; attribute sets and
// measurement options are made once per operation and outcome.
func TestAllocationsOverNop(t *testing.T) {
	obs := observers(t)
	ctx := context.Background()
	allocs := func(o runtime.Observer) float64 {
		c := benchClient(t, o)
		c.ListPets(ctx, nil) // warm the caches
		return testing.AllocsPerRun(200, func() {
			if _, err := c.ListPets(ctx, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
	nop, otel := allocs(obs["nop"]), allocs(obs["otel-noop"])
	if otel-nop > 2 {
		t.Errorf("the observer adds %.1f allocations a call over NopObserver (%.1f), want at most 2", otel-nop, nop)
	}
}
