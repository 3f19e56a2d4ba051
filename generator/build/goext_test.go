package build

import (
	"os"
	"testing"
)

// oapi-codegen's Go-type extensions are not honoured: each one a spec uses
// is reported once, at its first place, with how many places use it, and
// never silently ignored.
func TestGoTypeExtensionsAreReported(t *testing.T) {
	spec, err := os.ReadFile("testdata/goext.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ds := warningsOf(t, "spec.yaml", map[string]string{"spec.yaml": string(spec)})
	checkPlaced(t, ds, []placed{
		{"x-go-name", "1 place uses x-go-name", "spec.yaml:11:11", "x-go-name"},
		{"x-go-type", "2 places use x-go-type (", "spec.yaml:12:48", "x-go-type"},
		{"x-go-type-import", "1 place uses x-go-type-import", "spec.yaml:12:70", "x-go-type-import"},
		{"x-go-type-skip-optional-pointer", "1 place uses x-go-type-skip-optional-pointer", "spec.yaml:22:26", "x-go-type-skip-optional-pointer"},
	})
}
