// Package sanitize makes spec text safe for the two places resgen shows it:
// generated Go comments, and a terminal. Text from a spec (names,
// descriptions, paths, file names) may hold control characters, ANSI and
// OSC escape sequences, or Unicode format characters (bidirectional
// controls, zero-width characters, TAG characters) that make a reviewer
// see something other than what is there. Every sink routes spec
// text through one function of this package.
package sanitize

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// invisible reports whether r is a Unicode format character (category Cf):
// not shown itself, it changes how the text around it is shown or read.
// That is the bidirectional controls (embeddings, overrides, isolates,
// marks), the zero-width space, joiners and word joiner, which make two
// names that look alike differ, the soft hyphen, the invisible operators,
// the byte order mark, which gofmt refuses inside a file, and the Unicode
// TAG characters (U+E0000 block), which carry hidden ASCII text.
func invisible(r rune) bool {
	return r >= 0xad && unicode.Is(unicode.Cf, r)
}

// control reports whether r is a C0 or C1 control character (tab and
// newline included), DEL, or a Unicode line or paragraph separator.
func control(r rune) bool {
	return r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x2028 || r == 0x2029
}

// Unsafe reports whether r is a rune neither sink shows as it is.
func Unsafe(r rune) bool { return control(r) || invisible(r) }

// Comment returns s as one line of a generated Go comment: control
// characters and separators become spaces, format characters (bidirectional
// controls, zero-width characters, byte order marks, TAG characters) are
// dropped, invalid UTF-8 becomes U+FFFD, and trailing spaces are trimmed. strings.Map returns clean text as it is, without a
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
// (\n, \t, \r, \x1b, \u202e, \U000e0041), so that printing it cannot move the cursor,
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
		case invisible(r) && r > 0xffff:
			b.WriteString(`\U` + fmt.Sprintf("%08x", r))
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
// (DEL, C1 controls, format characters) as \uXXXX (a surrogate pair above
// U+FFFF). Outside strings JSON text is ASCII, so the result is the same
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
		switch {
		case raw(r) && r > 0xffff:
			// JSON escapes only 16 bits: a TAG character is a surrogate pair.
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		case raw(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
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
