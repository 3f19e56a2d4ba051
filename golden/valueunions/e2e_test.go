package valueunions

// End-to-end tests of unions whose object variants have the same keys and
// differ in the values of a property (testdata/specs/valueunions.yaml):
// what a server sends decodes into the variant its values say, with no
// member lost, and what the client sends carries the tag the spec fixes
// even when the caller leaves it empty. Every request is checked with
// kin-openapi's openapi3filter, an oracle that shares no code with resgen.

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const specFile = "../../testdata/specs/valueunions.yaml"

func newServer(t *testing.T, reply string) *wirecheck.Server {
	t.Helper()
	return wirecheck.NewReplying(t, specFile, reply)
}

func newClient(t *testing.T, s *wirecheck.Server) *Client {
	t.Helper()
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

// --- variants with the same keys, told apart by the value of "type" ---

func TestNextActionDecodesByTagValue(t *testing.T) {
	wirecheck.RepliesDecode(t, specFile, wirecheck.Cases{
		{`{"type":"await","url":"https://a.example","timeoutSeconds":30}`, "AwaitAction"},
		{`{"type":"redirect","url":"https://r.example","method":"POST"}`, "RedirectAction"},
		// The enum is a $ref'd schema behind allOf.
		{`{"type":"display","url":"https://d.example","text":"scan the code"}`, "DisplayAction"},
		// The tag is an allOf part's, over a base whose "type" is any string.
		{`{"type":"poll","url":"https://p.example","intervalSeconds":5}`, "PollAction"},
		// A tag no variant allows: kept as sent, not taken for the first variant.
		{`{"type":"teleport","url":"https://t.example"}`, "Unknown"},
	}, func(s *wirecheck.Server) (any, error) {
		resp, err := newClient(t, s).RunAction(t.Context(), NextAction{AwaitAction: &AwaitAction{Type: "await", URL: "https://x.example"}})
		if err != nil {
			return nil, err
		}
		return *resp.JSON200, nil
	})
}

func TestNextActionSentWithTagFilledIn(t *testing.T) {
	s := newServer(t, "")
	c := newClient(t, s)
	for _, tc := range []struct {
		body NextAction
		want string
	}{
		{NextAction{AwaitAction: &AwaitAction{URL: "https://a.example", TimeoutSeconds: ptr(int64(30))}}, `{"type":"await","url":"https://a.example","timeoutSeconds":30}`},
		{NextAction{RedirectAction: &RedirectAction{URL: "https://r.example", Method: ptr(RedirectActionMethodPost)}}, `{"type":"redirect","url":"https://r.example","method":"POST"}`},
		{NextAction{DisplayAction: &DisplayAction{URL: "https://d.example"}}, `{"type":"display","url":"https://d.example"}`},
	} {
		resp, err := c.RunAction(t.Context(), tc.body)
		if err != nil {
			t.Fatal(err)
		}
		wirecheck.SameJSON(t, "the request", s.Received(t), tc.want)
		// The echo decodes into the variant sent.
		wirecheck.DecodesAs(t, tc.want, *resp.JSON200, wirecheck.SetFields(tc.body)[0])
	}
}

func TestTagOtherThanTheSpecsIsAnEncodeError(t *testing.T) {
	s := newServer(t, "")
	_, err := newClient(t, s).RunAction(t.Context(), NextAction{RedirectAction: &RedirectAction{Type: "await", URL: "https://r.example"}})
	if err == nil || !strings.Contains(err.Error(), `"redirect"`) {
		t.Fatalf("err = %v, want an encode error naming the value the spec allows", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Fatalf("the server received %d requests, want none", n)
	}
}

// --- multi-value enums, and a member's JSON kind ---

func TestAccountDecodesByEnumAndKind(t *testing.T) {
	wirecheck.RepliesDecode(t, specFile, wirecheck.Cases{
		{`{"scheme":"visa","id":"4111","expires":"12/30"}`, "CardAccount"},
		{`{"scheme":"mastercard","id":"5500"}`, "CardAccount"},
		{`{"scheme":"sepa","id":"NL91","iban":"NL91ABNA0417164300"}`, "BankAccount"},
		{`{"scheme":"ach","id":"0210"}`, "BankAccount"},
		{`{"scheme":"giro","id":42,"branch":"Main St"}`, "LegacyAccount"},
		// An integer id is LegacyAccount's, whatever the scheme says.
		{`{"scheme":"visa","id":7}`, "LegacyAccount"},
	}, func(s *wirecheck.Server) (any, error) {
		resp, err := newClient(t, s).AddAccount(t.Context(), Account{LegacyAccount: &LegacyAccount{Scheme: "giro", ID: 1}})
		if err != nil {
			return nil, err
		}
		return *resp.JSON200, nil
	})
}

// --- the same keys required, no values to go by: the variant that knows every member ---

func TestLinkDecodesIntoTheVariantThatKnowsEveryMember(t *testing.T) {
	wirecheck.RepliesDecode(t, specFile, wirecheck.Cases{
		{`{"href":"/a"}`, "PlainLink"},
		{`{"href":"/a","rel":"next"}`, "TypedLink"},
		{`{"href":"/a","mediaType":"text/html","rel":"next"}`, "TypedLink"},
	}, func(s *wirecheck.Server) (any, error) {
		resp, err := newClient(t, s).AddLink(t.Context(), Link{PlainLink: &PlainLink{Href: "/x"}})
		if err != nil {
			return nil, err
		}
		return *resp.JSON200, nil
	})
}

// --- a plain struct with a required tag ---

func TestPingSentWithKindFilledIn(t *testing.T) {
	s := newServer(t, "")
	resp, err := newClient(t, s).Ping(t.Context(), Ping{Message: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	// version is optional: left out, as the caller did.
	wirecheck.SameJSON(t, "the request", s.Received(t), `{"kind":"ping","message":"hello"}`)
	if got := *resp.JSON200; got.Kind != PingKindPing || got.Message != "hello" || got.Version != nil {
		t.Errorf("echo decoded as %+v", got)
	}
	// An optional tag that is set is checked.
	if _, err := newClient(t, s).Ping(t.Context(), Ping{Message: "hello", Version: ptr(PingVersion(3))}); err == nil {
		t.Error("version 3 (the spec allows only 2) was sent")
	}
}
