package conformance

import (
	"strings"
	"testing"
)

// The known-failures ratchet accepts what it lists, as many times as it
// lists it, and nothing else; a listed failure that is gone fails the run.
func TestKnownFailuresRatchet(t *testing.T) {
	listed := Failure{Operation: "GetA", Call: "all parameters", Kind: "synth", At: ""}
	other := Failure{Operation: "GetB", Call: "all parameters", Kind: "body", At: "body /zeta"}
	known := map[string]int{knownKey("x/spec.yaml", listed): 1, knownKey("spec.yaml", Failure{Operation: "GetC", Kind: "synth"}): 1,
		knownKey("other.yaml", other): 1}

	rep := &Report{Spec: "testdata/spec.yaml", Failures: []Failure{listed, listed, other}}
	ApplyKnown(rep, known)
	if rep.Failures[0].Excepted == "" {
		t.Error("the listed failure is not accepted")
	}
	if rep.Failures[1].Excepted != "" {
		t.Error("a second failure of a key listed once is accepted")
	}
	if rep.Failures[2].Excepted != "" {
		t.Error("a failure listed for another spec is accepted")
	}
	var gone []Failure
	for _, f := range rep.Failures {
		if f.Kind == "known" {
			gone = append(gone, f)
		}
	}
	if len(gone) != 1 || !strings.Contains(gone[0].Detail, "GetC") {
		t.Errorf("want one failure for the listed GetC that no longer fails; got %+v", gone)
	}
	if !rep.Failed() || rep.Known != 1 {
		t.Errorf("failed %v, known %d; want failed, 1 known", rep.Failed(), rep.Known)
	}
}

// The checked-in list parses: every line has its five fields.
func TestKnownFailuresFile(t *testing.T) {
	for k := range KnownFailures() {
		if n := len(strings.Split(k, "\t")); n != 5 {
			t.Errorf("known-failures.txt: %d fields, want 5: %q", n, k)
		}
	}
}
