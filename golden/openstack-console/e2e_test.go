package openstackconsole

// End-to-end tests of the generated OpenStack console client against one
// loopback server standing in for Keystone, Nova, Cinder and Glance. The
// breaker thresholds come from testdata/specs/openstack-console.yaml:
//
//	nova:     count window 50, minimumCalls 20 (from default), opens at 50%; recordOn adds 429
//	keystone: count window 100, minimumCalls 20 (from default), opens at 40%
//	cinder:   time window 30s, minimumCalls 10, opens at 30%
//	glance:   scope operation, minimumCalls 5, opens at 50%
//
// Failures are mostly 501: a 5xx every breaker records but that get3 does
// not retry, so each call is exactly one request and no test waits 200ms
// per retry.

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const serverID = "4e3a1c2b-1111-4222-8333-944455556666"

type got struct {
	Service, Method, Path, RawQuery string
	Header                          http.Header
	Body                            string
}

// cloud answers every service's operations with a success unless a
// script of statuses is set for that service.
type cloud struct {
	*httptest.Server
	mu      sync.Mutex
	reqs    []got
	scripts map[string][]int
	seen    map[string]int // requests per service since its script was set
}

func service(path string) string {
	switch {
	case strings.HasPrefix(path, "/identity/"):
		return "keystone"
	case strings.HasPrefix(path, "/compute/"):
		return "nova"
	case strings.HasPrefix(path, "/volume/"):
		return "cinder"
	case strings.HasPrefix(path, "/image/"):
		return "glance"
	}
	return "?"
}

func newCloud(t *testing.T) *cloud {
	t.Helper()
	c := &cloud{scripts: map[string][]int{}, seen: map[string]int{}}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		svc := service(r.URL.Path)
		c.mu.Lock()
		c.reqs = append(c.reqs, got{svc, r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), string(b)})
		code := 0
		if s := c.scripts[svc]; len(s) > 0 {
			code = s[min(c.seen[svc], len(s)-1)]
		}
		c.seen[svc]++
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if code >= 300 {
			w.WriteHeader(code)
			io.WriteString(w, `{"message": "down", "code": 1}`)
			return
		}
		c.success(w, r, code)
	}))
	t.Cleanup(c.Close)
	return c
}

// success writes the operation's declared success answer.
func (c *cloud) success(w http.ResponseWriter, r *http.Request, code int) {
	p, m := r.URL.Path, r.Method
	reply := func(def int, body string) {
		if code == 0 {
			code = def
		}
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
	server := `{"id": "` + serverID + `", "name": "vm1", "status": "ACTIVE", "accessIPv4": null, "progress": 40, "metadata": {"k": "v"}}`
	switch {
	case p == "/identity/v3/auth/tokens" && m == "POST":
		w.Header().Set("X-Subject-Token", "tok-1")
		reply(201, `{"token": {"expires_at": "2026-01-02T03:04:05Z", "methods": ["password"]}}`)
	case p == "/compute/v2.1/servers" && m == "GET":
		reply(200, `{"servers": [`+server+`]}`)
	case p == "/compute/v2.1/servers" && m == "POST":
		reply(202, server)
	case strings.HasSuffix(p, "/action"):
		reply(202, ``)
	case strings.HasPrefix(p, "/compute/v2.1/servers/") && m == "GET":
		reply(200, server)
	case strings.HasPrefix(p, "/volume/") && m == "GET":
		reply(200, `{"volumes": [{"id": "v1", "size": 10}]}`)
	case strings.HasPrefix(p, "/volume/") && m == "POST":
		reply(202, `{"id": "v2"}`)
	case p == "/image/v2/images":
		reply(200, `{"images": [{"id": "i1", "name": null, "tags": ["x"]}]}`)
	default: // DELETEs, image upload
		reply(204, ``)
	}
}

// script makes the service's next requests answer these statuses (the
// last one repeated); 0 is the operation's success.
func (c *cloud) script(svc string, codes ...int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.scripts[svc], c.seen[svc] = codes, 0
}

func (c *cloud) hits(svc string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, r := range c.reqs {
		if r.Service == svc {
			n++
		}
	}
	return n
}

func (c *cloud) last(n int) []got {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.reqs[len(c.reqs)-n:])
}

