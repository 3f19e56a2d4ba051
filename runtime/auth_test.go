package runtime

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/resgen/resgen/runtime/wire"
)

func TestSetQueryParamReplacesAndKeepsTheRest(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{"", "api_key=k+2"},
		{"a=1", "a=1&api_key=k+2"},
		{"api_key=old&a=1", "a=1&api_key=k+2"},
		{"a=1&api_key=old&api_key=older&b=2", "a=1&b=2&api_key=k+2"},
		{"xapi_key=1", "xapi_key=1&api_key=k+2"},
		{"api_key", "api_key=k+2"},
	} {
		u := &url.URL{RawQuery: tc.raw}
		setQueryParam(u, "api_key", url.QueryEscape("k 2"))
		if u.RawQuery != tc.want {
			t.Errorf("%q: got %q, want %q", tc.raw, u.RawQuery, tc.want)
		}
	}
}

func TestSetCookieReplacesAndKeepsTheRest(t *testing.T) {
	for _, tc := range []struct {
		old  []string
		want string
	}{
		{nil, "session=k"},
		{[]string{"theme=dark"}, "theme=dark; session=k"},
		{[]string{"session=old; theme=dark"}, "theme=dark; session=k"},
		{[]string{"a=1", "session=old"}, "a=1; session=k"},
	} {
		h := http.Header{}
		if tc.old != nil {
			h["Cookie"] = tc.old
		}
		setCookie(h, "session", "k")
		r := &http.Request{Header: h}
		if got := h.Get("Cookie"); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.old, got, tc.want)
		}
		if c, err := r.Cookie("session"); err != nil || c.Value != "k" || len(r.CookiesNamed("session")) != 1 {
			t.Errorf("%q: net/http reads session as %v, %v", tc.old, c, err)
		}
	}
}

func TestCredentialsDoNotPrint(t *testing.T) {
	c := wire.Credential{Scheme: "s", Kind: wire.AuthBasic, Username: "u", Password: "hunter2", Token: StaticToken("tok-123")}
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s", c, c, c, c), fmt.Sprint(StaticToken("tok-123")), fmt.Sprint([]wire.Credential{c})} {
		for _, secret := range []string{"hunter2", "tok-123"} {
			if strings.Contains(s, secret) {
				t.Errorf("%q shows %q", s, secret)
			}
		}
	}
}

// An anonymous alternative is taken only when no other is satisfied; an
// alternative with an unconfigured scheme is skipped.
func TestAuthPlan(t *testing.T) {
	e := newEngine(config{Credentials: []wire.Credential{
		{Scheme: "b", Kind: wire.AuthBearer, Token: StaticToken("t")},
		{Scheme: "k", Kind: wire.AuthHeader, Param: "x-key", Token: StaticToken("k")},
		{Scheme: "nil", Kind: wire.AuthBearer}, // no source: not configured
	}})
	for _, tc := range []struct {
		reqs []wire.SecurityRequirement
		want string
	}{
		{nil, "[]"},
		{[]wire.SecurityRequirement{{}, {"b"}}, "[b]"},
		{[]wire.SecurityRequirement{{"b", "missing"}, {"k"}}, "[k]"},
		{[]wire.SecurityRequirement{{"nil"}, {}}, "[]"},
		{[]wire.SecurityRequirement{{"b", "k"}}, "[b k]"},
	} {
		op := e.operation(operationSpec{Name: "x", Security: tc.reqs})
		var names []string
		for _, s := range op.auth {
			names = append(names, s.name)
		}
		if got := fmt.Sprint(names); got != tc.want {
			t.Errorf("%v: plan %s, want %s", tc.reqs, got, tc.want)
		}
	}
}

// No allocation for an operation without security; one for a static
// bearer token (the header's slice), two for a token source.
func TestAuthorizeAllocations(t *testing.T) {
	e := newEngine(config{Credentials: []wire.Credential{
		{Scheme: "s", Kind: wire.AuthBearer, Token: StaticToken("t")},
		{Scheme: "f", Kind: wire.AuthBearer, Token: TokenFunc(func(context.Context) (string, error) { return "t", nil })},
	}})
	r, _ := http.NewRequest("GET", "http://x/", nil)
	ctx := context.Background()
	for _, tc := range []struct {
		sec  []wire.SecurityRequirement
		want float64
	}{{nil, 0}, {[]wire.SecurityRequirement{{"s"}}, 1}, {[]wire.SecurityRequirement{{"f"}}, 2}} {
		op := e.operation(operationSpec{Name: "x", Security: tc.sec})
		n := testing.AllocsPerRun(100, func() {
			if err := e.authorize(ctx, op.auth, r); err != nil {
				t.Fatal(err)
			}
		})
		if n > tc.want {
			t.Errorf("%v: %v allocations, want <= %v", tc.sec, n, tc.want)
		}
	}
}

// BenchmarkAuthorize measures what one attempt pays for its credentials.
func BenchmarkAuthorize(b *testing.B) {
	e := newEngine(config{Credentials: []wire.Credential{
		{Scheme: "static", Kind: wire.AuthBearer, Token: StaticToken("t")},
		{Scheme: "source", Kind: wire.AuthBearer, Token: TokenFunc(func(context.Context) (string, error) { return "t", nil })},
		{Scheme: "query", Kind: wire.AuthQuery, Param: "api_key", Token: StaticToken("k")},
	}})
	for _, name := range []string{"none", "static", "source", "query"} {
		var sec []wire.SecurityRequirement
		if name != "none" {
			sec = []wire.SecurityRequirement{{name}}
		}
		op := e.operation(operationSpec{Name: "x", Security: sec})
		b.Run(name, func(b *testing.B) {
			r, _ := http.NewRequest("GET", "http://x/?a=1", nil)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				r.URL.RawQuery = "a=1"
				if err := e.authorize(ctx, op.auth, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Values that cannot be sent fail before sending, naming the scheme and
// never the value; a good value after a bad one is sent.
func TestAuthorizeRefusesUnsendableValues(t *testing.T) {
	for _, tc := range []struct {
		cred wire.Credential
		want string
	}{
		{wire.Credential{Scheme: "b", Kind: wire.AuthBasic, Username: "us:er", Password: "pw-secret"}, "colon"},
		{wire.Credential{Scheme: "c", Kind: wire.AuthCookie, Param: "s", Token: StaticToken("a;secret")}, "cookie"},
		{wire.Credential{Scheme: "h", Kind: wire.AuthHeader, Param: "X-K", Token: StaticToken("a\nsecret")}, "header"},
		{wire.Credential{Scheme: "t", Kind: wire.AuthBearer, Token: TokenFunc(func(context.Context) (string, error) { return "", nil })}, "empty"},
	} {
		e := newEngine(config{Credentials: []wire.Credential{tc.cred}})
		op := e.operation(operationSpec{Name: "x", Security: []wire.SecurityRequirement{{tc.cred.Scheme}}})
		r, _ := http.NewRequest("GET", "http://x/", nil)
		err := e.authorize(context.Background(), op.auth, r)
		if err == nil || !strings.Contains(err.Error(), `security scheme "`+tc.cred.Scheme+`"`) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: err = %v", tc.cred.Scheme, err)
		}
		if len(r.Header) != 0 || r.URL.RawQuery != "" {
			t.Errorf("%s: the request was changed: %v %q", tc.cred.Scheme, r.Header, r.URL.RawQuery)
		}
	}
}
