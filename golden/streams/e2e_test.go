package streams

// End-to-end tests of the generated Streams client against loopback
// servers: typed server-sent events (an object, a oneOf union, plain
// text), JSON lines and NDJSON, resume with Last-Event-ID across random
// breaks (and the error without it), the idle timeout, and a 1 GiB
// download read for longer than its operation's timeouts.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// client is a generated client of a loopback server running h.
func client(t *testing.T, h http.HandlerFunc) *Client {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	c, err := NewClient(s.URL, WithHTTPClient(s.Client()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ticks writes SSE events from..to as Ticks, with ids, flushing now and
// then.
func ticks(w http.ResponseWriter, from, to int) {
	w.Header().Set("Content-Type", "text/event-stream")
	for n := from; n <= to; n++ {
		fmt.Fprintf(w, "id: %d\nevent: tick\ndata: {\"seq\":%d,\n", n, n)
		fmt.Fprintf(w, "data: \"note\":\"n%d\"}\n\n", n)
		if n%100 == 0 {
			w.(http.Flusher).Flush()
		}
	}
}

// TestSSETypedEvents: 10,000 server-sent events, each decoded into the
// spec's Tick with its id and event name, in order.
func TestSSETypedEvents(t *testing.T) {
	const total = 10000
	c := client(t, func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("count"))
		ticks(w, 1, n)
	})
	count := int64(total)
	resp, err := c.StreamTicks(context.Background(), &StreamTicksParams{Count: &count})
	if err != nil {
		t.Fatal(err)
	}
	next := 1
	for ev, err := range resp.Events() {
		if err != nil {
			t.Fatalf("after %d events: %v", next-1, err)
		}
		want := fmt.Sprintf("n%d", next)
		if ev.Data.Seq != int64(next) || ev.Data.Note == nil || *ev.Data.Note != want || ev.ID != strconv.Itoa(next) || ev.Event != "tick" {
			t.Fatalf("event %+v (data %+v); want seq and id %d, note %s, event tick", ev, ev.Data, next, want)
		}
		next++
	}
	if next-1 != total {
		t.Fatalf("got %d events; want %d", next-1, total)
	}
}

// TestSSEUnionEvents: each event of a oneOf stream sets the variant its
// discriminator names.
func TestSSEUnionEvents(t *testing.T) {
	c := client(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"kind\":\"created\",\"id\":\"a\"}\n\n")
		io.WriteString(w, "data: {\"kind\":\"deleted\",\"id\":\"a\",\"reason\":\"gone\"}\n\n")
	})
	resp, err := c.StreamChanges(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for ev, err := range resp.Events() {
		if err != nil {
			t.Fatal(err)
		}
		switch u := ev.Data; {
		case u.Created != nil:
			got = append(got, "created "+u.Created.ID)
		case u.Deleted != nil && u.Deleted.Reason != nil:
			got = append(got, "deleted "+u.Deleted.ID+" "+*u.Deleted.Reason)
		default:
			got = append(got, "?")
		}
	}
	if strings.Join(got, "; ") != "created a; deleted a gone" {
		t.Fatalf("events %q", got)
	}
}

// TestSSETextEvents: a string schema gives each event's data as sent, its
// lines joined with "\n".
func TestSSETextEvents(t *testing.T) {
	c := client(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: first line\ndata: second line\n\ndata: {not json}\n\n")
	})
	resp, err := c.StreamLog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for ev, err := range resp.Events() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev.Data)
	}
	if len(got) != 2 || got[0] != "first line\nsecond line" || got[1] != "{not json}" {
		t.Fatalf("events %q", got)
	}
}

// breaking serves ticks 1..total from the one after Last-Event-ID, and
// breaks each connection after a random number of events, mid-event (the
// connection closed under a chunked body). A resume sometimes gets the
// last event or a few more again, which the client must drop.
type breaking struct {
	total, maxRun int
	mu            sync.Mutex
	rnd           *rand.Rand
	lastIDs       []string
}

func (b *breaking) serve(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	id := r.Header.Get("Last-Event-ID")
	b.lastIDs = append(b.lastIDs, id)
	from := 1
	if id != "" {
		n, _ := strconv.Atoi(id)
		from = []int{n + 1, n, max(1, n-3)}[b.rnd.IntN(3)]
	}
	run := 1 + b.rnd.IntN(b.maxRun)
	b.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, "retry: 1\n\n")
	to := min(b.total, from+run-1)
	ticks(w, from, to)
	if to == b.total {
		return
	}
	fmt.Fprintf(w, "id: %d\ndata: {\"seq\":", to+1)
	w.(http.Flusher).Flush()
	if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
		conn.Close()
	}
}