func newClient(t *testing.T, s *cloud) *Client {
	t.Helper()
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

func newServer() ServerCreate {
	return ServerCreate{Server: ServerCreateServer{Name: "vm1", ImageRef: "img", FlavorRef: "m1.small"}}
}

// wantOpen checks err is the fail-fast error of the named breaker.
func wantOpen(t *testing.T, what string, err error, breaker string) {
	t.Helper()
	var open *runtime.CircuitOpenError
	if !errors.As(err, &open) || !errors.Is(err, runtime.ErrCircuitOpen) {
		t.Fatalf("%s: got %v; want a CircuitOpenError", what, err)
	}
	if open.Breaker != breaker || !strings.Contains(err.Error(), `"`+breaker+`"`) {
		t.Fatalf("%s: error %q names breaker %q; want %q", what, err, open.Breaker, breaker)
	}
	if open.RetryAt.IsZero() {
		t.Errorf("%s: the error does not say when the breaker tries again", what)
	}
}

func wantState(t *testing.T, c *Client, breaker string, want runtime.State, calls, failed int) {
	t.Helper()
	b := c.Breakers()[breaker]
	if b == nil {
		t.Fatalf("no breaker %q", breaker)
	}
	m := b.Metrics()
	if m.State != want {
		t.Fatalf("breaker %s is %v; want %v (metrics %+v)", breaker, m.State, want, m)
	}
	if want == runtime.StateClosed && (m.Calls != calls || m.Failed != failed) {
		t.Fatalf("breaker %s recorded %d calls, %d failed; want %d and %d", breaker, m.Calls, m.Failed, calls, failed)
	}
}

func TestBreakersAreTheSpecsInstances(t *testing.T) {
	c := newClient(t, newCloud(t))
	m := c.Breakers()
	var names []string
	for n, b := range m {
		names = append(names, n)
		if b.Name() != n {
			t.Errorf("breaker under %q is named %q", n, b.Name())
		}
		if b.State() != runtime.StateClosed {
			t.Errorf("breaker %s starts %v", n, b.State())
		}
	}
	slices.Sort(names)
	if want := []string{"cinder", "glance/listImages", "glance/uploadImage", "keystone", "nova"}; !slices.Equal(names, want) {
		t.Fatalf("breakers %q; want %q", names, want)
	}
	// The generated constants are the same names, one per breaker.
	if consts := []string{BreakerCinder, BreakerGlanceListImages, BreakerGlanceUploadImage, BreakerKeystone, BreakerNova}; !slices.Equal(names, consts) {
		t.Fatalf("breakers %q; the constants say %q", names, consts)
	}
	for n, policy := range map[string]string{"cinder": "cinder", "glance/listImages": "glance", "glance/uploadImage": "glance", "keystone": "keystone", "nova": "nova"} {
		if p := m[n].Policy().Policy; p != policy {
			t.Errorf("breaker %s has policy %q; want %q", n, p, policy)
		}
	}
	delete(m, "nova")
	if c.Breakers()["nova"] == nil {
		t.Error("Breakers() returned the client's own map: deleting from it removed nova")
	}
}

// observer keeps the breaker state changes and rejections.
type observer struct {
	runtime.NopObserver
	mu       sync.Mutex
	changes  []runtime.StateChangeEvent
	rejected []runtime.RejectionEvent
}

func (o *observer) BreakerStateChange(e runtime.StateChangeEvent) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.changes = append(o.changes, e)
}

func (o *observer) Rejected(e runtime.RejectionEvent) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.rejected = append(o.rejected, e)
}

