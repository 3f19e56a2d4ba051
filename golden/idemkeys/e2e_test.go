package idemkeys

// End-to-end tests of idempotency-key headers of every schema type a key
// can have (testdata/specs/idemkeys.yaml) through the generated client
// against a loopback server: openapi3filter must accept the header, and
// every attempt of a call must carry the same key, the caller's (written
// by style simple) or one the client made that fits the schema.

import (
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const spec = "../../testdata/specs/idemkeys.yaml"

func ptr[T any](v T) *T { return &v }

// keys calls call against a server that fails the first attempt with 503,
// and returns the key header of each attempt, checked by the oracle.
func keys(t *testing.T, header string, call func(c *Client) error) []string {
	t.Helper()
	s := wirecheck.New(t, spec, http.StatusServiceUnavailable, http.StatusOK)
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	if err := call(c); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range s.Requests() {
		if r.Invalid != nil {
			t.Errorf("openapi3filter rejects the request: %v", r.Invalid)
		}
		out = append(out, r.Header.Get(header))
	}
	if len(out) != 2 || out[0] != out[1] {
		t.Fatalf("keys of the attempts %q, want two equal ones", out)
	}
	return out
}

func intIn(t *testing.T, s string, lo, hi int64) {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < lo || n > hi {
		t.Errorf("key %q, want an integer from %d to %d", s, lo, hi)
	}
}

func TestCallersKeyIsWrittenByStyleSimple(t *testing.T) {
	for _, tc := range []struct {
		name, header, want string
		call               func(c *Client) error
	}{
		{"integer", "Idempotency-Key", "-42", func(c *Client) error {
			_, err := c.IntKey(t.Context(), &IntKeyParams{IdempotencyKey: ptr(int64(-42))})
			return err
		}},
		{"number", "Idempotency-Key", "0.5", func(c *Client) error {
			_, err := c.NumberKey(t.Context(), &NumberKeyParams{IdempotencyKey: ptr(0.5)})
			return err
		}},
		{"list", "Idempotency-Key", "6f1c0a52-8e7b-4c3d-9a2e-1b0c9d8e7f6a", func(c *Client) error {
			_, err := c.ListKey(t.Context(), &ListKeyParams{IdempotencyKey: []string{"6f1c0a52-8e7b-4c3d-9a2e-1b0c9d8e7f6a"}})
			return err
		}},
		{"union", "Idempotency-Key", "77", func(c *Client) error {
			_, err := c.UnionKey(t.Context(), &UnionKeyParams{IdempotencyKey: &UnionKeyIdempotencyKey{Int: ptr(int64(77))}})
			return err
		}},
		{"configured header", "X-Request-Id", "5", func(c *Client) error {
			_, err := c.CustomKey(t.Context(), &CustomKeyParams{XRequestID: ptr(int32(5))})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := keys(t, tc.header, tc.call); got[0] != tc.want {
				t.Errorf("key %q, want %q", got[0], tc.want)
			}
		})
	}
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestClientsKeyFitsTheSchema(t *testing.T) {
	intIn(t, keys(t, "Idempotency-Key", func(c *Client) error {
		_, err := c.IntKey(t.Context(), nil)
		return err
	})[0], 0, 1<<53-1)
	intIn(t, keys(t, "Idempotency-Key", func(c *Client) error {
		_, err := c.BoundedKey(t.Context(), nil)
		return err
	})[0], 1000, 1999)
	intIn(t, keys(t, "Idempotency-Key", func(c *Client) error {
		_, err := c.NumberKey(t.Context(), &NumberKeyParams{})
		return err
	})[0], 1, 1<<53-1) // exclusiveMinimum: 0
	intIn(t, keys(t, "X-Request-Id", func(c *Client) error {
		_, err := c.CustomKey(t.Context(), nil)
		return err
	})[0], 0, 1<<31-1)
	for name, call := range map[string]func(c *Client) error{
		"list":  func(c *Client) error { _, err := c.ListKey(t.Context(), nil); return err },
		"union": func(c *Client) error { _, err := c.UnionKey(t.Context(), nil); return err },
	} {
		if k := keys(t, "Idempotency-Key", call)[0]; !uuidRE.MatchString(k) {
			t.Errorf("%s: key %q, want a random UUID", name, k)
		}
	}
}
