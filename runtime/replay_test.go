package runtime

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// killer is a loopback server that answers the first request of every
// connection and, once armed, reads every later request of a connection
// (the one net/http reuses from its idle pool) to the end and closes the
// connection without answering: the case where net/http's Transport
// resends a request by itself. sends counts the requests it read.
type killer struct {
	*httptest.Server
	armed atomic.Bool
	sends atomic.Int64
	// status answers the first request of a connection once armed (0: 200).
	status atomic.Int64
	// prime, while > 0, holds each first request until that many are in
	// flight, so the client opens that many connections.
	prime atomic.Int64
	mu    sync.Mutex
	seen  []*http.Request
	// bodies are the bodies of the requests it read once armed.
	bodies [][]byte
}

type connSeq struct{}

func newKiller(t *testing.T) *killer {
	k := &killer{}
	k.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		n := r.Context().Value(connSeq{}).(*atomic.Int64).Add(1)
		if k.armed.Load() {
			k.sends.Add(1)
			k.mu.Lock()
			k.seen = append(k.seen, r)
			k.bodies = append(k.bodies, body)
			k.mu.Unlock()
			if n > 1 {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
				return
			}
		} else if k.prime.Load() > 0 {
			k.prime.Add(-1)
			for k.prime.Load() > 0 {
				time.Sleep(time.Millisecond)
			}
		}
		code := 200
		if c := k.status.Load(); c != 0 && k.armed.Load() {
			code = int(c)
		}
		w.WriteHeader(code)
	}))
	k.Config.ConnContext = func(ctx context.Context, _ net.Conn) context.Context {
		return context.WithValue(ctx, connSeq{}, new(atomic.Int64))
	}
	k.Start()
	t.Cleanup(k.Close)
	return k
}

