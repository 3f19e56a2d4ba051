package emit

import (
	"errors"
	"strings"
	"testing"

	"github.com/resgen/resgen/generator/model"
)

// TestRenderErrorKeepsTheSourceApart: when resgen builds code gofmt cannot
// parse (a resgen bug), the error is one short line and the source rides
// along in the error for the caller to store, not in the message.
func TestRenderErrorKeepsTheSourceApart(t *testing.T) {
	bad := &model.File{Package: "p", Source: "spec.yaml", Types: []*model.Type{
		{Name: "not an identifier", Kind: model.Defined, Underlying: &model.GoType{Kind: model.Builtin, Name: "string"}},
	}}
	_, err := Render(bad, SplitNone)
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("Render: %v; want a *FormatError", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || len(msg) > 200 || strings.Contains(msg, "package p") {
		t.Fatalf("the message is not one short line without the source: %q", msg)
	}
	if !strings.Contains(string(fe.Source), "type not an identifier string") {
		t.Fatalf("the error does not carry the source:\n%s", fe.Source)
	}
}
