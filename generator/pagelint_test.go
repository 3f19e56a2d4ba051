package generator

import (
	"strings"
	"testing"
)

// pagedSpec is a spec whose GET /items takes param and answers with
// answer (the 200 response's YAML, indented for it); extra is written in
// the operation (an annotation).
func pagedSpec(param, answer, extra string) string {
	return `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /items:
    get:
` + extra + `      parameters:
        - {name: ` + param + `, in: query, schema: {type: string}}
      responses:
        "200":
` + answer
}

const cursorAnswer = `          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  data: {type: array, items: {type: string}}
                  meta: {type: object, properties: {next_cursor: {type: string}}}
`

// TestLintLooksPaged: an operation that looks paged but says not how gets
// exactly one warning, at the operation, with the annotation to add; one
// that says how, or does not look paged, gets none.
func TestLintLooksPaged(t *testing.T) {
	cases := []struct {
		name, spec, want string
	}{
		{"cursor in a body field", pagedSpec("after", cursorAnswer, ""),
			`spec.yaml:5:5: warning: operation GET /items looks paged (query parameter "after" and field "meta.next_cursor") but does not say how: its client gets no iterator over its pages` +
				"\n\tat #/paths/~1items/get\n\tfix: add x-resilience: {pagination: {kind: cursor, param: after, next: meta.next_cursor, items: data}} (or the same object as x-pagination), by hand or by an overlay"},
		{"Link header", pagedSpec("page", `          description: ok
          headers: {Link: {schema: {type: string}}}
          content: {application/json: {schema: {type: array, items: {type: string}}}}
`, ""),
			`spec.yaml:5:5: warning: operation GET /items looks paged (query parameter "page" and a Link header) but does not say how: its client gets no iterator over its pages` +
				"\n\tat #/paths/~1items/get\n\tfix: add x-resilience: {pagination: {kind: link}} (or the same object as x-pagination), by hand or by an overlay"},
		{"annotated", pagedSpec("after", cursorAnswer, "      x-pagination: {kind: cursor, param: after, next: /meta/next_cursor, items: data}\n"), ""},
		{"no next field", pagedSpec("after", `          description: ok
          content: {application/json: {schema: {type: object, properties: {data: {type: array, items: {type: string}}}}}}
`, ""), ""},
		{"no paging parameter", pagedSpec("filter", cursorAnswer, ""), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := generateText(t, c.spec, false)
			if err != nil {
				t.Fatal(err)
			}
			var warns []string
			for _, d := range res.Diags {
				warns = append(warns, d.String())
			}
			if got := strings.Join(warns, "\n"); got != c.want {
				t.Fatalf("warnings:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}
