package runtime

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Every secret below contains "S3CRET"; no error string, log line or
// observer event may.
const (
	secretPassword = "pw-S3CRET1"
	secretBearer   = "Bearer au-S3CRET2"
	secretAPIKey   = "xk-S3CRET3"
	secretQueryKey = "qk-S3CRET4"
	secretAppID    = "ai-S3CRET5" // "appid" is secret only because the spec says so
	secretCookie   = "ck-S3CRET6"
	secretSetCook  = "sc-S3CRET7"
	secretToken    = "at-S3CRET8" // in the caller's own URL, not added by an editor
)

// textObserver prints every event with %+v, as a careless observer
// would, and forwards it to a SlogObserver.
type textObserver struct {
	mu  sync.Mutex
	buf bytes.Buffer
	s   *SlogObserver
}

func (o *textObserver) add(ev any) {
	o.mu.Lock()
	fmt.Fprintf(&o.buf, "%T %+v\n", ev, ev)
	o.mu.Unlock()
}
func (o *textObserver) CallStart(e CallStartEvent) context.Context {
	o.add(e)
	return o.s.CallStart(e)
}
func (o *textObserver) CallEnd(e CallEndEvent)    { o.add(e); o.s.CallEnd(e) }
func (o *textObserver) Attempt(e AttemptEvent)    { o.add(e); o.s.Attempt(e) }
func (o *textObserver) RetryWait(e RetryEvent)    { o.add(e); o.s.RetryWait(e) }
func (o *textObserver) Rejected(e RejectionEvent) { o.add(e); o.s.Rejected(e) }
func (o *textObserver) BreakerStateChange(e StateChangeEvent) {
	o.add(e)
	o.s.BreakerStateChange(e)
}

