package overridesyaml

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/resgen/resgen/runtime"
)

// TestYAMLReadsAsJSON: a YAML file gives the overrides its JSON spelling
// gives, and the same errors.
func TestYAMLReadsAsJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "overrides.yaml")
	os.WriteFile(path, []byte(`
breakers:
  pets: {minimumCalls: 10, failureRateThreshold: 25.5, recordOn: [transport, 503]}
retries:
  quick: {maxAttempts: 2, retryAfter: false, budget: {ratio: 0.1}}
operations:
  listPets: {timeout: 1s, totalTimeout: 0}
`), 0o600)
	y, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	j, err := runtime.ParseOverrides([]byte(`{
		"breakers": {"pets": {"minimumCalls": 10, "failureRateThreshold": 25.5, "recordOn": ["transport", 503]}},
		"retries": {"quick": {"maxAttempts": 2, "retryAfter": false, "budget": {"ratio": 0.1}}},
		"operations": {"listPets": {"timeout": "1s", "totalTimeout": 0}}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(y, j) {
		t.Fatalf("YAML gave %+v, JSON %+v", y, j)
	}

	for _, tc := range []struct{ doc, want string }{
		{"breakers: {pets: {minimumCall: 2}}", `breaker "pets": unknown key "minimumCall" in breaker policy; did you mean "minimumCalls"?`},
		{"retries: {quick: {maxAttempts: 0}}", `retry policy "quick": maxAttempts must be a whole number from 1 to 10, got 0`},
		{"retries: {quick: {maxAttempts: 1}}\nretries: {}", `already defined`},
		{"breakers: {200: {}}", `must be strings`},
	} {
		if _, err := Parse([]byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v; want %q", tc.doc, err, tc.want)
		}
	}
}
