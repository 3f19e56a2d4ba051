package lab

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func text(t *testing.T, r *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.Text(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// tableLines are the lines of the table titled title: the header, the
// rule and the rows.
func tableLines(t *testing.T, out, title string, rows int) []string {
	t.Helper()
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if l == title {
			return lines[i+1 : i+3+rows]
		}
	}
	t.Fatalf("no table %q in\n%s", title, out)
	return nil
}

func TestTextAlignsColumnsCountingRunes(t *testing.T) {
	r := fakeReport()
	tab := r.Tables[0]
	out := text(t, r)
	lines := tableLines(t, out, tab.Title, len(tab.Rows))
	cells := append([][]string{tab.Columns}, tab.Rows...)
	width := utf8.RuneCountInString(lines[0])
	for i, l := range lines {
		if utf8.RuneCountInString(l) != width {
			t.Errorf("line %d is %d columns wide, the header %d:\n%s", i, utf8.RuneCountInString(l), width, strings.Join(lines, "\n"))
		}
	}
	if strings.Trim(lines[1], " ─") != "" {
		t.Errorf("second line is not a rule: %q", lines[1])
	}
	// Where each cell starts and ends, in runes: the first column starts
	// at the same place in every row, every other column ends at the same
	// place.
	var firstStart int
	var ends []int
	for n, row := range cells {
		l := lines[n]
		if n > 0 {
			l = lines[n+1]
		}
		at := 0
		for i, c := range row {
			k := strings.Index(l[at:], c)
			if k < 0 {
				t.Fatalf("cell %q not in %q", c, l)
			}
			start := utf8.RuneCountInString(l[:at+k])
			end := start + utf8.RuneCountInString(c)
			at += k + len(c)
			switch {
			case i == 0 && n == 0:
				firstStart = start
			case i == 0:
				if start != firstStart {
					t.Errorf("row %d: first cell starts at %d, header at %d", n, start, firstStart)
				}
			case n == 0:
				ends = append(ends, end)
			case end != ends[i-1]:
				t.Errorf("row %d column %d ends at %d, header at %d (× and → are one column each)", n, i, end, ends[i-1])
			}
		}
	}
}

func TestTextSaysTitleSpeedOnceAndTheRest(t *testing.T) {
	r := fakeReport()
	out := text(t, r)
	lines := strings.Split(out, "\n")
	if lines[0] != "resgen lab storm · listItems (testdata/specs/lab.yaml)" {
		t.Errorf("title %q", lines[0])
	}
	if lines[1] != "sped up ×10: every duration ÷10" {
		t.Errorf("second line %q", lines[1])
	}
	// Once under the title (the scenario's own Setup line is not repeated)
	// and once under the table.
	if n := strings.Count(out, "sped up ×10"); n != 2 {
		t.Errorf("the sped-up line appears %d times, want 2:\n%s", n, out)
	}
	for _, want := range []string{"policy: " + r.Policy, "  50 users × 5 requests, no think time", "  floor = 250 calls / (10 / 200ms) = 5s", "log:\n  " + r.Log[0], "findings:\n  • " + r.Findings[0]} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	r.Speed, r.Setup = 1, r.Setup[:2]
	if out := text(t, r); strings.Contains(out, "sped up") {
		t.Errorf("a real-time run says it was sped up:\n%s", out)
	}
	r.Speed = 2.5
	if out := text(t, r); !strings.Contains(out, "sped up ×2.5: every duration ÷2.5\n") {
		t.Errorf("speed 2.5:\n%s", out)
	}
}

func TestTextCannotDriveTheTerminal(t *testing.T) {
	r := fakeReport()
	r.Operation = "op\x1b]0;owned\x07"
	r.Spec = "spec\u202eevil"
	r.Policy = "breaker \x1b[2Jname"
	r.Tables[0].Rows[0][0] = "two\nlines"
	r.Log = []string{"level=WARN breaker=\x1b[31mred\n"}
	out := text(t, r)
	for _, c := range out {
		if c == 0x1b || c == 0x07 || c == 0x202e {
			t.Fatalf("raw %U reached the terminal:\n%q", c, out)
		}
	}
	for _, want := range []string{`op\x1b]0;owned\x07`, `spec\u202eevil`, `two\nlines`, `breaker=\x1b[31mred` + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks the visible escape %q:\n%s", want, out)
		}
	}
	// The cell's newline is shown, not obeyed: the table keeps its lines
	// and its alignment.
	lines := tableLines(t, out, r.Tables[0].Title, len(r.Tables[0].Rows))
	for _, l := range lines {
		if utf8.RuneCountInString(l) != utf8.RuneCountInString(lines[0]) {
			t.Errorf("misaligned after escaping:\n%s", strings.Join(lines, "\n"))
		}
	}
}

