package conformance

import (
	"strings"
	"testing"
)

// The open-defects list is a ratchet: it covers at most what it counts,
// and an entry whose failures are gone fails the run until it is removed.
func TestOpenDefectsRatchet(t *testing.T) {
	fails := func(n int) *Report {
		r := &Report{Spec: "/x/spec.yaml"}
		for range n {
			r.Failures = append(r.Failures, Failure{Operation: "GetPet", Kind: "value", Detail: "d"})
		}
		return r
	}
	list := []OpenDefect{{Spec: "spec.yaml", Operation: "GetPet", Kind: "value", Count: 2}}

	r := fails(2)
	ApplyOpenDefects(r, list)
	if r.Failed() {
		t.Fatalf("the listed failures fail the run: %+v", r.Failures)
	}
	r = fails(3)
	ApplyOpenDefects(r, list)
	if !r.Failed() {
		t.Fatal("a failure beyond the listed count passes")
	}
	r = fails(1)
	ApplyOpenDefects(r, list)
	if r.Failed() || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "lower its count") {
		t.Fatalf("fewer failures than listed: failed %v, notes %q", r.Failed(), r.Notes)
	}
	r = fails(0)
	ApplyOpenDefects(r, list)
	if !r.Failed() {
		t.Fatal("an entry whose failures are gone passes")
	}
	r = fails(2)
	r.Failures[1].Operation = "ListPets"
	ApplyOpenDefects(r, list)
	if r.Failures[1].Open {
		t.Fatal("an entry covers another operation's failure")
	}
	var b strings.Builder
	if err := WriteOpenDefects(&b, []*Report{fails(3)}); err != nil || !strings.Contains(b.String(), "count: 3") {
		t.Fatalf("WriteOpenDefects: %v\n%s", err, b.String())
	}
}