// client returns an http.Client holding idle open connections to k
// (each has served one request), then arms k: the next request on each
// of them is read and the connection closed.
func (k *killer) client(t *testing.T, idle int) *http.Client {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	k.prime.Store(int64(idle))
	var wg sync.WaitGroup
	for range idle {
		wg.Go(func() {
			resp, err := hc.Get(k.URL + "/prime")
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
	}
	wg.Wait()
	k.armed.Store(true)
	return hc
}

// keyedRequest returns a request with body (none when empty) and, when key
// is set, that header set to "k".
func keyedRequest(method, url, body, key string) *http.Request {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, url, rd)
	if key != "" {
		req.Header.Set(key, "k")
	}
	return req
}

// TestTransportResendsAreCounted: a GET with up to 3 attempts whose
// reused connections fail after the server read the request. net/http
// sends a GET again by itself; every request the server read must be an
// attempt resgen reports, with its events.
func TestTransportResendsAreCounted(t *testing.T) {
	for _, tc := range []struct {
		name      string
		idle      int
		sends     int
		succeeded bool
	}{
		{"one dead connection, then a fresh one", 1, 2, true},
		{"two dead connections (net/http's default pool), then a fresh one", 2, 3, true},
		// More dead idle connections than attempts left: net/http would
		// go through all of them within the first attempt; it is let
		// send only as many times as attempts are left.
		{"five dead connections: as many sends as maxAttempts", 5, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newKiller(t)
			rec := &recorder{}
			e := newEngine(config{HTTPClient: k.client(t, tc.idle), Logger: quiet, Observer: rec})
			op := e.operation(operationSpec{Name: "get", Method: "GET", Retry: constRetry(3, time.Millisecond)})
			req, _ := http.NewRequest("GET", k.URL+"/x", nil)
			code, attempts, err := do(t, op, req)
			sends := int(k.sends.Load())
			if sends != attempts || sends != tc.sends {
				t.Fatalf("server read %d requests, resgen reports %d attempts; want %d (code %d, err %v)", sends, attempts, tc.sends, code, err)
			}
			if (err == nil) != tc.succeeded || (tc.succeeded && code != 200) {
				t.Fatalf("code %d err %v; want success %v", code, err, tc.succeeded)
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if len(rec.tries) != attempts || rec.ends[0].Attempts != attempts || len(rec.retries) != attempts-1 {
				t.Fatalf("observer saw %d attempts and %d retries, CallEnd says %d; want %d", len(rec.tries), len(rec.retries), rec.ends[0].Attempts, attempts)
			}
			for i, a := range rec.tries {
				if a.Attempt != i+1 || i < len(rec.tries)-1 && !errors.Is(a.Err, ErrResent) {
					t.Fatalf("attempt events %+v: want 1..n, all but the last ErrResent", rec.tries)
				}
			}
		})
	}
	t.Run("the last attempt is not sent again", func(t *testing.T) {
		// Attempt 1 opens a connection and gets a 503; the last attempt
		// reuses it, the server reads it and closes the connection.
		k := newKiller(t)
		k.status.Store(503)
		e := newEngine(config{HTTPClient: k.client(t, 0), Logger: quiet})
		op := e.operation(operationSpec{Name: "get", Method: "GET", Retry: constRetry(2, time.Millisecond)})
		req, _ := http.NewRequest("GET", k.URL+"/x", nil)
		_, attempts, err := do(t, op, req)
		if sends := k.sends.Load(); sends != 2 || attempts != 2 || !errors.Is(err, ErrNotResent) {
			t.Fatalf("server read %d, attempts %d, err %v; want 2, 2 and ErrNotResent", sends, attempts, err)
		}
	})
}

// TestTransportResendsAreCapped: net/http's own sends again of one
// attempt are capped by what the call has left, not only counted: a GET
// with maxAttempts 3 whose client holds 8 idle connections, all of which
// the server closes once reused after reading the request, reaches the
// server at most 3 times; with a retry budget that has room for one
// retry, at most twice. Every send is a reported attempt.
func TestTransportResendsAreCapped(t *testing.T) {
	oneRetry := constRetry(3, time.Millisecond)
	oneRetry.Budget = &Budget{Ratio: 0, MinPerSecond: 0.1} // 1 retry in 10 s
	for _, tc := range []struct {
		name  string
		retry *RetryPolicy
		sends int
	}{
		{"maxAttempts 3", constRetry(3, time.Millisecond), 3},
		{"maxAttempts 3, budget room for one retry", oneRetry, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newKiller(t)
			rec := &recorder{}
			e := newEngine(config{HTTPClient: k.client(t, 8), Logger: quiet, Observer: rec})
			op := e.operation(operationSpec{Name: "get", Method: "GET", Retry: tc.retry})
			req, _ := http.NewRequest("GET", k.URL+"/x", nil)
			_, attempts, err := do(t, op, req)
			if sends := int(k.sends.Load()); sends != tc.sends || attempts != sends || !errors.Is(err, ErrNotResent) {
				t.Fatalf("server read %d requests, resgen reports %d attempts, err %v; want %d, %d and ErrNotResent", sends, attempts, err, tc.sends, tc.sends)
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if len(rec.tries) != attempts || rec.ends[0].Attempts != attempts {
				t.Fatalf("observer saw %d attempts, CallEnd says %d; want %d", len(rec.tries), rec.ends[0].Attempts, attempts)
			}
		})
	}
}

// TestSingleSendIsSentOnce: when resgen allows one send (no retry, a
// policy that does not retry transport failures, a keyed POST with
// retries off, a half-open trial), net/http must not send it again.
func TestSingleSendIsSentOnce(t *testing.T) {
	noTransport := constRetry(3, time.Millisecond)
	noTransport.RetryOn.Transport = false
	noBudget := constRetry(3, time.Millisecond)
	noBudget.Budget = &Budget{Ratio: 0, MinPerSecond: 0}
	for _, tc := range []struct {
		name   string
		method string
		body   string
		key    string
		retry  *RetryPolicy
	}{
		{"GET without retry", "GET", "", "", nil},
		{"HEAD without retry", "HEAD", "", "", nil},
		{"GET with a body, without retry", "GET", "q=1", "", nil},
		{"GET whose policy does not retry transport failures", "GET", "", "", noTransport},
		{"GET whose retry budget is spent", "GET", "", "", noBudget},
		{"keyed POST without body, retries off", "POST", "", "Idempotency-Key", nil},
		{"keyed POST with body, retries off", "POST", `{"a":1}`, "Idempotency-Key", nil},
		{"keyed PUT with X-Idempotency-Key, retries off", "PUT", "", "X-Idempotency-Key", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newKiller(t)
			e := newEngine(config{HTTPClient: k.client(t, 3), Logger: quiet})
			op := e.operation(operationSpec{Name: "op", Method: tc.method, Retry: tc.retry})
			_, attempts, err := do(t, op, keyedRequest(tc.method, k.URL+"/x", tc.body, tc.key))
			if sends := k.sends.Load(); sends != 1 || attempts != 1 || err == nil {
				t.Fatalf("server read %d requests, resgen reports %d attempts, err %v; want 1, 1 and an error", sends, attempts, err)
			}
		})
	}
	t.Run("half-open trial", func(t *testing.T) {
		k := newKiller(t)
		e := newEngine(config{HTTPClient: k.client(t, 3), Logger: quiet})
		p := countBreaker(1, 1, 50)
		p.WaitInOpen = 20 * time.Millisecond
		b := e.Breaker("b", p)
		op := e.operation(operationSpec{Name: "get", Method: "GET", Breaker: b, Retry: constRetry(3, time.Millisecond)})
		dead := e.operation(operationSpec{Name: "dead", Method: "GET", Breaker: b})
		closed := httptest.NewServer(http.NotFoundHandler())
		closed.Close()
		req, _ := http.NewRequest("GET", closed.URL, nil)
		do(t, dead, req)
		if b.State() != StateOpen {
			t.Fatalf("breaker %v, want open", b.State())
		}
		time.Sleep(30 * time.Millisecond)
		req, _ = http.NewRequest("GET", k.URL+"/x", nil)
		_, attempts, err := do(t, op, req)
		if sends := k.sends.Load(); sends != 1 || attempts != 1 || err == nil {
			t.Fatalf("trial: server read %d requests, resgen reports %d attempts, err %v; want 1, 1 and an error", sends, attempts, err)
		}
	})
}

