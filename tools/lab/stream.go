package lab

// The stream scenario: a server sends an event stream (text/event-stream)
// of streamEvents events, one every streamGap, and breaks the connection
// in the middle of an event at streamBreaks. With resume the runtime
// reconnects with Last-Event-ID, through the breaker and the retry policy,
// after the server's retry hint; the server sends the last event again, as
// some do, and the caller must not see it twice. Without resume the first
// break ends the stream with an error. The lab counts, by id, what the
// caller got: delivered, duplicated, lost, out of order.

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/resgen/resgen/runtime"
	"github.com/resgen/resgen/runtime/impl"
	"github.com/resgen/resgen/runtime/wire"
)

// The stream's model, in scenario time.
const (
	streamEvents = 300
	streamGap    = 10 * time.Millisecond
	// streamHint is the retry field the server sends: the wait before a
	// resume.
	streamHint = 200 * time.Millisecond
)

// streamBreaks are the events after which the server breaks the stream,
// each once, mid-event.
var streamBreaks = []int{60, 150, 240}

// streamTick is an event's data.
type streamTick struct {
	N int `json:"n"`
}

// streamAnswer is the generated response of a text/event-stream
// operation, as resgen writes it.
type streamAnswer struct {
	wire.Response
	Events *runtime.Stream[streamTick] `resgen:"200,sse"`
}

// streamRun is one strategy's figures (scenario time).
type streamRun struct {
	Strategy string `json:"strategy"`
	Resume   bool   `json:"resume"`
	// Sent is how many distinct events the server sent in full; Resent
	// how many it sent again after a resume.
	Sent      int `json:"sent"`
	Resent    int `json:"resent"`
	Delivered int `json:"delivered"`
	// Duplicated counts events the caller got more than once, Lost the
	// events of the stream it never got, OutOfOrder those that came
	// before an earlier one.
	Duplicated int `json:"duplicated"`
	Lost       int `json:"lost"`
	OutOfOrder int `json:"outOfOrder"`
	// Connections the server saw; Breaks it made.
	Connections int `json:"connections"`
	Breaks      int `json:"breaks"`
	// LastEventIDs are the Last-Event-ID headers of the reconnections.
	LastEventIDs []string `json:"lastEventIds,omitempty"`
	// End is "complete", or the error that ended the stream.
	End string `json:"end"`
	// BreakerCalls and BreakerFailed are the breaker's counts at the end.
	BreakerCalls  int     `json:"breakerCalls"`
	BreakerFailed int     `json:"breakerFailed"`
	WallS         float64 `json:"wallS"`
	// got is when each event arrived (scenario s), breaks when the server
	// broke the stream.
	got    []Point
	breaks []float64
}

// streamResults is the stream scenario's Results.
type streamResults struct {
	Events     int         `json:"events"`
	GapS       float64     `json:"gapS"`
	BreakAfter []int       `json:"breakAfter"`
	HintS      float64     `json:"hintS"`
	Strategies []streamRun `json:"strategies"`
}

func stream(ctx context.Context, t *Target, o Options) (*Report, error) {
	if t.NotRetrySafe {
		return nil, fmt.Errorf("%w: %s %s (%s) is not retry-safe (%s), so a broken stream must not be resumed: the runtime never resumes it; mark it idempotent: true or run the lab on a retry-safe operation",
			ErrNotRetrySafe, t.Method, t.Path, t.OperationID, t.RetryWhy)
	}
	runs := []bool{true}
	if o.Compare {
		runs = append(runs, false)
	}
	names := "resume"
	if o.Compare {
		names += ", no resume"
	}
	clk := clock{o.Speed}
	res, err := runEach(o, "stream", names, clk.d(streamEvents*streamGap), len(runs), 0,
		func(i int) (streamRun, error) { return streamRunOne(ctx, clk, t, runs[i]) })
	if err != nil {
		return nil, err
	}
	return streamReportOf(t, o, res), nil
}

// streamServer serves the stream, from the event after Last-Event-ID (the
// last one again first), breaking it once at each of streamBreaks.
type streamServer struct {
	clk    clock
	mu     sync.Mutex
	broken map[int]bool
	sent   map[int]bool
	run    *streamRun
}

