package runtime

import (
	"reflect"
	"testing"
)

// TestPolicyFieldsAreTagged: every field of a policy struct carries a
// policy tag (its x-resilience key, or "-" for one that is no key), since
// resgen's explain, diff, doc comments and generated literals list a
// policy's fields from these tags: an untagged field would be left out of
// all of them.
func TestPolicyFieldsAreTagged(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[BreakerPolicy](), reflect.TypeFor[RetryPolicy](), reflect.TypeFor[Budget]()} {
		for f := range typ.Fields() {
			if _, ok := f.Tag.Lookup("policy"); !ok {
				t.Errorf("%s.%s has no policy tag", typ.Name(), f.Name)
			}
		}
	}
}

// TestEnumGoStrings: GoString names each constant, as generated code
// writes it.
func TestEnumGoStrings(t *testing.T) {
	for v, want := range map[interface{ GoString() string }]string{
		CountWindow: "runtime.CountWindow", TimeWindow: "runtime.TimeWindow",
		ExponentialBackoff: "runtime.ExponentialBackoff", ConstantBackoff: "runtime.ConstantBackoff",
		FullJitter: "runtime.FullJitter", NoJitter: "runtime.NoJitter", EqualJitter: "runtime.EqualJitter", DecorrelatedJitter: "runtime.DecorrelatedJitter",
	} {
		if got := v.GoString(); got != want {
			t.Errorf("GoString() = %q, want %q", got, want)
		}
	}
}
