package conformance

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// upperRanges is op with each status range key written in upper case
// ("4xx" as "4XX"), the only case OpenAPI defines and kin-openapi looks
// up; op itself when it has none in lower case. A client reads "4xx" as
// the range (resgen does), so the harness checks its answers to that
// range against it.
func upperRanges(op *openapi3.Operation) *openapi3.Operation {
	if op.Responses == nil {
		return op
	}
	lower := false
	for k := range op.Responses.Map() {
		if len(k) == 3 && strings.HasSuffix(k, "xx") {
			lower = true
		}
	}
	if !lower {
		return op
	}
	cp := *op
	cp.Responses = openapi3.NewResponses()
	cp.Responses.Delete("default")
	for k, v := range op.Responses.Map() {
		if len(k) == 3 && strings.HasSuffix(strings.ToLower(k), "xx") {
			k = strings.ToUpper(k)
		}
		cp.Responses.Set(k, v)
	}
	return &cp
}
