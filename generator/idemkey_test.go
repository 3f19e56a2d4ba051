package generator

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// warnings generates spec and returns its warnings' first lines that
// contain substr.
func warnings(t *testing.T, spec, substr string) []string {
	t.Helper()
	t.Chdir("..")
	res, err := Generate(context.Background(), Config{Spec: spec, Package: "x"})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range res.Diags {
		if strings.Contains(d.Msg, substr) {
			out = append(out, fmt.Sprintf("%s:%d:%d: %s: %s", d.File, d.Line, d.Col, d.Severity, d.Msg))
		}
	}
	return out
}

func TestKeyHeaderNearMissesWarnAtTheParameter(t *testing.T) {
	got := warnings(t, "testdata/specs/idemkeys.yaml", "idempotency key header")
	want := []string{
		`testdata/specs/idemkeys.yaml:61:11: warning: header "Idempotency-Keys" is not the idempotency key header; did you mean "Idempotency-Key"?`,
		`testdata/specs/idemkeys.yaml:69:11: warning: header "Idempotancy-Key" is not the idempotency key header; did you mean "Idempotency-Key"?`,
		`testdata/specs/idemkeys.yaml:76:11: warning: header "X-Idempotency-Key" is not the idempotency key header; did you mean "Idempotency-Key"?`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestUnionParamsAreWrittenByStyleOrReported(t *testing.T) {
	got := warnings(t, "testdata/specs/unionparams.yaml", "unsupported:")
	want := []string{
		`testdata/specs/unionparams.yaml:118:11: warning: unsupported: query parameter "target": it is a union with an object variant whose properties are not all scalars, which no parameter style writes as text; the client sends the text you put in its field as is (escaped)`,
		`testdata/specs/unionparams.yaml:124:11: warning: unsupported: query parameter "rows": its items are objects, which no parameter style writes as text; the client sends the text you put in its field as is (escaped)`,
		`testdata/specs/unionparams.yaml:129:11: warning: unsupported: query parameter "grid": its items are lists, which no parameter style writes as text; the client sends the text you put in its field as is (escaped)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestUndefinedStylesAreReported(t *testing.T) {
	got := warnings(t, "testdata/specs/paramstyles.yaml", "unsupported:")
	want := `testdata/specs/paramstyles.yaml:52:11: warning: unsupported: query parameter "page": its property "sort" is not a scalar, which no style but deepObject defines; the client writes such values as JSON text
testdata/specs/paramstyles.yaml:73:11: warning: unsupported: cookie parameter "exploded": a cookie's form style with explode: true is not defined for lists and objects; the client writes it as explode: false (name=a,b)`
	if strings.Join(got, "\n") != want {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

// What resgen writes for a deepObject list, which OpenAPI leaves undefined,
// is said, not chosen silently (Stripe: expand=a&expand=b, lines[0][x]=1);
// a scalar (Stripe's created=7) has one reading and no warning, nor has a
// named list or one of untyped items, written by its style.
func TestDeepObjectListsAreReported(t *testing.T) {
	got := warnings(t, "testdata/specs/paramshapes.yaml", "unsupported:")
	want := `testdata/specs/paramshapes.yaml:68:11: warning: unsupported: query parameter "expand": style deepObject is defined only for objects; the client writes the list as form (name=a,b)
testdata/specs/paramshapes.yaml:72:11: warning: unsupported: query parameter "lines": style deepObject is defined only for objects; the client writes the list's items indexed (name[0][key]=value), as form bodies are and as Stripe reads them
testdata/specs/paramshapes.yaml:84:11: warning: unsupported: query parameter "discounts": style deepObject is defined only for objects; the client writes the union's list variant indexed (name[0][key]=value), as form bodies are and as Stripe reads them
testdata/specs/paramshapes.yaml:93:11: warning: unsupported: query parameter "window": style deepObject is defined only for objects; the client writes the union's list variant as form (name=a&name=b)`
	if strings.Join(got, "\n") != want {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

// A key header whose schema cannot hold a key made generate fail; it is
// a warning at the parameter now, and the output is
// golden/idemkeyunusable.
func TestUnusableKeyHeaderWarnsAtTheParameter(t *testing.T) {
	got := warnings(t, "testdata/specs/idemkeyunusable.yaml", "cannot carry the idempotency key")
	const off = "; the client sends it as an ordinary header, only when the caller sets it, and the operation is not retried (nothing else makes it retry-safe)"
	want := []string{
		`testdata/specs/idemkeyunusable.yaml:15:11: warning: header "Idempotency-Key" cannot carry the idempotency key: its schema is an object: a key must be a string or an integer` + off,
		`testdata/specs/idemkeyunusable.yaml:24:11: warning: header "idempotency-key" cannot carry the idempotency key: its schema is an object: a key must be a string or an integer` + off,
		`testdata/specs/idemkeyunusable.yaml:31:11: warning: header "Idempotency-Key" cannot carry the idempotency key: its schema is a boolean: a key must be a string or an integer` + off,
		`testdata/specs/idemkeyunusable.yaml:38:11: warning: header "Idempotency-Key" cannot carry the idempotency key: its schema allows no non-negative integer the client could make a key of` + off,
		`testdata/specs/idemkeyunusable.yaml:47:11: warning: header "Idempotency-Key" cannot carry the idempotency key: its schema is a boolean: a key must be a string or an integer; the client sends it as an ordinary header, only when the caller sets it`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
