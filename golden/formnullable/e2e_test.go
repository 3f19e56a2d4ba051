package formnullable

// End-to-end tests of testdata/specs/formnullable.yaml through the
// generated client against a loopback server (openapi3filter checks every
// request): nullable form properties resgen cannot write as style form
// says are reported (see generator TestNullableFormPropertiesAreReported
// AsTheirType), and the raw method the warning names sends the body the
// caller wrote (it used to send deepObject brackets with no warning).

import (
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const spec = "../../testdata/specs/formnullable.yaml"

func newClient(t *testing.T, server string) *Client {
	t.Helper()
	c, err := NewClient(server, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The escape hatch: the body as the spec's style form means it (an
// object's properties spread over the form), byte for byte.
func TestRawMethodSendsTheCallersForm(t *testing.T) {
	s := wirecheck.New(t, spec, 201)
	const form = "a=x&note=n"
	if _, err := newClient(t, s.URL).CreateOrderWithBody(t.Context(), "application/x-www-form-urlencoded", strings.NewReader(form)); err != nil {
		t.Fatal(err)
	}
	r := s.Last(t)
	if string(r.Body) != form || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Errorf("sent %q as %q, want %q", r.Body, r.Header.Get("Content-Type"), form)
	}
}

// What the typed method can write is sent as the style says; a null
// (nil) property is left out.
func TestNullablePropertiesThatFormWritesAreSent(t *testing.T) {
	s := wirecheck.New(t, spec, 201)
	if _, err := newClient(t, s.URL).CreateOrder(t.Context(), CreateOrderForm{Tags: runtime.Value([]string{"a b", "c"}), Note: runtime.Value("n")}); err != nil {
		t.Fatal(err)
	}
	r := s.Last(t)
	got, err := url.ParseQuery(string(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	if want := (url.Values{"tags": {"a b", "c"}, "note": {"n"}}); got.Encode() != want.Encode() {
		t.Errorf("form %v, want %v", got, want)
	}
}