func TestTextRaggedAndEmptyTables(t *testing.T) {
	r := &Report{Scenario: "s", Operation: "o", Spec: "f", Speed: 1, Tables: []Table{
		{Title: "ragged", Columns: []string{"a", "b"}, Rows: [][]string{{"1"}, {"1", "2", "3"}}},
		{Title: "empty"},
	}}
	out := text(t, r)
	if !strings.Contains(out, "ragged\n  a  b\n  ───────\n  1\n  1  2  3\n") {
		t.Errorf("ragged table:\n%q", out)
	}
	if !strings.HasSuffix(out, "\nempty\n") {
		t.Errorf("empty table:\n%q", out)
	}
}

func TestMarkdownTablesEscapeCells(t *testing.T) {
	r := fakeReport()
	r.Tables[0].Rows = append(r.Tables[0].Rows, []string{"a|b", "one\ntwo", "*x* _y_ `z`", "<script>", "[l](http://x)", "&amp;"})
	r.Operation = "# op|<b>"
	md := string(r.Markdown())
	if !strings.HasPrefix(md, "# resgen lab storm · # op\\|\\<b\\> (testdata/specs/lab.yaml)\n") {
		t.Errorf("title line %q", strings.SplitN(md, "\n", 2)[0])
	}
	var rows []string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| ") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 2+len(r.Tables[0].Rows) {
		t.Fatalf("%d table lines, want %d:\n%s", len(rows), 2+len(r.Tables[0].Rows), md)
	}
	if rows[1] != "| :--- | ---: | ---: | ---: | ---: | ---: |" {
		t.Errorf("alignment row %q", rows[1])
	}
	for _, l := range rows {
		// GitHub splits a row at every | not preceded by a backslash.
		if n := strings.Count(l, "|") - strings.Count(l, `\|`); n != 7 {
			t.Errorf("row %q has %d cell borders, want 7", l, n)
		}
	}
	last := rows[len(rows)-1]
	want := `| a\|b | one two | \*x\* \_y\_ \` + "`z\\`" + ` | \<script\> | \[l\](http://x) | \&amp; |`
	if last != want {
		t.Errorf("escaped row\n got %s\nwant %s", last, want)
	}
	for _, want := range []string{"- speed: sped up ×10: every duration ÷10", "![server in-flight requests](load.svg)", "![rejections per second](rejections.svg)", "## Setup\n\n- 50 users × 5 requests", "## Findings\n\n- the spec policy", "- ran: 2026-12-01 16:30:00 UTC, took 1.234s"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}

func TestMarkdownEscapesLineStarts(t *testing.T) {
	for in, want := range map[string]string{
		"- item":       `\- item`,
		"-5%":          "-5%",
		"---":          `\---`,
		"+ x":          `\+ x`,
		"# h":          `\# h`,
		"1. first":     `1\. first`,
		"12) x":        `12\) x`,
		"1.25×":        "1.25×",
		"  > quote":    `\> quote`,
		"=":            `\=`,
		"a\r\nb\tc":    "a  b c",
		"bidi\u202ex":  "bidix",
		"$x$ ~y~ !img": `\$x\$ \~y\~ \!img`,
		`back\slash`:   `back\\slash`,
	} {
		if got := md(in); got != want {
			t.Errorf("md(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMarkdownLogFenceCannotBeClosedFromInside(t *testing.T) {
	r := fakeReport()
	r.Log = []string{"```", "a ```` b", "~~~", "</details>", "ok\x1b[31m"}
	md := string(r.Markdown())
	_, after, ok := strings.Cut(md, "## Log\n\n")
	if !ok {
		t.Fatal("no log section")
	}
	lines := strings.Split(after, "\n")
	fence := strings.TrimSuffix(lines[0], "text")
	if fence != "`````" {
		t.Fatalf("fence %q, want five backticks (the log has a run of four)", fence)
	}
	// CommonMark closes a fence with a line of at least as many backticks;
	// the first such line must be the intended close, after the log.
	for i, l := range lines[1:] {
		if strings.HasPrefix(strings.TrimLeft(l, " "), fence) {
			if i != len(r.Log) {
				t.Fatalf("fence closed at log line %d, not after the log:\n%s", i, after)
			}
			break
		}
		if i < len(r.Log) && l != strings.ReplaceAll(r.Log[i], "\x1b", " ") {
			t.Errorf("log line %d = %q, want %q (verbatim, controls as spaces)", i, l, r.Log[i])
		}
	}
}

func TestJSONRoundTripsAndIsStable(t *testing.T) {
	r := fakeReport()
	r.Started = time.Date(2026, 12, 1, 17, 30, 0, 5, time.FixedZone("CET", 3600))
	data, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	again, _ := r.JSON()
	if !bytes.Equal(data, again) {
		t.Fatal("two encodings differ")
	}
	var back jsonReport
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Scenario != r.Scenario || back.Spec != r.Spec || back.Operation != r.Operation || back.Policy != r.Policy || back.Speed != r.Speed {
		t.Errorf("names differ: %+v", back)
	}
	if !back.Started.Equal(r.Started) || back.Started.Location() != time.UTC || back.TookS != 1.234 {
		t.Errorf("started %v took %v", back.Started, back.TookS)
	}
	if !reflect.DeepEqual(back.Tables, r.Tables) || !reflect.DeepEqual(back.Setup, r.Setup) || !reflect.DeepEqual(back.Log, r.Log) || !reflect.DeepEqual(back.Findings, r.Findings) {
		t.Errorf("tables, setup, log or findings differ")
	}
	if !reflect.DeepEqual(back.Plots, []string{"load.svg", "rejections.svg"}) {
		t.Errorf("plots %q", back.Plots)
	}
	res, _ := json.Marshal(back.Results)
	if string(res) != `{"strategies":[{"amplification":1.25,"name":"spec policy","wallS":6.1}]}` {
		t.Errorf("results %s", res)
	}
	// Keys in the Report's order, plot data left out.
	var keys []string
	d := json.NewDecoder(bytes.NewReader(data))
	d.Token()
	for d.More() {
		k, _ := d.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		d.Decode(&skip)
	}
	if got := strings.Join(keys, " "); got != "scenario spec operation policy speed started tookS setup tables plots log findings results" {
		t.Errorf("keys %s", got)
	}
	compact, err := json.Marshal(*r)
	var want bytes.Buffer
	json.Compact(&want, data)
	if err != nil || !bytes.Equal(compact, want.Bytes()) {
		t.Errorf("json.Marshal(Report) differs from JSON():\n%s\n%s", compact, want.Bytes())
	}
	if bytes.Contains(data, []byte(`"Points"`)) || !bytes.HasPrefix(data, []byte("{\n  \"scenario\"")) {
		t.Errorf("not indented or holds plot data:\n%s", data)
	}
}

func TestJSONEscapesWhatATerminalWouldObey(t *testing.T) {
	r := fakeReport()
	r.Operation = "op\u202e\u009b\x1b"
	data, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsAny(data, "\u202e\u009b\x1b") {
		t.Fatalf("raw control in results.json: %q", data)
	}
	var back jsonReport
	if err := json.Unmarshal(data, &back); err != nil || back.Operation != r.Operation {
		t.Errorf("operation %q, err %v", back.Operation, err)
	}
	r.Results = map[string]float64{"nan": math.NaN()}
	if _, err := r.JSON(); err == nil || !strings.Contains(err.Error(), "results.json") {
		t.Errorf("NaN in results: err %v", err)
	}
}

func TestPlotFileNamesStayInTheDirectory(t *testing.T) {
	got := plotFiles([]Plot{{Name: "load"}, {Name: "../../etc/passwd"}, {Name: ""}, {Name: "Load"}, {Name: "load"}, {Name: "a b/c"}, {Name: "\x00"}})
	want := []string{"load.svg", "etc-passwd.svg", "plot.svg", "Load-2.svg", "load-3.svg", "a-b-c.svg", "plot-2.svg"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plotFiles = %q, want %q", got, want)
	}
}

func TestWriteDirWritesEveryFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "out")
	r := fakeReport()
	files, err := r.WriteDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"report.md", "results.json", "load.svg", "rejections.svg"}; !reflect.DeepEqual(files, want) {
		t.Fatalf("files %q, want %q", files, want)
	}
	js, _ := r.JSON()
	want := map[string][]byte{"report.md": r.Markdown(), "results.json": js, "load.svg": r.Plots[0].SVG(), "rejections.svg": r.Plots[1].SVG()}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(want) {
		t.Errorf("directory holds %d entries (temporary files left?): %v", len(entries), entries)
	}
	for name, data := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: differs (%v)", name, err)
		}
		if fi, _ := os.Stat(filepath.Join(dir, name)); fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v", name, fi.Mode())
		}
	}
	// A second run replaces the files.
	r.Findings = []string{"second"}
	if _, err := r.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "report.md")); !bytes.Equal(got, r.Markdown()) {
		t.Error("report.md not replaced")
	}
}

