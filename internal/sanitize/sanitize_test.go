package sanitize

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// hostile holds every kind of rune the sinks must not pass through.
const hostile = "a\x1b[31mred\x1b]0;title\x07\rb\nc\td\x00e\x7ff\u0085g\u009bh\u202ei\u202aj\u2066k\u2069l\u200em\u200fn\u061co\ufeffp\u2028q\u2029r\xffs"

func TestCommentLeavesNoUnsafeRune(t *testing.T) {
	got := Comment(hostile)
	for _, r := range got {
		if Unsafe(r) {
			t.Fatalf("Comment left %U in %q", r, got)
		}
	}
	if want := "a [31mred ]0;title  b c d e f g hijklmnop q r\ufffds"; got != want {
		t.Fatalf("Comment(hostile) = %q, want %q", got, want)
	}
	for _, s := range []string{"", "plain ASCII.", "naïve café ☕", "tab\tends \t "} {
		if got := Comment(s); strings.ContainsFunc(got, Unsafe) || strings.HasSuffix(got, " ") {
			t.Errorf("Comment(%q) = %q", s, got)
		}
	}
	if got := Comment("naïve café ☕ \ufffd"); got != "naïve café ☕ \ufffd" {
		t.Errorf("Comment changed safe text: %q", got)
	}
}

func TestTerminalEscapesVisibly(t *testing.T) {
	got := Terminal(hostile)
	want := `a\x1b[31mred\x1b]0;title\x07\rb\nc\td\x00e\x7ff\x85g\x9bh\u202ei\u202aj\u2066k\u2069l\u200em\u200fn\u61co\ufeffp\u2028q\u2029r\xffs`
	if got != want {
		t.Fatalf("Terminal(hostile) =\n%s\nwant\n%s", got, want)
	}
	for _, s := range []string{"", "spec.yaml:3:4: error: x", "naïve café ☕ \ufffd"} {
		if Terminal(s) != s {
			t.Errorf("Terminal changed safe text %q to %q", s, Terminal(s))
		}
	}
}

func TestJSONKeepsTheValue(t *testing.T) {
	in := map[string]string{"k\u202e": hostile}
	data, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	safe := JSON(data)
	for _, r := range string(safe) {
		if Unsafe(r) && r != '\n' {
			t.Fatalf("JSON left %U in %s", r, safe)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(safe, &back); err != nil {
		t.Fatal(err)
	}
	// encoding/json already made the invalid byte U+FFFD.
	if want := strings.Replace(hostile, "\xff", "\ufffd", 1); back["k\u202e"] != want {
		t.Fatalf("the value changed: %q", back)
	}
}

// formatChars is every Unicode format character (category Cf): zero-width
// space and joiners, soft hyphen, word joiner, invisible operators, bidi
// controls, the byte order mark, the TAG characters.
func formatChars() string {
	var b strings.Builder
	for _, rg := range unicode.Cf.R16 {
		for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
			b.WriteRune(r)
		}
	}
	for _, rg := range unicode.Cf.R32 {
		for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestFormatCharacters: every format character is unsafe; Comment drops
// it, Terminal writes it as an escape (\U for those past U+FFFF), and JSON
// escapes it (a surrogate pair past U+FFFF) keeping the value.
func TestFormatCharacters(t *testing.T) {
	cf := formatChars()
	if n := utf8.RuneCountInString(cf); n < 160 {
		t.Fatalf("only %d format characters", n)
	}
	for _, r := range cf {
		if !Unsafe(r) {
			t.Errorf("%U is not unsafe", r)
		}
	}
	s := "get" + cf + "Pet"
	if got := Comment(s); got != "getPet" {
		t.Errorf("Comment = %q, want getPet", got)
	}
	term := Terminal(s)
	if strings.ContainsFunc(term, Unsafe) || !strings.Contains(term, `\u200b\u200c\u200d`) || !strings.Contains(term, `\uad`) || !strings.Contains(term, `\U000e0041`) {
		t.Errorf("Terminal = %q", term)
	}
	data, err := json.Marshal(map[string]string{"k": s})
	if err != nil {
		t.Fatal(err)
	}
	safe := JSON(data)
	if bytes.ContainsFunc(safe, Unsafe) || !bytes.Contains(safe, []byte(`\udb40\udc41`)) {
		t.Errorf("JSON = %s", safe)
	}
	var back map[string]string
	if err := json.Unmarshal(safe, &back); err != nil || back["k"] != s {
		t.Fatalf("the value changed: %q, %v", back["k"], err)
	}
}
