package conformance

import (
	"bufio"
	_ "embed"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
)

// known-failures.txt lists, until they are fixed, the failures of the
// corpus that are neither resgen's wire defects fixed by now nor excused
// by a proven construct: almost all are calls the harness cannot yet
// synthesize (kind synth). It is a ratchet for CI, not an exception: a
// failure it does not list fails the run, and so does an entry that no
// longer fails (delete it). Each line is one failure's key, tab-separated:
// spec, operation, call, kind, place. Written by
// go run ./scripts/conformance -write-known FILE.
//
//go:embed known-failures.txt
var knownFailuresTxt string

// knownKey is what a known-failures line holds of a failure: no detail
// (values and kin's wording change), its place instead.
func knownKey(spec string, f Failure) string {
	clean := func(s string) string { return strings.NewReplacer("\t", " ", "\n", " ").Replace(s) }
	return strings.Join([]string{filepath.Base(spec), clean(f.Operation), clean(f.Call), f.Kind, clean(f.At)}, "\t")
}

// KnownFailures are the keys of known-failures.txt, with how many
// failures of each key are known.
func KnownFailures() map[string]int {
	out := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(knownFailuresTxt))
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			out[line]++
		}
	}
	return out
}

// ApplyKnown marks the failures of rep that known lists (as many of each
// key as it lists), and adds a failure for each listed key of rep's spec
// that failed fewer times than listed: a fixed failure leaves the list.
func ApplyKnown(rep *Report, known map[string]int) {
	left := map[string]int{}
	spec := filepath.Base(rep.Spec) + "\t"
	for k, n := range known {
		if strings.HasPrefix(k, spec) {
			left[k] = n
		}
	}
	for i := range rep.Failures {
		f := &rep.Failures[i]
		if f.Excepted != "" {
			continue
		}
		k := knownKey(rep.Spec, *f)
		if left[k] > 0 {
			left[k]--
			f.Excepted = "known: listed in tools/conformance/known-failures.txt (to fix)"
			rep.Known++
		}
	}
	var gone []string
	for k, n := range left {
		if n > 0 {
			gone = append(gone, k)
		}
	}
	sort.Strings(gone)
	for _, k := range gone {
		rep.Failures = append(rep.Failures, Failure{Kind: "known", Detail: fmt.Sprintf("known failure no longer fails (%d fewer): delete it from known-failures.txt: %q", left[k], k)})
	}
}

// WriteKnown writes the known-failures list that covers reports'
// unexcused failures.
func WriteKnown(w io.Writer, reports []*Report) error {
	var lines []string
	for _, r := range reports {
		for _, f := range r.Failures {
			if f.Excepted == "" && f.Kind != "known" {
				lines = append(lines, knownKey(r.Spec, f))
			}
		}
	}
	sort.Strings(lines)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Failures of the corpus left to fix (see known.go): spec, operation, call, kind, place.\n# %d failures.\n", len(lines))
	for _, l := range lines {
		fmt.Fprintln(bw, l)
	}
	return bw.Flush()
}