func (ss *streamServer) serve(s *Server, w http.ResponseWriter, r *http.Request) {
	from := 1
	ss.mu.Lock()
	ss.run.Connections++
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		ss.run.LastEventIDs = append(ss.run.LastEventIDs, id)
		if n, err := strconv.Atoi(id); err == nil {
			from = n // the last one again
		}
	}
	ss.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "retry: %d\n\n", ss.clk.d(streamHint).Milliseconds())
	fl := w.(http.Flusher)
	fl.Flush()
	tm := time.NewTimer(0)
	defer tm.Stop()
	for n := from; n <= streamEvents; n++ {
		<-tm.C
		tm.Reset(ss.clk.d(streamGap))
		ss.mu.Lock()
		brk := !ss.broken[n] && slices.Contains(streamBreaks, n-1) && n > from
		if brk {
			ss.broken[n] = true
			ss.run.Breaks++
			ss.run.breaks = append(ss.run.breaks, s.Now().Seconds())
		} else {
			if ss.sent[n] {
				ss.run.Resent++
			}
			ss.sent[n] = true
		}
		ss.mu.Unlock()
		if brk {
			// Half an event, then the connection closed under it.
			fmt.Fprintf(w, "id: %d\ndata: {\"n\":", n)
			fl.Flush()
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		if _, err := fmt.Fprintf(w, "id: %d\nevent: tick\ndata: {\"n\":%d}\n\n", n, n); err != nil {
			return
		}
		fl.Flush()
		if r.Context().Err() != nil {
			return
		}
	}
}

// streamRunOne reads the whole stream once, with or without resume.
func streamRunOne(ctx context.Context, clk clock, t *Target, resume bool) (streamRun, error) {
	name := "resume"
	if !resume {
		name = "no resume"
	}
	r := streamRun{Strategy: name, Resume: resume}
	ss := &streamServer{clk: clk, broken: map[int]bool{}, sent: map[int]bool{}, run: &r}
	srv := clk.NewServer(ss.serve)
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	bp, rp := clk.scaled(SpecStrategy(t))
	e := impl.NewEngine(impl.Config{HTTPClient: &http.Client{Transport: tr}, Server: srv.URL})
	spec := impl.OperationSpec{Name: t.OperationID, Method: t.Method, Path: t.Path, Retry: rp,
		Timeout: clk.d(t.Timeout), TotalTimeout: clk.d(t.TotalTimeout), Resume: resume}
	var b *runtime.Breaker
	if bp != nil {
		b = e.Breaker(cmp.Or(t.BreakerName, "lab"), *bp)
		spec.Breaker = b
	}
	op := e.Operation(spec)
	begin := time.Now()
	resp, err := impl.Call(ctx, op, &wire.Request{Path: t.Path}, new(streamAnswer), nil)
	if err != nil {
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		r.End = err.Error()
		return r, nil
	}
	defer resp.Events.Close()
	seen := map[int]int{}
	last := 0
	r.End = "complete"
	for ev, err := range resp.Events.Events() {
		if err != nil {
			if ctx.Err() != nil {
				return r, ctx.Err()
			}
			r.End = err.Error()
			break
		}
		n := ev.Data.N
		seen[n]++
		r.Delivered++
		if seen[n] > 1 {
			r.Duplicated++
		}
		if n < last {
			r.OutOfOrder++
		}
		last = max(last, n)
		r.got = append(r.got, Point{clk.back(time.Since(begin)).Seconds(), float64(r.Delivered)})
	}
	resp.Events.Close()
	srv.Close() // the handler is done: its counts are final
	r.WallS = clk.back(time.Since(begin)).Seconds()
	r.Sent = len(ss.sent)
	for n := 1; n <= streamEvents; n++ {
		if seen[n] == 0 {
			r.Lost++
		}
	}
	if b != nil {
		m := b.Metrics()
		r.BreakerCalls, r.BreakerFailed = m.Calls, m.Failed
	}
	return r, nil
}

