package generator

import (
	"context"
	"strings"
	"testing"
)

// A declared type that is not object wins over properties written next to
// it, and each such schema is reported once, at its properties; a required
// key no property declares is reported at the required list.
func TestTypeMapWarnings(t *testing.T) {
	t.Chdir("..")
	res, err := Generate(context.Background(), Config{Spec: "testdata/specs/typemap.yaml", Package: "x"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Diags {
		if strings.Contains(d.Msg, "with properties") || strings.Contains(d.Msg, "required keys") {
			got = append(got, d.String())
		}
	}
	want := []string{
		"testdata/specs/typemap.yaml:36:13: warning: type string with properties (external_id): properties apply to objects only; the value is typed as string and they are ignored",
		"testdata/specs/typemap.yaml:63:11: warning: type string with properties (text): properties apply to objects only; the value is typed as string and they are ignored",
		"testdata/specs/typemap.yaml:68:11: warning: type array with properties (count): properties apply to objects only; the value is typed as array and they are ignored",
		"testdata/specs/typemap.yaml:107:7: warning: required keys no property declares (expression): each is a json.RawMessage field, always sent (null when unset)",
	}
	if len(got) != len(want) {
		t.Fatalf("warnings:\n%s", strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("warning %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	src := string(res.Source)
	for _, decl := range []string{"ExternalID string", "Label      *string", "Flags      []bool"} {
		if !strings.Contains(src, decl) {
			t.Errorf("no %q in the client", decl)
		}
	}
}