func TestNovaOpensAndOnlyComputeFailsFast(t *testing.T) {
	s := newCloud(t)
	obs := &observer{}
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)), WithObserver(obs))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()

	// 10 successes, then failures: the 20th call (10 failed of 20, 50%)
	// opens nova, not one earlier.
	for i := range 10 {
		if resp, err := c.CreateServer(ctx, newServer()); err != nil || resp.StatusCode != 202 || resp.JSON202.ID != serverID {
			t.Fatalf("call %d: %v %v", i+1, resp, err)
		}
	}
	s.script("nova", 503)
	for i := range 10 {
		wantState(t, c, "nova", runtime.StateClosed, 10+i, i)
		_, err := c.CreateServer(ctx, newServer())
		var se *runtime.StatusError
		if !errors.As(err, &se) || se.StatusCode != 503 || se.Attempts != 1 {
			t.Fatalf("failing call %d: got %v; want a StatusError 503 after one attempt", i+1, err)
		}
		if n := s.hits("nova"); n != 11+i {
			t.Fatalf("failing call %d: nova saw %d requests; want %d (a POST without key is sent once)", i+1, n, 11+i)
		}
	}
	wantState(t, c, "nova", runtime.StateOpen, 0, 0)
	obs.mu.Lock()
	if len(obs.changes) != 1 || obs.changes[0].Breaker != "nova" || obs.changes[0].From != runtime.StateClosed || obs.changes[0].To != runtime.StateOpen ||
		!strings.Contains(obs.changes[0].Reason, "failure rate 50% (10 of 20 calls)") {
		t.Errorf("state changes %+v; want nova closed → open, failure rate 50%% (10 of 20 calls)", obs.changes)
	}
	obs.mu.Unlock()

	// Every compute operation now fails fast, and nova sees none of them.
	_, err = c.ListServers(ctx, nil)
	wantOpen(t, "listServers", err, "nova")
	var open *runtime.CircuitOpenError
	errors.As(err, &open)
	// nova stays open 10s: it was opened a moment ago.
	if now := time.Now(); open.RetryAt.Before(now.Add(5*time.Second)) || open.RetryAt.After(now.Add(10*time.Second)) {
		t.Errorf("RetryAt %v; want about 10s from now (%v)", open.RetryAt, now)
	}
	_, err = c.ShowServer(ctx, serverID)
	wantOpen(t, "showServer", err, "nova")
	_, err = c.CreateServer(ctx, newServer())
	wantOpen(t, "createServer", err, "nova")
	_, err = c.ServerAction(ctx, serverID, nil, ServerAction{})
	wantOpen(t, "serverAction", err, "nova")
	_, err = c.DeleteServer(ctx, serverID)
	wantOpen(t, "deleteServer", err, "nova")
	if n := s.hits("nova"); n != 20 {
		t.Fatalf("nova saw %d requests while its breaker was open", n-20)
	}
	obs.mu.Lock()
	if len(obs.rejected) != 5 {
		t.Errorf("observer saw %d rejections; want 5", len(obs.rejected))
	}
	for _, r := range obs.rejected {
		if r.Breaker != "nova" {
			t.Errorf("rejection %+v", r)
		}
	}
	obs.mu.Unlock()

	// The other services' breakers are their own: their calls go through.
	s.script("nova") // even a healed nova is not asked: the breaker is open
	if resp, err := c.IssueToken(ctx, AuthRequest{}); err != nil || resp.StatusCode != 201 {
		t.Errorf("keystone issueToken: %v %v", resp, err)
	}
	if resp, err := c.ListVolumes(ctx, "p1"); err != nil || resp.StatusCode != 200 || len(resp.JSON200.Volumes) != 1 {
		t.Errorf("cinder listVolumes: %v %v", resp, err)
	}
	if resp, err := c.ListImages(ctx, nil); err != nil || resp.StatusCode != 200 {
		t.Errorf("glance listImages: %v %v", resp, err)
	}
	if resp, err := c.UploadImage(ctx, "i1", strings.NewReader("img")); err != nil || resp.StatusCode != 204 {
		t.Errorf("glance uploadImage: %v %v", resp, err)
	}
	if s.hits("keystone") != 1 || s.hits("cinder") != 1 || s.hits("glance") != 2 || s.hits("nova") != 20 {
		t.Errorf("server saw keystone %d, cinder %d, glance %d, nova %d; want 1, 1, 2, 20",
			s.hits("keystone"), s.hits("cinder"), s.hits("glance"), s.hits("nova"))
	}
	for _, b := range []string{"keystone", "cinder", "glance/listImages", "glance/uploadImage"} {
		wantState(t, c, b, runtime.StateClosed, 1, 0)
	}
}

