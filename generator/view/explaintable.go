package view

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/resgen/resgen/generator/model"
)

// The terminal layout of `resgen explain`: every line fits tableWidth
// display columns. Operations are grouped under their path (the model is
// sorted by path), one row per method; each breaker and each retry policy
// is described once, in a list after the table, and rows only name them.
// When a row is still too wide, the operation cell and then the retry
// reason are cut in the middle with "…", keeping their start and end;
// breaker and retry names are never cut: a name too long for its column
// is shown in the row as a key ([B1], [R1]) that the lists spell out.

// tableWidth is the widest line the table may print, in display columns.
const tableWidth = 120

const (
	colMethod = iota
	colOp
	colBreaker
	colRetry
	colWhy
	colAttempts
	colTimeouts
	numCols
)

var tableHeader = [numCols]string{"  METHOD", "OPERATION (GO METHOD)", "BREAKER", "RETRY", "WHY", "ATTEMPTS", "TIMEOUTS"}

const (
	colGap = 2
	// A name wider than nameKeyWidth may become a key when a row does
	// not fit. The operation and reason cells are cut in two rounds: to
	// opFirst and whyFirst columns, then to their header's width and
	// whyMin.
	nameKeyWidth = 16
	opFirst      = 32
	whyFirst     = 16
	whyMin       = 8
)

type tableRow struct {
	path, id, goName, why string
	cells                 [numCols]string
}

func writeTable(buf *bytes.Buffer, ops []ExplainOp, breakers []*model.BreakerFacts, retries []*model.RetryFacts) {
	rows := make([]tableRow, len(ops))
	for i, o := range ops {
		c := &rows[i].cells
		rows[i].path, rows[i].id, rows[i].goName = o.Path, o.ID, o.GoMethod
		c[colMethod] = "  " + o.Method
		c[colBreaker], c[colRetry], c[colAttempts] = "none", "off", "1"
		if b := o.Facts.Breaker; b != nil {
			c[colBreaker] = b.Instance
		}
		if r := o.Facts.Retry; r != nil {
			c[colRetry], c[colAttempts] = r.Policy, strconv.Itoa(r.MaxAttempts)
		}
		rows[i].why = strings.TrimSuffix(o.Facts.RetryWhy, ": off")
		c[colTimeouts] = o.Facts.TimeoutsLine()
	}
	bkeys, rkeys := fitRows(rows)

	var widths [numCols]int
	measure := func(cells [numCols]string) {
		for i, s := range cells {
			widths[i] = max(widths[i], displayWidth(s))
		}
	}
	measure(tableHeader)
	for _, r := range rows {
		measure(r.cells)
	}
	writeLine := func(cells [numCols]string) {
		var line strings.Builder
		for i, s := range cells {
			line.WriteString(s)
			if i < numCols-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-displayWidth(s)+colGap))
			}
		}
		buf.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	buf.WriteString("PATH\n")
	writeLine(tableHeader)
	for i, r := range rows {
		if i == 0 || r.path != rows[i-1].path {
			buf.WriteString(cutMiddle(r.path, tableWidth) + "\n")
		}
		writeLine(r.cells)
	}
	if len(rows) == 0 {
		buf.WriteString("(no operations)\n")
	}

	if len(breakers) > 0 {
		buf.WriteString("\nBreakers:\n")
		items := make([][2]string, len(breakers))
		for i, b := range breakers {
			items[i] = [2]string{keyed(bkeys, b.Instance), breakerLine(b)}
		}
		writeList(buf, items)
	}
	if len(retries) > 0 {
		buf.WriteString("\nRetry policies:\n")
		items := make([][2]string, len(retries))
		for i, r := range retries {
			items[i] = [2]string{keyed(rkeys, r.Policy), retryLine(r)}
		}
		writeList(buf, items)
	}
}

