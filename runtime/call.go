package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/resgen/resgen/runtime/wire"
)

// putFirst puts value before any value of the header name in *h, which
// it makes when nil.
func putFirst(h *http.Header, name, value string) {
	if *h == nil {
		*h = make(http.Header, 2)
	}
	(*h)[name] = append([]string{value}, (*h)[name]...)
}

// CallOption adjusts one call (or, given to the generated client's
// WithCallOptions, every call). No option makes an operation that is not
// retry-safe retry: they can only take attempts away.
type CallOption struct {
	kind        optKind
	n           int
	d           time.Duration
	name, value string
	edit        RequestEditor
}

type optKind uint8

const (
	optNoRetry optKind = iota + 1
	optMaxAttempts
	optAttemptTimeout
	optTotalTimeout
	optHeader
	optEditor
	optAttemptHeader
	optMaxBody
	optMaxErrorBody
	optIdleTimeout
	optReadTimeouts
	optMaxEventSize
	optPagesTotal // pages.go: read by the iteration, not by a call
	optMaxPages
	optNextURL
)

// WithNoRetry makes the call a single attempt; a failure that would have
// been retried stops with ErrRetryDisabled.
func WithNoRetry() CallOption { return CallOption{kind: optNoRetry} }

// WithMaxAttempts lowers the call's attempts to n (at least 1); it never
// raises them above the policy's maxAttempts.
func WithMaxAttempts(n int) CallOption { return CallOption{kind: optMaxAttempts, n: n} }

// WithAttemptTimeout bounds each attempt of the call by d instead of the
// policy's timeout (d <= 0: no per-attempt bound). An attempt that runs
// out of it is retried like any timeout.
func WithAttemptTimeout(d time.Duration) CallOption {
	return CallOption{kind: optAttemptTimeout, d: d}
}

// WithTotalTimeout bounds the whole call, attempts and waits, by d instead
// of the policy's totalTimeout (d <= 0: none).
func WithTotalTimeout(d time.Duration) CallOption { return CallOption{kind: optTotalTimeout, d: d} }

// WithHeader sets a header on every attempt of the call, before the
// request editors run.
func WithHeader(name, value string) CallOption {
	return CallOption{kind: optHeader, name: name, value: value}
}

// WithRequestEditor runs fn on every attempt's request of the call, after
// the client's editors.
func WithRequestEditor(fn RequestEditor) CallOption { return CallOption{kind: optEditor, edit: fn} }

// WithAttemptHeader sends the attempt's number (1, 2, ...) in the header
// name on every attempt, so the server can tell a retry from a first try.
func WithAttemptHeader(name string) CallOption {
	return CallOption{kind: optAttemptHeader, name: name}
}

// apply takes the limits of opts into c; headers and editors are applied
// to each attempt's request in build.
func (c *call) apply(opts []CallOption) {
	for i := range opts {
		switch o := &opts[i]; o.kind {
		case optNoRetry:
			c.noRetry, c.max = true, 1
		case optMaxAttempts:
			c.max = max(min(c.max, o.n), 1)
		case optAttemptTimeout:
			c.timeout = max(o.d, 0)
		case optTotalTimeout:
			c.total = max(o.d, 0)
		case optHeader, optEditor, optAttemptHeader:
			c.edited = true
		case optMaxBody:
			c.maxBody = max(o.n, 0)
		case optMaxErrorBody:
			c.maxErr = max(o.n, 0)
		case optIdleTimeout:
			c.idle = max(o.d, 0)
		case optReadTimeouts:
			c.readTimeouts = true
		case optMaxEventSize:
			c.maxEvent = max(o.n, 0)
		}
	}
}

// edits applies the headers of opts to h (the attempt's own header map).
func (c *call) edits(h http.Header, opts []CallOption) {
	for i := range opts {
		switch o := &opts[i]; o.kind {
		case optHeader:
			h.Set(o.name, o.value)
		case optAttemptHeader:
			h.Set(o.name, strconv.Itoa(c.attempts+1))
		}
	}
}

