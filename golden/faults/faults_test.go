package faults

// The fault suite: 500 goroutines × 40 calls of the generated
// client against a loopback server that resets connections, hangs past
// the attempt timeout, sends Retry-After garbage, slow bodies, 100 MiB
// error bodies, and kills reused connections after reading a request (the
// case in which net/http's Transport resends a request on its own). The
// server counts what reaches the wire per logical call; afterwards the
// suite checks that every call returned, nothing leaked, no call was sent
// more often than it reports or than its policy allows, no unsafe
// operation was sent twice, keys and bodies never changed between sends,
// memory stayed bounded, and no credential reached an error, an event or
// a log line. A failure prints counts and a few examples per assertion.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	goroutines = 500
	callsEach  = 40
	calls      = goroutines * callsEach

	// The first call of the first hugeCalls goroutines gets a 500 with a
	// hugeBody body on every send; they start within milliseconds, so the
	// bodies are read concurrently.
	hugeCalls = 6
	hugeBody  = 100 << 20

	heapBound   = 256 << 20 // peak HeapInuse allowed during the run
	statusBound = 64 << 10  // StatusError.Body, as its doc says

	stuckAfter = 30 * time.Second // 5 × totalTimeout: a call running longer is stuck
	seed       = 8                // the fault plan is the same on every run
)

// The credentials every request carries; none may appear in an error
// string, an observer event or a log line.
const (
	user        = "faultuser"
	password    = "s3cret-pass-91f2"
	bearerToken = "bearer-tok-5c7e0a"
	headerKey   = "hdr-key-3d9b44"
	queryKey    = "qry-key-8e21f6"
	cookieValue = "cookie-sess-a04c7d"
)

var secrets = []struct{ name, value string }{
	{"password", password},
	{"basic credentials", base64.StdEncoding.EncodeToString([]byte(user + ":" + password))},
	{"bearer token", bearerToken},
	{"X-Api-Key value", headerKey},
	{"api_key query value", queryKey},
	{"cookie value", cookieValue},
}

// op is one operation of testdata/specs/faults.yaml.
type op int

const (
	getItem       op = iota // GET, retried
	touchItem               // GET marked idempotent: false
	createOrder             // keyed POST, retried
	createPayment           // keyed POST, retry: none
	postEvent               // unkeyed POST
)

var ops = [...]struct {
	name        string
	maxAttempts int
	once        bool // not retry-safe, or retries off: one send per call
	keyed       bool
	body        bool
	weight      int // share of the calls, in percent
}{
	getItem:       {"getItem", 3, false, false, false, 35},
	touchItem:     {"touchItem", 1, true, false, false, 15},
	createOrder:   {"createOrder", 3, false, true, true, 25},
	createPayment: {"createPayment", 1, true, true, true, 10},
	postEvent:     {"postEvent", 1, true, false, true, 15},
}

func (o op) String() string { return ops[o].name }

// plan is what one logical call does; callPlan derives it from the call's
// ID alone.
type plan struct {
	op          op
	cancelAfter time.Duration // the caller cancels the call after this; 0 = never
	ownKey      bool          // keyed ops: the caller passes its own key
	huge        bool          // every send is answered with a huge 500
}

var hugeOps = [hugeCalls]op{getItem, createOrder, postEvent, touchItem, createPayment, getItem}

func callPlan(id int) plan {
	if g, i := id/callsEach, id%callsEach; i == 0 && g < hugeCalls {
		return plan{op: hugeOps[g], huge: true}
	}
	r := rand.New(rand.NewPCG(seed, uint64(id)))
	var p plan
	w := r.IntN(100)
	for o := range ops {
		if w < ops[o].weight {
			p.op = op(o)
			break
		}
		w -= ops[o].weight
	}
	if r.IntN(100) < 5 {
		p.cancelAfter = time.Duration(1+r.IntN(400)) * time.Millisecond
	}
	p.ownKey = r.IntN(2) == 0
	return p
}

// describe names a call in a failure: "call 17 (createOrder, cancelled
// after 20ms)".
func describe(id int) string {
	p := callPlan(id)
	s := fmt.Sprintf("call %d (%v", id, p.op)
	if p.cancelAfter > 0 {
		s += fmt.Sprintf(", cancelled after %v", p.cancelAfter)
	}
	if p.huge {
		s += ", huge 500s"
	}
	return s + ")"
}

