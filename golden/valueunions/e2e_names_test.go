package valueunions

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
)

// Inline variants are named by their tag value (PaymentRequestMethodIdeal,
// not PaymentRequestMethodVariant1), and the tag the caller leaves empty
// is sent.
func TestInlineVariantsSentWithTagFilledIn(t *testing.T) {
	s := newServer(t, "")
	c := newClient(t, s)
	for _, tc := range []struct {
		body PaymentRequest
		want string
	}{
		{PaymentRequest{Amount: 5, Method: PaymentRequestMethod{PaymentRequestMethodIdeal: &PaymentRequestMethodIdeal{Issuer: "1121"}}}, `{"amount":5,"method":{"type":"ideal","issuer":"1121"}}`},
		{PaymentRequest{Amount: 6, Method: PaymentRequestMethod{PaymentRequestMethodEps: &PaymentRequestMethodEps{Issuer: "1121", Bic: ptr("BKAUATWW")}}}, `{"amount":6,"method":{"type":"eps","issuer":"1121","bic":"BKAUATWW"}}`},
		{PaymentRequest{Amount: 7, Method: PaymentRequestMethod{PaymentRequestMethodCard: &PaymentRequestMethodCard{Number: "4111"}}}, `{"amount":7,"method":{"type":"card","number":"4111"}}`},
	} {
		resp, err := c.CreatePayment(t.Context(), tc.body)
		if err != nil {
			t.Fatal(err)
		}
		wirecheck.SameJSON(t, "the request", s.Received(t), tc.want)
		// The echo decodes into the variant sent, every member kept.
		if got, want := wirecheck.SetFields(resp.JSON200.Method), wirecheck.SetFields(tc.body.Method); !slices.Equal(got, want) {
			t.Errorf("%s decoded into %v, want %v", tc.want, got, want)
		}
		again, err := json.Marshal(resp.JSON200)
		if err != nil {
			t.Fatal(err)
		}
		wirecheck.SameJSON(t, "the echo encoded again", again, tc.want)
	}
}
