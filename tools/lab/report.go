package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/resgen/resgen/internal/atomicfile"
	"github.com/resgen/resgen/internal/sanitize"
)

// Report is what a scenario run gives: everything `resgen lab` prints
// (Tables), writes to report.md (all of it), results.json (Results and
// the tables) and one SVG per plot.
type Report struct {
	// Scenario is the scenario's name ("storm").
	Scenario string `json:"scenario"`
	// Spec and Operation name what ran; Policy says it in words (the
	// spec's breaker and retry, as explain says them).
	Spec      string `json:"spec"`
	Operation string `json:"operation"`
	Policy    string `json:"policy"`
	// Speed is Options.Speed; tables say a run was sped up when it is > 1.
	Speed float64 `json:"speed"`
	// Started is when the run began; Took how long it ran (wall time).
	// results.json has Took in seconds (MarshalJSON).
	Started time.Time     `json:"started"`
	Took    time.Duration `json:"tookS"`
	// Setup describes the scenario's model, one line each ("50 users × 5
	// requests, no think time", "capacity 10 concurrent × 200ms").
	Setup []string `json:"setup"`
	// Tables are printed in order; the first is the headline.
	Tables []Table `json:"tables"`
	// Plots each become NAME.svg.
	Plots []Plot `json:"-"`
	// Log holds log lines worth showing (a breaker's "opened: slow-call
	// rate ..." line), as the runtime wrote them.
	Log []string `json:"log,omitempty"`
	// Findings are short conclusions, one line each ("the breaker opened
	// on slow calls alone after 10 calls").
	Findings []string `json:"findings,omitempty"`
	// Results are the scenario's numbers in machine form (its own struct).
	Results any `json:"results"`
}

