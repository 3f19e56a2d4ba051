package petstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/resgen/resgen/runtime"
)

// eventLog prints every observer event with %+v.
type eventLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *eventLog) add(ev any) {
	o.mu.Lock()
	fmt.Fprintf(&o.buf, "%+v\n", ev)
	o.mu.Unlock()
}
func (o *eventLog) CallStart(e runtime.CallStartEvent) context.Context {
	o.add(e)
	return e.Context
}
func (o *eventLog) CallEnd(e runtime.CallEndEvent)                { o.add(e) }
func (o *eventLog) Attempt(e runtime.AttemptEvent)                { o.add(e) }
func (o *eventLog) RetryWait(e runtime.RetryEvent)                { o.add(e) }
func (o *eventLog) Rejected(e runtime.RejectionEvent)             { o.add(e) }
func (o *eventLog) BreakerStateChange(e runtime.StateChangeEvent) { o.add(e) }

// TestSpecDeclaredQueryKeyIsRedacted: the spec declares an apiKey scheme
// in the query named "appid", a name the runtime's rule alone would not
// hide; a request editor adds it (and an api_key) to every attempt, and
// the server URL has a password. No error, log line or event shows them.
func TestSpecDeclaredQueryKeyIsRedacted(t *testing.T) {
	var logs, events bytes.Buffer
	obs := &eventLog{}
	editor := func(_ context.Context, r *http.Request) error {
		q := r.URL.Query()
		q.Set("appid", "app-S3CRET")
		q.Set("api_key", "key-S3CRET")
		r.URL.RawQuery = q.Encode()
		r.Header.Set("Authorization", "Bearer tok-S3CRET")
		return nil
	}
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) }))
	defer failing.Close()
	var errs []string
	for _, srv := range []string{dead.URL, failing.URL} {
		u, _ := url.Parse(srv)
		u.User = url.UserPassword("ann", "pw-S3CRET")
		c, err := NewClient(u.String(), WithRequestEditor(editor), WithObserver(obs),
			WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
		if err != nil {
			t.Fatal(err)
		}
		limit := int32(5)
		_, err1 := c.ListPets(context.Background(), &ListPetsParams{Limit: &limit})
		_, err2 := c.ShowPetByID(context.Background(), "7")
		_, err3 := c.CreatePets(context.Background(), Pet{Name: "rex"})
		for _, err := range []error{err1, err2, err3} {
			if err != nil {
				errs = append(errs, fmt.Sprintf("%v | %+v", err, err))
			}
		}
		var se *runtime.StatusError
		if errors.As(err2, &se) && strings.Contains(se.URL, "S3CRET") {
			t.Errorf("StatusError.URL %q", se.URL)
		}
	}
	if len(errs) < 4 {
		t.Fatalf("want the calls to fail, got %q", errs)
	}
	events.Write(obs.buf.Bytes())
	all := strings.Join(errs, "\n") + "\n" + logs.String() + events.String()
	for _, l := range strings.Split(all, "\n") {
		if strings.Contains(l, "S3CRET") {
			t.Errorf("a secret leaked: %s", l)
		}
	}
	if !strings.Contains(all, "appid=REDACTED") {
		t.Errorf("the errors do not show the redacted parameter:\n%s", all)
	}
}

// TestBadServerURLErrorHidesPassword: NewClient's error for a bad server
// URL says what is wrong without the password.
func TestBadServerURLErrorHidesPassword(t *testing.T) {
	for _, bad := range []string{"http://ann:pw-S3CRET@host:x/v1", "ftp://ann:pw-S3CRET@host/v1", "http://ann:pw-S3CRET@ho st/v1?appid=app-S3CRET"} {
		_, err := NewClient(bad)
		if err == nil || strings.Contains(err.Error(), "S3CRET") || !strings.Contains(err.Error(), "bad server URL") {
			t.Errorf("NewClient(%q): %v", bad, err)
		}
	}
	c, err := NewClient("http://ann:pw@h:8080/v1/")
	if err != nil || c.server != "http://ann:pw@h:8080/v1" {
		t.Fatalf("good URL: %v, server %q", err, c.server)
	}
}
