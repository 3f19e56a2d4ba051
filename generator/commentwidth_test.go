package generator

import (
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// banner is the generated-code line Go tools look for; it must stay one
// line, however long the spec's file name.
var banner = regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)

// wideComments returns the comment lines of src that are 100 columns or
// wider (a tab advancing to the next multiple of 8), as "line N (W
// columns): text". Two kinds are allowed: the generated-code banner, and a
// line holding a single word too long to break (a URL, say).
func wideComments(src []byte) []string {
	lines := strings.Split(string(src), "\n")
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, scanner.ScanComments)
	var out []string
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok != token.COMMENT {
			continue
		}
		first := fset.Position(pos).Line
		for k, text := range strings.Split(lit, "\n") {
			line := lines[first-1+k]
			w := columns(line)
			if w < 100 || banner.MatchString(text) {
				continue
			}
			body := strings.TrimLeft(strings.TrimPrefix(strings.TrimSpace(text), "//"), " \t")
			for _, m := range []string{"- ", "* ", "+ ", "• "} {
				body = strings.TrimPrefix(body, m)
			}
			if !strings.ContainsAny(body, " \t") {
				continue // one unbreakable word
			}
			out = append(out, fmt.Sprintf("line %d (%d columns): %s", first+k, w, line))
		}
	}
	return out
}

// columns is the width of line as an editor shows it, tabs every 8.
func columns(line string) int {
	n := 0
	for _, r := range line {
		if r == '\t' {
			n += 8 - n%8
		} else {
			n++
		}
	}
	return n
}

// TestGoldenCommentWidth: every comment line of every golden package is
// under 100 columns, so a reviewer reads generated code without scrolling.
func TestGoldenCommentWidth(t *testing.T) {
	files, err := filepath.Glob("../golden/*/*.gen.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	widest, where := 0, ""
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(src), "\n") {
			if c := columns(l); strings.HasPrefix(strings.TrimSpace(l), "//") && c > widest && !banner.MatchString(l) {
				widest, where = c, fmt.Sprintf("%s:%d", f, i+1)
			}
		}
		for _, w := range wideComments(src) {
			t.Errorf("%s: %s", f, w)
		}
	}
	t.Logf("widest comment line: %d columns (%s)", widest, where)
}