func TestNovaRecords429AndKeystoneIgnores4xx(t *testing.T) {
	s := newCloud(t)
	c := newClient(t, s)
	ctx := t.Context()

	// nova's recordOn names 429: twenty 429s open it.
	s.script("nova", 429)
	for range 20 {
		if _, err := c.CreateServer(ctx, newServer()); errors.Is(err, runtime.ErrCircuitOpen) {
			t.Fatal("nova opened before minimumCalls")
		}
	}
	_, err := c.CreateServer(ctx, newServer())
	wantOpen(t, "createServer after twenty 429s", err, "nova")
	if n := s.hits("nova"); n != 20 {
		t.Fatalf("nova saw %d requests; want 20", n)
	}

	// keystone records the default 5xx only: 25 declared 401s are successes
	// for the breaker, and errors for the caller.
	s.script("keystone", 401)
	for i := range 25 {
		resp, err := c.IssueToken(ctx, AuthRequest{})
		var se *runtime.StatusError
		if !errors.As(err, &se) || se.StatusCode != 401 || se.Decoded != resp.JSON401 || resp.StatusCode != 401 || resp.JSON401 == nil || resp.JSON401.Message == nil || *resp.JSON401.Message != "down" {
			t.Fatalf("call %d: %+v %v; want the declared 401 Fault", i+1, resp, err)
		}
		if resp.Attempts != 1 {
			t.Fatalf("a 401 was retried (%d attempts)", resp.Attempts)
		}
	}
	wantState(t, c, "keystone", runtime.StateClosed, 25, 0)
}

