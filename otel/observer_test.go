package resgenotel_test

// The observer through a generated client (golden/petstore: listPets is a
// GET retried by "quick", 3 attempts; createPets a POST never retried;
// both behind the shared breaker "pets") against a loopback server, read
// back with the OTel SDK's span recorder and manual metric reader.

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"

	"github.com/resgen/resgen/golden/petstore"
	resgenotel "github.com/resgen/resgen/otel"
	"github.com/resgen/resgen/runtime"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// rig is an observer reporting to an in-memory SDK pipeline.
type rig struct {
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	obs    *resgenotel.Observer
}

func newRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	t.Cleanup(func() { _ = r.tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	obs, err := resgenotel.New(resgenotel.WithTracerProvider(r.tp), resgenotel.WithMeterProvider(mp))
	if err != nil {
		t.Fatal(err)
	}
	r.obs = obs
	return r
}

// server answers with the statuses in turn (the last one repeats).
type server struct {
	mu       sync.Mutex
	statuses []int
	requests int
}

func (s *server) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	st := s.statuses[0]
	if len(s.statuses) > 1 {
		s.statuses = s.statuses[1:]
	}
	s.requests++
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(st)
	if st < 300 {
		w.Write([]byte(`[]`))
	} else {
		w.Write([]byte(`{"code":1,"message":"no"}`))
	}
}

func (s *server) answer(statuses ...int) {
	s.mu.Lock()
	s.statuses = statuses
	s.mu.Unlock()
}

// newClient starts a server answering statuses and a petstore client of
// it observed by r (its breakers registered), with overrides if given.
func (r *rig) newClient(t *testing.T, overrides string, statuses ...int) (*petstore.Client, *server) {
	t.Helper()
	s := &server{statuses: statuses}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	opts := []petstore.Option{petstore.WithObserver(r.obs), petstore.WithHTTPClient(hs.Client())}
	if overrides != "" {
		o, err := runtime.ParseOverrides([]byte(overrides))
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, petstore.WithOverrides(o))
	}
	c, err := petstore.NewClient(hs.URL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	r.obs.AddBreakers(c.Breakers())
	t.Cleanup(hs.Client().CloseIdleConnections)
	return c, s
}

func (r *rig) collect(t *testing.T) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

func find(rm metricdata.ResourceMetrics, name string) (metricdata.Metrics, bool) {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m, true
			}
		}
	}
	return metricdata.Metrics{}, false
}

// count sums a counter's points whose attributes include every one of
// with (0 when the counter has none).
func count(t *testing.T, rm metricdata.ResourceMetrics, name string, with ...attribute.KeyValue) int64 {
	t.Helper()
	m, ok := find(rm, name)
	if !ok {
		return 0
	}
	sum, ok := m.Data.(metricdata.Sum[int64])
	if !ok {
		t.Fatalf("%s is a %T, not an int64 sum", name, m.Data)
	}
	var n int64
	for _, p := range sum.DataPoints {
		if hasAll(p.Attributes, with) {
			n += p.Value
		}
	}
	return n
}

func hasAll(set attribute.Set, with []attribute.KeyValue) bool {
	for _, kv := range with {
		if v, ok := set.Value(kv.Key); !ok || v != kv.Value {
			return false
		}
	}
	return true
}

// histogram returns a float histogram's points.
func histogram(t *testing.T, rm metricdata.ResourceMetrics, name string) (metricdata.Metrics, []metricdata.HistogramDataPoint[float64]) {
	t.Helper()
	m, ok := find(rm, name)
	if !ok {
		t.Fatalf("no metric %s", name)
	}
	h, ok := m.Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("%s is a %T", name, m.Data)
	}
	return m, h.DataPoints
}

// gauge reads the breaker-state gauge of breaker.
func gauge(t *testing.T, rm metricdata.ResourceMetrics, breaker string) int64 {
	t.Helper()
	m, ok := find(rm, "resgen.client.breaker.state")
	if !ok {
		t.Fatal("no breaker-state gauge")
	}
	g := m.Data.(metricdata.Gauge[int64])
	for _, p := range g.DataPoints {
		if v, _ := p.Attributes.Value(resgenotel.KeyBreaker); v.AsString() == breaker {
			return p.Value
		}
	}
	t.Fatalf("no gauge point for breaker %q in %v", breaker, g.DataPoints)
	return -1
}

