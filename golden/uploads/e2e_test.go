package uploads

// End-to-end tests of the generated Uploads client against a real HTTP
// server on loopback: bodies streamed, never held whole (a 1 GiB upload
// with the heap sampled while it goes), and retried only when they can be
// replayed.

import (
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// received is one request as the server read it.
type received struct {
	Path, ContentType string
	Length            int64 // Content-Length; -1 chunked
	Body              []byte
	N                 int64  // bytes of the body (of the file part for a multipart body)
	CRC               uint32 // their CRC-32
	Title             string // a multipart body's title part
}

type server struct {
	*httptest.Server
	mu     sync.Mutex
	reqs   []received
	status []int // answers in turn; 201 once they run out
	keep   bool  // keep each body (small ones)
}

// newServer reads each body as it comes: a binary one counted and
// checksummed, a multipart one part by part (the file's bytes counted and
// checksummed), never held unless keep.
func newServer(t *testing.T, keep bool, status ...int) *server {
	s := &server{status: status, keep: keep}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := received{Path: r.URL.Path, ContentType: r.Header.Get("Content-Type"), Length: r.ContentLength}
		var body io.Reader = r.Body
		var kept bytes.Buffer
		if keep {
			body = io.TeeReader(r.Body, &kept)
		}
		h := crc32.NewIEEE()
		mt, params, _ := mime.ParseMediaType(rec.ContentType)
		if mt == "multipart/form-data" {
			mr := multipart.NewReader(body, params["boundary"])
			for {
				p, err := mr.NextPart()
				if err != nil {
					if err != io.EOF {
						t.Errorf("multipart: %v", err)
					}
					break
				}
				switch p.FormName() {
				case "title":
					b, _ := io.ReadAll(p)
					rec.Title = string(b)
				case "file":
					rec.N, _ = io.Copy(h, p)
				default:
					io.Copy(io.Discard, p)
				}
			}
		} else {
			rec.N, _ = io.Copy(h, body)
		}
		rec.CRC = h.Sum32()
		if keep {
			rec.Body = kept.Bytes()
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, rec)
		code := http.StatusCreated
		if len(s.status) > 0 {
			code, s.status = s.status[0], s.status[1:]
		}
		s.mu.Unlock()
		w.WriteHeader(code)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) requests() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.reqs...)
}

