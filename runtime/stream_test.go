package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime/wire"
)

type tick struct {
	N   int    `json:"n"`
	Pad string `json:"pad"`
}

type sseResponse struct {
	wire.Response
	Events *Stream[tick] `resgen:"200,sse"`
	JSON   *tick         `resgen:"default"`
}

type textStreamResponse struct {
	wire.Response
	Events *Stream[string] `resgen:"200,sse"`
}

type jsonlResponse struct {
	wire.Response
	Lines *Stream[tick] `resgen:"200,jsonl"`
}

// streamEngine is an engine whose server is s.
func streamEngine(s *server) *engine {
	return newEngine(config{HTTPClient: s.Client(), Server: s.URL, Logger: quiet})
}

// openStream calls op for an SSE stream, closed when the test ends.
func openStream(t *testing.T, op *operation) *sseResponse {
	t.Helper()
	resp, err := Call(context.Background(), op, &wire.Request{Path: "/x"}, new(sseResponse), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Events.Close() })
	return resp
}

// breakingSSE serves events 1..total, from the one after Last-Event-ID.
// Each connection breaks after a random number of events (at most
// maxRun), in the middle of an event: the handler hijacks the connection
// and closes it, so the client reads a chunked body cut short. On a
// resume it sometimes sends the last event or a few more again, which the
// client must drop. It returns the number of connections made.
type breakingSSE struct {
	total, maxRun int
	restart       bool // ignore Last-Event-ID: start over, each run longer
	mu            sync.Mutex
	rnd           *rand.Rand
	conns         int
	ids           []string // Last-Event-ID of each connection
}

func (b *breakingSSE) serve(_ int64, w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	b.conns++
	b.ids = append(b.ids, r.Header.Get("Last-Event-ID"))
	from := 1
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		n, _ := strconv.Atoi(id)
		from = n + 1
		switch b.rnd.IntN(3) {
		case 1:
			from = n // the last one again
		case 2:
			from = max(1, n-b.rnd.IntN(5)) // a few again
		}
	}
	run := 1 + b.rnd.IntN(b.maxRun)
	if b.restart {
		from, run = 1, b.conns*b.maxRun
	}
	cut := b.rnd.IntN(3)
	b.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, ": hello\nretry: 1\n\n")
	for n := from; n <= b.total; n++ {
		if n-from == run {
			// Break mid-event: part of it written, then the connection closed.
			partial := []string{"id: " + strconv.Itoa(n) + "\n", "id: " + strconv.Itoa(n) + "\ndata: {\"n\":", "id: " + strconv.Itoa(n) + "\ndata: {\"n\":1}\n"}[cut]
			io.WriteString(w, partial)
			w.(http.Flusher).Flush()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		fmt.Fprintf(w, "id: %d\nevent: tick\ndata: {\"n\":%d,\n", n, n)
		fmt.Fprintf(w, "data: \"pad\":\"%s\"}\n\n", "xyz")
		if n%50 == 0 {
			w.(http.Flusher).Flush()
		}
	}
}

// TestSSEResumeDeliversEveryEventOnce: a stream of 10,000 events broken
// at random points mid-event, with resume on, yields every event exactly
// once, in order; without resume the first break is an error.
func TestSSEResumeDeliversEveryEventOnce(t *testing.T) {
	const total = 10000
	b := &breakingSSE{total: total, maxRun: 500, rnd: rand.New(rand.NewPCG(1, 2))}
	s := newServer(t, b.serve)
	e := streamEngine(s)
	op := e.operation(operationSpec{Name: "events", Method: "GET", Path: "/x", Resume: true,
		Retry: constRetry(3, time.Millisecond), Timeout: time.Second, TotalTimeout: 2 * time.Second})
	resp := openStream(t, op)
	next := 1
	for ev, err := range resp.Events.Events() {
		if err != nil {
			t.Fatalf("after event %d: %v", next-1, err)
		}
		if ev.Data.N != next || ev.ID != strconv.Itoa(next) || ev.Event != "tick" || ev.Data.Pad != "xyz" {
			t.Fatalf("got event %+v; want number %d", ev, next)
		}
		next++
	}
	if next != total+1 {
		t.Fatalf("the stream ended after %d events; want %d", next-1, total)
	}
	if b.conns < 20 {
		t.Fatalf("%d connections; the test wants several breaks", b.conns)
	}
	if b.ids[0] != "" || b.ids[1] == "" {
		t.Errorf("Last-Event-ID of the first two connections: %q; want none, then the last id", b.ids[:2])
	}
	t.Logf("%d events over %d connections", total, b.conns)

	// The same stream without resume: the first break ends it with an error.
	b = &breakingSSE{total: total, maxRun: 500, rnd: rand.New(rand.NewPCG(1, 2))}
	s = newServer(t, b.serve)
	op = streamEngine(s).operation(operationSpec{Name: "events", Method: "GET", Path: "/x", Retry: constRetry(3, time.Millisecond)})
	resp = openStream(t, op)
	n := 0
	var last error
	for _, err := range resp.Events.Events() {
		if err != nil {
			last = err
			break
		}
		n++
	}
	var se *StreamError
	if !errors.As(last, &se) || !errors.Is(last, io.ErrUnexpectedEOF) && !errors.Is(last, errPartialEvent) || se.Events != n || n >= total {
		t.Fatalf("after %d events: %v; want a StreamError for an unexpected end", n, last)
	}
	if b.conns != 1 {
		t.Errorf("%d connections without resume; want 1", b.conns)
	}
}

