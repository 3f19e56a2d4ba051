// Package sanitize makes spec text safe for the two places resgen shows it:
// generated Go comments, and a terminal. Text from a spec (names,
// descriptions, paths, file names) may hold control characters, ANSI and
// OSC escape sequences, or Unicode bidirectional controls that make a
// reviewer see something other than what is there. Every sink routes spec
// text through one function of this package.
package sanitize

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// invisible reports whether r changes how text around it is shown without
// being visible itself: the bidirectional controls (embeddings, overrides,
// isolates, marks) and the byte order mark, which gofmt refuses inside a
// file.
func invisible(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, // LRE, RLE, PDF, LRO, RLO
		r >= 0x2066 && r <= 0x2069,            // LRI, RLI, FSI, PDI
		r == 0x200e, r == 0x200f, r == 0x061c, // LRM, RLM, ALM
		r == 0xfeff: // byte order mark, zero-width no-break space
		return true
	}
	return false
}

// control reports whether r is a C0 or C1 control character (tab and
// newline included), DEL, or a Unicode line or paragraph separator.
func control(r rune) bool {
	return r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x2028 || r == 0x2029
}

// Unsafe reports whether r is a rune neither sink shows as it is.
func Unsafe(r rune) bool { return control(r) || invisible(r) }

// Comment returns s as one line of a generated Go comment: control
// characters and separators become spaces, bidirectional controls and byte
// order marks are dropped, invalid UTF-8 becomes U+FFFD, and trailing
// spaces are trimmed. strings.Map returns clean text as it is, without a
// copy.
func Comment(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case control(r):
			return ' '
		case invisible(r):
			return -1
		}
		return r
	}, s)
	return strings.TrimRight(s, " ")
}

// Terminal returns s with every unsafe rune written as a visible escape
// (\n, \t, \r, \x1b, \u202e), so that printing it cannot move the cursor,
// change colours, set a window title, ring the bell, or reorder what the
// reader sees. Invalid UTF-8 bytes are written as \xNN.
func Terminal(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteString(`\x` + hex2(s[i]))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x100 && control(r):
			b.WriteString(`\x` + hex2(byte(r)))
		case control(r) || invisible(r):
			b.WriteString(`\u` + strconv.FormatInt(int64(r), 16))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// JSON escapes, in JSON text, the unsafe runes encoding/json leaves raw
// (DEL, C1 controls, bidirectional controls, the byte order mark) as
// \uXXXX. Outside strings JSON text is ASCII, so the result is the same
// JSON value, safe to print.
func JSON(data []byte) []byte {
	// encoding/json escapes the C0 controls and U+2028/9 itself; the
	// newlines left are its indentation.
	raw := func(r rune) bool { return r >= 0x7f && Unsafe(r) }
	if !bytes.ContainsFunc(data, raw) {
		return data
	}
	var b bytes.Buffer
	for _, r := range string(data) {
		if raw(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.Bytes()
}

// isClean reports whether s is valid UTF-8 without an unsafe rune; printable
// ASCII, the common case, is checked byte by byte.
func isClean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return utf8.ValidString(s[i:]) && !strings.ContainsFunc(s[i:], Unsafe)
		}
	}
	return true
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}