// Table is a titled table of text cells. Columns are right-aligned
// except the first.
type Table struct {
	Title   string     `json:"title"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
	// Notes are printed under the table.
	Notes []string `json:"notes,omitempty"`
}

// Plot is a line chart over time, one line per series.
type Plot struct {
	// Name is the file stem (NAME.svg), Title the chart's title.
	Name, Title string
	// XLabel and YLabel label the axes ("time (s)", "in-flight requests").
	XLabel, YLabel string
	Series         []Series
	// Marks are vertical lines with a label ("server down", "open").
	Marks []Mark
	// Step draws each series as a step function (counts, states) instead
	// of straight segments.
	Step bool
}

// Series is one line of a plot; X ascending.
type Series struct {
	Name   string
	Points []Point
}

// Point is an (x, y) pair in the plot's units.
type Point struct{ X, Y float64 }

// Mark is a labelled vertical line at X.
type Mark struct {
	X     float64
	Label string
}

// SpedUp is the line that says a run was sped up ("" at real speed); the
// writer puts it under the title and under every table.
func SpedUp(speed float64) string {
	if !(speed > 1) {
		return ""
	}
	n := strconv.FormatFloat(speed, 'g', -1, 64)
	return "sped up ×" + n + ": every duration ÷" + n
}

// title is the report's one-line name.
func (r *Report) title() string {
	return "resgen lab " + r.Scenario + " · " + r.Operation + " (" + r.Spec + ")"
}

// setup is Report.Setup without a sped-up line of its own (the writer
// says it once, from Speed).
func (r *Report) setup() []string {
	var out []string
	for _, s := range r.Setup {
		if !strings.HasPrefix(s, "sped up ×") {
			out = append(out, s)
		}
	}
	return out
}

// notes are a table's notes with the sped-up line added when the run was
// sped up and the scenario did not say it, so a table copied on its own
// still says so.
func (r *Report) notes(t Table) []string {
	su := SpedUp(r.Speed)
	if su == "" || slices.ContainsFunc(t.Notes, func(n string) bool { return strings.HasPrefix(n, "sped up ×") }) {
		return t.Notes
	}
	return append(slices.Clip(t.Notes), su)
}

// Text writes the report for a terminal: the title, the speed, the
// policy and setup, each table aligned (first column left, the others
// right, widths in runes) with its notes, the log and the findings. Every
// string goes through sanitize.Terminal, so spec text cannot drive the
// terminal.
func (r *Report) Text(w io.Writer) error {
	var b bytes.Buffer
	line := func(indent, s string) { b.WriteString(indent + sanitize.Terminal(s) + "\n") }
	line("", r.title())
	if su := SpedUp(r.Speed); su != "" {
		line("", su)
	}
	if r.Policy != "" {
		line("", "policy: "+r.Policy)
	}
	for _, s := range r.setup() {
		line("  ", s)
	}
	for _, t := range r.Tables {
		b.WriteString("\n")
		if t.Title != "" {
			line("", t.Title)
		}
		writeAligned(&b, t)
		for _, n := range r.notes(t) {
			line("  ", n)
		}
	}
	if len(r.Log) > 0 {
		b.WriteString("\nlog:\n")
		for _, l := range r.Log {
			line("  ", strings.TrimRight(l, "\n"))
		}
	}
	if len(r.Findings) > 0 {
		b.WriteString("\nfindings:\n")
		for _, f := range r.Findings {
			line("  • ", f)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeAligned writes t's header, a rule and its rows, two spaces apart.
func writeAligned(b *bytes.Buffer, t Table) {
	cols := len(t.Columns)
	for _, row := range t.Rows {
		cols = max(cols, len(row))
	}
	if cols == 0 {
		return
	}
	clean := func(row []string) []string {
		out := make([]string, cols)
		for i, c := range row {
			out[i] = sanitize.Terminal(c)
		}
		return out
	}
	lines := [][]string{clean(t.Columns)}
	for _, row := range t.Rows {
		lines = append(lines, clean(row))
	}
	width := make([]int, cols)
	for _, l := range lines {
		for i, c := range l {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	total := 2 * (cols - 1)
	for _, w := range width {
		total += w
	}
	for n, l := range lines {
		var s strings.Builder
		s.WriteString("  ")
		for i, c := range l {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i == 0 {
				s.WriteString(c + pad)
			} else {
				s.WriteString("  " + pad + c)
			}
		}
		b.WriteString(strings.TrimRight(s.String(), " ") + "\n")
		if n == 0 {
			b.WriteString("  " + strings.Repeat("─", total) + "\n")
		}
	}
}

// Markdown returns report.md: the title, what ran and when, the speed,
// policy and setup, each table as a GitHub table, each plot embedded as
// its SVG, the log in a fence nothing in it can close, and the findings.
// Text is escaped (md) so that spec text shows as typed.
func (r *Report) Markdown() []byte {
	var b bytes.Buffer
	b.WriteString("# " + md(r.title()) + "\n\n")
	b.WriteString("- scenario: " + md(r.Scenario) + "\n")
	b.WriteString("- spec: " + md(r.Spec) + "\n")
	b.WriteString("- operation: " + md(r.Operation) + "\n")
	if !r.Started.IsZero() {
		b.WriteString("- ran: " + r.Started.UTC().Format("2006-01-02 15:04:05 UTC") + ", took " + r.Took.Round(time.Millisecond).String() + " (wall time)\n")
	}
	if su := SpedUp(r.Speed); su != "" {
		b.WriteString("- speed: " + md(su) + "; the numbers below are in scenario time\n")
	} else {
		b.WriteString("- speed: real time\n")
	}
	if r.Policy != "" {
		b.WriteString("- policy: " + md(r.Policy) + "\n")
	}
	if s := r.setup(); len(s) > 0 {
		b.WriteString("\n## Setup\n\n")
		for _, l := range s {
			b.WriteString("- " + md(l) + "\n")
		}
	}
	for i, t := range r.Tables {
		title := t.Title
		if title == "" {
			title = "Table " + strconv.Itoa(i+1)
		}
		b.WriteString("\n## " + md(title) + "\n\n")
		writeMarkdownTable(&b, t)
		for _, n := range r.notes(t) {
			b.WriteString("\n" + md(n) + "\n")
		}
	}
	if len(r.Plots) > 0 {
		b.WriteString("\n## Plots\n")
		for i, name := range plotFiles(r.Plots) {
			b.WriteString("\n![" + md(r.Plots[i].Title) + "](" + name + ")\n")
		}
	}
	if len(r.Log) > 0 {
		lines := make([]string, len(r.Log))
		for i, l := range r.Log {
			lines[i] = sanitize.Comment(l)
		}
		fence := strings.Repeat("`", max(3, longestRun(lines, '`')+1))
		b.WriteString("\n## Log\n\n" + fence + "text\n")
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
		b.WriteString(fence + "\n")
	}
	if len(r.Findings) > 0 {
		b.WriteString("\n## Findings\n\n")
		for _, f := range r.Findings {
			b.WriteString("- " + md(f) + "\n")
		}
	}
	return b.Bytes()
}

