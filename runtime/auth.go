package runtime

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/resgen/resgen/runtime/wire"
)

// Security schemes: a generated client turns each scheme of the spec it
// can apply into a client option that adds a wire.Credential to its
// engine's configuration; each operation names the schemes it requires
// (its spec's Security), and
// the engine adds the credentials to every attempt's request, before the
// client's RequestEditors run. See docs/auth.md.

// TokenSource gives the secret of a scheme that takes one: the token of an
// http bearer, oauth2 or openIdConnect scheme (sent as "Authorization:
// Bearer <token>") or the key of an apiKey scheme. The engine calls it on
// every attempt, retries included, with the attempt's context, so a source
// that refreshes an expired token gives a retry the new one. It must be
// safe for concurrent use, and its error must not hold the secret: the
// error fails the attempt (not retried, not counted by the breaker) and is
// returned to the caller.
type TokenSource interface {
	Token(ctx context.Context) (string, error)
}

// TokenFunc adapts a function to a TokenSource.
type TokenFunc func(ctx context.Context) (string, error)

// Token returns f(ctx).
func (f TokenFunc) Token(ctx context.Context) (string, error) { return f(ctx) }

// StaticToken is a token or key that never changes.
type StaticToken string

// Token returns t.
func (t StaticToken) Token(context.Context) (string, error) { return string(t), nil }

// String hides the token from fmt and loggers.
func (t StaticToken) String() string { return "runtime.StaticToken(<redacted>)" }

// authScheme is a Credential ready to apply.
type authScheme struct {
	name  string
	kind  wire.AuthKind
	param string      // canonical header name, escaped query name, or cookie name
	token TokenSource // nil when fixed is the whole value
	fixed string      // the value to send when token is nil: a Basic header, a static token's
	bad   error       // a fixed value that cannot be sent: every attempt fails with it
}

// newAuth indexes the configured credentials by scheme name; a later
// credential for the same scheme replaces an earlier one.
func newAuth(creds []wire.Credential) map[string]*authScheme {
	if len(creds) == 0 {
		return nil
	}
	m := make(map[string]*authScheme, len(creds))
	for _, c := range creds {
		s := &authScheme{name: c.Scheme, kind: c.Kind, param: c.Param}
		switch c.Kind {
		case wire.AuthBasic:
			if strings.ContainsRune(c.Username, ':') {
				s.bad = s.errorf("the user name holds a colon, which Basic authentication cannot carry")
			}
			s.fixed = "Basic " + base64.StdEncoding.EncodeToString([]byte(c.Username+":"+c.Password))
		case wire.AuthHeader, wire.AuthQuery:
			s.param = http.CanonicalHeaderKey(c.Param)
			if c.Kind == wire.AuthQuery {
				s.param = url.QueryEscape(c.Param)
			}
			fallthrough
		case wire.AuthBearer, wire.AuthCookie:
			if c.Token == nil {
				continue
			}
			s.token = c.Token
			if t, ok := c.Token.(StaticToken); ok {
				// Checked and built once, not per attempt.
				s.token = nil
				s.fixed, s.bad = s.value(string(t))
			}
		default:
			continue
		}
		m[c.Scheme] = s
	}
	return m
}

// secretQueryParams returns the query parameter names that carry keys.
func secretQueryParams(creds []wire.Credential) []string {
	var names []string
	for _, c := range creds {
		if c.Kind == wire.AuthQuery {
			names = append(names, c.Param)
		}
	}
	return names
}

// authPlan returns the schemes an operation sends: those of the first
// alternative whose schemes all have a credential. An empty alternative
// (anonymous allowed) is taken only when no other is satisfied, so a
// configured credential is sent where the spec makes it optional. nil when
// none is satisfied: the request goes without credentials (a
// RequestEditor may still add them).
func (e *engine) authPlan(reqs []wire.SecurityRequirement) []*authScheme {
	if len(e.auth) == 0 {
		return nil
	}
next:
	for _, alt := range reqs {
		if len(alt) == 0 {
			continue
		}
		plan := make([]*authScheme, len(alt))
		for i, name := range alt {
			if plan[i] = e.auth[name]; plan[i] == nil {
				continue next
			}
		}
		return plan
	}
	return nil
}