// editors runs the editors of opts on r.
func editors(ctx context.Context, r *http.Request, opts []CallOption) error {
	for i := range opts {
		if o := &opts[i]; o.kind == optEditor {
			if err := o.edit(ctx, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// attemptRequest is what one attempt allocates: the request, its URL, the
// resend gate, the body reader and the spare body wrapper finish needs.
type attemptRequest struct {
	req    http.Request
	url    url.URL
	gate   resendGate
	body   bytesBody
	cancel cancelBody
}

// bytesBody re-reads the call's body; every attempt has its own. The
// request's Body is io.NopCloser of its *bytes.Reader, which net/http
// knows to be in memory: it writes headers and body at once, as for
// http.NewRequest's.
type bytesBody struct {
	rd   bytes.Reader
	data []byte
}

// get is the request's GetBody: the whole body again.
func (b *bytesBody) get() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b.data)), nil }

// build makes the request of the next attempt from the call's Request
// (its header and body, kept in c: a pointer to the Request itself would
// move it to the heap, as escape analysis sees one call struct as a
// whole).
func (c *call) build(ctx context.Context) (*http.Request, *resendGate, error) {
	op, e := c.op, c.op.e
	a := new(attemptRequest)
	a.url = c.u
	edits := c.edited
	// The first attempt sends the call's header map itself when nothing
	// may change it before a later attempt copies it.
	own := c.attempts > 0 || edits || len(e.editors) > 0 && c.max > 1
	h := c.header0
	if own {
		h = h.Clone()
	}
	if h == nil {
		h, own = make(http.Header, 2), true
	}
	tmp := http.Request{Method: op.spec.Method, URL: &a.url, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h, Host: a.url.Host}
	if u := c.up; u != nil {
		body, err := u.body()
		if err != nil {
			return nil, nil, err
		}
		c.upStop = context.AfterFunc(ctx, u.stop)
		if u.size == 0 {
			tmp.Body, tmp.GetBody = http.NoBody, noBody0
		} else {
			// GetBody only for a body that can be replayed: net/http
			// cannot send the others again either (resend.go).
			tmp.Body, tmp.ContentLength = body, u.size
			if u.replay {
				tmp.GetBody = u.body
			}
		}
	} else if body := c.body; body != nil {
		if len(body) == 0 {
			tmp.Body, tmp.GetBody = http.NoBody, noBody0
		} else {
			a.body.rd.Reset(body)
			a.body.data = body
			tmp.Body, tmp.ContentLength, tmp.GetBody = io.NopCloser(&a.body.rd), int64(len(body)), a.body.get
		}
	}
	if edits {
		c.edits(h, e.opts)
		c.edits(h, c.opts)
	}
	var g *resendGate
	if resendOf(&tmp) == resendGated && !e.h2.Load() {
		g = &a.gate
		ctx = g.start(c, ctx)
	}
	a.req = *tmp.WithContext(ctx) // WithContext's copy stays on the stack
	r := &a.req
	c.spareBody = &a.cancel
	// The operation's credentials, once per attempt (a token source is
	// asked again on a retry), before the client's editors.
	if err := e.authorize(ctx, op.auth, r); err != nil {
		return nil, nil, err
	}
	for _, ed := range e.editors {
		if err := ed(ctx, r); err != nil {
			return nil, nil, err
		}
	}
	if edits {
		if err := editors(ctx, r, e.opts); err != nil {
			return nil, nil, err
		}
		if err := editors(ctx, r, c.opts); err != nil {
			return nil, nil, err
		}
	}
	if edits || len(e.editors) > 0 {
		// Call checked its own headers; these are the editors' and options'.
		if err := checkHeader(op.spec.Name, r.Header); err != nil {
			return nil, nil, err
		}
	}
	r, g = c.wire(r, g, own)
	return r, g, nil
}

func noBody0() (io.ReadCloser, error) { return http.NoBody, nil }

// method and redactedURL describe the call's request for errors.
func (c *call) method() string {
	if c.req != nil {
		return c.req.Method
	}
	return c.op.spec.Method
}

func (c *call) redactedURL() string {
	if c.req != nil {
		return c.op.e.redact.url(c.req.URL)
	}
	return c.op.e.redact.url(&c.u)
}

// target is the call's URL: the engine's server, rq's path, its query.
// Common paths are joined without url.Parse (which allocates the URL and
// needs the joined string), by the same rule: Path is the unescaped path,
// RawPath the escaped one when escaping Path would not give it back.
func (e *engine) target(rq *wire.Request) (url.URL, error) {
	if b := e.serverURL; b != nil && !strings.ContainsAny(rq.Path, "?#") {
		p := rq.Path
		if e.serverPath != "" {
			p = e.serverPath + p
		}
		if path, err := url.PathUnescape(p); err == nil {
			u := *b
			u.Path, u.RawPath, u.RawQuery = path, "", rq.Query.Encode()
			if u.EscapedPath() != p {
				u.RawPath = p
			}
			return u, nil
		}
	}
	s := e.server + rq.Path
	if rq.Query.Len() > 0 {
		sep := "?"
		if strings.Contains(rq.Path, "?") {
			sep = "&"
		}
		s += sep + rq.Query.Encode()
	}
	u, err := url.Parse(s)
	if err != nil {
		return url.URL{}, err
	}
	u.Host = strings.TrimSuffix(u.Host, ":") // as http.NewRequest does
	return *u, nil
}

// parseServer keeps the server URL for target when it is a plain one
// (no user, query or fragment).
func (e *engine) parseServer() {
	u, err := url.Parse(e.server)
	if err != nil || e.server == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" || u.ForceQuery {
		return
	}
	u.Host = strings.TrimSuffix(u.Host, ":")
	e.serverURL, e.serverPath = u, u.EscapedPath()
}

