package respheaders

// End-to-end tests of testdata/specs/respheaders.yaml through the generated
// client against a loopback server: a declared response header is a field
// of its schema's type (every one used to be a *string),
// decoded strictly; a malformed one is reported without losing the
// response.

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newClient(t *testing.T, server string) *Client {
	t.Helper()
	c, err := NewClient(server, WithLogger(slog.New(slog.DiscardHandler)), WithCallOptions(runtime.WithNoRetry()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// serve answers every request with status, the headers h and a JSON body.
func serve(t *testing.T, status int, h http.Header) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range h {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(`["a"]`))
	}))
	t.Cleanup(s.Close)
	return s.URL
}

func ptr[T any](v T) *T { return &v }

func TestResponseHeadersAreTypedBySchema(t *testing.T) {
	h := http.Header{
		"X-Rate-Limit": {"9007199254740993"}, "X-Small": {"-7"}, "X-Count": {"4294967295"},
		"X-Ratio": {"0.25"}, "X-Scale": {"1e3"}, "X-Flag": {"true"}, "X-Name": {"a, b"},
		"X-Ids": {"1, 2", "3"}, "X-Tags": {"x,y z"}, "X-Maybe": {"0"}, "X-When": {"Tue, 01 Dec 2026 10:00:00 GMT"},
	}
	resp, err := newClient(t, serve(t, 200, h)).ListItems(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := &ListItemsResponse{
		XRateLimit: ptr(int64(9007199254740993)), XSmall: ptr(int32(-7)), XCount: ptr(uint32(4294967295)),
		XRatio: ptr(0.25), XScale: ptr(float32(1000)), XFlag: ptr(true), XName: ptr("a, b"),
		XIDs: []int64{1, 2, 3}, XTags: []string{"x", "y z"}, XMaybe: ptr(int64(0)), XWhen: ptr("Tue, 01 Dec 2026 10:00:00 GMT"),
		JSON200: []string{"a"},
	}
	want.Response = resp.Response
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("got  %+v\nwant %+v", *resp, *want)
	}
}

// Values strconv takes but no schema's text is: each is an error that
// names the header, the typed response comes back beside it with the body
// decoded, the bad field nil and the text in Header.
func TestMalformedResponseHeaderIsReportedWithTheResponse(t *testing.T) {
	for name, bad := range map[string]string{
		"X-Rate-Limit": "+5", "X-Small": "05", "X-Count": "-1", "X-Ratio": "0x1p4",
		"X-Scale": "Inf", "X-Flag": "1", "X-Ids": "1,,2", "X-Maybe": "2147483648.0",
	} {
		resp, err := newClient(t, serve(t, 200, http.Header{name: {bad}, "X-Name": {"n"}})).ListItems(t.Context())
		var de *runtime.DecodeError
		var he *runtime.HeaderError
		if !errors.As(err, &de) || !errors.As(err, &he) || he.Header != name {
			t.Errorf("%s: %q: error %v, want a *runtime.DecodeError with a *runtime.HeaderError for it", name, bad, err)
			continue
		}
		if resp == nil || len(resp.JSON200) != 1 || resp.XName == nil || *resp.XName != "n" || resp.Header.Get(name) != bad {
			t.Errorf("%s: %q: the response is lost: %+v", name, bad, resp)
			continue
		}
		if f := reflect.ValueOf(resp).Elem().FieldByName(fieldOf[name]); !f.IsNil() {
			t.Errorf("%s: %q: its field holds %v", name, bad, f.Interface())
		}
	}
}

var fieldOf = map[string]string{
	"X-Rate-Limit": "XRateLimit", "X-Small": "XSmall", "X-Count": "XCount", "X-Ratio": "XRatio",
	"X-Scale": "XScale", "X-Flag": "XFlag", "X-Ids": "XIDs", "X-Maybe": "XMaybe",
}

// A 4XX's header is typed too; a malformed one is the StatusError's
// DecodeErr.
func TestHeaderOfErrorStatus(t *testing.T) {
	resp, err := newClient(t, serve(t, 429, http.Header{"Retry-After-Seconds": {"30"}})).ListItems(t.Context())
	var se *runtime.StatusError
	if !errors.As(err, &se) || se.StatusCode != 429 || se.DecodeErr != nil || resp.RetryAfterSeconds == nil || *resp.RetryAfterSeconds != 30 {
		t.Errorf("error %v, Retry-After-Seconds %v; want a 429 with 30", err, resp.RetryAfterSeconds)
	}
	resp, err = newClient(t, serve(t, 429, http.Header{"Retry-After-Seconds": {"soon"}})).ListItems(t.Context())
	var he *runtime.HeaderError
	if !errors.As(err, &se) || se.StatusCode != 429 || !errors.As(se.DecodeErr, &he) || resp.RetryAfterSeconds != nil {
		t.Errorf("error %v; want a 429 whose DecodeErr is a *runtime.HeaderError", err)
	}
}
