package conformance

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Exception is a claim that a failure is not resgen's, made by construct:
// kin-openapi's openapi3filter judges a construct wrongly, or the spec
// contradicts itself. It covers a failure only
//   - of one of its kinds,
//   - whose detail is what that wrong verdict says (Says), and
//   - whose own place (a parameter, a JSON path in the body or the
//     response) holds the construct: At looks at the oracle's document
//     there, so the claim holds for any spec with the construct, one no one
//     here has seen included, and never for another place of the same call.
//
// Each has a minimal spec in testdata/kin and a test that runs
// kin-openapi on it and asserts the wrong verdict (kin_limits_test.go):
// once kin-openapi is fixed, that test fails and the exception goes.
type Exception struct {
	// Construct names it: "kin: deepObject array", "spec contradiction: ...".
	Construct string
	// Kinds are the failure kinds it covers (request, value, body, ...).
	Kinds []string
	// Says must match the failure's detail.
	Says *regexp.Regexp
	// At reports whether the construct is at the failure's place.
	At func(*site) bool
	// Reason is the claim, for a reviewer to check.
	Reason string
}

// DefaultExceptions are the checked-in exceptions (constructs.go).
func DefaultExceptions() ([]Exception, error) {
	for i, e := range constructs {
		if e.Construct == "" || len(e.Kinds) == 0 || e.Says == nil || e.At == nil || e.Reason == "" {
			return nil, fmt.Errorf("exception %d (%q) needs a construct, kinds, what it says, where it is and a reason", i+1, e.Construct)
		}
	}
	return slices.Clone(constructs), nil
}

// covers reports whether e excuses failure f.
func (e Exception) covers(f Failure) bool {
	if f.site == nil || !slices.Contains(e.Kinds, f.Kind) || !e.Says.MatchString(f.Detail) {
		return false
	}
	return e.At(f.site)
}

// applyExceptions marks the failures an exception covers, and notes how
// many each construct excused.
func applyExceptions(rep *Report, list []Exception) {
	used := map[string]int{}
	for i := range rep.Failures {
		f := &rep.Failures[i]
		if f.Excepted != "" {
			continue
		}
		for _, e := range list {
			if e.covers(*f) {
				f.Excepted = e.Construct + " at " + f.At
				used[e.Construct]++
				rep.Exceptions++
				break
			}
		}
	}
	if len(used) == 0 {
		return
	}
	names := make([]string, 0, len(used))
	for n := range used {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s ×%d", n, used[n])
	}
	rep.Notes = append(rep.Notes, "failures excused by construct (each at its own place): "+b.String())
}