func TestWriteDirRefusesAFileInTheWay(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "out")
	os.WriteFile(file, []byte("mine"), 0o644)
	_, err := fakeReport().WriteDir(file)
	if err == nil || !strings.Contains(err.Error(), "exists and is not a directory") {
		t.Errorf("dir is a file: err %v", err)
	}
	if got, _ := os.ReadFile(file); string(got) != "mine" {
		t.Errorf("the file in the way was changed: %q", got)
	}
	if _, err := fakeReport().WriteDir(filepath.Join(file, "sub")); err == nil {
		t.Error("a dir under a file: no error")
	}
}

// TestWriteDirChangesNothingWhenAFileCannotBeWritten puts a directory
// where results.json goes: the write must fail, and the report.md of an
// earlier run must be as it was, with no new or temporary file beside it.
func TestWriteDirChangesNothingWhenAFileCannotBeWritten(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "report.md"), []byte("old report"), 0o644)
	os.Mkdir(filepath.Join(dir, "results.json"), 0o755)
	_, err := fakeReport().WriteDir(dir)
	if err == nil || !strings.Contains(err.Error(), "results.json") {
		t.Fatalf("err %v, want one naming results.json", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "report.md")); string(got) != "old report" {
		t.Errorf("report.md changed to %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("entries %v, want only report.md and results.json/", entries)
	}
}

func TestWriteDirReadOnly(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only directory")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "report.md"), []byte("old report"), 0o644)
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	_, err := fakeReport().WriteDir(dir)
	if !errors.Is(err, fs.ErrPermission) {
		t.Errorf("read-only dir: err %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "report.md")); string(got) != "old report" {
		t.Errorf("report.md changed to %q", got)
	}
}
