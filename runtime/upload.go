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
// parts are held, its files streamed in turn without a goroutine. The call
// never closes the caller's own reader (an Opener's it opened, it does).

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
	framing []byte   // a multipart body's; nil for a plain body
	at      []int    // where each source goes in framing
	src     []source // in order
	size    int64    // -1: unknown
	replay  bool     // every source can be sent again
	seeks   bool     // a source is a plain seeker: attempts take it in turn
	sent    bool     // a first attempt's body was made
	cur     *sentBody
}

// newUpload makes the upload of r.
func newUpload(r io.Reader) *upload {
	u := &upload{}
	if mb, ok := r.(*wire.MultipartBody); ok {
		u.framing = mb.Framing
		for _, f := range mb.Files {
			u.at = append(u.at, f.At)
			u.src = append(u.src, newSource(f.Content))
		}
	} else {
		u.at = []int{0}
		u.src = []source{newSource(r)}
	}
	u.size, u.replay = int64(len(u.framing)), true
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
	if u.seeks && u.cur != nil {
		u.cur.take()
	}
	b := &sentBody{u: u}
	u.cur = b
	return b, nil
}

// sentBody is one attempt's body: the framing and the sources in turn,
// each opened when reached.
type sentBody struct {
	u    *upload
	mu   sync.Mutex // held by Read; take waits for it
	next int        // the next piece: framing before source i (2i), source i (2i+1)
	r    io.Reader
	c    io.Closer // the open piece's, when it has one
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
		end := len(u.framing)
		if i < len(u.at) {
			end = u.at[i]
		}
		from := 0
		if i > 0 {
			from = u.at[i-1]
		}
		b.r = bytes.NewReader(u.framing[from:end])
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
		b.r, b.c = rc, rc
	default:
		b.r = s.r
	}
	return nil
}

// unlock ends a Read, closing the open piece when Close came meanwhile.
func (b *sentBody) unlock() {
	if b.dead.Load() {
		b.closePiece()
	}
	b.mu.Unlock()
}

func (b *sentBody) closePiece() {
	if b.c != nil {
		b.c.Close()
	}
	b.r, b.c = nil, nil
}

// fail keeps the first error of the caller's stream.
func (b *sentBody) fail(err error) {
	if err != errBodyTaken {
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

// Close ends the body. A Read in progress (a stream that blocks) closes
// its open piece when it returns: Close never waits for it.
func (b *sentBody) Close() error {
	b.dead.Store(true)
	if b.mu.TryLock() {
		b.closePiece()
		b.mu.Unlock()
	}
	return nil
}

// take ends the body for a later attempt, after any Read in progress.
func (b *sentBody) take() {
	b.dead.Store(true)
	b.mu.Lock()
	b.closePiece()
	b.mu.Unlock()
}

// uploadError is the error of an attempt whose streamed body failed while
// it was read.
type uploadError struct{ err error }

func (e *uploadError) Error() string { return "reading the request body: " + e.err.Error() }

func (e *uploadError) Unwrap() error { return e.err }