// TestRedirectsStillFollowed: the requests resgen keeps net/http from
// resending still follow 307 and 308 redirects (which re-send the body),
// on the only send and when retries are on.
func TestRedirectsStillFollowed(t *testing.T) {
	var bodies []string
	var mu sync.Mutex
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		switch r.URL.Path {
		case "/a":
			http.Redirect(w, r, "/b", http.StatusTemporaryRedirect)
		case "/b":
			http.Redirect(w, r, "/c", http.StatusPermanentRedirect)
		case "/301", "/302", "/303", "/307", "/308":
			next := map[string]string{"/301": "/302", "/302": "/303", "/303": "/307", "/307": "/308", "/308": "/c"}[r.URL.Path]
			var code int
			fmt.Sscan(r.URL.Path[1:], &code)
			http.Redirect(w, r, next, code)
		default:
			io.WriteString(w, "ok")
		}
	}))
	defer s.Close()
	for _, tc := range []struct {
		method, body string
		key          string
		retry        *RetryPolicy
	}{
		{"GET", "", "", nil},
		{"GET", "", "", constRetry(3, time.Millisecond)},
		{"GET", "q=1", "", nil},
		{"POST", `{"a":1}`, "Idempotency-Key", nil},
		{"POST", `{"a":1}`, "Idempotency-Key", constRetry(3, time.Millisecond)},
		{"POST", "", "Idempotency-Key", nil},
	} {
		bodies = nil
		e := newEngine(config{HTTPClient: s.Client(), Logger: quiet})
		op := e.operation(operationSpec{Name: "op", Method: tc.method, Retry: tc.retry})
		code, attempts, err := do(t, op, keyedRequest(tc.method, s.URL+"/a", tc.body, tc.key))
		if err != nil || code != 200 || attempts != 1 {
			t.Fatalf("%s %q retry %v: code %d attempts %d err %v", tc.method, tc.body, tc.retry != nil, code, attempts, err)
		}
		if len(bodies) != 3 || bodies[2] != tc.body {
			t.Fatalf("%s: server saw bodies %q, want the body on each of 3 hops", tc.method, bodies)
		}
	}
	// A GET through every redirect status, on its only send and when
	// retries are on.
	for _, retry := range []*RetryPolicy{nil, constRetry(3, time.Millisecond)} {
		bodies = nil
		e := newEngine(config{HTTPClient: s.Client(), Logger: quiet})
		op := e.operation(operationSpec{Name: "op", Method: "GET", Retry: retry})
		req, _ := http.NewRequest("GET", s.URL+"/301", nil)
		if code, attempts, err := do(t, op, req); err != nil || code != 200 || attempts != 1 || len(bodies) != 6 {
			t.Fatalf("GET via 301, 302, 303, 307, 308 (retry %v): code %d attempts %d err %v, %d requests; want 200, 1, nil, 6", retry != nil, code, attempts, err, len(bodies))
		}
	}
}

