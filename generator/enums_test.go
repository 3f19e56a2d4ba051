package generator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnumValuesThatWouldBeWrongGetNoConstant: a value that does not fit
// the Go type, is not whole, or cannot be read exactly gets no constant
// and a positioned warning; the output still builds (TestGolden compiles
// the exact ones, golden/types).
func TestEnumValuesThatWouldBeWrongGetNoConstant(t *testing.T) {
	const head = "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths: {}\ncomponents:\n  schemas:\n"
	cases := []struct {
		name, schema, warning string
		consts, absent        []string
	}{
		{"int32 overflow", "    E: {type: integer, format: int32, enum: [1, 3000000000]}",
			"spec.yaml:6:49: warning: unsupported: E's enum value 3000000000 does not fit an int32; no constant is generated for it",
			[]string{"EX1 E = 1"}, []string{"3000000000"}},
		{"negative uint32", "    E: {type: integer, format: uint32, enum: [-1, 2]}",
			"spec.yaml:6:47: warning: unsupported: E's enum value -1 does not fit a uint32;",
			[]string{"EX2 E = 2"}, []string{"-1"}},
		{"float32 overflow", "    E: {type: number, format: float, enum: [1e39, 0.5]}",
			"spec.yaml:6:45: warning: unsupported: E's enum value 1e+39 does not fit a float32;",
			[]string{"EX05 E = 0.5"}, []string{"1e+39"}},
		{"fraction in an integer enum", "    E: {type: integer, enum: [1.5, 2]}",
			"spec.yaml:6:31: warning: unsupported: E's enum value 1.5 is not a whole number;",
			[]string{"EX2 E = 2"}, []string{"1.5"}},
		{"big integer in hex", "    E: {type: integer, enum: [0x20000000000001]}",
			"spec.yaml:6:31: warning: unsupported: E's enum value near 9007199254740992 is an integer beyond 2^53",
			nil, []string{"9007199254740992", "0x"}},
		{"null of a nullable enum is no warning", "    E: {type: integer, nullable: true, enum: [1, null]}",
			"", []string{"EX1 E = 1"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := generateText(t, head+c.schema+"\n", false)
			if err != nil {
				t.Fatal(err)
			}
			var warned []string
			for _, d := range res.Diags {
				if strings.Contains(d.Msg, "enum value") {
					warned = append(warned, d.String())
				}
			}
			switch {
			case c.warning == "" && len(warned) > 0:
				t.Errorf("unexpected warning: %s", warned)
			case c.warning != "" && (len(warned) != 1 || !strings.HasPrefix(warned[0], c.warning)):
				t.Errorf("warnings %q; want one starting with %q", warned, c.warning)
			}
			src := string(res.Source)
			for _, s := range c.consts {
				if !strings.Contains(src, s) {
					t.Errorf("the output lacks %q", s)
				}
			}
			for _, s := range c.absent {
				if strings.Contains(src, s) {
					t.Errorf("the output holds %q", s)
				}
			}
		})
	}
}

// TestBigEnumInAnotherFileIsNotGuessed: the node tree of a referenced file
// is not at hand, so its integer beyond 2^53 gets no constant and a warning,
// rather than the float64's neighbour.
func TestBigEnumInAnotherFileIsNotGuessed(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ids.yaml"), []byte("type: integer\nenum: [9007199254740993, 7]\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "spec.yaml"), []byte("openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths: {}\ncomponents:\n  schemas:\n    ID: {$ref: \"ids.yaml\"}\n"), 0o644)
	t.Chdir(dir)
	res, err := Generate(context.Background(), Config{Spec: "spec.yaml", Package: "x"})
	if err != nil {
		t.Fatal(err)
	}
	src := string(res.Source)
	if strings.Contains(src, "900719925474099") || !strings.Contains(src, "IDX7 ID = 7") {
		t.Errorf("constants:\n%s", src)
	}
	var warnings []string
	for _, d := range res.Diags {
		warnings = append(warnings, d.String())
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "spec.yaml:6:5: warning: unsupported: ID's enum value near 9007199254740992 is an integer beyond 2^53") {
		t.Errorf("warnings: %q", warnings)
	}
}
