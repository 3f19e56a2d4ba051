package policy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/runtime"
)

// Tests of resolution against whole YAML documents, so that every
// diagnostic can be checked at its pointer, line and column in the text.

// resolveDoc resolves the operation `method` of /things in the YAML
// document text; the text is also the source of positions.
func resolveDoc(t *testing.T, text, method string, params ...*openapi3.Parameter) (Resolved, *Resolver) {
	t.Helper()
	v, err := decodeExtension([]byte(text))
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	m := v.(map[string]any)
	doc := &openapi3.T{Extensions: map[string]any{}}
	if x, ok := m[extName]; ok {
		doc.Extensions[extName] = x
	}
	item, _ := dig(m, "paths", "/things").(map[string]any)
	op, _ := item[strings.ToLower(method)].(map[string]any)
	r := newResolver(load.NewSpec(doc, "spec.yaml", []byte(text)))
	res := r.resolveOperation(load.Operation{ID: "op", Method: method, Path: "/things", Params: params,
		Item: &openapi3.PathItem{Extensions: map[string]any{extName: item[extName]}},
		Op:   &openapi3.Operation{Extensions: map[string]any{extName: op[extName]}}})
	return res, r
}

func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// wantDiags checks ds against want, one "line:col pointer: message" each,
// in the order reported.
func wantDiags(t *testing.T, ds diag.Diagnostics, want ...string) {
	t.Helper()
	var got []string
	for _, d := range ds {
		if d.File != "spec.yaml" {
			t.Errorf("%v: file %q, want spec.yaml", d, d.File)
		}
		got = append(got, fmt.Sprintf("%d:%d %s: %s", d.Line, d.Col, d.Pointer, d.Msg))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// opDoc is a document whose operation `method` of /things has the given
// layers of x-resilience: root, path item and operation ("" for none).
func opDoc(method, root, path, op string) string {
	text := "x-resilience: " + root + "\npaths:\n  /things:\n"
	if path != "" {
		text += "    x-resilience: " + path + "\n"
	}
	text += "    " + method + ":\n"
	if op != "" {
		text += "      x-resilience: " + op + "\n"
	}
	return text
}

// doc is opDoc's GET with named breakers and retries bd/bp/bo and rd/rp/ro
// (one per layer) and the given defaults.
func doc(defaults, path, op string) string {
	root := "\n  breakers: {bd: {halfOpenCalls: 1}, bp: {halfOpenCalls: 2}, bo: {halfOpenCalls: 3}}" +
		"\n  retries: {rd: {maxAttempts: 1}, rp: {maxAttempts: 2}, ro: {maxAttempts: 3}}"
	if defaults != "" {
		root += "\n  defaults: " + defaults
	}
	return opDoc("get", root, path, op)
}

// TestEachLayerOverridesTheOneBefore: breaker, retry, timeout, totalTimeout
// and idempotencyKey each come from the nearest layer that sets them; a
// layer that sets one key leaves the others to the layers below.
func TestEachLayerOverridesTheOneBefore(t *testing.T) {
	const all = `{breaker: bd, retry: rd, timeout: 1s, totalTimeout: 11s, idempotencyKey: X-D}`
	const allPath = `{breaker: bp, retry: rp, timeout: 2s, totalTimeout: 12s, idempotencyKey: X-P}`
	for _, tc := range []struct {
		name, defaults, path, op string
		breaker, retry           string
		timeout, total           time.Duration
		key                      string
	}{
		{"built in", "", "", "", "default", "default", 10 * time.Second, 30 * time.Second, ""},
		{"defaults", all, "", "", "bd", "rd", time.Second, 11 * time.Second, "X-D"},
		{"path item sets the breaker only", all, `{breaker: bp}`, "", "bp", "rd", time.Second, 11 * time.Second, "X-D"},
		{"path item sets the retry only", all, `{retry: rp}`, "", "bd", "rp", time.Second, 11 * time.Second, "X-D"},
		{"path item sets the timeout only", all, `{timeout: 2s}`, "", "bd", "rd", 2 * time.Second, 11 * time.Second, "X-D"},
		{"path item sets totalTimeout only", all, `{totalTimeout: 12s}`, "", "bd", "rd", time.Second, 12 * time.Second, "X-D"},
		{"path item sets the key only", all, `{idempotencyKey: X-P}`, "", "bd", "rd", time.Second, 11 * time.Second, "X-P"},
		{"path item sets all", all, allPath, "", "bp", "rp", 2 * time.Second, 12 * time.Second, "X-P"},
		{"operation over path item", all, allPath, `{breaker: bo, retry: ro, timeout: 3s, totalTimeout: 13s, idempotencyKey: X-O}`, "bo", "ro", 3 * time.Second, 13 * time.Second, "X-O"},
		{"operation sets the breaker only", all, allPath, `{breaker: bo}`, "bo", "rp", 2 * time.Second, 12 * time.Second, "X-P"},
		{"operation sets the retry only", all, allPath, `{retry: ro}`, "bp", "ro", 2 * time.Second, 12 * time.Second, "X-P"},
		{"operation sets totalTimeout only", all, allPath, `{totalTimeout: 13s}`, "bp", "rp", 2 * time.Second, 13 * time.Second, "X-P"},
		{"operation sets the key only, over defaults", all, "", `{idempotencyKey: X-O}`, "bd", "rd", time.Second, 11 * time.Second, "X-O"},
		{"operation skips the path item", all, `{timeout: 2s}`, `{breaker: bo}`, "bo", "rd", 2 * time.Second, 11 * time.Second, "X-D"},
		{"0 turns a timeout off", all, allPath, `{timeout: 0, totalTimeout: 0s}`, "bp", "rp", 0, 0, "X-P"},
		{"none over a name", all, `{breaker: none}`, `{retry: none}`, "", "", time.Second, 11 * time.Second, "X-D"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, r := resolveDoc(t, doc(tc.defaults, tc.path, tc.op), "GET")
			wantDiags(t, r.diags)
			p := res.Policy
			breaker, retry := "", ""
			if p.Breaker != nil {
				breaker = p.Breaker.Policy.Policy
				if p.Breaker.Instance != breaker {
					t.Errorf("instance %q of shared policy %q", p.Breaker.Instance, breaker)
				}
			}
			if p.Retry != nil {
				retry = p.Retry.Policy
			}
			if breaker != tc.breaker || retry != tc.retry {
				t.Errorf("breaker %q, retry %q; want %q, %q", breaker, retry, tc.breaker, tc.retry)
			}
			if p.Timeout != tc.timeout || p.TotalTimeout != tc.total {
				t.Errorf("timeouts %v / %v, want %v / %v", p.Timeout, p.TotalTimeout, tc.timeout, tc.total)
			}
			if p.IdempotencyHeader != tc.key || tc.key != "" && res.keyHeader != tc.key {
				t.Errorf("key header %q (%q), want %q", p.IdempotencyHeader, res.keyHeader, tc.key)
			}
		})
	}
	// The named policy's values come with its name: rp is 2 attempts.
	res, _ := resolveDoc(t, doc("", `{retry: rp, breaker: bp}`, ""), "GET")
	if res.Policy.Retry.MaxAttempts != 2 || res.Policy.Breaker.Policy.HalfOpenCalls != 2 {
		t.Errorf("rp/bp resolved to %+v / %+v", res.Policy.Retry, res.Policy.Breaker.Policy)
	}
}

// TestExtendsChains: extends inherits key by key through any depth, from
// the built-in policies or their redefinitions.
func TestExtendsChains(t *testing.T) {
	res, r := resolveDoc(t, `x-resilience:
  retries:
    a: {maxAttempts: 5}
    b: {extends: a, backoff: constant}
    c: {extends: b, initialInterval: 10ms}
  breakers:
    a: {windowSize: 20, minimumCalls: 20}
    b: {extends: a, minimumCalls: 5, scope: operation}
    c: {extends: b, waitInOpen: 3s}
    keystone: {extends: default, failureRateThreshold: 40}
paths:
  /things:
    get:
      x-resilience: {retry: c, breaker: c}
`, "GET")
	wantDiags(t, r.diags)
	builtin := builtinRetry()
	if rp := res.Policy.Retry; rp.Policy != "c" || rp.MaxAttempts != 5 || rp.Backoff != runtime.ConstantBackoff || rp.InitialInterval != 10*time.Millisecond ||
		rp.Jitter != builtin.Jitter || rp.MaxInterval != builtin.MaxInterval {
		t.Errorf("retry c = %+v: want maxAttempts from a, backoff from b, initialInterval its own, the rest built in", rp)
	}
	bi := res.Policy.Breaker
	if bp := bi.Policy; bp.Policy != "c" || bp.WindowSize != 20 || bp.MinimumCalls != 5 || bp.WaitInOpen != 3*time.Second ||
		bp.FailureRateThreshold != builtinBreaker().FailureRateThreshold || bp.Scope != "operation" {
		t.Errorf("breaker c = %+v: want windowSize from a, minimumCalls and scope from b, waitInOpen its own", bp)
	}
	if bi.Instance != "c/op" {
		t.Errorf("instance %q of an operation-scoped policy, want c/op", bi.Instance)
	}
	if k := r.breakers["keystone"]; k == nil || k.FailureRateThreshold != 40 || k.WindowSize != builtinBreaker().WindowSize {
		t.Errorf("keystone extends default: %+v", k)
	}

	// A redefined default is what extends: default inherits.
	_, r = resolveDoc(t, `x-resilience:
  retries:
    default: {maxAttempts: 7}
    mine: {extends: default, backoff: constant}
paths: {}
`, "GET")
	wantDiags(t, r.diags)
	if p := r.retries["mine"]; p == nil || p.MaxAttempts != 7 || p.Backoff != runtime.ConstantBackoff {
		t.Errorf("mine extends the redefined default: %+v", p)
	}
}

// TestExtendsMistakes: an unknown extends target and an extends cycle are
// errors at the extends key, naming the policies there are and the cycle.
func TestExtendsMistakes(t *testing.T) {
	_, r := resolveDoc(t, `x-resilience:
  retries:
    base: {maxAttempts: 2}
    fast: {extends: bsae}
  breakers:
    a: {extends: b}
    b: {extends: c}
    c: {extends: a}
    self:
      extends: self
    num: {extends: 3}
paths: {}
`, "GET")
	wantDiags(t, r.diags,
		`6:9 #/x-resilience/breakers/a/extends: breaker policy "a" extends itself: a → b → c → a`,
		`11:11 #/x-resilience/breakers/num/extends: extends must be a policy name, got 3`,
		`10:7 #/x-resilience/breakers/self/extends: breaker policy "self" extends itself: self → self`,
		`4:12 #/x-resilience/retries/fast/extends: unknown retry policy "bsae"`)
	if h := r.diags[3].Hint; h != "define it under x-resilience.retries, or use one of: default, base, fast" {
		t.Errorf("hint %q", h)
	}
	for _, d := range r.diags {
		if d.Severity != diag.Error {
			t.Errorf("%v is not an error", d)
		}
	}
	// An unknown breaker named by an operation, and one extended inline.
	_, r = resolveDoc(t, `x-resilience:
  breakers: {nova: {}}
paths:
  /things:
    get:
      x-resilience:
        breaker: {extends: nvoa}
        retry: slow
`, "GET")
	wantDiags(t, r.diags,
		`7:19 #/paths/~1things/get/x-resilience/breaker/extends: unknown breaker policy "nvoa"`,
		`8:9 #/paths/~1things/get/x-resilience/retry: unknown retry policy "slow"`)
	if h := r.diags[0].Hint; h != "define it under x-resilience.breakers, or use one of: default, nova" {
		t.Errorf("hint %q", h)
	}
}

// TestInlinePolicies: a policy object at any layer is a policy of its own,
// named after its owner, over the built-in policy or the one it extends,
// which counts as used.
func TestInlinePolicies(t *testing.T) {
	for _, tc := range []struct {
		layer, defaults, path, op string
		owner                     string
	}{
		{"defaults", `{breaker: {halfOpenCalls: 7}, retry: {maxAttempts: 4}}`, "", "", "defaults"},
		{"path item", "", `{breaker: {halfOpenCalls: 7}, retry: {maxAttempts: 4}}`, "", "/things"},
		{"operation", "", "", `{breaker: {halfOpenCalls: 7}, retry: {maxAttempts: 4}}`, "op"},
		{"operation, extending", "", "", `{breaker: {extends: bo, halfOpenCalls: 7}, retry: {extends: ro, maxAttempts: 4}}`, "op"},
	} {
		t.Run(tc.layer, func(t *testing.T) {
			res, r := resolveDoc(t, doc(tc.defaults, tc.path, tc.op), "GET")
			wantDiags(t, r.diags)
			bp, rp := res.Policy.Breaker.Policy, res.Policy.Retry
			if bp.Policy != tc.owner || bp.HalfOpenCalls != 7 || res.Policy.Breaker.Instance != tc.owner {
				t.Errorf("breaker %+v (instance %q), want %s's, halfOpenCalls 7", bp, res.Policy.Breaker.Instance, tc.owner)
			}
			if rp.Policy != tc.owner || rp.MaxAttempts != 4 {
				t.Errorf("retry %+v, want %s's, maxAttempts 4", rp, tc.owner)
			}
			extending := strings.Contains(tc.op, "extends")
			if bo := r.breakers["bo"]; extending && bp.MinimumCalls != bo.MinimumCalls {
				t.Errorf("inline breaker %+v does not inherit from bo %+v", bp, bo)
			}
			if got := r.Used["breakers/bo"] + r.Used["retries/ro"]; extending != (got == 2) || !extending && got != 0 {
				t.Errorf("used bo+ro %d times", got)
			}
		})
	}
	// An inline policy is checked where it is written.
	_, r := resolveDoc(t, `paths:
  /things:
    x-resilience:
      retry: {maxAttempts: 0, backof: constant}
    get: {}
`, "GET")
	for _, d := range r.diags {
		if !strings.HasPrefix(d.Pointer, "#/paths/~1things/x-resilience/retry/") || d.Line != 4 {
			t.Errorf("%v: want it in the inline retry, line 4", d)
		}
	}
	if len(r.diags) != 2 {
		t.Errorf("want 2 diagnostics (maxAttempts, backof): %v", r.diags)
	}
}

// TestRetrySafety: GET, HEAD, OPTIONS, TRACE, PUT and DELETE are retried;
// POST and PATCH only with an idempotency key from any layer, or when
// marked idempotent; defaults and path-item retries skip unsafe
// operations silently, an operation's own retry on one is an error.
func TestRetrySafety(t *testing.T) {
	for _, m := range []string{"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"} {
		res, r := resolveDoc(t, "paths: {}\n", m)
		wantDiags(t, r.diags)
		if res.Policy.NotRetrySafe || res.Policy.Retry == nil || res.Policy.RetryWhy != m {
			t.Errorf("%s: %+v, want retried by default", m, res.Policy)
		}
	}
	for _, m := range []string{"POST", "PATCH"} {
		res, r := resolveDoc(t, "paths: {}\n", m)
		wantDiags(t, r.diags)
		if !res.Policy.NotRetrySafe || res.Policy.Retry != nil || res.Policy.RetryWhy != m+" without key: off" {
			t.Errorf("%s: %+v, want not retried", m, res.Policy)
		}
	}
	for _, tc := range []struct {
		name, root, path, op string
		safe                 bool
		why                  string
	}{
		{"defaults retry skips a POST", `{retries: {r: {}}, defaults: {retry: r}}`, "", "", false, "POST without key: off"},
		{"path-item retry skips a POST", `{retries: {r: {}}}`, `{retry: r}`, "", false, "POST without key: off"},
		{"key in defaults", `{defaults: {idempotencyKey: true}}`, "", `{retry: default}`, true, "Idempotency-Key header"},
		{"key on the path item", `{}`, `{idempotencyKey: X-Pay}`, `{retry: default}`, true, "X-Pay header"},
		{"key on the operation", `{idempotencyKeyHeader: X-Key}`, "", `{idempotencyKey: true, retry: default}`, true, "X-Key header"},
		{"key false over defaults", `{defaults: {idempotencyKey: true}}`, "", `{idempotencyKey: false}`, false, "POST without key: off"},
		{"idempotent true", `{}`, `{idempotent: true}`, `{retry: default}`, true, "idempotent: true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, r := resolveDoc(t, opDoc("post", tc.root, tc.path, tc.op), "POST")
			wantDiags(t, r.diags)
			if res.Policy.NotRetrySafe == tc.safe || (res.Policy.Retry != nil) != tc.safe || res.Policy.RetryWhy != tc.why {
				t.Errorf("%+v, want safe %v (%s)", res.Policy, tc.safe, tc.why)
			}
		})
	}
	// A declared key header parameter makes a POST retry-safe.
	res, r := resolveDoc(t, opDoc("post", `{}`, "", `{retry: default}`), "POST", header("Idempotency-Key"))
	wantDiags(t, r.diags)
	if res.Policy.NotRetrySafe || res.Policy.Retry == nil {
		t.Errorf("POST with a declared key: %+v", res.Policy)
	}

	// An operation's own retry where it is not safe: the error, at the
	// retry key, with the three ways to make it safe.
	_, r = resolveDoc(t, opDoc("post", `{}`, "", "\n        retry: default"), "POST")
	wantDiags(t, r.diags, `6:9 #/paths/~1things/post/x-resilience/retry: retry on POST /things, which is not retry-safe: a POST without an idempotency key`)
	if h := r.diags[0].Hint; h != retryFixHints {
		t.Errorf("hint %q", h)
	}
	for _, way := range []string{"idempotency-key header parameter", "idempotencyKey: true", "idempotent: true"} {
		if !strings.Contains(retryFixHints, way) {
			t.Errorf("the hint does not name %q", way)
		}
	}
	_, r = resolveDoc(t, "paths:\n  /things:\n    get:\n      x-resilience: {idempotent: false, retry: default}\n", "GET")
	wantDiags(t, r.diags, `4:41 #/paths/~1things/get/x-resilience/retry: retry on GET /things, which is not retry-safe: it is marked idempotent: false`)
	res, r = resolveDoc(t, "x-resilience: {defaults: {retry: default}}\npaths:\n  /things:\n    x-resilience: {idempotent: false}\n    get: {}\n", "GET")
	wantDiags(t, r.diags)
	if !res.Policy.NotRetrySafe || res.Policy.Retry != nil || res.Policy.RetryWhy != "idempotent: false: off" {
		t.Errorf("GET marked idempotent: false: %+v", res.Policy)
	}
}

