package generator

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

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
	b, err := json.Marshal(stringKeys(raw))
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