// rawRequest returns the bytes of the request net/http writes for do,
// read from a loopback listener that answers 204.
func rawRequest(t *testing.T, send func(url string, hc *http.Client)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- err.Error()
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		var buf bytes.Buffer
		for {
			line, err := br.ReadString('\n')
			buf.WriteString(line)
			if err != nil || line == "\r\n" {
				break
			}
		}
		// Whatever follows the head (a body, a chunk) arrives within the
		// same write; give it a moment.
		c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		rest, _ := io.ReadAll(br)
		buf.Write(rest)
		got <- strings.ReplaceAll(buf.String(), ln.Addr().String(), "HOST")
		io.WriteString(c, "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
	}()
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	send("http://"+ln.Addr().String()+"/x", hc)
	return <-got
}

// TestSingleSendWireUnchanged: a GET, HEAD, OPTIONS or keyed POST that
// resgen keeps from being resent writes the same request as plain
// net/http, byte for byte but for the letter case of the key's field name
// on a keyed POST (the same field to HTTP).
func TestSingleSendWireUnchanged(t *testing.T) {
	for _, tc := range []struct{ method, body string }{{"GET", ""}, {"HEAD", ""}, {"OPTIONS", ""}, {"POST", ""}, {"POST", "{}"}} {
		build := func(url string) *http.Request { return keyedRequest(tc.method, url, tc.body, "Idempotency-Key") }
		plain := rawRequest(t, func(url string, hc *http.Client) {
			if resp, err := hc.Do(build(url)); err == nil {
				resp.Body.Close()
			}
		})
		for _, retry := range []*RetryPolicy{nil, constRetry(2, time.Millisecond)} {
			viaResgen := rawRequest(t, func(url string, hc *http.Client) {
				e := newEngine(config{HTTPClient: hc, Logger: quiet})
				op := e.operation(operationSpec{Name: "op", Method: tc.method, Retry: retry})
				do(t, op, build(url))
			})
			if !strings.EqualFold(viaResgen, plain) {
				t.Errorf("%s %q (retry %v): resgen wrote\n%q\nplain net/http wrote\n%q", tc.method, tc.body, retry != nil, viaResgen, plain)
			}
		}
	}
}

// TestReplayLeavesCallerRequestAlone: the wire request is resgen's own
// copy; the caller's request keeps its body, header names and GetBody.
func TestReplayLeavesCallerRequestAlone(t *testing.T) {
	s := newServer(t, status(200))
	e := newEngine(config{Logger: quiet})
	for _, m := range []string{"GET", "POST"} {
		op := e.operation(operationSpec{Name: "op", Method: m})
		req, _ := http.NewRequest(m, s.URL, nil)
		req.Header.Set("Idempotency-Key", "k")
		do(t, op, req)
		if req.Body != nil || req.GetBody != nil || req.TransferEncoding != nil || req.Header.Get("Idempotency-Key") != "k" {
			t.Fatalf("%s: caller's request changed: body %v GetBody %v TE %v header %v", m, req.Body, req.GetBody != nil, req.TransferEncoding, req.Header)
		}
	}
}

