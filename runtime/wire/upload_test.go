package wire

import (
	"io"
	"strings"
	"testing"
)

// Read outside a call: an Opener opens once and closes at the end; a
// MultipartBody gives its framing and files in order.
func TestUploadReadOnce(t *testing.T) {
	opens, closes := 0, 0
	o := NewOpener(func() (io.ReadCloser, error) {
		opens++
		return closeCounter{strings.NewReader("abc"), &closes}, nil
	})
	b := &MultipartBody{Framing: []byte("[1][2]"), Files: []FilePart{{At: 3, Content: o}, {At: 6, Content: strings.NewReader("xy")}}}
	got, err := io.ReadAll(b)
	if err != nil || string(got) != "[1]abc[2]xy" || opens != 1 || closes != 1 {
		t.Fatalf("read %q, %v; opened %d, closed %d; want [1]abc[2]xy, once each", got, err, opens, closes)
	}
}

type closeCounter struct {
	io.Reader
	n *int
}

func (c closeCounter) Close() error { *c.n++; return nil }
