package wire

import "testing"

func TestEveryObjectAndFits(t *testing.T) {
	hasA := func(o Object) bool { return o.Has("a") }
	for _, tc := range []struct {
		data string
		want bool
	}{
		{`[]`, true},
		{`[{"a":1},{"a":2}]`, true},
		{`[{"a":1},{"b":2}]`, false},
		{`[1]`, false},
		{`{"a":1}`, false},
	} {
		if got := EveryObject([]byte(tc.data), hasA); got != tc.want {
			t.Errorf("EveryObject(%s) = %v, want %v", tc.data, got, tc.want)
		}
	}
	for _, tc := range []struct {
		data string
		want bool
	}{
		{`{}`, true},
		{`{"m":null}`, true},
		{`{"m":{"a":1}}`, true},
		{`{"m":{"b":1}}`, false},
		{`{"m":"text"}`, false},
	} {
		if got := ParseObject([]byte(tc.data)).Fits("m", hasA); got != tc.want {
			t.Errorf("Fits(%s) = %v, want %v", tc.data, got, tc.want)
		}
	}
}
