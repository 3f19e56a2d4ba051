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
//   - A GET, HEAD, OPTIONS or TRACE goes out with a GetBody of resgen's
//     own around its own (a bodiless one with an empty body marked with
//     the "identity" transfer encoding, which net/http writes exactly as
//     no body: no Content-Length, no Transfer-Encoding, no probe). net/http
//     must call GetBody before it sends the request again, so each such
//     send is resgen's decision: allowed only while the policy would retry
//     a transport failure at once (an attempt left, RetryOn has transport,
//     a budget token), and then counted as an attempt (Attempts,
//     maxAttempts, the budget, the observer's events). Refused, the
//     attempt fails with ErrNotResent and the retry loop decides as for
//     any transport failure; so a send that must be alone (retries off, a
//     half-open trial, the last attempt) is never repeated. A 307 or 308
//     redirect also asks GetBody, and is followed as before: an httptrace
//     hook counts the headers written and the first bytes of answers, so
//     GetBody after a send without answer is a send again, after an
//     answer a redirect. Cost: the copy of the request with the gate, the
//     GetBody and hook closures and the trace's context (4 allocations),
//     and net/http's own wrapper of a request body (2 more); the
//     request's timeout covers the sends again, which are made at once.
//   - A keyed request of another method (POST, PUT, PATCH, DELETE) carries
//     its key under the lower-case field name ("idempotency-key"): the
//     same field to HTTP (names are case-insensitive; HTTP/2 lower-cases
//     every name), which net/http does not take as a key, so it never
//     sends the request again; resgen's retries resend it, same key.
//   - Anything else net/http never sends again once a byte of it is
//     written.
//
// Over HTTP/2 net/http sends a request again only when the server
// provably did not process it (REFUSED_STREAM, or a stream above a
// GOAWAY's last one), and HTTP/2 would send the empty body as an empty
// DATA frame (the server would see a GET of unknown length): once an
// answer came over HTTP/2 (Engine.h2), GETs go out as they are, without a
// gate; the first request of a client, before anything is known, has
// one. net/http may still repeat a send of which no byte was written,
// which is not on the wire and not counted. After a 301, 302 or 303
// redirect net/http sends a bodiless request of its own, which it may
// send again unseen.

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
	resendGated               // a GET-like request: give it the gate as body and GetBody
	resendKey                 // a keyed request of another method: spell the key in lower case
)

// resendOf classifies r as net/http's isReplayable does.
func resendOf(r *http.Request) resend {
	if !noBody(r) && r.GetBody == nil {
		return resendNever
	}
	switch r.Method {
	case "", "GET", "HEAD", "OPTIONS", "TRACE":
		return resendGated
	}
	if _, ok := r.Header["Idempotency-Key"]; ok {
		return resendKey
	}
	if _, ok := r.Header["X-Idempotency-Key"]; ok {
		return resendKey
	}
	return resendNever
}

// identity is the transfer encoding of the empty body: with it net/http
// neither probes the body nor sends Content-Length or Transfer-Encoding,
// so the request goes out exactly as one without a body. Never modified.
var identity = []string{"identity"}

// emptyBody is the body of a bodiless GET-like request on the wire. As an
// io.WriterTo it is "copied" without net/http reaching for a buffer (a
// plain Reader would make the connection's ReadFrom allocate 32 KiB).
type emptyBody struct{}

func (emptyBody) Read([]byte) (int, error)         { return 0, io.EOF }
func (emptyBody) WriteTo(io.Writer) (int64, error) { return 0, nil }
func (emptyBody) Close() error                     { return nil }

// resendGate decides and counts net/http's sends again of one attempt. It
// holds the attempt's ClientTrace: one hook counts headers written and
// first answer bytes read, so that GetBody can tell a send again (one
// event since the last GetBody: written, no answer) from a redirect
// (written and answered) or a send of which nothing was written (none).
// The hooks run before net/http flushes the headers and before it hands
// an answer on, so the count is never late.
type resendGate struct {
	trace  httptrace.ClientTrace
	events atomic.Int32
	orig   func() (io.ReadCloser, error) // the request's own GetBody; nil: emptyBody
	e      *Engine
	budget *Budget // the retry policy's, nil when none

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
func (g *resendGate) sent() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.resent
}

// wire prepares r, the request of the next attempt, for the wire (see
// above); ownHeader says r's Header is not the caller's. It returns the
// request to send and its gate, nil when net/http cannot send it again.
// g, when not nil, is the gate started for r before the editors ran (r
// carries its trace).
func (c *call) wire(r *http.Request, g *resendGate, ownHeader bool) (*http.Request, *resendGate) {
	switch resendOf(r) {
	case resendNever:
		return r, nil
	case resendGated:
		if g == nil && c.op.e.h2.Load() {
			return r, nil
		}
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
		return r, nil
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
	if noBody(r) {
		r.Body, r.TransferEncoding = emptyBody{}, identity
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