// isNil says whether v holds a nil pointer, slice or map: an optional
// body left out.
func isNil(v any) bool {
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// answered wraps the error of a call that has an answer in out.
type answered struct{ err error }

func (a answered) Error() string { return a.err.Error() }

// Call runs one call of op for a generated method (package impl's Call):
// the breaker, the attempts (each built from rq), then the answer decoded
// into out by the struct tags of its fields (see decode.go). hasAnswer says
// out holds an HTTP answer; then a status of 400 or more comes with a
// *StatusError, and a declared body below 400 that did not decode with a
// *DecodeError. Without an answer err is the call's error (*CallError,
// *CircuitOpenError, or a request that could not be built). rq comes by
// value: behind the interface impl calls through, a pointer would escape
// and cost each call an allocation.
func (op *operation) Call(ctx context.Context, rq wire.Request, out wire.Typed, opts []CallOption) (hasAnswer bool, err error) {
	err = op.call(ctx, &rq, out, opts)
	if a, ok := err.(answered); ok {
		return true, a.err
	}
	return err == nil, err
}

// call is Call without its results split. An error that comes with an
// answer is wrapped in answered.
func (op *operation) call(ctx context.Context, rq *wire.Request, out wire.Typed, opts []CallOption) error {
	pl, err := op.planFor(out)
	if err != nil {
		return err
	}
	if rq.JSON != nil && !isNil(rq.JSON) {
		data, err := json.Marshal(rq.JSON)
		if err != nil {
			return errors.New(op.spec.Name + ": encode request body: " + err.Error())
		}
		rq.Body = data
	}
	u, err := op.e.target(rq)
	if err != nil {
		return errors.New(op.spec.Name + ": " + err.Error())
	}
	if len(opts) > 0 { // only a page iteration's call has a next URL
		if u, err = nextTarget(op.spec.Name, u, opts); err != nil {
			return err // before the breaker: nothing is sent
		}
	}
	if op.accept != nil {
		if rq.Header == nil {
			rq.Header = make(http.Header, 2)
		}
		if v := rq.Header["Accept"]; len(v) == 0 {
			// Shared by every call: its capacity is its length, so
			// an Add copies it, never writes into it.
			rq.Header["Accept"] = op.accept
		} else {
			putFirst(&rq.Header, "Accept", op.spec.Accept)
		}
	}
	if (rq.Body != nil || rq.Upload != nil) && rq.ContentType != "" {
		putFirst(&rq.Header, "Content-Type", rq.ContentType)
	}
	if err := checkHeader(op.spec.Name, rq.Header); err != nil {
		return err // before the breaker: nothing to send, nothing to count
	}
	var c call
	c.built, c.header0, c.body, c.u, c.opts, c.pl = true, rq.Header, rq.Body, u, opts, pl
	if rq.Upload != nil {
		c.up = newUpload(rq.Upload)
	}
	resp, _, err := op.do(ctx, &c)
	if err != nil {
		return err
	}
	err = op.decode(pl, &c, resp, out)
	if se, ok := err.(*StatusError); ok {
		u := c.u // a copy: only an error's URL leaves the stack
		se.URL = op.e.redact.url(&u)
	}
	c.reportEnd(err)
	if err != nil {
		return answered{err}
	}
	return nil
}
