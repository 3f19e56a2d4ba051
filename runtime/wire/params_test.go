package wire

import (
	"mime"
	"mime/multipart"
	"strconv"
	"strings"
	"testing"
)

// FormBody follows the encodings it is given: form, explode false joins
// (escaped items, bare commas); deepObject on a list indexes; a joined
// list of objects cannot be written and is an error, not a guess.
func TestFormBodyEncodings(t *testing.T) {
	v := map[string]any{
		"csv":    []string{"a b", "c,d"},
		"pair":   map[string]any{"k": "v", "n": 1},
		"expand": []string{"x", "y"},
		"rep":    []string{"1", "2"},
	}
	got, err := FormBody(v,
		FormEncoding{Name: "csv", Style: "form"},
		FormEncoding{Name: "pair", Style: "form"},
		FormEncoding{Name: "expand", Style: "deepObject", Explode: true})
	if err != nil {
		t.Fatal(err)
	}
	want := "csv=a+b,c%2Cd&expand%5B0%5D=x&expand%5B1%5D=y&pair=k,v,n,1&rep=1&rep=2"
	if got != want {
		t.Fatalf("FormBody\n%s\nwant\n%s", got, want)
	}
	if _, err := FormBody(map[string]any{"rows": []any{map[string]any{"k": 1}}}, FormEncoding{Name: "rows", Style: "form"}); err == nil {
		t.Fatal("a joined list of objects was encoded")
	}
}

// A file part takes the spec's content type unless the File names one.
func TestMultipartTypedFile(t *testing.T) {
	m := NewMultipart()
	m.TypedFile("a", "image/png", &File{Name: "a.png", Content: strings.NewReader("A")})
	m.TypedFile("b", "image/png", &File{Name: "b.jpg", ContentType: "image/jpeg", Content: strings.NewReader("B")})
	m.File("c", &File{Name: "c", Content: strings.NewReader("C")})
	m.TypedFile("d", "image/png", nil)
	var rq Request
	if err := m.Finish(&rq); err != nil {
		t.Fatal(err)
	}
	_, params, _ := mime.ParseMediaType(rq.ContentType)
	r := multipart.NewReader(rq.Upload, params["boundary"])
	var got []string
	for {
		p, err := r.NextPart()
		if err != nil {
			break
		}
		got = append(got, p.FormName()+":"+p.Header.Get("Content-Type"))
	}
	if want := "a:image/png b:image/jpeg c:application/octet-stream"; strings.Join(got, " ") != want {
		t.Fatalf("parts %v, want %s", got, want)
	}
}

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
	if got := CookieList("a,b", "c d", "e+f"); got != "a%2Cb,c%20d,e%2Bf" {
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

// encoding/json writes large and tiny float64 values with an exponent
// (1e+21, 1e-7); as parameter or form text they are plain decimals (a
// server reading an integer refuses 1e+21), in every writer that goes through a value's JSON form.
func TestNumbersFromJSONAreWrittenWithoutExponent(t *testing.T) {
	v := map[string]any{"big": 1e21, "tiny": 1.5e-7, "int": int64(9007199254740993), "neg": -2e22}
	want := "big=1000000000000000000000&int=9007199254740993&neg=-20000000000000000000000&tiny=0.00000015"
	if got, err := FormBody(v); err != nil || got != want {
		t.Errorf("FormBody = %q, %v; want %q", got, err, want)
	}
	var q Query
	if err := q.AddObject("o", "deepObject", true, v); err != nil {
		t.Fatal(err)
	}
	if got, want := q.Encode(), "o%5Bbig%5D=1000000000000000000000&o%5Bint%5D=9007199254740993&o%5Bneg%5D=-20000000000000000000000&o%5Btiny%5D=0.00000015"; got != want {
		t.Errorf("deepObject = %q, want %q", got, want)
	}
	if got, err := ObjectText(false, v); err != nil || got != "big,1000000000000000000000,int,9007199254740993,neg,-20000000000000000000000,tiny,0.00000015" {
		t.Errorf("ObjectText = %q, %v", got, err)
	}
	if got := RawText([]byte("1E+3")); got != "1000" {
		t.Errorf("RawText(1E+3) = %q, want 1000", got)
	}
	if got := RawText([]byte("1e400")); got != "1e400" {
		t.Errorf("RawText(1e400) = %q, want it as written (beyond float64)", got)
	}
}