// TestKeyHeaderMatching: the key header is matched to a declared header
// parameter case-insensitively, from any layer or the root's
// idempotencyKeyHeader; a query or cookie parameter of that name is not it.
func TestKeyHeaderMatching(t *testing.T) {
	hdr, query, cookie := header("x-key"), &openapi3.Parameter{Name: "X-Key", In: "query"}, &openapi3.Parameter{Name: "X-Key", In: "cookie"}
	for _, tc := range []struct {
		name, root, path, op string
		params               []*openapi3.Parameter
		param                *openapi3.Parameter
		header               string
	}{
		{"root idempotencyKeyHeader", `{idempotencyKeyHeader: X-KEY}`, "", "", []*openapi3.Parameter{query, hdr}, hdr, "x-key"},
		{"named on the operation", `{}`, "", `{idempotencyKey: X-Key}`, []*openapi3.Parameter{hdr}, hdr, "x-key"},
		{"named on the path item", `{}`, `{idempotencyKey: X-Key}`, "", []*openapi3.Parameter{hdr}, hdr, "x-key"},
		{"named in defaults", `{defaults: {idempotencyKey: X-Key}}`, "", "", []*openapi3.Parameter{cookie, hdr}, hdr, "x-key"},
		{"operation over path item", `{}`, `{idempotencyKey: X-Other}`, `{idempotencyKey: X-Key}`, []*openapi3.Parameter{hdr}, hdr, "x-key"},
		{"path item names another", `{}`, `{idempotencyKey: X-Other}`, "", []*openapi3.Parameter{hdr}, nil, "X-Other"},
		{"only a query parameter", `{defaults: {idempotencyKey: X-Key}}`, "", "", []*openapi3.Parameter{query}, nil, "X-Key"},
		{"only a cookie parameter, key true", `{idempotencyKeyHeader: X-Key}`, "", `{idempotencyKey: true}`, []*openapi3.Parameter{cookie}, nil, "X-Key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, r := resolveDoc(t, opDoc("post", tc.root, tc.path, tc.op), "POST", tc.params...)
			wantDiags(t, r.diags)
			if res.KeyParam != tc.param || !strings.EqualFold(res.Policy.IdempotencyHeader, tc.header) {
				t.Errorf("KeyParam %+v, header %q; want %+v, %q", res.KeyParam, res.Policy.IdempotencyHeader, tc.param, tc.header)
			}
			if res.Policy.NotRetrySafe {
				t.Errorf("a keyed POST is retry-safe: %+v", res.Policy)
			}
		})
	}
	// Only a query parameter of the default key's name: no key at all.
	res, _ := resolveDoc(t, opDoc("post", `{}`, "", ""), "POST", &openapi3.Parameter{Name: "Idempotency-Key", In: "query"})
	if res.KeyParam != nil || res.Policy.IdempotencyHeader != "" || !res.Policy.NotRetrySafe {
		t.Errorf("a query parameter named Idempotency-Key keys nothing: %+v", res.Policy)
	}
}

