package security

// End-to-end tests of security schemes (testdata/specs/security.yaml)
// through the generated client against a loopback server. The server reads
// credentials with net/http's own parsing (BasicAuth, Cookie, URL.Query)
// and checks every request against the spec with kin-openapi's
// openapi3filter, whose AuthenticationFunc accepts a scheme only when the
// request carries that scheme's credential: kin, not resgen, decides which
// alternatives an operation accepts.

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const spec = "../../testdata/specs/security.yaml"

// The credentials; none may appear in an error or a log line.
const (
	bearerTok = "tok-bearer-7f3a91"
	oauthTok  = "tok-oauth-19c2e0"
	oidcTok   = "tok-oidc-55d0b7"
	user      = "alice"
	password  = "pw-basic-e81b44"
	headerKey = "key-header-a6c4d1"
	queryKey  = "key-query-30be6f"
	cookieKey = "key-cookie-d2f95a"
)

var secrets = []string{bearerTok, oauthTok, oidcTok, password, headerKey, queryKey, cookieKey,
	base64.StdEncoding.EncodeToString([]byte(user + ":" + password))}

// allCredentials configures every scheme the client applies.
func allCredentials() []Option {
	return []Option{
		WithBearerAuth(runtime.StaticToken(bearerTok)),
		WithOauth(runtime.StaticToken(oauthTok)),
		WithOidc(runtime.StaticToken(oidcTok)),
		WithBasic(user, password),
		WithHeaderKey(runtime.StaticToken(headerKey)),
		WithQueryKey(runtime.StaticToken(queryKey)),
		WithCookieKey(runtime.StaticToken(cookieKey)),
	}
}

// seen is one request as the server read it.
type seen struct {
	path  string
	creds []string // every credential the request carries, as net/http parses it
	query string   // the q parameter
	theme string   // the theme cookie
	// invalid is openapi3filter's verdict, nil when the request satisfies
	// the spec, its security included.
	invalid error
}

type server struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []seen
}

// newServer answers status(n) to the n-th request (from 0).
func newServer(t *testing.T, status func(n int) int) *server {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	// kin's router refuses the schemes that test the generator's warnings
	// and names (/odd is not checked by kin).
	delete(doc.Components.SecuritySchemes, `evil"); panic("x`)
	delete(doc.Components.SecuritySchemes, "inBody")
	doc.Paths.Delete("/odd")
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := seen{path: r.URL.Path, creds: credentials(r), query: r.URL.Query().Get("q")}
		if c, err := r.Cookie("theme"); err == nil {
			got.theme = c.Value
		}
		got.invalid = validate(router, r)
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, got)
		s.mu.Unlock()
		w.WriteHeader(status(n))
	}))
	t.Cleanup(s.Close)
	return s
}

func ok(int) int { return http.StatusOK }

func (s *server) all() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

func (s *server) last(t *testing.T) seen {
	t.Helper()
	all := s.all()
	if len(all) == 0 {
		t.Fatal("the server received no request")
	}
	return all[len(all)-1]
}

// credentials lists what r carries: the Authorization header (Basic
// decoded by net/http), each API key header, every api_key query value and
// every session cookie, so a duplicate shows too.
func credentials(r *http.Request) []string {
	var out []string
	if a := r.Header.Get("Authorization"); a != "" {
		if u, p, ok := r.BasicAuth(); ok {
			out = append(out, "basic "+u+":"+p)
		} else {
			out = append(out, a)
		}
	}
	for _, h := range []string{"X-API-Key", "X-Clash", "X-Evil"} {
		for _, v := range r.Header.Values(h) {
			out = append(out, h+": "+v)
		}
	}
	for _, v := range r.URL.Query()["api_key"] {
		out = append(out, "api_key="+v)
	}
	for _, c := range r.CookiesNamed("session") {
		out = append(out, "session="+c.Value)
	}
	return out
}

// validate runs openapi3filter on r; its AuthenticationFunc accepts a
// scheme when r carries the credential of that scheme's kind.
func validate(router routers.Router, r *http.Request) error {
	route, params, err := router.FindRoute(r)
	if err != nil {
		return err
	}
	auth := func(_ context.Context, in *openapi3filter.AuthenticationInput) error {
		ss, req := in.SecurityScheme, in.RequestValidationInput.Request
		switch {
		case ss.Type == "apiKey" && ss.In == "header" && req.Header.Get(ss.Name) != "",
			ss.Type == "apiKey" && ss.In == "query" && req.URL.Query().Get(ss.Name) != "":
			return nil
		case ss.Type == "apiKey" && ss.In == "cookie":
			if _, err := req.Cookie(ss.Name); err == nil {
				return nil
			}
		case ss.Type == "http" && strings.EqualFold(ss.Scheme, "basic"):
			if _, _, ok := req.BasicAuth(); ok {
				return nil
			}
		case ss.Type == "http" && strings.EqualFold(ss.Scheme, "digest"):
			if strings.HasPrefix(req.Header.Get("Authorization"), "Digest ") {
				return nil
			}
		case ss.Type == "http" && strings.EqualFold(ss.Scheme, "bearer"), ss.Type == "oauth2", ss.Type == "openIdConnect":
			if strings.HasPrefix(req.Header.Get("Authorization"), "Bearer ") {
				return nil
			}
		}
		return fmt.Errorf("no credential for %s", in.SecuritySchemeName)
	}
	return openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
		Request: r, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: auth},
	})
}

