package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/resgen/resgen/runtime/wire"
)

// countingBody is an endless body that counts the bytes read from it.
type countingBody struct{ n int64 }

func (b *countingBody) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	b.n += int64(len(p))
	return len(p), nil
}

func (b *countingBody) Close() error { return nil }

type bodyDoer struct {
	status int
	length int64
	body   *countingBody
}

func (d *bodyDoer) Do(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: d.status, ContentLength: d.length, Header: http.Header{}, Body: d.body}, nil
}

type capResponse struct {
	wire.Response
	JSON200 *map[string]any `resgen:"200"`
	JSON404 *map[string]any `resgen:"404"`
}

// TestBodyCapsBoundWhatIsRead: whatever the
// Content-Length says (nothing, or less than the body holds), a capped
// body is read to at most its cap and a little more (the drain that keeps
// a connection reusable), never whole.
func TestBodyCapsBoundWhatIsRead(t *testing.T) {
	for _, c := range []struct {
		status, limit int
		length        int64
		opts          []CallOption
	}{
		{404, DefaultMaxErrorBody, -1, nil},
		{404, DefaultMaxErrorBody, 10, nil},
		{404, 1000, -1, []CallOption{WithMaxErrorBody(1000)}},
		{200, 5000, -1, []CallOption{WithMaxBody(5000)}},
		{200, 5000, 100, []CallOption{WithMaxBody(5000)}},
	} {
		d := &bodyDoer{status: c.status, length: c.length, body: &countingBody{}}
		e := newEngine(config{HTTPClient: d, Server: "http://example.invalid"})
		op := e.operation(operationSpec{Name: "get", Method: "GET", Path: "/x"})
		_, err := Call(context.Background(), op, &wire.Request{Path: "/x"}, new(capResponse), c.opts)
		var tl *BodyTooLargeError
		if !errors.As(err, &tl) || tl.Limit != c.limit || tl.StatusCode != c.status {
			t.Errorf("%+v: err %v; want a BodyTooLargeError at %d", c, err, c.limit)
		}
		if max := int64(c.limit) + drainMax + 512; d.body.n > max {
			t.Errorf("%+v: read %d bytes; want at most %d", c, d.body.n, max)
		}
	}
}

// TestUnreadableBodyFailsTheAttempt: a body whose read fails
// is the attempt's failure (a transport failure, here not retried: no
// policy), never an answer.
func TestUnreadableBodyFailsTheAttempt(t *testing.T) {
	e := newEngine(config{HTTPClient: doerFunc(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, ContentLength: -1, Header: http.Header{}, Body: io.NopCloser(&failingReader{})}, nil
	}), Server: "http://example.invalid"})
	op := e.operation(operationSpec{Name: "get", Method: "GET", Path: "/x"})
	resp, err := Call(context.Background(), op, &wire.Request{Path: "/x"}, new(capResponse), nil)
	var ce *CallError
	if resp != nil || !errors.As(err, &ce) || !errors.Is(err, errBroken) || !errors.Is(err, ErrRetryOff) || ce.Attempts != 1 {
		t.Fatalf("resp %v, err %v; want a CallError after 1 attempt holding the read's error", resp, err)
	}
}

var errBroken = errors.New("connection reset")

type failingReader struct{ done bool }

func (r *failingReader) Read(p []byte) (int, error) {
	if !r.done {
		r.done = true
		return copy(p, `{"a"`), nil
	}
	return 0, errBroken
}
