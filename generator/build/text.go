package build

import (
	"fmt"

	"github.com/resgen/resgen/generator/model"
)

// How a value is written as text is decided here, once, and carried by
// the model (model.Text, model.Part): which parameters and multipart
// parts can be text, and how the printer writes them, are the same answer.

// textOf is how a value of type t is written as parameter text: a type
// defined over another is converted to it first (type ID UUID; type UUID
// string is string(UUID(id))), a union of scalars writes its set variant
// (ParamText). Form TextNone: t is not text.
func (b *builder) textOf(t *model.GoType) model.Text {
	var via []*model.GoType
	for t.Kind == model.Named {
		d := b.decl(t.Name)
		switch {
		case d == nil:
			return model.Text{}
		case d.Underlying != nil && d.Kind != model.Struct:
			t = d.Underlying
			via = append(via, t)
			continue
		case d.ParamText:
			return model.Text{Form: model.TextMethod, Via: via}
		}
		return model.Text{}
	}
	form := model.TextNone
	switch t.Kind {
	case model.Qual:
		switch {
		case t.Pkg == "time" && t.Name == "Time":
			form = model.TextTime
		case t.Pkg == "encoding/json" && t.Name == "RawMessage":
			form = model.TextConvert
		}
	case model.Builtin:
		form = builtinText[t.Name]
	}
	if form == model.TextNone {
		return model.Text{}
	}
	return model.Text{Form: form, Via: via}
}

// builtinText is the text form of each builtin type resgen declares
// values of ("any" has none).
var builtinText = map[string]model.TextForm{
	"string": model.TextString, "[]byte": model.TextBase64, "bool": model.TextBool,
	"int32": model.TextInt, "int64": model.TextInt,
	"uint32": model.TextUint, "uint64": model.TextUint,
	"float32": model.TextFloat32, "float64": model.TextFloat64,
}

// scalarText reports whether t is a scalar written as text of its own:
// a string, number, boolean, bytes or date-time, or a type defined as one
// (an enum too). Not JSON text (json.RawMessage) and not a union.
func (b *builder) scalarText(t *model.GoType) bool {
	switch b.textOf(t).Form {
	case model.TextNone, model.TextConvert, model.TextMethod:
		return false
	}
	return true
}

// paramEncodable reports whether resgen can write t as parameter text:
// a scalar (scalarText), json.RawMessage (its JSON text), or a list of
// those.
func paramEncodable(b *builder, t *model.GoType) bool {
	if t.Kind == model.Slice {
		return t.Elem.Kind != model.Slice && paramEncodable(b, t.Elem)
	}
	if t.Kind == model.Qual && t.Pkg == "encoding/json" && t.Name == "RawMessage" {
		return true
	}
	return b.scalarText(t)
}

// part is how a multipart body sends field f: file parts, text values as
// fields, anything else as a JSON part, a list as one part per item.
func (b *builder) part(f *model.Field) *model.Part {
	t := f.Type
	p := &model.Part{Field: f, Kind: model.PartJSON}
	switch {
	case t.Kind == model.Pointer && isRuntimeFile(t.Elem):
		p.Kind = model.PartFile
	case t.Kind == model.Slice && t.Elem.Kind == model.Pointer && isRuntimeFile(t.Elem.Elem):
		p.Kind = model.PartFiles
	case t.Kind == model.Pointer && b.scalarText(t.Elem):
		p.Kind, p.Text = model.PartText, b.textOf(t.Elem)
	case b.scalarText(t):
		// A value, or []byte (nil when absent): a field either way, as
		// the spec's string says.
		p.Kind, p.Text = model.PartText, b.textOf(t)
	case t.Kind == model.Slice && b.scalarText(t.Elem):
		p.Kind, p.Text = model.PartTexts, b.textOf(t.Elem)
	case t.Kind == model.Slice:
		// A list of objects: one JSON part per item, as a list of text
		// values is one field per item.
		p.Kind = model.PartJSONs
	}
	return p
}

// isRuntimeFile reports whether t is runtime.File.
func isRuntimeFile(t *model.GoType) bool {
	return t.Kind == model.Qual && t.Pkg == runtimeFile.Pkg && t.Name == runtimeFile.Name
}

// decideText settles, once every type is declared, what the printer
// needs to know of other declarations: how each parameter and each
// variant of a union of scalars is written as text, which union variants
// are enums (and their values), and the fields a typed form checks.
func (b *builder) decideText() {
	for _, d := range b.file.Types {
		if d.Kind != model.Union {
			continue
		}
		for _, v := range d.Variants {
			if d.ParamText {
				v.Text = b.textOf(v.Type)
			}
			if v.Type.Kind != model.Named {
				continue
			}
			if vd := b.decl(v.Type.Name); vd != nil && vd.Kind == model.Enum {
				for _, ev := range vd.Values {
					v.Enum = append(v.Enum, fmt.Sprint(ev.Value))
				}
			}
		}
	}
	for _, op := range b.file.Operations {
		for _, p := range append(append([]*model.Param(nil), op.PathParams...), op.Params...) {
			if p.Object {
				continue
			}
			t := p.Type
			if t.Kind == model.Slice {
				t = t.Elem
			}
			p.Text = b.textOf(t)
		}
		bodies := []*model.Body{op.Body}
		for _, v := range op.Variants {
			bodies = append(bodies, v.Body)
		}
		for _, body := range bodies {
			if body != nil && body.Encoding == model.BodyFormTyped && body.Type.Kind == model.Named {
				if d := b.decl(body.Type.Name); d != nil {
					body.Fields = d.Fields
				}
			}
		}
	}
}
