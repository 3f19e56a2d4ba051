package runtime

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Every type of the runtime that can hold a credential (StaticToken,
// Credential, CallOption for WithHeader's value, Config, Engine, Request)
// and the generated *Client print through fmt without it, whatever the
// verb (%v %+v %#v %s %q %x %d ...): each has String, GoString and Format,
// and Format, which fmt prefers, writes the redacted text for every verb.

// FormatRedacted writes s, the redacted text of a value, to f for any
// verb: quoted for %q, as is otherwise. A generated client's Format calls
// it.
func FormatRedacted(f fmt.State, verb rune, s string) {
	if verb == 'q' {
		s = strconv.Quote(s)
	}
	io.WriteString(f, s)
}

// RedactURL returns the URL s with its password and the values of its
// credential query parameters hidden (see redact.go), for a generated
// client's String.
func RedactURL(s string) string { return redactor{}.redactString(s) }

// DescribeClient is the String of a generated client whose engine is e:
// its server, redacted.
func DescribeClient(e *Engine) string {
	server := ""
	if e != nil {
		server = e.redact.redactString(e.server)
	}
	return "Client{Server: " + strconv.Quote(server) + "}"
}

// Format writes t redacted for every verb.
func (t StaticToken) Format(f fmt.State, verb rune) { FormatRedacted(f, verb, t.String()) }

// GoString is String, for %#v.
func (t StaticToken) GoString() string { return t.String() }

// Format writes c redacted for every verb.
func (c Credential) Format(f fmt.State, verb rune) { FormatRedacted(f, verb, c.String()) }

// optNames are the options' constructors, for String.
var optNames = [...]string{optNoRetry: "WithNoRetry", optMaxAttempts: "WithMaxAttempts", optAttemptTimeout: "WithAttemptTimeout",
	optTotalTimeout: "WithTotalTimeout", optHeader: "WithHeader", optEditor: "WithRequestEditor",
	optAttemptHeader: "WithAttemptHeader", optMaxBody: "WithMaxBody", optMaxErrorBody: "WithMaxErrorBody"}

// String names the option and its setting, never a header's value.
func (o CallOption) String() string {
	name := "?"
	if int(o.kind) < len(optNames) && optNames[o.kind] != "" {
		name = optNames[o.kind]
	}
	s := "runtime." + name + "("
	switch o.kind {
	case optMaxAttempts, optMaxBody, optMaxErrorBody:
		s += strconv.Itoa(o.n)
	case optAttemptTimeout, optTotalTimeout:
		s += o.d.String()
	case optHeader:
		s += strconv.Quote(o.name) + ", <redacted>"
	case optAttemptHeader:
		s += strconv.Quote(o.name)
	}
	return s + ")"
}

// GoString is String, for %#v.
func (o CallOption) GoString() string { return o.String() }

// Format writes o redacted for every verb.
func (o CallOption) Format(f fmt.State, verb rune) { FormatRedacted(f, verb, o.String()) }

// String describes the configuration without its secrets: the server URL
// redacted, the credentials by scheme, the call options without header
// values, and how many request editors there are.
func (cfg Config) String() string {
	var b strings.Builder
	b.WriteString("runtime.Config{Server: " + strconv.Quote(newRedactor(append(secretQueryParams(cfg.Credentials), cfg.SecretQueryParams...)).redactString(cfg.Server)))
	if len(cfg.Credentials) > 0 {
		b.WriteString(", Credentials: [")
		for i, c := range cfg.Credentials {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(c.Scheme))
		}
		b.WriteString("] <redacted>")
	}
	if len(cfg.CallOptions) > 0 {
		b.WriteString(", CallOptions: [")
		for i, o := range cfg.CallOptions {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(o.String())
		}
		b.WriteString("]")
	}
	if n := len(cfg.RequestEditors); n > 0 {
		b.WriteString(", RequestEditors: " + strconv.Itoa(n))
	}
	b.WriteString("}")
	return b.String()
}

// GoString is String, for %#v.
func (cfg Config) GoString() string { return cfg.String() }

// Format writes cfg redacted for every verb.
func (cfg Config) Format(f fmt.State, verb rune) { FormatRedacted(f, verb, cfg.String()) }

// String describes the engine without its secrets: its server, redacted.
func (e *Engine) String() string {
	if e == nil {
		return "(*runtime.Engine)(nil)"
	}
	return "runtime.Engine{Server: " + strconv.Quote(e.redact.redactString(e.server)) + "}"
}

// GoString is String, for %#v.
func (e *Engine) GoString() string { return e.String() }

// Format writes e redacted for every verb.
func (e *Engine) Format(f fmt.State, verb rune) { FormatRedacted(f, verb, e.String()) }

// String describes the request without its header, query or body, which
// may hold credentials: only its path.
func (r Request) String() string {
	return "runtime.Request{Path: " + strconv.Quote(r.Path) + ", <header, query and body redacted>}"
}

// GoString is String, for %#v.
func (r Request) GoString() string { return r.String() }

// Format writes r redacted for every verb.
func (r Request) Format(f fmt.State, verb rune) { FormatRedacted(f, verb, r.String()) }