func writeMarkdownTable(b *bytes.Buffer, t Table) {
	cols := len(t.Columns)
	for _, row := range t.Rows {
		cols = max(cols, len(row))
	}
	if cols == 0 {
		return
	}
	row := func(cells []string) {
		b.WriteString("|")
		for i := range cols {
			c := ""
			if i < len(cells) {
				c = md(cells[i])
			}
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	row(t.Columns)
	b.WriteString("| :---")
	b.WriteString(strings.Repeat(" | ---:", cols-1))
	b.WriteString(" |\n")
	for _, r := range t.Rows {
		row(r)
	}
}

// md makes s one line of markdown text that shows as s: control
// characters become spaces (a newline cannot end a table row or start a
// block), and every character markdown gives a meaning to inline (emphasis,
// code, links, HTML, entities, table cells, GitHub's math) is
// backslash-escaped, as is one that would start a block at a line's start
// (heading, list, quote, setext underline).
func md(s string) string {
	s = strings.TrimLeft(sanitize.Comment(s), " ")
	var b strings.Builder
	for i, c := range s {
		switch c {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '~', '&', '$', '!':
			b.WriteByte('\\')
		case '#', '=':
			if i == 0 {
				b.WriteByte('\\')
			}
		case '-', '+':
			// "- x" starts a list, "---" is a rule.
			if i == 0 && (strings.HasPrefix(s[1:], " ") || strings.Trim(s, string(c)+" ") == "") {
				b.WriteByte('\\')
			}
		case '.', ')':
			// "1. x" and "1) x" start an ordered list.
			if i > 0 && strings.Trim(s[:i], "0123456789") == "" && (i+1 == len(s) || s[i+1] == ' ') {
				b.WriteByte('\\')
			}
		}
		b.WriteRune(c)
	}
	return b.String()
}

// longestRun is the length of the longest run of c in any line.
func longestRun(lines []string, c byte) int {
	longest := 0
	for _, l := range lines {
		run := 0
		for i := 0; i < len(l); i++ {
			if l[i] != c {
				run = 0
				continue
			}
			run++
			longest = max(longest, run)
		}
	}
	return longest
}

// plotFiles are the plots' file names, NAME.svg with NAME reduced to
// letters, digits, '-' and '_' (a plot name cannot leave the directory or
// clash with report.md) and numbered when two are the same.
func plotFiles(plots []Plot) []string {
	seen := map[string]bool{}
	names := make([]string, len(plots))
	for i, p := range plots {
		stem := strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
				return r
			}
			return '-'
		}, p.Name)
		stem = strings.Trim(stem, "-")
		if len(stem) > 64 {
			stem = stem[:64]
		}
		if stem == "" {
			stem = "plot"
		}
		name := stem + ".svg"
		for n := 2; seen[strings.ToLower(name)]; n++ {
			name = stem + "-" + strconv.Itoa(n) + ".svg"
		}
		seen[strings.ToLower(name)] = true
		names[i] = name
	}
	return names
}

