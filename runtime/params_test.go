package runtime

import (
	"strconv"
	"testing"
)

func TestObjectStylesEscapeValuesNotDelimiters(t *testing.T) {
	v := map[string]string{"a": "x,y", "b;": "1"}
	for _, tc := range []struct {
		style   string
		explode bool
		want    string
	}{
		{"simple", false, "a,x%2Cy,b%3B,1"},
		{"simple", true, "a=x%2Cy,b%3B=1"},
		{"label", false, ".a,x%2Cy,b%3B,1"},
		{"label", true, ".a=x%2Cy.b%3B=1"},
		{"matrix", false, ";m=a,x%2Cy,b%3B,1"},
		{"matrix", true, ";a=x%2Cy;b%3B=1"},
	} {
		got, err := PathObject(tc.style, tc.explode, "m", v)
		if err != nil || got != tc.want {
			t.Errorf("PathObject(%s, %v) = %q, %v; want %q", tc.style, tc.explode, got, err, tc.want)
		}
	}
	if got, _ := CookieObject(v); got != "a,x%2Cy,b%3B,1" {
		t.Errorf("CookieObject = %q", got)
	}
	if got := CookieList("a,b", "c d"); got != "a%2Cb,c+d" {
		t.Errorf("CookieList = %q", got)
	}
	for style, want := range map[string]string{"form": "o=a,x%2Cy,b%3B,1", "pipeDelimited": "o=a|x%2Cy|b%3B|1", "spaceDelimited": "o=a%20x%2Cy%20b%3B%201"} {
		var q Query
		if err := q.AddObject("o", style, false, v); err != nil || q.Encode() != want {
			t.Errorf("AddObject(%s) = %q, %v; want %q", style, q.Encode(), err, want)
		}
	}
}

func TestNewIdempotencyKeyIntStaysInRange(t *testing.T) {
	for _, r := range [][2]int64{{5, 5}, {1000, 1999}, {0, 1<<53 - 1}, {-3, 3}} {
		for range 200 {
			k := NewIdempotencyKeyInt(r[0], r[1])
			n, err := strconv.ParseInt(k, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			if n < r[0] || n > r[1] {
				t.Fatalf("key %s out of [%d, %d]", k, r[0], r[1])
			}
		}
	}
}
