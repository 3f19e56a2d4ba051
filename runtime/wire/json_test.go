package wire

import (
	"strings"
	"testing"
)

// Allows compares values, not texts: a server may escape a string or
// write a number another way, and the variant is still the one its value
// says.
func TestObjectAllowsComparesValues(t *testing.T) {
	obj := ParseObject([]byte(`{"type": "re\u0064irect", "n": 2.0, "on": true, "none": null, "s": "2"}`))
	for _, tc := range []struct {
		name   string
		values []string
		want   bool
	}{
		{"type", []string{`"redirect"`}, true},
		{"type", []string{`"await"`, `"redirect"`}, true},
		{"type", []string{`"await"`}, false},
		{"n", []string{`2`}, true},
		{"n", []string{`"2"`}, false},
		{"s", []string{`2`}, false},
		{"on", []string{`true`}, true},
		{"on", []string{`false`}, false},
		{"none", []string{`null`}, true},
		{"none", []string{`"null"`}, false},
		// Absent: Has checks what is required.
		{"missing", []string{`"x"`}, true},
	} {
		if got := obj.Allows(tc.name, tc.values...); got != tc.want {
			t.Errorf("Allows(%q, %s) = %v, want %v", tc.name, strings.Join(tc.values, " "), got, tc.want)
		}
	}
	if !obj.AllowsKind("n", KindInteger, KindNumber) || obj.AllowsKind("n", KindInteger) || obj.AllowsKind("s", KindInteger) || !obj.AllowsKind("missing", KindBool) {
		t.Error("AllowsKind does not go by the member's JSON kind")
	}
	if !obj.Within("type", "n", "on", "none", "s", "more") || obj.Within("type", "n") {
		t.Error("Within does not tell whether every member is named")
	}
	if ParseObject([]byte(`[1]`)).Within("a") {
		t.Error("a non-object is within nothing")
	}
	if ParseObject([]byte(`[1]`)).Has() != true || ParseObject([]byte(`[1]`)).Has("a") {
		t.Error("a non-object has no members")
	}
}

// Telling variants apart by a tag costs one parse of the object: Allows
// and Within allocate nothing when the server writes the value as the
// spec does.
func TestObjectChecksDoNotAllocate(t *testing.T) {
	obj := ParseObject([]byte(`{"type":"redirect","url":"https://r.example","id":7}`))
	allocs := testing.AllocsPerRun(100, func() {
		if !obj.Allows("type", `"await"`, `"redirect"`) || !obj.AllowsKind("id", KindInteger) || !obj.Within("id", "type", "url") {
			t.Fatal("checks failed")
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per check", allocs)
	}
}
