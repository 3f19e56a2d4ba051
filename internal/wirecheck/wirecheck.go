// Package wirecheck is a test server for the e2e tests of generated
// clients that checks every request it receives against the spec with
// kin-openapi's openapi3filter.ValidateRequest: an oracle that shares no
// code with resgen's serialization.
package wirecheck

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
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

// Server is a loopback server that checks every request and answers it
// with no body and the next of its statuses (the last one repeated; 200
// when none are given).
type Server struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []Request
}

// New starts a server for the spec at path; it closes with the test.
func New(t *testing.T, path string, statuses ...int) *Server {
	t.Helper()
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	doc, err := loader.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return NewDoc(t, doc, statuses...)
}

// NewDoc is New for a document already loaded (a Swagger 2.0 spec
// converted with openapi2conv, say).
func NewDoc(t *testing.T, doc *openapi3.T, statuses ...int) *Server {
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
		status := http.StatusOK
		if len(statuses) > 0 {
			status = statuses[min(n, len(statuses)-1)]
		}
		w.WriteHeader(status)
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

// Requests are all the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}
