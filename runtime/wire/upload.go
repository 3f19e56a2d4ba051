package wire

import (
	"bytes"
	"io"
)

// A streamed request body (Request.Upload) is read while each attempt
// sends it; package runtime decides from its type whether a retry can send
// it again (upload.go there). These are the types it knows besides the
// standard readers.

// Opener is a body that opens its bytes anew for each attempt, so a retry
// can send them again: runtime.Opener makes one. Read, for a caller that
// reads it outside a call, opens it once and closes it at its end.
type Opener struct {
	open func() (io.ReadCloser, error)
	rc   io.ReadCloser
	err  error
}

// NewOpener returns the Opener of open.
func NewOpener(open func() (io.ReadCloser, error)) *Opener { return &Opener{open: open} }

// Open opens the body again.
func (o *Opener) Open() (io.ReadCloser, error) { return o.open() }

// Read reads the body opened once.
func (o *Opener) Read(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	if o.rc == nil {
		if o.rc, o.err = o.open(); o.err != nil {
			return 0, o.err
		}
	}
	n, err := o.rc.Read(p)
	if err != nil {
		o.rc.Close()
		o.err = err
	}
	return n, err
}

// FilePart is a file part's content in a MultipartBody: it goes at offset
// At of the framing.
type FilePart struct {
	At      int
	Content io.Reader
}

// MultipartBody is a multipart body with file parts: Framing (the
// boundaries, the parts' headers and the text and JSON parts) with each
// file's Content inserted at its offset, in order. The framing is fixed
// when the body is built, boundary included, so every attempt of a call
// sends the same bytes. Read, for a caller that reads it outside a call,
// reads it once.
type MultipartBody struct {
	Framing []byte
	Files   []FilePart
	next    int // the next piece Read reads: framing before file i (2i), file i (2i+1)
	r       io.Reader
}

// Read reads the body once.
func (b *MultipartBody) Read(p []byte) (int, error) {
	for {
		if b.r == nil {
			if b.next > 2*len(b.Files) {
				return 0, io.EOF
			}
			if i := b.next / 2; b.next%2 == 1 {
				b.r = b.Files[i].Content
			} else {
				b.r = bytes.NewReader(b.Framing[b.FramingAt(i):b.FramingEnd(i)])
			}
		}
		n, err := b.r.Read(p)
		if err == io.EOF {
			b.r, b.next = nil, b.next+1
			if n == 0 {
				continue
			}
			err = nil
		}
		return n, err
	}
}

// FramingAt is where the framing before file i (or after the last, i =
// len(Files)) starts.
func (b *MultipartBody) FramingAt(i int) int {
	if i == 0 {
		return 0
	}
	return b.Files[i-1].At
}

// FramingEnd is where the framing before file i (or after the last)
// ends.
func (b *MultipartBody) FramingEnd(i int) int {
	if i == len(b.Files) {
		return len(b.Framing)
	}
	return b.Files[i].At
}