func streamReportOf(t *Target, o Options, res []streamRun) *Report {
	r := &Report{Policy: policyWords(t)}
	breaks := make([]string, len(streamBreaks))
	for i, b := range streamBreaks {
		breaks[i] = strconv.Itoa(b)
	}
	r.Setup = []string{
		fmt.Sprintf("one caller reads a text/event-stream of %d events, one every %v; the server breaks the connection in the middle of the event after events %s (each once), and sends retry: %v", streamEvents, streamGap, strings.Join(breaks, ", "), streamHint),
		"on a reconnection with Last-Event-ID the server sends the last event again before the next ones, as some servers do: the caller must not see it twice",
		"resume: the runtime reconnects through the breaker and retry after the server's retry hint; no resume: the break is the stream's error",
	}
	if o.Speed > 1 {
		r.Setup = append(r.Setup, speedNote(o.Speed))
	}
	cols := []string{"figure"}
	for _, p := range res {
		cols = append(cols, p.Strategy)
	}
	n := strconv.Itoa
	rows := []struct {
		label string
		get   func(streamRun) string
	}{
		{"events in the stream", func(streamRun) string { return n(streamEvents) }},
		{"delivered to the caller", func(p streamRun) string { return n(p.Delivered) }},
		{"duplicated", func(p streamRun) string { return n(p.Duplicated) }},
		{"lost", func(p streamRun) string { return n(p.Lost) }},
		{"out of order", func(p streamRun) string { return n(p.OutOfOrder) }},
		{"server breaks", func(p streamRun) string { return n(p.Breaks) }},
		{"connections", func(p streamRun) string { return n(p.Connections) }},
		{"events the server sent again", func(p streamRun) string { return n(p.Resent) }},
		{"breaker calls / failed", func(p streamRun) string { return n(p.BreakerCalls) + " / " + n(p.BreakerFailed) }},
		{"wall time (s)", func(p streamRun) string { return strconv.FormatFloat(p.WallS, 'f', 2, 64) }},
		{"end", func(p streamRun) string { return shortEnd(p.End) }},
	}
	tb := Table{Title: "stream broken " + n(len(streamBreaks)) + " times (" + t.OperationID + ")", Columns: cols}
	for _, rw := range rows {
		cells := []string{rw.label}
		for _, p := range res {
			cells = append(cells, rw.get(p))
		}
		tb.Rows = append(tb.Rows, cells)
	}
	if t.Breaker == nil {
		tb.Notes = append(tb.Notes, t.OperationID+" has no breaker: nothing counts the breaks")
	}
	r.Tables = []Table{tb}

	for _, p := range res {
		switch {
		case p.End == "complete" && p.Duplicated == 0 && p.Lost == 0 && p.OutOfOrder == 0:
			f := fmt.Sprintf("%s: all %d events delivered once each and in order across %d breaks (%d connections; %d events the server sent again were dropped)", p.Strategy, p.Delivered, p.Breaks, p.Connections, p.Resent)
			if t.Breaker != nil && p.BreakerFailed == p.Breaks {
				f += "; each break counted as one failure on the breaker"
			}
			r.Findings = append(r.Findings, f)
		case p.End == "complete":
			r.Findings = append(r.Findings, fmt.Sprintf("%s: the stream ended with %d duplicated, %d lost, %d out of order", p.Strategy, p.Duplicated, p.Lost, p.OutOfOrder))
		default:
			r.Findings = append(r.Findings, fmt.Sprintf("%s: the caller got %d of %d events, then %s; %d were never delivered", p.Strategy, p.Delivered, streamEvents, shortEnd(p.End), p.Lost))
		}
	}

	plot := Plot{Name: "stream", Title: "events delivered over time", XLabel: "time (s)", YLabel: "events delivered", Step: true}
	for _, p := range res {
		plot.Series = append(plot.Series, Series{Name: p.Strategy, Points: p.got})
		for _, at := range p.breaks {
			plot.Marks = append(plot.Marks, Mark{X: at, Label: p.Strategy + " break"})
		}
	}
	r.Plots = []Plot{plot}
	r.Results = streamResults{Events: streamEvents, GapS: streamGap.Seconds(), BreakAfter: streamBreaks, HintS: streamHint.Seconds(), Strategies: res}
	return r
}

// shortEnd is the end of a run for a table cell: the error's last part.
func shortEnd(end string) string {
	if i := strings.LastIndex(end, ": "); i >= 0 && end != "complete" {
		return "error: " + end[i+2:]
	}
	return end
}