func newClient(t *testing.T, url string, opts ...Option) *Client {
	t.Helper()
	c, err := NewClient(url, append([]Option{WithLogger(slog.New(slog.DiscardHandler))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

// calls are the client's operations by path.
var calls = map[string]func(ctx context.Context, c *Client) error{
	"/bearer": func(ctx context.Context, c *Client) error { _, err := c.GetBearer(ctx); return err },
	"/basic":  func(ctx context.Context, c *Client) error { _, err := c.GetBasic(ctx); return err },
	"/header": func(ctx context.Context, c *Client) error { _, err := c.GetHeader(ctx); return err },
	"/query": func(ctx context.Context, c *Client) error {
		_, err := c.GetQuery(ctx, &GetQueryParams{Q: ptr("x y")})
		return err
	},
	"/cookie": func(ctx context.Context, c *Client) error {
		_, err := c.GetCookie(ctx, &GetCookieParams{Theme: ptr("dark")})
		return err
	},
	"/oauth":    func(ctx context.Context, c *Client) error { _, err := c.GetOAuth(ctx); return err },
	"/oidc":     func(ctx context.Context, c *Client) error { _, err := c.GetOidc(ctx); return err },
	"/public":   func(ctx context.Context, c *Client) error { _, err := c.GetPublic(ctx); return err },
	"/either":   func(ctx context.Context, c *Client) error { _, err := c.GetEither(ctx); return err },
	"/both":     func(ctx context.Context, c *Client) error { _, err := c.GetBoth(ctx); return err },
	"/optional": func(ctx context.Context, c *Client) error { _, err := c.GetOptional(ctx); return err },
	"/mtls":     func(ctx context.Context, c *Client) error { _, err := c.GetMtls(ctx); return err },
	"/digest":   func(ctx context.Context, c *Client) error { _, err := c.GetDigest(ctx); return err },
	"/odd":      func(ctx context.Context, c *Client) error { _, err := c.GetOdd(ctx); return err },
}

// call makes the operation at path and returns what the server saw.
func call(t *testing.T, s *server, c *Client, path string) seen {
	t.Helper()
	if err := calls[path](t.Context(), c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s.last(t)
}

// Every kind of scheme is sent as its spec says, and only on the
// operations that require it: with every credential configured, each
// request carries exactly its scheme's.
func TestEachSchemeOnlyWhereRequired(t *testing.T) {
	s := newServer(t, ok)
	c := newClient(t, s.URL, allCredentials()...)
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/bearer", []string{"Bearer " + bearerTok}}, // the spec-wide requirement
		{"/basic", []string{"basic " + user + ":" + password}},
		{"/header", []string{"X-API-Key: " + headerKey}},
		{"/query", []string{"api_key=" + queryKey}},
		{"/cookie", []string{"session=" + cookieKey}},
		{"/oauth", []string{"Bearer " + oauthTok}},
		{"/oidc", []string{"Bearer " + oidcTok}},
		{"/public", nil},                                                      // security: [] overrides the spec-wide bearer
		{"/either", []string{"X-API-Key: " + headerKey}},                      // A or B: the first satisfied
		{"/both", []string{"X-API-Key: " + headerKey, "api_key=" + queryKey}}, // A and B
		{"/optional", []string{"Bearer " + bearerTok}},                        // {} or bearer: sent when configured
	} {
		got := call(t, s, c, tc.path)
		if !slices.Equal(got.creds, tc.want) {
			t.Errorf("%s carries %q, want %q", tc.path, got.creds, tc.want)
		}
		if got.invalid != nil {
			t.Errorf("%s: openapi3filter refuses the request: %v", tc.path, got.invalid)
		}
	}
	// /odd is not known to kin's router; its schemes' names clash with
	// WithHTTPClient and hold Go syntax: the options are WithHTTPClient2
	// and WithEvilPanicX, and the names reach the runtime intact.
	if got := call(t, s, c, "/odd"); got.creds != nil {
		t.Errorf("/odd without its options carries %q", got.creds)
	}
	odd := newClient(t, s.URL, WithEvilPanicX(runtime.StaticToken("e1")))
	if got := call(t, s, odd, "/odd"); !slices.Equal(got.creds, []string{"X-Evil: e1"}) {
		t.Errorf("/odd with WithEvilPanicX carries %q", got.creds)
	}
	odd = newClient(t, s.URL, WithEvilPanicX(runtime.StaticToken("e1")), WithHTTPClient2(runtime.StaticToken("h1")))
	if got := call(t, s, odd, "/odd"); !slices.Equal(got.creds, []string{"X-Clash: h1"}) {
		t.Errorf("/odd with both carries %q, want the first alternative's", got.creds)
	}
	// The operation's own query parameter and cookie stay beside the key.
	if got := call(t, s, c, "/query"); got.query != "x y" {
		t.Errorf("q = %q, want %q", got.query, "x y")
	}
	if got := call(t, s, c, "/cookie"); got.theme != "dark" {
		t.Errorf("theme cookie = %q, want dark", got.theme)
	}
}

// An operation whose alternatives have no configured credential goes
// without any (a RequestEditor may add them), and openapi3filter agrees it
// lacks them; an operation that allows anonymous calls ({}) is valid
// without.
func TestAlternativesChooseTheFirstSatisfied(t *testing.T) {
	s := newServer(t, ok)
	basicOnly := newClient(t, s.URL, WithBasic(user, password))
	if got := call(t, s, basicOnly, "/either"); !slices.Equal(got.creds, []string{"basic " + user + ":" + password}) || got.invalid != nil {
		t.Errorf("/either with basic only: %q (%v), want basic", got.creds, got.invalid)
	}
	for _, path := range []string{"/bearer", "/both", "/header"} {
		if got := call(t, s, basicOnly, path); got.creds != nil || got.invalid == nil {
			t.Errorf("%s with basic only: carries %q, openapi3filter says %v; want nothing, refused", path, got.creds, got.invalid)
		}
	}
	// Half of a combined requirement is not sent.
	headerOnly := newClient(t, s.URL, WithHeaderKey(runtime.StaticToken(headerKey)))
	if got := call(t, s, headerOnly, "/both"); got.creds != nil {
		t.Errorf("/both with the header key only carries %q, want nothing", got.creds)
	}
	none := newClient(t, s.URL)
	if got := call(t, s, none, "/optional"); got.creds != nil || got.invalid != nil {
		t.Errorf("/optional without credentials: %q (%v), want nothing, valid", got.creds, got.invalid)
	}
}

// Schemes resgen cannot apply (mutualTLS, http digest) get no option; the
// request goes without credentials, and a RequestEditor, which runs after
// the generated credentials, is the way to add them.
func TestUnsupportedSchemeTakesARequestEditor(t *testing.T) {
	s := newServer(t, ok)
	c := newClient(t, s.URL, allCredentials()...)
	if got := call(t, s, c, "/digest"); got.creds != nil || got.invalid == nil {
		t.Errorf("/digest: carries %q, openapi3filter says %v; want nothing, refused", got.creds, got.invalid)
	}
	digest := `Digest username="alice", response="6629fae4"`
	c = newClient(t, s.URL, append(allCredentials(), WithRequestEditor(func(_ context.Context, r *http.Request) error {
		if r.URL.Path == "/digest" {
			r.Header.Set("Authorization", digest)
		}
		return nil
	}))...)
	if got := call(t, s, c, "/digest"); !slices.Equal(got.creds, []string{digest}) || got.invalid != nil {
		t.Errorf("/digest with an editor: %q (%v)", got.creds, got.invalid)
	}
	// The editor sees the generated credential and may replace it.
	if got := call(t, s, c, "/bearer"); !slices.Equal(got.creds, []string{"Bearer " + bearerTok}) {
		t.Errorf("/bearer with the editor: %q", got.creds)
	}
}

// counter is a TokenSource that gives prefix1, prefix2, ... one per call.
type counter struct {
	prefix string
	n      atomic.Int32
}

func (c *counter) Token(context.Context) (string, error) {
	return fmt.Sprintf("%s%d", c.prefix, c.n.Add(1)), nil
}

// A token source is asked on every attempt: the retry of a 503 carries
// the second token, for a bearer token, a query key and a cookie key alike,
// and the retry carries only the new one.
func TestTokenSourceIsAskedOnEveryAttempt(t *testing.T) {
	s := newServer(t, func(n int) int {
		if n%2 == 0 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	c := newClient(t, s.URL,
		WithBearerAuth(&counter{prefix: "t"}),
		WithQueryKey(&counter{prefix: "q"}),
		WithCookieKey(&counter{prefix: "c"}))
	for _, tc := range []struct {
		path string
		want [2]string
	}{
		{"/bearer", [2]string{"Bearer t1", "Bearer t2"}},
		{"/query", [2]string{"api_key=q1", "api_key=q2"}},
		{"/cookie", [2]string{"session=c1", "session=c2"}},
	} {
		before := len(s.all())
		call(t, s, c, tc.path)
		got := s.all()[before:]
		if len(got) != 2 {
			t.Fatalf("%s: %d attempts, want 2", tc.path, len(got))
		}
		for i, r := range got {
			if !slices.Equal(r.creds, []string{tc.want[i]}) {
				t.Errorf("%s attempt %d carries %q, want %q", tc.path, i+1, r.creds, tc.want[i])
			}
		}
	}
}

// A token source's error fails the call before anything is sent: not
// retried, not counted by the breaker, and the error says which scheme.
func TestTokenSourceErrorIsALocalFailure(t *testing.T) {
	s := newServer(t, ok)
	idpDown := errors.New("identity provider unreachable")
	var asked atomic.Int32
	c := newClient(t, s.URL, WithBearerAuth(runtime.TokenFunc(func(context.Context) (string, error) {
		asked.Add(1)
		return "", idpDown
	})))
	for range 5 {
		err := calls["/bearer"](t.Context(), c)
		if !errors.Is(err, idpDown) || !strings.Contains(err.Error(), `security scheme "bearerAuth"`) {
			t.Fatalf("err = %v, want the token source's error naming the scheme", err)
		}
	}
	if n := asked.Load(); n != 5 {
		t.Errorf("token source asked %d times for 5 calls, want 5 (no retry)", n)
	}
	if n := len(s.all()); n != 0 {
		t.Errorf("%d requests sent, want 0", n)
	}
	if m := c.Breakers()["shared"].Metrics(); m.State != runtime.StateClosed || m.Calls != 0 {
		t.Errorf("breaker %+v, want closed with no call recorded", m)
	}
	// An empty token or one a header cannot carry fails the same way.
	for _, tok := range []string{"", "bad\r\nX-Injected: 1"} {
		c := newClient(t, s.URL, WithBearerAuth(runtime.StaticToken(tok)))
		if err := calls["/bearer"](t.Context(), c); err == nil || !strings.Contains(err.Error(), `security scheme "bearerAuth"`) {
			t.Errorf("token %q: err = %v", tok, err)
		}
	}
	if n := len(s.all()); n != 0 {
		t.Errorf("%d requests sent, want 0", n)
	}
	if _, err := NewClient(s.URL, WithBearerAuth(nil)); err == nil {
		t.Error("WithBearerAuth(nil) accepted")
	}
}

// No credential reaches an error, an observer's log line or the client's
// log, whether the server answers 500 (a StatusError after the retries)
// or the connection fails (a CallError, whose URL holds the query key).
func TestNoCredentialInErrorsOrLogs(t *testing.T) {
	var logs bytes.Buffer
	l := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	failing := newServer(t, func(int) int { return http.StatusInternalServerError })
	// A listener that accepts and closes: every attempt is a transport error.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	})
	t.Cleanup(func() { ln.Close(); wg.Wait() })

	var errs []error
	for _, url := range []string{failing.URL, "http://" + ln.Addr().String()} {
		for path, do := range calls {
			// A client per call: the breaker opens after three failures.
			c := newClient(t, url, append(allCredentials(), WithLogger(l), WithObserver(runtime.NewSlogObserver(l)))...)
			if err := do(t.Context(), c); err != nil {
				errs = append(errs, err)
			} else if path != "/public" && url == failing.URL {
				t.Errorf("%s: no error for a 500", path)
			}
		}
	}
	var sawStatus, sawCall bool
	for _, err := range errs {
		var se *runtime.StatusError
		var ce *runtime.CallError
		sawStatus = sawStatus || errors.As(err, &se)
		sawCall = sawCall || errors.As(err, &ce)
		text := err.Error() + fmt.Sprintf(" %+v %#v", err, err)
		if se != nil {
			text += se.URL + fmt.Sprint(se.Header)
		}
		for _, sec := range secrets {
			if strings.Contains(text, sec) {
				t.Errorf("error shows a credential: %s", text)
			}
		}
	}
	if !sawStatus || !sawCall {
		t.Errorf("want StatusErrors and CallErrors, got %v", errs)
	}
	if !strings.Contains(logs.String(), "api_key=REDACTED") {
		t.Errorf("the log has no URL with the query key's name; the test would prove nothing:\n%s", logs.String())
	}
	for _, sec := range secrets {
		if strings.Contains(logs.String(), sec) {
			t.Errorf("the log shows a credential %q:\n%s", sec, logs.String())
		}
	}
}
