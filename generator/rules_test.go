package generator

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/resgen/resgen/runtime"
	"github.com/resgen/resgen/runtime/impl"
)

// The value rules of x-resilience live once, in the runtime (rules.go):
// the generator reads a spec's policy keys through runtime's Decode, and
// runtime overrides do too. TestSpecAndOverridesShareEveryRule runs every
// policy key with values around every bound through both paths (a spec
// through Generate, an overrides document through ParseOverrides and a
// client's Engine) and wants the same verdict and the same message for
// each. A rule added to the generator alone, or to one path of the
// runtime alone, makes some value pass one path and fail the other.

// ruleValues are values around every bound the contract has: counts and
// percentages, durations at 0, 1h and 24h, outcome lists, budgets, and
// values of the wrong type.
var ruleValues = []any{
	nil, true, -1, 0, 0.5, 1, 2, 50, 99.5, 100, 100.5, 10000, 10001, 2147483647, 2147483648, 1e300,
	"0", "0s", "-1s", "1ms", "59m59s", "1h", "1h0m1s", "24h", "24h0m1s", "soon", "5", "count", "time",
	"constant", "exponential", "linear", "none", "full", "ful", "equal", "decorrelated",
	[]any{"transport", "timeout"}, []any{600}, []any{99}, []any{"5xx", 503, "5XX"}, []any{"6xx"}, []any{}, "5xx",
	map[string]any{"ratio": 0.5}, map[string]any{"ratio": 2}, map[string]any{"ratio": 0}, map[string]any{"rate": 1},
	map[string]any{"minPerSecond": -1}, map[string]any{"minPerSecond": 0},
}

// The keys of each kind, as the contract names them.
var (
	ruleBreakerKeys = []string{"windowType", "windowSize", "windowDuration", "minimumCalls", "failureRateThreshold", "slowCallDuration", "slowCallRateThreshold", "waitInOpen", "halfOpenCalls", "recordOn"}
	ruleRetryKeys   = []string{"maxAttempts", "backoff", "initialInterval", "multiplier", "maxInterval", "jitter", "retryOn", "retryAfter", "maxRetryAfter", "budget"}
	ruleTimeoutKeys = []string{"timeout", "totalTimeout", "idleTimeout", "resume"}
)

type ruleCase struct {
	kind, key string
	obj       map[string]any
}

func ruleCases() []ruleCase {
	// Misspelt keys: both paths name the key and the nearest one.
	cases := []ruleCase{
		{"breakers", "typo", map[string]any{"failureRate": 50}},
		{"retries", "typo", map[string]any{"maxAtempts": 3}},
		{"breakers", "typo", map[string]any{"budget": map[string]any{}}},
	}
	for _, v := range ruleValues {
		for _, k := range ruleBreakerKeys {
			cases = append(cases, ruleCase{"breakers", k, map[string]any{k: v}})
			// A time window too, for the window keys' relation.
			cases = append(cases, ruleCase{"breakers", k, map[string]any{"windowType": "time", k: v}})
		}
		for _, k := range ruleRetryKeys {
			cases = append(cases, ruleCase{"retries", k, map[string]any{k: v}})
		}
		for _, k := range ruleTimeoutKeys {
			cases = append(cases, ruleCase{"operations", k, map[string]any{k: v}})
		}
	}
	return cases
}

