// Package wirecheck is what the golden clients' e2e tests share to check
// the wire against a spec: a loopback server that checks every request it
// receives with kin-openapi's openapi3filter.ValidateRequest (an oracle
// that shares no code with resgen's serialization), and comparisons of
// JSON values and union variants.
package wirecheck

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// Request is one request as the server received it.
type Request struct {
	Method  string
	RawPath string // as sent (EscapedPath)
	Query   url.Values
	Header  http.Header
	Cookies []*http.Cookie
	Body    []byte
	// Invalid is what openapi3filter found wrong with the request, nil
	// when it is valid.
	Invalid error
}

// Server is a loopback server that checks every request. New's answers
// have no body and the next of its statuses (the last one repeated; 200
// when none are given); NewReplying's are 200 with a JSON body.
type Server struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []Request
}

// New starts a server for the spec at path; it closes with the test.
func New(t *testing.T, path string, statuses ...int) *Server {
	t.Helper()
	return start(t, load(t, path), answerStatuses(statuses))
}

// NewDoc is New for a document already loaded (a Swagger 2.0 spec
// converted with openapi2conv, say).
func NewDoc(t *testing.T, doc *openapi3.T, statuses ...int) *Server {
	t.Helper()
	return start(t, doc, answerStatuses(statuses))
}

func answerStatuses(statuses []int) func(w http.ResponseWriter, n int, _ []byte) {
	return func(w http.ResponseWriter, n int, _ []byte) {
		status := http.StatusOK
		if len(statuses) > 0 {
			status = statuses[min(n, len(statuses)-1)]
		}
		w.WriteHeader(status)
	}
}

// NewReplying starts a server for the spec at path that answers every
// request with reply as JSON (the request's own body when reply is empty).
func NewReplying(t *testing.T, path, reply string) *Server {
	t.Helper()
	return start(t, load(t, path), func(w http.ResponseWriter, _ int, body []byte) {
		out := []byte(reply)
		if len(out) == 0 {
			out = body
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	})
}

// NewDocReplying is NewReplying for a document already loaded.
func NewDocReplying(t *testing.T, doc *openapi3.T, reply string) *Server {
	t.Helper()
	return start(t, doc, func(w http.ResponseWriter, _ int, body []byte) {
		out := []byte(reply)
		if len(out) == 0 {
			out = body
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	})
}

func load(t *testing.T, path string) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	doc, err := loader.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// start serves doc; answer writes the reply to the n-th request (from 0),
// whose body it is given.
func start(t *testing.T, doc *openapi3.T, answer func(w http.ResponseWriter, n int, body []byte)) *Server {
	t.Helper()
	doc.Servers = nil // routes match any host
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got := Request{
			Method: r.Method, RawPath: r.URL.EscapedPath(), Query: r.URL.Query(),
			Header: r.Header.Clone(), Cookies: r.Cookies(), Body: body,
			Invalid: validate(router, r, body),
		}
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, got)
		s.mu.Unlock()
		answer(w, n, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func validate(router routers.Router, r *http.Request, body []byte) error {
	route, pathParams, err := router.FindRoute(r)
	if err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
		Request: r, PathParams: pathParams, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true},
	})
}

// Last is the last request the server received; it fails the test when
// there is none or when the oracle found it invalid.
func (s *Server) Last(t *testing.T) Request {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		t.Fatal("the server received no request")
	}
	r := s.reqs[len(s.reqs)-1]
	if r.Invalid != nil {
		t.Errorf("openapi3filter rejects %s %s?%s: %v", r.Method, r.RawPath, r.Query.Encode(), r.Invalid)
	}
	return r
}

// Received is the body of the last request, checked as Last does.
func (s *Server) Received(t *testing.T) []byte {
	t.Helper()
	return s.Last(t).Body
}

// Requests are all the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// SameJSON fails unless got and want are the same JSON value (objects
// compared by members, not by order or spacing).
func SameJSON(t *testing.T, what string, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: invalid JSON %q: %v", what, got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: the test's JSON %q: %v", what, want, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got %s\nwant %s", what, got, want)
	}
}

// SetFields names the fields of a union value (a struct of nil-able
// fields) that are set.
func SetFields(u any) []string {
	v := reflect.ValueOf(u)
	var out []string
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Kind() != reflect.Struct && !f.IsNil() {
			out = append(out, v.Type().Field(i).Name)
		}
	}
	return out
}

// DecodesAs checks that the union value got, decoded from sent, has
// exactly the field want set, and that encoding it again gives the JSON
// sent: no member lost.
func DecodesAs(t *testing.T, sent string, got any, want string) {
	t.Helper()
	if f := SetFields(got); len(f) != 1 || f[0] != want {
		t.Errorf("%s decoded into %v, want %s", sent, f, want)
	}
	again, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("%s: encode the decoded value: %v", sent, err)
	}
	SameJSON(t, sent+" decoded and encoded again", again, sent)
}

// Cases are bodies a server answers with, each with the union variant
// (field name) it must decode into.
type Cases []struct{ Sent, Variant string }

// RepliesDecode makes call against a Server answering each case's body,
// checks the request with openapi3filter, and the union value call
// returns with DecodesAs.
func RepliesDecode(t *testing.T, specFile string, cases Cases, call func(*Server) (any, error)) {
	t.Helper()
	for _, c := range cases {
		s := NewReplying(t, specFile, c.Sent)
		got, err := call(s)
		if err != nil {
			t.Fatal(err)
		}
		s.Received(t)
		DecodesAs(t, c.Sent, got, c.Variant)
	}
}
