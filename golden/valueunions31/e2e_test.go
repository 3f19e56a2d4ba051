package valueunions31

// End-to-end tests of valueunions31.yaml: the 3.1 spelling (const) of
// the tags that tell same-keyed variants apart, checked on the wire with
// kin-openapi's openapi3filter.

import (
	"log/slog"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const specFile = "../../testdata/specs/valueunions31.yaml"

func newClient(t *testing.T, s *wirecheck.Server) *Client {
	t.Helper()
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNextActionDecodesByConst(t *testing.T) {
	wirecheck.RepliesDecode(t, specFile, wirecheck.Cases{
		{`{"type":"await","url":"https://a.example","timeoutSeconds":9}`, "AwaitAction"},
		{`{"type":"redirect","url":"https://r.example","method":"GET"}`, "RedirectAction"},
		{`{"type":"teleport","url":"https://t.example"}`, "Unknown"},
	}, func(s *wirecheck.Server) (any, error) {
		resp, err := newClient(t, s).RunAction(t.Context(), NextAction{AwaitAction: &AwaitAction{URL: "https://x.example"}})
		if err != nil {
			return nil, err
		}
		return *resp.JSON200, nil
	})
}

func TestConstSentWhenLeftEmpty(t *testing.T) {
	s := wirecheck.NewReplying(t, specFile, "")
	c := newClient(t, s)
	_, err := c.RunAction(t.Context(), NextAction{RedirectAction: &RedirectAction{URL: "https://r.example"}})
	if err != nil {
		t.Fatal(err)
	}
	// A const with no type is typed by its value.
	wirecheck.SameJSON(t, "the request", s.Received(t), `{"type":"redirect","url":"https://r.example"}`)
}
