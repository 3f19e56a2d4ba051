package bodies

// End-to-end tests of the generated Bodies client against a real HTTP
// server on loopback. kin-openapi's openapi3filter, which shares no code
// with resgen, checks every request against testdata/specs/bodies.yaml
// (route, Content-Type, body decoded by its own decoders and validated
// against the schema); the tests then check the decoded values.

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// openapi3filter has no XML decoder (an exception of the oracle, not of
	// the spec): this one decodes the NewPet XML that CreatePetWithBody sends.
	openapi3filter.RegisterBodyDecoder("application/xml", func(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
		var pet struct {
			Name *string `xml:"name"`
			Tag  *string `xml:"tag"`
		}
		if err := xml.NewDecoder(body).Decode(&pet); err != nil {
			return nil, err
		}
		out := map[string]any{}
		if pet.Name != nil {
			out["name"] = *pet.Name
		}
		if pet.Tag != nil {
			out["tag"] = *pet.Tag
		}
		return out, nil
	})
	openapi3filter.RegisterBodyDecoder("image/png", openapi3filter.FileBodyDecoder)
	goleak.VerifyTestMain(m)
}

// received is one request as the server got it.
type received struct {
	Path, Query, Key string
	ContentType      string
	Body             []byte
}

type server struct {
	*httptest.Server
	mu     sync.Mutex
	reqs   []received
	status []int // answers in turn; 201 once they run out
}

// newServer validates every request with openapi3filter and fails the
// test on any request the spec does not allow.
func newServer(t *testing.T) *server {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile("../../testdata/specs/bodies.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatal(err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, received{Path: r.URL.Path, Query: r.URL.RawQuery, Key: r.Header.Get("Idempotency-Key"), ContentType: r.Header.Get("Content-Type"), Body: b})
		status := http.StatusCreated
		if len(s.status) > 0 {
			status, s.status = s.status[0], s.status[1:]
		}
		s.mu.Unlock()
		if _, excepted := oracleExceptions[r.URL.Path]; excepted {
			// checked by hand in its test
		} else if err := validate(router, r, b); err != nil {
			t.Errorf("%s %s (%s): openapi3filter: %v\n%s", r.Method, r.URL.Path, r.Header.Get("Content-Type"), err, b)
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(s.Close)
	return s
}

// oracleExceptions are the paths whose requests openapi3filter cannot
// judge, with the reason.
var oracleExceptions = map[string]string{
	"/charges": "openapi3filter refuses deepObject on a list (OpenAPI defines it for objects only); resgen sends indexed brackets, as Stripe's spec means",
}

func validate(router routers.Router, r *http.Request, body []byte) error {
	r.Body = io.NopCloser(bytes.NewReader(body))
	route, pathParams, err := router.FindRoute(r)
	if err != nil {
		return err
	}
	return openapi3filter.ValidateRequest(r.Context(), &openapi3filter.RequestValidationInput{
		Request: r, PathParams: pathParams, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
	})
}

func (s *server) requests() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.reqs...)
}

// calls records the runtime operation and breaker of each call.
type calls struct {
	runtime.NopObserver
	mu    sync.Mutex
	start []runtime.CallStartEvent
}

func (c *calls) CallStart(e runtime.CallStartEvent) context.Context {
	c.mu.Lock()
	c.start = append(c.start, e)
	c.mu.Unlock()
	return e.Context
}

func (c *calls) events() []runtime.CallStartEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]runtime.CallStartEvent(nil), c.start...)
}

func newClient(t *testing.T, s *server) (*Client, *calls) {
	t.Helper()
	obs := &calls{}
	c, err := NewClient(s.URL, WithObserver(obs))
	if err != nil {
		t.Fatal(err)
	}
	return c, obs
}

func mediaType(t *testing.T, ct string) (string, map[string]string) {
	t.Helper()
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		t.Fatalf("Content-Type %q: %v", ct, err)
	}
	return mt, params
}

// part is one decoded multipart part.
type part struct {
	Name, FileName, ContentType, Value string
}

func parts(t *testing.T, r received) []part {
	t.Helper()
	mt, params := mediaType(t, r.ContentType)
	if mt != "multipart/form-data" {
		t.Fatalf("Content-Type %q, want multipart/form-data", r.ContentType)
	}
	mr := multipart.NewReader(bytes.NewReader(r.Body), params["boundary"])
	var out []part
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		v, _ := io.ReadAll(p)
		out = append(out, part{p.FormName(), p.FileName(), p.Header.Get("Content-Type"), string(v)})
	}
}

