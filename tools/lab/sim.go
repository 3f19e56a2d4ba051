package lab

// What every scenario shares: a loopback server that counts what it saw
// over time, an observer that counts what the client did, simulated
// users, percentiles and progress lines.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/resgen/resgen/runtime"
)

// Server is a loopback server for one strategy's run. It counts requests
// and tracks how many are in flight, keeping every change with its time
// so plots can show load over time.
type Server struct {
	*httptest.Server
	clk   clock
	start time.Time

	requests atomic.Int64
	mu       sync.Mutex
	inflight int
	// load is in-flight requests after each change; rejects the times of
	// the answers the scenario's handler marked as rejections.
	load    []Point
	rejects []float64
}

// NewServer starts a loopback server whose handler h answers each request.
// h calls s.Rejected when its answer is a refusal (a 503 for overload).
func (c clock) NewServer(h func(s *Server, w http.ResponseWriter, r *http.Request)) *Server {
	s := &Server{clk: c, start: time.Now()}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		s.change(+1)
		defer s.change(-1)
		h(s, w, r)
	}))
	return s
}

// Now is the scenario time since the server started.
func (s *Server) Now() time.Duration { return s.clk.back(time.Since(s.start)) }

func (s *Server) change(d int) {
	t := s.Now().Seconds()
	s.mu.Lock()
	s.inflight += d
	s.load = append(s.load, Point{t, float64(s.inflight)})
	s.mu.Unlock()
}

// Rejected records that the answer being written is a refusal.
func (s *Server) Rejected() {
	t := s.Now().Seconds()
	s.mu.Lock()
	s.rejects = append(s.rejects, t)
	s.mu.Unlock()
}

// Requests is how many requests the server has received.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Load returns in-flight requests over time (scenario seconds).
func (s *Server) Load() []Point {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.load)
}

// RejectTimes returns when the refusals were answered (scenario seconds).
func (s *Server) RejectTimes() []float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.rejects)
}

// Rate turns event times into a rate per second over buckets of width
// seconds, from 0 to the last event (for plots of rejections/s).
func Rate(times []float64, width float64) []Point {
	if len(times) == 0 || width <= 0 {
		return nil
	}
	last := slices.Max(times)
	n := int(last/width) + 1
	counts := make([]int, n)
	for _, t := range times {
		counts[min(int(t/width), n-1)]++
	}
	pts := make([]Point, n)
	for i, c := range counts {
		pts[i] = Point{float64(i) * width, float64(c) / width}
	}
	return pts
}

// Counter is a runtime.Observer that counts what the client did and
// keeps the breaker's state changes with their scenario times.
type Counter struct {
	clk   clock
	start time.Time

	Calls, Attempts, Retries, Rejections atomic.Int64

	mu      sync.Mutex
	changes []StateChange
}

// StateChange is a breaker's change of state at scenario time At.
type StateChange struct {
	At       time.Duration `json:"atNs"`
	From, To runtime.State `json:"-"`
	Change   string        `json:"change"` // "closed → open"
	Reason   string        `json:"reason"`
}

// NewCounter returns an observer whose clock starts now.
func (c clock) NewCounter() *Counter { return &Counter{clk: c, start: time.Now()} }

func (o *Counter) now() time.Duration { return o.clk.back(time.Since(o.start)) }

func (o *Counter) CallStart(e runtime.CallStartEvent) context.Context {
	o.Calls.Add(1)
	return e.Context
}
func (o *Counter) CallEnd(runtime.CallEndEvent)    {}
func (o *Counter) Attempt(runtime.AttemptEvent)    { o.Attempts.Add(1) }
func (o *Counter) RetryWait(runtime.RetryEvent)    { o.Retries.Add(1) }
func (o *Counter) Rejected(runtime.RejectionEvent) { o.Rejections.Add(1) }
func (o *Counter) BreakerStateChange(e runtime.StateChangeEvent) {
	sc := StateChange{At: o.now(), From: e.From, To: e.To, Change: e.From.String() + " → " + e.To.String(), Reason: e.Reason}
	o.mu.Lock()
	o.changes = append(o.changes, sc)
	o.mu.Unlock()
}

// Changes returns the breaker's state changes so far, in order.
func (o *Counter) Changes() []StateChange {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.changes)
}

// Users runs users goroutines, each calling fn(user, i) for i in
// [0, calls) one after the other with no think time, and waits for all.
func Users(users, calls int, fn func(user, i int)) {
	var wg sync.WaitGroup
	for u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range calls {
				fn(u, i)
			}
		}()
	}
	wg.Wait()
}

// Percentile returns the p-th percentile (0-100, nearest rank) of ds.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

// Drain reads and closes a response body, if any.
func Drain(resp *http.Response) {
	if resp != nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// runEach runs run(i) for each of n strategies, at most parallel at once
// (below 1: all at once), under one progress line that expects each to
// take about each (wall time), and returns the results in order with
// their errors joined.
func runEach[R any](o Options, scenario, what string, each time.Duration, n, parallel int, run func(i int) (R, error)) ([]R, error) {
	if parallel < 1 || parallel > n {
		parallel = max(n, 1)
	}
	done := o.progress(scenario, what, each*time.Duration((n+parallel-1)/parallel))
	defer done()
	res := make([]R, n)
	errs := make([]error, n)
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			res[i], errs[i] = run(i)
		})
	}
	wg.Wait()
	return res, errors.Join(errs...)
}

// strategyNames lists the strategies' names for a progress line.
func strategyNames(ss []Strategy) string {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}

// progress shows, on o.Progress (a terminal), which strategy of which
// scenario is running, for how long, out of about how long; the returned
// func ends the line. Without a terminal it does nothing.
func (o Options) progress(scenario, strategy string, expected time.Duration) (done func()) {
	w := o.Progress
	if w == nil {
		return func() {}
	}
	start := time.Now()
	stop := make(chan struct{})
	finished := make(chan struct{})
	line := func() {
		fmt.Fprintf(w, "\r\x1b[K%s · %s · %.1fs of ~%.1fs", scenario, strategy, time.Since(start).Seconds(), expected.Seconds())
	}
	go func() {
		defer close(finished)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			line()
			select {
			case <-stop:
				fmt.Fprint(w, "\r\x1b[K")
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(stop)
		<-finished
	}
}

// lockedBuffer is where a client's logger writes: the caller and the
// breaker's timer goroutine may write at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// lines returns the log lines written so far.
func (b *lockedBuffer) lines() []string {
	return strings.FieldsFunc(b.String(), func(r rune) bool { return r == '\n' })
}

// dropTime leaves the time out of captured log lines: the report shows
// when things happened in scenario time already.
func dropTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}
