package swagger2

// End-to-end tests of the client generated from a Swagger 2.0 spec
// (converted to OpenAPI 3): it must work like any other against a loopback
// server, with the base URL given to NewClient used as is.

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sync"
	"testing"

	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type got struct {
	Method, Path, RawQuery string
	Header                 http.Header
	Body                   string
}

type server struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []got
}

// newServer answers the n-th request (0-based) with codes[n] (the last
// one repeated) and body on success.
func newServer(t *testing.T, body string, codes ...int) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, got{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), string(b)})
		s.mu.Unlock()
		code := codes[min(n, len(codes)-1)]
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		if code < 300 {
			io.WriteString(w, body)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) all() []got {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

func newClient(t *testing.T, base string) *Client {
	t.Helper()
	c, err := NewClient(base, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

func TestListUsers(t *testing.T) {
	s := newServer(t, `[{"id": 1, "name": "ann", "email": "ann@example.com"}, {"name": "bo"}]`, 200)
	c := newClient(t, s.URL)
	resp, err := c.ListUsers(t.Context(), &ListUsersParams{Active: ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || len(resp.JSON200) != 2 {
		t.Fatalf("got %d %+v", resp.StatusCode, resp.JSON200)
	}
	u := resp.JSON200[0]
	if u.ID == nil || *u.ID != 1 || u.Name != "ann" || u.Email == nil || *u.Email != "ann@example.com" {
		t.Errorf("user 0 %+v", u)
	}
	if u := resp.JSON200[1]; u.ID != nil || u.Email != nil || u.Name != "bo" {
		t.Errorf("user 1 %+v", u)
	}
	r := s.all()[0]
	// The spec's host and basePath are not added: the server URL is used as is.
	if r.Method != "GET" || r.Path != "/users" || r.RawQuery != "active=false" {
		t.Errorf("sent %s %s?%s; want GET /users?active=false", r.Method, r.Path, r.RawQuery)
	}
	if a := r.Header.Get("Accept"); a != "application/json" {
		t.Errorf("Accept %q", a)
	}

	if _, err := c.ListUsers(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if q := s.all()[1].RawQuery; q != "" {
		t.Errorf("nil params sent query %q", q)
	}
}

func TestServerURLIsUsedAsIs(t *testing.T) {
	for _, tc := range []struct{ base, path string }{
		{"/api", "/api/users"},
		{"/api/", "/api/users"},
		{"/v2/legacy", "/v2/legacy/users"},
	} {
		s := newServer(t, `[]`, 200)
		c := newClient(t, s.URL+tc.base)
		if _, err := c.ListUsers(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		if p := s.all()[0].Path; p != tc.path {
			t.Errorf("base %q: sent %s; want %s", tc.base, p, tc.path)
		}
	}
	if _, err := NewClient("legacy.example.com/api"); err == nil {
		t.Error("a server URL without a scheme was accepted")
	}
}

var uuidForm = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestCreateUserKeyedPOSTIsRetriedWithOneKey(t *testing.T) {
	s := newServer(t, `{"id": 7, "name": "cy"}`, 503, 502, 201)
	c := newClient(t, s.URL+"/api")
	resp, err := c.CreateUser(t.Context(), nil, User{Name: "cy", Email: ptr("cy@example.com")})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 201 || resp.Attempts != 3 || resp.JSON201 == nil || *resp.JSON201.ID != 7 {
		t.Fatalf("got %d after %d attempts, %+v; want 201 after 3", resp.StatusCode, resp.Attempts, resp.JSON201)
	}
	reqs := s.all()
	if len(reqs) != 3 {
		t.Fatalf("the server saw %d requests; want 3", len(reqs))
	}
	key := reqs[0].Header.Get("Idempotency-Key")
	if !uuidForm.MatchString(key) {
		t.Fatalf("Idempotency-Key %q is not a random UUID", key)
	}
	for i, r := range reqs {
		if r.Method != "POST" || r.Path != "/api/users" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("attempt %d: %s %s (%s)", i+1, r.Method, r.Path, r.Header.Get("Content-Type"))
		}
		if v := r.Header.Values("Idempotency-Key"); !slices.Equal(v, []string{key}) {
			t.Errorf("attempt %d sent Idempotency-Key %q; attempt 1 sent %q", i+1, v, key)
		}
		var u map[string]any
		if err := json.Unmarshal([]byte(r.Body), &u); err != nil || u["name"] != "cy" || u["email"] != "cy@example.com" || len(u) != 2 {
			t.Errorf("attempt %d sent body %q", i+1, r.Body)
		}
	}

	t.Run("the caller's key", func(t *testing.T) {
		s := newServer(t, `{"name": "dee"}`, 500, 201)
		c := newClient(t, s.URL)
		if _, err := c.CreateUser(t.Context(), &CreateUserParams{IdempotencyKey: ptr("user-dee")}, User{Name: "dee"}); err != nil {
			t.Fatal(err)
		}
		for i, r := range s.all() {
			if v := r.Header.Get("Idempotency-Key"); v != "user-dee" {
				t.Errorf("attempt %d sent %q", i+1, v)
			}
		}
	})
	t.Run("retries exhausted: a StatusError", func(t *testing.T) {
		s := newServer(t, ``, 503)
		c := newClient(t, s.URL)
		_, err := c.CreateUser(t.Context(), nil, User{Name: "x"})
		var se *runtime.StatusError
		if !errors.As(err, &se) || se.StatusCode != 503 || se.Attempts != 3 || len(s.all()) != 3 {
			t.Fatalf("got %v after %d server calls; want a StatusError 503 after 3 attempts", err, len(s.all()))
		}
	})
}
