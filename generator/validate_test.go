package generator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// annotated builds a spec with the given x-resilience at the root, on GET
// /x and on POST /x. Each fragment is YAML indented for its place; the
// root starts on line 4.
func annotated(root, get, post string) string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\nx-resilience:\n")
	if root == "" {
		root = "  {}"
	}
	b.WriteString(root + "\npaths:\n  /x:\n    get:\n")
	if get != "" {
		b.WriteString("      x-resilience:\n" + get + "\n")
	}
	b.WriteString("      responses: {\"200\": {description: ok}}\n    post:\n")
	if post != "" {
		b.WriteString("      x-resilience:\n" + post + "\n")
	}
	b.WriteString("      responses: {\"200\": {description: ok}}\n")
	return b.String()
}

func generateText(t *testing.T, spec string, strict bool) (*Result, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Dir(path))
	return Generate(context.Background(), Config{Spec: "spec.yaml", Package: "x", Strict: strict})
}

// TestBadAnnotations: each bad annotation gives exactly this first error
// line (file:line:col: message), the JSON pointer, and nothing is
// generated.
func TestBadAnnotations(t *testing.T) {
	cases := []struct {
		name, root, get, post string
		want, pointer         string
	}{
		{"unknown root key", "  defautls: {}", "", "",
			`spec.yaml:4:3: error: unknown key "defautls" in root x-resilience; did you mean "defaults"?`, "#/x-resilience/defautls"},
		{"root not an object", "  - a", "", "",
			`spec.yaml:3:1: error: the root x-resilience must be an object, got a list`, "#/x-resilience"},
		{"bad idempotencyKeyHeader", "  idempotencyKeyHeader: \"a b\"", "", "",
			`spec.yaml:4:3: error: idempotencyKeyHeader must be an HTTP header name, got "a b"`, "#/x-resilience/idempotencyKeyHeader"},
		{"unknown key in defaults", "  defaults: {breker: none}", "", "",
			`spec.yaml:4:14: error: unknown key "breker" in operation policy; did you mean "breaker"?`, "#/x-resilience/defaults/breker"},
		{"breakers not an object", "  breakers: [a]", "", "",
			`spec.yaml:4:3: error: breakers must be an object, got a list`, "#/x-resilience/breakers"},
		{"breaker policy not an object", "  breakers: {a: 5}", "", "",
			`spec.yaml:4:14: error: breaker policy must be an object, got 5`, "#/x-resilience/breakers/a"},
		{"unknown breaker key", "  breakers:\n    a: {failureRate: 50}", "", "",
			`spec.yaml:5:9: error: unknown key "failureRate" in breaker policy; did you mean "failureRateThreshold"?`, "#/x-resilience/breakers/a/failureRate"},
		{"unknown retry key", "  retries:\n    r: {maxAtempts: 3}", "", "",
			`spec.yaml:5:9: error: unknown key "maxAtempts" in retry policy; did you mean "maxAttempts"?`, "#/x-resilience/retries/r/maxAtempts"},
		{"percent above 100", "  breakers:\n    a: {failureRateThreshold: 101}", "", "",
			`spec.yaml:5:9: error: failureRateThreshold must be a percentage in (0, 100], got 101`, "#/x-resilience/breakers/a/failureRateThreshold"},
		{"percent zero", "  breakers:\n    a: {slowCallRateThreshold: 0}", "", "",
			`spec.yaml:5:9: error: slowCallRateThreshold must be a percentage in (0, 100], got 0`, "#/x-resilience/breakers/a/slowCallRateThreshold"},
		{"percent as string", "  breakers:\n    a: {failureRateThreshold: \"50%\"}", "", "",
			`spec.yaml:5:9: error: failureRateThreshold must be a percentage in (0, 100], got "50%"`, "#/x-resilience/breakers/a/failureRateThreshold"},
		{"maxAttempts zero", "  retries:\n    r: {maxAttempts: 0}", "", "",
			`spec.yaml:5:9: error: maxAttempts must be a whole number from 1 to 10, got 0`, "#/x-resilience/retries/r/maxAttempts"},
		{"maxAttempts fraction", "  retries:\n    r: {maxAttempts: 2.5}", "", "",
			`spec.yaml:5:9: error: maxAttempts must be a whole number from 1 to 10, got 2.5`, "#/x-resilience/retries/r/maxAttempts"},
		{"maxAttempts over 10", "  retries:\n    r: {maxAttempts: 2147483647}", "", "",
			`spec.yaml:5:9: error: maxAttempts must be a whole number from 1 to 10, got 2147483647`, "#/x-resilience/retries/r/maxAttempts"},
		{"retryOn a success", "  retries:\n    r: {retryOn: [transport, 2xx]}", "", "",
			`spec.yaml:5:30: error: retryOn must not name a success or informational status, got "2xx"`, "#/x-resilience/retries/r/retryOn/1"},
		{"windowSize zero", "  breakers:\n    a: {windowSize: 0}", "", "",
			`spec.yaml:5:9: error: windowSize must be a whole number from 1 to 10000, got 0`, "#/x-resilience/breakers/a/windowSize"},
		{"windowSize beyond what a client holds", "  breakers:\n    a: {windowSize: 10001}", "", "",
			`spec.yaml:5:9: error: windowSize must be a whole number from 1 to 10000, got 10001`, "#/x-resilience/breakers/a/windowSize"},
		{"windowDuration of years", "  breakers:\n    a: {windowType: time, windowDuration: 2000000h}", "", "",
			`spec.yaml:5:27: error: windowDuration must be at most 1h, got 2000000h`, "#/x-resilience/breakers/a/windowDuration"},
		{"windowDuration just over 1h", "  breakers:\n    a: {windowType: time, windowDuration: 1h0m1s}", "", "",
			`spec.yaml:5:27: error: windowDuration must be at most 1h, got 1h0m1s`, "#/x-resilience/breakers/a/windowDuration"},
		{"waitInOpen over a day", "  breakers:\n    a: {waitInOpen: 25h}", "", "",
			`spec.yaml:5:9: error: waitInOpen must be at most 24h, got 25h`, "#/x-resilience/breakers/a/waitInOpen"},
		{"timeout near the Duration limit", "", "        totalTimeout: 2562047h", "",
			`spec.yaml:9:9: error: totalTimeout must be at most 24h, got 2562047h`, "#/paths/~1x/get/x-resilience/totalTimeout"},
		{"halfOpenCalls negative", "  breakers:\n    a: {halfOpenCalls: -1}", "", "",
			`spec.yaml:5:9: error: halfOpenCalls must be a whole number from 1 to 10000, got -1`, "#/x-resilience/breakers/a/halfOpenCalls"},
		{"halfOpenCalls beyond what a breaker admits", "  breakers:\n    a: {halfOpenCalls: 4294967297}", "", "",
			`spec.yaml:5:9: error: halfOpenCalls must be a whole number from 1 to 10000, got 4294967297`, "#/x-resilience/breakers/a/halfOpenCalls"},
		{"unparsable duration", "  breakers:\n    a: {waitInOpen: soon}", "", "",
			`spec.yaml:5:9: error: waitInOpen: cannot parse duration "soon"`, "#/x-resilience/breakers/a/waitInOpen"},
		{"duration without unit", "  retries:\n    r: {initialInterval: 100}", "", "",
			`spec.yaml:5:9: error: initialInterval must be a duration, got 100`, "#/x-resilience/retries/r/initialInterval"},
		{"negative duration", "  retries:\n    r: {maxInterval: -5s}", "", "",
			`spec.yaml:5:9: error: maxInterval must not be negative, got -5s`, "#/x-resilience/retries/r/maxInterval"},
		{"zero waitInOpen", "  breakers:\n    a: {waitInOpen: 0s}", "", "",
			`spec.yaml:5:9: error: waitInOpen must be longer than 0`, "#/x-resilience/breakers/a/waitInOpen"},
		{"multiplier below 1", "  retries:\n    r: {multiplier: 0.5}", "", "",
			`spec.yaml:5:9: error: multiplier must be a number ≥ 1, got 0.5`, "#/x-resilience/retries/r/multiplier"},
		{"unknown windowType", "  breakers:\n    a: {windowType: sliding}", "", "",
			`spec.yaml:5:9: error: windowType must be one of count, time, got "sliding"`, "#/x-resilience/breakers/a/windowType"},
		{"misspelt jitter", "  retries:\n    r: {jitter: ful}", "", "",
			`spec.yaml:5:9: error: jitter must be one of none, full, equal, decorrelated, got "ful"; did you mean "full"?`, "#/x-resilience/retries/r/jitter"},
		{"unknown backoff", "  retries:\n    r: {backoff: linear}", "", "",
			`spec.yaml:5:9: error: backoff must be one of constant, exponential, got "linear"`, "#/x-resilience/retries/r/backoff"},
		{"unknown scope", "  breakers:\n    a: {scope: global}", "", "",
			`spec.yaml:5:9: error: scope must be one of shared, operation, got "global"`, "#/x-resilience/breakers/a/scope"},
		{"recordOn not a list", "  breakers:\n    a: {recordOn: 5xx}", "", "",
			`spec.yaml:5:9: error: recordOn must be a list of outcomes, got "5xx"`, "#/x-resilience/breakers/a/recordOn"},
		{"unknown outcome", "  retries:\n    r: {retryOn: [transport, 600]}", "", "",
			`spec.yaml:5:30: error: unknown outcome 600 in retryOn`, "#/x-resilience/retries/r/retryOn/1"},
		{"retryAfter not a bool", "  retries:\n    r: {retryAfter: yes please}", "", "",
			`spec.yaml:5:9: error: retryAfter must be true or false, got "yes please"`, "#/x-resilience/retries/r/retryAfter"},
		{"budget ratio above 1", "  retries:\n    r: {budget: {ratio: 2}}", "", "",
			`spec.yaml:5:18: error: budget ratio must be a number in (0, 1], got 2`, "#/x-resilience/retries/r/budget/ratio"},
		{"unknown budget key", "  retries:\n    r: {budget: {rate: 0.1}}", "", "",
			`spec.yaml:5:18: error: unknown key "rate" in budget; did you mean "ratio"?`, "#/x-resilience/retries/r/budget/rate"},
		{"windowSize with time window", "  breakers:\n    a: {windowType: time, windowSize: 10}", "", "",
			`spec.yaml:5:27: error: windowSize is for count windows, but windowType is time`, "#/x-resilience/breakers/a/windowSize"},
		{"windowDuration with count window", "  breakers:\n    a: {windowDuration: 30s}", "", "",
			`spec.yaml:5:9: error: windowDuration is for time windows, but windowType is count`, "#/x-resilience/breakers/a/windowDuration"},
		{"extends unknown", "  breakers:\n    a: {extends: b}", "", "",
			`spec.yaml:5:9: error: unknown breaker policy "b"`, "#/x-resilience/breakers/a/extends"},
		{"extends not a name", "  retries:\n    r: {extends: [a]}", "", "",
			`spec.yaml:5:9: error: extends must be a policy name, got a list`, "#/x-resilience/retries/r/extends"},
		{"extends cycle", "  retries:\n    a: {extends: b}\n    b: {extends: c}\n    c: {extends: a}", "", "",
			`spec.yaml:5:9: error: retry policy "a" extends itself: a → b → c → a`, "#/x-resilience/retries/a/extends"},
		{"unknown breaker on operation", "", "        breaker: nova", "",
			`spec.yaml:9:9: error: unknown breaker policy "nova"`, "#/paths/~1x/get/x-resilience/breaker"},
		{"unknown retry on operation", "", "        retry: get3", "",
			`spec.yaml:9:9: error: unknown retry policy "get3"`, "#/paths/~1x/get/x-resilience/retry"},
		{"breaker of wrong type", "", "        breaker: 5", "",
			`spec.yaml:9:9: error: breaker must be a policy name, none, or a policy object, got 5`, "#/paths/~1x/get/x-resilience/breaker"},
		{"operation timeout unparsable", "", "        timeout: 5 seconds", "",
			`spec.yaml:9:9: error: timeout: cannot parse duration "5 seconds"`, "#/paths/~1x/get/x-resilience/timeout"},
		{"idempotent not a bool", "", "        idempotent: sometimes", "",
			`spec.yaml:9:9: error: idempotent must be true or false, got "sometimes"`, "#/paths/~1x/get/x-resilience/idempotent"},
		{"idempotencyKey bad header", "", "", "        idempotencyKey: \"my key\"",
			`spec.yaml:11:9: error: idempotencyKey must be true, false or a header name, got "my key"`, "#/paths/~1x/post/x-resilience/idempotencyKey"},
		{"retry on POST without key", "", "", "        retry: default",
			`spec.yaml:11:9: error: retry on POST /x, which is not retry-safe: a POST without an idempotency key`, "#/paths/~1x/post/x-resilience/retry"},
		{"retry on GET marked idempotent: false", "", "        idempotent: false\n        retry: default", "",
			`spec.yaml:10:9: error: retry on GET /x, which is not retry-safe: it is marked idempotent: false`, "#/paths/~1x/get/x-resilience/retry"},
		{"resume on POST without key", "", "", "        resume: true",
			`spec.yaml:11:9: error: resume on POST /x, which is not retry-safe: a POST without an idempotency key; resuming sends the request again`, "#/paths/~1x/post/x-resilience/resume"},
		{"resume not a bool", "", "        resume: yes please", "",
			`spec.yaml:9:9: error: resume must be true or false, got "yes please"`, "#/paths/~1x/get/x-resilience/resume"},
		{"idleTimeout not a duration", "", "        idleTimeout: soon", "",
			`spec.yaml:9:9: error: idleTimeout: cannot parse duration "soon"`, "#/paths/~1x/get/x-resilience/idleTimeout"},
		{"inline retry with bad key", "", "        retry: {maxAttempts: 3, jiter: full}", "",
			`spec.yaml:9:33: error: unknown key "jiter" in retry policy; did you mean "jitter"?`, "#/paths/~1x/get/x-resilience/retry/jiter"},
		{"operation x-resilience not an object", "", "        - breaker", "",
			`spec.yaml:8:7: error: x-resilience must be an object, got a list`, "#/paths/~1x/get/x-resilience"},
	}
	if len(cases) < 30 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := generateText(t, annotated(c.root, c.get, c.post), false)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("want an input error, got %v (result %v)", err, res != nil)
			}
			var first *Diagnostic
			for i := range ie.Diags {
				if ie.Diags[i].Severity == Error {
					first = &ie.Diags[i]
					break
				}
			}
			if got := strings.SplitN(first.String(), "\n", 2)[0]; got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
			if first.Pointer != c.pointer {
				t.Errorf("pointer %s, want %s", first.Pointer, c.pointer)
			}
			if first.Hint == "" && !strings.Contains(first.Msg, "did you mean") && !strings.Contains(first.Msg, "must be") {
				t.Errorf("no fix given for %q", first.Msg)
			}
		})
	}
}

// TestAllErrorsReported: one run reports every mistake, sorted by position.
func TestAllErrorsReported(t *testing.T) {
	_, err := generateText(t, annotated("  breakers:\n    a: {windowSize: 0, failureRateThreshold: 0}\n  retries:\n    r: {maxAttempts: 0}", "        breaker: nope", "        retry: r"), false)
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatal(err)
	}
	var got []string
	for _, d := range ie.Diags {
		if d.Severity == Error {
			got = append(got, strings.SplitN(d.String(), ": error:", 2)[0])
		}
	}
	want := "spec.yaml:5:9 spec.yaml:5:24 spec.yaml:7:9 spec.yaml:12:9 spec.yaml:16:9"
	if strings.Join(got, " ") != want {
		t.Fatalf("errors at %v, want %s", got, want)
	}
}
