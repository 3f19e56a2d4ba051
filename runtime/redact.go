package runtime

import (
	"errors"
	"net/url"
	"slices"
	"strings"
)

// Redaction keeps credentials out of every error string, log line and
// observer event the runtime makes. A URL is printed with the password of
// its userinfo replaced by "xxxxx" (as url.URL.Redacted does) and the
// value of every credential query parameter replaced by "REDACTED"; the
// rest of the URL is kept as it was, so an error still says where the
// call went. A query parameter carries a credential when
//   - the spec declares it as an apiKey security scheme "in: query" (the
//     generated client passes those names to its engine;
//     compared without regard to case), or
//   - its name, lower-cased and without '-', '_' and '.', contains one of
//     key, token, secret, passw, pwd, signature, credential, auth,
//     session, jwt, or is sig, pass or pw (api_key, access_token,
//     X-Amz-Signature, client_secret, sessionid). The rule errs on the
//     side of hiding: "monkey" or "author" are hidden too.
//
// net/http's *url.Error carries the URL of the request as sent, after
// the request editors ran (an editor that adds ?api_key=...): the runtime
// rewrites that URL in place before the error is logged, observed or
// returned. Headers (Authorization, X-Api-Key, Cookie) never appear in an
// error or event: StatusError keeps only the response's headers, and
// prints none of them.

// redacted replaces a credential's value.
const redacted = "REDACTED"

// secretNameParts and secretNames are the name rule above.
var (
	secretNameParts = []string{"key", "token", "secret", "passw", "pwd", "signature", "credential", "auth", "session", "jwt"}
	secretNames     = []string{"sig", "pass", "pw"}
)

// secretParamName reports whether a query parameter named n carries a
// credential by the name rule.
func secretParamName(n string) bool {
	n = strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', '.':
			return -1
		}
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, n)
	for _, p := range secretNameParts {
		if strings.Contains(n, p) {
			return true
		}
	}
	for _, s := range secretNames {
		if n == s {
			return true
		}
	}
	return false
}

// redactor hides the credentials of URLs; the zero value applies the
// name rule only. It is read-only once built.
type redactor struct {
	declared []string // names the spec declares as credentials
}

func newRedactor(declared []string) redactor {
	return redactor{declared: slices.Clone(declared)}
}

func (r redactor) secret(name string) bool {
	if u, err := url.QueryUnescape(name); err == nil {
		name = u
	}
	for _, d := range r.declared {
		if strings.EqualFold(name, d) {
			return true
		}
	}
	return secretParamName(name)
}

// url returns u as text with its credentials hidden.
func (r redactor) url(u *url.URL) string {
	if u == nil {
		return ""
	}
	return r.redactString(u.String())
}

// redactString hides the password and the credential parameters of a URL
// given as text. It works on the text itself, so a URL that does not
// parse (or net/http's "user:***@" form) is hidden the same way.
func (r redactor) redactString(s string) string {
	if !strings.ContainsAny(s, "?@") {
		return s
	}
	rest, frag, hasFrag := strings.Cut(s, "#")
	head, query, hasQuery := strings.Cut(rest, "?")
	head = redactUserinfo(head)
	if hasQuery {
		query = r.query(query)
		head += "?" + query
	}
	if hasFrag {
		head += "#" + frag
	}
	return head
}

// redactUserinfo replaces the password in scheme://user:password@host/...
func redactUserinfo(s string) string {
	i := strings.Index(s, "://")
	if i < 0 {
		return s
	}
	auth := s[i+3:]
	if j := strings.IndexByte(auth, '/'); j >= 0 {
		auth = auth[:j]
	}
	at := strings.LastIndexByte(auth, '@')
	if at < 0 {
		return s
	}
	user, _, hasPass := strings.Cut(auth[:at], ":")
	if !hasPass {
		return s
	}
	return s[:i+3] + user + ":xxxxx" + s[i+3+at:]
}

// query replaces the values of credential parameters in a raw query.
func (r redactor) query(q string) string {
	var b strings.Builder
	changed := false
	for i, part := range strings.Split(q, "&") {
		if i > 0 {
			b.WriteByte('&')
		}
		if name, _, ok := strings.Cut(part, "="); ok && r.secret(name) {
			b.WriteString(name + "=" + redacted)
			changed = true
			continue
		}
		b.WriteString(part)
	}
	if !changed {
		return q
	}
	return b.String()
}

// redactError hides the credentials in the URL of a *url.Error inside
// err (net/http's error for a failed request), in place: the error was
// made for this request alone.
func (r redactor) redactError(err error) {
	var ue *url.Error
	if errors.As(err, &ue) {
		if s := r.redactString(ue.URL); s != ue.URL {
			ue.URL = s
		}
	}
}
