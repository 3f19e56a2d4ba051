package allofunions

// End-to-end tests of allOf schemas that combine objects with a
// oneOf/anyOf part (testdata/specs/allofunions.yaml).
// Such a schema is a union of the union part's variants whose fields are
// the object parts' properties: the variant's members (its required ones
// too) are sent beside the object's, and an answer decodes into both. Every
// request is checked with kin-openapi's openapi3filter, an oracle that
// shares no code with resgen.

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const specFile = "../../testdata/specs/allofunions.yaml"

func newClient(t *testing.T, s *wirecheck.Server) *Client {
	t.Helper()
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// roundTrip decodes sent into a body of type B, sends it, answers with
// reply, and checks that the request is sent (the server's oracle finds
// it valid) and that the answer, decoded and encoded again, is reply:
// neither the object's members nor the variant's are lost.
func roundTrip[B any, R any](t *testing.T, sent, reply string, call func(context.Context, *Client, B) (*R, error)) *R {
	t.Helper()
	var body B
	if err := json.Unmarshal([]byte(sent), &body); err != nil {
		t.Fatal(err)
	}
	s := wirecheck.NewReplying(t, specFile, reply)
	got, err := call(t.Context(), newClient(t, s), body)
	if err != nil {
		t.Fatal(err)
	}
	wirecheck.SameJSON(t, "the request", s.Received(t), sent)
	again, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	wirecheck.SameJSON(t, "the answer decoded and encoded again", again, reply)
	return got
}

func createPet(ctx context.Context, c *Client, body NewPet) (*Pet, error) {
	resp, err := c.CreatePet(ctx, body)
	if err != nil {
		return nil, err
	}
	return resp.JSON200, nil
}

func createListing(ctx context.Context, c *Client, body Listing) (*Listing, error) {
	resp, err := c.CreateListing(ctx, body)
	if err != nil {
		return nil, err
	}
	return resp.JSON200, nil
}

func pay(ctx context.Context, c *Client, body PayBody) (*Payment, error) {
	resp, err := c.Pay(ctx, body)
	if err != nil {
		return nil, err
	}
	return resp.JSON200, nil
}

// An inline object part with an inline oneOf part, answered by a $ref'd
// object part with a $ref'd anyOf part.
func TestAllOfUnionPetRoundTrip(t *testing.T) {
	for _, tc := range []struct{ sent, reply string }{
		{`{"name":"Tom","meow":true}`, `{"id":"p1","name":"Tom","meow":true}`},
		{`{"name":"Rex","bark":"woof"}`, `{"id":"p2","bark":"woof"}`},
	} {
		roundTrip(t, tc.sent, tc.reply, createPet)
	}
}

// The union part nested in an allOf part, beside properties of its own.
func TestAllOfUnionListingRoundTrip(t *testing.T) {
	for _, body := range []string{`{"title":"lamp","price":5}`, `{"title":"chair","free":true}`} {
		roundTrip(t, body, body, createListing)
	}
}

// A discriminated union part: the discriminator picks the variant, the
// object part's members go beside it.
func TestAllOfUnionPaymentRoundTrip(t *testing.T) {
	got := roundTrip(t, `{"amount":5,"kind":"card","number":"4242"}`, `{"id":"x1","amount":7,"kind":"bank","iban":"DE00"}`, pay)
	if got.Bank == nil || got.Bank.Iban != "DE00" || got.ID != "x1" || got.Amount != 7 {
		t.Errorf("decoded %+v, want the bank variant with id x1 and amount 7", got)
	}
}

// What a caller writes: the object's fields and one variant, whose
// required members are sent.
func TestAllOfUnionTypedRequest(t *testing.T) {
	s := wirecheck.New(t, specFile)
	c := newClient(t, s)
	// The server answers without the body the spec declares: the request
	// went out, and the empty answer is a DecodeError.
	if _, err := c.CreatePet(t.Context(), NewPet{Name: "Rex", Dog: &Dog{Bark: "woof"}}); !errors.Is(err, runtime.ErrEmptyBody) {
		t.Fatalf("err %v, want runtime.ErrEmptyBody", err)
	}
	wirecheck.SameJSON(t, "the request", s.Received(t), `{"name":"Rex","bark":"woof"}`)
	// The discriminator is filled in from the variant set.
	if _, err := c.Pay(t.Context(), PayBody{Amount: 3, Card: &Card{Number: "4242"}}); !errors.Is(err, runtime.ErrEmptyBody) {
		t.Fatalf("err %v, want runtime.ErrEmptyBody", err)
	}
	wirecheck.SameJSON(t, "the request", s.Received(t), `{"amount":3,"kind":"card","number":"4242"}`)
}

// The variant an answer decodes into is the one its members say, and the
// object part's members are in the fields.
func TestAllOfUnionPetDecodesVariant(t *testing.T) {
	got := roundTrip(t, `{"name":"Tom","meow":true}`, `{"id":"p1","name":"Tom","meow":false}`, createPet)
	if got.Cat == nil || got.Dog != nil || got.ID != "p1" || got.Name == nil || *got.Name != "Tom" {
		t.Errorf("decoded %+v, want the cat variant with id p1 and name Tom", got)
	}
}

// A value one of each of two unions has no Go type: it is raw JSON (the
// generator warns), sent as the caller wrote it.
func TestAllOfOfTwoUnionsIsRawJSON(t *testing.T) {
	s := wirecheck.New(t, specFile, 204)
	const body = `{"meow":true,"kind":"card","number":"4242"}`
	if _, err := newClient(t, s).PostMixed(t.Context(), Mixed(body)); err != nil {
		t.Fatal(err)
	}
	wirecheck.SameJSON(t, "the request", s.Received(t), body)
}
