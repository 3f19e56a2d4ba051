package generator

import (
	"strings"
	"testing"
)

// A form property wrapped in a nullable (oneOf [null, object], type:
// [array, null] of objects) was sent as deepObject brackets with no
// warning; unwrapped, it is reported as the same
// property without null is, naming the raw method.
func TestNullableFormPropertiesAreReportedAsTheirType(t *testing.T) {
	got := warnings(t, "testdata/specs/formnullable.yaml", "unsupported:")
	const hatch = "; send the body as the spec says with CreateOrderWithBody(..., contentType, body)"
	want := []string{
		`testdata/specs/formnullable.yaml:23:17: warning: unsupported: form property "meta" is an object of style form, explode true, which would spread its properties over the form; resgen sends meta[key]=value (deepObject)` + hatch,
		`testdata/specs/formnullable.yaml:27:17: warning: unsupported: form properties "extra", "grid", "items", "meta", "note", "tags" may be null, which this body cannot write; the client leaves a null value out` + hatch,
		`testdata/specs/formnullable.yaml:27:17: warning: unsupported: form property "extra" is an object of style form, explode true, which would spread its properties over the form; resgen sends extra[key]=value (deepObject)` + hatch,
		`testdata/specs/formnullable.yaml:31:17: warning: unsupported: form property "items" is a list of objects or lists of style form, which cannot write them; resgen sends items[0][key]=value (what deepObject means on a list)` + hatch,
		`testdata/specs/formnullable.yaml:34:17: warning: unsupported: form property "grid" is a list of objects or lists of style form, which cannot write them; resgen sends grid[0][key]=value (what deepObject means on a list)` + hatch,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