// A not retry-safe operation never resumes, even with Resume set.
func TestSSENoResumeWhenNotRetrySafe(t *testing.T) {
	b := &breakingSSE{total: 100, maxRun: 10, rnd: rand.New(rand.NewPCG(3, 4))}
	s := newServer(t, b.serve)
	op := streamEngine(s).operation(operationSpec{Name: "events", Method: "POST", Path: "/x", Resume: true, NotRetrySafe: true})
	resp := openStream(t, op)
	var last error
	for _, err := range resp.Events.Events() {
		last = err
	}
	if last == nil || b.conns != 1 {
		t.Fatalf("%d connections, last error %v; want 1 and a break", b.conns, last)
	}
}

// A string stream yields the raw data text; an event that does not
// decode comes with a DecodeError and the range goes on.
func TestSSETextAndDecodeErrors(t *testing.T) {
	s := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: not json\n\ndata: {\"n\":2}\n\n")
	})
	e := streamEngine(s)
	op := e.operation(operationSpec{Name: "events", Method: "GET", Path: "/x"})
	tr, err := Call(context.Background(), op, &wire.Request{Path: "/x"}, new(textStreamResponse), nil)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for ev, err := range tr.Events.Events() {
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, ev.Data)
	}
	if len(texts) != 2 || texts[0] != "not json" {
		t.Errorf("text events %q", texts)
	}
	op = e.operation(operationSpec{Name: "events2", Method: "GET", Path: "/x"})
	resp := openStream(t, op)
	var errs, got []string
	for ev, err := range resp.Events.Events() {
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("%v; want a DecodeError", err)
			}
			errs = append(errs, err.Error())
			continue
		}
		got = append(got, strconv.Itoa(ev.Data.N))
	}
	if len(errs) != 1 || len(got) != 1 || got[0] != "2" {
		t.Errorf("errors %q, events %q; want one of each", errs, got)
	}
	for _, err := range resp.Events.Events() {
		if err == nil {
			t.Error("a second range yielded an event")
		}
	}
}

// TestJSONLinesStream: a JSON-lines stream yields each value; a body cut
// short is an error, not a silent end.
func TestJSONLinesStream(t *testing.T) {
	s := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/jsonl")
		for n := 1; n <= 1000; n++ {
			fmt.Fprintf(w, "{\"n\":%d}\n", n)
			if n%100 == 0 {
				io.WriteString(w, "\n")
			}
		}
		if r.URL.Query().Get("cut") != "" {
			io.WriteString(w, `{"n":`)
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}
	})
	op := streamEngine(s).operation(operationSpec{Name: "lines", Method: "GET", Path: "/x"})
	for _, cut := range []bool{false, true} {
		rq := &wire.Request{Path: "/x"}
		if cut {
			rq.Query.Add("cut", "1")
		}
		resp, err := Call(context.Background(), op, rq, new(jsonlResponse), nil)
		if err != nil {
			t.Fatal(err)
		}
		next := 1
		var last error
		for ev, err := range resp.Lines.Events() {
			if err != nil {
				last = err
				break
			}
			if ev.Data.N != next || ev.ID != "" {
				t.Fatalf("got %+v; want n %d", ev, next)
			}
			next++
		}
		resp.Lines.Close()
		if next != 1001 {
			t.Errorf("cut %v: %d lines; want 1000", cut, next-1)
		}
		if cut != (last != nil) {
			t.Errorf("cut %v: ended with %v", cut, last)
		}
	}
}

// oneEventThenBreak serves one event, then breaks the connection
// mid-event; with ?clean it ends the body after the event instead.
func oneEventThenBreak(_ int64, w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, "retry: 1\nid: 1\ndata: {\"n\":1}\n\n")
	if r.URL.Query().Get("clean") != "" {
		return
	}
	if r.URL.Query().Get("stall") != "" {
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	io.WriteString(w, "data: {")
	w.(http.Flusher).Flush()
	conn, _, _ := w.(http.Hijacker).Hijack()
	conn.Close()
}

