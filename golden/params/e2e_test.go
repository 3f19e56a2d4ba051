package params

// End-to-end tests of the generated Params client against a real HTTP
// server on loopback: every parameter kind and every request body encoding
// of testdata/specs/params.yaml must reach the server exactly as the spec
// says, and every declared (and undeclared) response must come back as the
// generated types promise.

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// got is one request as the server received it.
type got struct {
	Method   string
	Path     string // decoded
	RawPath  string // as sent (EscapedPath)
	RawQuery string
	Query    url.Values
	Header   http.Header
	Cookies  []*http.Cookie
	Body     []byte
	// PartValue is the {part} path value as the server's router decodes it.
	PartValue, ItemValue string
}

// server records every request and answers with answer(n, r) where n is
// the 0-based index of the request.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []got
}

type answer struct {
	status int
	ctype  string
	body   string
	header map[string]string
}

func newServer(t *testing.T, fn func(n int, r *http.Request) answer) *server {
	t.Helper()
	s := &server{}
	mux := http.NewServeMux()
	handle := func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		g := got{
			Method: r.Method, Path: r.URL.Path, RawPath: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery,
			Query: r.URL.Query(), Header: r.Header.Clone(), Cookies: r.Cookies(), Body: b,
			PartValue: r.PathValue("part"), ItemValue: r.PathValue("item"),
		}
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, g)
		s.mu.Unlock()
		a := fn(n, r)
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		if a.ctype != "" {
			w.Header().Set("Content-Type", a.ctype)
		}
		if a.status == 0 {
			a.status = 200
		}
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}
	mux.HandleFunc("/items/{item}/parts/{part}", handle)
	mux.HandleFunc("/", handle)
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func (s *server) hits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

func (s *server) req(t *testing.T, i int) got {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.reqs) {
		t.Fatalf("the server saw %d requests; want at least %d", len(s.reqs), i+1)
	}
	return s.reqs[i]
}

func ok(body string) func(int, *http.Request) answer {
	return func(int, *http.Request) answer { return answer{status: 200, ctype: "application/json", body: body} }
}

// script answers with the next status (repeating the last one).
func script(codes ...int) func(int, *http.Request) answer {
	return func(n int, _ *http.Request) answer {
		return answer{status: codes[min(n, len(codes)-1)]}
	}
}

