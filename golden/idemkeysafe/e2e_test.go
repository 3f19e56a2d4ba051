package idemkeysafe

// End-to-end tests of testdata/specs/idemkeysafe.yaml through the
// generated client against a loopback server (openapi3filter checks every
// request): an Idempotency-Key header of an operation that is retry-safe
// by its method is the caller's to set (the client used to make up a
// random key on every call).

import (
	"log/slog"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const spec = "../../testdata/specs/idemkeysafe.yaml"

func ptr[T any](v T) *T { return &v }

func newClient(t *testing.T, server string) *Client {
	t.Helper()
	c, err := NewClient(server, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// keys are the Idempotency-Key values of every request the server got,
// "-" where there was none; each request is checked by openapi3filter.
func keys(t *testing.T, s *wirecheck.Server) []string {
	t.Helper()
	var out []string
	for _, r := range s.Requests() {
		if r.Invalid != nil {
			t.Errorf("openapi3filter rejects %s %s: %v", r.Method, r.RawPath, r.Invalid)
		}
		v := r.Header.Values("Idempotency-Key")
		switch len(v) {
		case 0:
			out = append(out, "-")
		case 1:
			out = append(out, v[0])
		default:
			t.Errorf("%s %s: %d Idempotency-Key headers", r.Method, r.RawPath, len(v))
		}
	}
	return out
}

// Three attempts each (503, 503, 204): what the caller left unset is never
// sent, on any attempt; what it set is sent on every attempt.
func TestKeyOfSafeMethodIsTheCallersToSet(t *testing.T) {
	cases := []struct {
		what string
		call func(c *Client) error
		want string // on each attempt
	}{
		{"GET unset", func(c *Client) error { _, err := c.ListThings(t.Context(), nil); return err }, "-"},
		{"GET params without key", func(c *Client) error { _, err := c.ListThings(t.Context(), &ListThingsParams{}); return err }, "-"},
		{"GET set", func(c *Client) error {
			_, err := c.ListThings(t.Context(), &ListThingsParams{IdempotencyKey: ptr("k1")})
			return err
		}, "k1"},
		{"PUT unset", func(c *Client) error { _, err := c.PutThing(t.Context(), "a", nil); return err }, "-"},
		{"PUT set", func(c *Client) error {
			_, err := c.PutThing(t.Context(), "a", &PutThingParams{IdempotencyKey: ptr("k2")})
			return err
		}, "k2"},
	}
	for _, tc := range cases {
		s := wirecheck.New(t, spec, 503, 503, 204)
		if err := tc.call(newClient(t, s.URL)); err != nil {
			t.Fatalf("%s: %v", tc.what, err)
		}
		got := keys(t, s)
		if len(got) != 3 {
			t.Fatalf("%s: %d attempts, want 3 (503, 503, 204): retried as a GET/PUT is", tc.what, len(got))
		}
		for i, k := range got {
			if k != tc.want {
				t.Errorf("%s: attempt %d sent Idempotency-Key %q, want %q", tc.what, i+1, k, tc.want)
			}
		}
	}
}

// Where the key is what makes the operation retry-safe (a POST), or where
// the policy asks for one (idempotencyKey: true), the client still makes
// one per call when the caller leaves it out: the same on every attempt,
// another on the next call.
func TestKeyThatMakesRetrySafeIsStillMade(t *testing.T) {
	for _, tc := range []struct {
		what string
		call func(c *Client) error
	}{
		{"POST", func(c *Client) error { _, err := c.CreateThing(t.Context(), nil); return err }},
		{"GET with idempotencyKey: true", func(c *Client) error { _, err := c.ListKeyed(t.Context(), nil); return err }},
	} {
		s := wirecheck.New(t, spec, 503, 503, 204, 204)
		c := newClient(t, s.URL)
		if err := tc.call(c); err != nil {
			t.Fatalf("%s: %v", tc.what, err)
		}
		if err := tc.call(c); err != nil {
			t.Fatalf("%s: %v", tc.what, err)
		}
		got := keys(t, s)
		if len(got) != 4 || got[0] == "-" || got[0] != got[1] || got[1] != got[2] || got[3] == got[0] || got[3] == "-" {
			t.Errorf("%s: keys %q, want one made key on the 3 attempts of the first call, another on the second", tc.what, got)
		}
	}
}

// A required key header of a DELETE is a required parameter like any
// other: a string field the caller fills, sent as given on every attempt.
func TestRequiredKeyOfSafeMethodIsSentAsGiven(t *testing.T) {
	s := wirecheck.New(t, spec, 503, 204)
	if _, err := newClient(t, s.URL).DeleteThing(t.Context(), "a", DeleteThingParams{IdempotencyKey: "k3"}); err != nil {
		t.Fatal(err)
	}
	if got := keys(t, s); len(got) != 2 || got[0] != "k3" || got[1] != "k3" {
		t.Errorf("keys %q, want k3 on both attempts", got)
	}
}
