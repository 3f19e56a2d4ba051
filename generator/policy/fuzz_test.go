package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/runtime"
	"github.com/resgen/resgen/runtime/impl"
	yaml "go.yaml.in/yaml/v4"
)

// FuzzResilience feeds any root x-resilience value and any operation
// x-resilience value (JSON or YAML) to the resolver, for a GET and a POST
// without key. It must not panic; when it reports no error, every policy
// it resolved must be one the runtime can run.
func FuzzResilience(f *testing.F) {
	for _, s := range [][2]string{
		{"", ""},
		{"{}", "{}"},
		{"null", "null"},
		{"[]", "retry"},
		{`{defaults: {retry: fast, breaker: b, timeout: 2s, totalTimeout: 0}, retries: {fast: {maxAttempts: 5, backoff: constant, jitter: none, initialInterval: 10ms}}, breakers: {b: {windowType: time, windowDuration: 30s, scope: operation}}}`, `{idempotencyKey: true}`},
		{`{idempotencyKeyHeader: X-Key, retries: {a: {extends: b}, b: {extends: a}}}`, `{retry: a}`},
		{`{breakers: {x: {extends: default, recordOn: [transport, 5xx, 429, "503"], failureRateThreshold: 100, slowCallRateThreshold: 0.5}}}`, `{breaker: {extends: x, windowSize: 1, minimumCalls: 1, halfOpenCalls: 1}}`},
		{`{retries: {r: {multiplier: 1e308, maxInterval: 2540400h10m10.000000000s, budget: {ratio: 1, minPerSecond: 0}, retryAfter: false, maxRetryAfter: 0}}}`, `{retry: r, idempotent: true, timeout: 0s}`},
		{`{"retries": {"r": {"maxAttempts": 2147483647, "initialInterval": "-0s", "jitter": "decorrelated"}}}`, `{"retry": {"extends": "r", "maxAttempts": 1.0}, "idempotencyKey": "Idem-Key"}`},
		{`{defaults: {retry: none, breaker: none}}`, `{x-note: 1, retry: default, idempotent: false}`},
		{`{retries: {s: {maxAttempts: 11, retryOn: [2xx, 200, 503]}}, breakers: {b: {recordOn: [2xx, 204]}}}`, `{retry: s, breaker: b, timeout: 0, totalTimeout: 0}`},
		{`{breakers: {"a/b~c": {windowSize: 2147483648, waitInOpen: 1ns, slowCallDuration: 9223372036854775807ns}}}`, `{breaker: "a/b~c"}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, root, op []byte) {
		var doc openapi3.T
		if len(bytes.TrimSpace(root)) > 0 {
			v, err := decodeExtension(root)
			if err != nil {
				t.Skip()
			}
			doc.Extensions = map[string]any{extName: v}
		}
		var opExt any
		if len(bytes.TrimSpace(op)) > 0 {
			var err error
			if opExt, err = decodeExtension(op); err != nil {
				t.Skip()
			}
		}
		s := load.NewSpec(&doc, "fuzz.yaml", root)
		r := newResolver(s)
		var pols []*model.OpPolicy
		for _, method := range []string{"GET", "POST"} {
			ptr := "/paths/~1things/" + strings.ToLower(method)
			res := r.operation(opInput{name: "op" + method, method: method, path: "/things",
				opPtr: ptr, pathPtr: "/paths/~1things", opExt: opExt})
			pols = append(pols, &res.Policy)
		}
		for _, d := range r.diags {
			if d.Msg == "" || d.String() == "" {
				t.Fatalf("a diagnostic without a message: %#v", d)
			}
		}
		if r.diags.HasErrors() {
			return
		}
		for name, p := range r.breakers {
			checkBreaker(t, "breakers/"+name, p)
		}
		for name, p := range r.retries {
			checkRetry(t, "retries/"+name, p)
		}
		for i, pol := range pols {
			where := []string{"GET", "POST"}[i]
			if pol.Timeout < 0 || pol.TotalTimeout < 0 {
				t.Fatalf("%s: timeouts %v, %v", where, pol.Timeout, pol.TotalTimeout)
			}
			if pol.Breaker != nil {
				checkBreaker(t, where, pol.Breaker.Policy)
			}
			if pol.Retry != nil {
				checkRetry(t, where, pol.Retry)
				// The POST has no key parameter: only a key or an explicit
				// idempotent: true makes retrying it safe.
				if where == "POST" && pol.IdempotencyHeader == "" && pol.RetryWhy != "idempotent: true" {
					t.Fatalf("POST without key retried (%s)", pol.RetryWhy)
				}
			}
		}
	})
}

// decodeExtension decodes JSON or YAML into the types of encoding/json, as
// kin-openapi decodes an extension.
func decodeExtension(data []byte) (any, error) {
	if v, err := decodeJSON(data); err == nil {
		return v, nil
	}
	var y any
	if err := yaml.Unmarshal(data, &y); err != nil {
		return nil, err
	}
	b, err := json.Marshal(load.StringKeys(y))
	if err != nil {
		return nil, err
	}
	return decodeJSON(b)
}

func decodeJSON(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errors.New("more than one value")
	}
	return v, nil
}

func checkBreaker(t *testing.T, where string, p *model.BreakerPolicy) {
	t.Helper()
	ok := p != nil && slices.Contains([]string{"shared", "operation"}, p.Scope) &&
		(p.WindowType == runtime.CountWindow && p.WindowSize >= 1 || p.WindowType == runtime.TimeWindow && p.WindowDuration > 0) &&
		p.MinimumCalls >= 1 && p.HalfOpenCalls >= 1 &&
		p.FailureRateThreshold > 0 && p.FailureRateThreshold <= 100 &&
		p.SlowCallRateThreshold > 0 && p.SlowCallRateThreshold <= 100 &&
		p.SlowCallDuration > 0 && p.WaitInOpen > 0 && validOutcomes("recordOn", p.RecordOn.Tokens())
	if !ok {
		t.Fatalf("%s: accepted breaker policy the runtime cannot run: %+v", where, p)
	}
}

func checkRetry(t *testing.T, where string, p *model.RetryPolicy) {
	t.Helper()
	ok := p != nil && p.MaxAttempts >= 1 && p.MaxAttempts <= runtime.MaxRetryAttempts &&
		slices.Contains([]runtime.Backoff{runtime.ConstantBackoff, runtime.ExponentialBackoff}, p.Backoff) &&
		slices.Contains([]runtime.Jitter{runtime.NoJitter, runtime.FullJitter, runtime.EqualJitter, runtime.DecorrelatedJitter}, p.Jitter) &&
		p.InitialInterval >= 0 && p.MaxInterval >= 0 && p.MaxRetryAfter >= 0 &&
		p.Multiplier >= 1 && !math.IsInf(p.Multiplier, 0) && validOutcomes("retryOn", p.RetryOn.Tokens()) &&
		(p.Budget == nil || p.Budget.Ratio > 0 && p.Budget.Ratio <= 1 && p.Budget.MinPerSecond >= 0 && !math.IsInf(p.Budget.MinPerSecond, 0))
	if !ok {
		t.Fatalf("%s: accepted retry policy the runtime cannot run: %+v (budget %+v)", where, p, p.Budget)
	}
}

// validOutcomes: transport, timeout, a status code or a class, once each,
// each one the runtime takes in key (recordOn, or retryOn: no 1xx or 2xx).
func validOutcomes(key string, list []string) bool {
	for i, o := range list {
		if slices.Contains(list[:i], o) {
			return false
		}
		var err error
		var m runtime.Match
		if key == "retryOn" {
			var rp runtime.RetryPolicy
			err = impl.DecodeRetry(&rp, map[string]any{key: []any{o}})
			m = rp.RetryOn
		} else {
			var bp runtime.BreakerPolicy
			err = impl.DecodeBreaker(&bp, map[string]any{key: []any{o}})
			m = bp.RecordOn
		}
		if err != nil || len(m.Tokens()) != 1 || m.Tokens()[0] != o {
			return false
		}
	}
	return true
}
