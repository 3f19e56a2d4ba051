package runtime

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/resgen/resgen/internal/rawval"
	"github.com/resgen/resgen/runtime/wire"
)

// Overrides adjusts a client's generated policies when it is built, so an
// operator can tighten a threshold or a timeout without regenerating:
// breakers by instance name, retry policies by name, timeouts by operation
// name (operationId). Only the keys given change; every value obeys the
// rules resgen applies to the spec's x-resilience (the same code checks
// both). An override cannot give retries to an operation that has none.
//
// Overrides are read from JSON with x-resilience's own key names and
// duration strings:
//
//	{
//	  "breakers":   {"pets": {"minimumCalls": 10, "failureRateThreshold": 25}},
//	  "retries":    {"quick": {"maxAttempts": 2}},
//	  "operations": {"listPets": {"timeout": "1s", "totalTimeout": "3s"}}
//	}
//
// An unknown key is an error when parsed; a name the client does not have,
// or a value that breaks a rule with the policy it adjusts (windowSize on a
// time window), is an error when the client is built.
type Overrides struct {
	breakers, retries, operations map[string]map[string]any
}

// The sections of an overrides document.
var overrideSections = []string{"breakers", "retries", "operations"}

// ParseOverrides reads overrides from a JSON document (see Overrides).
func ParseOverrides(data []byte) (*Overrides, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("overrides: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("overrides: more than one JSON value")
	}
	if doc == nil {
		return nil, errors.New("overrides: the document must be a JSON object")
	}
	// encoding/json keeps the last of two equal keys: the first would be
	// dropped without a word.
	if err := duplicateKey(json.NewDecoder(bytes.NewReader(data)), ""); err != nil {
		return nil, err
	}
	return overridesOf(doc)
}

// duplicateKey reports a key given twice in one object of a valid JSON
// document, reading its next value from dec; where is the value's path.
func duplicateKey(dec *json.Decoder, where string) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	switch t {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			k, _ := dec.Token()
			key := k.(string)
			if seen[key] {
				return fmt.Errorf("overrides: %q is given twice in %s", key, cmp.Or(where, "the document"))
			}
			seen[key] = true
			if err := duplicateKey(dec, strings.TrimPrefix(where+"."+key, ".")); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	case json.Delim('['):
		for dec.More() {
			if err := duplicateKey(dec, where); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	}
	return err
}

// MaxOverridesBytes bounds an overrides file that LoadOverrides (or
// overridesyaml.Load) reads: overrides are a few policies, and a path that
// names /dev/zero, or a file that keeps growing, must not make the host
// application read without end.
const MaxOverridesBytes = 1 << 20

// LoadOverrides reads overrides from a JSON file of at most
// MaxOverridesBytes; its errors name the file.
func LoadOverrides(path string) (*Overrides, error) {
	data, err := readOverridesFile(path)
	if err != nil {
		return nil, err
	}
	o, err := ParseOverrides(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return o, nil
}

// readOverridesFile reads the file at path, refusing one larger than
// MaxOverridesBytes without reading past that: what LoadOverrides reads,
// for readers of other formats too (overridesyaml, through impl).
func readOverridesFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxOverridesBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxOverridesBytes {
		return nil, fmt.Errorf("%s: overrides: larger than %d MiB: an overrides file adjusts a few policies", path, MaxOverridesBytes>>20)
	}
	return data, nil
}