func attr(s sdktrace.ReadOnlySpan, k attribute.Key) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if kv.Key == k {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func wantAttr(t *testing.T, s sdktrace.ReadOnlySpan, want attribute.KeyValue) {
	t.Helper()
	if v, ok := attr(s, want.Key); !ok || v != want.Value {
		t.Errorf("span %q: %s = %v (present %v), want %v", s.Name(), want.Key, v.String(), ok, want.Value.String())
	}
}

func noAttr(t *testing.T, s sdktrace.ReadOnlySpan, k attribute.Key) {
	t.Helper()
	if v, ok := attr(s, k); ok {
		t.Errorf("span %q: %s = %v, want none", s.Name(), k, v.String())
	}
}

// tree splits the ended spans into the calls (named by operation) and the
// children of each.
func tree(spans []sdktrace.ReadOnlySpan) (calls []sdktrace.ReadOnlySpan, children map[trace.SpanID][]sdktrace.ReadOnlySpan) {
	children = map[trace.SpanID][]sdktrace.ReadOnlySpan{}
	ids := map[trace.SpanID]bool{}
	for _, s := range spans {
		ids[s.SpanContext().SpanID()] = true
	}
	for _, s := range spans {
		if p := s.Parent().SpanID(); ids[p] {
			children[p] = append(children[p], s)
		} else {
			calls = append(calls, s)
		}
	}
	for _, c := range children {
		slices.SortFunc(c, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	}
	return calls, children
}

// (1) A call retried twice: one call span, three attempt spans under it
// with their statuses and retry reasons; calls 1, attempts 3, retries 2.
func TestRetriedTwice(t *testing.T) {
	r := newRig(t)
	c, _ := r.newClient(t, "", 503, 503, 200)
	if _, err := c.ListPets(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	calls, children := tree(r.spans.Ended())
	if len(calls) != 1 {
		t.Fatalf("%d call spans, want 1", len(calls))
	}
	call := calls[0]
	if call.Name() != "listPets" || call.SpanKind() != trace.SpanKindClient {
		t.Errorf("call span %q kind %v, want listPets, client", call.Name(), call.SpanKind())
	}
	for _, kv := range []attribute.KeyValue{resgenotel.KeyOperation.String("listPets"), resgenotel.KeyBreaker.String("pets"),
		semconv.HTTPRequestMethodGet, semconv.URLTemplate("/pets"), semconv.HTTPResponseStatusCode(200),
		resgenotel.KeyAttempts.Int(3), semconv.ServerAddress("127.0.0.1")} {
		wantAttr(t, call, kv)
	}
	noAttr(t, call, semconv.ErrorTypeKey)
	noAttr(t, call, resgenotel.KeyStopReason)
	if call.Status().Code != codes.Unset {
		t.Errorf("call status %v, want unset", call.Status())
	}
	attempts := children[call.SpanContext().SpanID()]
	if len(attempts) != 3 {
		t.Fatalf("%d attempt spans, want 3", len(attempts))
	}
	for i, a := range attempts {
		n := i + 1
		if a.Name() != "GET /pets" || a.SpanKind() != trace.SpanKindClient {
			t.Errorf("attempt %d: span %q kind %v", n, a.Name(), a.SpanKind())
		}
		wantAttr(t, a, resgenotel.KeyAttempt.Int(n))
		wantAttr(t, a, semconv.HTTPRequestMethodGet)
		wantAttr(t, a, semconv.URLTemplate("/pets"))
		if n > 1 {
			wantAttr(t, a, semconv.HTTPRequestResendCount(n-1))
		} else {
			noAttr(t, a, semconv.HTTPRequestResendCountKey)
		}
		if a.StartTime().Before(call.StartTime()) || a.EndTime().After(call.EndTime()) || a.EndTime().Before(a.StartTime()) {
			t.Errorf("attempt %d [%v, %v] outside its call [%v, %v]", n, a.StartTime(), a.EndTime(), call.StartTime(), call.EndTime())
		}
		if i > 0 && a.StartTime().Before(attempts[i-1].EndTime()) {
			t.Errorf("attempt %d starts before attempt %d ended", n, i)
		}
		if n < 3 {
			wantAttr(t, a, semconv.HTTPResponseStatusCode(503))
			wantAttr(t, a, semconv.ErrorTypeKey.String("503"))
			wantAttr(t, a, resgenotel.KeyRetryReason.String("status 503"))
			if a.Status().Code != codes.Error {
				t.Errorf("attempt %d status %v, want error", n, a.Status())
			}
		} else {
			wantAttr(t, a, semconv.HTTPResponseStatusCode(200))
			noAttr(t, a, semconv.ErrorTypeKey)
			noAttr(t, a, resgenotel.KeyRetryReason)
		}
	}

	rm := r.collect(t)
	op := resgenotel.KeyOperation.String("listPets")
	if n := count(t, rm, "resgen.client.calls", op); n != 1 {
		t.Errorf("calls = %d, want 1", n)
	}
	if n := count(t, rm, "resgen.client.attempts", op); n != 3 {
		t.Errorf("attempts = %d, want 3", n)
	}
	if n := count(t, rm, "resgen.client.attempts", op, semconv.HTTPResponseStatusCode(503), semconv.ErrorTypeKey.String("503")); n != 2 {
		t.Errorf("attempts with 503 = %d, want 2", n)
	}
	if n := count(t, rm, "resgen.client.retries", op, resgenotel.KeyRetryReason.String("status 503")); n != 2 {
		t.Errorf("retries = %d, want 2", n)
	}
	if n := count(t, rm, "resgen.client.rejections"); n != 0 {
		t.Errorf("rejections = %d, want 0", n)
	}
	// The durations follow the HTTP client conventions: seconds, the
	// advised buckets (checked against semconv's generated instrument).
	m, points := histogram(t, rm, "http.client.request.duration")
	var total uint64
	for _, p := range points {
		total += p.Count
		if !slices.Equal(p.Bounds, []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}) {
			t.Errorf("bounds %v", p.Bounds)
		}
	}
	if m.Unit != "s" || total != 3 {
		t.Errorf("http.client.request.duration: unit %q, %d attempts, want s, 3", m.Unit, total)
	}
	m, points = histogram(t, rm, "resgen.client.call.duration")
	if m.Unit != "s" || len(points) != 1 || points[0].Count != 1 || points[0].Sum <= 0 {
		t.Errorf("resgen.client.call.duration: unit %q, points %+v", m.Unit, points)
	}
	if g := gauge(t, rm, "pets"); g != 0 {
		t.Errorf("breaker state %d, want 0 (closed)", g)
	}
}

// fragile makes the pets breaker open after one failed call, wait 40ms in
// open and close after one good trial.
const fragile = `{"breakers": {"pets": {"windowSize": 1, "minimumCalls": 1, "waitInOpen": "40ms", "halfOpenCalls": 1}}}`

// (2) A call an open breaker refuses: a span with the rejection, no
// attempt; rejections 1, attempts 0.
func TestRejectedByOpenBreaker(t *testing.T) {
	r := newRig(t)
	c, s := r.newClient(t, `{"breakers": {"pets": {"windowSize": 1, "minimumCalls": 1}}}`, 500)
	// createPets is never retried: one failed attempt opens the breaker.
	if _, err := c.CreatePets(context.Background(), petstore.Pet{Name: "x"}); err == nil {
		t.Fatal("a 500 returned no error")
	}
	_, err := c.ListPets(context.Background(), nil)
	if !errors.Is(err, runtime.ErrCircuitOpen) {
		t.Fatalf("err = %v, want a circuit-open error", err)
	}
	if s.requests != 1 {
		t.Fatalf("%d requests, want 1", s.requests)
	}
	calls, children := tree(r.spans.Ended())
	if len(calls) != 2 {
		t.Fatalf("%d call spans, want 2", len(calls))
	}
	opener, refused := calls[0], calls[1]
	if opener.Name() != "createPets" || refused.Name() != "listPets" {
		t.Fatalf("call spans %q, %q", opener.Name(), refused.Name())
	}
	if n := len(children[refused.SpanContext().SpanID()]); n != 0 {
		t.Errorf("the refused call has %d attempt spans, want 0", n)
	}
	if refused.Status().Code != codes.Error || !strings.Contains(refused.Status().Description, "open") {
		t.Errorf("refused call status %v, want an error that says the breaker is open", refused.Status())
	}
	wantAttr(t, refused, semconv.ErrorTypeKey.String(resgenotel.ErrorCircuitOpen))
	wantAttr(t, refused, resgenotel.KeyAttempts.Int(0))
	wantAttr(t, refused, resgenotel.KeyStopReason.String(runtime.ErrCircuitOpen.Error()))
	noAttr(t, refused, semconv.HTTPResponseStatusCodeKey)
	// A refused call is labelled like any other (its CallStart comes from the breaker).
	wantAttr(t, refused, semconv.URLTemplate("/pets"))
	wantAttr(t, refused, semconv.HTTPRequestMethodGet)
	wantAttr(t, refused, semconv.ServerAddress("127.0.0.1"))
	ev := refused.Events()
	if len(ev) != 1 || ev[0].Name != "breaker rejected call" ||
		!hasAll(attribute.NewSet(ev[0].Attributes...), []attribute.KeyValue{resgenotel.KeyBreaker.String("pets"), resgenotel.KeyBreakerState.String("open")}) {
		t.Errorf("refused call events %+v, want one rejection by the open breaker pets", ev)
	}
	// The call that opened it says so.
	if !slices.ContainsFunc(opener.Events(), func(e sdktrace.Event) bool {
		return e.Name == "breaker state change" && hasAll(attribute.NewSet(e.Attributes...),
			[]attribute.KeyValue{resgenotel.KeyFrom.String("closed"), resgenotel.KeyTo.String("open")})
	}) {
		t.Errorf("the opening call's events %+v lack closed -> open", opener.Events())
	}
	wantAttr(t, opener, resgenotel.KeyStopReason.String(runtime.ErrNotRetrySafe.Error()))
	wantAttr(t, opener, semconv.ErrorTypeKey.String("500"))

	rm := r.collect(t)
	list := resgenotel.KeyOperation.String("listPets")
	if n := count(t, rm, "resgen.client.rejections", list, resgenotel.KeyBreakerState.String("open")); n != 1 {
		t.Errorf("rejections = %d, want 1", n)
	}
	if n := count(t, rm, "resgen.client.attempts", list); n != 0 {
		t.Errorf("listPets attempts = %d, want 0", n)
	}
	if n := count(t, rm, "resgen.client.calls", list, semconv.ErrorTypeKey.String(resgenotel.ErrorCircuitOpen)); n != 1 {
		t.Errorf("refused calls = %d, want 1", n)
	}
	if n := count(t, rm, "resgen.client.attempts"); n != 1 {
		t.Errorf("attempts = %d, want 1 (createPets)", n)
	}
	if g := gauge(t, rm, "pets"); g != 2 {
		t.Errorf("breaker state %d, want 2 (open)", g)
	}
}

// (3) A breaker that opens and recovers: the gauge, read with no call
// between, is 2 while open, 1 once the wait in open has passed, 0 after
// the trial call closed it; each change is counted, and the calls that
// caused them carry it.
func TestBreakerOpensAndRecovers(t *testing.T) {
	r := newRig(t)
	c, s := r.newClient(t, fragile, 500)
	if _, err := c.CreatePets(context.Background(), petstore.Pet{Name: "x"}); err == nil {
		t.Fatal("a 500 returned no error")
	}
	if g := gauge(t, r.collect(t), "pets"); g != 2 {
		t.Fatalf("breaker state %d right after the failure, want 2 (open)", g)
	}
	// Idle: only collections until the breaker's timer moves it to half-open.
	deadline := time.Now().Add(5 * time.Second)
	for gauge(t, r.collect(t), "pets") != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the gauge never read 1 (half-open) on the idle client")
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.answer(200)
	if _, err := c.ListPets(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	rm := r.collect(t)
	if g := gauge(t, rm, "pets"); g != 0 {
		t.Errorf("breaker state %d after the trial succeeded, want 0 (closed)", g)
	}
	b := resgenotel.KeyBreaker.String("pets")
	for _, tr := range [][2]string{{"closed", "open"}, {"open", "half-open"}, {"half-open", "closed"}} {
		if n := count(t, rm, "resgen.client.breaker.transitions", b, resgenotel.KeyFrom.String(tr[0]), resgenotel.KeyTo.String(tr[1])); n != 1 {
			t.Errorf("transitions %s -> %s = %d, want 1", tr[0], tr[1], n)
		}
	}
	calls, _ := tree(r.spans.Ended())
	if len(calls) != 2 {
		t.Fatalf("%d call spans, want 2", len(calls))
	}
	trial := calls[1]
	wantAttr(t, trial, resgenotel.KeyHalfOpenTrial.Bool(true))
	noAttr(t, calls[0], resgenotel.KeyHalfOpenTrial)
	if !slices.ContainsFunc(trial.Events(), func(e sdktrace.Event) bool {
		return e.Name == "breaker state change" && hasAll(attribute.NewSet(e.Attributes...),
			[]attribute.KeyValue{resgenotel.KeyFrom.String("half-open"), resgenotel.KeyTo.String("closed")})
	}) {
		t.Errorf("the trial call's events %+v lack half-open -> closed", trial.Events())
	}
}

// recordingDoer sends through next and keeps the span each request's
// context carries, as a tracing transport would see it.
type recordingDoer struct {
	next  runtime.Doer
	mu    sync.Mutex
	spans []trace.SpanContext
}

func (d *recordingDoer) Do(req *http.Request) (*http.Response, error) {
	d.mu.Lock()
	d.spans = append(d.spans, trace.SpanContextFromContext(req.Context()))
	d.mu.Unlock()
	return d.next.Do(req)
}

// (4) Parenting: the call span is a child of the span in the caller's
// context, and every attempt's request carries the call span.
func TestCallSpanIsChildOfCallersSpan(t *testing.T) {
	r := newRig(t)
	s := &server{statuses: []int{503, 200}}
	hs := httptest.NewServer(s)
	defer hs.Close()
	doer := &recordingDoer{next: hs.Client()}
	c, err := petstore.NewClient(hs.URL, petstore.WithObserver(r.obs), petstore.WithHTTPClient(doer))
	if err != nil {
		t.Fatal(err)
	}
	ctx, parent := r.tp.Tracer("caller").Start(context.Background(), "handler")
	// The server's [] is not a Pet: the call ends with a decode error.
	var de *runtime.DecodeError
	if _, err := c.ShowPetByID(ctx, "7"); !errors.As(err, &de) {
		t.Fatalf("err = %v, want a *runtime.DecodeError", err)
	}
	parent.End()
	var call sdktrace.ReadOnlySpan
	for _, sp := range r.spans.Ended() {
		if sp.Name() == "showPetById" {
			call = sp
		}
	}
	if call == nil {
		t.Fatal("no call span")
	}
	if call.Parent().SpanID() != parent.SpanContext().SpanID() || call.SpanContext().TraceID() != parent.SpanContext().TraceID() {
		t.Errorf("call span's parent %v, want the caller's span %v", call.Parent().SpanID(), parent.SpanContext().SpanID())
	}
	wantAttr(t, call, semconv.URLTemplate("/pets/{petId}"))
	wantAttr(t, call, semconv.ErrorTypeKey.String(resgenotel.ErrorDecode))
	if len(doer.spans) != 2 {
		t.Fatalf("%d requests, want 2", len(doer.spans))
	}
	for i, sc := range doer.spans {
		if sc.SpanID() != call.SpanContext().SpanID() {
			t.Errorf("request %d carries span %v, want the call's %v", i+1, sc.SpanID(), call.SpanContext().SpanID())
		}
	}
}

// Concurrent calls, collections and AddBreakers on one observer (run with
// -race): every call is counted once.
func TestConcurrentCalls(t *testing.T) {
	r := newRig(t)
	c, _ := r.newClient(t, "", 200)
	const workers, calls = 8, 25
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range calls {
				if _, err := c.ListPets(context.Background(), nil); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 10 {
			r.obs.AddBreakers(c.Breakers())
			var rm metricdata.ResourceMetrics
			if err := r.reader.Collect(context.Background(), &rm); err != nil {
				t.Error(err) // not Fatal: this is not the test's goroutine
			}
		}
	})
	wg.Wait()
	rm := r.collect(t)
	if n := count(t, rm, "resgen.client.calls"); n != workers*calls {
		t.Errorf("calls = %d, want %d", n, workers*calls)
	}
	if n := len(r.spans.Ended()); n != 2*workers*calls {
		t.Errorf("%d spans, want %d (a call and an attempt each)", n, 2*workers*calls)
	}
	m, _ := find(rm, "resgen.client.breaker.state")
	if n := len(m.Data.(metricdata.Gauge[int64]).DataPoints); n != 1 {
		t.Errorf("%d gauge points for a breaker added 11 times, want 1", n)
	}
}