// Every content type createPet declares is reachable: one method each for
// those resgen encodes, CreatePetWithBody for XML. Each sends its own
// Content-Type, a body openapi3filter accepts, and runs through the same
// runtime operation and breaker.
func TestEveryContentType(t *testing.T) {
	s := newServer(t)
	c, obs := newClient(t, s)
	ctx := context.Background()
	tag := "dog"
	pet := NewPet{Name: "Rex", Tag: &tag}
	type call struct {
		name  string
		do    func() (*CreatePetResponse, error)
		ctype string
		check func(t *testing.T, r received)
	}
	for _, tc := range []call{
		{"CreatePet", func() (*CreatePetResponse, error) { return c.CreatePet(ctx, nil, pet) }, "application/json", func(t *testing.T, r received) {
			var got NewPet
			if err := json.Unmarshal(r.Body, &got); err != nil || !reflect.DeepEqual(got, pet) {
				t.Errorf("JSON body %s (%v), want Rex/dog", r.Body, err)
			}
		}},
		{"CreatePetWithForm2", func() (*CreatePetResponse, error) { return c.CreatePetWithForm2(ctx, nil, pet) }, "application/x-www-form-urlencoded", func(t *testing.T, r received) {
			got, err := url.ParseQuery(string(r.Body))
			if want := (url.Values{"name": {"Rex"}, "tag": {"dog"}}); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("form body %q, want %v", r.Body, want)
			}
		}},
		{"CreatePetWithMultipart", func() (*CreatePetResponse, error) {
			return c.CreatePetWithMultipart(ctx, nil, CreatePetMultipart{Name: "Rex", Tag: &tag})
		}, "multipart/form-data", func(t *testing.T, r received) {
			want := []part{{Name: "name", Value: "Rex"}, {Name: "tag", Value: "dog"}}
			if got := parts(t, r); !reflect.DeepEqual(got, want) {
				t.Errorf("parts %+v, want %+v", got, want)
			}
		}},
		{"CreatePetWithText", func() (*CreatePetResponse, error) { return c.CreatePetWithText(ctx, nil, "Rex the dog") }, "text/plain", func(t *testing.T, r received) {
			if string(r.Body) != "Rex the dog" {
				t.Errorf("text body %q", r.Body)
			}
		}},
		{"CreatePetWithBytes", func() (*CreatePetResponse, error) {
			return c.CreatePetWithBytes(ctx, nil, bytes.NewReader([]byte{0, 1, 2, 0xff}))
		}, "application/octet-stream", func(t *testing.T, r received) {
			if !bytes.Equal(r.Body, []byte{0, 1, 2, 0xff}) {
				t.Errorf("bytes body %x", r.Body)
			}
		}},
		{"CreatePetWithBody", func() (*CreatePetResponse, error) {
			return c.CreatePetWithBody(ctx, nil, "application/xml", strings.NewReader("<NewPet><name>Rex</name></NewPet>"))
		}, "application/xml", func(t *testing.T, r received) {
			if string(r.Body) != "<NewPet><name>Rex</name></NewPet>" {
				t.Errorf("XML body %q", r.Body)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(s.requests())
			resp, err := tc.do()
			if err != nil || resp.StatusCode != http.StatusCreated {
				t.Fatalf("%v %v", resp, err)
			}
			reqs := s.requests()[before:]
			if len(reqs) != 1 || reqs[0].Path != "/pets" {
				t.Fatalf("requests %+v, want one to /pets", reqs)
			}
			if mt, _ := mediaType(t, reqs[0].ContentType); mt != tc.ctype {
				t.Errorf("Content-Type %q, want %s", reqs[0].ContentType, tc.ctype)
			}
			tc.check(t, reqs[0])
		})
	}
	for _, e := range obs.events() {
		if e.Operation != "createPet" || e.Breaker != "default" {
			t.Errorf("call ran as operation %q breaker %q, want createPet's", e.Operation, e.Breaker)
		}
	}
	if n := len(obs.events()); n != 6 {
		t.Errorf("%d calls through the runtime, want 6", n)
	}
}

// The raw escape hatch streams the caller's reader: a retried call
// (createPet is idempotent) sends a replayable one (a *strings.Reader)
// again, byte for byte, and any other reader once.
func TestWithBodyResentOnRetry(t *testing.T) {
	s := newServer(t)
	s.status = []int{http.StatusServiceUnavailable}
	c, _ := newClient(t, s)
	xml := "<NewPet><name>Rex</name></NewPet>"
	resp, err := c.CreatePetWithBody(context.Background(), nil, "application/xml", strings.NewReader(xml))
	if err != nil || resp.Attempts != 2 {
		t.Fatalf("%+v %v, want a success on attempt 2", resp, err)
	}
	reqs := s.requests()
	if len(reqs) != 2 || reqs[0].Key == "" || reqs[0].Key != reqs[1].Key {
		t.Fatalf("attempts %+v, want 2 with one idempotency key", reqs)
	}
	for i, r := range reqs {
		if string(r.Body) != xml || r.ContentType != "application/xml" {
			t.Errorf("attempt %d sent %q as %q", i+1, r.Body, r.ContentType)
		}
	}

	s.status = []int{http.StatusServiceUnavailable}
	resp, err = c.CreatePetWithBody(context.Background(), nil, "application/xml", io.NopCloser(strings.NewReader(xml)))
	if !errors.Is(err, runtime.ErrBodyNotReplayable) || resp == nil || resp.Attempts != 1 || len(s.requests()) != 3 {
		t.Fatalf("%+v %v after %d sends; want one more send and a 503 stopped by ErrBodyNotReplayable", resp, err, len(s.requests()))
	}
}

