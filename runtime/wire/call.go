package wire

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// Request is what a generated method fills for one call; the runtime
// builds every attempt's *http.Request from it (a fresh one each attempt,
// so request editors never see their own earlier changes).
type Request struct {
	// Path is the escaped path after the server URL ("/pets/a%2Fb"); it
	// may hold a query of the spec's own ("/x?kind=a").
	Path string
	// Query is the query string built from the parameters.
	Query Query
	// Header holds the header and cookie parameters; nil when none.
	Header http.Header
	// Body is sent whole by every attempt; nil is no body.
	Body []byte
	// Upload, when not nil, is the body instead of Body: streamed by each
	// attempt, never held whole. A retry (or net/http's own resend)
	// sends it again only when it can be replayed: a *bytes.Reader,
	// *strings.Reader or other io.ReadSeeker (from its position at the
	// call's start), a *bytes.Buffer (its bytes at the call's start), an
	// *Opener, or a *MultipartBody whose files all can; any other
	// reader makes one attempt (see package runtime's upload.go).
	Upload io.Reader
	// JSON, when not nil (nor a nil pointer, slice or map), is encoded
	// into Body (encoding/json) by the call.
	JSON any
	// ContentType is the Content-Type of Body or Upload, sent when one
	// is set.
	ContentType string
}

// SetHeader sets a header of the request.
func (r *Request) SetHeader(name, value string) {
	if r.Header == nil {
		r.Header = make(http.Header)
	}
	r.Header.Set(name, value)
}

// AddHeader adds a header value to the request.
func (r *Request) AddHeader(name, value string) {
	if r.Header == nil {
		r.Header = make(http.Header)
	}
	r.Header.Add(name, value)
}

// AddCookie adds a cookie to the request's Cookie header, exactly as
// http.Request.AddCookie does (value is already escaped).
func (r *Request) AddCookie(name, value string) {
	if r.Header == nil {
		r.Header = make(http.Header)
	}
	(&http.Request{Header: r.Header}).AddCookie(&http.Cookie{Name: name, Value: value})
}

// String describes the request without its header, query or body, which
// may hold credentials: only its path.
func (r Request) String() string {
	return "wire.Request{Path: " + strconv.Quote(r.Path) + ", <header, query and body redacted>}"
}

// GoString is String, for %#v.
func (r Request) GoString() string { return r.String() }

// Format writes r redacted for every verb.
func (r Request) Format(f fmt.State, verb rune) { FormatRedacted(f, verb, r.String()) }

// Response is what every generated response type embeds: the status, the
// headers, the raw body and the attempts of the call. The generated type's
// fields hold the declared headers and bodies; each one's resgen tag says
// which status fills it (`resgen:"200"`, `resgen:"4XX"`,
// `resgen:"default"`, `resgen:"header:X-Next"`), and the tag on the
// embedded Response lists the declared statuses without a body.
type Response struct {
	StatusCode int
	Header     http.Header
	// Body is the raw response body: at most 64 KiB of an undeclared
	// status of 400 or more, at most the cap of a body over its cap
	// (runtime.WithMaxErrorBody, runtime.WithMaxBody), nil for a stream.
	Body []byte
	// Attempts is how many attempts the call took.
	Attempts int
}

func (r *Response) response() *Response { return r }

// Typed is a pointer to a generated response type (which embeds
// Response).
type Typed interface{ response() *Response }

// ResponseOf is the Response that t embeds.
func ResponseOf(t Typed) *Response { return t.response() }

// AuthKind says how a Credential is sent.
type AuthKind uint8

const (
	AuthBearer AuthKind = iota + 1 // Authorization: Bearer <token>
	AuthBasic                      // Authorization: Basic base64(username:password)
	AuthHeader                     // the key as the value of the header Param
	AuthQuery                      // the key in the query parameter Param
	AuthCookie                     // the key as the cookie Param
)

// Credential is what a client sends for one security scheme of its spec.
type Credential struct {
	// Scheme is the scheme's name in the spec, as an operation's Security
	// names it.
	Scheme string
	Kind   AuthKind
	// Param is the header, query parameter or cookie name of an apiKey.
	Param string
	// Token gives the bearer token or the key (AuthBasic takes none): a
	// runtime.TokenSource.
	Token interface {
		Token(ctx context.Context) (string, error)
	}
	// Username and Password are AuthBasic's.
	Username, Password string
}

// String names the scheme and never the secret, so a Credential printed
// by mistake leaks nothing.
func (c Credential) String() string {
	return "wire.Credential{Scheme: " + strconv.Quote(c.Scheme) + ", <redacted>}"
}

// GoString is String, for %#v.
func (c Credential) GoString() string { return c.String() }

// Format writes c redacted for every verb.
func (c Credential) Format(f fmt.State, verb rune) { FormatRedacted(f, verb, c.String()) }

// SecurityRequirement is one alternative of an operation's security: the
// names of the schemes that apply together (an empty one means the
// operation may be called without credentials).
type SecurityRequirement []string

// FormatRedacted writes s, the redacted text of a value, to f for any
// verb: quoted for %q, as is otherwise. A generated client's Format calls
// it.
func FormatRedacted(f fmt.State, verb rune, s string) {
	if verb == 'q' {
		s = strconv.Quote(s)
	}
	io.WriteString(f, s)
}

// PolicyError is one x-resilience value that breaks a rule of the
// contract, as the generator's spec validation reports it.
type PolicyError struct {
	// Key is the policy key as written ("windowSize"); Elem, when set, is
	// the element below it ("ratio" of budget, "2" of a retryOn list).
	Key, Elem string
	// Msg says what is wrong, with the value as written; Hint, when set,
	// how to fix it.
	Msg, Hint string
	// Relation says the value is fine alone but not with the policy's
	// others (windowSize with a time window).
	Relation bool
}

func (e *PolicyError) Error() string { return e.Msg }

// PolicyErrors returns the *PolicyError values in err (one, or several
// joined by errors.Join), in order.
func PolicyErrors(err error) []*PolicyError {
	switch e := err.(type) {
	case *PolicyError:
		return []*PolicyError{e}
	case interface{ Unwrap() []error }:
		var out []*PolicyError
		for _, e := range e.Unwrap() {
			out = append(out, PolicyErrors(e)...)
		}
		return out
	}
	return nil
}
