package idemkeydefaults

// End-to-end tests of an idempotency key header named in x-resilience
// defaults or on a path item and declared by the operation
// (testdata/specs/idemkeydefaults.yaml), through the generated client
// against a loopback server that fails the first attempt: one Params field
// carries the key, the declared parameter's, and every attempt of a call
// sends the same key, the caller's or one the client made. openapi3filter
// checks every request against the spec.

import (
	"log/slog"
	"net/http"
	"reflect"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const spec = "../../testdata/specs/idemkeydefaults.yaml"

func ptr[T any](v T) *T { return &v }

// keys calls call against a server that answers 503 and then 201, and
// returns the header of each attempt.
func keys(t *testing.T, header string, call func(c *Client) error) []string {
	t.Helper()
	s := wirecheck.New(t, spec, http.StatusServiceUnavailable, http.StatusCreated)
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
		if got := r.Header.Values(header); len(got) != 1 {
			t.Errorf("attempt sends %s %d times: %q", header, len(got), got)
		}
		out = append(out, r.Header.Get(header))
	}
	if len(out) != 2 || out[0] != out[1] || out[0] == "" {
		t.Fatalf("keys of the attempts %q, want two equal ones", out)
	}
	return out
}

// fields are the names of a Params struct's fields.
func fields(v any) []string {
	var out []string
	for f := range reflect.TypeOf(v).Fields() {
		out = append(out, f.Name)
	}
	return out
}

func TestTheDeclaredHeaderIsTheOnlyKeyField(t *testing.T) {
	for _, tc := range []struct {
		params any
		want   string
	}{
		{CreateOrderParams{}, "XRequestID"},    // named in defaults
		{CreatePaymentParams{}, "XPaymentKey"}, // named on the path item
		{CreateNoteParams{}, "IdempotencyKey"}, // not declared: a field of its own
	} {
		if got := fields(tc.params); len(got) != 1 || got[0] != tc.want {
			t.Errorf("%T has fields %v, want just %s", tc.params, got, tc.want)
		}
	}
}

func TestCallersKeyGoesOutOnEveryAttempt(t *testing.T) {
	got := keys(t, "X-Request-Id", func(c *Client) error {
		_, err := c.CreateOrder(t.Context(), &CreateOrderParams{XRequestID: ptr("order-7")})
		return err
	})
	if got[0] != "order-7" {
		t.Errorf("sent key %q, want the caller's order-7", got[0])
	}
	got = keys(t, "X-Payment-Key", func(c *Client) error {
		_, err := c.CreatePayment(t.Context(), &CreatePaymentParams{XPaymentKey: ptr("pay-1")})
		return err
	})
	if got[0] != "pay-1" {
		t.Errorf("sent key %q, want the caller's pay-1", got[0])
	}
}

func TestLeftNilTheClientMakesOneKeyPerCall(t *testing.T) {
	first := keys(t, "X-Request-Id", func(c *Client) error {
		_, err := c.CreateOrder(t.Context(), &CreateOrderParams{})
		return err
	})
	second := keys(t, "X-Request-Id", func(c *Client) error {
		_, err := c.CreateOrder(t.Context(), nil)
		return err
	})
	if first[0] == second[0] {
		t.Errorf("two calls sent the same key %q", first[0])
	}
	keys(t, "X-Request-Id", func(c *Client) error {
		_, err := c.CreateNote(t.Context(), nil)
		return err
	})
}

// TestBuiltInPoliciesAreTheRuntimes: a spec that names no breaker or retry
// policy gets the runtime's own defaults, runtime.DefaultBreakerPolicy and
// runtime.DefaultRetryPolicy (one definition of the defaults).
func TestBuiltInPoliciesAreTheRuntimes(t *testing.T) {
	c, err := NewClient("http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	want := runtime.DefaultBreakerPolicy()
	if want.WindowType == runtime.CountWindow {
		want.WindowDuration = 0 // a count window has no duration; the client leaves it out
	}
	if got := c.Breakers()[BreakerDefault].Policy(); !reflect.DeepEqual(got, want) {
		t.Errorf("the client's default breaker is\n%+v\nthe runtime's\n%+v", got, want)
	}
	// Every attempt fails with 503: the default retry makes MaxAttempts.
	s := wirecheck.New(t, spec, http.StatusServiceUnavailable)
	if c, err = NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler))); err != nil {
		t.Fatal(err)
	}
	c.CreateNote(t.Context(), nil)
	if got, want := len(s.Requests()), runtime.DefaultRetryPolicy().MaxAttempts; got != want {
		t.Errorf("%d attempts, want the runtime's default %d", got, want)
	}
}
