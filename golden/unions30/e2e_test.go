package unions30

// End-to-end tests of the OpenAPI 3.0 union forms (testdata/specs/unions30.yaml)
// against loopback servers: `nullable` on a oneOf, on one of its variants
// and on the allOf/anyOf wrappers 3.0 specs use to make a $ref nullable,
// and a discriminated union as the `default` (error) response.

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// server answers every request with status, ctype and reply, or with the
// request body itself when reply is empty (an echo), and keeps what it
// received.
type server struct {
	*httptest.Server
	mu     sync.Mutex
	reqs   []string // "METHOD /path Content-Type"
	bodies [][]byte
}

func newServer(t *testing.T, status int, ctype, reply string) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
		s.bodies = append(s.bodies, b)
		s.mu.Unlock()
		out := []byte(reply)
		if reply == "" {
			out = b
		}
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		w.Write(out)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) received(t *testing.T) []byte {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bodies) == 0 {
		t.Fatal("the server received no request")
	}
	return s.bodies[len(s.bodies)-1]
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

// sameJSON fails unless got and want are the same JSON value.
func sameJSON(t *testing.T, what string, got []byte, want string) {
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

// putBoard PUTs b to a server that answers reply ("" echoes b back).
func putBoard(t *testing.T, reply string, b Board) (*Board, []byte) {
	t.Helper()
	s := newServer(t, 200, "application/json", reply)
	resp, err := newClient(t, s).PutBoard(t.Context(), "b-1", b)
	if err != nil {
		t.Fatal(err)
	}
	if resp.JSON200 == nil {
		t.Fatalf("status %d, no JSON200; body %s", resp.StatusCode, resp.Body)
	}
	s.mu.Lock()
	if got := s.reqs[0]; got != "PUT /boards/b-1 application/json" {
		t.Errorf("request %q", got)
	}
	s.mu.Unlock()
	return resp.JSON200, s.received(t)
}

func boardJSON(b *Board) string {
	out, _ := json.Marshal(b)
	return string(out)
}

func TestNullableUnionsDecodeNullAsNil(t *testing.T) {
	const body = `{
		"id": "b-1",
		"current": null,
		"pinned": null,
		"owner": null,
		"history": [null, {"kind": "circle", "radius": 1}, {"kind": "square", "side": 2}]
	}`
	got, _ := putBoard(t, body, Board{ID: "b-1"})
	want := Board{
		ID: "b-1",
		// Nullable required unions and refs: nil.
		Current: nil, Pinned: nil, Owner: nil,
		// A nullable item of an array: the empty union.
		History: []Shape{{}, {Circle: &Circle{Kind: "circle", Radius: 1}}, {Square: &Square{Kind: "square", Side: 2}}},
	}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("decoded %s; want %s", boardJSON(got), boardJSON(&want))
	}

	// Sent back: the required nullable members go as null, not left out.
	_, sent := putBoard(t, "", *got)
	sameJSON(t, "re-sent", sent, body)
}

func TestNullableUnionsSentAsNullFromGo(t *testing.T) {
	_, sent := putBoard(t, "", Board{ID: "empty", Current: &NullableShape{}})
	sameJSON(t, "sent", sent, `{"id":"empty","current":null,"pinned":null,"owner":null}`)
}

func TestNullableUnionsDecodeTheirVariants(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want Board
	}{
		{"every member set",
			`{"id": "b-2", "current": {"kind": "circle", "radius": 3}, "previous": {"kind": "square", "side": 1.5},
			  "pinned": {"kind": "square", "side": 4}, "owner": {"login": "octocat", "displayName": "The Octocat"},
			  "note": "looks good"}`,
			Board{ID: "b-2",
				Current:  &NullableShape{Circle: &Circle{Kind: "circle", Radius: 3}},
				Previous: runtime.Value(NullableShape{Square: &Square{Kind: "square", Side: 1.5}}),
				Pinned:   &Shape{Square: &Square{Kind: "square", Side: 4}},
				Owner:    &Owner{Login: "octocat", DisplayName: ptr("The Octocat")},
				Note:     &BoardNote{String: ptr("looks good")},
			}},
		{"integer note, shapes this client does not know",
			`{"id": "b-3", "current": {"kind": "hexagon", "side": 1}, "pinned": {"kind": "star", "points": 5}, "owner": null, "note": 7}`,
			Board{ID: "b-3",
				Current: &NullableShape{Unknown: json.RawMessage(`{"kind": "hexagon", "side": 1}`)},
				Pinned:  &Shape{Unknown: json.RawMessage(`{"kind": "star", "points": 5}`)},
				Note:    &BoardNote{Int: ptr[int64](7)},
			}},
		{"a note that is neither",
			`{"id": "b-4", "current": null, "pinned": null, "owner": null, "note": [1]}`,
			Board{ID: "b-4", Note: &BoardNote{Unknown: json.RawMessage(`[1]`)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := putBoard(t, tc.body, Board{})
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("decoded %s; want %s", boardJSON(got), boardJSON(&tc.want))
			}
			_, sent := putBoard(t, "", *got)
			sameJSON(t, "re-sent", sent, tc.body)
		})
	}
}

