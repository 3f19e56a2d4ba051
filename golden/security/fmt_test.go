package security

import (
	"fmt"
	"strings"
	"testing"

	"github.com/resgen/resgen/runtime"
)

// TestClientPrintsNoSecret: the generated *Client,
// holding a server URL with a password and a key in its query, Basic,
// bearer and query-key credentials and a WithHeader call option, prints
// none of them with any fmt verb, alone, behind an interface, in a slice
// or in a struct field; nor do the credentials and options themselves.
func TestClientPrintsNoSecret(t *testing.T) {
	secrets := []string{"pw-S3CRET", "url-S3CRET", "basic-S3CRET", "tok-S3CRET", "key-S3CRET", "hdr-S3CRET"}
	tok, key := runtime.StaticToken("tok-S3CRET"), runtime.StaticToken("key-S3CRET")
	hdr := runtime.WithHeader("Authorization", "Bearer hdr-S3CRET")
	c, err := NewClient("http://ann:pw-S3CRET@api.example/v1?api_key=url-S3CRET",
		WithBasic("ann", "basic-S3CRET"), WithBearerAuth(tok), WithQueryKey(key), WithCallOptions(hdr))
	if err != nil {
		t.Fatal(err)
	}
	values := []any{c, tok, hdr}
	for _, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
			for _, arg := range []any{v, []any{v}, struct{ V any }{v}} {
				out := fmt.Sprintf(verb, arg)
				for _, s := range secrets {
					if strings.Contains(out, s) || strings.Contains(out, fmt.Sprintf("%x", s)) || strings.Contains(out, fmt.Sprintf("%X", s)) {
						t.Errorf("%s of %T printed the secret %s: %s", verb, arg, s, out)
					}
				}
			}
		}
	}
	if got, want := fmt.Sprint(c), `Client{Server: "http://ann:xxxxx@api.example/v1?api_key=REDACTED"}`; got != want {
		t.Errorf("the client printed %s, want %s", got, want)
	}
}
