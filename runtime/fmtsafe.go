package runtime

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/resgen/resgen/runtime/wire"
)

// Every type of the runtime that can hold a credential (StaticToken,
// CallOption for WithHeader's value; impl's Config and Engine and wire's
// Credential and Request print through the functions here and in wire)
// and the generated *Client print through fmt without it, whatever the
// verb (%v %+v %#v %s %q %x %d ...): each has String, GoString and Format,
// and Format, which fmt prefers, writes the redacted text for every verb.

// RedactURL returns the URL s with its password and the values of its
// credential query parameters hidden (see redact.go), as the runtime
// shows URLs in errors, log lines and events.
func RedactURL(s string) string { return redactor{}.redactString(s) }

// DescribeClient is the String of a generated client whose engine is e:
// its server, redacted.
func (e *engine) DescribeClient() string {
	return "Client{Server: " + strconv.Quote(e.redact.redactString(e.server)) + "}"
}

// Format writes t redacted for every verb.
func (t StaticToken) Format(f fmt.State, verb rune) { wire.FormatRedacted(f, verb, t.String()) }

// GoString is String, for %#v.
func (t StaticToken) GoString() string { return t.String() }

// optNames are the options' constructors, for String.
var optNames = [...]string{optNoRetry: "WithNoRetry", optMaxAttempts: "WithMaxAttempts", optAttemptTimeout: "WithAttemptTimeout",
	optTotalTimeout: "WithTotalTimeout", optHeader: "WithHeader", optEditor: "WithRequestEditor",
	optAttemptHeader: "WithAttemptHeader", optMaxBody: "WithMaxBody", optMaxErrorBody: "WithMaxErrorBody",
	optIdleTimeout: "WithIdleTimeout", optReadTimeouts: "WithReadTimeouts", optMaxEventSize: "WithMaxEventSize"}

// String names the option and its setting, never a header's value.
func (o CallOption) String() string {
	name := "?"
	if int(o.kind) < len(optNames) && optNames[o.kind] != "" {
		name = optNames[o.kind]
	}
	s := "runtime." + name + "("
	switch o.kind {
	case optMaxAttempts, optMaxBody, optMaxErrorBody, optMaxEventSize:
		s += strconv.Itoa(o.n)
	case optAttemptTimeout, optTotalTimeout, optIdleTimeout:
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
func (o CallOption) Format(f fmt.State, verb rune) { wire.FormatRedacted(f, verb, o.String()) }

// describeConfig describes the configuration without its secrets: the
// server URL redacted, the credentials by scheme, the call options without
// header values, and how many request editors there are.
func describeConfig(cfg config) string {
	var b strings.Builder
	b.WriteString("impl.Config{Server: " + strconv.Quote(newRedactor(append(secretQueryParams(cfg.Credentials), cfg.SecretQueryParams...)).redactString(cfg.Server)))
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

// String describes the engine without its secrets: its server, redacted.
func (e *engine) String() string {
	return "impl.Engine{Server: " + strconv.Quote(e.redact.redactString(e.server)) + "}"
}