func TestBoardRoundTrips(t *testing.T) {
	b := Board{
		ID:       "b-5",
		Current:  &NullableShape{Square: &Square{Kind: "square", Side: 10}},
		Previous: runtime.Value(NullableShape{Circle: &Circle{Kind: "circle", Radius: 0.5}}),
		Pinned:   &Shape{Circle: &Circle{Kind: "circle", Radius: 2}},
		History:  []Shape{{Square: &Square{Kind: "square", Side: 1}}, {}},
		Note:     &BoardNote{Int: ptr[int64](-1)},
		Owner:    &Owner{Login: "ada"},
	}
	back, sent := putBoard(t, "", b)
	sameJSON(t, "sent", sent, `{"id":"b-5","current":{"kind":"square","side":10},"previous":{"kind":"circle","radius":0.5},
		"pinned":{"kind":"circle","radius":2},"history":[{"kind":"square","side":1},null],"note":-1,"owner":{"login":"ada"}}`)
	if !reflect.DeepEqual(*back, b) {
		t.Errorf("echoed back %s; want %s", boardJSON(back), boardJSON(&b))
	}
}

// --- a discriminated union as the default (error) response ---

func TestProblemsByTypeURI(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   Problem
	}{
		{"validation", 422,
			`{"type": "https://example.com/probs/validation", "title": "Your request is not valid.", "status": 422,
			  "invalidParams": [{"name": "id", "reason": "must be a slug"}, {"name": "current", "reason": "unknown kind"}]}`,
			Problem{ValidationProblem: &ValidationProblem{
				Type: "https://example.com/probs/validation", Title: "Your request is not valid.", Status: ptr[int64](422),
				InvalidParams: []ValidationProblemInvalidParamsItem{{Name: "id", Reason: "must be a slug"}, {Name: "current", Reason: "unknown kind"}},
			}}},
		{"rate limit", 429,
			`{"type": "https://example.com/probs/rate-limit", "title": "Slow down.", "retryAfter": 30}`,
			Problem{RateLimitProblem: &RateLimitProblem{Type: "https://example.com/probs/rate-limit", Title: "Slow down.", RetryAfter: 30}}},
		{"a problem type this client does not know", 409,
			`{"type": "https://example.com/probs/out-of-credit", "title": "You do not have enough credit.", "balance": 30}`,
			Problem{Unknown: json.RawMessage(`{"type": "https://example.com/probs/out-of-credit", "title": "You do not have enough credit.", "balance": 30}`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.status, "application/problem+json", tc.body)
			resp, err := newClient(t, s).PutBoard(t.Context(), "b-1", Board{ID: "b-1"})
			var se *runtime.StatusError
			if !errors.As(err, &se) || se.StatusCode != tc.status || se.Decoded != resp.JSONDefault {
				t.Fatalf("%v; want a *runtime.StatusError with the decoded problem", err)
			}
			if resp.StatusCode != tc.status || resp.Attempts != 1 || resp.JSON200 != nil || resp.JSONDefault == nil {
				t.Fatalf("status %d after %d attempts, JSON200 %v, JSONDefault %v", resp.StatusCode, resp.Attempts, resp.JSON200, resp.JSONDefault)
			}
			if !reflect.DeepEqual(*resp.JSONDefault, tc.want) {
				got, _ := json.Marshal(resp.JSONDefault)
				t.Errorf("decoded %s (Unknown %s)", got, resp.JSONDefault.Unknown)
			}
			again, err := json.Marshal(resp.JSONDefault)
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "re-encoded", again, tc.body)
		})
	}
}
