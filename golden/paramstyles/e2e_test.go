package paramstyles

// End-to-end tests of the style and explode combinations of
// testdata/specs/paramstyles.yaml through the generated client against a
// loopback server: openapi3filter must accept each request, and the
// server must receive exactly the text OpenAPI's style tables give.

import (
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/resgen/resgen/internal/wirecheck"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const spec = "../../testdata/specs/paramstyles.yaml"

func ptr[T any](v T) *T { return &v }

func newClient(t *testing.T, s *wirecheck.Server) *Client {
	t.Helper()
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestObjectPathParamsByStyle(t *testing.T) {
	s := wirecheck.New(t, spec)
	c := newClient(t, s)
	color := Color{R: ptr(int64(100)), G: ptr(int64(200)), Tag: ptr("a b")}
	if _, err := c.PathObjects(t.Context(), color, color, color, color, color); err != nil {
		t.Fatal(err)
	}
	// Keys sorted; each key and value escaped, the delimiters not.
	want := "/objects/G=200,R=100,tag=a%20b" + // simple, explode
		"/.G,200,R,100,tag,a%20b" + // label
		"/.G=200.R=100.tag=a%20b" + // label, explode
		"/;matrix=G,200,R,100,tag,a%20b" + // matrix
		"/;G=200;R=100;tag=a%20b" // matrix, explode
	if r := s.Last(t); r.RawPath != want {
		t.Errorf("path\n%s, want\n%s", r.RawPath, want)
	}
}

func TestDelimitedQueryObjectsAndExplodedLists(t *testing.T) {
	s := wirecheck.New(t, spec)
	c := newClient(t, s)
	color := Color{R: ptr(int64(1)), G: ptr(int64(2))}
	filter := QueryStylesFilter{Status: ptr("open"), Size: &QueryStylesFilterSize{Min: ptr(int64(3))}, Tags: []string{"a", "b"}}
	if _, err := c.QueryStyles(t.Context(), &QueryStylesParams{Piped: &color, Spaced: &color, Each: []string{"x", "y"}, Filter: &filter, Token: []byte("hi\xff"),
		Owner: ptr(OwnerID("f2108713-1206-4e84-8b80-0e71a6a1c67b")), Before: ptr(Before(time.Date(2022, 5, 20, 20, 29, 58, 0, time.UTC))), Meta: &Meta{"k": "v"}, Authors: []string{"user", "bot"}}); err != nil {
		t.Fatal(err)
	}
	r := s.Last(t)
	for name, want := range map[string][]string{
		"piped":   {"G|2|R|1"},
		"spaced":  {"G 2 R 1"},
		"each":    {"x", "y"}, // exploded: one pair per item, whatever the style
		"token":   {"aGn/"},   // format: byte is base64
		"owner":   {"f2108713-1206-4e84-8b80-0e71a6a1c67b"},
		"before":  {"2022-05-20T20:29:58Z"},
		"k":       {"v"}, // a map, form exploded
		"authors": {"user", "bot"},
		// deepObject: nested objects and lists in further brackets
		"filter[status]":    {"open"},
		"filter[size][min]": {"3"},
		"filter[tags][0]":   {"a"},
		"filter[tags][1]":   {"b"},
	} {
		if got := r.Query[name]; !reflect.DeepEqual(got, want) {
			t.Errorf("query %s = %q, want %q", name, got, want)
		}
	}
}

func TestListAndObjectCookies(t *testing.T) {
	s := wirecheck.New(t, spec)
	c := newClient(t, s)
	if _, err := c.CookieStyles(t.Context(), &CookieStylesParams{
		List:  []string{"a", "b c"},
		Color: &Color{R: ptr(int64(1)), Tag: ptr("x")},
	}); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, ck := range s.Last(t).Cookies {
		got[ck.Name] = ck.Value
	}
	want := map[string]string{"list": "a,b%20c", "color": "R,1,tag,x"} // RFC 6570: a space is %20, never +
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cookies %v, want %v", got, want)
	}
}
