package diag

import (
	"fmt"
	"testing"
)

func TestStringIsFileLineColThenPointerAndFix(t *testing.T) {
	d := Diagnostic{Severity: Error, File: "spec.yaml", Line: 3, Col: 7, Pointer: "#/paths/~1a", Msg: "bad \x1b[2J", Hint: "fix it"}
	want := "spec.yaml:3:7: error: bad \\x1b[2J\n\tat #/paths/~1a\n\tfix: fix it"
	if got := d.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := (Diagnostic{Severity: Warning, File: "f", Line: 2, Msg: "m"}).String(); got != "f:2: warning: m" {
		t.Errorf("without a column: %q", got)
	}
}

func TestSortDedupeAndErrors(t *testing.T) {
	ds := Diagnostics{
		{Severity: Warning, File: "b", Line: 1, Msg: "w"},
		{Severity: Error, File: "a", Line: 9, Msg: "e"},
		{Severity: Warning, File: "a", Line: 2, Col: 5, Msg: "z"},
		{Severity: Warning, File: "a", Line: 2, Col: 5, Msg: "y"},
		{Severity: Warning, File: "b", Line: 1, Msg: "w"},
	}
	ds = ds.Dedupe()
	ds.Sort()
	var got []string
	for _, d := range ds {
		got = append(got, fmt.Sprintf("%s:%d:%d:%s", d.File, d.Line, d.Col, d.Msg))
	}
	if fmt.Sprint(got) != "[a:2:5:y a:2:5:z a:9:0:e b:1:0:w]" {
		t.Errorf("sorted and deduped: %v", got)
	}
	if !ds.HasErrors() || ds[:2].HasErrors() {
		t.Error("HasErrors")
	}
	var err error = fmt.Errorf("wrapped: %w", &InputError{Diags: ds})
	if !IsInputError(err) || IsInputError(fmt.Errorf("other")) {
		t.Error("IsInputError")
	}
	if got := ds.Error(); got != "a:9: error: e" {
		t.Errorf("Error() lists the errors only: %q", got)
	}
}
