package conformance

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
)

// PrintTable writes one row per spec; verbose adds each failure and each
// operation never called.
func PrintTable(w io.Writer, reports []*Report, verbose bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "spec\toperations\tcalls\trequests valid\tresponses decoded\tround-tripped\texcepted\tnever called\tknown\tfailures\ttime\t")
	var total time.Duration
	for _, r := range reports {
		failed := 0
		for _, f := range r.Failures {
			if f.Excepted == "" {
				failed++
			}
		}
		total += r.Duration
		name := filepath.Base(r.Spec)
		if r.Repaired {
			name += " (repaired)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d/%d\t%d/%d\t%d/%d\t%d\t%d\t%d\t%d\t%.1fs\t\n", name, r.Operations, r.Calls,
			r.Valid, r.Calls, r.Decoded, r.Calls, r.RoundTripped, r.Checked, r.Exceptions, len(r.NeverCalled), r.Known, failed, r.Duration.Seconds())
	}
	tw.Flush()
	for _, r := range reports {
		if r.ErrorAnswers > 0 {
			fmt.Fprintf(w, "%s: note: %d calls were answered with a declared 4xx or default JSON body (the typed field must be set, no error)\n", filepath.Base(r.Spec), r.ErrorAnswers)
		}
		if r.Warned > 0 {
			fmt.Fprintf(w, "%s: note: %d failures are what resgen's own unsupported: warnings say (excepted, listed with -v)\n", filepath.Base(r.Spec), r.Warned)
		}
		var kinds []string
		for _, k := range []struct {
			name string
			c    Coverage
		}{{"downloads", r.Downloads}, {"uploads", r.Uploads}, {"streams", r.Streams}} {
			if k.c.Operations+k.c.Calls > 0 {
				kinds = append(kinds, k.name+" "+k.c.String())
			}
		}
		if len(kinds) > 0 {
			fmt.Fprintf(w, "%s: note: bodies judged byte for byte (event by event): %s\n", filepath.Base(r.Spec), strings.Join(kinds, "; "))
		}
		for _, n := range r.Notes {
			fmt.Fprintf(w, "%s: note: %s\n", filepath.Base(r.Spec), n)
		}
		if !verbose {
			continue
		}
		if len(r.Phases) > 0 {
			var b strings.Builder
			for _, ph := range r.Phases {
				fmt.Fprintf(&b, " %s %.1fs", ph.Name, ph.Took.Seconds())
			}
			fmt.Fprintf(w, "%s: time:%s\n", filepath.Base(r.Spec), b.String())
		}
		for _, f := range r.Failures {
			tag := "FAIL"
			if f.Excepted != "" {
				tag = "excepted (" + f.Excepted + ")"
			}
			op := f.Operation
			if f.OpID != "" && f.OpID != op {
				op += " (" + f.OpID + ")"
			}
			if f.Call != "" {
				op += " [" + f.Call + "]"
			}
			kind := f.Kind
			if f.At != "" {
				kind += " at " + f.At
			}
			fmt.Fprintf(w, "%s: %s %s: %s: %s\n", filepath.Base(r.Spec), tag, op, kind, f.Detail)
		}
		for _, op := range r.NeverCalled {
			fmt.Fprintf(w, "%s: never called %s (its synth failures say why)\n", filepath.Base(r.Spec), op)
		}
	}
	_ = total
}
