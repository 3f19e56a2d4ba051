package emit

import (
	"strings"
	"testing"

	"github.com/resgen/resgen/generator/model"
)

// TestTextIsTheModels: the printer writes a parameter's and a multipart
// part's text as model.Text says, with no declaration of the types in the
// model to look at: the builder decided, and a Text the builder changes
// changes the call printed.
func TestTextIsTheModels(t *testing.T) {
	str := &model.GoType{Kind: model.Builtin, Name: "string"}
	shade := &model.GoType{Kind: model.Named, Name: "Shade"} // type Shade Tone; type Tone string
	tone := &model.GoType{Kind: model.Named, Name: "Tone"}
	level := &model.GoType{Kind: model.Named, Name: "Level"} // a union of scalars
	count := &model.GoType{Kind: model.Builtin, Name: "int64"}
	sig := &model.GoType{Kind: model.Builtin, Name: "[]byte"}
	parts := &model.GoType{Kind: model.Named, Name: "PaintMultipart"}
	fields := []*model.Field{
		{Name: "Sig", JSONName: "sig", Type: sig},
		{Name: "Count", JSONName: "count", Type: &model.GoType{Kind: model.Pointer, Elem: count}},
	}
	op := &model.Operation{
		Name: "Paint", ID: "paint", Method: "POST", Path: "/paint/{shade}", URLPath: "/paint/{shade}",
		PathParams: []*model.Param{{GoName: "shade", SpecName: "shade", In: model.InPath, Required: true, Type: shade,
			Text: model.Text{Form: model.TextString, Via: []*model.GoType{tone, str}}}},
		Params: []*model.Param{{GoName: "Level", SpecName: "level", In: model.InQuery, Type: level, Explode: true,
			Text: model.Text{Form: model.TextMethod}}},
		ParamsType: "PaintParams",
		Body: &model.Body{ContentType: "multipart/form-data", Encoding: model.BodyMultipartFields, Type: parts, Required: true,
			Fields: fields, Parts: []*model.Part{
				{Field: fields[0], Kind: model.PartText, Text: model.Text{Form: model.TextBase64}},
				{Field: fields[1], Kind: model.PartText, Text: model.Text{Form: model.TextInt}},
			}},
		ResponseType: "PaintResponse", OpField: "opPaint", Policy: &model.OpPolicy{},
	}
	out, err := Render(&model.File{Package: "p", Source: "spec.yaml", Operations: []*model.Operation{op}}, SplitNone)
	if err != nil {
		t.Fatal(err)
	}
	src := string(out[0].Source)
	for _, want := range []string{
		`if shade == "" {`,
		`"/paint/" + wire.PathSegment(string(Tone(shade)))`,
		`req.Query.Add("level", (*params.Level).ParamText())`,
		`if body.Sig != nil {`,
		`mp.Field("sig", base64.StdEncoding.EncodeToString(body.Sig))`,
		`mp.Field("count", strconv.FormatInt(int64(*body.Count), 10))`,
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the source lacks %s:\n%s", want, src)
		}
	}
}