func newClient(t *testing.T, s *server) *Client {
	t.Helper()
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

func TestSearchQueryParamsReachTheServerAsTheSpecSays(t *testing.T) {
	s := newServer(t, ok(`["a", "b"]`))
	c := newClient(t, s)
	since := time.Date(2024, 2, 3, 4, 5, 6, 789_000_000, time.FixedZone("", 2*3600))
	sort := GetSearchSortDesc
	resp, err := c.GetSearch(t.Context(), GetSearchParams{
		Q:      "ü b&c=d+e/?#",
		Page:   ptr[int32](7),
		Since:  &since,
		IDs:    []int64{1, 2, -3},
		Fields: []string{"name", "size"},
		Sort:   &sort,
		Exact:  ptr(true),
		Ratio:  ptr(2.5),
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !reflect.DeepEqual(resp.JSON200, []string{"a", "b"}) {
		t.Fatalf("got %d %q", resp.StatusCode, resp.JSON200)
	}
	r := s.req(t, 0)
	if r.Method != "GET" || r.Path != "/search" {
		t.Errorf("got %s %s; want GET /search", r.Method, r.Path)
	}
	want := url.Values{
		"q":      {"ü b&c=d+e/?#"},
		"page":   {"7"},
		"since":  {"2024-02-03T04:05:06.789+02:00"}, // RFC 3339, the + escaped so it is not read as a space
		"ids":    {"1", "2", "-3"},                  // explode: true: one pair per item, in order
		"fields": {"name,size"},                     // explode: false: one pair, items joined by commas
		"sort":   {"desc"},
		"exact":  {"true"},
		"ratio":  {"2.5"},
	}
	if !reflect.DeepEqual(r.Query, want) {
		t.Errorf("query %q decodes to\n%v\nwant\n%v", r.RawQuery, r.Query, want)
	}
	if !strings.Contains(r.RawQuery, "ids=1&ids=2&ids=-3") {
		t.Errorf("raw query %q: the exploded ids are not consecutive pairs", r.RawQuery)
	}
	if a := r.Header.Get("Accept"); a != "application/json" {
		t.Errorf("Accept %q; want application/json", a)
	}

	t.Run("non-exploded array keeps its commas literal", func(t *testing.T) {
		if !strings.Contains(r.RawQuery, "fields=name,size") {
			t.Errorf("raw query %q; want fields=name,size", r.RawQuery)
		}
		// A comma inside an item must stay distinguishable from the separator.
		s := newServer(t, ok(`[]`))
		c := newClient(t, s)
		if _, err := c.GetSearch(t.Context(), GetSearchParams{Q: "x", Fields: []string{"a,b", "c"}}); err != nil {
			t.Fatal(err)
		}
		if q := s.req(t, 0).RawQuery; !strings.Contains(q, "fields=a%2Cb,c") {
			t.Errorf("raw query %q; want fields=a%%2Cb,c", q)
		}
	})
}

func TestSearchOptionalParamsAreAbsentWhenNil(t *testing.T) {
	s := newServer(t, ok(`[]`))
	c := newClient(t, s)
	resp, err := c.GetSearch(t.Context(), GetSearchParams{Q: "only"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.JSON200 == nil || len(resp.JSON200) != 0 {
		t.Errorf("JSON200 %#v; want an empty, non-nil slice", resp.JSON200)
	}
	r := s.req(t, 0)
	if r.RawQuery != "q=only" {
		t.Errorf("raw query %q; want q=only", r.RawQuery)
	}
	for _, h := range []string{"X-Trace-Id", "X-Flags", "Cookie"} {
		if v, ok := r.Header[h]; ok {
			t.Errorf("header %s: %q sent for a nil parameter", h, v)
		}
	}

	t.Run("a required query parameter is sent even when empty", func(t *testing.T) {
		s := newServer(t, ok(`[]`))
		c := newClient(t, s)
		if _, err := c.GetSearch(t.Context(), GetSearchParams{}); err != nil {
			t.Fatal(err)
		}
		if q := s.req(t, 0).RawQuery; q != "q=" {
			t.Errorf("raw query %q; want q=", q)
		}
	})
	t.Run("false and zero are sent, not taken for absent", func(t *testing.T) {
		s := newServer(t, ok(`[]`))
		c := newClient(t, s)
		if _, err := c.GetSearch(t.Context(), GetSearchParams{Q: "z", Page: ptr[int32](0), Exact: ptr(false), Ratio: ptr(0.0)}); err != nil {
			t.Fatal(err)
		}
		q := s.req(t, 0).Query
		if q.Get("page") != "0" || q.Get("exact") != "false" || q.Get("ratio") != "0" {
			t.Errorf("query %v; want page=0 exact=false ratio=0", q)
		}
	})
}

// TestParamsWithARequiredOneAreAValue: GetSearch's params hold a required
// parameter (q), so the method takes them by value and a call without them
// does not compile (a pointer let nil through, to fail at run time);
// ObjectParams' are all optional, so they stay a pointer, nil for none.
func TestParamsWithARequiredOneAreAValue(t *testing.T) {
	for name, want := range map[string]reflect.Kind{"GetSearch": reflect.Struct, "ObjectParams": reflect.Pointer} {
		m, ok := reflect.TypeFor[*Client]().MethodByName(name)
		if !ok {
			t.Fatalf("no method %s", name)
		}
		// In(0) is the receiver, In(1) the context.
		if got := m.Type.In(2); got.Kind() != want {
			t.Errorf("%s takes its params as %s, want a %s", name, got, want)
		}
	}
}

func TestSearchHeaderAndCookieParams(t *testing.T) {
	s := newServer(t, ok(`[]`))
	c := newClient(t, s)
	_, err := c.GetSearch(t.Context(), GetSearchParams{
		Q:        "h",
		XTraceID: ptr("trace-1"),
		XFlags:   []string{"fast", "cheap"},
		Session:  ptr("s3cr3t-Tok"),
	})
	if err != nil {
		t.Fatal(err)
	}
	r := s.req(t, 0)
	if v := r.Header.Values("X-Trace-Id"); !reflect.DeepEqual(v, []string{"trace-1"}) {
		t.Errorf("X-Trace-Id %q", v)
	}
	// Style simple: one header, items joined by commas.
	if v := r.Header.Values("X-Flags"); !reflect.DeepEqual(v, []string{"fast,cheap"}) {
		t.Errorf("X-Flags %q; want one header fast,cheap", v)
	}
	if len(r.Cookies) != 1 || r.Cookies[0].Name != "session" || r.Cookies[0].Value != "s3cr3t-Tok" {
		t.Errorf("cookies %v; want session=s3cr3t-Tok", r.Cookies)
	}
	if r.RawQuery != "q=h" {
		t.Errorf("raw query %q: header or cookie parameters leaked into the query", r.RawQuery)
	}
}

func TestCookieParamKeepsEveryByte(t *testing.T) {
	s := newServer(t, ok(`[]`))
	c := newClient(t, s)
	v := `a;b c,d"e\f=ü`
	if _, err := c.GetSearch(t.Context(), GetSearchParams{Q: "c", Session: &v}); err != nil {
		t.Fatal(err)
	}
	r := s.req(t, 0)
	var raw string
	for _, ck := range r.Cookies {
		if ck.Name == "session" {
			raw = ck.Value
		}
	}
	if got, err := url.QueryUnescape(raw); err != nil || got != v {
		t.Errorf("Cookie header %q: session decodes to %q; want %q", r.Header.Get("Cookie"), got, v)
	}
}

func TestPathParamsAreEscaped(t *testing.T) {
	for _, part := range []string{
		"plain",
		"a/b",          // would add a path segment
		"what?x=1",     // would start a query
		"sp ace",       // space
		"frag#ment",    // would start a fragment
		"100%",         // a lone percent
		"日本/größe ü",   // unicode
		"semi;colon,c", // sub-delimiters
	} {
		t.Run(part, func(t *testing.T) {
			s := newServer(t, func(int, *http.Request) answer {
				return answer{status: 200, ctype: "application/vnd.api+json", body: `{"name": "bolt"}`}
			})
			c := newClient(t, s)
			resp, err := c.GetItemsItemIDPartsPart(t.Context(), -42, part)
			if err != nil {
				t.Fatal(err)
			}
			r := s.req(t, 0)
			if r.ItemValue != "-42" || r.PartValue != part {
				t.Errorf("server routed item %q, part %q (raw path %q); want -42, %q", r.ItemValue, r.PartValue, r.RawPath, part)
			}
			if want := "/items/-42/parts/" + part; r.Path != want {
				t.Errorf("decoded path %q; want %q", r.Path, want)
			}
			if r.RawQuery != "" {
				t.Errorf("raw query %q: the path value leaked into the query", r.RawQuery)
			}
			if resp.JSON200 == nil || resp.JSON200.Name == nil || *resp.JSON200.Name != "bolt" {
				t.Errorf("JSON200 %+v", resp.JSON200)
			}
		})
	}
}

func TestDeleteWithOptionalBoolQuery(t *testing.T) {
	s := newServer(t, script(204))
	c := newClient(t, s)
	resp, err := c.DeleteItemsItemIDPartsPart(t.Context(), 9, "p q", &DeleteItemsItemIDPartsPartParams{Force: ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 204 || resp.Attempts != 1 {
		t.Errorf("got %d after %d attempts", resp.StatusCode, resp.Attempts)
	}
	r := s.req(t, 0)
	if r.Method != "DELETE" || r.PartValue != "p q" || r.RawQuery != "force=false" {
		t.Errorf("got %s %s ? %s", r.Method, r.RawPath, r.RawQuery)
	}
	if _, err := c.DeleteItemsItemIDPartsPart(t.Context(), 9, "p", nil); err != nil {
		t.Fatal(err)
	}
	if q := s.req(t, 1).RawQuery; q != "" {
		t.Errorf("nil params sent query %q", q)
	}
}

func TestPathWithQueryStringKeepsItAndAppendsParams(t *testing.T) {
	s := newServer(t, script(200))
	c := newClient(t, s)
	if _, err := c.LegacyReport(t.Context(), &LegacyReportParams{Day: ptr("2024-01-31")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.LegacyReport(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	r := s.req(t, 0)
	if r.Path != "/v1/legacy.json" {
		t.Errorf("path %q; want /v1/legacy.json", r.Path)
	}
	if want := (url.Values{"format": {"full"}, "day": {"2024-01-31"}}); !reflect.DeepEqual(r.Query, want) {
		t.Errorf("query %q decodes to %v; want %v", r.RawQuery, r.Query, want)
	}
	if r := s.req(t, 1); r.Path != "/v1/legacy.json" || r.RawQuery != "format=full" {
		t.Errorf("without day: got %s ? %s; want /v1/legacy.json ? format=full", r.Path, r.RawQuery)
	}
}

func TestFormBodyIsEncodedAndResentOnRetry(t *testing.T) {
	// postForm is a POST marked idempotent: true, so it is retried.
	s := newServer(t, script(503, 200))
	c := newClient(t, s)
	resp, err := c.PostForm(t.Context(), PostFormForm{
		Name:     ptr("a b&c=ü"),
		Tag:      []string{"x", "y"},
		Metadata: map[string]string{"order": "42"},
		Items:    []PostFormFormItemsItem{{Price: ptr("p_1"), Quantity: ptr[int64](2)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Attempts != 2 || s.hits() != 2 {
		t.Fatalf("got %d after %d attempts, %d server calls; want 200 after 2", resp.StatusCode, resp.Attempts, s.hits())
	}
	for i := range 2 {
		r := s.req(t, i)
		if r.Method != "POST" || r.Path != "/forms" {
			t.Errorf("attempt %d: %s %s", i+1, r.Method, r.Path)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/x-www-form-urlencoded" {
			t.Errorf("attempt %d: Content-Type %q", i+1, ct)
		}
		form, err := url.ParseQuery(string(r.Body))
		if err != nil {
			t.Fatal(err)
		}
		want := url.Values{"name": {"a b&c=ü"}, "tag": {"x", "y"}, "metadata[order]": {"42"}, "items[0][price]": {"p_1"}, "items[0][quantity]": {"2"}}
		if !reflect.DeepEqual(form, want) {
			t.Errorf("attempt %d: body %q decodes to %v; want %v", i+1, r.Body, form, want)
		}
	}
}

func TestTextBody(t *testing.T) {
	s := newServer(t, func(int, *http.Request) answer {
		return answer{status: 200, ctype: "text/plain", body: "stored"}
	})
	c := newClient(t, s)
	note := "line one\nünïcode ☃\n"
	resp, err := c.PutNote(t.Context(), &note)
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "stored" {
		t.Errorf("raw response body %q", resp.Body)
	}
	r := s.req(t, 0)
	if r.Method != "PUT" || string(r.Body) != note {
		t.Errorf("got %s with body %q; want PUT %q", r.Method, r.Body, note)
	}
	if ct := r.Header.Get("Content-Type"); ct != "text/plain" {
		t.Errorf("Content-Type %q; want text/plain", ct)
	}

	t.Run("nil optional body sends no body", func(t *testing.T) {
		if _, err := c.PutNote(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		r := s.req(t, 1)
		if len(r.Body) != 0 {
			t.Errorf("body %q", r.Body)
		}
		if ct, ok := r.Header["Content-Type"]; ok {
			t.Errorf("Content-Type %q sent without a body", ct)
		}
	})
	t.Run("empty body is a body", func(t *testing.T) {
		empty := ""
		if _, err := c.PutNote(t.Context(), &empty); err != nil {
			t.Fatal(err)
		}
		if ct := s.req(t, 2).Header.Get("Content-Type"); ct != "text/plain" {
			t.Errorf("Content-Type %q; want text/plain for an empty note", ct)
		}
	})
}

func TestOctetStreamBodyIsSentByteForByteOnEveryAttempt(t *testing.T) {
	s := newServer(t, script(500, 201))
	c := newClient(t, s)
	blob := []byte{0, 1, 2, 0xfe, 0xff, '\n', '\r', 0}
	resp, err := c.PutBlob(t.Context(), "dir/file name.bin", bytes.NewReader(blob))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 201 || resp.Attempts != 2 {
		t.Fatalf("got %d after %d attempts; want 201 after 2 (PUT is retried)", resp.StatusCode, resp.Attempts)
	}
	for i := range 2 {
		r := s.req(t, i)
		if r.Path != "/blobs/dir/file name.bin" || r.RawPath != "/blobs/dir%2Ffile%20name.bin" {
			t.Errorf("attempt %d: path %q (raw %q)", i+1, r.Path, r.RawPath)
		}
		if !bytes.Equal(r.Body, blob) {
			t.Errorf("attempt %d: body %x; want %x", i+1, r.Body, blob)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/octet-stream" {
			t.Errorf("attempt %d: Content-Type %q", i+1, ct)
		}
	}
}

// parts reads a multipart request body into name → [filename, content
// type, content] per part, in order.
func parts(t *testing.T, r got) [][4]string {
	t.Helper()
	mt, p, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || p["boundary"] == "" {
		t.Fatalf("Content-Type %q", r.Header.Get("Content-Type"))
	}
	mr := multipart.NewReader(bytes.NewReader(r.Body), p["boundary"])
	var out [][4]string
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(part)
		out = append(out, [4]string{part.FormName(), part.FileName(), part.Header.Get("Content-Type"), string(b)})
	}
}

func TestMultipartBodyWithFilesAndFields(t *testing.T) {
	s := newServer(t, script(503, 201))
	c := newClient(t, s)
	title, pages := "report", int64(3)
	body := UploadMultipart{
		File:        &runtime.File{Name: `a "b".txt`, Content: strings.NewReader("file contents\x00")},
		Title:       &title,
		Pages:       &pages,
		Tags:        []string{"x", "y"},
		Attachments: []*runtime.File{{Name: "1.png", ContentType: "image/png", Content: strings.NewReader("PNG")}},
		Meta:        &UploadMultipartMeta{Owner: ptr("ann")},
	}
	resp, err := c.Upload(t.Context(), &UploadParams{}, body)
	if err != nil {
		t.Fatal(err)
	}
	// Keyed by the Idempotency-Key header parameter: retried after the
	// 503, the same body and key on both attempts.
	if resp.StatusCode != 201 || resp.Attempts != 2 || s.hits() != 2 {
		t.Fatalf("status %d after %d attempts, %d requests", resp.StatusCode, resp.Attempts, s.hits())
	}
	first, second := s.req(t, 0), s.req(t, 1)
	if !bytes.Equal(first.Body, second.Body) || first.Header.Get("Idempotency-Key") != second.Header.Get("Idempotency-Key") {
		t.Fatal("the retry did not send the same multipart body and key")
	}
	want := [][4]string{
		{"file", `a "b".txt`, "application/octet-stream", "file contents\x00"},
		{"title", "", "", "report"},
		{"pages", "", "", "3"},
		{"tags", "", "", "x"},
		{"tags", "", "", "y"},
		{"attachments", "1.png", "image/png", "PNG"},
		{"meta", "", "application/json", `{"owner":"ann"}`},
	}
	got := parts(t, second)
	var gotSorted, wantSorted []string
	for _, p := range got {
		gotSorted = append(gotSorted, strings.Join(p[:], "|"))
	}
	for _, p := range want {
		wantSorted = append(wantSorted, strings.Join(p[:], "|"))
	}
	sort.Strings(gotSorted)
	sort.Strings(wantSorted)
	if strings.Join(gotSorted, "\n") != strings.Join(wantSorted, "\n") {
		t.Fatalf("parts:\n%s\nwant:\n%s", strings.Join(gotSorted, "\n"), strings.Join(wantSorted, "\n"))
	}

	t.Run("optional parts left nil are not sent", func(t *testing.T) {
		s := newServer(t, script(201))
		c := newClient(t, s)
		if _, err := c.Upload(t.Context(), nil, UploadMultipart{File: &runtime.File{Name: "f", Content: strings.NewReader("z")}}); err != nil {
			t.Fatal(err)
		}
		if got := parts(t, s.req(t, 0)); len(got) != 1 || got[0][0] != "file" || got[0][3] != "z" {
			t.Fatalf("parts %q", got)
		}
	})
}

func TestDownloadStreamsTheBody(t *testing.T) {
	blob := bytes.Repeat([]byte{0, 1, 2, 0xff}, 1<<14)
	s := newServer(t, func(n int, r *http.Request) answer {
		if r.URL.Path == "/files/missing" {
			return answer{status: 404, ctype: "application/json", body: `{"error":"no such file"}`}
		}
		return answer{status: 200, ctype: "application/octet-stream", body: string(blob)}
	})
	c := newClient(t, s)
	resp, err := c.Download(t.Context(), "big.bin")
	if err != nil {
		t.Fatal(err)
	}
	if resp.Stream == nil || resp.Body != nil {
		t.Fatalf("want the body as an unread Stream, got Stream %v, Body %d bytes", resp.Stream != nil, len(resp.Body))
	}
	got, err := io.ReadAll(resp.Stream)
	resp.Stream.Close()
	if err != nil || !bytes.Equal(got, blob) {
		t.Fatalf("streamed %d bytes (err %v); want %d", len(got), err, len(blob))
	}
	if a := s.req(t, 0).Header.Get("Accept"); a != "application/octet-stream, application/json" {
		t.Errorf("Accept %q", a)
	}
	miss, err := c.Download(t.Context(), "missing")
	if !errors.Is(err, runtime.ErrNotRetryable) || miss.Stream != nil || miss.JSON404 == nil || *miss.JSON404.Error != "no such file" {
		t.Fatalf("404: %+v, %v", miss, err)
	}
}

func TestPathStyles(t *testing.T) {
	s := newServer(t, script(200))
	c := newClient(t, s)
	if _, err := c.PathStyles(t.Context(), []string{"a", "b c"}, []int64{1, 2}, []string{"x,y", "z"}); err != nil {
		t.Fatal(err)
	}
	// label: .a,b%20c   matrix, exploded: ;matrix=1;matrix=2   simple: x%2Cy,z
	if got := s.req(t, 0).RawPath; got != "/styles.a,b%20c;matrix=1;matrix=2/x%2Cy,z" {
		t.Fatalf("path %q", got)
	}
}

func TestObjectAndDelimitedQueryParameters(t *testing.T) {
	s := newServer(t, func(int, *http.Request) answer { return answer{status: 200, ctype: "text/plain", body: "plain text"} })
	c := newClient(t, s)
	resp, err := c.ObjectParams(t.Context(), &ObjectParamsParams{
		Filter: &Filter{Status: ptr("open"), MinSize: ptr[int64](2)},
		Page:   &ObjectParamsPage{Size: ptr[int64](50), After: ptr("k&1")},
		Point:  &ObjectParamsPoint{X: ptr[int64](1), Y: ptr[int64](2)},
		XShape: &ObjectParamsXShape{W: ptr[int64](3), H: ptr[int64](4)},
		Spaced: []string{"a", "b"},
		Piped:  []string{"c", "d|e"},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := s.req(t, 0)
	want := "filter%5BminSize%5D=2&filter%5Bstatus%5D=open&after=k%261&size=50&point=x,1,y,2&spaced=a%20b&piped=c|d%7Ce"
	if r.RawQuery != want {
		t.Errorf("query\n%s\nwant\n%s", r.RawQuery, want)
	}
	if q := r.Query; q.Get("filter[status]") != "open" || q.Get("after") != "k&1" || q.Get("piped") != "c|d|e" {
		t.Errorf("decoded query %v", q)
	}
	if h := r.Header.Get("X-Shape"); h != "h=4,w=3" {
		t.Errorf("X-Shape %q", h)
	}
	if resp.Text200 == nil || *resp.Text200 != "plain text" {
		t.Errorf("Text200 %v", resp.Text200)
	}
}

func TestMergePatchBody(t *testing.T) {
	s := newServer(t, script(200))
	c := newClient(t, s)
	if _, err := c.PatchBoth(t.Context(), &PatchBothBody{A: ptr("x\"y")}); err != nil {
		t.Fatal(err)
	}
	r := s.req(t, 0)
	if r.Method != "PATCH" || string(r.Body) != `{"a":"x\"y"}` {
		t.Errorf("got %s %q", r.Method, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/merge-patch+json" {
		t.Errorf("Content-Type %q; want application/merge-patch+json", ct)
	}
	if _, err := c.PatchBoth(t.Context(), &PatchBothBody{}); err != nil {
		t.Fatal(err)
	}
	if b := s.req(t, 1).Body; string(b) != `{}` {
		t.Errorf("unset optional field: body %q; want {}", b)
	}
	if _, err := c.PatchBoth(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if r := s.req(t, 2); len(r.Body) != 0 || r.Header.Get("Content-Type") != "" {
		t.Errorf("nil body: sent %q with Content-Type %q", r.Body, r.Header.Get("Content-Type"))
	}

	t.Run("PATCH without key is sent once on 503", func(t *testing.T) {
		s := newServer(t, script(503))
		c := newClient(t, s)
		_, err := c.PatchBoth(t.Context(), &PatchBothBody{A: ptr("v")})
		var se *runtime.StatusError
		if !errors.As(err, &se) || se.Attempts != 1 || s.hits() != 1 {
			t.Fatalf("got %v, %d server calls; want a StatusError after 1 attempt", err, s.hits())
		}
	})
}

func TestVendorJSONAnd4XXRangeResponsesDecode(t *testing.T) {
	s := newServer(t, func(n int, r *http.Request) answer {
		switch r.PathValue("part") {
		case "found":
			return answer{status: 200, ctype: "application/vnd.api+json", body: `{"name": "bolt"}`}
		case "teapot":
			return answer{status: 418, ctype: "application/json", body: `{"error": "short and stout"}`}
		}
		return answer{status: 404, ctype: "application/json", body: `{"error": "no such part"}`}
	})
	c := newClient(t, s)

	resp, err := c.GetItemsItemIDPartsPart(t.Context(), 1, "found")
	if err != nil {
		t.Fatal(err)
	}
	if resp.JSON200 == nil || resp.JSON200.Name == nil || *resp.JSON200.Name != "bolt" || resp.JSON4XX != nil {
		t.Fatalf("200: JSON200 %+v, JSON4XX %+v", resp.JSON200, resp.JSON4XX)
	}
	if a := s.req(t, 0).Header.Get("Accept"); a != "application/vnd.api+json, application/json" {
		t.Errorf("Accept %q; want both declared types", a)
	}

	for i, tc := range []struct {
		part   string
		status int
		msg    string
	}{{"missing", 404, "no such part"}, {"teapot", 418, "short and stout"}} {
		resp, err := c.GetItemsItemIDPartsPart(t.Context(), 1, tc.part)
		var se *runtime.StatusError
		if !errors.As(err, &se) || se.StatusCode != tc.status || se.Decoded != resp.JSON4XX {
			t.Fatalf("%d: %v; a declared 4XX is a StatusError with its decoded body", tc.status, err)
		}
		if resp.StatusCode != tc.status || resp.JSON4XX == nil || resp.JSON4XX.Error == nil || *resp.JSON4XX.Error != tc.msg || resp.JSON200 != nil {
			t.Errorf("%d: got %d, JSON4XX %+v, JSON200 %+v", tc.status, resp.StatusCode, resp.JSON4XX, resp.JSON200)
		}
		if resp.Attempts != 1 || s.hits() != 2+i {
			t.Errorf("%d: %d attempts; a 4xx other than 408 and 429 is not retried", tc.status, resp.Attempts)
		}
	}
	// 4xx answers are successes for the breaker.
	if m := c.Breakers()["default"].Metrics(); m.Calls != 3 || m.Failed != 0 {
		t.Errorf("breaker recorded %d calls, %d failed; want 3 and 0", m.Calls, m.Failed)
	}
}

func TestUndeclaredErrorStatusIsAStatusError(t *testing.T) {
	t.Run("undeclared 4xx, not retried", func(t *testing.T) {
		s := newServer(t, func(int, *http.Request) answer {
			return answer{status: 409, ctype: "application/json", body: `{"why": "locked"}`, header: map[string]string{"X-Why": "lock"}}
		})
		c := newClient(t, s)
		resp, err := c.DeleteItemsItemIDPartsPart(t.Context(), 5, "p", nil)
		var se *runtime.StatusError
		if !errors.As(err, &se) || resp == nil || resp.StatusCode != 409 || string(resp.Body) != `{"why": "locked"}` {
			t.Fatalf("got %v, %v; want a *runtime.StatusError and the response", resp, err)
		}
		if se.StatusCode != 409 || string(se.Body) != `{"why": "locked"}` || se.Attempts != 1 || se.Method != "DELETE" {
			t.Errorf("got %+v", se)
		}
		if se.Header.Get("X-Why") != "lock" || !strings.Contains(se.URL, "/items/5/parts/p") {
			t.Errorf("header %v, URL %q", se.Header, se.URL)
		}
		if s.hits() != 1 {
			t.Errorf("the server saw %d requests; want 1", s.hits())
		}
	})
	t.Run("undeclared 5xx after every retry", func(t *testing.T) {
		s := newServer(t, func(int, *http.Request) answer {
			return answer{status: 500, body: "boom"}
		})
		c := newClient(t, s)
		_, err := c.GetItemsItemIDPartsPart(t.Context(), 5, "p")
		var se *runtime.StatusError
		if !errors.As(err, &se) {
			t.Fatalf("got %v; want a *runtime.StatusError", err)
		}
		if se.StatusCode != 500 || string(se.Body) != "boom" || se.Attempts != 3 || s.hits() != 3 {
			t.Errorf("got status %d body %q after %d attempts (%d server calls); want 500 boom after 3", se.StatusCode, se.Body, se.Attempts, s.hits())
		}
		if !strings.Contains(err.Error(), "500") {
			t.Errorf("error %q does not say the status", err)
		}
		if m := c.Breakers()["default"].Metrics(); m.Calls != 1 || m.Failed != 1 {
			t.Errorf("breaker recorded %d calls, %d failed; want 1 and 1", m.Calls, m.Failed)
		}
	})
	t.Run("3xx is not an error", func(t *testing.T) {
		s := newServer(t, script(304))
		c := newClient(t, s)
		resp, err := c.LegacyReport(t.Context(), nil)
		if err != nil || resp.StatusCode != 304 {
			t.Fatalf("got %v, %v", resp, err)
		}
	})
}
