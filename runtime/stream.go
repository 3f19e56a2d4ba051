package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/resgen/resgen/runtime/wire"
)

// Event is one event of a stream.
type Event[T any] struct {
	// Data is the event's data decoded into its schema type (string T:
	// the raw data text, SSE's data lines joined with "\n").
	Data T
	// ID is the SSE id field ("" when none; always "" for JSON lines).
	ID string
	// Event is the SSE event field ("" when none).
	Event string
	// Retry is the SSE retry field, 0 when none.
	Retry time.Duration
}

// Stream is an open event stream (text/event-stream or JSON lines), the
// field of a generated response that Events reads. Its call's attempt and
// total timeouts ended with the response headers (unless
// WithReadTimeouts); from then on the caller's context and the idle
// timeout bound it. Close it when done.
//
// A stream the server breaks after its headers came (a reset, a body cut
// short, an event cut by the end of the body, an idle timeout) is an error
// from Events, never a silent end, and counts as one more failure on the
// operation's breaker. An operation with resume on (x-resilience resume,
// only when it is retry-safe) instead reconnects an SSE stream whose
// events carry ids: it waits the server's retry hint (at most the retry
// policy's maxRetryAfter, or 30s), calls again through the breaker and
// the retry policy with Last-Event-ID, and drops the events the server
// sends again, so Events yields one unbroken sequence. Resumes that bring
// no new event are bounded by the retry policy's maxAttempts (3 without
// one); an open breaker ends the stream with its *CircuitOpenError.
type Stream[T any] struct{ c *streamConn }

// streamer is what decode sees of a *Stream[T] it makes by reflection.
type streamer interface {
	attach(c *streamConn)
	conn() *streamConn
}

var streamerType = reflect.TypeFor[streamer]()

func (s *Stream[T]) attach(c *streamConn) { s.c = c }
func (s *Stream[T]) conn() *streamConn    { return s.c }

// Events returns the stream's events in order; it can be ranged over
// once. An event whose data does not decode comes with a *DecodeError
// (the range may go on); a broken stream ends with a *StreamError, a
// clean end of the body ends the range. Leaving the range early closes the
// stream.
func (s *Stream[T]) Events() iter.Seq2[Event[T], error] {
	return func(yield func(Event[T], error) bool) {
		c := s.c
		if c == nil {
			yield(Event[T]{}, errors.New("runtime: Events of a Stream no call made"))
			return
		}
		if c.used {
			yield(Event[T]{}, errors.New("runtime: Events of a Stream ranged over twice"))
			return
		}
		c.used = true
		defer c.close()
		_, text := any((*T)(nil)).(*string)
		for {
			raw, err := c.next()
			if err == io.EOF {
				return
			}
			if err != nil {
				yield(Event[T]{}, err)
				return
			}
			ev := Event[T]{ID: raw.id, Event: raw.event, Retry: raw.retry}
			var derr error
			if text {
				*any(&ev.Data).(*string) = string(raw.data)
			} else if err := json.Unmarshal(raw.data, &ev.Data); err != nil {
				derr = &DecodeError{Operation: c.op.spec.Name, StatusCode: c.status, Attempts: c.attempts, Err: err}
			}
			if !yield(ev, derr) {
				return
			}
		}
	}
}

// Close closes the stream: its connection, its contexts, a resume waiting.
// It may be called more than once, and while Events runs (which then
// ends).
func (s *Stream[T]) Close() error {
	if s == nil || s.c == nil {
		return nil
	}
	return s.c.close()
}

// StreamError is the error that ends a stream broken after its headers
// came: Err says how (an *EventTooLargeError, ErrIdleTimeout, an
// unexpected end of the body, or when a resume failed its
// *CircuitOpenError, *CallError or *StatusError).
type StreamError struct {
	Operation string
	// Events is how many events the stream delivered.
	Events int
	// LastEventID is the id of the last event delivered ("" none).
	LastEventID string
	// Resumes is how many times the stream reconnected.
	Resumes int
	Err     error
}

func (e *StreamError) Error() string {
	s := e.Operation + ": stream broken after " + strconv.Itoa(e.Events) + " events"
	if e.Resumes > 0 {
		s += " and " + strconv.Itoa(e.Resumes) + " resumes"
	}
	return s + ": " + e.Err.Error()
}

func (e *StreamError) Unwrap() error { return e.Err }

// maxResumeWait bounds the server's retry hint without a retry policy's
// maxRetryAfter.
const maxResumeWait = 30 * time.Second