func TestKeystoneOpensAt40Percent(t *testing.T) {
	s := newCloud(t)
	c := newClient(t, s)
	ctx := t.Context()
	for range 12 {
		if _, err := c.IssueToken(ctx, AuthRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	s.script("keystone", 501)
	for i := range 8 {
		wantState(t, c, "keystone", runtime.StateClosed, 12+i, i)
		if _, err := c.IssueToken(ctx, AuthRequest{}); err == nil {
			t.Fatal("a 501 is not a success")
		}
	}
	// 8 failed of 20 = 40%: open.
	wantState(t, c, "keystone", runtime.StateOpen, 0, 0)
	_, err := c.RevokeToken(ctx, RevokeTokenParams{XSubjectToken: "tok"})
	wantOpen(t, "revokeToken (same path, same breaker)", err, "keystone")
	if n := s.hits("keystone"); n != 20 {
		t.Fatalf("keystone saw %d requests; want 20", n)
	}
	if _, err := c.ListServers(ctx, nil); err != nil {
		t.Fatalf("nova is not keystone: %v", err)
	}
}

func TestCinderTimeWindowOpensAt30Percent(t *testing.T) {
	s := newCloud(t)
	c := newClient(t, s)
	ctx := t.Context()
	s.script("cinder", 0, 0, 0, 0, 0, 0, 0, 501)
	for i := range 9 {
		c.ListVolumes(ctx, "p1")
		wantState(t, c, "cinder", runtime.StateClosed, i+1, max(0, i-6))
	}
	// 3 failed of 10 = 30%, and 10 is minimumCalls: open.
	c.ListVolumes(ctx, "p1")
	wantState(t, c, "cinder", runtime.StateOpen, 0, 0)
	_, err := c.CreateVolume(ctx, "p1", &Volume{ID: ptr("v")})
	wantOpen(t, "createVolume", err, "cinder")
	if n := s.hits("cinder"); n != 10 {
		t.Fatalf("cinder saw %d requests; want 10", n)
	}
}

func TestGlanceHasOneBreakerPerOperation(t *testing.T) {
	s := newCloud(t)
	c := newClient(t, s)
	ctx := t.Context()
	s.script("glance", 501)
	for i := range 5 {
		wantState(t, c, "glance/listImages", runtime.StateClosed, i, i)
		_, err := c.ListImages(ctx, nil)
		var se *runtime.StatusError
		if !errors.As(err, &se) || se.StatusCode != 501 || se.Attempts != 1 {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	wantState(t, c, "glance/listImages", runtime.StateOpen, 0, 0)
	_, err := c.ListImages(ctx, &ListImagesParams{Tag: []string{"a"}})
	wantOpen(t, "listImages", err, "glance/listImages")

	// uploadImage has its own glance breaker, untouched.
	s.script("glance", 0)
	resp, err := c.UploadImage(ctx, "i1", strings.NewReader("\x01\x02\x03"))
	if err != nil || resp.StatusCode != 204 {
		t.Fatalf("uploadImage: %v %v; its breaker is not listImages'", resp, err)
	}
	if r := s.last(1)[0]; r.Method != "PUT" || r.Path != "/image/v2/images/i1/file" || r.Body != "\x01\x02\x03" {
		t.Errorf("upload sent %s %s %q", r.Method, r.Path, r.Body)
	}
	wantState(t, c, "glance/uploadImage", runtime.StateClosed, 1, 0)
	if n := s.hits("glance"); n != 6 {
		t.Fatalf("glance saw %d requests; want 6", n)
	}
}

func TestCreateServerIsSentOnceOn503(t *testing.T) {
	s := newCloud(t)
	c := newClient(t, s)
	s.script("nova", 503, 0)
	_, err := c.CreateServer(t.Context(), newServer())
	var se *runtime.StatusError
	if !errors.As(err, &se) || se.StatusCode != 503 || se.Attempts != 1 || se.Method != "POST" {
		t.Fatalf("got %v; want a StatusError 503 after 1 attempt", err)
	}
	if !strings.Contains(string(se.Body), "down") {
		t.Errorf("StatusError body %q", se.Body)
	}
	if n := s.hits("nova"); n != 1 {
		t.Fatalf("nova saw %d requests; creating a VM must be sent once", n)
	}
	r := s.last(1)[0]
	var sent ServerCreate
	if err := json.Unmarshal([]byte(r.Body), &sent); err != nil || sent != newServer() {
		t.Errorf("body %q", r.Body)
	}
	if r.Header.Get("Idempotency-Key") != "" || r.Header.Get("X-Request-Key") != "" {
		t.Errorf("createServer has no key, but sent %v", r.Header)
	}
	wantState(t, c, "nova", runtime.StateClosed, 1, 1)
}

var uuidForm = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestServerActionIsKeyedWithXRequestKey(t *testing.T) {
	s := newCloud(t)
	c := newClient(t, s)
	hard := ServerActionRebootTypeHard
	s.script("nova", 503, 0)
	resp, err := c.ServerAction(t.Context(), serverID, nil, ServerAction{Reboot: &ServerActionReboot{Type: &hard}})
	if err != nil || resp.StatusCode != 202 || resp.Attempts != 2 {
		t.Fatalf("got %+v, %v; want 202 after 2 attempts", resp, err)
	}
	reqs := s.last(2)
	key := reqs[0].Header.Get("X-Request-Key")
	if !uuidForm.MatchString(key) {
		t.Fatalf("X-Request-Key %q is not a random UUID", key)
	}
	for i, r := range reqs {
		if got := r.Header.Get("X-Request-Key"); got != key {
			t.Errorf("attempt %d sent X-Request-Key %q; attempt 1 sent %q", i+1, got, key)
		}
		if h := r.Header.Get("Idempotency-Key"); h != "" {
			t.Errorf("attempt %d also sent Idempotency-Key %q: idempotencyKey names the header to use instead", i+1, h)
		}
		if r.Method != "POST" || r.Path != "/compute/v2.1/servers/"+serverID+"/action" || r.Body != `{"reboot":{"type":"HARD"}}` {
			t.Errorf("attempt %d: %s %s %q", i+1, r.Method, r.Path, r.Body)
		}
	}
	wantState(t, c, "nova", runtime.StateClosed, 1, 0)

	t.Run("the caller's key is used on every attempt", func(t *testing.T) {
		s.script("nova", 502, 0)
		resp, err := c.ServerAction(t.Context(), serverID, &ServerActionParams{IdempotencyKey: ptr("reboot-7")}, ServerAction{})
		if err != nil || resp.Attempts != 2 {
			t.Fatalf("%+v %v", resp, err)
		}
		for i, r := range s.last(2) {
			if got := r.Header.Get("X-Request-Key"); got != "reboot-7" {
				t.Errorf("attempt %d sent %q", i+1, got)
			}
		}
	})
	t.Run("a new call makes a new key", func(t *testing.T) {
		s.script("nova", 0)
		for range 2 {
			if _, err := c.ServerAction(t.Context(), serverID, nil, ServerAction{}); err != nil {
				t.Fatal(err)
			}
		}
		r := s.last(2)
		if a, b := r[0].Header.Get("X-Request-Key"), r[1].Header.Get("X-Request-Key"); a == b || !uuidForm.MatchString(b) {
			t.Fatalf("two calls sent keys %q and %q", a, b)
		}
	})
	t.Run("os-stop can be sent", func(t *testing.T) {
		s.script("nova", 0)
		if _, err := c.ServerAction(t.Context(), serverID, nil, ServerAction{OsStop: runtime.Value(runtime.FreeForm{})}); err != nil {
			t.Fatal(err)
		}
		if b := s.last(1)[0].Body; !strings.Contains(b, `"os-stop"`) {
			t.Errorf("sent %s; want an os-stop action", b)
		}
	})
}

func TestIssueTokenIdempotentPOSTIsRetried(t *testing.T) {
	s := newCloud(t)
	c := newClient(t, s)
	s.script("keystone", 503, 0)
	body := AuthRequest{Auth: AuthRequestAuth{Identity: AuthRequestAuthIdentity{
		Methods:  []string{"password"},
		Password: &AuthRequestAuthIdentityPassword{User: &AuthRequestAuthIdentityPasswordUser{Name: ptr("admin"), Password: ptr("pw")}},
	}}}
	resp, err := c.IssueToken(t.Context(), body)
	if err != nil || resp.StatusCode != 201 || resp.Attempts != 2 {
		t.Fatalf("got %+v, %v; want 201 after 2 attempts", resp, err)
	}
	if resp.JSON201 == nil || resp.JSON201.Token == nil || resp.JSON201.Token.ExpiresAt == nil ||
		!resp.JSON201.Token.ExpiresAt.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("JSON201 %+v", resp.JSON201)
	}
	if h := resp.Header.Get("X-Subject-Token"); h != "tok-1" {
		t.Errorf("X-Subject-Token %q", h)
	}
	reqs := s.last(2)
	want := `{"auth":{"identity":{"methods":["password"],"password":{"user":{"name":"admin","password":"pw"}}}}}`
	for i, r := range reqs {
		if r.Body != want || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("attempt %d sent %q (%s); want %s", i+1, r.Body, r.Header.Get("Content-Type"), want)
		}
		if h := r.Header.Get("Idempotency-Key"); h != "" {
			t.Errorf("attempt %d sent Idempotency-Key %q: idempotent: true is not a key", i+1, h)
		}
	}
	wantState(t, c, "keystone", runtime.StateClosed, 1, 0)
}

func TestComputeReadsDecode(t *testing.T) {
	s := newCloud(t)
	c := newClient(t, s)
	ctx := t.Context()
	since := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	active := ServerStatusActive
	resp, err := c.ListServers(ctx, &ListServersParams{Limit: ptr[int64](5), Marker: ptr(serverID), Status: &active, ChangesSince: &since})
	if err != nil {
		t.Fatal(err)
	}
	if r := s.last(1)[0]; r.RawQuery != "limit=5&marker="+serverID+"&status=ACTIVE&changes-since=2026-03-04T05%3A06%3A07Z" {
		t.Errorf("query %q", r.RawQuery)
	}
	if resp.JSON200 == nil || len(resp.JSON200.Servers) != 1 {
		t.Fatalf("JSON200 %+v", resp.JSON200)
	}
	sv := resp.JSON200.Servers[0]
	if sv.ID != serverID || sv.Status != ServerStatusActive || !sv.AccessIPv4.IsNull() || sv.Progress != runtime.Value[int32](40) || sv.Metadata["k"] != "v" {
		t.Errorf("server %+v", sv)
	}

	s.script("nova", 404)
	show, err := c.ShowServer(ctx, "no/such id")
	if !errors.Is(err, runtime.ErrNotRetryable) {
		t.Fatalf("a declared 404 is a StatusError that was not retried: %v", err)
	}
	if show.StatusCode != 404 || show.JSON404 == nil || show.JSON404.Message == nil || *show.JSON404.Message != "down" || show.JSON200 != nil || show.Attempts != 1 {
		t.Errorf("got %+v", show)
	}
	if r := s.last(1)[0]; r.Path != "/compute/v2.1/servers/no/such id" || !strings.HasSuffix(r.Header.Get("Accept"), "json") {
		t.Errorf("showServer sent %s (Accept %q)", r.Path, r.Header.Get("Accept"))
	}
	wantState(t, c, "nova", runtime.StateClosed, 2, 0)
}
