package emit

import (
	"go/ast"
	doccomment "go/doc/comment"
	"go/format"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"
)

var long = strings.Repeat("word ", 30)

// wrapCases are doc comments in each form gofmt knows: paragraphs, bullet
// and numbered lists with long items, a code block, and an unbreakable URL.
var wrapCases = [][]string{
	{"T is a thing. " + long + "end."},
	{"T:", "", "  - breaker \"pets\": " + long, "  - retry: " + long, "  - timeouts: 2s per attempt."},
	{"Steps:", "", " 1. first " + long, " 2. second " + long, "10. tenth " + long},
	{"Code:", "", "  x := f(" + long + ")", "    y := 2"},
	{"See", "https://example.com/" + strings.Repeat("a", 120) + " for more " + long},
	{"  * an indented item " + long, "    its more " + long, "  * another"},
}

// TestWrapDocUnderWidthAsGofmtPrints: after gofmt, every line of a wrapped
// doc comment (above a type, and on a struct field one tab in) is under 100
// columns unless it is one unbreakable word; and go/doc/comment reads the
// wrapped comment as the same blocks with the same words as the original.
func TestWrapDocUnderWidthAsGofmtPrints(t *testing.T) {
	for _, lines := range wrapCases {
		f := jen.NewFile("p")
		comment(f, lines)
		f.Type().Id("T").StructFunc(func(g *jen.Group) {
			comment(g, lines)
			g.Id("F").Int()
		})
		src, err := format.Source([]byte(f.GoString()))
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(src), "\n") {
			w := columns(l)
			if strings.HasPrefix(strings.TrimSpace(l), "//") && w >= 100 && strings.Contains(strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "/\t ")), " ") {
				t.Errorf("line %d is %d columns:\n%s", i+1, w, l)
			}
		}
		fset := token.NewFileSet()
		af, err := parser.ParseFile(fset, "", src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		ts := af.Decls[0].(*ast.GenDecl)
		field := ts.Specs[0].(*ast.TypeSpec).Type.(*ast.StructType).Fields.List[0]
		want := blocks(strings.Join(lines, "\n"))
		for where, doc := range map[string]*ast.CommentGroup{"type": ts.Doc, "field": field.Doc} {
			if got := blocks(doc.Text()); got != want {
				t.Errorf("%s doc reads as\n%s\nwant\n%s", where, got, want)
			}
		}
	}
}

// blocks describes a doc comment as go/doc/comment parses it: each block's
// kind and its words (list items one by one), spacing aside.
func blocks(text string) string {
	var p doccomment.Parser
	var b strings.Builder
	var words func(ts []doccomment.Text) string
	words = func(ts []doccomment.Text) string {
		var s []string
		for _, t := range ts {
			switch t := t.(type) {
			case doccomment.Plain:
				s = append(s, string(t))
			case *doccomment.Link:
				s = append(s, words(t.Text))
			case *doccomment.DocLink:
				s = append(s, words(t.Text))
			}
		}
		return strings.Join(strings.Fields(strings.Join(s, " ")), " ")
	}
	for _, blk := range p.Parse(text).Content {
		switch blk := blk.(type) {
		case *doccomment.Paragraph:
			b.WriteString("paragraph: " + words(blk.Text) + "\n")
		case *doccomment.Heading:
			b.WriteString("heading: " + words(blk.Text) + "\n")
		case *doccomment.Code:
			b.WriteString("code: " + strings.Join(strings.Fields(blk.Text), " ") + "\n")
		case *doccomment.List:
			for _, it := range blk.Items {
				b.WriteString("item " + it.Number + ":")
				for _, c := range it.Content {
					b.WriteString(" " + words(c.(*doccomment.Paragraph).Text))
				}
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// columns is the width of line as an editor shows it, tabs every 8.
func columns(line string) int {
	n := 0
	for _, r := range line {
		if r == '\t' {
			n += tabWidth - n%tabWidth
		} else {
			n++
		}
	}
	return n
}
