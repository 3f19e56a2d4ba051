package conformance

import (
	"fmt"
	"strings"
	"testing"
)

// Every place two values differ is listed, each with its own JSON
// pointer, not only the first.
func TestJSONDiffsListsEveryPlace(t *testing.T) {
	want := map[string]any{"a": 1.0, "b": map[string]any{"c": "x", "d/e": []any{1.0, 2.0}}, "expand": []any{"x"}, "zeta": "z"}
	got := map[string]any{"a": 1.0, "b": map[string]any{"c": "y", "d/e": []any{1.0, 3.0}}, "extra": true}
	var paths []string
	for _, d := range jsonDiffs(want, got) {
		paths = append(paths, d.path)
	}
	if got, want := strings.Join(paths, " "), "/b/c /b/d~1e/1 /expand /extra /zeta"; got != want {
		t.Fatalf("paths %q; want %q", got, want)
	}
	if ds := jsonDiffs(want, want); len(ds) != 0 {
		t.Fatalf("a value differs from itself: %+v", ds)
	}
}

// The list is bounded, and says how many it left out.
func TestJSONDiffsIsBounded(t *testing.T) {
	want, got := map[string]any{}, map[string]any{}
	for i := range maxDiffs + 10 {
		want[fmt.Sprintf("k%03d", i)] = 1.0
		got[fmt.Sprintf("k%03d", i)] = 2.0
	}
	ds := jsonDiffs(want, got)
	if len(ds) != maxDiffs+1 || ds[maxDiffs].path != "…" || !strings.Contains(ds[maxDiffs].text, "10 more differences") {
		t.Fatalf("%d diffs, last %+v", len(ds), ds[len(ds)-1])
	}
}
