package build

import (
	"slices"
	"strings"
	"testing"
)

// Inline union variants are named by their title, tag value, one-value
// enum or own required key, else by position, after the union's name
// shortened to keep them within maxVariantName (real specs gave names of
// 100+ characters, ...Variant1).
func TestInlineVariantNames(t *testing.T) {
	long := strings.Repeat("verylongsegment_", 6) + "end"
	spec := `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /x:
    post:
      operationId: ` + long + `
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                action:
                  oneOf:
                    - {type: object, required: [type, url], properties: {type: {type: string, enum: [redirect]}, url: {type: string}}}
                    - {type: object, required: [type, url], properties: {type: {type: string, enum: [await]}, url: {type: string}}}
                    - {type: object, required: [code], properties: {code: {type: string}}}
                    - {type: object, properties: {note: {type: string}}}
                    - {type: string, enum: [""]}
                    - {title: Named, type: object, properties: {n: {type: integer}}}
      responses: {"204": {description: ok}}
`
	file := buildSpec(t, spec)
	var names []string
	for _, ty := range file.Types {
		names = append(names, ty.Name)
	}
	// Every variant shares one prefix, shortened for the longest suffix.
	prefix := shortenName(exportedName(long, "")+"BodyAction", maxVariantName-len("Variant4"))
	for _, want := range []string{
		prefix + "Redirect", prefix + "Await", // the tag's value
		prefix + "Code",     // a key only it requires
		prefix + "Variant4", // nothing tells it: its position
		prefix + "Empty",    // a one-value enum, ""
		"Named",             // its title
	} {
		if !slices.Contains(names, want) {
			t.Errorf("no type %s; types: %v", want, names)
		}
		if len(want) > maxVariantName {
			t.Errorf("%s is %d characters, more than %d", want, len(want), maxVariantName)
		}
	}
	if !strings.HasPrefix(prefix, "Verylongsegment") || !strings.HasSuffix(prefix, "BodyAction") {
		t.Errorf("shortened union name %q lost its first word or its last ones", prefix)
	}
}
