package conformance

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// checkText reads every style and explode form back and holds each
// scalar to its canonical text (strings too, in cookies), where
// kin-openapi's parsers take "1", "05" and "1e+06".
func TestCheckTextReadsEveryStyle(t *testing.T) {
	yes, no := true, false
	param := func(in, name, style string, explode *bool) *openapi3.Parameter {
		return &openapi3.Parameter{In: in, Name: name, Style: style, Explode: explode, Schema: openapi3.NewStringSchema().NewRef()}
	}
	ints := []any{1.0, json.Number("9007199254740993")}
	obj := map[string]any{"a": true, "b": 2.5}
	for _, tc := range []struct {
		name  string
		p     *openapi3.Parameter
		value any
		// query, header (name: value), cookie or path text, right and wrong.
		right, wrong, problem string
	}{
		{"query form", param("query", "n", "", nil), ints, "n=1&n=9007199254740993", "n=1&n=9007199254740992", `item 2 is "9007199254740992"`},
		{"query form, explode false", param("query", "n", "form", &no), ints, "n=1,9007199254740993", "n=01,9007199254740993", `item 1 is "01"`},
		{"query spaceDelimited", param("query", "n", "spaceDelimited", nil), ints, "n=1%209007199254740993", "n=%2B1%209007199254740993", `item 1 is "+1"`},
		{"query pipeDelimited", param("query", "n", "pipeDelimited", nil), ints, "n=1|9007199254740993", "n=1|9.007199254740993e15", `item 2 is "9.007199254740993e15"`},
		{"query deepObject", param("query", "f", "deepObject", &yes), obj, "f%5Ba%5D=true&f%5Bb%5D=2.5", "f%5Ba%5D=1&f%5Bb%5D=2.5", `property "a" is "1"`},
		{"query form object", param("query", "f", "form", &yes), obj, "a=true&b=2.5", "a=true&b=2.50", `property "b" is "2.50"`},
		{"query form object, explode false", param("query", "f", "form", &no), obj, "f=a,true,b,2.5", "f=a,TRUE,b,2.5", `property "a" is "TRUE"`},
		{"query scalar", param("query", "r", "", nil), 1000000.0, "r=1000000", "r=1e%2B06", `is "1e+06"`},
		{"header simple", param("header", "X-N", "", nil), ints, "1,9007199254740993", "1,+9007199254740993", `item 2 is "+9007199254740993"`},
		{"header object", param("header", "X-O", "", &no), obj, "a,true,b,2.5", "a,True,b,2.5", `property "a" is "True"`},
		{"header object, explode", param("header", "X-O", "", &yes), obj, "a=true,b=2.5", "a=true,b=25e-1", `property "b" is "25e-1"`},
		{"path simple", param("path", "p", "", nil), ints, "1,9007199254740993", "1.0,9007199254740993", `item 1 is "1.0"`},
		{"path label", param("path", "p", "label", &no), ints, ".1,9007199254740993", ".1,09007199254740993", `item 2 is "09007199254740993"`},
		{"path label, explode", param("path", "p", "label", &yes), ints, ".1.9007199254740993", ".+1.9007199254740993", `item 1 is "+1"`},
		// (a label's "." is a fraction's point too: the harness sends none there)
		{"path label object, explode", param("path", "p", "label", &yes), map[string]any{"a": true, "b": 2.0}, ".a=true.b=2", ".a=1.b=2", `property "a" is "1"`},
		{"path matrix", param("path", "p", "matrix", &no), ints, ";p=1,9007199254740993", ";p=1,9007199254740993.0", `item 2 is "9007199254740993.0"`},
		{"path matrix, explode", param("path", "p", "matrix", &yes), ints, ";p=1;p=9007199254740993", ";p=0x1;p=9007199254740993", `item 1 is "0x1"`},
		{"path matrix object, explode", param("path", "p", "matrix", &yes), obj, ";a=true;b=2.5", ";a=true;b=2.5e0", `property "b" is "2.5e0"`},
		{"path string", param("path", "p", "", nil), "a b/c", "a%20b%2Fc", "a%20b%2Fc", ""},
		{"cookie list", param("cookie", "c", "form", &no), ints, "1,9007199254740993", "1,9007199254740993e0", `item 2 is "9007199254740993e0"`},
		{"cookie string", param("cookie", "c", "form", nil), "a b+c", "a%20b%2Bc", "a+b%2Bc", `is "a+b+c"`},
		{"cookie quoted", param("cookie", "c", "form", &no), []any{"x", "y z"}, `"x,y%20z"`, "x,y+z", `item 2 is "y+z"`},
	} {
		for _, wire := range []string{tc.right, tc.wrong} {
			r := httptest.NewRequest("GET", "http://h/x", nil)
			raw := map[string]string{}
			switch tc.p.In {
			case "query":
				r.URL.RawQuery = wire
			case "header":
				r.Header.Set(tc.p.Name, wire)
			case "cookie":
				r.Header.Set("Cookie", "other=1; "+tc.p.Name+"="+wire)
			case "path":
				raw[tc.p.Name] = wire
			}
			c := &call{params: []intendedParam{{tc.p, tc.value}}}
			probs := checkText(r, raw, c)
			var got []string
			for _, p := range probs {
				got = append(got, p.detail)
			}
			switch {
			case wire == tc.right && tc.problem != "" && len(probs) > 0:
				t.Errorf("%s: %q is right; got %q", tc.name, wire, got)
			case wire == tc.wrong && tc.problem != "" && (len(probs) != 1 || !strings.Contains(probs[0].detail, tc.problem)):
				t.Errorf("%s: %q: want one problem with %q; got %q", tc.name, wire, tc.problem, got)
			case tc.problem == "" && len(probs) > 0:
				t.Errorf("%s: %q: %q", tc.name, wire, got)
			}
		}
	}
}

