package cookietext

// End-to-end tests of testdata/specs/cookietext.yaml through the generated
// client against a loopback server that checks every request with
// kin-openapi's openapi3filter: cookie values are percent-encoded as RFC
// 6570 (OpenAPI's style form) does, a space as %20, never as + (which a
// server reads as a plus).

import (
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const spec = "../../testdata/specs/cookietext.yaml"

func ptr[T any](v T) *T { return &v }

func newClient(t *testing.T, server string) *Client {
	t.Helper()
	c, err := NewClient(server, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Each value with its RFC 6570 form (every byte but ALPHA, DIGIT, "-",
// ".", "_" and "~" percent-encoded), written out here by hand.
var values = []struct{ v, sent string }{
	{"a b", "a%20b"},
	{"a+b", "a%2Bb"},
	{"50% off", "50%25%20off"},
	{"x;y,z=1", "x%3By%2Cz%3D1"},
	{`q"u\o`, "q%22u%5Co"},
	{"é", "%C3%A9"},
	{"~-._", "~-._"},
	{"", ""},
}

// The value net/http reads for a cookie (openapi3filter's cookie decoder
// reads it the same way, with Request.Cookie, and takes it as it is:
// kin-openapi v0.153 does not percent-decode cookies) must be the RFC 6570
// text, which percent-decodes to the caller's value.
func TestCookieValuesArePercentEncodedAsRFC6570(t *testing.T) {
	for _, tc := range values {
		s := wirecheck.New(t, spec, 204)
		c := newClient(t, s.URL)
		_, err := c.GetPrefs(t.Context(), &GetPrefsParams{
			Name: ptr(tc.v),
			Tags: []string{tc.v, "b"},
			Pos:  &GetPrefsPos{Label: ptr(tc.v)},
		})
		if err != nil {
			t.Fatal(err)
		}
		r := s.Last(t) // openapi3filter accepts it
		got := map[string]string{}
		for _, ck := range r.Cookies {
			got[ck.Name] = ck.Value
		}
		want := map[string]string{"name": tc.sent, "tags": tc.sent + ",b", "pos": "label," + tc.sent}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%q: cookie %s = %q, want %q (Cookie: %q)", tc.v, k, got[k], w, r.Header.Get("Cookie"))
			}
		}
		// Read back as a server that percent-decodes RFC 6570 text does.
		if v, err := url.PathUnescape(got["name"]); err != nil || v != tc.v {
			t.Errorf("%q: name reads back as %q (%v)", tc.v, v, err)
		}
		items := strings.Split(got["tags"], ",")
		if len(items) != 2 {
			t.Fatalf("%q: tags %q do not split into 2 items", tc.v, got["tags"])
		}
		if v, err := url.PathUnescape(items[0]); err != nil || v != tc.v {
			t.Errorf("%q: tags[0] reads back as %q (%v)", tc.v, v, err)
		}
		kv := strings.Split(got["pos"], ",")
		if len(kv) != 2 || kv[0] != "label" {
			t.Fatalf("%q: pos %q is not label,<value>", tc.v, got["pos"])
		}
		if v, err := url.PathUnescape(kv[1]); err != nil || v != tc.v {
			t.Errorf("%q: pos.label reads back as %q (%v)", tc.v, v, err)
		}
	}
}
