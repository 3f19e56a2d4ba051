package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Security schemes resgen cannot apply are reported at their position,
// each naming the way to send its credentials instead; an option renamed
// to avoid a clash is reported too.
func TestUnsupportedSecuritySchemesAreReported(t *testing.T) {
	t.Chdir("../..")
	out := filepath.Join(t.TempDir(), "client.gen.go")
	code, _, stderr := runCLI(t, "generate", "-spec", "testdata/specs/security.yaml", "-package", "security", "-o", out)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		`testdata/specs/security.yaml:125:5: warning: unsupported: security scheme "mtls": mutualTLS; no client option is generated for it; give WithHTTPClient an http.Client whose TLS config holds the client certificate`,
		`testdata/specs/security.yaml:126:5: warning: unsupported: security scheme "digest": http scheme "digest" (resgen applies bearer and basic); no client option is generated for it; add its credentials with WithRequestEditor`,
		`testdata/specs/security.yaml:127:5: warning: unsupported: security scheme "inBody": apiKey in "body" (resgen sends keys in a header, the query or a cookie); no client option is generated for it; add its credentials with WithRequestEditor`,
		`testdata/specs/security.yaml:128:5: warning: unsupported: security scheme "spaced": apiKey header name "X Key" is not a valid header name;`,
		`testdata/specs/security.yaml:130:5: warning: security scheme "httpClient": its client option is WithHTTPClient2, as WithHTTPClient is taken`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks\n%s\ngot:\n%s", want, stderr)
		}
	}
	if n := strings.Count(stderr, "warning: unsupported: security scheme"); n != 4 {
		t.Errorf("%d unsupported scheme warnings, want 4:\n%s", n, stderr)
	}
}
