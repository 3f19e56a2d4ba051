package emit

import (
	"strings"

	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/templates"
)

// DocLines renders the opdoc template as comment lines: what holds for
// this operation alone (why it retries or not, its key, its timeouts),
// and links to the constants that describe its breaker and retry policy.
func DocLines(p *model.OpPolicy) []string {
	return docTemplate("opdoc", model.PolicyFacts(p))
}

// BreakerDocLines renders the breakerdoc template: a breaker's policy, one
// setting a line, the doc comment of its constant.
func BreakerDocLines(bi *model.BreakerInstance) []string {
	return docTemplate("breakerdoc", model.PolicyFacts(&model.OpPolicy{Breaker: bi}).Breaker)
}

// RetryDocLines renders the retrydoc template: a retry policy, one setting
// a line, the doc comment of its constant.
func RetryDocLines(rp *model.RetryPolicy) []string {
	return docTemplate("retrydoc", model.PolicyFacts(&model.OpPolicy{Retry: rp}).Retry)
}

func docTemplate(name string, data any) []string {
	var b strings.Builder
	if err := templates.T.ExecuteTemplate(&b, name, data); err != nil {
		// The templates are fixed and tested; failing here is a resgen bug.
		panic("resgen: " + name + " template: " + err.Error())
	}
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}
