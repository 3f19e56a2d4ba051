package headerrefusal

// End-to-end tests of testdata/specs/headerrefusal.yaml through the
// generated client against a loopback server: a request that cannot be
// sent as the spec means fails at once, before anything is sent (net/http
// refused it only when sending, as a transport error that was retried):
// no attempt, no retry, no wait, nothing for the
// breaker, and the next good call goes through.

import (
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/resgen/resgen/internal/wirecheck"
	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const spec = "../../testdata/specs/headerrefusal.yaml"

func ptr[T any](v T) *T { return &v }

func newClient(t *testing.T, server string) *Client {
	t.Helper()
	c, err := NewClient(server, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// refused checks that err is a local refusal: a *runtime.RequestError,
// returned in well under one backoff wait (200ms), that the server
// received nothing, and that the breaker recorded nothing.
func refused(t *testing.T, what string, s *wirecheck.Server, c *Client, err error, took time.Duration) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error; the server got %d requests", what, len(s.Requests()))
		return
	}
	var re *runtime.RequestError
	if !errors.As(err, &re) {
		t.Errorf("%s: error %T (%v), want a *runtime.RequestError", what, err, err)
	}
	var ce *runtime.CallError
	if errors.As(err, &ce) && ce.Attempts != 0 {
		t.Errorf("%s: %d attempts (%v), want none", what, ce.Attempts, err)
	}
	if took > 150*time.Millisecond {
		t.Errorf("%s: took %v: it waited to retry", what, took)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%s: the server received %d requests: %s %s", what, n, s.Requests()[0].Method, s.Requests()[0].RawPath)
	}
	if m := c.Breakers()[BreakerTight].Metrics(); m.Calls != 0 || m.State != runtime.StateClosed {
		t.Errorf("%s: the breaker recorded %d calls (%d failed), state %v; want nothing", what, m.Calls, m.Failed, m.State)
	}
}

// A header value with a control byte: net/http refused it only when
// sending, a transport error, so the call was retried twice after 200ms
// waits and the breaker counted the server as failing (and opened: the
// next good call was refused).
func TestHeaderValueWithControlByteFailsAtOnce(t *testing.T) {
	for _, bad := range []string{"a\r\nX-Injected: 1", "a\x00b", "tab\tis\tfine\x7f"} {
		s := wirecheck.New(t, spec, 204)
		c := newClient(t, s.URL)
		start := time.Now()
		_, err := c.ListThings(t.Context(), &ListThingsParams{XTrace: ptr(bad)})
		refused(t, "X-Trace", s, c, err, time.Since(start))

		start = time.Now()
		_, err = c.ListThings(t.Context(), &ListThingsParams{XTags: []string{"ok", bad}})
		refused(t, "X-Tags", s, c, err, time.Since(start))

		// The next good call goes through: the breaker is closed.
		if _, err := c.ListThings(t.Context(), &ListThingsParams{XTrace: ptr("tab\tis fine")}); err != nil {
			t.Fatalf("a good call after the refusals: %v", err)
		}
		if got := s.Last(t).Header.Get("X-Trace"); got != "tab\tis fine" {
			t.Errorf("X-Trace %q", got)
		}
	}
}

// A header a call option or a request editor sets is checked as well, on
// each attempt: a local error, no attempt, no wait, no breaker outcome.
func TestHeaderFromCallOptionWithControlByteFailsAtOnce(t *testing.T) {
	for _, opt := range []runtime.CallOption{
		runtime.WithHeader("X-Bad", "a\nb"),
		runtime.WithHeader("Bad Name", "x"),
	} {
		s := wirecheck.New(t, spec, 204)
		c := newClient(t, s.URL)
		start := time.Now()
		_, err := c.ListThings(t.Context(), nil, opt)
		refused(t, "call option", s, c, err, time.Since(start))
	}
}
