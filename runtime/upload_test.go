package runtime

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime/wire"
)

// sink is a loopback server that reads every request body and
// answers with the statuses in turn (200 once they run out).
type sink struct {
	*server
	mu      sync.Mutex
	bodies  [][]byte
	lengths []int64 // each request's Content-Length, -1 when chunked
	types   []string
	status  []int
}

func newSink(t *testing.T, status ...int) *sink {
	s := &sink{status: status}
	s.server = newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body) // a body cut short is checked by its test
		s.mu.Lock()
		s.bodies = append(s.bodies, b)
		s.lengths = append(s.lengths, r.ContentLength)
		s.types = append(s.types, r.Header.Get("Content-Type"))
		code := 200
		if len(s.status) > 0 {
			code, s.status = s.status[0], s.status[1:]
		}
		s.mu.Unlock()
		w.WriteHeader(code)
	})
	return s
}

type uploadResponse struct {
	wire.Response `resgen:"200"`
}

// uploadOp is a retry-safe PUT with up to 3 attempts that retries 503.
func uploadOp(s *sink) *operation {
	e := newEngine(config{HTTPClient: s.Client(), Logger: quiet, Server: s.URL})
	return e.operation(operationSpec{Name: "put", Method: "PUT", Path: "/x", Retry: constRetry(3, time.Millisecond)})
}

// onlyReader hides every method but Read.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// onlySeeker is an io.ReadSeeker that is no io.ReaderAt.
type onlySeeker struct{ io.ReadSeeker }

const payload = "0123456789abcdefghijklmnopqrstuvwxyz"

