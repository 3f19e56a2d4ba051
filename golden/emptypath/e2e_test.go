package emptypath

// End-to-end tests of testdata/specs/emptypath.yaml through the
// generated client against a loopback server: a request that cannot be
// sent as the spec means fails at once, before anything is sent (an
// empty path parameter would send another URL): no attempt, no retry, no wait, nothing for the
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

const spec = "../../testdata/specs/emptypath.yaml"

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

// An empty required path parameter made another URL (PUT /items/, the
// collection, or /files/. which servers resolve as /files/).
func TestEmptyPathParameterIsRefusedBeforeSending(t *testing.T) {
	cases := []struct {
		what string
		call func(c *Client) error
	}{
		{"string", func(c *Client) error { _, err := c.PutItem(t.Context(), ""); return err }},
		{"enum", func(c *Client) error { _, err := c.GetKind(t.Context(), Kind(""), 1); return err }},
		{"nil list", func(c *Client) error { _, err := c.GetTags(t.Context(), nil); return err }},
		{"list of one empty item", func(c *Client) error { _, err := c.GetTags(t.Context(), []string{""}); return err }},
		{"label style", func(c *Client) error { _, err := c.GetFile(t.Context(), ""); return err }},
		{"object with no property", func(c *Client) error { _, err := c.GetBox(t.Context(), GetBoxBox{}); return err }},
	}
	for _, tc := range cases {
		s := wirecheck.New(t, spec, 204)
		c := newClient(t, s.URL)
		start := time.Now()
		err := tc.call(c)
		refused(t, tc.what, s, c, err, time.Since(start))
	}
}

// Values that are not empty still go out, 0 and a list with an empty item
// among others included.
func TestNonEmptyPathParametersAreSent(t *testing.T) {
	s := wirecheck.New(t, spec, 204)
	c := newClient(t, s.URL)
	if _, err := c.PutItem(t.Context(), "a b"); err != nil {
		t.Fatal(err)
	}
	if got := s.Last(t).RawPath; got != "/items/a%20b" {
		t.Errorf("path %q", got)
	}
	if _, err := c.GetKind(t.Context(), KindA, 0); err != nil {
		t.Fatal(err)
	}
	if got := s.Last(t).RawPath; got != "/kinds/a/0" {
		t.Errorf("path %q", got)
	}
	if _, err := c.GetTags(t.Context(), []string{"", "x"}); err != nil {
		t.Fatal(err)
	}
	if got := s.Last(t).RawPath; got != "/tags/,x" {
		t.Errorf("path %q", got)
	}
	if _, err := c.GetBox(t.Context(), GetBoxBox{W: ptr("")}); err != nil {
		t.Fatal(err)
	}
	if got := s.Last(t).RawPath; got != "/boxes/w," {
		t.Errorf("path %q", got)
	}
}
