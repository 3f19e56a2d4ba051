package unionparams

// End-to-end tests of parameters whose schema is a union of scalars, or a
// list of one (testdata/specs/unionparams.yaml), through the generated
// client against a loopback server: kin-openapi's openapi3filter must
// accept every request, and the values the server decodes must be the
// ones set, written by the parameter's style, never as JSON text.

import (
	"log/slog"
	"reflect"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const spec = "../../testdata/specs/unionparams.yaml"

func ptr[T any](v T) *T { return &v }

func num(n int64) IntOrString   { return IntOrString{Int: &n} }
func text(s string) IntOrString { return IntOrString{String: &s} }
func newClient(t *testing.T, s *wirecheck.Server) *Client {
	t.Helper()
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestUnionQueryHeaderCookieParamsAreWrittenByStyle(t *testing.T) {
	s := wirecheck.New(t, spec)
	c := newClient(t, s)
	_, err := c.ListIssues(t.Context(), text("RES-7"), &ListIssuesParams{
		Project: []IntOrString{num(1234), text("android")},
		Level:   &ListIssuesLevel{ListIssuesLevelVariant2: ptr(ListIssuesLevelVariant2High)},
		Tags:    []ListIssuesTagsItem{{Int: ptr(int64(7))}, {Bool: ptr(true)}, {String: ptr("x")}},
		Piped:   []IntOrString{num(1), text("b")},
		Spaced:  []IntOrString{num(2), text("c")},
		XShard:  ptr(num(9)),
		XShards: []IntOrString{num(3), text("eu")},
		Region:  &ListIssuesRegion{Number: ptr(2.5)},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := s.Last(t)
	if r.RawPath != "/issues/RES-7" {
		t.Errorf("path %q, want /issues/RES-7", r.RawPath)
	}
	for name, want := range map[string][]string{
		"project": {"1234", "android"}, // form, explode: one pair per item
		"level":   {"high"},
		"tags":    {"7,true,x"}, // form, explode: false
		"piped":   {"1|b"},
		"spaced":  {"2 c"},
	} {
		if got := r.Query[name]; !reflect.DeepEqual(got, want) {
			t.Errorf("query %s = %q, want %q", name, got, want)
		}
	}
	if got := r.Header.Values("X-Shard"); !reflect.DeepEqual(got, []string{"9"}) {
		t.Errorf("X-Shard = %q, want [9]", got)
	}
	if got := r.Header.Values("X-Shards"); !reflect.DeepEqual(got, []string{"3,eu"}) {
		t.Errorf("X-Shards = %q, want [3,eu]", got)
	}
	if len(r.Cookies) != 1 || r.Cookies[0].Name != "region" || r.Cookies[0].Value != "2.5" {
		t.Errorf("cookies %v, want region=2.5", r.Cookies)
	}
}

func TestUnionPathParamsAreWrittenByStyle(t *testing.T) {
	s := wirecheck.New(t, spec)
	c := newClient(t, s)
	// A path parameter must hold a value; a number variant, then a text one.
	for _, tc := range []struct {
		ref  IntOrString
		want string
	}{{num(42), "/issues/42"}, {text("a b"), "/issues/a%20b"}} {
		if _, err := c.ListIssues(t.Context(), tc.ref, nil); err != nil {
			t.Fatal(err)
		}
		if r := s.Last(t); r.RawPath != tc.want {
			t.Errorf("path %q, want %q", r.RawPath, tc.want)
		}
	}
	list := []IntOrString{num(1), text("a")}
	if _, err := c.PathStyles(t.Context(), list, list, list); err != nil {
		t.Fatal(err)
	}
	// label: .1,a; matrix exploded: ;mtx=1;mtx=a; label exploded: .1.a
	if r := s.Last(t); r.RawPath != "/styles/.1,a/;mtx=1;mtx=a/.1.a" {
		t.Errorf("path %q, want /styles/.1,a/;mtx=1;mtx=a/.1.a", r.RawPath)
	}
}

func TestUnsetOptionalUnionParamsAreLeftOut(t *testing.T) {
	s := wirecheck.New(t, spec)
	c := newClient(t, s)
	if _, err := c.ListIssues(t.Context(), num(1), &ListIssuesParams{}); err != nil {
		t.Fatal(err)
	}
	r := s.Last(t)
	if len(r.Query) != 0 || r.Header.Get("X-Shard") != "" || len(r.Cookies) != 0 {
		t.Errorf("unset parameters were sent: query %v, header %v, cookies %v", r.Query, r.Header, r.Cookies)
	}
}

func TestParamTextOfEveryVariant(t *testing.T) {
	for _, tc := range []struct {
		u    interface{ ParamText() string }
		want string
	}{
		{num(-5), "-5"},
		{text(`"quoted"`), `"quoted"`}, // a string is its text, not JSON
		{ListIssuesRegion{Number: ptr(1e21)}, "1000000000000000000000"}, // no exponent: a server reading an integer refuses 1e+21
		{ListIssuesTagsItem{Bool: ptr(false)}, "false"},
		{IntOrString{Unknown: []byte(`"raw"`)}, "raw"},
		{IntOrString{}, ""},
	} {
		if got := tc.u.ParamText(); got != tc.want {
			t.Errorf("%#v.ParamText() = %q, want %q", tc.u, got, tc.want)
		}
	}
}

// A union with list and object variants is written as its set variant:
// a scalar, a list or an object, each as the parameter's style writes it.
func TestMixedUnionsAreWrittenByTheirSetVariant(t *testing.T) {
	s := wirecheck.New(t, spec)
	c := newClient(t, s)
	rng := IDOrRange{IDOrRangeFrom: &IDOrRangeFrom{From: 1, To: ptr(int64(2))}}
	for _, tc := range []struct {
		at      IDOrRange
		params  *MixedUnionsParams
		path    string
		query   map[string][]string
		xWindow string
	}{
		{IDOrRange{Int: ptr(int64(5))}, &MixedUnionsParams{
			Created: &MixedUnionsCreated{Int: ptr(int64(7))},
			Window:  &IDOrRange{Array: []int64{1, 2}},
			XWindow: &IDOrRange{Int: ptr(int64(3))},
			Kind:    ptr(int64(1)),
		}, "/mixed/;at=5", map[string][]string{"created": {"7"}, "window": {"1,2"}, "kind": {"1"}}, "3"},
		{IDOrRange{Array: []int64{1, 2}}, &MixedUnionsParams{
			Created: &MixedUnionsCreated{MixedUnionsCreatedVariant2: &MixedUnionsCreatedVariant2{Gt: ptr(int64(10))}},
			Window:  &rng,
			XWindow: &rng,
		}, "/mixed/;at=1,2", map[string][]string{"created[gt]": {"10"}, "window": {"from,1,to,2"}}, "from,1,to,2"},
		{rng, nil, "/mixed/;at=from,1,to,2", map[string][]string{}, ""},
	} {
		if _, err := c.MixedUnions(t.Context(), tc.at, tc.params); err != nil {
			t.Fatal(err)
		}
		r := s.Last(t)
		if r.RawPath != tc.path {
			t.Errorf("path %q, want %q", r.RawPath, tc.path)
		}
		if !reflect.DeepEqual(map[string][]string(r.Query), tc.query) {
			t.Errorf("query %v, want %v", r.Query, tc.query)
		}
		if got := r.Header.Get("X-Window"); got != tc.xWindow {
			t.Errorf("X-Window %q, want %q", got, tc.xWindow)
		}
	}
}

// The escape hatch of a parameter no style can write: the caller's text,
// escaped once, under the parameter's name; a schema with no type takes
// any text. (openapi3filter cannot check these: it decodes no value of a
// schema without a type.)
func TestUnsupportedParamsSendTheCallersText(t *testing.T) {
	s := wirecheck.New(t, spec)
	c := newClient(t, s)
	if _, err := c.UnsupportedParams(t.Context(), &UnsupportedParamsParams{Target: ptr("owner,7"), Anything: ptr("x y")}); err != nil {
		t.Fatal(err)
	}
	r := s.Requests()[0]
	if got := r.Query["target"]; !reflect.DeepEqual(got, []string{"owner,7"}) {
		t.Errorf("target = %q, want [owner,7]", got)
	}
	if got := r.Query["anything"]; !reflect.DeepEqual(got, []string{"x y"}) {
		t.Errorf("anything = %q, want [x y]", got)
	}
}