func callBody(id int) Item {
	note := "note of call " + strconv.Itoa(id)
	return Item{ID: strconv.Itoa(id), Name: "call-" + strconv.Itoa(id), Note: &note}
}

func callKey(id int) string { return "caller-key-" + strconv.Itoa(id) }

// fault is what the server does with one request.
type fault int

const (
	fOK         fault = iota
	fReset            // read the request, then reset the connection
	fKill             // on a reused connection: read the request, then close it (FIN or RST)
	fHang             // never answer (past the attempt timeout)
	fRetryAfter       // 503 or 429 with a Retry-After that is garbage, huge, negative or a date
	fStatus           // 500, 502 or 504
	fSlowBody         // 200, its body dribbled out (sometimes past the attempt timeout)
	fSlowHead         // 200 after a delay within the attempt timeout
	fHuge             // 500 with a hugeBody body
	faultKinds
)

var faultNames = [faultKinds]string{"ok", "reset", "kill reused conn", "hang", "Retry-After garbage", "5xx", "slow body", "slow head", "huge 500"}

// faultWeights are per mille of the sends; a kill drawn on a fresh
// connection is an ok.
var faultWeights = [...]int{fOK: 560, fReset: 60, fKill: 100, fHang: 25, fRetryAfter: 90, fStatus: 60, fSlowBody: 60, fSlowHead: 45}

func pickFault(id, send int) (fault, *rand.Rand) {
	r := rand.New(rand.NewPCG(seed<<32|uint64(id), uint64(send)))
	w := r.IntN(1000)
	for f, fw := range faultWeights {
		if w < fw {
			return fault(f), r
		}
		w -= fw
	}
	return fOK, r
}

// retryAfterGarbage are the Retry-After values of fRetryAfter; %FUTURE%
// and %SOON% become HTTP dates an hour and a second ahead.
var retryAfterGarbage = []string{
	"-5", "-1", "abc", "1.5", "0x10", "1e3", "", "   ", "0", "1", "2",
	"99999999999999999999", "18446744073709551616", "9223372036854775807",
	strings.Repeat("9", 400),
	"Wed, 21 Oct 2015 07:28:00 GMT", // past
	"Mon, 32 Foo 2000 99:99:99 GMT",
	"%FUTURE%", "%SOON%",
}

// sendLog is what the server saw of one logical call.
type sendLog struct {
	sends  int
	keys   []string
	bodies [][]byte
}

// connInfo counts the requests served on one server connection.
type connInfo struct{ served atomic.Int64 }

type connInfoKey struct{}

type faultServer struct {
	*httptest.Server
	conns *countingListener
	stop  chan struct{} // closed to release hanging handlers

	mu         sync.Mutex
	calls      [calls]sendLog
	badID      int      // requests without a valid X-Call-ID
	noCreds    int      // requests missing a credential the editor adds
	badExample []string // a few of either

	faults [faultKinds]atomic.Int64
}

func newFaultServer() *faultServer {
	s := &faultServer{stop: make(chan struct{})}
	s.Server = httptest.NewUnstartedServer(s)
	s.conns = &countingListener{Listener: s.Listener}
	s.Listener = s.conns
	s.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connInfoKey{}, new(connInfo))
	}
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // hijacked and reset connections are the point
	s.Start()
	return s
}

