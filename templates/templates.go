// Package templates holds the human-facing text around generated code: the
// file banner, an operation's resilience facts and its policies' settings,
// and the layouts of `resgen explain`. Go code itself is built only with
// jennifer; these templates never carry Go syntax.
package templates

import (
	"embed"
	"strings"
	"text/template"
)

//go:embed *.tmpl
var files embed.FS

// T holds every template, parsed once; a syntax error fails at init (and in
// the package's test), never in a user's run.
var T = template.Must(template.New("").Funcs(template.FuncMap{"md": mdEscape, "mdText": mdText}).ParseFS(files, "*.tmpl"))

// mdEscape keeps spec text from breaking a markdown table cell or the
// code span it is written in.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "`", "'").Replace(s)
}

// mdText makes spec text plain text in a markdown table cell or list item:
// the characters that would start emphasis, code, a link, an HTML tag or
// entity, or end the cell are backslash-escaped.
func mdText(s string) string { return mdTextEscaper.Replace(s) }

var mdTextEscaper = strings.NewReplacer("\\", `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", `\<`, ">", `\>`, "|", `\|`, "~", `\~`, "&", `\&`, "\n", " ")