// An operation the spec names like a variant keeps its name; the variant
// is the one renamed.
func TestSpecNameWins(t *testing.T) {
	s := newServer(t)
	c, _ := newClient(t, s)
	if _, err := c.CreatePetWithForm(context.Background(), &NewPet{Name: "Rex"}); err != nil {
		t.Fatal(err)
	}
	r := s.requests()[0]
	if r.Path != "/pets/form" || r.ContentType != "application/json" {
		t.Fatalf("CreatePetWithForm sent %s %s, want the spec's createPetWithForm (JSON to /pets/form)", r.Path, r.ContentType)
	}
}

// Two JSON media types: the variant sends its own.
func TestPatchVariants(t *testing.T) {
	s := newServer(t)
	c, _ := newClient(t, s)
	ctx := context.Background()
	if _, err := c.PatchPet(ctx, "7", []PatchPetBodyItem{{Op: "replace", Path: "/name", Value: json.RawMessage(`"Rex"`)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PatchPetWithMergePatchJSON(ctx, "7", &NewPet{Name: "Rex"}); err != nil {
		t.Fatal(err)
	}
	reqs := s.requests()
	if len(reqs) != 2 || reqs[0].ContentType != "application/json-patch+json" || reqs[1].ContentType != "application/merge-patch+json" {
		t.Fatalf("requests %+v", reqs)
	}
}

// Required multipart parts: a nil (or empty) file, list or object part is
// an error before any request, so no attempt and no breaker outcome; a
// complete body sends every part as the spec's encoding says.
func TestRequiredParts(t *testing.T) {
	s := newServer(t)
	c, obs := newClient(t, s)
	ctx := context.Background()
	full := func() UploadMultipart {
		return UploadMultipart{
			File:  &runtime.File{Name: "a.png", Content: strings.NewReader("PNG")},
			Title: "holiday",
			Tags:  []string{"sea", "sun"},
			Meta:  UploadMultipartMeta{Owner: new("ann")},
		}
	}
	for name, mut := range map[string]func(*UploadMultipart){
		"file nil":     func(b *UploadMultipart) { b.File = nil },
		"file content": func(b *UploadMultipart) { b.File.Content = nil },
		"tags empty":   func(b *UploadMultipart) { b.Tags = nil },
	} {
		b := full()
		mut(&b)
		_, err := c.Upload(ctx, b)
		if err == nil || !strings.Contains(err.Error(), "is required") {
			t.Errorf("%s: err %v, want a required-part error", name, err)
		}
	}
	if n := len(s.requests()); n != 0 {
		t.Fatalf("%d requests sent for bodies missing required parts", n)
	}
	if n := len(obs.events()); n != 0 {
		t.Fatalf("%d calls reached the runtime for bodies missing required parts", n)
	}

	b := full()
	b.Count = new(int64(3))
	b.Labels = []UploadMultipartLabelsItem{{Key: "k1"}, {Key: "k2"}}
	b.Thumbs = []*runtime.File{{Name: "t.jpg", ContentType: "image/jpeg", Content: strings.NewReader("JPG")}}
	if _, err := c.Upload(ctx, b); err != nil {
		t.Fatal(err)
	}
	want := []part{
		{Name: "count", Value: "3"},
		{Name: "file", FileName: "a.png", ContentType: "image/png", Value: "PNG"},
		{Name: "labels", ContentType: "application/json", Value: `{"key":"k1"}`},
		{Name: "labels", ContentType: "application/json", Value: `{"key":"k2"}`},
		{Name: "meta", ContentType: "application/json", Value: `{"owner":"ann"}`},
		{Name: "tags", Value: "sea"},
		{Name: "tags", Value: "sun"},
		{Name: "thumbs", FileName: "t.jpg", ContentType: "image/jpeg", Value: "JPG"},
		{Name: "title", Value: "holiday"},
	}
	if got := parts(t, s.requests()[0]); !reflect.DeepEqual(got, want) {
		t.Errorf("parts\n%+v\nwant\n%+v", got, want)
	}
}

// A form's properties follow their encoding: lists repeated by default,
// joined where explode is false, objects as deepObject brackets.
func TestFormEncoding(t *testing.T) {
	s := newServer(t)
	c, _ := newClient(t, s)
	_, err := c.PostOrder(context.Background(), PostOrderForm{
		Name: "o1", Tags: []string{"a", "b"}, Csv: []string{"x", "z"},
		Meta: &PostOrderFormMeta{K: new("v")},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := s.requests()[0]
	got, err := url.ParseQuery(string(r.Body))
	want := url.Values{"name": {"o1"}, "tags": {"a", "b"}, "csv": {"x,z"}, "meta[k]": {"v"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("form %q = %v, want %v", r.Body, got, want)
	}
}

// deepObject on lists, as Stripe uses it: indexed brackets, not repeated
// names (which such a server reads as one value).
func TestFormDeepObjectLists(t *testing.T) {
	s := newServer(t)
	c, _ := newClient(t, s)
	_, err := c.PostCharge(context.Background(), PostChargeForm{
		Amount: new(int64(5)), Expand: []string{"customer", "invoice"},
		Lines: []PostChargeFormLinesItem{{Price: new("p1"), Quantity: new(int64(2))}, {Price: new("p2")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := s.requests()[0]
	want := "amount=5&expand%5B0%5D=customer&expand%5B1%5D=invoice&lines%5B0%5D%5Bprice%5D=p1&lines%5B0%5D%5Bquantity%5D=2&lines%5B1%5D%5Bprice%5D=p2"
	if string(r.Body) != want {
		t.Errorf("form\n%s\nwant\n%s", r.Body, want)
	}
}

// A wildcard request content type (image/*) is no Content-Type to send:
// the method takes the caller's, where main sent "image/*" itself.
func TestWildcardContentType(t *testing.T) {
	s := newServer(t)
	c, _ := newClient(t, s)
	if _, err := c.PutAvatar(context.Background(), "image/png", strings.NewReader("PNG")); err != nil {
		t.Fatal(err)
	}
	if r := s.requests()[0]; r.ContentType != "image/png" || string(r.Body) != "PNG" {
		t.Fatalf("sent %q as %q", r.Body, r.ContentType)
	}
}

// A variant sends the operation's parameters and idempotency key as the
// plain method does: they are built by the method they share.
func TestVariantParams(t *testing.T) {
	s := newServer(t)
	c, _ := newClient(t, s)
	dry, key := true, "k-1"
	if _, err := c.CreatePetWithForm2(context.Background(), &CreatePetParams{DryRun: &dry, IdempotencyKey: &key}, NewPet{Name: "Rex"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreatePetWithText(context.Background(), nil, "Rex"); err != nil {
		t.Fatal(err)
	}
	reqs := s.requests()
	if reqs[0].Query != "dryRun=true" || reqs[0].Key != "k-1" {
		t.Errorf("form variant sent query %q key %q", reqs[0].Query, reqs[0].Key)
	}
	if reqs[1].Query != "" || reqs[1].Key == "" || reqs[1].Key == "k-1" {
		t.Errorf("text variant sent query %q key %q, want none and a fresh key", reqs[1].Query, reqs[1].Key)
	}
}

// A required list of a form with no items would be no pair at all: an
// error before any request, as for a multipart part.
func TestFormRequiredList(t *testing.T) {
	s := newServer(t)
	c, obs := newClient(t, s)
	_, err := c.PostOrder(context.Background(), PostOrderForm{Name: "o1"})
	if err == nil || !strings.Contains(err.Error(), `form property "tags" is required`) {
		t.Fatalf("err %v, want a required-property error", err)
	}
	if len(s.requests()) != 0 || len(obs.events()) != 0 {
		t.Fatal("a form missing a required list was sent")
	}
}

// An optional bytes part (format: byte) is a field of base64 text, as a
// required one is and as the spec's string says; it was once sent as a
// JSON part, the base64 quoted, because the printer took only a pointer or
// a required value for text.
func TestOptionalBytesPartIsText(t *testing.T) {
	s := newServer(t)
	c, _ := newClient(t, s)
	b := UploadMultipart{
		File:   &runtime.File{Name: "a.png", Content: strings.NewReader("PNG")},
		Title:  "holiday",
		Tags:   []string{"sea"},
		Digest: []byte("sum"),
	}
	if _, err := c.Upload(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	var got []part
	for _, p := range parts(t, s.requests()[0]) {
		if p.Name == "digest" {
			got = append(got, p)
		}
	}
	if want := []part{{Name: "digest", Value: "c3Vt"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("digest parts %+v, want %+v", got, want)
	}
}
