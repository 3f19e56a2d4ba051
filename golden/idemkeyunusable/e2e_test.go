package idemkeyunusable

// End-to-end tests of testdata/specs/idemkeyunusable.yaml through the
// generated client against a loopback server (openapi3filter checks every
// request): an Idempotency-Key header whose schema cannot hold a key is an
// ordinary header, and the operation is retried only if something else
// makes it retry-safe (generate used to fail on such a spec).

import (
	"errors"
	"log/slog"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const spec = "../../testdata/specs/idemkeyunusable.yaml"

func ptr[T any](v T) *T { return &v }

func newClient(t *testing.T, server string) *Client {
	t.Helper()
	c, err := NewClient(server, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Unset, the header is not sent (no key is made up), and a 503 is not
// retried: nothing makes the POST retry-safe.
func TestUnusableKeyHeaderIsOrdinaryAndPostIsNotRetried(t *testing.T) {
	s := wirecheck.New(t, spec, 503, 200)
	_, err := newClient(t, s.URL).PostObject(t.Context(), nil)
	var se *runtime.StatusError
	if !errors.As(err, &se) || se.StatusCode != 503 || se.Attempts != 1 || !errors.Is(err, runtime.ErrNotRetrySafe) {
		t.Fatalf("error %v, want a 503 after 1 attempt, not retry-safe", err)
	}
	r := s.Last(t)
	if v := r.Header.Values("Idempotency-Key"); len(v) != 0 {
		t.Errorf("Idempotency-Key %q sent, want none", v)
	}
}

// Set, it is written by style simple, as any header of its schema.
func TestUnusableKeyHeaderIsSentAsTheCallerSetsIt(t *testing.T) {
	s := wirecheck.New(t, spec)
	c := newClient(t, s.URL)
	if _, err := c.PostObject(t.Context(), &PostObjectParams{IdempotencyKey: &PostObjectIdempotencyKey{ID: ptr("a b")}}); err != nil {
		t.Fatal(err)
	}
	if got := s.Last(t).Header.Get("Idempotency-Key"); got != "id,a b" {
		t.Errorf("object key header %q, want id,a b", got)
	}
	if _, err := c.PostBool(t.Context(), PostBoolParams{IdempotencyKey: false}); err != nil {
		t.Fatal(err)
	}
	if got := s.Last(t).Header.Values("Idempotency-Key"); len(got) != 1 || got[0] != "false" {
		t.Errorf("boolean key header %q, want [false]", got)
	}
	if _, err := c.PostNegative(t.Context(), &PostNegativeParams{IdempotencyKey: ptr(int64(-7))}); err != nil {
		t.Fatal(err)
	}
	if got := s.Last(t).Header.Get("Idempotency-Key"); got != "-7" {
		t.Errorf("integer key header %q, want -7", got)
	}
}

// idempotent: true keeps the operation retry-safe: its 503 is retried,
// still with no key made up.
func TestUnusableKeyLeavesOtherRetrySafetyAlone(t *testing.T) {
	s := wirecheck.New(t, spec, 503, 200)
	resp, err := newClient(t, s.URL).Search(t.Context(), nil)
	if err != nil || resp.Attempts != 2 {
		t.Fatalf("attempts %v, error %v; want 2 attempts, success", resp, err)
	}
	for _, r := range s.Requests() {
		if v := r.Header.Values("Idempotency-Key"); len(v) != 0 {
			t.Errorf("Idempotency-Key %q sent, want none", v)
		}
	}
}
