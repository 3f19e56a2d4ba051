package generator

import (
	"slices"
	"strings"
	"testing"
)

// TestSecretQueryParamsFromSecuritySchemes: the query names of apiKey
// security schemes (OpenAPI 3 securitySchemes, Swagger 2
// securityDefinitions) reach impl.Config.SecretQueryParams, sorted and
// once each; header and cookie keys do not.
func TestSecretQueryParamsFromSecuritySchemes(t *testing.T) {
	paths := `
paths:
  /x:
    get:
      operationId: getX
      responses:
        "200": {description: ok}
`
	for name, spec := range map[string]string{
		"openapi 3": `openapi: "3.0.3"
info: {title: t, version: "1"}
components:
  securitySchemes:
    b: {type: apiKey, in: query, name: zkey}
    a: {type: apiKey, in: query, name: appid}
    dup: {type: apiKey, in: query, name: appid}
    h: {type: apiKey, in: header, name: X-Api-Key}
    c: {type: apiKey, in: cookie, name: sid}
    bearer: {type: http, scheme: bearer}
` + paths,
		"swagger 2": `swagger: "2.0"
info: {title: t, version: "1"}
securityDefinitions:
  a: {type: apiKey, in: query, name: appid}
  b: {type: apiKey, in: query, name: zkey}
  h: {type: apiKey, in: header, name: X-Api-Key}
` + paths,
	} {
		t.Run(name, func(t *testing.T) {
			res, err := generateText(t, spec, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Model.SecretQueryParams; !slices.Equal(got, []string{"appid", "zkey"}) {
				t.Fatalf("SecretQueryParams %q, want [appid zkey]", got)
			}
			if !strings.Contains(string(res.Source), `SecretQueryParams: []string{"appid", "zkey"},`) {
				t.Fatalf("NewClient does not pass the names:\n%s", res.Source)
			}
		})
	}
}
