package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
)

// net/http's Transport sends a request again by itself when a reused
// connection fails after the request was written and before any answer,
// if the request is "replayable": no body (or a GetBody) and a GET, HEAD,
// OPTIONS or TRACE, or an Idempotency-Key or X-Idempotency-Key header
// (transport.go, shouldRetryRequest; request.go, isReplayable). Left
// alone, one attempt of resgen could reach the server several times
// unseen. So the runtime prepares the request it sends (its own copy,
// never the caller's) by what net/http could do with it:
//
//   - A GET, HEAD, OPTIONS or TRACE goes out with an empty body marked
//     with the "identity" transfer encoding, which net/http writes exactly
//     as no body (no Content-Length, no Transfer-Encoding, no probe), and
//     a GetBody of resgen's own (around its own, for a GET with a body).
//     net/http must call GetBody before it sends the request again. Each
//     send again is an attempt that failed in transport, retried at once:
//     GetBody lets it through while the call has attempts left (RetryOn
//     has transport, not a half-open trial) and the budget has room, and
//     it counts in Attempts and maxAttempts, is taken from the budget, and
//     has its AttemptEvent (Err ErrResent) and RetryWait (0). The first
//     one it would not let through it refuses: the attempt fails with
//     ErrNotResent. So resends are capped, not only counted: a call never
//     makes more than maxAttempts sends, however many reused connections
//     die in turn, and a send that must be alone (no retry, a policy that
//     does not retry transport failures, a spent budget, a half-open
//     trial, the last attempt) is sent once. A 307 or 308 redirect also
//     asks GetBody, and is followed as before: one hook counts the headers
//     written and the first bytes of answers, which tells a send without
//     answer (a send again) from an answered one (a redirect). A 301, 302
//     or 303 makes the next hop a bodiless GET of net/http's own, whose
//     sends again cannot be refused: they are counted (exactly once the
//     call has an answer), not capped.
//   - A keyed request of another method (POST, PUT, PATCH, DELETE) carries
//     its key under the lower-case field name ("idempotency-key"): the
//     same field to HTTP (names are case-insensitive; HTTP/2 lower-cases
//     every name), which net/http does not take as a key, so it never
//     sends the request again; resgen's retries resend it, same key.
//   - Anything else net/http never sends again once a byte of it is
//     written.
//
// Cost, for a GET: the copy of the request with the gate, the hook's
// closure, the GetBody closure and httptrace's context (4 allocations;
// learning httptrace's private context key would spare the last one, at
// the price of depending on its internals), and net/http's
// copy of a request that has a body, with its wrapper of the body (2
// more). On loopback, any body at all, however empty, costs net/http
// about 1.4 µs (2.6%) a GET over a bodiless one; a body that net/http
// knows to be in memory (io.NopCloser of a *bytes.Reader, which spares
// the early flush of the headers) costs the same, and could not be
// shared: bytes.Reader's WriteTo writes its state even when empty.
// Over HTTP/2 net/http sends a request again only when the server
// provably did not process it (REFUSED_STREAM, or a stream above a
// GOAWAY's last one), and HTTP/2 would send the empty body as an empty
// DATA frame (the server would see a GET of unknown length): once an
// answer came over HTTP/2 (engine.h2), GETs go out as they are, with
// neither hook nor gate. net/http may still repeat a send of which no byte
// was written, which is not on the wire and not counted.

// ErrResent is the Err of the AttemptEvent of a send that net/http made
// again by itself after the reused connection failed before any answer.
// The send is counted as an attempt.
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
	resendGated               // a GET-like request: cap and count net/http's sends again
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

// resendGate caps and counts net/http's sends again of one attempt. Its
// ClientTrace has one hook for the headers written (one per send) and the
// first bytes of answers (one per answered send): since the last GetBody,
// one event is a send without answer, two an answered one (a redirect),
// none a send of which nothing was written. The hook runs before net/http
// flushes the headers and before it hands an answer on, and net/http waits
// for its writer before it reports a failed send, so the count is never
// late.
type resendGate struct {
	trace     httptrace.ClientTrace
	events    atomic.Int32
	mark      atomic.Int32 // events at the last GetBody
	resent    atomic.Int32 // sends again that GetBody let through
	withdrawn atomic.Int32 // of those, taken from the budget
	left      int32        // sends again allowed: attempts left; 0 when the send must be alone
	e         *engine
	budget    *Budget                       // the policy's; nil: none
	orig      func() (io.ReadCloser, error) // the request's own GetBody; nil: emptyBody
}

// start fills the gate for the next attempt of c and returns the context
// of the attempt, ctx with the gate's trace.
func (g *resendGate) start(c *call, ctx context.Context) context.Context {
	g.e = c.op.e
	if p := c.op.retry; p != nil && p.RetryOn.Transport && !c.trial && !c.guard {
		g.left, g.budget = int32(c.max-c.tries), p.Budget
	}
	tick := func() { g.events.Add(1) }
	g.trace.WroteHeaders, g.trace.GotFirstResponseByte = tick, tick
	// A caller's own ClientTrace keeps its hooks: WithClientTrace calls both.
	return httptrace.WithClientTrace(ctx, &g.trace)
}

// get is the GetBody of the attempt's request. net/http calls it before
// it sends the request again after a written send had no answer: that
// send again is let through while the call has attempts left and the
// budget has room, else refused with ErrNotResent, which ends the
// attempt. It gives the body again, uncounted, for a redirect (the send
// was answered) or after a send of which nothing was written.
func (g *resendGate) get() (io.ReadCloser, error) {
	n := g.events.Load()
	if n-g.mark.Swap(n) == 1 {
		if g.resent.Load() >= g.left || g.budget != nil && !g.e.budget.withdraw(g.e.now(), *g.budget) {
			return nil, ErrNotResent
		}
		if g.budget != nil {
			g.withdrawn.Add(1)
		}
		g.resent.Add(1)
	}
	if g.orig != nil {
		return g.orig()
	}
	return emptyBody{}, nil
}

// sent returns how many times net/http sent the attempt's request again.
// After an answer, it is exact: each send wrote its headers once, and
// each request of the redirect chain was answered once, so the events
// are the sends plus the requests of the chain. That includes the sends
// again of a hop that a 301, 302 or 303 redirect made a bodiless GET,
// which have no GetBody to go through. After a failure, it is what get
// let through.
func (g *resendGate) sent(resp *http.Response) int {
	n := int(g.resent.Load())
	if resp != nil {
		hops := 1
		for r := resp.Request; r != nil && r.Response != nil && hops < 100; r = r.Response.Request {
			hops++
		}
		n = max(n, int(g.events.Load())-2*hops)
	}
	return n
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
	r.GetBody = g.get
	return r, g
}

// resent records n sends again of the attempt in flight, made by net/http
// by itself: each is an attempt that failed in transport, followed at once
// by the next, and a retry of the budget (withdrawn of them already taken
// by the gate).
func (c *call) resent(n, withdrawn int) {
	e := c.op.e
	if p := c.op.retry; p != nil && p.Budget != nil && n > withdrawn {
		e.budget.charge(e.now(), n-withdrawn)
	}
	for range n {
		if e.observe {
			e.obs.Attempt(AttemptEvent{Context: c.caller, Operation: c.op.spec.Name, Attempt: c.attempts, Err: ErrResent})
		}
		c.retrying(0, "transport: "+ErrResent.Error())
		c.attempts++
		c.tries++
	}
}