// Accept must list only declared media types, and accept each response.
func TestCheckAccept(t *testing.T) {
	op := openapi3.NewOperation()
	op.Responses = openapi3.NewResponses()
	op.Responses.Set("200", &openapi3.ResponseRef{Value: openapi3.NewResponse().WithContent(openapi3.NewContentWithJSONSchema(openapi3.NewObjectSchema()))})
	xml := openapi3.NewResponse()
	xml.Content = openapi3.Content{"application/problem+xml": openapi3.NewMediaType(), "application/problem+json": openapi3.NewMediaType()}
	op.Responses.Set("400", &openapi3.ResponseRef{Value: xml})
	c := &call{kinOp: op}
	for accept, want := range map[string]string{
		"application/json, application/problem+json": "",
		"application/json, application/*":            "",
		"*/*":                                        "",
		"":                                           "no Accept header",
		"application/json":                           "accepts none of a response's media types application/problem+json, application/problem+xml",
		"application/json, text/html":                "Accept lists text/html, which no response declares",
		"application/json;q=1, application/problem+json;q=0": "accepts none of",
	} {
		r := httptest.NewRequest("GET", "http://h/x", nil)
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		probs := checkAccept(r, c)
		switch {
		case want == "" && len(probs) > 0:
			t.Errorf("Accept %q: %v", accept, probs)
		case want != "" && (len(probs) == 0 || !strings.Contains(probs[0].detail, want)):
			t.Errorf("Accept %q: want %q; got %v", accept, want, probs)
		}
	}
	_ = http.MethodGet
}

// A form's numbers and booleans are held to their canonical text too, and
// a field the intended body lacks is extra.
func TestCheckFields(t *testing.T) {
	schema := openapi3.NewObjectSchema().WithProperty("title", openapi3.NewStringSchema()).
		WithProperty("size", openapi3.NewIntegerSchema()).WithProperty("on", openapi3.NewBoolSchema()).
		WithProperty("ids", openapi3.NewArraySchema().WithItems(openapi3.NewIntegerSchema())).WithProperty("tag", openapi3.NewStringSchema())
	op := openapi3.NewOperation()
	op.RequestBody = &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody().WithFormDataSchema(schema)}
	op.RequestBody.Value.Content = openapi3.Content{"application/x-www-form-urlencoded": op.RequestBody.Value.Content["multipart/form-data"]}
	c := &call{kinOp: op, bodyCT: "application/x-www-form-urlencoded",
		body: map[string]any{"title": "a b", "size": 5.0, "on": true, "ids": []any{1.0, 20.0}}}
	for body, want := range map[string]string{
		"title=a+b&size=5&on=true&ids=1&ids=20":      "",
		"title=a+b&size=05&on=true&ids=1&ids=20":     `body field "size": is "05"`,
		"title=a+b&size=5&on=1&ids=1&ids=20":         `body field "on": is "1"`,
		"title=a+b&size=5&on=true&ids=1&ids=2e1":     `body field "ids": item 2 is "2e1"`,
		"title=a+b&size=5&on=true&ids=1&ids=20&tag=": `body field "tag" is sent; the call left it unset`,
		"title=a+b&size=5&on=true&ids=1&ids=20&x=1":  `body field "x" is sent; the body declares no such property`,
	} {
		r := httptest.NewRequest("POST", "http://h/x", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		probs := checkFields(r, []byte(body), c)
		switch {
		case want == "" && len(probs) > 0:
			t.Errorf("%s: %v", body, probs)
		case want != "" && (len(probs) != 1 || !strings.Contains(probs[0].detail, want)):
			t.Errorf("%s: want %q; got %v", body, want, probs)
		}
	}
}