// specVerdicts runs the cases as one spec: breakers and retries as named
// policies (b0, r1, ...), timeouts on operations (GET /t2). It returns the
// error messages of each case.
func specVerdicts(t *testing.T, cases []ruleCase) [][]string {
	breakers, retries, paths := map[string]any{}, map[string]any{}, map[string]any{}
	ptrs := make([]string, len(cases))
	for i, c := range cases {
		name := fmt.Sprintf("p%d", i)
		switch c.kind {
		case "breakers":
			breakers[name] = c.obj
			ptrs[i] = "#/x-resilience/breakers/" + name + "/"
		case "retries":
			retries[name] = c.obj
			ptrs[i] = "#/x-resilience/retries/" + name + "/"
		default:
			paths["/"+name] = map[string]any{"get": map[string]any{
				"x-resilience": c.obj, "responses": map[string]any{"200": map[string]any{"description": "ok"}},
			}}
			ptrs[i] = "#/paths/~1" + name + "/get/x-resilience/"
		}
	}
	doc, err := json.Marshal(map[string]any{
		"openapi": "3.0.3", "info": map[string]any{"title": "t", "version": "1"}, "paths": paths,
		"x-resilience": map[string]any{"breakers": breakers, "retries": retries},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = generateText(t, string(doc), false)
	var ie *InputError
	if err != nil && !errors.As(err, &ie) {
		t.Fatal(err)
	}
	got := make([][]string, len(cases))
	if ie == nil {
		return got
	}
	for _, d := range ie.Diags {
		if d.Severity != Error {
			continue
		}
		i := slices.IndexFunc(ptrs, func(p string) bool { return strings.HasPrefix(d.Pointer+"/", p) })
		if i < 0 {
			t.Fatalf("an error of no case: %s", d)
		}
		got[i] = append(got[i], d.Msg)
	}
	return got
}

// overrideVerdicts runs each case as an overrides document applied to a
// client with the built-in policies: breaker "b", retry policy "r",
// operation "op".
func overrideVerdicts(t *testing.T, cases []ruleCase) [][]string {
	got := make([][]string, len(cases))
	for i, c := range cases {
		name := map[string]string{"breakers": "b", "retries": "r", "operations": "op"}[c.kind]
		doc, _ := json.Marshal(map[string]any{c.kind: map[string]any{name: c.obj}})
		o, err := runtime.ParseOverrides(doc)
		if err == nil {
			e := impl.NewEngine(impl.Config{Overrides: o})
			b := e.Breaker("b", runtime.DefaultBreakerPolicy())
			r := runtime.DefaultRetryPolicy()
			r.Policy = "r"
			e.Operation(impl.OperationSpec{Name: "op", Method: "GET", Breaker: b, Retry: &r})
			err = e.CheckOverrides()
		}
		for _, line := range strings.Split(errText(err), "\n") {
			if line == "" {
				continue
			}
			// overrides: breaker "b": MESSAGE (fix: HINT)
			_, msg, ok := strings.Cut(line, fmt.Sprintf("%q: ", name))
			if !ok {
				t.Fatalf("%s %v: an error that does not name %q: %s", c.kind, c.obj, name, line)
			}
			msg, _, _ = strings.Cut(msg, " (fix: ")
			got[i] = append(got[i], msg)
		}
	}
	return got
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestSpecAndOverridesShareEveryRule(t *testing.T) {
	cases := ruleCases()
	spec, over := specVerdicts(t, cases), overrideVerdicts(t, cases)
	accepted, refused := 0, 0
	for i, c := range cases {
		s, o := slices.Sorted(slices.Values(spec[i])), slices.Sorted(slices.Values(over[i]))
		if !slices.Equal(s, o) {
			t.Errorf("%s %v:\n  spec:      %q\n  overrides: %q", c.kind, c.obj, s, o)
		}
		if len(s) == 0 {
			accepted++
		} else {
			refused++
		}
	}
	// Both verdicts occur for every key, so the bounds were reached.
	for _, keys := range [][]string{ruleBreakerKeys, ruleRetryKeys, ruleTimeoutKeys} {
		for _, k := range keys {
			ok, bad := false, false
			for i, c := range cases {
				if c.key == k {
					ok = ok || len(spec[i]) == 0
					bad = bad || len(spec[i]) > 0
				}
			}
			if !ok || !bad {
				t.Errorf("key %s: accepted %v, refused %v; the values miss one side of its bounds", k, ok, bad)
			}
		}
	}
	t.Logf("%d cases: %d accepted, %d refused by the spec", len(cases), accepted, refused)
}
