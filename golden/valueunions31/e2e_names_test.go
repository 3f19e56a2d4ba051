package valueunions31

import (
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
)

// Inline variants are named by their const (…CredentialsPassword, not
// …CredentialsVariant1); the const the caller leaves empty is sent.
func TestInlineConstVariantsSentWithTag(t *testing.T) {
	s := wirecheck.NewReplying(t, specFile, "")
	c := newClient(t, s)
	for _, tc := range []struct {
		body AuthenticateBody
		want string
	}{
		{AuthenticateBody{Credentials: AuthenticateBodyCredentials{AuthenticateBodyCredentialsPassword: &AuthenticateBodyCredentialsPassword{Password: "pw"}}}, `{"credentials":{"kind":"password","password":"pw"}}`},
		{AuthenticateBody{Credentials: AuthenticateBodyCredentials{AuthenticateBodyCredentialsOtp: &AuthenticateBodyCredentialsOtp{Password: "123456", Digits: new(int64(6))}}}, `{"credentials":{"kind":"otp","password":"123456","digits":6}}`},
	} {
		if _, err := c.Authenticate(t.Context(), tc.body); err != nil {
			t.Fatal(err)
		}
		wirecheck.SameJSON(t, "the request", s.Received(t), tc.want)
	}
}