// TestOperationPolicyMistakes: bad values and unknown keys, each at its
// pointer and position.
func TestOperationPolicyMistakes(t *testing.T) {
	_, r := resolveDoc(t, `x-resilience:
  idempotencyKeyHeader: "not a header"
  defaults: {retyr: none, timeout: soon}
  breakerz: {}
paths:
  /things:
    x-resilience: [retry]
    post:
      x-resilience:
        idempotencyKey: "two words"
        idempotent: yes please
        breaker: 3
`, "POST")
	wantDiags(t, r.diags,
		`4:3 #/x-resilience/breakerz: unknown key "breakerz" in root x-resilience; did you mean "breakers"?`,
		`2:3 #/x-resilience/idempotencyKeyHeader: idempotencyKeyHeader must be an HTTP header name, got "not a header"`,
		`3:14 #/x-resilience/defaults/retyr: unknown key "retyr" in operation policy; did you mean "retry"?`,
		`7:5 #/paths/~1things/x-resilience: x-resilience must be an object, got a list`,
		`3:27 #/x-resilience/defaults/timeout: timeout: cannot parse duration "soon"`,
		`11:9 #/paths/~1things/post/x-resilience/idempotent: idempotent must be true or false, got "yes please"`,
		`10:9 #/paths/~1things/post/x-resilience/idempotencyKey: idempotencyKey must be true, false or a header name, got "two words"`,
		`12:9 #/paths/~1things/post/x-resilience/breaker: breaker must be a policy name, none, or a policy object, got 3`)
}