// TestResumeDeliversEveryEventOnce: followFeed (resume: true) broken at
// random points yields every one of 10,000 events exactly once, in
// order, reconnecting with the last id it delivered.
func TestResumeDeliversEveryEventOnce(t *testing.T) {
	const total = 10000
	b := &breaking{total: total, maxRun: 1500, rnd: rand.New(rand.NewPCG(7, 9))}
	c := client(t, b.serve)
	resp, err := c.FollowFeed(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	next := 1
	for ev, err := range resp.Events() {
		if err != nil {
			t.Fatalf("after %d events: %v", next-1, err)
		}
		if ev.Data.Seq != int64(next) || ev.ID != strconv.Itoa(next) {
			t.Fatalf("got seq %d (id %q); want %d", ev.Data.Seq, ev.ID, next)
		}
		next++
	}
	if next-1 != total {
		t.Fatalf("got %d events; want %d", next-1, total)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.lastIDs) < 2 || b.lastIDs[0] != "" {
		t.Fatalf("connections with Last-Event-ID %q; want a first without, then resumes", b.lastIDs)
	}
	for _, id := range b.lastIDs[1:] {
		if id == "" {
			t.Fatalf("a resume without Last-Event-ID: %q", b.lastIDs)
		}
	}
	t.Logf("%d events over %d connections", total, len(b.lastIDs))
}

// TestBrokenStreamWithoutResumeIsAnError: the same server behind
// streamTicks (no resume) ends the range with a *runtime.StreamError
// after the events that came, never a silent end.
func TestBrokenStreamWithoutResumeIsAnError(t *testing.T) {
	b := &breaking{total: 10000, maxRun: 1500, rnd: rand.New(rand.NewPCG(3, 4))}
	c := client(t, b.serve)
	resp, err := c.StreamTicks(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var last error
	for _, err := range resp.Events() {
		if err != nil {
			last = err
			break
		}
		n++
	}
	var se *runtime.StreamError
	if !errors.As(last, &se) || n == 0 || n >= 10000 || se.Events != n {
		t.Fatalf("after %d events: %v; want a *runtime.StreamError after them", n, last)
	}
	if b.lastIDs[len(b.lastIDs)-1] != "" || len(b.lastIDs) != 1 {
		t.Fatalf("connections %q; want one", b.lastIDs)
	}
}

// jsonLines serves n Ticks as JSON lines of content type ct, gap apart,
// then, when stall is set, sends nothing more until the client leaves.
func jsonLines(ct string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		n, _ := strconv.Atoi(q.Get("n"))
		gap, _ := time.ParseDuration(q.Get("gap"))
		w.Header().Set("Content-Type", ct)
		for i := 1; i <= n; i++ {
			fmt.Fprintf(w, "{\"seq\":%d}\n", i)
			w.(http.Flusher).Flush()
			time.Sleep(gap)
		}
		if q.Get("stall") != "" {
			<-r.Context().Done()
		}
	}
}

// query is a request editor that sets the test server's knobs.
func query(q string) runtime.CallOption {
	return runtime.WithRequestEditor(func(_ context.Context, r *http.Request) error {
		r.URL.RawQuery = q
		return nil
	})
}

// seqs ranges over events, returning their seqs and the error that
// ended them.
func seqs(events func(func(runtime.Event[Tick], error) bool)) ([]int64, error) {
	var out []int64
	for ev, err := range events {
		if err != nil {
			return out, err
		}
		out = append(out, ev.Data.Seq)
	}
	return out, nil
}

// TestJSONLines: application/jsonl and application/x-ndjson decode one
// Tick a line, in order.
func TestJSONLines(t *testing.T) {
	ctx := context.Background()
	jl, err := client(t, jsonLines("application/jsonl")).ExportRecords(ctx, query("n=1000"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := seqs(jl.Events())
	if err != nil || len(got) != 1000 || got[0] != 1 || got[999] != 1000 {
		t.Fatalf("jsonl: %d records, %v", len(got), err)
	}
	nd, err := client(t, jsonLines("application/x-ndjson")).ExportNdjson(ctx, query("n=3"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := seqs(nd.Events()); err != nil || fmt.Sprint(got) != "[1 2 3]" {
		t.Fatalf("ndjson: %v, %v", got, err)
	}
}

// TestIdleTimeout: exportRecords' idleTimeout (1s in the spec) ends a
// stream that stops sending with runtime.ErrIdleTimeout after the lines
// that came; a slow steady stream, whose length is many times the
// attempt and total timeouts, is read whole: only the gaps count.
func TestIdleTimeout(t *testing.T) {
	c := client(t, jsonLines("application/jsonl"))
	ctx := context.Background()
	short := []runtime.CallOption{runtime.WithAttemptTimeout(50 * time.Millisecond), runtime.WithTotalTimeout(150 * time.Millisecond)}

	slow, err := c.ExportRecords(ctx, append(short, query("n=30&gap=20ms"))...)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := seqs(slow.Events()); err != nil || len(got) != 30 {
		t.Fatalf("slow steady stream: %d lines, %v; want 30 and no error", len(got), err)
	}

	stalled, err := c.ExportRecords(ctx, append(short, query("n=3&stall=1"))...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := seqs(stalled.Events())
	var se *runtime.StreamError
	if len(got) != 3 || !errors.Is(err, runtime.ErrIdleTimeout) || !errors.As(err, &se) {
		t.Fatalf("stalled stream: %d lines, %v; want 3 then the idle timeout", len(got), err)
	}
}

// TestDownloadPastTimeouts: download's 1 GiB body, read slowly for longer
// than the operation's attempt and total timeouts (200ms, 500ms in the
// spec), comes whole, with the heap under 16 MiB all along.
func TestDownloadPastTimeouts(t *testing.T) {
	const size = 1 << 30
	chunk := make([]byte, 64<<10)
	c := client(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(size))
		for n := 0; n < size; n += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	resp, err := c.Download(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Stream.Close()
	start := time.Now()
	time.Sleep(600 * time.Millisecond) // past both timeouts before the first read
	buf := make([]byte, 256<<10)
	var total int64
	var peak uint64
	var ms goruntime.MemStats
	for i := 0; ; i++ {
		n, err := resp.Stream.Read(buf)
		total += int64(n)
		if i%256 == 0 {
			goruntime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			time.Sleep(5 * time.Millisecond) // a slow reader
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d bytes: %v", total, err)
		}
	}
	if total != size {
		t.Fatalf("read %d bytes; want %d", total, size)
	}
	if peak >= 16<<20 {
		t.Fatalf("heap peaked at %.1f MiB; want under 16", float64(peak)/(1<<20))
	}
	t.Logf("1 GiB in %v, heap peak %.1f MiB", time.Since(start), float64(peak)/(1<<20))
}

// TestJSONOrEvents: complete declares JSON and server-sent events for its
// 200; the answer's Content-Type picks the field, so the same method
// serves a request that asks for a stream and one that does not.
func TestJSONOrEvents(t *testing.T) {
	c := client(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), `"stream":true`) {
			ticks(w, 1, 5)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"seq":42}`)
	})
	ctx := context.Background()
	yes, no := true, false
	streamed, err := c.Complete(ctx, CompleteBody{Stream: &yes})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := seqs(streamed.Events()); err != nil || fmt.Sprint(got) != "[1 2 3 4 5]" || streamed.JSON200 != nil {
		t.Fatalf("streamed: %v, %v (JSON200 %v)", got, err, streamed.JSON200)
	}
	whole, err := c.Complete(ctx, CompleteBody{Stream: &no})
	if err != nil {
		t.Fatal(err)
	}
	if whole.JSON200 == nil || whole.JSON200.Seq != 42 || whole.EventStream != nil {
		t.Fatalf("JSON answer: %+v", whole)
	}
	if got, err := seqs(whole.Events()); err != nil || len(got) != 0 {
		t.Fatalf("Events of a JSON answer: %v, %v; want none", got, err)
	}
}

// TestBytesOrEvents: speak declares bytes and server-sent events for its
// 200; the answer's Content-Type picks Stream or EventStream.
func TestBytesOrEvents(t *testing.T) {
	c := client(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("format") == "sse" {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: chunk one\n\ndata: chunk two\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		io.WriteString(w, "RIFF....")
	})
	ctx := context.Background()
	sse, audio := SpeakFormatSse, SpeakFormatAudio
	events, err := c.Speak(ctx, &SpeakParams{Format: &sse})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for ev, err := range events.Events() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev.Data)
	}
	if fmt.Sprint(got) != "[chunk one chunk two]" || events.Stream != nil {
		t.Fatalf("events %q (Stream %v)", got, events.Stream)
	}
	bytes, err := c.Speak(ctx, &SpeakParams{Format: &audio})
	if err != nil {
		t.Fatal(err)
	}
	defer bytes.Stream.Close()
	if b, err := io.ReadAll(bytes.Stream); err != nil || string(b) != "RIFF...." || bytes.EventStream != nil {
		t.Fatalf("bytes %q, %v", b, err)
	}
}

// TestDefaultStream: streamNotes declares its stream under default only:
// a 200 is the stream, a 503 the call's *runtime.StatusError.
func TestDefaultStream(t *testing.T) {
	c := client(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("fail") != "" {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: a\n\ndata: b\n\n")
	})
	ctx := context.Background()
	resp, err := c.StreamNotes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for ev, err := range resp.Events() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev.Data)
	}
	if fmt.Sprint(got) != "[a b]" {
		t.Fatalf("events %q", got)
	}
	_, err = c.StreamNotes(ctx, query("fail=1"))
	var se *runtime.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a 503: %v; want its *runtime.StatusError", err)
	}
}