// TestHTTP2GETsCarryNoBody: over HTTP/2, where net/http only resends what
// the server did not process, GETs go out without the gate's empty body
// once the client has seen an HTTP/2 answer: the server sees a GET of
// length 0, not one of unknown length.
func TestHTTP2GETsCarryNoBody(t *testing.T) {
	var mu sync.Mutex
	var lengths []int64
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		lengths = append(lengths, r.ContentLength)
		mu.Unlock()
		if r.ProtoMajor != 2 {
			w.WriteHeader(500)
		}
	}))
	s.EnableHTTP2 = true
	s.StartTLS()
	defer s.Close()
	e := newEngine(config{HTTPClient: s.Client(), Logger: quiet})
	op := e.operation(operationSpec{Name: "get", Method: "GET", Retry: constRetry(2, time.Millisecond)})
	for range 3 {
		req, _ := http.NewRequest("GET", s.URL, nil)
		if code, _, err := do(t, op, req); code != 200 || err != nil {
			t.Fatalf("code %d err %v", code, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(lengths) != 3 || lengths[1] != 0 || lengths[2] != 0 {
		t.Fatalf("content lengths seen %v; want 0 after the first HTTP/2 answer", lengths)
	}
}

// TestConcurrentSendsEqualAttempts: many calls at once, GETs and keyed
// POSTs, over a pool of connections that all die once reused: the
// requests the server read are exactly the attempts resgen reported.
func TestConcurrentSendsEqualAttempts(t *testing.T) {
	k := newKiller(t)
	e := newEngine(config{HTTPClient: k.client(t, 8), Logger: quiet})
	get := e.operation(operationSpec{Name: "get", Method: "GET", Retry: constRetry(3, time.Millisecond)})
	post := e.operation(operationSpec{Name: "post", Method: "POST", Retry: constRetry(3, time.Millisecond)})
	var attempts atomic.Int64
	var wg sync.WaitGroup
	for g := range 12 {
		wg.Go(func() {
			for i := range 10 {
				op, req := get, keyedRequest("GET", k.URL+"/x", "", "")
				if (g+i)%3 == 0 {
					op, req = post, keyedRequest("POST", k.URL+"/x", `{"a":1}`, "Idempotency-Key")
				}
				_, n, _ := do(t, op, req)
				attempts.Add(int64(n))
			}
		})
	}
	wg.Wait()
	if sends := k.sends.Load(); sends != attempts.Load() {
		t.Fatalf("the server read %d requests; the calls reported %d attempts", sends, attempts.Load())
	}
}

// TestCallerTraceStillCalled: the gate carries its trace in the attempt's
// context; a ClientTrace the caller put in the request's context is still
// called, and the gate still caps over it.
func TestCallerTraceStillCalled(t *testing.T) {
	k := newKiller(t)
	e := newEngine(config{HTTPClient: k.client(t, 8), Logger: quiet})
	op := e.operation(operationSpec{Name: "get", Method: "GET", Retry: constRetry(3, time.Millisecond)})
	var wrote atomic.Int64
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{WroteHeaders: func() { wrote.Add(1) }})
	req, _ := http.NewRequestWithContext(ctx, "GET", k.URL+"/x", nil)
	_, attempts, err := do(t, op, req)
	if sends := k.sends.Load(); sends != 3 || attempts != 3 || wrote.Load() != 3 || !errors.Is(err, ErrNotResent) {
		t.Fatalf("server read %d, attempts %d, caller's hook saw %d, err %v; want 3, 3, 3 and ErrNotResent", sends, attempts, wrote.Load(), err)
	}
}
