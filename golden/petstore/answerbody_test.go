package petstore

// The answer's body is read within its attempt (a reset or a stall is
// that attempt's failure) and under a cap (a server cannot make the client
// hold any size), through the generated client against
// loopback servers.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
)

const rex = `{"id": 1, "name": "rex"}`

// cutBody answers 200 with a Content-Length of 100 and 10 bytes of it,
// then closes the connection: a body reset after the headers.
func cutBody(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", "100")
	w.WriteHeader(200)
	io.WriteString(w, `{"id": 1, `)
	w.(http.Flusher).Flush()
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

// TestBodyResetIsAFailedAttempt: a GET's 200 whose body is
// reset is a failed attempt, retried like a transport failure; the retry's
// good answer is the call's. The server saw exactly the attempts reported.
func TestBodyResetIsAFailedAttempt(t *testing.T) {
	var n atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if n.Add(1) == 1 {
			cutBody(w)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, rex)
	}))
	defer s.Close()
	c, err := NewClient(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.ShowPetByID(context.Background(), "1")
	if err != nil || resp.JSON200 == nil || resp.JSON200.Name != "rex" {
		t.Fatalf("resp %+v, err %v; want the retry's pet", resp, err)
	}
	if resp.Attempts != 2 || n.Load() != 2 {
		t.Fatalf("%d attempts reported, %d sent; want 2 and 2", resp.Attempts, n.Load())
	}
}

// TestBodyResetFailsTheCall: a POST that is not
// retry-safe gets a 200 whose body is reset: one attempt, a *CallError
// with its stop reason and a nil response, and a failure for the breaker.
func TestBodyResetFailsTheCall(t *testing.T) {
	var n atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		io.Copy(io.Discard, r.Body)
		cutBody(w)
	}))
	defer s.Close()
	c, err := NewClient(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	// CreatePets declares 201 without a body and a JSON default: the 200
	// is read for the default.
	resp, err := c.CreatePets(context.Background(), Pet{Name: "rex"})
	var ce *runtime.CallError
	if !errors.As(err, &ce) || !errors.Is(err, runtime.ErrNotRetrySafe) || ce.Attempts != 1 || ce.Reason == "" {
		t.Fatalf("err %v; want a CallError after 1 attempt stopped as not retry-safe", err)
	}
	if resp != nil {
		t.Fatalf("a CallError came with the response %+v", resp)
	}
	if n.Load() != 1 {
		t.Fatalf("%d requests sent; want 1", n.Load())
	}
	if m := c.Breakers()[BreakerPets].Metrics(); m.Calls != 1 || m.Failed != 1 {
		t.Fatalf("breaker %+v; want 1 call, 1 failed", m)
	}
}

// TestBodyStallIsATimeout: a 200 whose body stalls past the
// attempt's timeout is a timed-out attempt: retried, and when every
// attempt stalls the call ends with a *CallError that matches
// ErrAttemptTimeout and ErrAttemptsExhausted, counted once by the breaker
// as a failure.
func TestBodyStallIsATimeout(t *testing.T) {
	var n atomic.Int32
	stallAll := atomic.Bool{}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 || stallAll.Load() {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			io.WriteString(w, `{"id": `)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, rex)
	}))
	defer s.Close()
	c, err := NewClient(s.URL, WithCallOptions(runtime.WithAttemptTimeout(100*time.Millisecond)))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.ShowPetByID(context.Background(), "1")
	if err != nil || resp.JSON200 == nil || resp.Attempts != 2 || n.Load() != 2 {
		t.Fatalf("resp %+v, err %v, %d sent; want the pet after 2 attempts", resp, err, n.Load())
	}
	stallAll.Store(true)
	n.Store(0)
	resp, err = c.ShowPetByID(context.Background(), "1")
	var ce *runtime.CallError
	if !errors.As(err, &ce) || !errors.Is(err, runtime.ErrAttemptTimeout) || !errors.Is(err, runtime.ErrAttemptsExhausted) || ce.Attempts != 3 {
		t.Fatalf("err %v; want a CallError after 3 timed-out attempts", err)
	}
	if resp != nil || n.Load() != 3 {
		t.Fatalf("resp %+v, %d sent; want no response, 3 sent", resp, n.Load())
	}
	if m := c.Breakers()[BreakerPets].Metrics(); m.Calls != 2 || m.Failed != 1 {
		t.Fatalf("breaker %+v; want 2 calls, 1 failed", m)
	}
}

// TestEmptyDeclaredBodyIsADecodeError: a 200 without the JSON
// body the spec declares is a *DecodeError (ErrEmptyBody) beside the typed
// response, never err == nil with a nil field.
func TestEmptyDeclaredBodyIsADecodeError(t *testing.T) {
	for _, cl := range []string{"0", ""} {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			if cl != "" {
				w.Header().Set("Content-Length", cl)
			}
			w.WriteHeader(200)
			w.(http.Flusher).Flush() // no Content-Length: chunked, empty
		}))
		c, err := NewClient(s.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.ShowPetByID(context.Background(), "1")
		var de *runtime.DecodeError
		if !errors.As(err, &de) || !errors.Is(err, runtime.ErrEmptyBody) || de.StatusCode != 200 {
			t.Errorf("Content-Length %q: err %v; want a DecodeError for the empty body", cl, err)
		}
		if resp == nil || resp.StatusCode != 200 || resp.JSON200 != nil {
			t.Errorf("Content-Length %q: resp %+v; want the typed 200 without its field", cl, resp)
		}
		s.Close()
	}
}