func (s *faultServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	id, err := strconv.Atoi(r.Header.Get("X-Call-ID"))
	creds := r.URL.Query().Get("api_key") == queryKey && r.Header.Get("X-Api-Key") == headerKey &&
		r.Header.Get("Authorization") == "Bearer "+bearerToken && r.Header.Get("Cookie") == "session="+cookieValue
	s.mu.Lock()
	if err != nil || id < 0 || id >= calls {
		s.badID++
		if len(s.badExample) < 3 {
			s.badExample = append(s.badExample, "X-Call-ID "+strconv.Quote(r.Header.Get("X-Call-ID")))
		}
		s.mu.Unlock()
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if !creds {
		s.noCreds++
		if len(s.badExample) < 3 {
			s.badExample = append(s.badExample, fmt.Sprintf("call %d without all its credentials", id))
		}
	}
	l := &s.calls[id]
	l.sends++
	send := l.sends
	if k := r.Header.Values("Idempotency-Key"); len(k) > 0 {
		l.keys = append(l.keys, strings.Join(k, ","))
	} else if ops[opOfPath(r)].keyed {
		l.keys = append(l.keys, "")
	}
	if r.Method == http.MethodPost {
		l.bodies = append(l.bodies, body)
	}
	s.mu.Unlock()

	ci := r.Context().Value(connInfoKey{}).(*connInfo)
	reused := ci.served.Add(1) > 1
	f, rnd := pickFault(id, send)
	if callPlan(id).huge {
		f = fHuge
	}
	if f == fKill && !reused {
		f = fOK
	}
	s.faults[f].Add(1)
	s.serve(w, r, id, f, rnd)
}

// opOfPath tells the operation from the path.
func opOfPath(r *http.Request) op {
	switch {
	case r.URL.Path == "/orders":
		return createOrder
	case r.URL.Path == "/payments":
		return createPayment
	case r.URL.Path == "/events":
		return postEvent
	case strings.HasSuffix(r.URL.Path, "/touch"):
		return touchItem
	}
	return getItem
}

func (s *faultServer) serve(w http.ResponseWriter, r *http.Request, id int, f fault, rnd *rand.Rand) {
	ok := func() {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id": "%d", "name": "answer"}`, id)
	}
	switch f {
	case fOK:
		ok()
	case fReset, fKill:
		c, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		if f == fReset || rnd.IntN(2) == 0 {
			if tc, isTCP := c.(*trackedConn).Conn.(*net.TCPConn); isTCP {
				tc.SetLinger(0) // close sends RST
			}
		}
		c.Close()
	case fHang:
		select {
		case <-r.Context().Done():
		case <-s.stop:
		}
	case fRetryAfter:
		v := retryAfterGarbage[rnd.IntN(len(retryAfterGarbage))]
		switch v {
		case "%FUTURE%":
			v = time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
		case "%SOON%":
			v = time.Now().Add(time.Second).UTC().Format(http.TimeFormat)
		}
		w.Header().Set("Retry-After", v)
		w.WriteHeader([]int{http.StatusServiceUnavailable, http.StatusTooManyRequests}[rnd.IntN(2)])
		io.WriteString(w, "slow down")
	case fStatus:
		w.WriteHeader([]int{500, 502, 504}[rnd.IntN(3)])
		io.WriteString(w, "broken")
	case fSlowBody:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		answer := fmt.Sprintf(`{"id": "%d", "name": "slow answer"}`, id)
		step := time.Duration(10+rnd.IntN(390)) * time.Millisecond // 8 steps: 80ms to 3.2s
		for i := 0; i < 8; i++ {
			io.WriteString(w, answer[i*len(answer)/8:(i+1)*len(answer)/8])
			w.(http.Flusher).Flush()
			if !s.sleep(r, step) {
				return
			}
		}
	case fSlowHead:
		if s.sleep(r, time.Duration(20+rnd.IntN(280))*time.Millisecond) {
			ok()
		}
	case fHuge:
		w.Header().Set("Content-Length", strconv.Itoa(hugeBody))
		w.WriteHeader(http.StatusInternalServerError)
		for n := 0; n < hugeBody; n += len(hugeChunk) {
			if _, err := w.Write(hugeChunk); err != nil {
				return
			}
		}
	}
}

var hugeChunk = bytes.Repeat([]byte("x"), 1<<20)

// sleep waits d unless the request or the server ends first.
func (s *faultServer) sleep(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.stop:
	}
	return false
}

// countingListener counts open connections: closing a connection (by
// http.Server, or by a handler after Hijack) counts once.
type countingListener struct {
	net.Listener
	open, total atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.open.Add(1)
	l.total.Add(1)
	return &trackedConn{Conn: c, open: &l.open}, nil
}

type trackedConn struct {
	net.Conn
	once sync.Once
	open *atomic.Int64
}

func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.open.Add(-1) })
	return err
}

