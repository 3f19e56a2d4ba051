package impl_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/resgen/resgen/runtime"
	"github.com/resgen/resgen/runtime/impl"
	"github.com/resgen/resgen/runtime/wire"
)

// fmtVerbs are the verbs TestNoVerbPrintsASecret prints each value with.
var fmtVerbs = []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T %[1]v"}

// secretsPrinted returns each way v printed with a verb that shows a
// part of secret.
func secretsPrinted(v any, secrets ...string) []string {
	var bad []string
	for _, verb := range fmtVerbs {
		for _, arg := range []any{v, &v, []any{v}, struct{ V any }{v}} {
			out := fmt.Sprintf(verb, arg)
			for _, s := range secrets {
				if strings.Contains(out, s) || strings.Contains(out, fmt.Sprintf("%x", s)) || strings.Contains(out, fmt.Sprintf("%X", s)) {
					bad = append(bad, verb+" of "+fmt.Sprintf("%T", arg)+": "+out)
				}
			}
		}
	}
	return bad
}

// TestNoVerbPrintsASecret: every type of the runtime, wire and impl that
// can hold a credential prints without it through fmt, with every verb,
// alone, behind a pointer, in a slice and in a struct field.
func TestNoVerbPrintsASecret(t *testing.T) {
	const tok, pw, hdr, key = "tok-S3CRET", "pw-S3CRET", "hdr-S3CRET", "key-S3CRET"
	creds := []wire.Credential{
		{Scheme: "bearer", Kind: wire.AuthBearer, Token: runtime.StaticToken(tok)},
		{Scheme: "basic", Kind: wire.AuthBasic, Username: "ann", Password: pw},
		{Scheme: "key", Kind: wire.AuthQuery, Param: "appid", Token: runtime.StaticToken(key)},
	}
	opts := []runtime.CallOption{runtime.WithHeader("Authorization", "Bearer "+hdr), runtime.WithMaxAttempts(2), runtime.WithAttemptHeader("X-Try")}
	cfg := impl.Config{
		Server:         "http://ann:" + pw + "@h.example/v1?appid=" + key,
		Credentials:    creds,
		CallOptions:    opts,
		RequestEditors: []runtime.RequestEditor{func(context.Context, *http.Request) error { return nil }},
	}
	e := impl.NewEngine(cfg)
	rq := wire.Request{Path: "/x", Header: http.Header{"Authorization": {"Bearer " + hdr}}, Body: []byte(key)}
	rq.Query.Add("api_key", key)
	values := []any{runtime.StaticToken(tok), creds[0], creds[1], creds[2], opts[0], cfg, e, rq}
	for _, v := range values {
		for _, bad := range secretsPrinted(v, tok, pw, hdr, key) {
			t.Errorf("a secret printed: %s", bad)
		}
	}
	// They still say what they are.
	for _, c := range []struct {
		v    any
		want string
	}{
		{opts[0], `runtime.WithHeader("Authorization", <redacted>)`},
		{opts[1], "runtime.WithMaxAttempts(2)"},
		{e, `impl.Engine{Server: "http://ann:xxxxx@h.example/v1?appid=REDACTED"}`},
	} {
		if got := fmt.Sprintf("%v", c.v); got != c.want {
			t.Errorf("%%v printed %s, want %s", got, c.want)
		}
	}
	if got := fmt.Sprint(cfg); !strings.Contains(got, `"bearer"`) || !strings.Contains(got, "xxxxx@h.example") {
		t.Errorf("Config printed %s; want its schemes and its redacted server", got)
	}
}
