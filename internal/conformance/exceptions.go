package conformance

import (
	_ "embed"
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Exception is a checked-in claim that a failure is not resgen's: where
// openapi3filter itself is wrong, or the spec contradicts itself.
type Exception struct {
	// Spec is the spec's file name (no folder).
	Spec string `yaml:"spec"`
	// Operation is the Go method or operationId ("*": any).
	Operation string `yaml:"operation"`
	// Kind is the failure kind it covers ("*": any).
	Kind string `yaml:"kind"`
	// Contains must occur in the failure's detail.
	Contains string `yaml:"contains"`
	// Reason is the claim a reviewer can check.
	Reason string `yaml:"reason"`
}

//go:embed exceptions.yaml
var exceptionsYAML []byte

// DefaultExceptions are the checked-in exceptions.
func DefaultExceptions() ([]Exception, error) {
	var list []Exception
	if err := yaml.Unmarshal(exceptionsYAML, &list); err != nil {
		return nil, fmt.Errorf("exceptions.yaml: %w", err)
	}
	for i, e := range list {
		if e.Spec == "" || e.Kind == "" || e.Reason == "" || e.Operation == "" {
			return nil, fmt.Errorf("exceptions.yaml: entry %d needs spec, operation, kind and reason", i+1)
		}
	}
	return list, nil
}

func (e Exception) covers(spec string, f Failure) bool {
	return e.Spec == filepath.Base(spec) && (e.Kind == "*" || e.Kind == f.Kind) &&
		(e.Operation == "*" || e.Operation == f.Operation || (f.OpID != "" && e.Operation == f.OpID)) &&
		strings.Contains(f.Detail, e.Contains)
}

// applyExceptions marks the failures exceptions cover; an exception of this
// spec that covers nothing is itself a failure, so the list stays honest.
func applyExceptions(rep *Report, list []Exception) {
	for _, e := range list {
		if e.Spec != filepath.Base(rep.Spec) {
			continue
		}
		used := false
		for i := range rep.Failures {
			if rep.Failures[i].Excepted == "" && e.covers(rep.Spec, rep.Failures[i]) {
				rep.Failures[i].Excepted = e.Reason
				used = true
			}
		}
		if used {
			rep.Exceptions++
		} else {
			rep.Failures = append(rep.Failures, Failure{Operation: e.Operation, Kind: "exception",
				Detail: fmt.Sprintf("unused exception (kind %s, contains %q): %s", e.Kind, e.Contains, e.Reason)})
		}
	}
}