// scanner counts secrets in text from each source, keeping a few
// examples; it is fed as lines are written, so nothing accumulates.
type scanner struct {
	mu       sync.Mutex
	hits     map[string]int // "<secret> in <source>"
	examples map[string][]string
	seen     map[string]int // texts scanned per source
}

func newScanner() *scanner {
	return &scanner{hits: map[string]int{}, examples: map[string][]string{}, seen: map[string]int{}}
}

func (s *scanner) scan(source, text string) {
	var found []string
	for _, sec := range secrets {
		if strings.Contains(text, sec.value) {
			found = append(found, sec.name)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[source]++
	for _, name := range found {
		k := name + " in " + source
		s.hits[k]++
		if len(s.examples[k]) < 2 {
			s.examples[k] = append(s.examples[k], clip(strings.ReplaceAll(strings.TrimSpace(text), "\n", " ⏎ "), 400))
		}
	}
}

// scanWriter feeds a slog handler's output to a scanner: one Write per
// record.
type scanWriter struct{ s *scanner }

func (w scanWriter) Write(p []byte) (int, error) {
	w.s.scan("slog lines", string(p))
	return len(p), nil
}

// observer scans every event, formatted with %+v and its error's text,
// and passes it on to the runtime's slog observer (scanned as slog lines).
type observer struct {
	s        *scanner
	next     runtime.Observer
	attempts atomic.Int64
}

func (o *observer) check(ev any, err error) {
	text := fmt.Sprintf("%+v", ev)
	if err != nil {
		text += "\n" + err.Error()
	}
	o.s.scan("observer events", text)
}

func (o *observer) CallStart(e runtime.CallStartEvent) context.Context {
	o.check(e, nil)
	return o.next.CallStart(e)
}
func (o *observer) CallEnd(e runtime.CallEndEvent) { o.check(e, e.Err); o.next.CallEnd(e) }
func (o *observer) Attempt(e runtime.AttemptEvent) {
	o.attempts.Add(1)
	o.check(e, e.Err)
	o.next.Attempt(e)
}
func (o *observer) RetryWait(e runtime.RetryEvent) { o.check(e, nil); o.next.RetryWait(e) }
func (o *observer) BreakerStateChange(e runtime.StateChangeEvent) {
	o.check(e, nil)
	o.next.BreakerStateChange(e)
}
func (o *observer) Rejected(e runtime.RejectionEvent) { o.check(e, nil); o.next.Rejected(e) }

// result is what the client reported for one call.
type result struct {
	attempts    int // -1 when neither the answer nor the error says
	circuitOpen bool
	status      int    // of the answer, or of a StatusError
	outcome     string // for the summary
	bodyLen     int    // len(StatusError.Body), -1 without one
	wrongAnswer string // set when a 200 carried another call's answer
	took        time.Duration
	err         string // the error's text, clipped; empty without one
	noAnswer    bool   // a CallError without an HTTP answer (transport, timeout, cancel)
}

type callIDKey struct{}

// findings collects violations by assertion, with a count and a few
// examples each, so a red run prints a screenful, not 20,000 lines.
type findings struct {
	order []string
	n     map[string]int
	ex    map[string][]string
	worst map[string]worst
}

type worst struct {
	by   int
	text string
}

func (f *findings) add(assertion, format string, args ...any) {
	if f.n == nil {
		f.n, f.ex = map[string]int{}, map[string][]string{}
	}
	if f.n[assertion] == 0 {
		f.order = append(f.order, assertion)
	}
	f.n[assertion]++
	if len(f.ex[assertion]) < 4 {
		f.ex[assertion] = append(f.ex[assertion], fmt.Sprintf(format, args...))
	}
}

// addWorst is add that also keeps the example exceeding the bound by
// most.
func (f *findings) addWorst(assertion string, by int, format string, args ...any) {
	f.add(assertion, format, args...)
	if f.worst == nil {
		f.worst = map[string]worst{}
	}
	if w := f.worst[assertion]; by > w.by {
		f.worst[assertion] = worst{by, fmt.Sprintf(format, args...)}
	}
}

func (f *findings) report(t *testing.T) {
	t.Helper()
	for _, a := range f.order {
		msg := fmt.Sprintf("%s: %d times, e.g.\n\t%s", a, f.n[a], strings.Join(f.ex[a], "\n\t"))
		if w, ok := f.worst[a]; ok {
			msg += "\n\tworst: " + w.text
		}
		t.Error(msg)
	}
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func TestFaults(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	s := newFaultServer()
	scan := newScanner()
	logger := slog.New(slog.NewTextHandler(scanWriter{scan}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	obs := &observer{s: scan, next: runtime.NewSlogObserver(logger)}

	var clientOpen atomic.Int64
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			clientOpen.Add(1)
			return &trackedConn{Conn: c, open: &clientOpen}, nil
		},
		MaxIdleConns:        2 * goroutines, // reuse connections, as a busy client does
		MaxIdleConnsPerHost: 2 * goroutines,
		IdleConnTimeout:     time.Minute,
	}
	server := strings.Replace(s.URL, "http://", "http://"+user+":"+password+"@", 1)
	c, err := NewClient(server,
		WithHTTPClient(&http.Client{Transport: tr}),
		WithLogger(logger),
		WithObserver(obs),
		// The spec's schemes, through the generated options; the cookie,
		// which the spec does not declare, through an editor.
		WithBearer(runtime.StaticToken(bearerToken)),
		WithHeaderKey(runtime.StaticToken(headerKey)),
		WithQueryKey(runtime.StaticToken(queryKey)),
		WithRequestEditor(func(ctx context.Context, r *http.Request) error {
			id, _ := ctx.Value(callIDKey{}).(int)
			r.Header.Set("X-Call-ID", strconv.Itoa(id))
			r.Header.Set("Cookie", "session="+cookieValue)
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}

	// Peak heap, sampled while the calls run.
	var peakHeap uint64
	samplerDone, stopSampler := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(samplerDone)
		tick := time.NewTicker(5 * time.Millisecond) // a huge body lives far longer
		defer tick.Stop()
		var ms goruntime.MemStats
		for {
			goruntime.ReadMemStats(&ms)
			peakHeap = max(peakHeap, ms.HeapInuse)
			select {
			case <-tick.C:
			case <-stopSampler:
				return
			}
		}
	}()

	results := make([]result, calls)
	var (
		inflight [goroutines]atomic.Int64 // call ID + 1 of each goroutine's current call
		since    [goroutines]atomic.Int64 // when it began, in Unix nanoseconds
	)
	start := make(chan struct{})
	var wg sync.WaitGroup
	began := time.Now()
	for g := range goroutines {
		wg.Go(func() {
			<-start
			// A ramp of 1s, not a herd of 500 dials at once: under -race on
			// two cores the herd alone can take the first attempts past
			// their timeout. The huge calls go first.
			time.Sleep(time.Duration(g) * 2 * time.Millisecond)
			for i := range callsEach {
				id := g*callsEach + i
				t0 := time.Now()
				since[g].Store(t0.UnixNano())
				inflight[g].Store(int64(id + 1))
				results[id] = doCall(c, id, callPlan(id), scan)
				results[id].took = time.Since(t0)
			}
			inflight[g].Store(0)
		})
	}
	close(start)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for watch := time.Tick(time.Second); ; {
		select {
		case <-done:
		case <-watch:
			var stuck []string
			for g := range inflight {
				if id := inflight[g].Load() - 1; id >= 0 && time.Since(time.Unix(0, since[g].Load())) > stuckAfter {
					stuck = append(stuck, describe(int(id)))
				}
			}
			if len(stuck) > 0 {
				t.Fatalf("every call returns: %d calls running for more than %v, e.g. %s\ngoroutines by stack:\n%s",
					len(stuck), stuckAfter, strings.Join(stuck[:min(5, len(stuck))], ", "), goroutineSummary())
			}
			continue
		}
		break
	}
	elapsed := time.Since(began)
	close(stopSampler)
	<-samplerDone

	// Connections: once idle ones are closed, none is left open on either
	// side (a body left unclosed keeps its connection busy); then the
	// server shuts down, and goroutines of both sides are gone.
	tr.CloseIdleConnections()
	if n, m := waitZero(&clientOpen, 5*time.Second), waitZero(&s.conns.open, 5*time.Second); n != 0 || m != 0 {
		t.Errorf("no connection leak: %d client and %d server connections still open after CloseIdleConnections (%d accepted in all)", n, m, s.conns.total.Load())
	}
	close(s.stop)
	s.Close()
	if m := waitZero(&s.conns.open, 5*time.Second); m != 0 {
		t.Errorf("no connection leak: %d server connections still open after shutdown", m)
	}
	goleak.VerifyNone(t, leaks)

	var f findings
	check(&f, s, results)
	checkSecrets(&f, scan)
	if peakHeap > heapBound {
		f.add("bounded memory: peak heap", "peak HeapInuse %d MiB > %d MiB with %d concurrent %d MiB error bodies", peakHeap>>20, heapBound>>20, hugeCalls, hugeBody>>20)
	}
	f.report(t)
	summarise(t, s, results, scan, obs, elapsed, peakHeap)
}

// doCall makes call id as p says and returns what the client reported.
// Errors are scanned for secrets here and dropped: a retained 100 MiB
// StatusError would distort the heap figures.
func doCall(c *Client, id int, p plan, scan *scanner) result {
	ctx := context.WithValue(context.Background(), callIDKey{}, id)
	if p.cancelAfter > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		t := time.AfterFunc(p.cancelAfter, cancel)
		defer t.Stop()
	}
	var key *string
	if p.ownKey {
		k := callKey(id)
		key = &k
	}
	var (
		attempts = -1
		status   int
		answer   *Item
		err      error
	)
	switch p.op {
	case getItem:
		var r *GetItemResponse
		if r, err = c.GetItem(ctx, strconv.Itoa(id)); r != nil {
			attempts, status, answer = r.Attempts, r.StatusCode, r.JSON200
		}
	case touchItem:
		var r *TouchItemResponse
		if r, err = c.TouchItem(ctx, strconv.Itoa(id)); r != nil {
			attempts, status, answer = r.Attempts, r.StatusCode, r.JSON200
		}
	case createOrder:
		var r *CreateOrderResponse
		if r, err = c.CreateOrder(ctx, &CreateOrderParams{IdempotencyKey: key}, callBody(id)); r != nil {
			attempts, status, answer = r.Attempts, r.StatusCode, r.JSON200
		}
	case createPayment:
		var r *CreatePaymentResponse
		if r, err = c.CreatePayment(ctx, &CreatePaymentParams{IdempotencyKey: key}, callBody(id)); r != nil {
			attempts, status, answer = r.Attempts, r.StatusCode, r.JSON200
		}
	case postEvent:
		var r *PostEventResponse
		if r, err = c.PostEvent(ctx, callBody(id)); r != nil {
			attempts, status, answer = r.Attempts, r.StatusCode, r.JSON200
		}
	}
	res := result{attempts: attempts, status: status, bodyLen: -1}
	if answer != nil && answer.ID != strconv.Itoa(id) {
		res.wrongAnswer = answer.ID
	}
	if err == nil {
		res.outcome = "answer " + strconv.Itoa(status)
		return res
	}
	res.err = clip(err.Error(), 200)
	text := err.Error()
	if v := fmt.Sprintf("%+v", err); v != text {
		text += "\n" + v
	}
	scan.scan("error strings", text)
	var (
		open *runtime.CircuitOpenError
		ce   *runtime.CallError
		se   *runtime.StatusError
	)
	if errors.As(err, &se) {
		res.status, res.bodyLen = se.StatusCode, len(se.Body)
	}
	switch {
	case errors.As(err, &open):
		res.attempts, res.circuitOpen, res.outcome = 0, true, "circuit open"
	case errors.As(err, &ce):
		res.attempts, res.outcome = ce.Attempts, "CallError: "+ce.Reason
		res.noAnswer = se == nil
	case se != nil:
		res.attempts, res.outcome = se.Attempts, "StatusError "+strconv.Itoa(se.StatusCode)
	case attempts >= 0:
		res.outcome = "answer with error" // a decode error
	default:
		res.outcome = "error without attempts: " + errKind(err)
	}
	return res
}

// said is what the call returned, for an example.
func (r *result) said() string {
	if r.err != "" {
		return r.err
	}
	return r.outcome
}

// errKind names an error without its details, for the summary.
func errKind(err error) string {
	s := err.Error()
	for _, k := range []string{"context canceled", "deadline exceeded", "attempt timed out", "unexpected EOF", "connection reset"} {
		if strings.Contains(s, k) {
			return k
		}
	}
	return clip(s, 60)
}

// check holds what the server saw against what the client reported.
func check(f *findings, s *faultServer, results []result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.badID > 0 || s.noCreds > 0 {
		f.add("every send carries its call ID and credentials", "%d without a call ID, %d without credentials: %s", s.badID, s.noCreds, strings.Join(s.badExample, "; "))
	}
	const hugeAssertion = "bounded memory: a 500 with a huge body ends in a StatusError"
	hugeAnswered := 0
	for id, res := range results {
		p, l := callPlan(id), &s.calls[id]
		o := ops[p.op]
		what := describe(id)
		if res.wrongAnswer != "" {
			f.add("each answer belongs to its call", "%s got the answer of call %s", what, res.wrongAnswer)
		}
		if res.attempts > o.maxAttempts {
			f.add("attempts reported ≤ maxAttempts", "%s reported %d attempts > maxAttempts %d", what, res.attempts, o.maxAttempts)
		}
		if res.attempts >= 0 && l.sends > res.attempts {
			f.addWorst("sends on the wire ≤ attempts reported", l.sends-res.attempts, "%s: %d sends > %d attempts reported (%s)", what, l.sends, res.attempts, res.outcome)
		}
		if l.sends > o.maxAttempts {
			f.addWorst("sends on the wire ≤ maxAttempts", l.sends-o.maxAttempts, "%s: %d sends > maxAttempts %d", what, l.sends, o.maxAttempts)
		}
		if o.once {
			// One refused by the breaker sends nothing. A call the caller
			// cancels, or whose attempt failed without an answer (a timeout
			// under load), may end before its request reached the server;
			// an answer needs a send.
			want, exact := 1, p.cancelAfter == 0 && res.status != 0
			if res.circuitOpen {
				want, exact = 0, true
			}
			if l.sends > want || exact && l.sends != want {
				f.addWorst("no unsafe duplicate: "+o.name+" sent exactly once", l.sends-want, "%s: %d sends, want %d (client reported %d attempts; %s)", what, l.sends, want, res.attempts, res.said())
			}
		}
		if o.keyed {
			for i, k := range l.keys {
				if k == "" || k != l.keys[0] || p.ownKey && k != callKey(id) {
					f.add("the same idempotency key on every send", "%s: send %d of %d had key %q, send 1 %q (caller's key %v)", what, i+1, len(l.keys), k, l.keys[0], p.ownKey)
					break
				}
			}
		}
		if o.body {
			want, _ := json.Marshal(callBody(id))
			for i, b := range l.bodies {
				if !bytes.Equal(b, want) {
					f.add("identical body bytes on every send", "%s: send %d of %d had body %q, want %q", what, i+1, len(l.bodies), clip(string(b), 100), want)
					break
				}
			}
		}
		// A huge 500 that reached the client must end in a StatusError
		// (an attempt that timed out before the answer excuses it, but
		// not all of them).
		switch {
		case !p.huge:
		case res.bodyLen >= 0:
			hugeAnswered++
		case !res.noAnswer:
			f.add(hugeAssertion, "%s ended in %v with: %s", what, res.took.Round(time.Millisecond), res.said())
		}
		if res.bodyLen > statusBound {
			f.add("bounded memory: StatusError.Body ≤ 64 KiB", "%s: StatusError.Body of %d bytes (%d MiB)", what, res.bodyLen, res.bodyLen>>20)
		}
	}
	if hugeAnswered == 0 {
		f.add(hugeAssertion, "none of the %d calls answered with huge 500s did", hugeCalls)
	}
}

func checkSecrets(f *findings, scan *scanner) {
	scan.mu.Lock()
	defer scan.mu.Unlock()
	keys := make([]string, 0, len(scan.hits))
	for k := range scan.hits {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		source := k[strings.LastIndex(k, " in ")+4:]
		f.add("no secret in errors, events or logs", "%s: %d of %d, e.g. %s", k, scan.hits[k], scan.seen[source], strings.Join(scan.examples[k], " | "))
	}
}

// summarise logs what the run did: shown with -v, or on failure.
func summarise(t *testing.T, s *faultServer, results []result, scan *scanner, obs *observer, elapsed time.Duration, peakHeap uint64) {
	var b strings.Builder
	fmt.Fprintf(&b, "%d calls in %v; peak HeapInuse %d MiB; %d server connections\n", len(results), elapsed.Round(time.Millisecond), peakHeap>>20, s.conns.total.Load())
	b.WriteString("faults served:")
	for k := range faultKinds {
		fmt.Fprintf(&b, " %s %d,", faultNames[k], s.faults[k].Load())
	}
	var sends, reported, unknown int
	var slowest, longest time.Duration
	for g := range goroutines {
		var sum time.Duration
		for _, res := range results[g*callsEach : (g+1)*callsEach] {
			sum += res.took
			longest = max(longest, res.took)
		}
		slowest = max(slowest, sum)
	}
	fmt.Fprintf(&b, "\nlongest call %v; slowest goroutine's calls took %v in all; huge calls:", longest.Round(time.Millisecond), slowest.Round(time.Millisecond))
	for g := range hugeCalls {
		res := results[g*callsEach]
		fmt.Fprintf(&b, " %v %s in %v;", hugeOps[g], res.outcome, res.took.Round(time.Millisecond))
	}
	outcomes := map[string]int{}
	s.mu.Lock()
	for id, res := range results {
		sends += s.calls[id].sends
		if res.attempts >= 0 {
			reported += res.attempts
		} else {
			unknown++
		}
		outcome := res.outcome
		outcome = durations.ReplaceAllString(outcome, "N")
		outcomes[callPlan(id).op.String()+": "+clip(outcome, 70)]++
	}
	s.mu.Unlock()
	fmt.Fprintf(&b, "\nsends seen by the server %d; attempts reported %d (observer: %d); %d calls without an attempt count\noutcomes:\n", sends, reported, obs.attempts.Load(), unknown)
	keys := make([]string, 0, len(outcomes))
	for k := range outcomes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "\t%6d  %s\n", outcomes[k], k)
	}
	scan.mu.Lock()
	fmt.Fprintf(&b, "scanned for secrets: %d error strings, %d observer events, %d slog lines", scan.seen["error strings"], scan.seen["observer events"], scan.seen["slog lines"])
	scan.mu.Unlock()
	t.Log(b.String())
}

// waitZero waits up to d for n to reach 0 and returns its last value.
func waitZero(n *atomic.Int64, d time.Duration) int64 {
	deadline := time.Now().Add(d)
	for n.Load() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return n.Load()
}

var durations = regexp.MustCompile(`[0-9.]+(ns|µs|ms|s|m|h)\b`)

// goroutineSummary groups all goroutines by stack, biggest groups first,
// so a hang shows where 500 goroutines wait in a few lines. (Plain string
// cutting: a regexp over the dump takes most of a minute under -race.)
func goroutineSummary() string {
	buf := make([]byte, 32<<20)
	buf = buf[:goruntime.Stack(buf, true)]
	groups := map[string]int{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		_, g, _ = strings.Cut(g, "\n") // "goroutine N [state, minutes]:"
		var key strings.Builder
		for _, line := range strings.Split(g, "\n") {
			if i := strings.LastIndex(line, " +0x"); i >= 0 {
				line = line[:i]
			}
			if i := strings.Index(line, "(0x"); i >= 0 {
				line = line[:i] + "(...)"
			}
			key.WriteString(line + "\n")
		}
		groups[key.String()]++
	}
	stacks := make([]string, 0, len(groups))
	for st := range groups {
		stacks = append(stacks, st)
	}
	slices.SortFunc(stacks, func(a, b string) int { return groups[b] - groups[a] })
	var b strings.Builder
	for _, st := range stacks[:min(6, len(stacks))] {
		lines := strings.Split(st, "\n")
		fmt.Fprintf(&b, "%d goroutines:\n%s\n", groups[st], strings.Join(lines[:min(24, len(lines))], "\n"))
	}
	return b.String()
}
