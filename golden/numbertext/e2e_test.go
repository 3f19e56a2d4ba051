package numbertext

// End-to-end tests of testdata/specs/numbertext.yaml through the generated
// client against a loopback server that checks every request with
// kin-openapi's openapi3filter: a type: number value is written as the
// shortest decimal without an exponent wherever it becomes text (1000000
// used to go out as 1e+06, which a server reading an integer refuses).

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"strings"
	"testing"

	"github.com/resgen/resgen/internal/wirecheck"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const spec = "../../testdata/specs/numbertext.yaml"

func ptr[T any](v T) *T { return &v }

func newClient(t *testing.T, server string) *Client {
	t.Helper()
	c, err := NewClient(server, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Each value with the text it must be sent as: large, small, fractional,
// negative, and float32 values whose float64 form has more digits.
var numbers = []struct {
	v    float64
	text string
}{
	{1000000, "1000000"},
	{1e21, "1000000000000000000000"},
	{1.5e-7, "0.00000015"},
	{-2.5, "-2.5"},
	{0, "0"},
	{123456789.125, "123456789.125"},
}

func TestNumberParametersAreSentWithoutExponent(t *testing.T) {
	for _, n := range numbers {
		s := wirecheck.New(t, spec, 204)
		c := newClient(t, s.URL)
		u := PutAmountEither{Number: ptr(n.v)}
		_, err := c.PutAmount(t.Context(), n.v, PutAmountParams{
			Limit: n.v, Ratio: ptr(float32(1e7)), Steps: []float64{n.v, 2e6},
			Box: &PutAmountBox{Width: ptr(n.v)}, Either: &u, XAmount: ptr(n.v), Amount: ptr(n.v),
		})
		if err != nil {
			t.Fatal(err)
		}
		r := s.Last(t)
		checks := []struct{ what, got, want string }{
			{"path", r.RawPath, "/amounts/" + n.text},
			{"query limit", r.Query.Get("limit"), n.text},
			{"query ratio (float32)", r.Query.Get("ratio"), "10000000"},
			{"query steps", r.Query.Get("steps"), n.text + ",2000000"},
			{"query box[width]", r.Query.Get("box[width]"), n.text},
			{"query either (union)", r.Query.Get("either"), n.text},
			{"header X-Amount", r.Header.Get("X-Amount"), n.text},
			{"cookie amount", cookie(r, "amount"), n.text},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("%v: %s = %q, want %q", n.v, c.what, c.got, c.want)
			}
		}
	}
}

// The Unknown text of a union (a number no variant took, kept as JSON) is
// written without exponent too.
func TestUnknownNumberOfUnionIsSentWithoutExponent(t *testing.T) {
	u := PutAmountEither{Unknown: json.RawMessage(`1e+21`)}
	if got := u.ParamText(); got != "1000000000000000000000" {
		t.Errorf("ParamText = %q, want 1000000000000000000000", got)
	}
}

func TestNumberPartsAreSentWithoutExponent(t *testing.T) {
	for _, n := range numbers {
		s := wirecheck.New(t, spec, 204)
		c := newClient(t, s.URL)
		if _, err := c.Upload(t.Context(), UploadMultipart{Amount: n.v, Scale: ptr(float32(16777216)), Steps: []float64{n.v}}); err != nil {
			t.Fatal(err)
		}
		r := s.Last(t)
		parts := partsOf(t, r)
		want := map[string]string{"amount": n.text, "scale": "16777216", "steps": n.text}
		for k, w := range want {
			if got := parts[k]; got != w {
				t.Errorf("%v: part %s = %q, want %q", n.v, k, got, w)
			}
		}
	}
}

func cookie(r wirecheck.Request, name string) string {
	for _, c := range r.Cookies {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// partsOf reads a multipart body's text parts.
func partsOf(t *testing.T, r wirecheck.Request) map[string]string {
	t.Helper()
	_, p, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(bytes.NewReader(r.Body), p["boundary"])
	out := map[string]string{}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(part)
		out[part.FormName()] = strings.TrimSpace(string(b))
	}
}
