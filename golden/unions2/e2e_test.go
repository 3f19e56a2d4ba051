package unions2

// End-to-end tests of unions whose variants key sets alone cannot tell
// apart (testdata/specs/unions2.yaml): a variant that is itself a oneOf
// of objects, array variants told apart by their elements, and variants
// that forbid members they do not name. What a server sends decodes into
// the variant the spec says, and encodes again to the same JSON; every
// request is checked with kin-openapi's openapi3filter, an oracle that
// shares no code with resgen.

import (
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const specFile = "../../testdata/specs/unions2.yaml"

func newClient(t *testing.T, s *wirecheck.Server) *Client {
	t.Helper()
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// --- a variant that is a oneOf of objects (intercom's reply request) ---

func TestNestedUnionVariantDecodes(t *testing.T) {
	wirecheck.RepliesDecode(t, specFile, wirecheck.Cases{
		{`{"type":"user","intercom_user_id":"u1","body":"hi"}`, "ContactReply"},
		{`{"type":"user","email":"a@example.com","body":"hi"}`, "ContactReply"},
		{`{"type":"admin","admin_id":"7","body":"hi"}`, "AdminReply"},
		// No tag: the admin variant requires nothing, a contact key decides.
		{`{"email":"a@example.com"}`, "ContactReply"},
		{`{"body":"hi"}`, "AdminReply"},
	}, func(s *wirecheck.Server) (any, error) {
		resp, err := newClient(t, s).Reply(t.Context(), Reply{AdminReply: &AdminReply{}})
		if err != nil {
			return nil, err
		}
		return *resp.JSON200, nil
	})
}

func TestNestedUnionVariantPicksInnerVariant(t *testing.T) {
	var r Reply
	if err := json.Unmarshal([]byte(`{"type":"user","email":"a@example.com"}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.ContactReply == nil || r.ContactReply.ContactByEmail == nil {
		t.Fatalf("decoded %+v, want ContactReply.ContactByEmail", r)
	}
}

// The harness's case: a contact reply decoded and sent again is the same
// request, not the admin variant with "type":"user" (an encode error).
func TestNestedUnionVariantResent(t *testing.T) {
	const sent = `{"type":"user","intercom_user_id":"u1","body":"hi"}`
	var r Reply
	if err := json.Unmarshal([]byte(sent), &r); err != nil {
		t.Fatal(err)
	}
	s := wirecheck.NewReplying(t, specFile, sent)
	if _, err := newClient(t, s).Reply(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	wirecheck.SameJSON(t, "the request", s.Received(t), sent)
}

// --- array variants told apart by their elements (figma's rows) ---

func TestArrayVariantsByElements(t *testing.T) {
	for _, tc := range []struct{ sent, want string }{
		{`{"rows":[{"week":"2024-01-01","component_key":"k","insertions":3}]}`, "Array"},
		{`{"rows":[{"week":"2024-01-01","team_name":"core","insertions":3}]}`, "Array2"},
		{`{"rows":[]}`, "Array"},
	} {
		s := wirecheck.NewReplying(t, specFile, tc.sent)
		resp, err := newClient(t, s).GetAnalytics(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		s.Received(t)
		wirecheck.DecodesAs(t, tc.sent[len(`{"rows":`):len(tc.sent)-1], resp.JSON200.Rows, tc.want)
	}
}

// --- variants that forbid members they do not name ---

func TestClosedVariants(t *testing.T) {
	wirecheck.RepliesDecode(t, specFile, wirecheck.Cases{
		{`{"name":"beta","enabled":true}`, "Flag"},
		{`{"name":"rate","max":10}`, "Limit"},
		// A member neither variant allows: not squeezed into the first
		// variant (which would drop it), kept as sent.
		{`{"name":"rate","burst":10}`, "Unknown"},
	}, func(s *wirecheck.Server) (any, error) {
		enabled := true
		resp, err := newClient(t, s).PutSetting(t.Context(), Setting{Flag: &Flag{Name: "beta", Enabled: &enabled}})
		if err != nil {
			return nil, err
		}
		return *resp.JSON200, nil
	})
}

// --- variants told apart inside an object member (openstack) ---

func TestVariantsByMemberForm(t *testing.T) {
	wirecheck.RepliesDecode(t, specFile, wirecheck.Cases{
		{`{"transfer":{"volume_id":"v1","no_snapshots":true}}`, "TransferCreate355"},
		// kin-openapi finds this one ambiguous (both microversions take
		// it); it decodes into the first and encodes again unchanged.
		{`{"transfer":{"volume_id":"v1","name":"n"}}`, "TransferCreate30"},
	}, func(s *wirecheck.Server) (any, error) {
		noSnapshots := true
		resp, err := newClient(t, s).CreateTransfer(t.Context(), TransferCreate{TransferCreate355: &TransferCreate355{Transfer: TransferCreate355Transfer{VolumeID: "v1", NoSnapshots: &noSnapshots}}})
		if err != nil {
			return nil, err
		}
		return *resp.JSON200, nil
	})
}

// --- a variant that is a union with a discriminator (okta's keys) ---

// A union with a discriminator is one of its variants only when the
// object names it: a key without "kty" is the encryption key (whose kty
// is optional), not an RSA signing key that would come back with
// "kty":"RSA" added.
func TestNestedDiscriminatedUnion(t *testing.T) {
	wirecheck.RepliesDecode(t, specFile, wirecheck.Cases{
		{`{"kty":"EC","x":"1","y":"2"}`, "SigningKey"},
		{`{"kty":"RSA","n":"abc","e":"AQAB"}`, "SigningKey"},
		{`{"kty":"RSA","use":"enc","n":"abc"}`, "EncryptionKey"},
		{`{"n":"abc","e":"AQAB"}`, "EncryptionKey"},
	}, func(s *wirecheck.Server) (any, error) {
		resp, err := newClient(t, s).AddKey(t.Context(), Key{SigningKey: &SigningKey{EcKey: &EcKey{X: ptr("1")}}})
		if err != nil {
			return nil, err
		}
		return *resp.JSON200, nil
	})
}

func ptr[T any](v T) *T { return &v }

// --- list variants tried in turn (openai's embedding input) ---

// A list that does not decode as the first list variant leaves it empty:
// [[6,7]] tried as a []string was ["",""], and that was what got sent.
func TestListVariantTriedInTurn(t *testing.T) {
	wirecheck.RepliesDecode(t, specFile, wirecheck.Cases{
		{`"one text"`, "String"},
		{`["a","b"]`, "Array"},
		{`[[6,7],[8]]`, "Array2"},
	}, func(s *wirecheck.Server) (any, error) {
		resp, err := newClient(t, s).Embed(t.Context(), EmbeddingInput{Array2: [][]int64{{6, 7}}})
		if err != nil {
			return nil, err
		}
		return *resp.JSON200, nil
	})
}
