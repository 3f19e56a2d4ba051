// Package diag holds what every stage reports about its input: a
// Diagnostic (severity, file:line:col, JSON pointer, message, fix), lists of
// them, and InputError, the error of a run whose input is bad. It takes
// nothing and imports no stage; load, policy and build give Diagnostics,
// and the generator package sorts, dedupes and returns them.
package diag

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/resgen/resgen/internal/sanitize"
)

// Severity says whether a diagnostic stops generation.
type Severity uint8

const (
	Warning Severity = iota
	Error
)

func (s Severity) String() string {
	if s == Error {
		return "error"
	}
	return "warning"
}

// Diagnostic is one finding about the input, with its position when known.
type Diagnostic struct {
	Severity Severity
	File     string // path as the user gave it
	Line     int    // 1-based; 0 when unknown
	Col      int    // 1-based; 0 when unknown
	Pointer  string // JSON pointer of the node, "#/paths/~1pets/get"; "" when none
	Msg      string
	Hint     string // how to fix it; "" when obvious
}

// String renders the first line as editors and CI parsers expect it
// (file:line:col: severity: message) and the pointer and fix on indented
// continuation lines. It is what reaches a terminal: spec text in it
// (names, file names, quoted values) has its control and bidirectional
// characters escaped, so a spec cannot write escape sequences to the
// terminal or forge a line of output.
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(sanitize.Terminal(d.File))
	if d.Line > 0 {
		fmt.Fprintf(&b, ":%d", d.Line)
		if d.Col > 0 {
			fmt.Fprintf(&b, ":%d", d.Col)
		}
	}
	fmt.Fprintf(&b, ": %s: %s", d.Severity, sanitize.Terminal(d.Msg))
	if d.Pointer != "" {
		b.WriteString("\n\tat " + sanitize.Terminal(d.Pointer))
	}
	if d.Hint != "" {
		b.WriteString("\n\tfix: " + sanitize.Terminal(d.Hint))
	}
	return b.String()
}

// Diagnostics is a list of findings; as an error it means at least one of
// them is an Error.
type Diagnostics []Diagnostic

// Dedupe drops repeats: an inline policy under a path item is checked
// once per operation.
func (ds Diagnostics) Dedupe() Diagnostics {
	seen := map[Diagnostic]bool{}
	out := ds[:0]
	for _, d := range ds {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// HasErrors reports whether any diagnostic is an Error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Sort orders diagnostics by file, line, column, then message, so output is
// the same on every run.
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return a.Msg < b.Msg
	})
}

func (ds Diagnostics) Error() string {
	var lines []string
	for _, d := range ds {
		if d.Severity == Error {
			lines = append(lines, d.String())
		}
	}
	return strings.Join(lines, "\n")
}

// InputError is returned by Generate when the input is bad (exit status 2):
// the spec, the extension or the configuration.
type InputError struct {
	Diags Diagnostics
}

func (e *InputError) Error() string { return e.Diags.Error() }

// IsInputError reports whether err is the user's input's fault.
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

// PointerJoin appends reference tokens to a JSON pointer, escaping as
// RFC 6901 says (~ as ~0, / as ~1).
func PointerJoin(ptr string, tokens ...string) string {
	var b strings.Builder
	b.WriteString(ptr)
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}
