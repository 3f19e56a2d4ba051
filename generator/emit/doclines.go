package emit

import (
	"strings"

	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/templates"
)

// DocLines renders the opdoc template as comment lines: the retry and the
// timeouts in full, the breaker by its constant (BreakerDocLines says the
// policy, once, above the constant).
func DocLines(p *model.OpPolicy) []string {
	return docTemplate("opdoc", model.PolicyFacts(p))
}

// BreakerDocLines renders the breakerdoc template: a breaker's policy in
// words, the doc comment of its constant.
func BreakerDocLines(bi *model.BreakerInstance) []string {
	return docTemplate("breakerdoc", model.PolicyFacts(&model.OpPolicy{Breaker: bi}).Breaker)
}

func docTemplate(name string, data any) []string {
	var b strings.Builder
	if err := templates.T.ExecuteTemplate(&b, name, data); err != nil {
		// The templates are fixed and tested; failing here is a resgen bug.
		panic("resgen: " + name + " template: " + err.Error())
	}
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}
