package arrayunions

// End-to-end tests of unions of lists told apart by their elements
// (testdata/specs/arrayunions.yaml): a list goes to the
// variant whose elements' required keys and declared members it matches,
// not to the first it decodes into, and encodes again to the JSON it came
// from (no key invented, none lost). Every request is checked with
// kin-openapi's openapi3filter, an oracle that shares no code with resgen.

import (
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const specFile = "../../testdata/specs/arrayunions.yaml"

func newClient(t *testing.T, s *wirecheck.Server) *Client {
	t.Helper()
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Each answer decodes into the variant its elements are, and sent back
// (decoded and resent as a request) is the same JSON, which the oracle
// accepts.
func TestListVariantByElements(t *testing.T) {
	rows := wirecheck.Cases{
		{`[{"x":1,"y":2}]`, "Array"},
		// No x and y: not a Point, though it decodes into one.
		{`[{"text":"hi"}]`, "Array2"},
		{`[{}]`, "Array2"},
	}
	wirecheck.RepliesDecode(t, specFile, rows, func(s *wirecheck.Server) (any, error) {
		resp, err := newClient(t, s).PutRows(t.Context(), Rows{Array: []Point{{X: 1, Y: 2}}})
		if err != nil {
			return nil, err
		}
		return *resp.JSON200, nil
	})
	cells := wirecheck.Cases{
		{`[{"id":"a","value":"1"}]`, "Array"},
		// A member only RichCell declares: a Cell would lose it.
		{`[{"id":"a","value":"1","style":"bold"}]`, "Array2"},
		{`[{"id":"a"}]`, "Array2"},
	}
	wirecheck.RepliesDecode(t, specFile, cells, func(s *wirecheck.Server) (any, error) {
		resp, err := newClient(t, s).PutCells(t.Context(), Cells{Array: []Cell{{ID: "a", Value: "1"}}})
		if err != nil {
			return nil, err
		}
		return *resp.JSON200, nil
	})
}

// A list decoded and sent again is the request the spec means: the same
// JSON, with no key the data did not have.
func TestListVariantResent(t *testing.T) {
	for _, sent := range []string{`[{"text":"hi"}]`, `[{"x":1,"y":2}]`, `[]`} {
		var r Rows
		if err := json.Unmarshal([]byte(sent), &r); err != nil {
			t.Fatal(err)
		}
		s := wirecheck.NewReplying(t, specFile, sent)
		if _, err := newClient(t, s).PutRows(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		wirecheck.SameJSON(t, "the request", s.Received(t), sent)
	}
}

// Elements that are none of a variant's forms are kept as they were sent.
func TestListOfNoVariantIsUnknown(t *testing.T) {
	const sent = `[{"value":"1"}]` // Cell and RichCell both require id
	var c Cells
	if err := json.Unmarshal([]byte(sent), &c); err != nil {
		t.Fatal(err)
	}
	wirecheck.DecodesAs(t, sent, c, "Unknown")
}
