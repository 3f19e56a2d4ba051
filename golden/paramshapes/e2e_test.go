package paramshapes

// End-to-end tests of the parameter shapes of testdata/specs/paramshapes.yaml
// through the generated client against a loopback server: kin-openapi's
// openapi3filter must accept every request, and the values the server
// decodes must be the ones set, written by the parameter's style.

import (
	"log/slog"
	"reflect"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const spec = "../../testdata/specs/paramshapes.yaml"

func ptr[T any](v T) *T { return &v }

func newClient(t *testing.T, s *wirecheck.Server) *Client {
	t.Helper()
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A list declared in components is written as a list in every location,
// and the named type goes where the field is.
func TestNamedListsAreWrittenByStyle(t *testing.T) {
	s := wirecheck.New(t, spec)
	c := newClient(t, s)
	sev := Severities{SeveritiesItemLow, SeveritiesItemCritical}
	_, err := c.ListIssues(t.Context(), sev, &ListIssuesParams{
		Severity:         sev,
		SeverityTildeNeq: Severities{SeveritiesItemModerate, SeveritiesItemLow},
		XSeverity:        sev,
	})
	if err != nil {
		t.Fatal(err)
	}
	r := s.Last(t)
	if r.RawPath != "/issues/low,critical" {
		t.Errorf("path %q, want /issues/low,critical", r.RawPath)
	}
	for name, want := range map[string][]string{
		"severity":     {"low", "critical"}, // form, explode: one pair per item
		"severity~neq": {"moderate,low"},
	} {
		if got := r.Query[name]; !reflect.DeepEqual(got, want) {
			t.Errorf("query %s = %q, want %q", name, got, want)
		}
	}
	if got := r.Header.Values("X-Severity"); !reflect.DeepEqual(got, []string{"low,critical"}) {
		t.Errorf("X-Severity = %q, want [low,critical]", got)
	}
}

// Items whose schema gives no type are the caller's text, sent as it is:
// a quote stays a quote, never JSON text. (openapi3filter cannot check
// these: it decodes no item of a schema without a type.)
func TestUntypedItemsAreText(t *testing.T) {
	s := wirecheck.New(t, spec)
	c := newClient(t, s)
	_, err := c.ListSorted(t.Context(), &ListSortedParams{
		Sort:   []string{"+count", "-bytes"},
		Labels: []string{"a b", `"q"`, "7"},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := s.Requests()[0]
	for name, want := range map[string][]string{
		"sort":   {"+count,-bytes"},
		"labels": {"a b", `"q"`, "7"},
	} {
		if got := r.Query[name]; !reflect.DeepEqual(got, want) {
			t.Errorf("query %s = %q, want %q", name, got, want)
		}
	}
}

// Stripe's created: the object variant in brackets, the integer variant
// as created=7 (what Stripe reads; the one reading of a scalar, which
// deepObject does not define).
func TestDeepObjectUnionWritesTheSetVariant(t *testing.T) {
	s := wirecheck.New(t, spec)
	c := newClient(t, s)
	for _, tc := range []struct {
		created ListChargesCreated
		want    map[string][]string
	}{
		{ListChargesCreated{ListChargesCreatedVariant1: &ListChargesCreatedVariant1{Gt: ptr(int64(4)), Lt: ptr(int64(9))}},
			map[string][]string{"created[gt]": {"4"}, "created[lt]": {"9"}}},
		{ListChargesCreated{Int: ptr(int64(7))}, map[string][]string{"created": {"7"}}},
	} {
		if _, err := c.ListCharges(t.Context(), &ListChargesParams{Created: &tc.created}); err != nil {
			t.Fatal(err)
		}
		r := s.Last(t) // openapi3filter skips a scalar it cannot decode by deepObject
		if !reflect.DeepEqual(map[string][]string(r.Query), tc.want) {
			t.Errorf("query %v, want %v", r.Query, tc.want)
		}
	}
}

// A deepObject list of objects (Stripe's lines, or the list variant of
// its discounts) goes indexed, nested values in further brackets; a list
// of scalars, or a union's scalar list variant, as form.
func TestDeepObjectListOfObjectsIsIndexed(t *testing.T) {
	s := wirecheck.New(t, spec)
	c := newClient(t, s)
	_, err := c.DeepObjectLists(t.Context(), &DeepObjectListsParams{
		Expand: []string{"a", "b"},
		Lines: []DeepObjectListsLinesItem{
			{Amount: ptr(int64(5))},
			{Amount: ptr(int64(7)), Tax: &DeepObjectListsLinesItemTax{Rate: ptr(0.25)}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := s.Requests()[0]
	want := map[string][]string{
		"expand":              {"a,b"},
		"lines[0][amount]":    {"5"},
		"lines[1][amount]":    {"7"},
		"lines[1][tax][rate]": {"0.25"},
	}
	if !reflect.DeepEqual(map[string][]string(r.Query), want) {
		t.Errorf("query %v, want %v", r.Query, want)
	}
	empty := DeepObjectListsDiscountsEmptyEmpty
	for _, tc := range []struct {
		params *DeepObjectListsParams
		want   map[string][]string
	}{
		{&DeepObjectListsParams{
			Discounts: &DeepObjectListsDiscounts{Array: []DeepObjectListsDiscountsVariant1Item{{Coupon: ptr("a")}, {Coupon: ptr("b")}}},
			Window:    &DeepObjectListsWindow{Array: []int64{1, 2}},
		}, map[string][]string{"discounts[0][coupon]": {"a"}, "discounts[1][coupon]": {"b"}, "window": {"1", "2"}}},
		{&DeepObjectListsParams{
			Discounts: &DeepObjectListsDiscounts{DeepObjectListsDiscountsEmpty: &empty},
			Window:    &DeepObjectListsWindow{DeepObjectListsWindowVariant2: &DeepObjectListsWindowVariant2{From: ptr(int64(3))}},
		}, map[string][]string{"discounts": {""}, "window[from]": {"3"}}},
	} {
		if _, err := c.DeepObjectLists(t.Context(), tc.params); err != nil {
			t.Fatal(err)
		}
		r := s.Requests()[len(s.Requests())-1]
		if !reflect.DeepEqual(map[string][]string(r.Query), tc.want) {
			t.Errorf("query %v, want %v", r.Query, tc.want)
		}
	}
}
