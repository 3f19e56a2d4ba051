package conformance

import (
	"testing"

	"github.com/resgen/resgen/generator"
	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/model"
)

// A body warning that lists properties ("form properties "a", "b" may be
// null") excuses failures about those properties only: it once named
// none the harness could read, and so excused every body failure of the
// operation, a dropped required field included.
func TestBodyWarningExcusesOnlyTheProperties(t *testing.T) {
	res := &generator.Result{
		Model: &model.File{Operations: []*model.Operation{{Name: "CreateOrder",
			Variants: []*model.BodyVariant{{Name: "CreateOrderWithBody", Body: &model.Body{Encoding: model.BodyRaw}}}}}},
		Diags: diag.Diagnostics{{File: "spec.yaml", Line: 27, Msg: `unsupported: form properties "extra", "note" may be null, which this body cannot write; ` +
			`the client leaves a null value out; send the body as the spec says with CreateOrderWithBody(..., contentType, body)`}},
	}
	rep := &Report{Failures: []Failure{
		{Operation: "CreateOrder", Method: "CreateOrder", Kind: "body", Detail: "decoded body differs from the intended one at /note: sent null, lost"},
		{Operation: "CreateOrder", Method: "CreateOrder", Kind: "body", Detail: "decoded body differs from the intended one at /zeta: sent \"z\", lost"},
	}}
	markWarned(rep, res)
	if rep.Failures[0].Excepted == "" {
		t.Error("the failure at /note, which the warning names, is not excused")
	}
	if rep.Failures[1].Excepted != "" {
		t.Errorf("the failure at /zeta, which no warning names, is excused: %s", rep.Failures[1].Excepted)
	}
}
