package lab

// The generated client of testdata/specs/lab.yaml, the spec resgen lab's
// demo, docs and tests run: its sustainedFailure operation (the published
// order setup) against a loopback server that answers 500, and the
// policies tools/lab resolves for each operation, which must be those
// the generated client registers (the lab runs what the client runs).

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/resgen/resgen/generator"
	"github.com/resgen/resgen/runtime"
	"github.com/resgen/resgen/tools/lab"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestSustainedFailureOpensAfter20Requests: breaker outside retry, count
// window 50, minimum 20 calls, 40%, 3 attempts: against a server that
// always fails, the breaker opens after 20 requests, which are 60 server
// calls (the published counts), and the 10 requests after that reach the
// server not once. The 200 ms waits are shortened by an override of the
// retry policy, so the test takes well under a second; the breaker is the
// spec's.
func TestSustainedFailureOpensAfter20Requests(t *testing.T) {
	var hits atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer s.Close()
	defer s.Client().CloseIdleConnections()
	o, err := runtime.ParseOverrides([]byte(`{"retries": {"experiment": {"initialInterval": "5ms"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(s.URL, WithHTTPClient(s.Client()), WithLogger(slog.New(slog.DiscardHandler)), WithOverrides(o))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	requests := 0
	for ; requests < 100; requests++ {
		_, err := c.SustainedFailure(ctx)
		var open *runtime.CircuitOpenError
		if errors.As(err, &open) {
			break
		}
		if err == nil {
			t.Fatal("a call succeeded against a server that answers 500")
		}
	}
	if requests != 20 || hits.Load() != 60 {
		t.Fatalf("the breaker opened after %d requests, %d server calls; want 20 and 60", requests, hits.Load())
	}
	if st := c.Breakers()[BreakerExperiment].State(); st != runtime.StateOpen {
		t.Fatalf("breaker %v, want open", st)
	}
	for range 10 {
		if _, err := c.SustainedFailure(ctx); !errors.As(err, new(*runtime.CircuitOpenError)) {
			t.Fatalf("after open: %v, want a refusal", err)
		}
	}
	if hits.Load() != 60 {
		t.Fatalf("%d calls reached the server after open, want 0", hits.Load()-60)
	}
}

// TestResolveIsTheClientsPolicy: for every operation, lab.Resolve on the
// spec gives the breaker policy the generated client registered for it,
// under the same instance name, and a retry policy exactly when the
// client retries.
func TestResolveIsTheClientsPolicy(t *testing.T) {
	c, err := NewClient("http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	breakers := c.Breakers()
	ops := map[string]bool{ // operationId: retried
		"listItems": true, "createItem": false, "listItemsOverload": true,
		"sustainedFailure": true, "slowReport": true, "getStatus": true,
	}
	for id, retried := range ops {
		tg, err := lab.Resolve(context.Background(), generator.Config{Spec: "../../testdata/specs/lab.yaml"}, id)
		if err != nil {
			t.Fatal(err)
		}
		b, ok := breakers[tg.BreakerName]
		if !ok || tg.Breaker == nil {
			t.Fatalf("%s: breaker %q, which the client does not have (it has %v)", id, tg.BreakerName, breakers)
		}
		if got, want := *tg.Breaker, b.Policy(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: lab resolves\n%+v\nthe client registered\n%+v", id, got, want)
		}
		if (tg.Retry != nil) != retried || tg.NotRetrySafe == retried {
			t.Errorf("%s: retry %v, not retry-safe %v; want retried %v", id, tg.Retry != nil, tg.NotRetrySafe, retried)
		}
	}
	if tg, _ := lab.Resolve(context.Background(), generator.Config{Spec: "../../testdata/specs/lab.yaml"}, "sustainedFailure"); tg.Retry.MaxAttempts != 3 || tg.Retry.InitialInterval.Milliseconds() != 200 {
		t.Errorf("sustainedFailure retry %+v, want the published 3 attempts 200ms apart", tg.Retry)
	}
}
