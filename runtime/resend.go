package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
)

// net/http's Transport sends a request again by itself when a reused
// connection fails after the request was written and before any answer,
// if the request is "replayable": no body (or a GetBody) and a GET, HEAD,
// OPTIONS or TRACE, or an Idempotency-Key or X-Idempotency-Key header
// (transport.go, shouldRetryRequest; request.go, isReplayable). Left
// alone, one attempt of resgen could reach the server several times. So
// the runtime prepares the request it sends (its own copy, never the
// caller's) by what net/http could do with it:
//
//   - A GET, HEAD, OPTIONS or TRACE, or a keyed request with a body, gets
//     a GetBody of resgen's own (a bodiless GET gets an empty body, sent
//     as no body at all, so that net/http asks for it). net/http calls
//     GetBody before every send again, so each one is resgen's decision:
//     allowed only while the policy would retry a transport failure now
//     (an attempt left, RetryOn has transport, a budget token), and then
//     counted as an attempt (Attempts, maxAttempts, the budget, the
//     observer's events). Refused, the attempt fails with ErrNotResent
//     and resgen's retry loop decides as for any transport failure. A
//     send must be alone (retries off, a half-open trial, the last
//     attempt) is thus never repeated. An httptrace hook tells a send
//     again from a 307/308 redirect, which also asks GetBody and is
//     followed as before.
//   - A bodiless keyed request of another method (POST, PUT, PATCH,
//     DELETE) carries its key under the lower-case field name
//     ("idempotency-key"): the same field to HTTP (names are
//     case-insensitive; HTTP/2 lower-cases every name), which net/http
//     does not take as a key, so it never sends the request again.
//   - Anything else net/http never sends again once a byte of it is
//     written.
//
// net/http may still repeat a send of which no byte reached the
// connection; that is not on the wire and is not counted.

// ErrResent is the Err of the AttemptEvent of a send that net/http made
// again by itself, as resgen allowed, after the reused connection failed
// before any answer. The send is counted as an attempt.
var ErrResent = errors.New("the connection failed after the request was sent, before any answer; net/http sent the request again")

// ErrNotResent is matched (errors.Is) by the error of an attempt whose
// reused connection failed after the request was sent and before any
// answer, and which resgen kept net/http from sending again by itself:
// every further attempt is resgen's, by its policy.
var ErrNotResent = errors.New("the connection failed after the request was sent, before any answer; resgen makes any further attempt itself")

// resend says what net/http could send again by itself.
type resend uint8

const (
	resendNever resend = iota // net/http never sends it again once written
	resendBody                // it sends it again through its GetBody: gate GetBody
	resendEmpty               // a bodiless GET-like request: give it an empty body and gate that
	resendKey                 // a bodiless keyed request of another method: spell the key in lower case
)

// resendOf classifies r as net/http's isReplayable does.
func resendOf(r *http.Request) resend {
	empty := noBody(r)
	if !empty && r.GetBody == nil {
		return resendNever
	}
	switch r.Method {
	case "", "GET", "HEAD", "OPTIONS", "TRACE":
		if empty {
			return resendEmpty
		}
		return resendBody
	}
	if _, ok := r.Header["Idempotency-Key"]; !ok {
		if _, ok := r.Header["X-Idempotency-Key"]; !ok {
			return resendNever
		}
	}
	if empty {
		return resendKey
	}
	return resendBody
}

// identity is the transfer encoding of the empty body: with it net/http
// neither probes the body nor sends Content-Length or Transfer-Encoding,
// so the request goes out exactly as one without a body. Never modified.
var identity = []string{"identity"}

// emptyBody is the body of a bodiless GET-like request on the wire.
type emptyBody struct{}

func (emptyBody) Read([]byte) (int, error) { return 0, io.EOF }
func (emptyBody) Close() error             { return nil }

// resendGate decides and counts net/http's sends again of one attempt.
// It holds the attempt's ClientTrace: one hook counts headers written and
// first answer bytes read, so that GetBody can tell a send again (one
// event since the last GetBody: written, no answer) from a redirect
// (written and answered) or a send of which nothing was written (none).
type resendGate struct {
	trace  httptrace.ClientTrace
	events atomic.Int32
	e      *Engine
	budget *Budget                       // the retry policy's, nil when none
	orig   func() (io.ReadCloser, error) // the request's own GetBody; nil: emptyBody

	mu     sync.Mutex // GetBody may be called from a transport's goroutine
	mark   int32      // events at the last GetBody
	left   int        // sends again still allowed
	resent int        // sends again allowed so far
}

