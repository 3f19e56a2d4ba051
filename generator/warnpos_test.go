package generator

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// TestCorpusWarningsHaveLines: no warning of a real spec (those TestCorpus
// takes by default, under 2 MB) lacks a line, except the kinds below,
// which are about no one place.
func TestCorpusWarningsHaveLines(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	// Kinds of warning about no one node, by the start of the message.
	unplaced := []string{
		"spec does not validate:", // when kin-openapi's error names no section
	}
	counts := map[string]int{}
	total := 0
	for _, spec := range corpusSpecs(t) {
		if corpusSize(spec) >= 2<<20 {
			continue
		}
		res, err := Check(context.Background(), Config{Spec: spec, Package: "p"})
		var diags Diagnostics
		var ie *InputError
		switch {
		case errors.As(err, &ie):
			diags = ie.Diags
		case err != nil:
			t.Errorf("%s: %v", spec, err)
			continue
		default:
			diags = res.Diags
		}
	next:
		for _, d := range diags {
			total++
			if d.Line > 0 {
				continue
			}
			for _, u := range unplaced {
				if strings.HasPrefix(d.Msg, u) {
					counts["(allowed) "+u]++
					continue next
				}
			}
			counts[firstWords(d.Msg)]++
			t.Errorf("%s: no line: %s", spec, d)
		}
	}
	var rows []string
	for k, n := range counts {
		rows = append(rows, fmt.Sprintf("%5d %s", n, k))
	}
	sort.Strings(rows)
	t.Logf("%d diagnostics; without a line:\n%s", total, strings.Join(rows, "\n"))
}

func firstWords(s string) string {
	if f := strings.Fields(s); len(f) > 4 {
		return strings.Join(f[:4], " ")
	}
	return s
}