// TestNoSecretInErrorsLogsOrEvents runs the failing paths of a call (a
// transport error, an attempt timeout, a call cancelled or timed out
// while waiting to retry, net/http's resend of a GET, an open breaker)
// with credentials in the server URL's userinfo, in headers, in cookies
// and in query parameters (added by a request editor, and in the
// caller's URL), with the engine's log at debug and a full observer.
func TestNoSecretInErrorsLogsOrEvents(t *testing.T) {
	var logs logBuffer
	obsLog := &logBuffer{}
	obs := &textObserver{s: NewSlogObserver(slog.New(slog.NewJSONHandler(obsLog, &slog.HandlerOptions{Level: slog.LevelDebug})))}
	editor := func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", secretBearer)
		r.Header.Set("X-Api-Key", secretAPIKey)
		r.AddCookie(&http.Cookie{Name: "session", Value: secretCookie})
		q := r.URL.Query()
		q.Set("api_key", secretQueryKey)
		q.Set("appid", secretAppID)
		r.URL.RawQuery = q.Encode()
		return nil
	}
	newEngine := func(hc Doer) *engine {
		return newEngine(config{
			HTTPClient:        hc,
			Logger:            slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
			Observer:          obs,
			RequestEditors:    []RequestEditor{editor},
			SecretQueryParams: []string{"AppID"},
		})
	}
	withPassword := func(raw string) string {
		u, _ := url.Parse(raw)
		u.User = url.UserPassword("ann", secretPassword)
		return u.String() + "/x?access_token=" + secretToken + "&page=2"
	}
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: secretSetCook})
		if r.URL.Query().Get("page") == "slow" {
			time.Sleep(200 * time.Millisecond)
		}
		w.WriteHeader(503)
	}))
	defer slow.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	var errs []error
	run := func(name string, e *engine, spec operationSpec, rawURL string, ctx context.Context) {
		t.Helper()
		op := e.operation(spec)
		req, err := http.NewRequestWithContext(ctx, spec.Method, rawURL, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, _, err := op.Do(ctx, req)
		if resp != nil {
			resp.Body.Close()
		}
		if err == nil && name != "net/http resends counted" {
			t.Errorf("%s: no error", name)
			return
		}
		if err != nil {
			errs = append(errs, err)
		}
	}

	e := newEngine(nil)
	run("transport error", e, operationSpec{Name: "refused", Method: "GET", Retry: constRetry(2, time.Millisecond)}, withPassword(closed.URL), context.Background())
	run("attempt timeout", e, operationSpec{Name: "slow", Method: "GET", Timeout: 20 * time.Millisecond}, strings.Replace(withPassword(slow.URL), "page=2", "page=slow", 1), context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	run("cancelled while waiting to retry", e, operationSpec{Name: "wait", Method: "GET", Retry: constRetry(2, time.Hour)}, withPassword(slow.URL), ctx)
	run("single attempt, editor on the caller's request", e, operationSpec{Name: "once", Method: "GET"}, withPassword(closed.URL), context.Background())

	k := newKiller(t)
	run("net/http resend refused", newEngine(k.client(t, 2)), operationSpec{Name: "resend", Method: "GET"}, withPassword(k.URL), context.Background())
	k2 := newKiller(t)
	run("net/http resends counted", newEngine(k2.client(t, 2)), operationSpec{Name: "resends", Method: "GET", Retry: constRetry(3, time.Millisecond)}, withPassword(k2.URL), context.Background())

	p := countBreaker(1, 1, 50)
	b := e.Breaker("b", p)
	run("breaker opens", e, operationSpec{Name: "trip", Method: "GET", Breaker: b}, withPassword(closed.URL), context.Background())
	run("breaker open", e, operationSpec{Name: "trip", Method: "GET", Breaker: b}, withPassword(closed.URL), context.Background())

	var all strings.Builder
	for _, err := range errs {
		fmt.Fprintf(&all, "%v\n%+v\n%#v\n", err, err, err.Error())
	}
	errText := all.String()
	for name, text := range map[string]string{"errors": errText, "engine log": logs.String(), "observer events": obs.buf.String(), "SlogObserver log": obsLog.String()} {
		if strings.Contains(text, "S3CRET") {
			for _, l := range strings.Split(text, "\n") {
				if strings.Contains(l, "S3CRET") {
					t.Errorf("%s: a secret leaked: %s", name, l)
				}
			}
		}
	}
	// What is not secret stays readable.
	for _, want := range []string{"api_key=REDACTED", "appid=REDACTED", "access_token=REDACTED", "page=2", "ann:", "127.0.0.1"} {
		if !strings.Contains(errText, want) {
			t.Errorf("errors lack %q:\n%s", want, errText)
		}
	}
}

// TestSecretQueryParamRule pins which query parameter names count as
// credentials without the spec saying so.
func TestSecretQueryParamRule(t *testing.T) {
	for _, n := range []string{"api_key", "apikey", "API-Key", "key", "access_token", "refresh_token", "id_token", "token",
		"client_secret", "secret", "password", "passwd", "pwd", "pass", "signature", "sig", "X-Amz-Signature",
		"X-Amz-wire.Credential", "X-Amz-Security-Token", "auth", "authorization", "session", "sessionid", "jwt", "code_verifier_secret"} {
		if !secretParamName(n) {
			t.Errorf("%q is not taken as a credential", n)
		}
	}
	for _, n := range []string{"page", "limit", "id", "name", "q", "sort", "cursor", "appid", "signal", "pw2", ""} {
		if secretParamName(n) {
			t.Errorf("%q is taken as a credential", n)
		}
	}
}

// TestRedactURL: values of credential parameters are replaced, nothing
// else of the URL changes, and a URL without them is returned as is.
func TestRedactURL(t *testing.T) {
	r := newRedactor([]string{"AppID"})
	for in, want := range map[string]string{
		"http://h/x":                                 "http://h/x",
		"http://h/x?page=2&limit=3":                  "http://h/x?page=2&limit=3",
		"http://h/x?api_key=abc&page=2":              "http://h/x?api_key=REDACTED&page=2",
		"http://h/x?page=2&API%5FKEY=abc&appid=q":    "http://h/x?page=2&API%5FKEY=REDACTED&appid=REDACTED",
		"http://h/x?token&page=2":                    "http://h/x?token&page=2",
		"http://ann:pw@h/x?sig=1":                    "http://ann:xxxxx@h/x?sig=REDACTED",
		"http://ann:***@h/x":                         "http://ann:xxxxx@h/x",
		"http://h/x?token=a&token=b&page=1":          "http://h/x?token=REDACTED&token=REDACTED&page=1",
		"http://h/x?%zz=1&key=%zz":                   "http://h/x?%zz=1&key=REDACTED",
		"not a url \x7f?key=1":                       "not a url \x7f?key=REDACTED",
		"http://[::1]:80/x?password=p#frag":          "http://[::1]:80/x?password=REDACTED#frag",
		"http://h/x?a=1&b=2&c=3&d=4&refresh_token=r": "http://h/x?a=1&b=2&c=3&d=4&refresh_token=REDACTED",
	} {
		if got := r.redactString(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}
