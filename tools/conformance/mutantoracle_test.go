package conformance

import (
	"encoding/json"
	"math"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// The first value of each number pool (what a call's first number gets)
// is changed by each careless way to write it: truncated to an integer,
// through float32, in strconv's shortest 'g' form, through float64 (an
// integer past 2^53).
func TestFirstNumbersShowEveryPrecisionLoss(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pool   []string
		checks []string
	}{
		{"double", doubleValues, []string{"truncated", "float32", "g"}},
		{"float", floatValues, []string{"truncated", "g"}}, // a float32 field: float32 holds it
		{"int64", int64Values, []string{"float64"}},
		{"uint64", uint64Values, []string{"float64"}},
		{"int32", int32Values, []string{"g"}},
	} {
		text := tc.pool[0]
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range tc.checks {
			var got string
			switch c {
			case "truncated":
				got = strconv.FormatInt(int64(f), 10)
			case "float32":
				got = strconv.FormatFloat(float64(float32(f)), 'f', -1, 64)
			case "g":
				got = strconv.FormatFloat(f, 'g', -1, 64)
			case "float64":
				got = strconv.FormatFloat(f, 'f', -1, 64)
			}
			if got == text {
				t.Errorf("%s pool's first value %s is the same %s: a client that writes it so is not caught", tc.name, text, c)
			}
		}
	}
	// And the synthesizer gives it to a parameter's first call, and to
	// an integer inside a composite parameter (an object's property).
	g := newSynth(0, -1, true)
	g.place = inQuery
	if v, _ := g.value(openapi3.NewFloat64Schema().NewRef(), 0, 0); v != 1234567.891 {
		t.Errorf("a number parameter's first value is %v", v)
	}
	obj := openapi3.NewObjectSchema().WithProperty("n", openapi3.NewInt64Schema())
	big := false
	for seed := range 2 { // two calls' seeds: one gets an adversarial value
		g := newSynth(seed, -1, true)
		g.place = inPath
		v, _ := g.value(obj.NewRef(), 0, 0)
		switch n := v.(map[string]any)["n"].(type) {
		case json.Number:
			big = true
		case float64:
			big = big || math.Abs(n) >= 1<<31
		}
	}
	if !big {
		t.Error("a path object's integer property is tame on both seeds")
	}
}

// TestOracleCatchesMutants plants one bug of each kind the harness missed
// before in testdata/oracle.yaml's client and asserts
// each is caught by the check meant for it: two path segments swapped
// (each path parameter has its own value), a number truncated (the first
// number is 1234567.891), a union variant decoded into Unknown (only the
// answers that take the nested union's second variant have it), a file
// part sent without its filename and with another Content-Type, an
// optional response field that re-encodes as null when the answer lacks
// it (one answer leaves the optional properties out).
func TestOracleCatchesMutants(t *testing.T) {
	opts := testOptions(t)
	correct := Run(t.Context(), "testdata/oracle.yaml", opts)
	if correct.Failed() || len(correct.NeverCalled) > 0 {
		t.Fatalf("the correct client fails: %+v, never called %v", correct.Failures, correct.NeverCalled)
	}
	opts.Mutate = mutation(t,
		`"/orgs/" + wire.PathSegment(org) + "/repos/" + wire.PathSegment(repo)`, `"/orgs/" + wire.PathSegment(repo) + "/repos/" + wire.PathSegment(org)`,
		`strconv.FormatFloat(params.Ratio, 'f', -1, 64)`, `strconv.FormatInt(int64(params.Ratio), 10)`,
		"case \"team\":\n\t\t\tu.Team = new(Team)", "case \"TEAM\":\n\t\t\tu.Team = new(Team)",
		`mp.TypedFile("file", "image/png", body.File)`, `mp.TypedFile("file", "text/plain", &runtime.File{Content: body.File.Content})`,
		"`json:\"description,omitzero\"`", "`json:\"description\"`",
	)
	r := Run(t.Context(), "testdata/oracle.yaml", opts)
	for _, want := range []struct{ name, op, kind, detail string }{
		{"path segments swapped", "GetRepo", "value", `path parameter "org"`},
		{"number truncated", "GetRepo", "text", `query parameter "ratio": is "1234567"`},
		{"union variant read as Unknown", "GetRepo", "union", ".Owner (RepoOwner) holds {\"kind\":\"team\""},
		{"omitzero removed from a response field", "GetRepo", "roundtrip", "/description: not sent, came back as null"},
		{"file part without its filename", "Upload", "body", `file part "file": filename ""`},
		{"file part with another Content-Type", "Upload", "body", `file part "file": Content-Type "text/plain"`},
	} {
		caught := false
		for _, f := range failuresOf(r, want.kind) {
			if f.Operation == want.op && strings.Contains(f.Detail, want.detail) {
				caught = true
				t.Logf("%s: caught [%s]: %s", want.name, f.Call, f.Detail)
				break
			}
		}
		if !caught {
			t.Errorf("%s: no %s failure of %s containing %q", want.name, want.kind, want.op, want.detail)
		}
	}
	if t.Failed() {
		for _, f := range r.Failures {
			t.Logf("%s [%s] %s: %s", f.Operation, f.Call, f.Kind, f.Detail)
		}
	}
}

