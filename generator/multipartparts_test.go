package generator

import (
	"strings"
	"testing"
)

// The warning about a multipart part's declared contentType names what the
// client sends, and the client sends it so: one decision (build's part
// kind) makes both. They were apart: the warning guessed from the schema's
// type, so a part written as an allOf of a string was sent as a text field
// while the warning (none here) took it for JSON, and a list of untyped
// items was sent as JSON parts while the warning took them for text.
func TestMultipartWarningNamesWhatIsSent(t *testing.T) {
	spec := `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /up:
    post:
      operationId: up
      requestBody:
        content:
          multipart/form-data:
            schema:
              type: object
              properties:
                code: {allOf: [{$ref: "#/components/schemas/Code"}]}
                notes: {type: array, items: {}}
            encoding:
              code: {contentType: application/json}
              notes: {contentType: text/plain}
      responses: {"204": {description: ok}}
components:
  schemas:
    Code: {type: string}
`
	res, err := generateText(t, spec, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Diags {
		if strings.Contains(d.Msg, "is declared as") {
			msg, _, _ := strings.Cut(d.Msg, "; send the body")
			got = append(got, msg)
		}
	}
	want := []string{
		`unsupported: multipart part "code" is declared as application/json; resgen sends it as text/plain`,
		`unsupported: multipart part "notes" is declared as text/plain; resgen sends it as application/json`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	src := string(res.Source)
	for _, sent := range []string{`mp.Field("code", string(*body.Code))`, `mp.JSON("notes", x)`} {
		if !strings.Contains(src, sent) {
			t.Errorf("the client does not send %s:\n%s", sent, src)
		}
	}
}
