package generator

import (
	"errors"
	"strings"
	"testing"
)

// TestLintWarnings: each lint gives exactly this warning (and no other),
// the client is still generated, and -strict makes it an error.
func TestLintWarnings(t *testing.T) {
	cases := []struct {
		name, root, get, post string
		want                  string
	}{
		{"minimumCalls above windowSize", "  defaults: {breaker: a}\n  breakers:\n    a: {windowSize: 10, minimumCalls: 50}", "", "",
			`spec.yaml:6:25: warning: minimumCalls 50 is more than windowSize 10: the breaker decides after 10 calls, as if minimumCalls were 10`},
		{"slow calls time out first", "  defaults: {breaker: a, timeout: 2s}\n  breakers:\n    a: {slowCallDuration: 5s, slowCallRateThreshold: 50}", "", "",
			`spec.yaml:6:9: warning: slowCallDuration 5s of breaker "a" is not shorter than the timeout 2s of operations GET /x, POST /x: a slow call times out first, so the slow-call rate can never count it`},
		{"retries outlast totalTimeout", "  defaults: {retry: r, timeout: 5s, totalTimeout: 10s}\n  retries:\n    r: {maxAttempts: 3}", "", "",
			`spec.yaml:6:9: warning: retry "r" can take 15.3s (3 attempts × 5s timeout + waits), longer than the totalTimeout 10s of operation GET /x: the last attempt can be cut short, or never start`},
		{"jitter none", "  defaults: {retry: r, totalTimeout: 0}\n  retries:\n    r: {maxAttempts: 4, jitter: none}", "", "",
			`spec.yaml:6:25: warning: jitter: none with 4 attempts: clients that failed together retry together, in synchronised waves`},
		{"unused breaker", "  breakers:\n    spare: {}", "", "",
			`spec.yaml:5:5: warning: breaker policy "spare" is defined but no operation uses it`},
		{"unused retry", "  retries:\n    spare: {}", "", "",
			`spec.yaml:5:5: warning: retry policy "spare" is defined but no operation uses it`},
		{"retries without a wait", "  defaults: {retry: r}\n  retries:\n    r: {initialInterval: 0}", "", "",
			`spec.yaml:6:9: warning: initialInterval 0 with 3 attempts: every retry goes out at once, with no wait for the server to recover`},
		{"retries without a timeout", "  defaults: {retry: r, timeout: 0, totalTimeout: 0}\n  retries:\n    r: {maxAttempts: 2}", "", "",
			`spec.yaml:6:9: warning: retry "r" makes up to 2 attempts with neither a timeout nor a totalTimeout on operation GET /x: an attempt that hangs holds the call forever, and nothing bounds how long the retries take`},
		{"4xx in retryOn", "  defaults: {retry: r, totalTimeout: 0}\n  retries:\n    r: {retryOn: [transport, 404, 429]}", "", "",
			`spec.yaml:6:30: warning: retryOn includes 404: a client error is not fixed by sending the same request again`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := annotated(c.root, c.get, c.post)
			res, err := generateText(t, spec, false)
			if err != nil {
				t.Fatal(err)
			}
			var warns []string
			for _, d := range res.Diags {
				if d.Severity == Warning && !strings.Contains(d.Msg, "spec does not validate") {
					warns = append(warns, strings.SplitN(d.String(), "\n", 2)[0])
				}
			}
			if len(warns) != 1 || warns[0] != c.want {
				t.Fatalf("warnings:\n%s\nwant exactly:\n%s", strings.Join(warns, "\n"), c.want)
			}
			_, err = generateText(t, spec, true)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("-strict: want an input error, got %v", err)
			}
			strictWant := strings.Replace(c.want, ": warning: ", ": error: ", 1)
			found := false
			for _, d := range ie.Diags {
				if strings.SplitN(d.String(), "\n", 2)[0] == strictWant {
					found = true
				}
			}
			if !found {
				t.Fatalf("-strict did not turn the warning into an error: %v", ie.Diags)
			}
		})
	}
}

// TestNoLintOnDefaults: a spec without x-resilience gets no warning: the
// contract's defaults are what users get without asking.
func TestNoLintOnDefaults(t *testing.T) {
	res, err := generateText(t, annotated("", "", ""), true)
	if err != nil {
		t.Fatalf("-strict on an unannotated spec: %v", err)
	}
	if len(res.Diags) != 0 {
		t.Fatalf("warnings on defaults: %v", res.Diags)
	}
}
