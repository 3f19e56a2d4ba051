package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/runtime"
	"github.com/santhosh-tekuri/jsonschema/v6"
	yaml "go.yaml.in/yaml/v4"
)

// The JSON Schema in schema/ is what editors use; resgen's own validation
// is the Go code. They must agree: every example below is accepted by both
// or rejected by both. Rules that span policies (extends cycles, unknown
// names, retry safety) are beyond a JSON Schema and tested elsewhere.

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("../schema/x-resilience.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("x-resilience.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("x-resilience.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// schemaValid validates a YAML document against the schema.
func schemaValid(t *testing.T, s *jsonschema.Schema, data []byte) error {
	t.Helper()
	var raw any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(load.StringKeys(raw))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(inst)
}

func TestSchemaAgreesWithValidation(t *testing.T) {
	s := compileSchema(t)
	cases := []struct {
		name, root, get string
		valid           bool
	}{
		{"empty", "", "", true},
		{"named policies used", "  defaults: {breaker: b, retry: r}\n  breakers:\n    b: {windowSize: 20, minimumCalls: 10, failureRateThreshold: 40.5, waitInOpen: 1m30s, recordOn: [transport, 5xx, 429]}\n  retries:\n    r: {maxAttempts: 2, backoff: constant, initialInterval: 250ms, jitter: equal, retryOn: [timeout, \"503\"], budget: {ratio: 0.1, minPerSecond: 2}}", "", true},
		{"time window", "  defaults: {breaker: t}\n  breakers:\n    t: {windowType: time, windowDuration: 30s}", "", true},
		{"inline policies and timeouts off", "", "        breaker: {halfOpenCalls: 2}\n        retry: {maxAttempts: 2}\n        timeout: 0\n        totalTimeout: \"0\"", true},
		{"none", "", "        breaker: none\n        retry: none", true},
		{"idempotency forms", "  idempotencyKeyHeader: X-Key", "        idempotent: true\n        idempotencyKey: Request-Id", true},
		{"vendor keys", "  x-team: infra\n  breakers:\n    b: {x-note: hi}", "        x-owner: me\n        breaker: b", true},
		{"unknown root key", "  defautls: {}", "", false},
		{"unknown breaker key", "  breakers:\n    b: {windowsize: 10}", "", false},
		{"unknown retry key", "  retries:\n    r: {maxAtempts: 3}", "", false},
		{"unknown operation key", "", "        retries: none", false},
		{"percent 0", "  breakers:\n    b: {failureRateThreshold: 0}", "", false},
		{"percent 101", "  breakers:\n    b: {slowCallRateThreshold: 101}", "", false},
		{"percent string", "  breakers:\n    b: {failureRateThreshold: \"50\"}", "", false},
		{"maxAttempts 0", "  retries:\n    r: {maxAttempts: 0}", "", false},
		{"maxAttempts fraction", "  retries:\n    r: {maxAttempts: 1.5}", "", false},
		{"windowSize 0", "  breakers:\n    b: {windowSize: 0}", "", false},
		{"duration without unit", "  retries:\n    r: {initialInterval: \"100\"}", "", false},
		{"duration as number", "  retries:\n    r: {maxInterval: 5}", "", false},
		{"negative duration", "  retries:\n    r: {maxInterval: -1s}", "", false},
		{"zero waitInOpen", "  breakers:\n    b: {waitInOpen: 0s}", "", false},
		{"multiplier 0.9", "  retries:\n    r: {multiplier: 0.9}", "", false},
		{"bad jitter", "  retries:\n    r: {jitter: random}", "", false},
		{"bad windowType", "  breakers:\n    b: {windowType: rolling}", "", false},
		{"bad scope", "  breakers:\n    b: {scope: client}", "", false},
		{"windowSize with time", "  breakers:\n    b: {windowType: time, windowSize: 5}", "", false},
		{"windowDuration with count", "  breakers:\n    b: {windowDuration: 5s}", "", false},
		{"bad outcome", "  breakers:\n    b: {recordOn: [5xx, oops]}", "", false},
		{"outcome 600", "  retries:\n    r: {retryOn: [600]}", "", false},
		{"budget ratio 0", "  retries:\n    r: {budget: {ratio: 0}}", "", false},
		{"budget unknown key", "  retries:\n    r: {budget: {rate: 0.2}}", "", false},
		{"retryAfter not bool", "  retries:\n    r: {retryAfter: \"yes\"}", "", false},
		{"idempotent not bool", "", "        idempotent: \"true\"", false},
		{"bad key header", "  idempotencyKeyHeader: \"a b\"", "", false},
		{"bad timeout", "", "        timeout: 5 seconds", false},
		{"policy not an object", "  breakers:\n    b: 5", "", false},
		{"windowSize at its bound", "  defaults: {breaker: b}\n  breakers:\n    b: {windowSize: 10000}", "", true},
		{"windowSize over its bound", "  breakers:\n    b: {windowSize: 10001}", "", false},
		{"halfOpenCalls over its bound", "  breakers:\n    b: {halfOpenCalls: 10001}", "", false},
		{"windowDuration at its bound", "  defaults: {breaker: b}\n  breakers:\n    b: {windowType: time, windowDuration: 60m}", "", true},
		{"windowDuration of years", "  breakers:\n    b: {windowType: time, windowDuration: 2000000h}", "", false},
		{"windowDuration 61m", "  breakers:\n    b: {windowType: time, windowDuration: 61m}", "", false},
		{"windowDuration 3601s", "  breakers:\n    b: {windowType: time, windowDuration: 3601s}", "", false},
		{"windowDuration 1.5h", "  breakers:\n    b: {windowType: time, windowDuration: 1.5h}", "", false},
		{"durations at a day", "  defaults: {breaker: b, retry: r}\n  breakers:\n    b: {waitInOpen: 24h, slowCallDuration: 1440m}\n  retries:\n    r: {maxInterval: 86400s, maxRetryAfter: 86400000ms}", "        timeout: 24h\n        totalTimeout: 24h", true},
		{"waitInOpen over a day", "  breakers:\n    b: {waitInOpen: 25h}", "", false},
		{"maxRetryAfter over a day", "  retries:\n    r: {maxRetryAfter: 86401s}", "", false},
		{"timeout over a day", "", "        timeout: 2000000h", false},
		{"totalTimeout over a day in ms", "", "        totalTimeout: 86400001ms", false},
		{"pagination in defaults", "  defaults: {pagination: {kind: link}}", "", false},
		{"pagination unknown kind", "", "        pagination: {kind: links}", false},
		{"pagination unknown key", "", "        pagination: {kind: link, rel: next}", false},
		{"pagination cursor without next", "", "        pagination: {kind: cursor, param: after}", false},
		{"pagination nextURL with param", "", "        pagination: {kind: nextURL, next: next, param: p}", false},
		{"pagination start not a number", "", "        pagination: {kind: page, param: p, start: one}", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := annotated(c.root, c.get, "")
			serr := schemaValid(t, s, []byte(spec))
			_, gerr := generateText(t, spec, false)
			if (serr == nil) != c.valid {
				t.Errorf("schema: valid=%v, want %v (%v)", serr == nil, c.valid, serr)
			}
			if (gerr == nil) != c.valid {
				t.Errorf("resgen: valid=%v, want %v (%v)", gerr == nil, c.valid, gerr)
			}
		})
	}
}

// TestSchemaAcceptsTestdata: every valid testdata spec passes the schema.
func TestSchemaAcceptsTestdata(t *testing.T) {
	s := compileSchema(t)
	specs, _ := filepath.Glob("../testdata/specs/*.yaml")
	for _, p := range specs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := schemaValid(t, s, data); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestSchemaBoundsAreResgens: the bounds the schema writes are the
// generator's constants (which equal the runtime's).
func TestSchemaBoundsAreResgens(t *testing.T) {
	data, err := os.ReadFile("../schema/x-resilience.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs struct {
			OverADay      struct{ Pattern string } `json:"overADay"`
			OverAnHour    struct{ Pattern string } `json:"overAnHour"`
			BreakerPolicy struct {
				Properties struct {
					WindowSize    struct{ Maximum int } `json:"windowSize"`
					HalfOpenCalls struct{ Maximum int } `json:"halfOpenCalls"`
				} `json:"properties"`
			} `json:"breakerPolicy"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if want := overPattern(runtime.MaxPolicyDuration); doc.Defs.OverADay.Pattern != want {
		t.Errorf("overADay pattern is not that of %v; want\n%s", runtime.MaxPolicyDuration, want)
	}
	if want := overPattern(runtime.MaxWindowDuration); doc.Defs.OverAnHour.Pattern != want {
		t.Errorf("overAnHour pattern is not that of %v; want\n%s", runtime.MaxWindowDuration, want)
	}
	if got := doc.Defs.BreakerPolicy.Properties.WindowSize.Maximum; got != runtime.MaxWindowSize {
		t.Errorf("windowSize maximum is %d, want %d", got, runtime.MaxWindowSize)
	}
	if got := doc.Defs.BreakerPolicy.Properties.HalfOpenCalls.Maximum; got != runtime.MaxHalfOpenCalls {
		t.Errorf("halfOpenCalls maximum is %d, want %d", got, runtime.MaxHalfOpenCalls)
	}
}

// overPattern is the regular expression of a Go duration string with one
// part (a number and its unit) longer than limit: what JSON Schema can say
// of a bound on durations.
func overPattern(limit time.Duration) string {
	units := []struct {
		re string
		d  time.Duration
	}{{"h", time.Hour}, {"m([0-9]|$)", time.Minute}, {"s", time.Second},
		{"ms", time.Millisecond}, {"[uµ]s", time.Microsecond}, {"ns", time.Nanosecond}}
	var parts []string
	for _, u := range units {
		n := strconv.FormatInt(int64(limit/u.d), 10)
		// A whole number above n, or n with a fraction that is not zero.
		parts = append(parts, `0*(`+greaterThan(n)+`(\.[0-9]+)?|`+n+`\.[0-9]*[1-9][0-9]*)`+u.re)
	}
	return "(^|[hmsµ])(" + strings.Join(parts, "|") + ")"
}

// greaterThan is the regular expression of the decimal numbers (without
// leading zeros) greater than n.
func greaterThan(n string) string {
	var alts []string
	for i := range n {
		d := n[i] - '0'
		if d == 9 {
			continue
		}
		digit := fmt.Sprintf("[%d-9]", d+1)
		if d+1 == 9 {
			digit = "9"
		}
		switch rest := len(n) - i - 1; rest {
		case 0:
			alts = append(alts, n[:i]+digit)
		case 1:
			alts = append(alts, n[:i]+digit+"[0-9]")
		default:
			alts = append(alts, fmt.Sprintf("%s%s[0-9]{%d}", n[:i], digit, rest))
		}
	}
	alts = append(alts, fmt.Sprintf("[1-9][0-9]{%d,}", len(n)))
	return "(" + strings.Join(alts, "|") + ")"
}