func overridesOf(doc map[string]any) (*Overrides, error) {
	o := &Overrides{}
	var errs []error
	for _, sec := range slices.Sorted(maps.Keys(doc)) {
		v := doc[sec]
		var dst *map[string]map[string]any
		switch sec {
		case "breakers":
			dst = &o.breakers
		case "retries":
			dst = &o.retries
		case "operations":
			dst = &o.operations
		default:
			msg := fmt.Sprintf("overrides: unknown key %q; the keys are %s", sec, strings.Join(overrideSections, ", "))
			if s := rawval.Suggest(sec, overrideSections); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			errs = append(errs, errors.New(msg))
			continue
		}
		names, ok := v.(map[string]any)
		if !ok {
			errs = append(errs, fmt.Errorf("overrides: %s must be an object of names, got %s", sec, rawval.Show(v)))
			continue
		}
		*dst = make(map[string]map[string]any, len(names))
		for _, name := range slices.Sorted(maps.Keys(names)) {
			what := overrideWhat(sec, name)
			m, ok := names[name].(map[string]any)
			if !ok {
				errs = append(errs, fmt.Errorf("overrides: %s must be an object, got %s", what, rawval.Show(names[name])))
				continue
			}
			// Check the values now, against the defaults; what depends on
			// the policy adjusted (windowSize on a time window) is checked
			// when the client is built.
			var err error
			switch sec {
			case "breakers":
				p := DefaultBreakerPolicy()
				err = decodeBreaker(&p, m)
			case "retries":
				p := DefaultRetryPolicy()
				err = decodeRetry(&p, m)
			default:
				var s operationSpec
				err = decodeTimeouts(&s, m)
			}
			for _, pe := range wire.PolicyErrors(err) {
				if !pe.Relation {
					errs = append(errs, overrideErr(what, pe))
				}
			}
			(*dst)[name] = m
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return o, nil
}

func overrideWhat(section, name string) string {
	kind := map[string]string{"breakers": "breaker", "retries": "retry policy", "operations": "operation"}[section]
	return fmt.Sprintf("%s %q", kind, name)
}

func overrideErr(what string, pe *wire.PolicyError) error {
	msg := "overrides: " + what + ": " + pe.Msg
	if pe.Hint != "" {
		msg += " (fix: " + pe.Hint + ")"
	}
	return errors.New(msg)
}

// overrideState is what an engine with overrides remembers while the
// client registers its breakers and operations.
type overrideState struct {
	o    *Overrides
	errs []error
	// retried holds each retry policy as overridden, so operations that
	// share a policy keep sharing one.
	retried map[*RetryPolicy]*RetryPolicy
	// seen names the retry policies and operations registered.
	retries, operations map[string]bool
}

// breaker returns p with the override for the breaker instance name.
// Called with e.mu held.
func (s *overrideState) breaker(name string, p BreakerPolicy) BreakerPolicy {
	m, ok := s.o.breakers[name]
	if !ok {
		return p
	}
	q := p
	if err := decodeBreaker(&q, m); err != nil {
		s.fail(overrideWhat("breakers", name), err)
		return p
	}
	return q
}

// operation returns spec with the overrides for its retry policy and its
// timeouts. Called with e.mu held.
func (s *overrideState) operation(spec operationSpec) operationSpec {
	s.operations[spec.Name] = true
	if m, ok := s.o.operations[spec.Name]; ok {
		q := spec
		if err := decodeTimeouts(&q, m); err != nil {
			s.fail(overrideWhat("operations", spec.Name), err)
		} else {
			spec.Timeout, spec.TotalTimeout, spec.IdleTimeout, spec.Resume = q.Timeout, q.TotalTimeout, q.IdleTimeout, q.Resume
		}
	}
	// No retry policy, no retries: an override only adjusts one.
	if spec.Retry == nil {
		return spec
	}
	s.retries[spec.Retry.Policy] = true
	if r, ok := s.retried[spec.Retry]; ok {
		spec.Retry = r
		return spec
	}
	m, ok := s.o.retries[spec.Retry.Policy]
	if !ok {
		return spec
	}
	q := *spec.Retry
	if err := decodeRetry(&q, m); err != nil {
		s.fail(overrideWhat("retries", spec.Retry.Policy), err)
		return spec
	}
	s.retried[spec.Retry] = &q
	spec.Retry = &q
	return spec
}

func (s *overrideState) fail(what string, err error) {
	for _, pe := range wire.PolicyErrors(err) {
		s.errs = append(s.errs, overrideErr(what, pe))
	}
}

// CheckOverrides reports what the config's Overrides could not do: a value
// that breaks a rule with the policy it adjusts, or a name that no breaker,
// retry policy or operation registered so far carries. The generated
// NewClient calls it once every operation is registered, and fails with
// its error.
func (e *engine) CheckOverrides() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.ov
	if s == nil {
		return nil
	}
	errs := append([]error(nil), s.errs...)
	missing := func(kind string, given map[string]map[string]any, has func(string) bool, known []string, list bool) {
		for _, name := range slices.Sorted(maps.Keys(given)) {
			if has(name) {
				continue
			}
			msg := fmt.Sprintf("overrides: this client has no %s %q", kind, name)
			if sg := rawval.Suggest(name, known); sg != "" {
				msg += fmt.Sprintf("; did you mean %q?", sg)
			} else if list && len(known) > 0 {
				msg += fmt.Sprintf(" (it has %s)", strings.Join(known, ", "))
			} else if list {
				msg += fmt.Sprintf(" (it has no %s)", kind)
			}
			errs = append(errs, errors.New(msg))
		}
	}
	missing("breaker", s.o.breakers, func(n string) bool { return e.breakers[n] != nil }, slices.Sorted(maps.Keys(e.breakers)), true)
	missing("retry policy", s.o.retries, func(n string) bool { return s.retries[n] }, slices.Sorted(maps.Keys(s.retries)), true)
	// A client may have thousands of operations: suggest, do not list.
	missing("operation", s.o.operations, func(n string) bool { return s.operations[n] }, slices.Sorted(maps.Keys(s.operations)), false)
	return errors.Join(errs...)
}