// A mutant in a method of a type no operation's code refers to is dead
// code: deadAt says so; a method of a type an operation's result holds
// (through another type's field), a function live code calls or one an
// exported function (NewClient) calls is live.
func TestDeadCodeSites(t *testing.T) {
	src := `package client

type Client struct{}

type Resp struct{ Owner Owner }

type Owner struct{ Kind Kind }

type Kind string

func (k Kind) MarshalJSON() ([]byte, error) { return []byte("\"a\""), nil }

type Orphan string

func (o Orphan) MarshalJSON() ([]byte, error) { return []byte("\"b\""), nil }

func helper() string { return "c" }

func unused() string { return "d" }

func (c *Client) Get() (*Resp, error) { _ = helper(); return nil, nil }

func NewClient() *Client { _ = ops(); return &Client{} }

func ops() string { return "e" }
`
	f, err := parseSrc("x.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for lit, dead := range map[string]bool{`"\"a\""`: false, `"\"b\""`: true, `"c"`: false, `"d"`: true, `"e"`: false} {
		what, got := f.deadAt(strings.Index(src, lit))
		if got != dead {
			t.Errorf("%s (in %s): dead %v; want %v", lit, what, got, dead)
		}
	}
}

// A path parameter's list items and object values (and a label or matrix
// one's text) may hold a space, which only a path's escaping writes as
// %20: a client that escapes them as a form writes +.
func TestPathItemsHoldASpace(t *testing.T) {
	list := openapi3.NewArraySchema().WithItems(openapi3.NewStringSchema())
	for _, at := range []valuePlace{inPath, inPathDelimited} {
		spaced := false
		for seed := range 4 {
			g := newSynth(seed, -1, true)
			g.place = at
			v, _ := g.value(list.NewRef(), 0, 0)
			for _, it := range v.([]any) {
				spaced = spaced || strings.Contains(it.(string), " ")
			}
		}
		if !spaced {
			t.Errorf("place %d: no path list item holds a space", at)
		}
	}
}

// A float's pool values are what a float32 field writes back unchanged
// (encoding/json writes a float32's shortest text at 32 bits).
func TestFloatPoolSurvivesFloat32(t *testing.T) {
	for _, text := range floatValues {
		f, _ := strconv.ParseFloat(text, 64)
		b, _ := json.Marshal(float32(f))
		if string(b) != text {
			t.Errorf("%s: a float32 field writes %s", text, b)
		}
	}
}

// A number below a form's top level (a list of objects' property, a
// deepObject's) is held to its canonical text too: kin-openapi reads it
// through float64, where 9007199254740992 is 9007199254740993.
func TestNestedFormNumbers(t *testing.T) {
	body := map[string]any{"lines": []any{map[string]any{"quantity": json.Number("9007199254740993"), "price": "a b"}},
		"meta": map[string]any{"ratio": 1234567.891, "on": true}}
	for form, want := range map[string]string{
		"lines[0][quantity]=9007199254740993&lines[0][price]=a+b&meta[ratio]=1234567.891&meta[on]=true":       "",
		"lines[0][quantity]=9007199254740992&lines[0][price]=a+b&meta[ratio]=1234567.891&meta[on]=true":       `body field "lines[0][quantity]": is "9007199254740992"`,
		"lines[0][quantity]=9007199254740993&lines[0][price]=a+b&meta[ratio]=1.234567891e%2B06&meta[on]=true": `body field "meta[ratio]": is "1.234567891e+06"`,
	} {
		pairs, err := rawQueryPairs(form)
		if err != nil {
			t.Fatal(err)
		}
		values := map[string][]string{}
		for _, kv := range pairs {
			values[kv[0]] = append(values[kv[0]], kv[1])
		}
		probs := nestedFieldTexts(values, body)
		switch {
		case want == "" && len(probs) > 0:
			t.Errorf("%s: %v", form, probs)
		case want != "" && (len(probs) != 1 || !strings.Contains(probs[0].detail, want)):
			t.Errorf("%s: want %q; got %v", form, want, probs)
		}
	}
}

// A deepObject parameter's keys are the intended value's members: one
// sent under another name shows twice (missing and extra), a number off
// its canonical text shows.
func TestDeepObjectKeys(t *testing.T) {
	yes := true
	p := &openapi3.Parameter{In: "query", Name: "lines", Style: "deepObject", Explode: &yes, Schema: openapi3.NewArraySchema().NewRef()}
	c := &call{params: []intendedParam{{p, []any{map[string]any{"amount": json.Number("9007199254740993"), "name": "a b"}}}}}
	for query, want := range map[string][]string{
		"lines%5B0%5D%5Bamount%5D=9007199254740993&lines%5B0%5D%5Bname%5D=a%20b": nil,
		"lines%5B0%5D%5BAmount%5D=9007199254740993&lines%5B0%5D%5Bname%5D=a%20b": {"key lines[0][Amount] is sent; the intended value holds no such member", "key lines[0][amount] is not sent"},
		"lines%5B0%5D%5Bamount%5D=9007199254740992&lines%5B0%5D%5Bname%5D=a%20b": {`key lines[0][amount] is "9007199254740992"`},
	} {
		r := httptest.NewRequest("GET", "http://h/x?"+query, nil)
		probs := checkDeepObjectKeys(r, c)
		if len(probs) != len(want) {
			t.Errorf("%s: want %d problems; got %v", query, len(want), probs)
			continue
		}
		for i, w := range want {
			if !strings.Contains(probs[i].detail, w) {
				t.Errorf("%s: problem %d is %q; want %q", query, i, probs[i].detail, w)
			}
		}
	}
}

// Nested choices: a body's nested union and enum, and a parameter's own
// union or enum, count their alternatives (the top-level body union's
// own variants are its calls'); choiceRounds adds the calls that take
// each alternative under each top-level variant.
func TestNestedChoices(t *testing.T) {
	enum4 := openapi3.NewStringSchema().WithEnum("a", "b", "c", "d")
	union3 := &openapi3.Schema{AnyOf: openapi3.SchemaRefs{openapi3.NewIntegerSchema().NewRef(), openapi3.NewStringSchema().NewRef(), openapi3.NewObjectSchema().NewRef()}}
	body := &openapi3.Schema{OneOf: openapi3.SchemaRefs{
		openapi3.NewObjectSchema().WithProperty("e", enum4).NewRef(), openapi3.NewObjectSchema().NewRef()}}
	if n := nestedChoices(body.NewRef()); n != 4 {
		t.Errorf("body: %d nested choices; want 4 (the enum's)", n)
	}
	if n := nestedChoices(union3.NewRef()); n != 1 {
		t.Errorf("a top-level union alone: %d nested choices; want 1", n)
	}
	params := map[string]*openapi3.Parameter{"u": {Name: "u", In: "query", Schema: union3.NewRef()}}
	if n := paramChoices(params); n != 3 {
		t.Errorf("parameter union: %d choices; want 3", n)
	}
	vs, seeds := choiceRounds(2, 4, 0)
	if len(vs) != 6 {
		t.Errorf("%d extra calls; want 6 (2 variants by 3 more seeds)", len(vs))
	}
	for v := range 2 {
		for seed := 1; seed < 4; seed++ {
			if !slices.Contains(seeds, v+seed) {
				t.Errorf("variant %d never gets seed %d", v, v+seed)
			}
		}
	}
}

// A query, header or simple path list's items are read back exactly,
// strings and item count included (kin-openapi's value check cannot pin
// an integer past 2^53 and excepts typeless items): an item dropped, a
// wrong delimiter, a space escaped as a form's + show.
func TestStrictCompositeText(t *testing.T) {
	p := &openapi3.Parameter{In: "query", Name: "l", Schema: openapi3.NewArraySchema().NewRef()}
	path := &openapi3.Parameter{In: "path", Name: "p", Schema: openapi3.NewArraySchema().NewRef()}
	yes := true
	obj := &openapi3.Parameter{In: "query", Name: "o", Style: "form", Explode: &yes, Schema: openapi3.NewObjectSchema().NewRef()}
	items := []any{json.Number("9007199254740993"), "a b/c"}
	for _, tc := range []struct {
		p          *openapi3.Parameter
		wire, want string
	}{
		{p, "l=9007199254740993&l=a%20b%2Fc", ""},
		{p, "l=a%20b%2Fc", "1 items on the wire"},
		{p, "l=9007199254740993%7Ca%20b%2Fc", "1 items on the wire"},
		{path, "9007199254740993,a%20b%2Fc", ""},
		{path, "9007199254740993,a+b%2Fc", `item 2 is "a+b/c"`},
		{obj, "a=9007199254740993&b=x%20y", ""},
		{obj, "o=a,9007199254740993,b,x%20y", `query parameter "o" is not on the wire as its style writes it`}, // explode flipped
	} {
		r := httptest.NewRequest("GET", "http://h/x", nil)
		raw := map[string]string{}
		if tc.p.In == "query" {
			r.URL.RawQuery = tc.wire
		} else {
			raw[tc.p.Name] = tc.wire
		}
		value := any(items)
		if tc.p == obj {
			value = map[string]any{"a": json.Number("9007199254740993"), "b": "x y"}
		}
		probs := checkText(r, raw, &call{params: []intendedParam{{tc.p, value}}})
		switch {
		case tc.want == "" && len(probs) > 0:
			t.Errorf("%s: %v", tc.wire, probs)
		case tc.want != "" && (len(probs) != 1 || !strings.Contains(probs[0].detail, tc.want)):
			t.Errorf("%s: want %q; got %v", tc.wire, tc.want, probs)
		}
	}
}

// An Allows on the discriminator after the discriminator's own switch
// returned is shadowed (equivalent); one on another member is not.
func TestShadowedAllows(t *testing.T) {
	src := "package client\n\nfunc (u *K) UnmarshalJSON(data []byte) error {\n" +
		"\tif d, ok := wire.Discriminator(data, \"kty\"); ok {\n\t\tswitch d {\n\t\tcase \"EC\":\n\t\t\treturn nil\n\t\t}\n\t\treturn nil\n\t}\n" +
		"\tobj := wire.ParseObject(data)\n\tif obj.Allows(\"kty\", `\"EC\"`) && obj.Allows(\"use\", `\"enc\"`) {\n\t\treturn nil\n\t}\n\treturn nil\n}\n"
	f, err := parseSrc("x.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !f.shadowedAt(strings.Index(src, "`\"EC\"`")) {
		t.Error("Allows(\"kty\", \"EC\") after the kty switch: not shadowed")
	}
	if f.shadowedAt(strings.Index(src, "`\"enc\"`")) {
		t.Error("Allows(\"use\", \"enc\"): shadowed")
	}
	if f.shadowedAt(strings.Index(src, "case \"EC\"") + 5) {
		t.Error("the switch's own case: shadowed")
	}
}
