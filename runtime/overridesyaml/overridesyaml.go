// Package overridesyaml reads runtime overrides (runtime.Overrides) from
// YAML, for operators who keep their configuration in YAML. It is its own
// package so that a generated client, which imports only runtime, does not
// link a YAML parser: the keys, values and rules are runtime's, the same as
// runtime.ParseOverrides reads from JSON.
//
//	breakers:
//	  pets: {minimumCalls: 10, failureRateThreshold: 25}
//	retries:
//	  quick: {maxAttempts: 2}
//	operations:
//	  listPets: {timeout: 1s, totalTimeout: 3s}
package overridesyaml

import (
	"encoding/json"
	"fmt"

	"github.com/resgen/resgen/runtime"
	"github.com/resgen/resgen/runtime/impl"
	yaml "go.yaml.in/yaml/v4"
)

// Parse reads overrides from one YAML document. A key given twice is an
// error, as YAML says.
func Parse(data []byte) (*runtime.Overrides, error) {
	var doc any
	if err := yaml.Load(data, &doc); err != nil {
		return nil, fmt.Errorf("overrides: %w", err)
	}
	if err := stringKeys(doc, "the document"); err != nil {
		return nil, err
	}
	// Through JSON, so that exactly runtime.ParseOverrides reads it.
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("overrides: %w", err)
	}
	return runtime.ParseOverrides(js)
}

// Load reads overrides from a YAML file of at most
// runtime.MaxOverridesBytes; its errors name the file.
func Load(path string) (*runtime.Overrides, error) {
	data, err := impl.ReadOverridesFile(path)
	if err != nil {
		return nil, err
	}
	o, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return o, nil
}

// stringKeys refuses a mapping key that is not a string (200: ...), which
// JSON cannot hold.
func stringKeys(v any, where string) error {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if err := stringKeys(e, fmt.Sprintf("%q", k)); err != nil {
				return err
			}
		}
	case map[any]any:
		return fmt.Errorf("overrides: the keys of %s must be strings", where)
	case []any:
		for _, e := range x {
			if err := stringKeys(e, where); err != nil {
				return err
			}
		}
	}
	return nil
}
