package runtime

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
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
	c := Credential{Scheme: "s", Kind: AuthBasic, Username: "u", Password: "hunter2", Token: StaticToken("tok-123")}
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s", c, c, c, c), fmt.Sprint(StaticToken("tok-123")), fmt.Sprint([]Credential{c})} {
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
	e := NewEngine(Config{Credentials: []Credential{
		{Scheme: "b", Kind: AuthBearer, Token: StaticToken("t")},
		{Scheme: "k", Kind: AuthHeader, Param: "x-key", Token: StaticToken("k")},
		{Scheme: "nil", Kind: AuthBearer}, // no source: not configured
	}})
	for _, tc := range []struct {
		reqs []SecurityRequirement
		want string
	}{
		{nil, "[]"},
		{[]SecurityRequirement{{}, {"b"}}, "[b]"},
		{[]SecurityRequirement{{"b", "missing"}, {"k"}}, "[k]"},
		{[]SecurityRequirement{{"nil"}, {}}, "[]"},
		{[]SecurityRequirement{{"b", "k"}}, "[b k]"},
	} {
		op := e.Operation(OperationSpec{Name: "x", Security: tc.reqs})
		var names []string
		for _, s := range op.spec.auth {
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
	e := NewEngine(Config{Credentials: []Credential{
		{Scheme: "s", Kind: AuthBearer, Token: StaticToken("t")},
		{Scheme: "f", Kind: AuthBearer, Token: TokenFunc(func(context.Context) (string, error) { return "t", nil })},
	}})
	r, _ := http.NewRequest("GET", "http://x/", nil)
	ctx := context.Background()
	for _, tc := range []struct {
		sec  []SecurityRequirement
		want float64
	}{{nil, 0}, {[]SecurityRequirement{{"s"}}, 1}, {[]SecurityRequirement{{"f"}}, 2}} {
		op := e.Operation(OperationSpec{Name: "x", Security: tc.sec})
		n := testing.AllocsPerRun(100, func() {
			if err := e.authorize(ctx, &op.spec, r); err != nil {
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
	e := NewEngine(Config{Credentials: []Credential{
		{Scheme: "static", Kind: AuthBearer, Token: StaticToken("t")},
		{Scheme: "source", Kind: AuthBearer, Token: TokenFunc(func(context.Context) (string, error) { return "t", nil })},
		{Scheme: "query", Kind: AuthQuery, Param: "api_key", Token: StaticToken("k")},
	}})
	for _, name := range []string{"none", "static", "source", "query"} {
		var sec []SecurityRequirement
		if name != "none" {
			sec = []SecurityRequirement{{name}}
		}
		op := e.Operation(OperationSpec{Name: "x", Security: sec})
		b.Run(name, func(b *testing.B) {
			r, _ := http.NewRequest("GET", "http://x/?a=1", nil)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				r.URL.RawQuery = "a=1"
				if err := e.authorize(ctx, &op.spec, r); err != nil {
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
		cred Credential
		want string
	}{
		{Credential{Scheme: "b", Kind: AuthBasic, Username: "us:er", Password: "pw-secret"}, "colon"},
		{Credential{Scheme: "c", Kind: AuthCookie, Param: "s", Token: StaticToken("a;secret")}, "cookie"},
		{Credential{Scheme: "h", Kind: AuthHeader, Param: "X-K", Token: StaticToken("a\nsecret")}, "header"},
		{Credential{Scheme: "t", Kind: AuthBearer, Token: TokenFunc(func(context.Context) (string, error) { return "", nil })}, "empty"},
	} {
		e := NewEngine(Config{Credentials: []Credential{tc.cred}})
		op := e.Operation(OperationSpec{Name: "x", Security: []SecurityRequirement{{tc.cred.Scheme}}})
		r, _ := http.NewRequest("GET", "http://x/", nil)
		err := e.authorize(context.Background(), &op.spec, r)
		if err == nil || !strings.Contains(err.Error(), `security scheme "`+tc.cred.Scheme+`"`) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: err = %v", tc.cred.Scheme, err)
		}
		if len(r.Header) != 0 || r.URL.RawQuery != "" {
			t.Errorf("%s: the request was changed: %v %q", tc.cred.Scheme, r.Header, r.URL.RawQuery)
		}
	}
}
