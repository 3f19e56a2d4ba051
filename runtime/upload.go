package runtime

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/resgen/resgen/runtime/wire"
)

// A streamed request body (the io.Reader a generated method takes for a
// binary body, a raw WithBody body or a multipart file part) is read while
// each attempt sends it, never held whole. A call sends it again, on a
// retry or when net/http resends a request by itself (resend.go), only when
// it can be replayed:
//
//   - a *bytes.Reader, *strings.Reader, *os.File or any io.ReadSeeker,
//     from the position it had at the call's start (a reader that is also
//     an io.ReaderAt is read through its own section by each attempt; a
//     plain seeker is seeked back, once the previous attempt can no
//     longer read it); a seeker whose Seek fails (a pipe's *os.File) is a
//     plain reader;
//   - a *bytes.Buffer: its bytes at the call's start;
//   - Opener's reader, opened anew by each attempt;
//   - a multipart body whose file parts all can.
//
// Any other reader is sent once: the call makes one attempt, and a failure
// that would have been retried stops with ErrBodyNotReplayable; the
// attempt's request has no GetBody, so net/http cannot send it again
// either. Content-Length is sent when the size is known (bytes, seekers),
// else the body goes chunked. A reader that fails while sent fails the
// attempt as a request that could not be built: not retried, not counted
// by the breaker. A multipart body's framing (boundary included) is fixed
// once per call, so every attempt sends the same bytes; its text and JSON
// parts are held, its files streamed in turn. No io.Pipe and no goroutine:
// the framing is known before the first byte is sent, so an attempt's body
// is the framing's pieces and the files read in turn (nothing to leak when
// an attempt fails, and Content-Length is known when every size is). The call
// closes what an Opener opened; it closes the caller's own reader only
// when that is a plain reader (not replayable), an io.Closer, and its
// attempt is cancelled or times out while sending it: net/http waits for
// a body's Read to return before the attempt ends, and closing is what
// ends a Read that blocks (a pipe's).

// ErrBodyNotReplayable is the Stop of a call whose failure would have been
// retried but whose request body is a stream it cannot send again (see
// Opener).
var ErrBodyNotReplayable = errors.New("request body cannot be replayed: one attempt")

// Opener makes a request body (or a multipart file's Content) that open
// opens anew for each attempt, so the call can retry it: a file opened by
// name, an object fetched again. Each attempt closes what it opened. The
// size is not known: the body goes chunked.
func Opener(open func() (io.ReadCloser, error)) io.Reader { return wire.NewOpener(open) }

// errBodyTaken is what an attempt's body reads once a later attempt took
// its seeker.
var errBodyTaken = errors.New("the request body was taken by a later attempt")

// sourceKind is how a stream is read again.
type sourceKind uint8

const (
	srcOnce  sourceKind = iota // a plain reader: one attempt
	srcBytes                   // bytes held already
	srcAt                      // an io.ReaderAt: a section per attempt
	srcSeek                    // an io.ReadSeeker: seeked back, one attempt at a time
	srcOpen                    // an Opener
)

// source is one stream of an upload: the body, or a multipart file.
type source struct {
	kind  sourceKind
	r     io.Reader
	data  []byte
	start int64 // srcAt, srcSeek: the position at the call's start
	size  int64 // -1: unknown
}

// newSource sorts r by how it can be replayed.
func newSource(r io.Reader) source {
	switch v := r.(type) {
	case *bytes.Buffer:
		data := v.Next(v.Len())
		return source{kind: srcBytes, data: data, size: int64(len(data))}
	case *wire.Opener:
		return source{kind: srcOpen, r: r, size: -1}
	case io.ReadSeeker:
		s := source{kind: srcSeek, r: r, size: -1}
		if _, ok := r.(io.ReaderAt); ok {
			s.kind = srcAt
		}
		start, err := v.Seek(0, io.SeekCurrent)
		if err != nil {
			return source{kind: srcOnce, r: r, size: -1}
		}
		end, err := v.Seek(0, io.SeekEnd)
		if err == nil {
			_, err = v.Seek(start, io.SeekStart)
		}
		if err != nil || end < start {
			return source{kind: srcOnce, r: r, size: -1}
		}
		s.start, s.size = start, end-start
		return s
	}
	return source{kind: srcOnce, r: r, size: -1}
}

// upload is the streamed body of one call.
type upload struct {
	mb     *wire.MultipartBody      // the framing and where each source goes; no framing for a plain body
	src    []source                 // mb's files, in order
	size   int64                    // -1: unknown
	replay bool                     // every source can be sent again
	seeks  bool                     // a source is a plain seeker: attempts take it in turn
	sent   bool                     // a first attempt's body was made
	cur    atomic.Pointer[sentBody] // the body sent last; closed when its attempt ends early
}

// newUpload makes the upload of r.
func newUpload(r io.Reader) *upload {
	mb, ok := r.(*wire.MultipartBody)
	if !ok {
		mb = &wire.MultipartBody{Files: []wire.FilePart{{Content: r}}}
	}
	u := &upload{mb: mb, src: make([]source, len(mb.Files))}
	for i, f := range mb.Files {
		u.src[i] = newSource(f.Content)
	}
	u.size, u.replay = int64(len(mb.Framing)), true
	for i := range u.src {
		s := &u.src[i]
		if s.size < 0 || u.size < 0 {
			u.size = -1
		} else {
			u.size += s.size
		}
		u.replay = u.replay && s.kind != srcOnce
		u.seeks = u.seeks || s.kind == srcSeek
	}
	return u
}