// opCell is the operationId with the Go method name in parentheses (an
// operation without an operationId shows the Go name alone, in them), in
// width columns at most. The Go name is cut first, to 8 columns (it mostly
// repeats the operationId), then the operationId; each in the middle, so
// both keep their start and end.
func opCell(id, goName string, width int) string {
	if id == "" {
		return "(" + cutMiddle(goName, width-2) + ")"
	}
	idW, goW := displayWidth(id), displayWidth(goName)
	if room := width - 3; idW+goW > room {
		goW = max(min(goW, 8), room-idW)
		idW = max(1, room-goW)
	}
	return cutMiddle(id, idW) + " (" + cutMiddle(goName, goW) + ")"
}

// fitRows makes every row fit tableWidth: it cuts the operation cells,
// then the retry reasons, then replaces breaker and retry names too wide
// for the line by keys. It returns the keys given, by name.
func fitRows(rows []tableRow) (bkeys, rkeys map[string]string) {
	width := func(col int) int {
		w := displayWidth(tableHeader[col])
		for _, r := range rows {
			w = max(w, displayWidth(r.cells[col]))
		}
		return w
	}
	total := func() int {
		n := colGap * (numCols - 1)
		for c := range numCols {
			n += width(c)
		}
		return n
	}
	shrink := func(col, floor int) {
		if over := total() - tableWidth; over > 0 {
			to := max(floor, displayWidth(tableHeader[col]), width(col)-over)
			for i := range rows {
				if col == colOp {
					rows[i].cells[col] = opCell(rows[i].id, rows[i].goName, to)
				} else {
					rows[i].cells[col] = cutMiddle(rows[i].cells[col], to)
				}
			}
		}
	}
	fit := func() {
		for i := range rows {
			rows[i].cells[colOp] = opCell(rows[i].id, rows[i].goName, tableWidth)
			rows[i].cells[colWhy] = rows[i].why
		}
		shrink(colOp, opFirst)
		shrink(colWhy, whyFirst)
		shrink(colOp, 0)
		shrink(colWhy, whyMin)
	}
	fit()
	bkeys, rkeys = map[string]string{}, map[string]string{}
	for ; total() > tableWidth; fit() {
		// Key the wider of the two name columns, one width at a time.
		col, keys, prefix := colBreaker, bkeys, "B"
		if width(colRetry) > width(colBreaker) {
			col, keys, prefix = colRetry, rkeys, "R"
		}
		w := width(col)
		if w <= nameKeyWidth {
			break // nothing left to key; cannot happen with sane durations
		}
		for i := range rows {
			name := rows[i].cells[col]
			if displayWidth(name) != w || (col == colBreaker && name == "none") || (col == colRetry && name == "off") {
				continue
			}
			if keys[name] == "" {
				keys[name] = fmt.Sprintf("[%s%d]", prefix, len(keys)+1)
			}
			rows[i].cells[col] = keys[name]
		}
	}
	return bkeys, rkeys
}

// keyed is a list item's name: the name, after its key when it has one.
func keyed(keys map[string]string, name string) string {
	if k := keys[name]; k != "" {
		return k + " " + name
	}
	return name
}

func breakerLine(b *model.BreakerFacts) string {
	scope := "policy " + b.Policy + ", for this operation only"
	if b.Scope != "operation" {
		scope = "shared by " + strconv.Itoa(b.Operations) + " operations"
		if b.Operations == 1 {
			scope = "shared, 1 operation"
		}
	}
	return scope + "; " + model.SettingsLine(b.Settings)
}

func retryLine(r *model.RetryFacts) string { return model.SettingsLine(r.Settings) }

// writeList prints name–text items, the texts aligned after the names and
// wrapped to tableWidth. A name too long to leave room for its text has
// the text on the lines below it; nothing is cut (an unbreakable word is
// split across lines).
func writeList(buf *bytes.Buffer, items [][2]string) {
	const indent, maxName = 2, 24
	nameW := 0
	for _, it := range items {
		if w := displayWidth(it[0]); w <= maxName {
			nameW = max(nameW, w)
		}
	}
	textCol := indent + nameW + colGap
	for _, it := range items {
		name, text := it[0], it[1]
		first := strings.Repeat(" ", indent)
		if w := displayWidth(name); w <= nameW {
			first += name + strings.Repeat(" ", textCol-indent-w)
		} else {
			for _, l := range wrap(name, tableWidth-indent) {
				buf.WriteString(first + l + "\n")
			}
			first = strings.Repeat(" ", textCol)
		}
		for i, l := range wrap(text, tableWidth-textCol) {
			if i > 0 {
				first = strings.Repeat(" ", textCol)
			}
			buf.WriteString(first + l + "\n")
		}
	}
}