// authorize adds the credentials spec requires to one attempt's request.
// It runs on every attempt, after the request is built and before the
// client's RequestEditors (which may override what it set), so a token
// source is asked again on each retry. Its error is a local one: the
// attempt is not sent, not retried, not recorded by the breaker.
func (e *engine) authorize(ctx context.Context, auth []*authScheme, r *http.Request) error {
	for _, s := range auth {
		if err := s.apply(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

func (s *authScheme) apply(ctx context.Context, r *http.Request) error {
	v := s.fixed
	if s.bad != nil {
		return s.bad
	}
	if s.token != nil {
		tok, err := s.token.Token(ctx)
		if err != nil {
			return &authError{scheme: s.name, msg: "token source failed", err: err}
		}
		if v, err = s.value(tok); err != nil {
			return err
		}
	}
	if r.Header == nil {
		r.Header = make(http.Header)
	}
	switch s.kind {
	case wire.AuthBearer, wire.AuthBasic:
		r.Header["Authorization"] = []string{v}
	case wire.AuthHeader:
		r.Header[s.param] = []string{v}
	case wire.AuthQuery:
		setQueryParam(r.URL, s.param, v)
	case wire.AuthCookie:
		setCookie(r.Header, s.param, v)
	}
	return nil
}

// value checks a token or key and returns what is sent: the header value,
// the escaped query value or the cookie value.
func (s *authScheme) value(tok string) (string, error) {
	if tok == "" {
		return "", s.errorf("the token source gave an empty token")
	}
	switch s.kind {
	case wire.AuthBearer:
		if !headerValue(tok) {
			return "", s.errorf("the token holds a byte a header cannot carry")
		}
		return "Bearer " + tok, nil
	case wire.AuthHeader:
		if !headerValue(tok) {
			return "", s.errorf("the key holds a byte a header cannot carry")
		}
	case wire.AuthCookie:
		if !cookieValue(tok) {
			return "", s.errorf("the key holds a byte a cookie value cannot carry")
		}
	case wire.AuthQuery:
		return url.QueryEscape(tok), nil
	}
	return tok, nil
}

func (s *authScheme) errorf(msg string) error { return &authError{scheme: s.name, msg: msg} }

// authError is a credential that could not be added. Its text names the
// scheme and never the secret.
type authError struct {
	scheme, msg string
	err         error
}

func (e *authError) Error() string {
	s := "security scheme " + strconv.Quote(e.scheme) + ": " + e.msg
	if e.err != nil {
		s += ": " + e.err.Error()
	}
	return s
}

func (e *authError) Unwrap() error { return e.err }

// headerValue reports whether v can be a header value as sent: no control
// bytes but tab (net/http would refuse it only once sending, as a
// transport error that would be retried and counted).
func headerValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// cookieValue reports whether v is all cookie-octets (RFC 6265 4.1.1).
func cookieValue(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c <= ' ' || c >= 0x7f || c == '"' || c == ',' || c == ';' || c == '\\' {
			return false
		}
	}
	return true
}

// setQueryParam sets the query parameter key to value (both escaped),
// replacing any value it had: a request sent again may carry an earlier
// attempt's.
func setQueryParam(u *url.URL, key, value string) {
	q := u.RawQuery
	if q == "" {
		u.RawQuery = key + "=" + value
		return
	}
	if !hasQueryParam(q, key) {
		u.RawQuery = q + "&" + key + "=" + value
		return
	}
	var b strings.Builder
	for part := range strings.SplitSeq(q, "&") {
		if k, _, _ := strings.Cut(part, "="); k != key && part != "" {
			b.WriteString(part)
			b.WriteByte('&')
		}
	}
	b.WriteString(key + "=" + value)
	u.RawQuery = b.String()
}

// hasQueryParam reports whether the raw query q has the parameter key.
func hasQueryParam(q, key string) bool {
	for len(q) > 0 {
		var part string
		part, q, _ = strings.Cut(q, "&")
		if k, _, _ := strings.Cut(part, "="); k == key {
			return true
		}
	}
	return false
}

// setCookie sets the cookie name to value in the Cookie header, replacing
// any value it had and keeping the request's other cookies.
func setCookie(h http.Header, name, value string) {
	pair := name + "=" + value
	old := h["Cookie"]
	if len(old) == 0 {
		h["Cookie"] = []string{pair}
		return
	}
	var b strings.Builder
	for _, line := range old {
		for part := range strings.SplitSeq(line, ";") {
			part = strings.TrimSpace(part)
			if k, _, _ := strings.Cut(part, "="); k != name && part != "" {
				b.WriteString(part)
				b.WriteString("; ")
			}
		}
	}
	b.WriteString(pair)
	h["Cookie"] = []string{b.String()}
}