// jsonReport is results.json: the Report without its plots' data (they
// are the SVGs), with the plots' file names, and Took in seconds.
type jsonReport struct {
	Scenario  string    `json:"scenario"`
	Spec      string    `json:"spec"`
	Operation string    `json:"operation"`
	Policy    string    `json:"policy"`
	Speed     float64   `json:"speed"`
	Started   time.Time `json:"started"`
	TookS     float64   `json:"tookS"`
	Setup     []string  `json:"setup"`
	Tables    []Table   `json:"tables"`
	Plots     []string  `json:"plots"`
	Log       []string  `json:"log,omitempty"`
	Findings  []string  `json:"findings,omitempty"`
	Results   any       `json:"results"`
}

// JSON returns results.json: indented, keys in a fixed order (the
// Report's fields, then Results as its type's fields or a map's sorted
// keys), durations in seconds, and no raw rune a terminal would act on
// when the file is printed (sanitize.JSON).
func (r *Report) JSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r.view()); err != nil {
		return nil, fmt.Errorf("lab: results.json: %w", err)
	}
	return sanitize.JSON(b.Bytes()), nil
}

// MarshalJSON gives results.json's shape (unindented) wherever a Report
// is encoded.
func (r Report) MarshalJSON() ([]byte, error) { return json.Marshal(r.view()) }

func (r *Report) view() jsonReport {
	v := jsonReport{
		Scenario: r.Scenario, Spec: r.Spec, Operation: r.Operation, Policy: r.Policy,
		Speed: r.Speed, Started: r.Started.UTC().Round(0), TookS: r.Took.Seconds(),
		Setup: r.Setup, Tables: r.Tables, Plots: plotFiles(r.Plots),
		Log: r.Log, Findings: r.Findings, Results: r.Results,
	}
	if v.Setup == nil {
		v.Setup = []string{}
	}
	if v.Tables == nil {
		v.Tables = []Table{}
	}
	return v
}

// WriteDir writes report.md, results.json and one SVG per plot into dir,
// creating it, and returns the names written. Nothing is replaced until
// every file is rendered and written in full to a temporary file in dir
// (synced to disk); then each is renamed over its name, so each file is
// either its old self or the new one, never half of either. A dir that
// exists and is not a directory, or a name in it taken by something other
// than a regular file, is an error before anything changes.
func (r *Report) WriteDir(dir string) (files []string, err error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("lab: output directory %s exists and is not a directory", dir)
	}
	js, err := r.JSON()
	if err != nil {
		return nil, err
	}
	type file struct {
		name string
		data []byte
	}
	out := []file{{"report.md", r.Markdown()}, {"results.json", js}}
	for i, name := range plotFiles(r.Plots) {
		out = append(out, file{name, r.Plots[i].SVG()})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lab: output directory: %w", err)
	}
	for _, f := range out {
		if fi, err := os.Lstat(filepath.Join(dir, f.name)); err == nil && !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0 {
			return nil, fmt.Errorf("lab: cannot write %s: it exists and is not a file", filepath.Join(dir, f.name))
		}
	}
	temps := make([]string, 0, len(out))
	defer func() {
		for _, t := range temps {
			os.Remove(t) // gone already when renamed
		}
	}()
	for _, f := range out {
		t, err := writeTemp(dir, f.name, f.data)
		if err != nil {
			return nil, err
		}
		temps = append(temps, t)
	}
	for i, f := range out {
		if err := os.Rename(temps[i], filepath.Join(dir, f.name)); err != nil {
			return files, fmt.Errorf("lab: %w", err)
		}
		files = append(files, f.name)
	}
	// The renames are durable once the directory is synced; a directory
	// that cannot be synced (some file systems) has still been written.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return files, nil
}

// writeTemp writes data to a new temporary file in dir, synced and
// readable like a file os.WriteFile creates, and returns its path.
func writeTemp(dir, name string, data []byte) (string, error) {
	tmp, err := atomicfile.WriteTemp(dir, name, data, 0o644)
	if err != nil {
		return "", fmt.Errorf("lab: writing %s: %w", name, err)
	}
	return tmp, nil
}
