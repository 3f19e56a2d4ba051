package emit

import (
	"strings"
	"unicode/utf8"
)

// Generated comment lines stay under maxColumns columns, a tab counting
// tabWidth (as gofmt aligns and most review tools show it), so a diff reads
// without scrolling.
const (
	maxColumns = 100
	tabWidth   = 8
)

// wrapDoc wraps the lines of one doc comment at word boundaries so that
// each, written after "// " and indent columns, stays under maxColumns
// once gofmt has formatted it. It follows the doc comment syntax gofmt
// rewrites (go/doc/comment): a paragraph line continues unindented; a list
// item continues under its text, where gofmt keeps it; a code block line
// continues at its own indent, with room left for the tab gofmt indents
// code with. A word longer than a whole line stays whole, on its own line.
func wrapDoc(lines []string, indent int) []string {
	width := maxColumns - 1 - indent - len("// ")
	var out []string
	for i := 0; i < len(lines); i++ {
		if lead(lines[i]) == 0 {
			out = append(out, wrapLine(lines[i], width, 0)...)
			continue
		}
		// An indented span: its indented lines and the blank lines
		// between them. gofmt makes it a list when its first line starts
		// with a list marker, a code block otherwise.
		j := i
		common := len(lines[i])
		for k := i; k < len(lines) && (lines[k] == "" || lead(lines[k]) > 0); k++ {
			if lines[k] != "" {
				j = k
				common = min(common, lead(lines[k]))
			}
		}
		list := marker(lines[i][lead(lines[i]):]) > 0
		for ; i <= j; i++ {
			l := lines[i]
			n := lead(l)
			switch {
			case l == "":
				out = append(out, l)
			case list:
				// gofmt writes an item as "  - text" and its other lines
				// four columns in: width counts at least that.
				m := marker(l[n:])
				cont := max(n+m, 4)
				out = append(out, wrapLine(l, width-max(0, 4-n-m), cont)...)
			default:
				// gofmt replaces the common indent with a tab.
				out = append(out, wrapLine(l, width-max(0, tabWidth-len("// ")-common), n)...)
			}
		}
		i--
	}
	return out
}

// wrapLine breaks l into lines of at most width runes at spaces, the later
// ones indented by cont spaces.
func wrapLine(l string, width, cont int) []string {
	if utf8.RuneCountInString(l) <= width {
		return []string{l}
	}
	n := lead(l)
	words := strings.Fields(l[n:])
	var out []string
	cur := l[:n] + words[0]
	curLen := utf8.RuneCountInString(cur)
	for _, w := range words[1:] {
		wl := utf8.RuneCountInString(w)
		if curLen+1+wl > width {
			out = append(out, cur)
			cur, curLen = strings.Repeat(" ", cont)+w, cont+wl
			continue
		}
		cur += " " + w
		curLen += 1 + wl
	}
	return append(out, cur)
}

// lead counts l's leading spaces (sanitised comment text has no tabs).
func lead(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// marker returns the width of the list marker and space s starts with
// ("- ", "* ", "+ ", "• ", "12. ", "3) "), 0 when it starts with none.
func marker(s string) int {
	for _, b := range []string{"- ", "* ", "+ ", "• "} {
		if strings.HasPrefix(s, b) {
			return utf8.RuneCountInString(b)
		}
	}
	d := 0
	for d < len(s) && d < 9 && s[d] >= '0' && s[d] <= '9' {
		d++
	}
	if d > 0 && d+1 < len(s) && (s[d] == '.' || s[d] == ')') && s[d+1] == ' ' {
		return d + 2
	}
	return 0
}
