package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Load problems and spec-author mistakes through the CLI: each diagnostic
// names file:line:col and its JSON pointer, each is printed once, and a
// failed run leaves the old output as it was.
func TestLoadDiagnosticsThroughTheCLI(t *testing.T) {
	t.Chdir("../..")
	const load, lint = "testdata/specs/loaderr/", "testdata/lint/"
	cases := []struct {
		name   string
		args   []string // after generate; -package and -o are added
		code   int
		want   []string // each occurs exactly once in stderr
		absent []string // none occurs in stderr
	}{
		{"unused broken Swagger parameters entry is skipped", []string{"-spec", load + "swagger-unused-broken-parameter.yaml"}, exitOK,
			[]string{load + "swagger-unused-broken-parameter.yaml:14:5: warning: parameters entry \"Thing\" is skipped: no $ref uses it, and it cannot be read: json: cannot unmarshal array into field Parameter.required of type bool\n\tat #/parameters/Thing/required\n"},
			[]string{"error"}},
		{"unused broken components are skipped", []string{"-spec", load + "unused-broken-components.yaml"}, exitOK,
			[]string{
				load + "unused-broken-components.yaml:17:28: warning: components/schemas entry \"Unused\" is skipped: no $ref uses it, and it cannot be read: cannot construct !!str `maybe` into bool\n\tat #/components/schemas/Unused/nullable\n",
				load + "unused-broken-components.yaml:21:27: warning: components/schemas entry \"AlsoUnused\" is skipped: no $ref uses it, and it cannot be read: cannot construct !!str `sometimes` into bool\n\tat #/components/schemas/AlsoUnused/properties/a/readOnly\n",
			},
			[]string{"error"}},
		{"broken schema used through a discriminator mapping", []string{"-spec", load + "used-by-mapping.yaml"}, exitInput,
			[]string{load + "used-by-mapping.yaml:23:25: error: cannot load spec: cannot construct !!str `sometimes` into bool\n\tat #/components/schemas/Cat/readOnly\n"},
			[]string{"skipped"}},
		{"used broken Swagger parameters entry", []string{"-spec", load + "swagger-used-broken-parameter.yaml"}, exitInput,
			[]string{load + "swagger-used-broken-parameter.yaml:15:5: error: cannot load spec: json: cannot unmarshal array into field Parameter.required of type bool\n\tat #/parameters/Thing/required\n"},
			nil},
		{"broken Swagger operation parameter", []string{"-spec", load + "swagger-broken-operation-parameter.yaml"}, exitInput,
			[]string{load + "swagger-broken-operation-parameter.yaml:12:11: error: cannot load spec: json: cannot unmarshal array into field Parameter.required of type bool\n\tat #/paths/~1x/get/parameters/0/required\n"},
			nil},
		{"Swagger conversion error", []string{"-spec", load + "swagger-two-bodies.yaml"}, exitInput,
			[]string{load + "swagger-two-bodies.yaml:10:11: error: cannot load spec: multiple body parameters cannot exist for the same operation\n\tat #/paths/~1x/post/parameters/1\n"},
			nil},
		{"items lists in values are not repaired", []string{"-spec", load + "items-in-values.yaml"}, exitOK,
			[]string{
				load + "items-in-values.yaml:19:17: warning: repaired: items must be one schema",
				load + "items-in-values.yaml:32:32: warning: repaired: items must be one schema",
				load + "items-in-values.yaml:33:31: warning: repaired: items must be one schema",
			},
			[]string{"items-in-values.yaml:7:", "items-in-values.yaml:21:", "items-in-values.yaml:25:", "items-in-values.yaml:34:",
				"items-in-values.yaml:35:", "items-in-values.yaml:36:", "items-in-values.yaml:37:", "items-in-values.yaml:39:", "description is not a string"}},
		{"kin-openapi decode error", []string{"-spec", load + "unmarshal-error.yaml"}, exitInput,
			[]string{load + "unmarshal-error.yaml:15:17: error: cannot load spec: cannot construct !!str `maybe` into bool\n\tat #/paths/~1x/get/responses/200/content/application~1json/schema/nullable\n"},
			nil},
		{"repaired, then failing", []string{"-spec", load + "repair-then-fail.json"}, exitInput,
			[]string{
				load + "repair-then-fail.json:17:46: error: cannot load spec: cannot construct !!str `maybe` into bool\n\tat #/paths/~1x/get/responses/200/content/application~1json/schema/nullable\n",
				load + "repair-then-fail.json:10:40: warning: repaired: items must be one schema",
			},
			[]string{"invalid character", ":1: error"}},
		{"repaired Swagger JSON is still Swagger", []string{"-spec", load + "swagger-repaired.json"}, exitOK,
			[]string{load + "swagger-repaired.json:9:67: warning: repaired: items must be one schema"},
			[]string{"value of openapi must be"}},
		{"repaired file read again, failing", []string{"-strict", "-spec", load + "repair-twice/root.yaml"}, exitInput,
			[]string{
				load + "repair-twice/root.yaml:16:22: warning: repaired: items must be one schema",
				load + "repair-twice/root.yaml:17:56: warning: repaired: required in a schema",
			},
			nil},
		{"schema in another file that does not decode", []string{"-spec", load + "external-cause/root.yaml"}, exitInput,
			[]string{load + "external-cause/other.yaml:7:23: error: cannot load spec: cannot construct !!str `maybe` into bool\n\tat #/Thing/properties/a/nullable\n\tfix: read through the $ref at " + load + "external-cause/root.yaml:14:24\n"},
			nil},
		{"path item file that does not decode", []string{"-spec", load + "external-file/root.yaml"}, exitInput,
			[]string{load + "external-file/px.yaml:15:34: error: cannot load spec: cannot construct !!str `maybe` into bool\n\tat #/get/responses/200/content/application~1json/schema/nullable\n"},
			[]string{"root.yaml:"}},
		{"validation warning", []string{"-spec", load + "invalid-schema.yaml"}, exitOK,
			[]string{load + "invalid-schema.yaml:16:5: warning: spec does not validate: invalid components: schema \"Bad\": unsupported 'type' value \"strin\"\n\tat #/components/schemas/Bad\n"},
			nil},
		{"validation error under -strict", []string{"-strict", "-spec", load + "invalid-schema.yaml"}, exitInput,
			[]string{load + "invalid-schema.yaml:16:5: error: spec does not validate: invalid components: schema \"Bad\": unsupported 'type' value \"strin\"\n\tat #/components/schemas/Bad\n"},
			nil},
		{"validation warning at an operation", []string{"-spec", load + "invalid-path-params.yaml"}, exitOK,
			[]string{load + "invalid-path-params.yaml:7:5: warning: spec does not validate: invalid paths: operation GET /x/{id} must define exactly all path parameters (missing: [id])\n\tat #/paths/~1x~1{id}/get\n"},
			nil},
		{"path parameters that are not in the path", []string{"-spec", load + "stray-path-params.yaml"}, exitOK,
			[]string{
				load + "stray-path-params.yaml:12:11: warning: path parameter \"id\" is not in the path \"/groups\": the client has no argument for it and sends nothing\n\tat #/paths/~1groups/get/parameters/0\n",
				load + "stray-path-params.yaml:20:11: warning: path parameter \"id\" is not in the path \"/scopes\": the client has no argument for it and sends nothing\n\tat #/paths/~1scopes/get/parameters/0\n",
			},
			nil},
		{"validation warning at a field", []string{"-spec", load + "invalid-info.yaml"}, exitOK,
			[]string{load + "invalid-info.yaml:3:18: warning: spec does not validate: invalid info: value of version must be a non-empty string\n\tat #/info/version\n"},
			nil},
		{"$ref to something of another kind", []string{"-spec", load + "ref-wrong-kind.yaml"}, exitInput,
			[]string{load + "ref-wrong-kind.yaml:13:24: error: cannot load spec: bad data in \"#/info/title\" (expecting ref to schema object)\n\tat #/paths/~1x/get/responses/200/content/application~1json/schema/$ref\n"},
			nil},
		// A schema $ref to another kind of component (as real specs write)
		// was refused with no position, or at another $ref's line.
		{"schema $ref to a response", []string{"-spec", "testdata/specs/load/ref-to-response.yaml"}, exitOK,
			[]string{
				"testdata/specs/load/ref-to-response.yaml:28:25: warning: repaired: $ref \"#/components/responses/Thing\" is where a schema belongs, but it names a response; it is read as the schema that response holds, copied to #/components/schemas/Thing\n",
				"testdata/specs/load/ref-to-response.yaml:35:22: warning: repaired: $ref \"#/components/responses/Error\" is where a schema belongs, but it names a response; it is read as the schema that response holds, #/components/schemas/Problem\n",
			},
			[]string{"error", "ref-to-response.yaml:17:"}},
		{"Swagger schema $ref to a body parameter", []string{"-spec", "testdata/specs/load/ref-to-parameter.yaml"}, exitOK,
			[]string{
				"testdata/specs/load/ref-to-parameter.yaml:21:20: warning: repaired: $ref \"#/parameters/Order\" is where a schema belongs, but it names a parameter; it is read as the schema that parameter holds, copied to #/definitions/Order\n",
				"testdata/specs/load/ref-to-parameter.yaml:31:21: warning: repaired: $ref \"#/parameters/Order\" is where a schema belongs, but it names a parameter; it is read as the schema that parameter holds, copied to #/definitions/Order\n",
				"testdata/specs/load/ref-to-parameter.yaml:35:20: warning: repaired: $ref \"#/parameters/Note\" is where a schema belongs, but it names a parameter; it is read as the schema that parameter holds, #/definitions/Note\n",
			},
			[]string{"error"}},
		{"schema $ref to a response of two schemas", []string{"-spec", load + "ref-wrong-kind-ambiguous.yaml"}, exitInput,
			[]string{load + "ref-wrong-kind-ambiguous.yaml:20:24: error: $ref \"#/components/responses/Two\" is where a schema belongs, but it names a response, which holds no single schema to read instead\n\tat #/paths/~1b/get/responses/200/content/application~1json/schema\n"},
			[]string{"ref-wrong-kind-ambiguous.yaml:12:"}},
		{"Swagger schema $ref to a query parameter", []string{"-spec", load + "swagger-ref-to-query-parameter.yaml"}, exitInput,
			[]string{load + "swagger-ref-to-query-parameter.yaml:13:20: error: $ref \"#/parameters/Limit\" is where a schema belongs, but it names a parameter, which holds no single schema to read instead\n"},
			[]string{"components/parameters"}},
		{"near misses of x-resilience", []string{"-spec", lint + "near-miss-extension.yaml"}, exitOK,
			[]string{
				lint + "near-miss-extension.yaml:5:1: warning: unknown extension \"x_resilience\": did you mean x-resilience?\n\tat #/x_resilience\n",
				lint + "near-miss-extension.yaml:9:5: warning: unknown extension \"X-Resilience\": did you mean x-resilience?\n\tat #/paths/~1x/X-Resilience\n",
				lint + "near-miss-extension.yaml:11:7: warning: unknown extension \"x-resiliance\": did you mean x-resilience?\n\tat #/paths/~1x/get/x-resiliance\n",
				lint + "near-miss-extension.yaml:14:7: warning: unknown extension \"x-resillience\": did you mean x-resilience?\n\tat #/paths/~1x/post/x-resillience\n",
			},
			nil},
		{"near miss of x-resilience under -strict", []string{"-strict", "-spec", lint + "near-miss-root.yaml"}, exitInput,
			[]string{lint + "near-miss-root.yaml:5:1: error: unknown extension \"x-resiliance\": did you mean x-resilience?\n\tat #/x-resiliance\n"},
			nil},
		{"policy used through an inline extends", []string{"-spec", lint + "inline-extends.yaml"}, exitOK,
			nil,
			[]string{"no operation uses it"}},
	}
	old := []byte("// the previous, hand-checked output\npackage x\n")
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "client.gen.go")
			if err := os.WriteFile(out, old, 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(out, past, past)
			code, _, stderr := runCLI(t, append([]string{"generate", "-package", "x", "-o", out}, c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			for _, w := range c.want {
				if n := strings.Count(stderr, w); n != 1 {
					t.Errorf("stderr holds %d times (want once):\n%s\nstderr:\n%s", n, w, stderr)
				}
			}
			for _, a := range c.absent {
				if strings.Contains(stderr, a) {
					t.Errorf("stderr holds %q:\n%s", a, stderr)
				}
			}
			got, err := os.ReadFile(out)
			if code != exitOK && (err != nil || !bytes.Equal(got, old)) {
				t.Errorf("a failed run changed the output: %v", err)
			}
			if fi, err := os.Stat(out); code != exitOK && (err != nil || !fi.ModTime().Equal(past)) {
				t.Errorf("a failed run touched the output: %v", err)
			}
		})
	}
}