// wrap breaks s into lines of at most width display columns, at spaces
// where it can, inside a word where the word alone is wider.
func wrap(s string, width int) []string {
	var lines []string
	var line strings.Builder
	lineW := 0
	flush := func() {
		lines = append(lines, line.String())
		line.Reset()
		lineW = 0
	}
	for _, word := range strings.Fields(s) {
		ww := displayWidth(word)
		if lineW > 0 && lineW+1+ww > width {
			flush()
		}
		if lineW > 0 {
			line.WriteByte(' ')
			lineW++
		}
		for ww > width-lineW {
			head, rest := splitAt(word, width-lineW)
			line.WriteString(head)
			flush()
			word, ww = rest, displayWidth(rest)
		}
		line.WriteString(word)
		lineW += ww
	}
	if lineW > 0 || len(lines) == 0 {
		flush()
	}
	return lines
}

// splitAt splits s after the last rune that ends within width columns (at
// least one rune, so that wrap always advances).
func splitAt(s string, width int) (string, string) {
	w := 0
	for i, r := range s {
		rw := runeWidth(r)
		if w+rw > width && i > 0 {
			return s[:i], s[i:]
		}
		w += rw
	}
	return s, ""
}

// cutMiddle returns s if it fits width display columns, else its start and
// end around one "…", as wide as width at most. Paths and operationIds
// differ at both ends (/v3/users/{id}/roles, users:head), so the middle
// goes.
func cutMiddle(s string, width int) string {
	if displayWidth(s) <= width {
		return s
	}
	rs := []rune(s)
	room := width - 1 // the ellipsis
	headW := (room + 1) / 2
	var head, tail []rune
	w := 0
	for _, r := range rs {
		if w+runeWidth(r) > headW {
			break
		}
		head = append(head, r)
		w += runeWidth(r)
	}
	tailW := room - w // the tail takes what the head left, as a wide rune may
	w = 0
	for i := len(rs) - 1; i >= len(head); i-- {
		if w+runeWidth(rs[i]) > tailW {
			break
		}
		tail = append([]rune{rs[i]}, tail...)
		w += runeWidth(rs[i])
	}
	return string(head) + "…" + string(tail)
}

// displayWidth is how many terminal columns s takes: East Asian wide and
// fullwidth characters take two, combining marks none. Text reaching the
// table is escaped by sanitize.Terminal first, so it has no control
// characters.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

func runeWidth(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me) || r == 0x200b:
		return 0
	case wide(r):
		return 2
	}
	return 1
}

// wide reports the East Asian Wide and Fullwidth ranges (after Markus
// Kuhn's wcwidth), plus the emoji blocks terminals draw two columns wide.
func wide(r rune) bool {
	return r >= 0x1100 && (r <= 0x115f || r == 0x2329 || r == 0x232a ||
		r >= 0x2e80 && r <= 0xa4cf && r != 0x303f ||
		r >= 0xac00 && r <= 0xd7a3 ||
		r >= 0xf900 && r <= 0xfaff ||
		r >= 0xfe10 && r <= 0xfe19 ||
		r >= 0xfe30 && r <= 0xfe6f ||
		r >= 0xff00 && r <= 0xff60 ||
		r >= 0xffe0 && r <= 0xffe6 ||
		r >= 0x1f300 && r <= 0x1f64f ||
		r >= 0x1f900 && r <= 0x1f9ff ||
		r >= 0x20000 && r <= 0x2fffd ||
		r >= 0x30000 && r <= 0x3fffd)
}
