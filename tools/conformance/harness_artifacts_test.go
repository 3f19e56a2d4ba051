package conformance

import (
	"strings"
	"testing"
)

// TestHarnessArtifacts runs the constructs that made the harness report
// failures of a correct client (harness artifacts): a format:
// byte parameter base64-encoded twice, HEAD answered with a body, a
// lower-case 4xx answered as 200, a default answered with a status a 4XX
// range covers, a filler key from a free-form union variant that sent the
// client to the wrong variant, typeless object schemas synthesized as
// strings (and typeless number parameters as numbers a string field cannot
// hold), and a 3.1 spec pre-checked with the 3.0 validator. Each call is
// made and judged, and nothing fails but what kin-openapi cannot judge (the
// typeless parameters: an exception by construct). (On the harness before
// the fixes: eight failures and four skipped calls in artifacts.yaml, one
// failure in artifacts31.yaml.)
func TestHarnessArtifacts(t *testing.T) {
	for spec, want := range map[string]struct{ calls, errorAnswers, roundTripped int }{
		// (Six of the calls answer with the other alternatives of the
		// envelopes' nested result unions: nestedChoices; four with
		// their optional properties unset.)
		"testdata/artifacts.yaml":   {calls: 22, errorAnswers: 2, roundTripped: 18},
		"testdata/artifacts31.yaml": {calls: 2}, // and the call with its optional properties unset
	} {
		r := Run(t.Context(), spec, testOptions(t))
		for _, f := range r.Failures {
			if f.Excepted == "" || !strings.HasPrefix(f.Excepted, "kin: schema without type at query parameter") {
				t.Errorf("%s: %s [%s]: %s at %s: %s (%s)", spec, f.Operation, f.Call, f.Kind, f.At, f.Detail, f.Excepted)
			}
		}
		for _, s := range r.NeverCalled {
			t.Errorf("%s: never called %s", spec, s)
		}
		// The lower-case 4xx and the 4XX beside a default are answered
		// with an error status; the default, which no plain status
		// reaches, is not answered at all.
		if r.Calls != want.calls || r.ErrorAnswers != want.errorAnswers || r.RoundTripped != want.roundTripped {
			t.Errorf("%s: calls %d, error answers %d, round-tripped %d; want %+v", spec, r.Calls, r.ErrorAnswers, r.RoundTripped, want)
		}
	}
}

// TestHarnessCatchesADoubleEncodedByteParameter: where the harness no
// longer encodes a format: byte value twice, a client that does is caught.
func TestHarnessCatchesADoubleEncodedByteParameter(t *testing.T) {
	opts := testOptions(t)
	opts.Mutate = mutation(t, `req.Query.Add("token", base64.StdEncoding.EncodeToString(params.Token))`,
		`req.Query.Add("token", base64.StdEncoding.EncodeToString([]byte(base64.StdEncoding.EncodeToString(params.Token))))`)
	r := Run(t.Context(), "testdata/artifacts.yaml", opts)
	var caught []Failure
	for _, f := range failuresOf(r, "value") {
		if strings.Contains(f.Detail, `"token"`) {
			caught = append(caught, f)
		}
	}
	if len(caught) == 0 {
		t.Fatalf("want a value failure for token; got %+v", r.Failures)
	}
	t.Logf("caught: %s", caught[0].Detail)
}

// A form cannot write an empty object or list (no key is sent), so the
// harness does not expect one back: it compares the form body without
// them, at any depth, and keeps everything else.
func TestFormBodiesHaveNoEmptyMembers(t *testing.T) {
	in := map[string]any{"a": map[string]any{}, "b": []any{}, "c": map[string]any{"d": map[string]any{}, "e": "x"},
		"f": []any{map[string]any{"g": []any{}}}, "h": ""}
	got := canonical(withoutEmpty(in))
	if want := `{"c":{"e":"x"},"f":[{}],"h":""}`; got != want {
		t.Fatalf("got %s; want %s", got, want)
	}
}