// recentIDs is how many delivered ids a resumable stream remembers to drop
// the events a server sends again after a resume.
const recentIDs = 1024

// streamConn is a stream's connection(s) and parser state.
type streamConn struct {
	op     *operation
	ctx    context.Context // the caller's
	how    how
	pl     *plan
	status int
	// attempts is the call's that got the stream (its DecodeErrors say it).
	attempts int
	max      int
	// The request, to call again on a resume.
	header http.Header
	body   []byte
	u      url.URL
	opts   []CallOption

	mu     sync.Mutex
	cur    *streamBody
	closed bool
	rctx   context.Context // a resume's context: ctx ended by close
	stop   context.CancelFunc

	used bool
	lr   *lineReader
	sse  sseParser

	idBuf      string // the spec's last event ID buffer
	lastID     string // the id of the last event delivered
	firstID    string // the id of the first event delivered
	events     int
	resumes    int
	noProgress int // resumes since the last event delivered
	// After a resume: drop what the server sends again.
	skipping, untilLast bool
	seen                map[string]struct{}
	ring                []string
	ringAt              int
}

func newStreamConn(op *operation, c *call, dc *decodeCase, body io.ReadCloser) *streamConn {
	max := c.maxEvent
	if max <= 0 {
		max = DefaultMaxEventSize
	}
	sb, ok := body.(*streamBody)
	if !ok {
		sb = &streamBody{rc: body, op: op, caller: c.caller}
	}
	sc := &streamConn{op: op, ctx: c.caller, how: dc.how, pl: c.pl, status: c.status, attempts: c.attempts, max: max,
		header: c.header0, body: c.body, u: c.u, opts: c.opts, cur: sb}
	sc.lr = newLineReader(sb, max)
	sc.sse.lr = sc.lr
	return sc
}

// read returns the next event of the current body.
func (c *streamConn) read() (rawEvent, error) {
	if c.how == howJSONL {
		line, err := nextLine(c.lr)
		return rawEvent{data: line}, err
	}
	return c.sse.next(&c.idBuf)
}

// next returns the next event to deliver, resuming when it may; io.EOF at
// a clean end (or once the stream is closed).
func (c *streamConn) next() (rawEvent, error) {
	for {
		ev, err := c.read()
		if err == nil {
			if c.skip(&ev) {
				continue
			}
			c.delivered(&ev)
			return ev, nil
		}
		if err == io.EOF || c.isClosed() {
			return ev, io.EOF
		}
		if err == errPartialEvent {
			c.op.lateFailure(c.ctx) // a clean end of the body, not one of a stream
		}
		if !c.resumable(err) {
			return ev, c.fail(err)
		}
		if err := c.resume(err); err != nil {
			return ev, err
		}
	}
}

