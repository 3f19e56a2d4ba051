package generator

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/resgen/resgen/internal/sanitize"
)

// checkNoUnsafeText fails when data holds a rune that a generated file or a
// terminal must not show raw (control, bidirectional control, byte order
// mark, line separator), other than the newlines and tabs of its layout.
func checkNoUnsafeText(t *testing.T, what string, data []byte) {
	t.Helper()
	if !utf8.Valid(data) {
		t.Errorf("%s is not valid UTF-8", what)
	}
	for i, line := range strings.Split(string(data), "\n") {
		for _, r := range line {
			if r != '\t' && sanitize.Unsafe(r) {
				t.Errorf("%s line %d holds %U: %q", what, i+1, r, line)
				break
			}
		}
	}
}

// TestHostileTextBuildsAndIsShownSafely: testdata/specs/hostile-text.yaml
// puts escape sequences, bidirectional overrides and byte order marks in
// every name and description. It generates (its golden builds), and its
// warnings come out escaped. TestGolden checks the output and the explain
// layouts of every spec with checkNoUnsafeText.
func TestHostileTextBuildsAndIsShownSafely(t *testing.T) {
	t.Chdir("..")
	res, err := Generate(context.Background(), Config{Spec: "testdata/specs/hostile-text.yaml", Package: "hostiletext"})
	if err != nil {
		t.Fatalf("%.300v", err)
	}
	var diags bytes.Buffer
	for _, d := range res.Diags {
		diags.WriteString(d.String() + "\n")
	}
	checkNoUnsafeText(t, "the warnings", diags.Bytes())
	if !strings.Contains(diags.String(), `breaker policy "unused\x1b[31m\u202e" is defined but no operation uses it`) {
		t.Errorf("the unused-policy warning does not name the policy escaped:\n%s", diags.String())
	}
	for _, want := range []string{"// A pet.", "// Owner: nimda.", "// Line one line two    [31misolated .", `"a\u202eb"`} {
		if !bytes.Contains(res.Source, []byte(want)) {
			t.Errorf("the output lacks %q", want)
		}
	}
}
