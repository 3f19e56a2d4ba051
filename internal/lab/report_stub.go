package lab

// TEMPORARY stubs of the report writer's methods (helper D writes them in
// report.go), so the CLI builds before the merge. Delete at merge.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Text is a stub: the title line and the tables' rows, unaligned.
func (r *Report) Text(w io.Writer) error {
	fmt.Fprintf(w, "resgen lab %s: %s (%s), speed %g\n", r.Scenario, r.Operation, r.Spec, r.Speed)
	for _, t := range r.Tables {
		fmt.Fprintln(w, t.Title)
		fmt.Fprintln(w, t.Columns)
		for _, row := range t.Rows {
			fmt.Fprintln(w, row)
		}
	}
	return nil
}

// WriteDir is a stub: report.md only, not atomically; it returns the
// names written in dir, as report.go's does.
func (r *Report) WriteDir(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f := filepath.Join(dir, "report.md")
	fh, err := os.Create(f)
	if err != nil {
		return nil, err
	}
	err = r.Text(fh)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return []string{"report.md"}, err
}