// drain ranges over a stream to its end and returns its events and last error.
func drain(s *Stream[tick]) (int, error) {
	n := 0
	for _, err := range s.Events() {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// TestStreamBreakerOutcomes: getting a stream is one call on the breaker;
// a stream the server breaks later is one more failed call; a clean end
// and the caller's cancellation add nothing.
func TestStreamBreakerOutcomes(t *testing.T) {
	s := newServer(t, oneEventThenBreak)
	e := streamEngine(s)
	b := e.Breaker("b", countBreaker(100, 100, 50))
	op := e.operation(operationSpec{Name: "events", Method: "GET", Path: "/x", Breaker: b})
	call := func(ctx context.Context, q string) *sseResponse {
		rq := &wire.Request{Path: "/x"}
		if q != "" {
			rq.Query.Add(q, "1")
		}
		resp, err := Call(ctx, op, rq, new(sseResponse), nil)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	want := func(what string, calls, failed int) {
		t.Helper()
		if m := b.Metrics(); m.Calls != calls || m.Failed != failed {
			t.Errorf("%s: %d calls, %d failed; want %d and %d", what, m.Calls, m.Failed, calls, failed)
		}
	}
	resp := call(context.Background(), "clean")
	want("stream got", 1, 0)
	if n, err := drain(resp.Events); n != 1 || err != nil {
		t.Errorf("clean end: %d, %v", n, err)
	}
	want("clean end", 1, 0)

	resp = call(context.Background(), "")
	if n, err := drain(resp.Events); n != 1 || err == nil {
		t.Errorf("break: %d, %v; want 1 event and an error", n, err)
	}
	want("broken by the server", 3, 1)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp = call(ctx, "stall")
	var n int
	var err error
	for _, err = range resp.Events.Events() {
		if err != nil {
			break
		}
		n++
		cancel()
	}
	if n != 1 || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %d, %v; want 1 event and context.Canceled", n, err)
	}
	want("cancelled by the caller", 4, 1)

	// Close while Events waits ends the range quietly and counts nothing.
	resp = call(context.Background(), "stall")
	done := make(chan error)
	go func() {
		_, err := drain(resp.Events)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	resp.Events.Close()
	if err := <-done; err != nil {
		t.Errorf("closed while reading: %v; want a quiet end", err)
	}
	resp.Events.Close()
	want("closed by the caller", 5, 1)
}

// TestResumeStopsAtAnOpenBreaker: a resume goes through the breaker: the
// breaks open it, and the stream ends with its CircuitOpenError.
func TestResumeStopsAtAnOpenBreaker(t *testing.T) {
	s := newServer(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "retry: 1\nid: %d\ndata: {\"n\":%d}\n\n", n, n)
		io.WriteString(w, "data: {")
		w.(http.Flusher).Flush()
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	})
	e := streamEngine(s)
	b := e.Breaker("b", countBreaker(10, 4, 50))
	op := e.operation(operationSpec{Name: "events", Method: "GET", Path: "/x", Breaker: b, Resume: true, Retry: constRetry(3, time.Millisecond)})
	resp := openStream(t, op)
	n, err := drain(resp.Events)
	var coe *CircuitOpenError
	var se *StreamError
	if !errors.As(err, &coe) || !errors.As(err, &se) || se.Events != n || se.Resumes != n {
		t.Fatalf("after %d events: %v; want a StreamError holding a CircuitOpenError", n, err)
	}
	// Calls 1 and 2 succeeded, each broke: 50% of 4 opens it.
	if n != 2 || s.calls.Load() != 2 {
		t.Errorf("%d events from %d calls; want 2 and 2", n, s.calls.Load())
	}
}

// TestResumeWithoutProgressIsBounded: a server that breaks every stream
// before its first new event is resumed maxAttempts times, then the
// stream ends with the break.
func TestResumeWithoutProgressIsBounded(t *testing.T) {
	s := newServer(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if n == 1 {
			io.WriteString(w, "id: 1\ndata: {\"n\":1}\n\n")
		} else {
			io.WriteString(w, "retry: 1\nid: 1\ndata: {\"n\":1}\n\n") // only the last one again
		}
		io.WriteString(w, "data: {")
		w.(http.Flusher).Flush()
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	})
	op := streamEngine(s).operation(operationSpec{Name: "events", Method: "GET", Path: "/x", Resume: true, Retry: constRetry(3, time.Millisecond)})
	resp := openStream(t, op)
	n, err := drain(resp.Events)
	var se *StreamError
	if n != 1 || !errors.As(err, &se) || se.Resumes != 3 || s.calls.Load() != 4 {
		t.Fatalf("%d events, %d calls, %v; want 1 event, 1+3 calls and a StreamError", n, s.calls.Load(), err)
	}
}

// A server that ignores Last-Event-ID and starts over from its first
// event: the resumed stream drops everything up to the last event seen.
func TestSSEResumeFromAServerThatStartsOver(t *testing.T) {
	b := &breakingSSE{total: 1000, maxRun: 300, restart: true, rnd: rand.New(rand.NewPCG(5, 6))}
	s := newServer(t, b.serve)
	op := streamEngine(s).operation(operationSpec{Name: "events", Method: "GET", Path: "/x", Resume: true})
	resp := openStream(t, op)
	next := 1
	for ev, err := range resp.Events.Events() {
		if err != nil {
			t.Fatalf("after event %d: %v", next-1, err)
		}
		if ev.Data.N != next {
			t.Fatalf("got event %d; want %d", ev.Data.N, next)
		}
		next++
	}
	if next != 1001 || b.conns != 4 {
		t.Fatalf("%d events over %d connections; want 1000 over 4", next-1, b.conns)
	}
}