// start fills the gate for the next attempt of c and returns ctx with its
// trace.
func (g *resendGate) start(c *call, ctx context.Context) context.Context {
	g.e = c.op.e
	if p := c.op.retry; p != nil && p.RetryOn.Transport && !c.trial {
		g.left, g.budget = c.max-c.tries, p.Budget
	}
	tick := func() { g.events.Add(1) }
	g.trace.WroteHeaders, g.trace.GotFirstResponseByte = tick, tick
	return httptrace.WithClientTrace(ctx, &g.trace)
}

// getBody is the wire request's GetBody.
func (g *resendGate) getBody() (io.ReadCloser, error) {
	g.mu.Lock()
	n := g.events.Load()
	since := n - g.mark
	g.mark = n
	if since == 1 { // sent, no answer: net/http would send it again
		if g.left <= 0 || g.budget != nil && !g.e.budget.withdraw(g.e.now(), *g.budget) {
			g.mu.Unlock()
			return nil, ErrNotResent
		}
		g.left--
		g.resent++
	}
	g.mu.Unlock()
	if g.orig != nil {
		return g.orig()
	}
	return emptyBody{}, nil
}

// sent returns how many times net/http sent the attempt's request again.
// After a 301, 302 or 303 net/http builds a bodiless request of its own,
// which it may send again without asking GetBody: when the attempt got an
// answer, the trace's count shows those too (two events per answered
// request, one per send again), and they are charged to the budget.
func (g *resendGate) sent(resp *http.Response) int {
	g.mu.Lock()
	n := g.resent
	g.mu.Unlock()
	if resp == nil {
		return n
	}
	hops := 1
	for r := resp.Request; r != nil && r.Response != nil && hops < 100; r = r.Response.Request {
		hops++
	}
	if all := int(g.events.Load()) - 2*hops; all > n {
		if g.budget != nil {
			for range all - n {
				g.e.budget.charge(g.e.now())
			}
		}
		n = all
	}
	return n
}

// wire prepares r, the request of the next attempt, for the wire (see
// above). g is the gate made for it before the editors ran, or nil;
// ownHeader says r's Header is not the caller's. It returns the request to
// send and its gate, nil when net/http cannot send it again.
func (c *call) wire(r *http.Request, g *resendGate, ownHeader bool) (*http.Request, *resendGate) {
	how := resendOf(r)
	switch how {
	case resendNever:
		return r, g
	case resendKey:
		if !ownHeader {
			if r == c.req {
				r = r.WithContext(r.Context())
			}
			r.Header = r.Header.Clone()
		}
		for _, k := range [...][2]string{{"Idempotency-Key", "idempotency-key"}, {"X-Idempotency-Key", "x-idempotency-key"}} {
			if v, ok := r.Header[k[0]]; ok {
				delete(r.Header, k[0])
				r.Header[k[1]] = append(r.Header[k[1]], v...)
			}
		}
		return r, g
	}
	if g == nil { // an editor made r one that net/http could send again
		g = new(resendGate)
		ctx := g.start(c, r.Context())
		if r == c.req {
			r = r.WithContext(ctx)
		} else {
			*r = *r.WithContext(ctx)
		}
	}
	if how == resendEmpty {
		r.Body, r.TransferEncoding, g.orig = emptyBody{}, identity, nil
	} else {
		g.orig = r.GetBody
	}
	r.GetBody = g.getBody
	return r, g
}

// resent records n sends again of the attempt in flight, made by net/http
// as the gate allowed: each is an attempt that failed in transport,
// followed at once by the next.
func (c *call) resent(n int) {
	e := c.op.e
	for range n {
		if e.observe {
			e.obs.Attempt(AttemptEvent{Operation: c.op.spec.Name, Attempt: c.attempts, Err: ErrResent})
		}
		c.retrying(0, "transport: "+ErrResent.Error())
		c.attempts++
		c.tries++
	}
}