// bigBody serves status with a body of size bytes (with or without its
// Content-Length), counting what it managed to write; done closes when
// the handler has returned.
type bigBody struct {
	status  int
	size    int
	length  bool
	written atomic.Int64
	done    chan struct{}
}

func (b *bigBody) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	defer func() { b.done <- struct{}{} }()
	chunk := bytes.Repeat([]byte(" "), 64<<10)
	w.Header().Set("Content-Type", "application/json")
	if b.length {
		w.Header().Set("Content-Length", strconv.Itoa(b.size))
	}
	w.WriteHeader(b.status)
	for sent := 0; sent < b.size; sent += len(chunk) {
		m, err := w.Write(chunk)
		b.written.Add(int64(m))
		if err != nil {
			return
		}
	}
}

// TestDeclaredErrorBodyIsCapped: a declared 404 (JSON Error)
// with a 100 MiB body is a StatusError whose DecodeErr is a
// *BodyTooLargeError at the client's cap, 1 MiB by default; the server
// could write only a bounded part of it before the client hung up, and
// the call allocated far less than the body.
func TestDeclaredErrorBodyIsCapped(t *testing.T) {
	const size = 100 << 20
	for _, length := range []bool{true, false} {
		for _, limit := range []int{0, 4096} {
			b := &bigBody{status: 404, size: size, length: length, done: make(chan struct{}, 1)}
			s := httptest.NewServer(b)
			var opts []Option
			want := runtime.DefaultMaxErrorBody
			if limit > 0 {
				opts, want = append(opts, WithCallOptions(runtime.WithMaxErrorBody(limit))), limit
			}
			c, err := NewClient(s.URL, opts...)
			if err != nil {
				t.Fatal(err)
			}
			var before, after goruntime.MemStats
			goruntime.GC()
			goruntime.ReadMemStats(&before)
			resp, err := c.ShowPetByID(context.Background(), "1")
			goruntime.ReadMemStats(&after)
			var se *runtime.StatusError
			var tl *runtime.BodyTooLargeError
			if !errors.As(err, &se) || se.StatusCode != 404 || !errors.As(err, &tl) || tl.Limit != want || tl.StatusCode != 404 {
				t.Fatalf("length %v, cap %d: err %v; want a StatusError with a BodyTooLargeError at %d", length, limit, err, want)
			}
			if resp == nil || resp.JSON404 != nil || se.Decoded != nil || len(se.Body) > 64<<10 {
				t.Fatalf("length %v: resp %+v, %d bytes in the error; want no decoded body and at most 64 KiB", length, resp, len(se.Body))
			}
			select {
			case <-b.done:
			case <-time.After(30 * time.Second):
				t.Fatalf("length %v: the server is still writing (%d bytes so far)", length, b.written.Load())
			}
			// The cap, plus what the sockets' buffers took in.
			if w := b.written.Load(); w > 32<<20 {
				t.Fatalf("length %v: the server wrote %d MiB; want the reading to stop near the cap", length, w>>20)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
				t.Fatalf("length %v: the call allocated %d MiB", length, grew>>20)
			}
			s.Close()
		}
	}
}

// TestSuccessBodyCapOption: runtime.WithMaxBody caps a
// declared success body for one call: over it, a *DecodeError whose cause
// is a *BodyTooLargeError, and the reading stops; without it the same
// answer decodes whole.
func TestSuccessBodyCapOption(t *testing.T) {
	const size = 100 << 20
	b := &bigBody{status: 200, size: size, done: make(chan struct{}, 1)}
	s := httptest.NewServer(b)
	defer s.Close()
	c, err := NewClient(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.ShowPetByID(context.Background(), "1", runtime.WithMaxBody(1<<20))
	var de *runtime.DecodeError
	var tl *runtime.BodyTooLargeError
	if !errors.As(err, &de) || !errors.As(err, &tl) || tl.Limit != 1<<20 || resp == nil || resp.JSON200 != nil {
		t.Fatalf("resp %+v, err %v; want a DecodeError with a BodyTooLargeError at 1 MiB", resp, err)
	}
	select {
	case <-b.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the server is still writing (%d bytes so far)", b.written.Load())
	}
	if w := b.written.Load(); w > 32<<20 {
		t.Fatalf("the server wrote %d MiB; want the reading to stop near the cap", w>>20)
	}

	small := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, rex)
	}))
	defer small.Close()
	c, err = NewClient(small.URL)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := c.ShowPetByID(context.Background(), "1", runtime.WithMaxBody(len(rex))); err != nil || resp.JSON200 == nil {
		t.Fatalf("a body at its cap: resp %+v, err %v", resp, err)
	}
}
