package runtime

import (
	"bytes"
	"mime"
	"mime/multipart"
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
	body, ct, err := m.Finish()
	if err != nil {
		t.Fatal(err)
	}
	_, params, _ := mime.ParseMediaType(ct)
	r := multipart.NewReader(bytes.NewReader(body), params["boundary"])
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
