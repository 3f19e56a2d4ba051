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

// TestLoadIsBounded: Load refuses, naming the file, /dev/zero and a valid
// document larger than runtime.MaxOverridesBytes, as runtime.LoadOverrides does.
func TestLoadIsBounded(t *testing.T) {
	// Valid YAML, one byte over: a comment pads it.
	big := filepath.Join(t.TempDir(), "big.yaml")
	doc := "retries: {r: {maxAttempts: 2}}\n#"
	os.WriteFile(big, []byte(doc+strings.Repeat("x", runtime.MaxOverridesBytes+1-len(doc))), 0o600)
	paths := []string{big, "/dev/zero"}
	if _, err := os.Stat("/dev/zero"); err != nil {
		paths = paths[:1]
	}
	for _, p := range paths {
		o, err := Load(p)
		if o != nil || err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") || !strings.HasPrefix(err.Error(), p+": ") {
			t.Errorf("Load(%s) = %v, %v; want an error naming the file and the 1 MiB bound", p, o, err)
		}
	}
}