func newClient(t *testing.T, s *server) *Client {
	c, err := NewClient(s.URL, WithHTTPClient(s.Client()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// pattern is a body made on the fly, n bytes of a repeating pattern; its
// CRC-32 is summed as it is read. Never held: each Read writes into the
// caller's buffer.
type pattern struct {
	n, off int64
	crc    uint32
}

var block = func() []byte {
	b := make([]byte, 251*256)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}()

func (p *pattern) Read(b []byte) (int, error) {
	if p.off >= p.n {
		return 0, io.EOF
	}
	b = b[:min(int64(len(b)), p.n-p.off)]
	n := 0
	for n < len(b) {
		n += copy(b[n:], block[(p.off+int64(n))%251:])
	}
	p.crc = crc32.Update(p.crc, crc32.IEEETable, b)
	p.off += int64(n)
	return n, nil
}

// heapWatch samples the heap every millisecond until stop, keeping the
// largest HeapInuse and HeapAlloc seen.
type heapWatch struct {
	inuse, alloc atomic.Uint64
	done         chan struct{}
	wg           sync.WaitGroup
}

func watchHeap() *heapWatch {
	goruntime.GC()
	w := &heapWatch{done: make(chan struct{})}
	w.wg.Go(func() {
		var ms goruntime.MemStats
		for {
			goruntime.ReadMemStats(&ms)
			w.inuse.Store(max(w.inuse.Load(), ms.HeapInuse))
			w.alloc.Store(max(w.alloc.Load(), ms.HeapAlloc))
			select {
			case <-w.done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	return w
}

func (w *heapWatch) stop() (inuse, alloc uint64) {
	close(w.done)
	w.wg.Wait()
	return w.inuse.Load(), w.alloc.Load()
}

const (
	gib      = 1 << 30
	heapMost = 16 << 20
)

// noTimeouts lets a 1 GiB upload take what it takes (under -race too).
var noTimeouts = []runtime.CallOption{runtime.WithAttemptTimeout(0), runtime.WithTotalTimeout(0)}

// TestUpload1GiB: a 1 GiB body made on the fly goes through the
// generated client, binary and as a multipart file part, with the heap
// (client and server in this process) under 16 MiB all along; the server
// gets every byte.
func TestUpload1GiB(t *testing.T) {
	for _, tc := range []struct {
		name string
		call func(c *Client, body io.Reader) (int, error)
	}{
		{"binary", func(c *Client, body io.Reader) (int, error) {
			resp, err := c.PutBlob(t.Context(), "big", body, noTimeouts...)
			if err != nil {
				return 0, err
			}
			return resp.StatusCode, nil
		}},
		{"multipart", func(c *Client, body io.Reader) (int, error) {
			resp, err := c.PostFile(t.Context(), PostFileMultipart{Title: "big", File: &runtime.File{Name: "big.bin", Content: body}}, noTimeouts...)
			if err != nil {
				return 0, err
			}
			return resp.StatusCode, nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, false)
			c := newClient(t, s)
			body := &pattern{n: gib}
			w := watchHeap()
			code, err := tc.call(c, body)
			inuse, alloc := w.stop()
			if err != nil || code != http.StatusCreated {
				t.Fatalf("status %d, err %v", code, err)
			}
			reqs := s.requests()
			if len(reqs) != 1 || reqs[0].N != gib || reqs[0].CRC != body.crc {
				t.Fatalf("server got %+v; want one body of %d bytes, CRC %08x", reqs, gib, body.crc)
			}
			t.Logf("1 GiB %s upload: heap in use at most %.1f MiB, allocated at most %.1f MiB", tc.name, float64(inuse)/(1<<20), float64(alloc)/(1<<20))
			if inuse >= heapMost || alloc >= heapMost {
				t.Fatalf("heap in use %d, allocated %d bytes during the upload; want both under %d", inuse, alloc, heapMost)
			}
		})
	}
}

// onlyReader hides every method but Read: a stream that cannot be
// replayed.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

const content = "0123456789abcdefghijklmnopqrstuvwxyz"

// TestNotReplayableNotRetried: a 503 that would be retried is not when
// the body is a plain stream: one send, and the call stops with
// ErrBodyNotReplayable.
func TestNotReplayableNotRetried(t *testing.T) {
	for _, tc := range []struct {
		name string
		call func(c *Client) (int, error)
	}{
		{"binary", func(c *Client) (int, error) {
			resp, err := c.PutBlob(t.Context(), "b", onlyReader{bytes.NewReader([]byte(content))})
			return resp.Attempts, err
		}},
		{"multipart", func(c *Client) (int, error) {
			resp, err := c.PostFile(t.Context(), PostFileMultipart{Title: "t", File: &runtime.File{Name: "f", Content: onlyReader{bytes.NewReader([]byte(content))}}})
			return resp.Attempts, err
		}},
		{"multipart with one plain file among replayable ones", func(c *Client) (int, error) {
			resp, err := c.PostFile(t.Context(), PostFileMultipart{Title: "t", File: &runtime.File{Name: "f", Content: bytes.NewReader([]byte(content))},
				Notes: []*runtime.File{{Name: "n", Content: onlyReader{bytes.NewReader([]byte("note"))}}}})
			return resp.Attempts, err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, true, http.StatusServiceUnavailable)
			attempts, err := tc.call(newClient(t, s))
			var se *runtime.StatusError
			if !errors.As(err, &se) || se.StatusCode != 503 || se.Stop != runtime.ErrBodyNotReplayable || attempts != 1 {
				t.Fatalf("attempts %d, err %v; want a 503 after 1 attempt, Stop ErrBodyNotReplayable", attempts, err)
			}
			if reqs := s.requests(); len(reqs) != 1 || reqs[0].N != int64(len(content)) {
				t.Fatalf("server got %+v; want one whole send", reqs)
			}
		})
	}
}

// TestReplayableRetried: a 503 is retried with the same bytes on every
// send when the body can be replayed: a *bytes.Reader, a file that
// started mid-way (sent from there), an opener; a multipart body whose
// files can, with the same boundary.
func TestReplayableRetried(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	midFile := func(t *testing.T) io.Reader {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		if _, err := f.Seek(10, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		return f
	}
	opener := func(*testing.T) io.Reader {
		return runtime.Opener(func() (io.ReadCloser, error) { return os.Open(name) })
	}
	for _, tc := range []struct {
		name      string
		body      func(t *testing.T) io.Reader
		want      string
		length    int64 // the binary body's Content-Length; -1 chunked
		multipart bool
	}{
		{"bytes.Reader", func(*testing.T) io.Reader { return bytes.NewReader([]byte(content)) }, content, int64(len(content)), false},
		{"file from mid-way", midFile, content[10:], int64(len(content) - 10), false},
		{"opener", opener, content, -1, false},
		{"multipart bytes.Reader", func(*testing.T) io.Reader { return bytes.NewReader([]byte(content)) }, content, 0, true},
		{"multipart file from mid-way", midFile, content[10:], 0, true},
		{"multipart opener", opener, content, -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, true, http.StatusServiceUnavailable, http.StatusServiceUnavailable)
			c := newClient(t, s)
			var attempts int
			var err error
			if tc.multipart {
				var resp *PostFileResponse
				resp, err = c.PostFile(t.Context(), PostFileMultipart{Title: "t", File: &runtime.File{Name: "f", Content: tc.body(t)}})
				if resp != nil {
					attempts = resp.Attempts
				}
			} else {
				var resp *PutBlobResponse
				resp, err = c.PutBlob(t.Context(), "b", tc.body(t))
				if resp != nil {
					attempts = resp.Attempts
				}
			}
			if err != nil || attempts != 3 {
				t.Fatalf("attempts %d, err %v; want success on attempt 3", attempts, err)
			}
			reqs := s.requests()
			want := crc32.ChecksumIEEE([]byte(tc.want))
			for i, r := range reqs {
				if r.N != int64(len(tc.want)) || r.CRC != want || !bytes.Equal(r.Body, reqs[0].Body) || r.ContentType != reqs[0].ContentType {
					t.Fatalf("send %d: %+v; want the bytes of send 1, %q in the file", i+1, r, tc.want)
				}
				if tc.multipart && r.Title != "t" {
					t.Fatalf("send %d: title %q", i+1, r.Title)
				}
				switch {
				case tc.length < 0 && r.Length != -1:
					t.Fatalf("send %d: Content-Length %d; want chunked", i+1, r.Length)
				case tc.length >= 0 && r.Length != int64(len(r.Body)):
					t.Fatalf("send %d: Content-Length %d for %d bytes", i+1, r.Length, len(r.Body))
				}
			}
			if len(reqs) != 3 {
				t.Fatalf("%d sends; want 3", len(reqs))
			}
		})
	}
}

// TestUploadCancelled: a call cancelled while its 1 GiB body is being
// sent returns the caller's error; nothing is left running (goleak).
func TestUploadCancelled(t *testing.T) {
	s := newServer(t, false)
	c := newClient(t, s)
	ctx, cancel := context.WithCancel(t.Context())
	body := &cancelAt{r: &pattern{n: gib}, at: 8 << 20, cancel: cancel}
	_, err := c.PutBlob(ctx, "big", body, noTimeouts...)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v; want context.Canceled", err)
	}
	_, err = c.PostFile(ctx, PostFileMultipart{Title: "t", File: &runtime.File{Name: "f", Content: &pattern{n: gib}}}, noTimeouts...)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("multipart on a cancelled context: err %v; want context.Canceled", err)
	}
}

// cancelAt cancels the call once at bytes were read.
type cancelAt struct {
	r      io.Reader
	n, at  int
	cancel context.CancelFunc
}

func (c *cancelAt) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.n += n; c.n >= c.at {
		c.cancel()
	}
	return n, err
}
