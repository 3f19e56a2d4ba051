package runtime

import (
	"net/url"
	"strings"
	"testing"

	"github.com/resgen/resgen/runtime/wire"
)

// TestTargetMatchesURLParse checks the URL Call joins without url.Parse
// against url.Parse of the joined string (net/url as the oracle).
func TestTargetMatchesURLParse(t *testing.T) {
	paths := []string{"/pets", "/pets/a%2Fb", "/a%20b/c", "/x;a=1,2", "/@cf/qwen/q1.5", "/~user/%7E", "/%E2%82%AC", "/a:b", "", "/trail/", "/pets/a%252F"}
	for _, server := range []string{"http://h.example", "http://h.example:8080/v1", "https://h.example/base%2Fpath", "http://h.example:/x"} {
		e := newEngine(config{Server: server})
		for _, p := range paths {
			rq := wire.Request{Path: p}
			rq.Query.Add("q", "a b")
			got, err := e.target(&rq)
			if err != nil {
				t.Fatalf("%s + %s: %v", server, p, err)
			}
			want, err := url.Parse(server + p + "?q=a+b")
			if err != nil {
				t.Fatal(err)
			}
			want.Host = strings.TrimSuffix(want.Host, ":") // as http.NewRequest does
			if got.String() != want.String() || got.EscapedPath() != want.EscapedPath() || got.Path != want.Path || got.RawPath != want.RawPath {
				t.Errorf("%s + %s: got %q (path %q, escaped %q), url.Parse %q (path %q, escaped %q)", server, p, got.String(), got.Path, got.EscapedPath(), want.String(), want.Path, want.EscapedPath())
			}
		}
	}
}
