package conformance

import (
	_ "embed"
	"fmt"
	"io"
	"path/filepath"
	"sort"

	"go.yaml.in/yaml/v4"
)

// OpenDefect is a resgen defect the harness found that is not fixed yet:
// Count failures of one kind in one operation of one spec. It is not an
// exception (those are claims that resgen is right): it is a ratchet, so
// that CI fails on any failure beyond the listed ones while they are
// being fixed, and on an entry whose failures are gone (a fixed defect
// must leave the list). `make conformance` does not read it: there every
// open defect is a failure.
type OpenDefect struct {
	Spec      string `yaml:"spec"`
	Operation string `yaml:"operation"`
	Kind      string `yaml:"kind"`
	Count     int    `yaml:"count"`
	// Example is the first failure's detail, for the reader of the list.
	Example string `yaml:"example"`
}

//go:embed open-defects.yaml
var openDefectsYAML []byte

// DefaultOpenDefects are the checked-in open defects.
func DefaultOpenDefects() ([]OpenDefect, error) {
	var list []OpenDefect
	if err := yaml.Unmarshal(openDefectsYAML, &list); err != nil {
		return nil, fmt.Errorf("open-defects.yaml: %w", err)
	}
	for i, d := range list {
		if d.Spec == "" || d.Kind == "" || d.Count <= 0 {
			return nil, fmt.Errorf("open-defects.yaml: entry %d needs spec, kind and a count", i+1)
		}
	}
	return list, nil
}

type defectKey struct{ spec, op, kind string }

func keyOf(spec string, f Failure) defectKey {
	return defectKey{filepath.Base(spec), f.Operation, f.Kind}
}

// ApplyOpenDefects marks as open the failures the list counts, at most
// Count of each entry; an entry none of whose failures remain is itself a
// failure, and one with fewer is noted, so the list only shrinks.
func ApplyOpenDefects(rep *Report, list []OpenDefect) {
	base := filepath.Base(rep.Spec)
	left := map[defectKey]int{}
	for _, d := range list {
		if d.Spec == base {
			left[defectKey{d.Spec, d.Operation, d.Kind}] += d.Count
		}
	}
	seen := map[defectKey]int{}
	for i := range rep.Failures {
		f := &rep.Failures[i]
		if f.Excepted != "" || f.Kind == "exception" {
			continue
		}
		k := keyOf(rep.Spec, *f)
		if seen[k] < left[k] {
			seen[k]++
			f.Open = true
		}
	}
	for _, d := range list {
		k := defectKey{d.Spec, d.Operation, d.Kind}
		if d.Spec != base {
			continue
		}
		switch n := seen[k]; {
		case n == 0:
			rep.Failures = append(rep.Failures, Failure{Operation: d.Operation, Kind: "exception",
				Detail: fmt.Sprintf("open defect no longer fails (kind %s, %d listed): remove it from open-defects.yaml", d.Kind, d.Count)})
			seen[k] = -1 // reported once
		case n > 0 && n < left[k]:
			rep.Notes = append(rep.Notes, fmt.Sprintf("open defect %s %s: %d of %d listed still fail; lower its count", d.Operation, d.Kind, n, left[k]))
			seen[k] = -1
		}
	}
}

// WriteOpenDefects writes the list that covers every failure of reports
// no exception covers (how open-defects.yaml is made: review it).
func WriteOpenDefects(w io.Writer, reports []*Report) error {
	count := map[defectKey]int{}
	example := map[defectKey]string{}
	for _, r := range reports {
		for _, f := range r.Failures {
			if f.Excepted != "" || f.Kind == "exception" {
				continue
			}
			k := keyOf(r.Spec, f)
			if count[k] == 0 {
				example[k] = oneLine(f.Detail)
			}
			count[k]++
		}
	}
	keys := make([]defectKey, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.spec != b.spec {
			return a.spec < b.spec
		}
		if a.op != b.op {
			return a.op < b.op
		}
		return a.kind < b.kind
	})
	list := make([]OpenDefect, 0, len(keys))
	for _, k := range keys {
		list = append(list, OpenDefect{Spec: k.spec, Operation: k.op, Kind: k.kind, Count: count[k], Example: example[k]})
	}
	enc := yaml.NewEncoder(w)
	defer enc.Close()
	return enc.Encode(list)
}
