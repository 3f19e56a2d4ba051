package generator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// securityOf generates a spec given as text and returns the model's
// schemes (name kind option), each operation's security and the warnings.
func securityOf(t *testing.T, text string) (schemes, ops, warns []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "api.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Generate(context.Background(), Config{Spec: path, Package: "x"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Model.SecuritySchemes {
		schemes = append(schemes, s.Name+" "+s.Kind+" "+s.Option)
	}
	for _, op := range res.Model.Operations {
		ops = append(ops, fmt.Sprintf("%s %v", op.ID, op.Security))
	}
	for _, d := range res.Diags {
		if strings.Contains(d.Msg, "security scheme") {
			warns = append(warns, fmt.Sprintf("%d: %s", d.Line, d.Msg))
		}
	}
	return schemes, ops, warns
}

// Swagger 2's securityDefinitions become the same options (kin converts
// them), and requirements follow the same rules: the operation's own
// replaces the spec's, [] means none.
func TestSwagger2SecurityDefinitions(t *testing.T) {
	schemes, ops, _ := securityOf(t, `swagger: "2.0"
info: {title: t, version: "1"}
security: [{basic: []}]
securityDefinitions:
  basic: {type: basic}
  key: {type: apiKey, in: header, name: X-Key}
  oauth: {type: oauth2, flow: implicit, authorizationUrl: "https://a.example/auth", scopes: {}}
paths:
  /a:
    get: {operationId: a, responses: {"200": {description: ok}}}
  /b:
    get: {operationId: b, security: [{key: []}, {oauth: []}], responses: {"200": {description: ok}}}
  /c:
    get: {operationId: c, security: [], responses: {"200": {description: ok}}}
`)
	if got, want := strings.Join(schemes, ", "), "basic basic WithBasic, key header WithKey, oauth bearer WithOauth"; got != want {
		t.Errorf("schemes %s, want %s", got, want)
	}
	if got, want := strings.Join(ops, ", "), "a [[basic]], b [[key] [oauth]], c []"; got != want {
		t.Errorf("operations %s, want %s", got, want)
	}
}

// Two schemes whose names make the same option: the second is numbered,
// with a warning; a scheme no operation requires gets no option; only
// empty alternatives mean none.
func TestSchemeOptionNamesAreUnique(t *testing.T) {
	schemes, ops, warns := securityOf(t, `openapi: "3.0.3"
info: {title: t, version: "1"}
paths:
  /a:
    get:
      operationId: a
      security: [{api_key: [], apiKey: []}]
      responses: {"200": {description: ok}}
  /b:
    get:
      operationId: b
      security: [{}]
      responses: {"200": {description: ok}}
components:
  securitySchemes:
    api_key: {type: apiKey, in: query, name: k}
    apiKey: {type: apiKey, in: cookie, name: k}
    unused: {type: http, scheme: bearer}
`)
	if got, want := strings.Join(schemes, ", "), "apiKey cookie WithAPIKey, api_key query WithAPIKey2"; got != want {
		t.Errorf("schemes %s, want %s", got, want)
	}
	if got, want := strings.Join(ops, ", "), "a [[apiKey api_key]], b []"; got != want {
		t.Errorf("operations %s, want %s", got, want)
	}
	if got, want := strings.Join(warns, "\n"), `16: security scheme "api_key": its client option is WithAPIKey2, as WithAPIKey is taken`; got != want {
		t.Errorf("warnings\n%s\nwant\n%s", got, want)
	}
}
