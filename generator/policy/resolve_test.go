package policy

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/runtime"
)

// opCase is one operation's layers of x-resilience, YAML text each ("" for
// none), and its declared parameters.
type opCase struct {
	root, path, op string
	method         string
	params         []*openapi3.Parameter
}

func ext(t *testing.T, text string) map[string]any {
	t.Helper()
	if text == "" {
		return nil
	}
	v, err := decodeExtension([]byte(text))
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return map[string]any{extName: v}
}

// resolve resolves c's operation (POST /things when no method is given).
func resolve(t *testing.T, c opCase) (Resolved, diag.Diagnostics) {
	t.Helper()
	doc := &openapi3.T{Extensions: ext(t, c.root)}
	r := newResolver(load.NewSpec(doc, "spec.yaml", nil))
	if c.method == "" {
		c.method = "POST"
	}
	res := r.resolveOperation(load.Operation{ID: "op", Method: c.method, Path: "/things",
		Item: &openapi3.PathItem{Extensions: ext(t, c.path)}, Op: &openapi3.Operation{Extensions: ext(t, c.op)}, Params: c.params})
	return res, r.diags
}

func header(name string) *openapi3.Parameter { return &openapi3.Parameter{Name: name, In: "header"} }

func noErrors(t *testing.T, ds diag.Diagnostics) {
	t.Helper()
	if ds.HasErrors() {
		t.Fatal(ds)
	}
}

// TestLayersMergeKeyByKey: each key comes from the nearest layer that
// has it (operation, then path item, then defaults, then built in).
func TestLayersMergeKeyByKey(t *testing.T) {
	res, ds := resolve(t, opCase{method: "GET",
		root: `{defaults: {timeout: 2s, totalTimeout: 20s, retry: none}}`,
		path: `{timeout: 3s}`,
		op:   `{totalTimeout: 9s}`,
	})
	noErrors(t, ds)
	p := res.Policy
	if p.Timeout != 3*time.Second || p.TotalTimeout != 9*time.Second {
		t.Errorf("timeouts %v / %v, want 3s (path item) / 9s (operation)", p.Timeout, p.TotalTimeout)
	}
	if p.Retry != nil || p.RetryWhy != "retry: none" {
		t.Errorf("retry %+v (%s), want none from the defaults", p.Retry, p.RetryWhy)
	}
	if p.Breaker == nil || p.Breaker.Policy.Policy != "default" {
		t.Errorf("breaker %+v, want the built-in one", p.Breaker)
	}
	// Nothing written: the built-in policies, which are the runtime's.
	res, ds = resolve(t, opCase{method: "GET"})
	noErrors(t, ds)
	if got := res.Policy.Retry.RetryPolicy; !reflect.DeepEqual(got, runtime.DefaultRetryPolicy()) {
		t.Errorf("built-in retry %+v, want the runtime's %+v", got, runtime.DefaultRetryPolicy())
	}
	if got := res.Policy.Breaker.Policy.BreakerPolicy; !reflect.DeepEqual(got, runtime.DefaultBreakerPolicy()) {
		t.Errorf("built-in breaker %+v, want the runtime's %+v", got, runtime.DefaultBreakerPolicy())
	}
	if res.Policy.Timeout != defaultTimeout || res.Policy.TotalTimeout != defaultTotalTimeout {
		t.Errorf("built-in timeouts %v / %v", res.Policy.Timeout, res.Policy.TotalTimeout)
	}
}

// TestExtendsAndInlinePolicies: a named policy extends another key by key;
// an inline policy extends a named one and is named after its owner.
func TestExtendsAndInlinePolicies(t *testing.T) {
	res, ds := resolve(t, opCase{method: "GET",
		root: `{retries: {base: {maxAttempts: 5, backoff: constant}, fast: {extends: base, initialInterval: 10ms}},
		        breakers: {tight: {windowSize: 20, minimumCalls: 5}}}`,
		op: `{retry: fast, breaker: {extends: tight, minimumCalls: 7}}`,
	})
	noErrors(t, ds)
	rp := res.Policy.Retry
	if rp == nil || rp.Policy != "fast" || rp.MaxAttempts != 5 || rp.Backoff != runtime.ConstantBackoff || rp.InitialInterval != 10*time.Millisecond {
		t.Errorf("retry %+v: want fast, with base's maxAttempts 5 and backoff constant", rp)
	}
	bp := res.Policy.Breaker.Policy
	if bp.Policy != "op" || bp.WindowSize != 20 || bp.MinimumCalls != 7 {
		t.Errorf("inline breaker %+v: want it named op, windowSize 20 from tight, minimumCalls 7", bp)
	}
	_, ds = resolve(t, opCase{root: `{retries: {a: {extends: b}, b: {extends: a}}}`})
	if !ds.HasErrors() || !strings.Contains(ds.Error(), "extends itself") {
		t.Errorf("an extends cycle: %v", ds)
	}
}

// TestKeyHeaderPicksTheDeclaredParameter: the key header of the nearest
// layer that names one selects the declared header parameter of that
// name (any case); with none declared the client needs a field of its own.
func TestKeyHeaderPicksTheDeclaredParameter(t *testing.T) {
	requestID, payKey, idem := header("X-Request-Id"), header("x-pay-key"), header("idempotency-key")
	for _, tc := range []struct {
		name      string
		c         opCase
		keyHeader string
		param     *openapi3.Parameter
	}{
		{"named in defaults", opCase{root: `{defaults: {idempotencyKey: X-Request-Id}}`, params: []*openapi3.Parameter{requestID}}, "X-Request-Id", requestID},
		{"named on the path item", opCase{path: `{idempotencyKey: X-Pay-Key}`, params: []*openapi3.Parameter{payKey}}, "X-Pay-Key", payKey},
		{"named on the operation over defaults", opCase{root: `{defaults: {idempotencyKey: X-Other}}`, op: `{idempotencyKey: X-Request-Id}`, params: []*openapi3.Parameter{requestID}}, "X-Request-Id", requestID},
		{"true uses idempotencyKeyHeader", opCase{root: `{defaults: {idempotencyKey: X-Request-Id}}`, op: `{idempotencyKey: true}`, params: []*openapi3.Parameter{idem}}, "idempotency-key", idem},
		{"declared, no extension", opCase{params: []*openapi3.Parameter{idem}}, "idempotency-key", idem},
		{"named, not declared", opCase{root: `{defaults: {idempotencyKey: X-Request-Id}}`}, "X-Request-Id", nil},
		{"a query parameter is no header", opCase{root: `{defaults: {idempotencyKey: X-Request-Id}}`, params: []*openapi3.Parameter{{Name: "X-Request-Id", In: "query"}}}, "X-Request-Id", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, ds := resolve(t, tc.c)
			noErrors(t, ds)
			if res.KeyParam != tc.param {
				t.Errorf("KeyParam %+v, want %+v", res.KeyParam, tc.param)
			}
			if got := res.Policy.IdempotencyHeader; !strings.EqualFold(got, tc.keyHeader) {
				t.Errorf("key header %q, want %q", got, tc.keyHeader)
			}
			if res.Policy.NotRetrySafe || res.Policy.Retry == nil {
				t.Errorf("a POST with a key is retry-safe: %+v", res.Policy)
			}
		})
	}
	res, ds := resolve(t, opCase{})
	noErrors(t, ds)
	if !res.Policy.NotRetrySafe || res.Policy.Retry != nil || res.Policy.IdempotencyHeader != "" || res.KeyParam != nil {
		t.Errorf("a POST without key: %+v", res.Policy)
	}
}