// body makes the body of the next attempt (or of a resend). A plain
// seeker is taken from the previous attempt's body first, so two bodies
// never read it at once.
func (u *upload) body() (io.ReadCloser, error) {
	if u.sent && !u.replay {
		return nil, ErrBodyNotReplayable
	}
	u.sent = true
	if prev := u.cur.Load(); u.seeks && prev != nil {
		prev.take()
	}
	b := &sentBody{u: u}
	u.cur.Store(b)
	return b, nil
}

// stop ends the body sent last: its attempt's context ended. net/http
// waits for its writer to stop reading the body before it returns, so a
// stream that blocks must be closed to end its Read: one an Opener
// opened, or the caller's plain reader when it is an io.Closer (a pipe);
// a reader that is neither holds the attempt until it returns.
func (u *upload) stop() {
	if b := u.cur.Load(); b != nil {
		b.abort()
	}
}

// readErr is the error the caller's stream gave while the last body was
// sent, nil if none.
func (u *upload) readErr() error {
	if b := u.cur.Load(); b != nil {
		return b.readErr()
	}
	return nil
}

// sentBody is one attempt's body: the framing and the sources in turn,
// each opened when reached.
type sentBody struct {
	u    *upload
	mu   sync.Mutex // held by Read; take waits for it
	next int        // the next piece: framing before source i (2i), source i (2i+1)
	r    io.Reader
	cmu  sync.Mutex // guards c and own, which Close and abort close even during a Read
	c    io.Closer  // the open piece's, when it has one (an Opener's)
	own  io.Closer  // the open piece's when it is a caller's plain reader that is a Closer
	dead atomic.Bool
	err  atomic.Pointer[error] // the first read error of a caller's stream
}

// Read reads the next bytes of the body.
func (b *sentBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.unlock()
	for {
		if b.dead.Load() {
			b.closePiece()
			return 0, errBodyTaken
		}
		if b.r == nil {
			if b.next > 2*len(b.u.src) {
				return 0, io.EOF
			}
			if err := b.open(); err != nil {
				b.fail(err)
				return 0, err
			}
		}
		n, err := b.r.Read(p)
		if err == io.EOF {
			b.closePiece()
			b.next++
			if n == 0 {
				continue
			}
			err = nil
		}
		if err != nil {
			b.fail(err)
		}
		return n, err
	}
}

// open opens piece b.next.
func (b *sentBody) open() error {
	u, i := b.u, b.next/2
	if b.next%2 == 0 {
		b.r = bytes.NewReader(u.mb.Framing[u.mb.FramingAt(i):u.mb.FramingEnd(i)])
		return nil
	}
	s := &u.src[i]
	switch s.kind {
	case srcBytes:
		b.r = bytes.NewReader(s.data)
	case srcAt:
		b.r = io.NewSectionReader(s.r.(io.ReaderAt), s.start, s.size)
	case srcSeek:
		if _, err := s.r.(io.Seeker).Seek(s.start, io.SeekStart); err != nil {
			return err
		}
		b.r = io.LimitReader(s.r, s.size)
	case srcOpen:
		rc, err := s.r.(*wire.Opener).Open()
		if err != nil {
			return err
		}
		b.cmu.Lock()
		b.r, b.c = rc, rc
		b.cmu.Unlock()
		if b.dead.Load() { // closed meanwhile
			b.closePiece()
		}
	default:
		b.r = s.r
		if c, ok := s.r.(io.Closer); ok {
			b.cmu.Lock()
			b.own = c
			b.cmu.Unlock()
		}
	}
	return nil
}

// unlock ends a Read, dropping the open piece when Close came meanwhile.
func (b *sentBody) unlock() {
	if b.dead.Load() {
		b.closePiece()
	}
	b.mu.Unlock()
}

// closePiece drops the open piece (Read holds mu), closing it if it
// was opened.
func (b *sentBody) closePiece() {
	b.closeOpened()
	b.r = nil
}

// closeOpened closes what an Opener opened, if anything; it may run
// during a Read, which it then ends (a stream blocked in Read).
func (b *sentBody) closeOpened() {
	b.cmu.Lock()
	c := b.c
	b.c, b.own = nil, nil
	b.cmu.Unlock()
	if c != nil {
		c.Close()
	}
}

// abort ends the body of an attempt whose context ended: Close, and the
// caller's plain reader, when it is an io.Closer, closed to end a Read
// that blocks (it is never sent again).
func (b *sentBody) abort() {
	b.dead.Store(true)
	b.cmu.Lock()
	own := b.own
	b.own = nil
	b.cmu.Unlock()
	if own != nil {
		own.Close()
	}
	b.closeOpened()
}

// fail keeps the first error of the caller's stream, unless the body
// was closed first: then the error is the close's (an opened stream
// closed during its Read), not the stream's.
func (b *sentBody) fail(err error) {
	if err != errBodyTaken && !b.dead.Load() {
		b.err.CompareAndSwap(nil, &err)
	}
}

// readErr is the error the caller's stream gave while sent, nil if none.
func (b *sentBody) readErr() error {
	if p := b.err.Load(); p != nil {
		return *p
	}
	return nil
}

// Close ends the body: it closes what an Opener opened, and never waits
// for a Read in progress (a caller's stream that blocks).
func (b *sentBody) Close() error {
	b.dead.Store(true)
	b.closeOpened()
	return nil
}

// take ends the body for a later attempt that reads the same seeker: it
// closes the body, then waits for any Read in progress (a seeker's does
// not block; an opened stream's ends when closed).
func (b *sentBody) take() {
	b.Close()
	b.mu.Lock()
	b.r = nil
	b.mu.Unlock()
}

// uploadError is the error of an attempt whose streamed body failed while
// it was read.
type uploadError struct{ err error }

func (e *uploadError) Error() string { return "reading the request body: " + e.err.Error() }

func (e *uploadError) Unwrap() error { return e.err }
