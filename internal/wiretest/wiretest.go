// Package wiretest is what the golden clients' e2e tests share to check
// the wire against a spec: a loopback server that judges every request
// with kin-openapi's openapi3filter (code resgen does not share), and
// comparisons of JSON values and union variants.
package wiretest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// Server answers every request with its reply (the request body itself
// when the reply is empty) and keeps each body it received with
// openapi3filter's verdict on the request.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	reply    string
	bodies   [][]byte
	verdicts []error
}

// NewServer starts a Server for the spec at specFile; it stops with the test.
func NewServer(t *testing.T, specFile, reply string) *Server {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromFile(specFile)
	if err != nil {
		t.Fatal(err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{reply: reply}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		route, params, verdict := router.FindRoute(r)
		if verdict == nil {
			verdict = openapi3filter.ValidateRequest(r.Context(), &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route})
		}
		s.mu.Lock()
		s.bodies = append(s.bodies, b)
		s.verdicts = append(s.verdicts, verdict)
		out := []byte(s.reply)
		s.mu.Unlock()
		if len(out) == 0 {
			out = b
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	}))
	t.Cleanup(s.Close)
	return s
}

// Received is the body of the last request; it fails the test when
// openapi3filter found the request invalid.
func (s *Server) Received(t *testing.T) []byte {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bodies) == 0 {
		t.Fatal("the server received no request")
	}
	if err := s.verdicts[len(s.verdicts)-1]; err != nil {
		t.Errorf("openapi3filter: the request is not what the spec says: %v", err)
	}
	return s.bodies[len(s.bodies)-1]
}

// Requests is how many requests the server received.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
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
		s := NewServer(t, specFile, c.Sent)
		got, err := call(s)
		if err != nil {
			t.Fatal(err)
		}
		s.Received(t)
		DecodesAs(t, c.Sent, got, c.Variant)
	}
}