func (c *streamConn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

func (c *streamConn) fail(err error) error {
	return &StreamError{Operation: c.op.spec.Name, Events: c.events, LastEventID: c.lastID, Resumes: c.resumes, Err: err}
}

// resumable says whether the break err may be resumed: resume is on, the
// operation retry-safe, the stream SSE, the break the server's, and no
// event was delivered that an id does not place.
func (c *streamConn) resumable(err error) bool {
	spec := &c.op.spec
	if !spec.Resume || spec.NotRetrySafe || c.how != howSSE || c.ctx.Err() != nil {
		return false
	}
	var big *EventTooLargeError
	if errors.As(err, &big) {
		return false
	}
	return c.lastID != "" || c.events == 0
}

// delivered notes the event ev as delivered.
func (c *streamConn) delivered(ev *rawEvent) {
	c.events++
	c.noProgress = 0
	if ev.hasID {
		c.lastID = ev.id
		if c.events == 1 {
			c.firstID = ev.id
		}
		if c.op.spec.Resume {
			c.remember(ev.id)
		}
	} else if c.idBuf != "" {
		c.lastID = c.idBuf
	}
}

// remember keeps id among the last recentIDs delivered.
func (c *streamConn) remember(id string) {
	if c.seen == nil {
		c.seen = make(map[string]struct{}, recentIDs)
		c.ring = make([]string, recentIDs)
	}
	if old := c.ring[c.ringAt]; old != "" {
		delete(c.seen, old)
	}
	c.ring[c.ringAt] = id
	c.ringAt = (c.ringAt + 1) % recentIDs
	c.seen[id] = struct{}{}
}

// skip says whether ev, read after a resume, is one the caller has seen: the
// server sent again the last event, some recent ones, or (it ignored
// Last-Event-ID) the whole stream from its first event up to the last seen.
func (c *streamConn) skip(ev *rawEvent) bool {
	if !c.skipping {
		return false
	}
	switch {
	case !ev.hasID:
	case ev.id == c.lastID:
		c.skipping, c.untilLast = false, false
		return true
	case c.untilLast:
		return true
	case ev.id == c.firstID:
		c.untilLast = true
		return true
	default:
		if _, ok := c.seen[ev.id]; ok {
			return true
		}
	}
	c.skipping, c.untilLast = false, false
	return false
}

// resume reconnects after the break cause, or returns the error that ends
// the stream.
func (c *streamConn) resume(cause error) error {
	limit := 3
	if r := c.op.retry; r != nil {
		limit = r.MaxAttempts
	}
	if c.noProgress >= limit {
		return c.fail(cause)
	}
	c.noProgress++
	ctx, ok := c.resumeContext()
	if !ok {
		return io.EOF
	}
	if wait := c.wait(); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			if c.isClosed() {
				return io.EOF
			}
			return c.fail(ctx.Err())
		}
	}
	c.resumes++
	if e := c.op.e; e.log.Enabled(ctx, slog.LevelDebug) {
		e.log.LogAttrs(ctx, slog.LevelDebug, "resuming stream "+c.op.spec.Name,
			slog.String("op", c.op.spec.Name), slog.String("last_event_id", c.lastID),
			slog.Int("events", c.events), slog.String("reason", cause.Error()))
	}
	sb, err := c.reconnect(ctx)
	if err != nil {
		if err == io.EOF || c.isClosed() {
			return io.EOF
		}
		return c.fail(err)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		sb.Close()
		return io.EOF
	}
	c.cur.Close()
	c.cur = sb
	c.mu.Unlock()
	c.lr = newLineReader(sb, c.max)
	c.sse.lr = c.lr
	c.skipping = c.lastID != ""
	return nil
}

// wait is how long to wait before a resume: the server's retry hint,
// bounded, else the retry policy's backoff.
func (c *streamConn) wait() time.Duration {
	r := c.op.retry
	if h := c.sse.retry; h > 0 {
		limit := maxResumeWait
		if r != nil && r.MaxRetryAfter > 0 {
			limit = r.MaxRetryAfter
		}
		return min(h, limit)
	}
	if r == nil {
		return 0
	}
	return backoff(r, c.noProgress, 0)
}

// resumeContext returns the context resumes run in, ended by close.
func (c *streamConn) resumeContext() (context.Context, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, false
	}
	if c.rctx == nil {
		c.rctx, c.stop = context.WithCancel(c.ctx)
	}
	return c.rctx, true
}

// reconnect calls the operation again, as Call does, with Last-Event-ID,
// and returns the new stream's body; io.EOF when the server answers 204
// No Content, which the SSE spec makes its way to say the stream is over.
func (c *streamConn) reconnect(ctx context.Context) (*streamBody, error) {
	op := c.op
	h := c.header.Clone()
	if h == nil {
		h = make(http.Header, 1)
	}
	if c.lastID != "" {
		h.Set("Last-Event-ID", c.lastID)
	}
	var cl call
	cl.built, cl.header0, cl.body, cl.u, cl.opts, cl.pl = true, h, c.body, c.u, c.opts, c.pl
	resp, _, err := op.do(ctx, &cl)
	if err != nil {
		return nil, err
	}
	out := reflect.New(c.pl.typ.Elem()).Interface().(wire.Typed)
	err = op.decode(c.pl, &cl, resp, out)
	if se, ok := err.(*StatusError); ok {
		u := cl.u
		se.URL = op.e.redact.url(&u)
	}
	cl.reportEnd(err)
	if dc := c.pl.lookup(resp.StatusCode).by(resp.Header); err == nil && dc != nil && dc.how == c.how && resp.StatusCode < 400 {
		s := reflect.ValueOf(out).Elem().Field(dc.field).Interface().(streamer)
		return s.conn().cur, nil
	}
	resp.Body.Close()
	if err == nil && resp.StatusCode == http.StatusNoContent {
		return nil, io.EOF
	}
	if err == nil {
		err = errors.New("the resumed call answered " + strconv.Itoa(resp.StatusCode) + ", not a stream")
	}
	return nil, err
}

// close closes the current body and ends a resume in progress.
func (c *streamConn) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if c.stop != nil {
		c.stop()
	}
	return c.cur.Close()
}
