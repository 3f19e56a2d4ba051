// Package templates holds the human-facing text around generated code: the
// file banner and an operation's resilience facts. Go code itself is built
// only with jennifer; these templates never carry Go syntax.
package templates

import (
	"embed"
	"text/template"
)

//go:embed *.tmpl
var files embed.FS

// T holds every template, parsed once; a syntax error fails at init (and in
// the package's test), never in a user's run.
var T = template.Must(template.New("").ParseFS(files, "*.tmpl"))
