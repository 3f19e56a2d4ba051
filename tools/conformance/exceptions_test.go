package conformance

import (
	"slices"
	"strings"
	"testing"
)

// TestAnExceptionHidesNoOtherKey: in masking.yaml the deepObject list
// expand is an exception by construct (kin-openapi drops it); a client that
// drops the required field zeta, which sorts after expand, is still caught,
// at zeta, by the request check and by the body comparison.
func TestAnExceptionHidesNoOtherKey(t *testing.T) {
	opts := testOptions(t)
	opts.Mutate = mutation(t, "`json:\"zeta\"`", "`json:\"-\"`")
	r := Run(t.Context(), "testdata/masking.yaml", opts)
	excepted, caught := map[string]bool{}, map[string]bool{}
	for _, f := range r.Failures {
		switch {
		case f.Excepted != "" && f.At == "request body /expand":
			excepted[f.Kind] = true
		case f.Excepted == "" && f.At == "request body /zeta":
			caught[f.Kind] = true
		case f.Excepted == "" && f.Call == "optional body properties unset":
			// The body of required properties only: without zeta it
			// has none, which kin reports at the top. Caught too.
		case f.Excepted == "":
			t.Errorf("unexpected failure %s at %s [%s]: %s", f.Kind, f.At, f.Call, f.Detail)
		}
	}
	if !excepted["body"] {
		t.Errorf("the expand exception did not apply: %+v", r.Failures)
	}
	if !caught["request"] || !caught["body"] {
		t.Fatalf("the dropped zeta is not caught by both checks (caught %v): %+v", caught, r.Failures)
	}

	// And the same client, correct, passes.
	r = Run(t.Context(), "testdata/masking.yaml", testOptions(t))
	if r.Failed() || r.Exceptions == 0 {
		t.Fatalf("the correct client: failed %v, excepted %d: %+v", r.Failed(), r.Exceptions, r.Failures)
	}
}

// An exception covers a failure only at a place where its construct is,
// whatever the failure says: the same text at another key is not excused.
func TestExceptionsMatchThePlace(t *testing.T) {
	c, _ := runProof(t, proofs["kin: deepObject value that is not an object"][0])
	var e Exception
	for _, x := range constructs {
		if x.Construct == "kin: deepObject value that is not an object" {
			e = x
		}
	}
	lost := func(at *place) Failure {
		return failureOf(c, problem{kind: "body", detail: `decoded body differs from the intended one at ` + at.ptr + `: sent "x", lost (sent …)`, at: at})
	}
	wire := map[string][]string{"expand[0]": {"alpha"}, "expand[1]": {"bravo"}, "meta[k]": {"v"}}
	if f := lost(&place{body: true, ptr: "/expand", wire: wire}); !e.covers(f) {
		t.Errorf("not excused at /expand: %+v", f)
	}
	for _, ptr := range []string{"/meta", "/zeta", ""} {
		if f := lost(&place{body: true, ptr: ptr, wire: wire}); e.covers(f) {
			t.Errorf("excused at %q, where the construct is not", ptr)
		}
	}
	// Nor where the wire does not carry the name: the client dropped it.
	if f := lost(&place{body: true, ptr: "/expand", wire: map[string][]string{"meta[k]": {"v"}}}); e.covers(f) {
		t.Error("excused at /expand though the request does not carry expand")
	}
	// Nor where it carries other values than the intended ones.
	if f := lost(&place{body: true, ptr: "/expand", wire: map[string][]string{"expand[0]": {"alpha"}, "expand[1]": {"charlie"}}}); e.covers(f) {
		t.Error("excused at /expand though the request carries another list")
	}
	// Nor a failure with no place.
	f := lost(&place{body: true, ptr: "/expand", wire: wire})
	f.site = nil
	if e.covers(f) || strings.Contains(f.At, "zeta") {
		t.Error("a failure with no place is excused")
	}
}

// A construct about how kin-openapi reads a parameter excuses nothing
// when the request does not carry the parameter: the client dropped it.
func TestParameterExceptionsNeedTheParameterSent(t *testing.T) {
	for _, tc := range []struct{ construct, param, detail string }{
		{"kin: schema without type", "query region", `parameter "region" in query has an error: value is required but missing`},
		{"kin: form-exploded object parameter without declared properties", "query meta", `value is required but missing`},
		{"kin: oneOf parameter read as a later variant", "query level", `doesn't match schema`},
	} {
		var e Exception
		for _, x := range constructs {
			if x.Construct == tc.construct {
				e = x
			}
		}
		var pr proof
		for _, p := range proofs[tc.construct] {
			if slices.Contains(p.at, tc.param) {
				pr = p
			}
		}
		c, fails := runProof(t, pr)
		sent := false
		for _, f := range fails {
			if f.site != nil && placeIs(f.site.place, tc.param) && e.covers(f) {
				sent = true
				at := *f.site.place
				at.wire = map[string][]string{"other": {"x"}}
				g := failureOf(c, problem{kind: f.Kind, detail: tc.detail, at: &at})
				if e.covers(g) {
					t.Errorf("%s: excused at %s though the request does not carry it", tc.construct, tc.param)
				}
			}
		}
		if !sent {
			t.Errorf("%s: the proof has no excused failure at %s", tc.construct, tc.param)
		}
	}
}