// tempFile is a file holding payload.
func tempFile(t *testing.T) string {
	name := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(name, []byte(payload), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestUploadReplayRule: a 503 is retried when the body can be replayed,
// with the same bytes on every send (from where a seeker stood at the
// call's start), and Content-Length when the size is known; any other
// reader is sent once and the call stops with ErrBodyNotReplayable.
func TestUploadReplayRule(t *testing.T) {
	file := tempFile(t)
	for _, tc := range []struct {
		name   string
		body   func(t *testing.T) io.Reader
		want   string
		length int64 // the Content-Length sent; -1 chunked
		sends  int
	}{
		{"bytes.Reader", func(*testing.T) io.Reader { return bytes.NewReader([]byte(payload)) }, payload, int64(len(payload)), 2},
		{"strings.Reader moved", func(*testing.T) io.Reader {
			r := strings.NewReader(payload)
			r.Seek(4, io.SeekStart)
			return r
		}, payload[4:], int64(len(payload) - 4), 2},
		{"bytes.Buffer", func(*testing.T) io.Reader { return bytes.NewBufferString(payload) }, payload, int64(len(payload)), 2},
		{"file started mid-way", func(t *testing.T) io.Reader {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			f.Seek(10, io.SeekStart)
			return f
		}, payload[10:], int64(len(payload) - 10), 2},
		{"seeker without ReadAt", func(*testing.T) io.Reader {
			r := strings.NewReader(payload)
			r.Seek(3, io.SeekStart)
			return onlySeeker{r}
		}, payload[3:], int64(len(payload) - 3), 2},
		{"opener", func(*testing.T) io.Reader {
			return Opener(func() (io.ReadCloser, error) { return os.Open(file) })
		}, payload, -1, 2},
		{"plain reader", func(*testing.T) io.Reader { return onlyReader{strings.NewReader(payload)} }, payload, -1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSink(t, 503)
			op := uploadOp(s)
			rq := wire.Request{Upload: tc.body(t), ContentType: "application/octet-stream"}
			_, err := Call(context.Background(), op, &rq, new(uploadResponse), nil)
			if len(s.bodies) != tc.sends {
				t.Fatalf("%d sends, want %d (err %v)", len(s.bodies), tc.sends, err)
			}
			for i, b := range s.bodies {
				if string(b) != tc.want || s.lengths[i] != tc.length || s.types[i] != "application/octet-stream" {
					t.Fatalf("send %d: %q (Content-Length %d, %s); want %q (%d)", i+1, b, s.lengths[i], s.types[i], tc.want, tc.length)
				}
			}
			if tc.sends == 1 {
				var se *StatusError
				if !errors.As(err, &se) || se.StatusCode != 503 || se.Stop != ErrBodyNotReplayable || se.Attempts != 1 {
					t.Fatalf("err %v; want a 503 StatusError with Stop ErrBodyNotReplayable after 1 attempt", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestUploadOpenerClosesEachBody: an opener is opened once per send and
// every body it opened is closed.
func TestUploadOpenerClosesEachBody(t *testing.T) {
	s := newSink(t, 503, 503)
	var mu sync.Mutex
	opened, closed := 0, 0
	body := Opener(func() (io.ReadCloser, error) {
		mu.Lock()
		opened++
		mu.Unlock()
		return closer{Reader: strings.NewReader(payload), close: func() { mu.Lock(); closed++; mu.Unlock() }}, nil
	})
	rq := wire.Request{Upload: body}
	if _, err := Call(context.Background(), uploadOp(s), &rq, new(uploadResponse), nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if opened != 3 || closed != 3 || len(s.bodies) != 3 {
		t.Fatalf("opened %d, closed %d, sent %d; want 3 each", opened, closed, len(s.bodies))
	}
}

type closer struct {
	io.Reader
	close func()
}

func (c closer) Close() error { c.close(); return nil }

// TestUploadReadErrorNotRetried: a body whose reader fails while sent
// fails the call as a request not built: one attempt, not retried, not
// counted by the breaker.
func TestUploadReadErrorNotRetried(t *testing.T) {
	s := newSink(t)
	boom := errors.New("disk on fire")
	e := newEngine(config{HTTPClient: s.Client(), Logger: quiet, Server: s.URL})
	b := e.Breaker("b", countBreaker(2, 1, 1))
	op := e.operation(operationSpec{Name: "put", Method: "PUT", Path: "/x", Retry: constRetry(3, time.Millisecond), Breaker: b})
	failing := Opener(func() (io.ReadCloser, error) {
		return io.NopCloser(io.MultiReader(strings.NewReader("abc"), errReader{boom})), nil
	})
	rq := wire.Request{Upload: failing}
	_, err := Call(context.Background(), op, &rq, new(uploadResponse), nil)
	var ce *CallError
	if !errors.As(err, &ce) || !errors.Is(err, boom) || ce.Attempts != 1 || ce.Stop != ErrNotRetryable {
		t.Fatalf("err %v; want a CallError of 1 attempt wrapping the read error, Stop ErrNotRetryable", err)
	}
	if st := b.State(); st != StateClosed {
		t.Fatalf("breaker %v after a caller's read error; want closed", st)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// TestUploadMultipart: a multipart body is replayed, byte for byte with
// the same boundary, when all its files can be; one plain file makes it
// a single attempt. Its Content-Length is known when every file's size is.
func TestUploadMultipart(t *testing.T) {
	file := tempFile(t)
	build := func(files ...io.Reader) wire.Request {
		m := wire.NewMultipart()
		m.Field("title", "t")
		for i, f := range files {
			m.File("f"+string(rune('a'+i)), &wire.File{Name: "n", Content: f})
		}
		m.JSON("meta", map[string]int{"k": 1})
		var rq wire.Request
		if err := m.Finish(&rq); err != nil {
			t.Fatal(err)
		}
		return rq
	}
	t.Run("replayable", func(t *testing.T) {
		s := newSink(t, 503)
		rq := build(strings.NewReader("first"), Opener(func() (io.ReadCloser, error) { return os.Open(file) }), bytes.NewReader(nil))
		if _, err := Call(context.Background(), uploadOp(s), &rq, new(uploadResponse), nil); err != nil {
			t.Fatal(err)
		}
		if len(s.bodies) != 2 || !bytes.Equal(s.bodies[0], s.bodies[1]) || s.lengths[0] != -1 {
			t.Fatalf("%d sends, identical %v, Content-Length %d; want 2 identical chunked", len(s.bodies), len(s.bodies) == 2 && bytes.Equal(s.bodies[0], s.bodies[1]), s.lengths[0])
		}
		_, params, _ := mime.ParseMediaType(s.types[0])
		r := multipart.NewReader(bytes.NewReader(s.bodies[0]), params["boundary"])
		var got []string
		for {
			p, err := r.NextPart()
			if err != nil {
				break
			}
			b, _ := io.ReadAll(p)
			got = append(got, p.FormName()+"="+string(b))
		}
		if want := `title=t fa=first fb=` + payload + ` fc= meta={"k":1}`; strings.Join(got, " ") != want {
			t.Fatalf("parts %q, want %q", got, want)
		}
	})
	t.Run("sized", func(t *testing.T) {
		s := newSink(t)
		rq := build(strings.NewReader("first"), bytes.NewBufferString("second"))
		if _, err := Call(context.Background(), uploadOp(s), &rq, new(uploadResponse), nil); err != nil {
			t.Fatal(err)
		}
		if s.lengths[0] != int64(len(s.bodies[0])) {
			t.Fatalf("Content-Length %d for %d bytes", s.lengths[0], len(s.bodies[0]))
		}
	})
	t.Run("one plain file", func(t *testing.T) {
		s := newSink(t, 503)
		rq := build(strings.NewReader("first"), onlyReader{strings.NewReader("second")})
		_, err := Call(context.Background(), uploadOp(s), &rq, new(uploadResponse), nil)
		if len(s.bodies) != 1 || !errors.Is(err, ErrBodyNotReplayable) {
			t.Fatalf("%d sends, err %v; want 1 and ErrBodyNotReplayable", len(s.bodies), err)
		}
	})
}

// TestUploadNetHTTPResend: net/http sends a GET-like request again by
// itself when its reused connection dies after the request was written;
// it may for a replayable body (each send an attempt, the same bytes) and
// must not for one that is not (GetBody nil): one send, and the call stops
// with ErrBodyNotReplayable.
func TestUploadNetHTTPResend(t *testing.T) {
	for _, tc := range []struct {
		name  string
		body  io.Reader
		sends int
	}{
		{"replayable", strings.NewReader(payload), 2},
		{"not replayable", onlyReader{strings.NewReader(payload)}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newKiller(t)
			e := newEngine(config{HTTPClient: k.client(t, 1), Logger: quiet, Server: k.URL})
			op := e.operation(operationSpec{Name: "get", Method: "GET", Path: "/x", Retry: constRetry(3, time.Millisecond)})
			rq := wire.Request{Upload: tc.body}
			resp, err := Call(context.Background(), op, &rq, new(uploadResponse), nil)
			if sends := int(k.sends.Load()); sends != tc.sends {
				t.Fatalf("server read %d requests; want %d (err %v)", sends, tc.sends, err)
			}
			k.mu.Lock()
			bodies := k.bodies
			k.mu.Unlock()
			for i, b := range bodies {
				if string(b) != payload {
					t.Fatalf("send %d: %q; want the whole body", i+1, b)
				}
			}
			if tc.sends == 1 {
				var ce *CallError
				if !errors.As(err, &ce) || ce.Stop != ErrBodyNotReplayable || ce.Attempts != 1 {
					t.Fatalf("err %v; want a CallError after 1 attempt, Stop ErrBodyNotReplayable", err)
				}
				return
			}
			if err != nil || resp.Attempts != 2 {
				t.Fatalf("err %v, attempts %d; want 2 and success", err, resp.Attempts)
			}
		})
	}
}

// TestUploadCancelledMidBody: a call cancelled while its body, a pipe,
// blocks in Read returns (the pipe is closed to end the Read that
// net/http waits for), leaving no goroutine behind (TestMain checks).
func TestUploadCancelledMidBody(t *testing.T) {
	s := newSink(t)
	op := uploadOp(s)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte("some"))
		cancel()
	}()
	rq := wire.Request{Upload: pr}
	_, err := Call(ctx, op, &rq, new(uploadResponse), nil)
	pw.Close()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v; want context.Canceled", err)
	}
}

// TestUploadBlockedStreamRetried: an attempt whose opened stream blocks
// runs out of its timeout; the stream is closed (which ends the blocked
// Read), the seeker sharing the body is taken back, and the retry sends
// the whole body, with the timeout neither miscounted as the caller's
// read error nor leaving a goroutine behind.
func TestUploadBlockedStreamRetried(t *testing.T) {
	s := newSink(t)
	e := newEngine(config{HTTPClient: s.Client(), Logger: quiet, Server: s.URL})
	op := e.operation(operationSpec{Name: "put", Method: "PUT", Path: "/x", Retry: constRetry(3, time.Millisecond), Timeout: 50 * time.Millisecond})
	var mu sync.Mutex
	opens := 0
	stream := Opener(func() (io.ReadCloser, error) {
		mu.Lock()
		defer mu.Unlock()
		if opens++; opens == 1 {
			pr, pw := io.Pipe()
			go pw.Write([]byte("par")) // then blocks until the reader is closed
			return pr, nil
		}
		return io.NopCloser(strings.NewReader("stream")), nil
	})
	m := wire.NewMultipart()
	m.File("a", &wire.File{Name: "a", Content: onlySeeker{strings.NewReader("seeker")}})
	m.File("b", &wire.File{Name: "b", Content: stream})
	var rq wire.Request
	if err := m.Finish(&rq); err != nil {
		t.Fatal(err)
	}
	resp, err := Call(context.Background(), op, &rq, new(uploadResponse), nil)
	if err != nil || resp.Attempts != 2 {
		t.Fatalf("err %v; want success on attempt 2", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	last := string(s.bodies[len(s.bodies)-1])
	if !strings.Contains(last, "\r\n\r\nseeker\r\n") || !strings.Contains(last, "\r\n\r\nstream\r\n") {
		t.Fatalf("the retry sent %q", last)
	}
}
