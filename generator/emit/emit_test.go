package emit

import (
	"errors"
	"fmt"
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

// TestTypeWidthIsThePrintedWidth: noteRoom counts a type's columns; they
// are those of the type printed by jennifer and gofmt'd, for each kind of
// type and each package model types come from.
func TestTypeWidthIsThePrintedWidth(t *testing.T) {
	named := &model.GoType{Kind: model.Named, Name: "Pet"}
	var types []*model.GoType
	for _, b := range []string{"string", "int64", "bool", "any", "[]byte", "float32"} {
		types = append(types, &model.GoType{Kind: model.Builtin, Name: b})
	}
	for _, pkg := range []string{"encoding/json", "time", "net/url", "io", runtimePkg, wirePkg} {
		types = append(types, &model.GoType{Kind: model.Qual, Pkg: pkg, Name: "Thing"})
	}
	types = append(types, named, stringPtr, ioReadCloser)
	for _, base := range append([]*model.GoType(nil), types...) {
		types = append(types,
			&model.GoType{Kind: model.Pointer, Elem: base},
			&model.GoType{Kind: model.Slice, Elem: &model.GoType{Kind: model.Map, Elem: base}},
			&model.GoType{Kind: model.Map, Elem: &model.GoType{Kind: model.Pointer, Elem: base}})
	}
	for _, ty := range types {
		printed := fmt.Sprintf("%#v", typeExpr(ty))
		if got := typeWidth(ty); got != len(printed) {
			t.Errorf("typeWidth(%s) = %d, want %d", printed, got, len(printed))
		}
	}
}
