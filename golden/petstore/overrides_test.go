package petstore

// Runtime overrides through the generated client: an operator's file
// changes the spec's policies (pets: minimumCalls 4, threshold 50; quick: 3
// attempts; every operation: timeout 2s, totalTimeout 10s) without
// regenerating, and a mistake in it stops NewClient.

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
)

// overridesFile writes doc to a file and loads it as an operator would.
func overridesFile(t *testing.T, doc string) *runtime.Overrides {
	t.Helper()
	path := filepath.Join(t.TempDir(), "overrides.json")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := runtime.LoadOverrides(path)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestOverrideFromFileLowersMaxAttempts(t *testing.T) {
	o := overridesFile(t, `{"retries": {"quick": {"maxAttempts": 1}}}`)
	s := newServer(t, ``, 503)
	c := newClient(t, s, WithOverrides(o))
	if _, err := c.ShowPetByID(context.Background(), "1"); err == nil && s.hits() == 0 {
		t.Fatal("no call reached the server")
	}
	if s.hits() != 1 {
		t.Fatalf("server saw %d attempts; the override says 1", s.hits())
	}
	// The same call without the override makes the spec's 3 attempts.
	s2 := newServer(t, ``, 503)
	c2 := newClient(t, s2)
	c2.ShowPetByID(context.Background(), "1")
	if s2.hits() != 3 {
		t.Fatalf("without the override the server saw %d attempts; want the spec's 3", s2.hits())
	}
	// Every operation of the policy gets the override, and the keyed POST
	// too: it is retry-safe.
	s3 := newServer(t, ``, 503)
	c3 := newClient(t, s3, WithOverrides(o))
	c3.ListPets(context.Background(), nil)
	c3.AdoptPet(context.Background(), "7", nil, Adoption{Owner: "ann"})
	if s3.hits() != 2 {
		t.Fatalf("ListPets and AdoptPet made %d attempts; want 1 each", s3.hits())
	}
}

func TestOverrideFromFileOpensBreakerSooner(t *testing.T) {
	o := overridesFile(t, `{
		"breakers": {"pets": {"minimumCalls": 2, "failureRateThreshold": 40, "waitInOpen": "1m"}},
		"retries": {"quick": {"maxAttempts": 1}}
	}`)
	s := newServer(t, ``, 500)
	c := newClient(t, s, WithOverrides(o))
	// The spec's policy opens after 4 calls of 3 attempts (12 server calls,
	// TestOpenBreakerFailsFastWithoutReachingTheServer); this one after 2.
	calls, hits := callsUntilOpen(t, c, s)
	if calls != 2 || hits != 2 {
		t.Fatalf("breaker opened after %d calls = %d server calls; want 2 = 2", calls, hits)
	}
	p := c.Breakers()["pets"].Policy()
	if p.MinimumCalls != 2 || p.FailureRateThreshold != 40 || p.WaitInOpen != time.Minute || p.WindowSize != 10 || p.HalfOpenCalls != 2 {
		t.Fatalf("policy %+v; want the override's three keys and the spec's others", p)
	}
	// A client built without the override keeps the generated policy.
	if p := newClient(t, s).Breakers()["pets"].Policy(); p.MinimumCalls != 4 || p.FailureRateThreshold != 50 {
		t.Fatalf("a client without overrides has %+v", p)
	}
}

// slowServer answers after delay, or when the client gives up.
func slowServer(t *testing.T, delay time.Duration) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/pets" {
			w.Write([]byte(`[{"id": 1, "name": "rex"}]`))
		} else {
			w.Write([]byte(`{"id": 1, "name": "rex"}`))
		}
	}))
	t.Cleanup(s.Close)
	return s, &hits
}

func TestOverrideFromFileChangesTimeouts(t *testing.T) {
	t.Run("timeout", func(t *testing.T) {
		s, hits := slowServer(t, 400*time.Millisecond)
		o := overridesFile(t, `{"operations": {"showPetById": {"timeout": "50ms"}}}`)
		c, err := NewClient(s.URL, WithOverrides(o))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = c.ShowPetByID(context.Background(), "1")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v; want each attempt to time out after 50ms", err)
		}
		// Timeouts are retried: quick's 3 attempts of 50ms, 5ms apart.
		if n := hits.Load(); n != 3 {
			t.Fatalf("server saw %d attempts; want 3", n)
		}
		if d := time.Since(start); d > 350*time.Millisecond {
			t.Fatalf("the call took %v; 3 attempts of 50ms should not", d)
		}
		// The spec's 2s timeout lets the same call succeed, and the
		// override of showPetById leaves listPets alone.
		c2, _ := NewClient(s.URL)
		if _, err := c2.ShowPetByID(context.Background(), "1"); err != nil {
			t.Fatalf("without the override: %v", err)
		}
		if _, err := c.ListPets(context.Background(), nil); err != nil {
			t.Fatalf("listPets has no override: %v", err)
		}
	})
	t.Run("totalTimeout", func(t *testing.T) {
		s, hits := slowServer(t, 400*time.Millisecond)
		o := overridesFile(t, `{"operations": {"showPetById": {"totalTimeout": "120ms"}}}`)
		c, err := NewClient(s.URL, WithOverrides(o))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if _, err := c.ShowPetByID(context.Background(), "1"); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v; want the whole call to end after 120ms", err)
		}
		if d := time.Since(start); d > 350*time.Millisecond || hits.Load() != 1 {
			t.Fatalf("the call took %v and %d attempts; want about 120ms and 1", d, hits.Load())
		}
	})
}

func TestOverrideCannotMakePOSTWithoutKeyRetry(t *testing.T) {
	// quick is the policy of every retried operation; createPets has none.
	o := overridesFile(t, `{"retries": {"quick": {"maxAttempts": 5, "retryOn": ["5xx"]}}}`)
	s := newServer(t, ``, 503)
	c := newClient(t, s, WithOverrides(o))
	c.CreatePets(context.Background(), Pet{ID: 9, Name: "tom"})
	if s.hits() != 1 {
		t.Fatalf("a POST without a key was sent %d times; it must be sent once", s.hits())
	}
	// The keyed POST does take the override: 5 attempts.
	c.AdoptPet(context.Background(), "7", nil, Adoption{Owner: "ann"})
	if s.hits() != 1+5 {
		t.Fatalf("AdoptPet made %d attempts; want the override's 5", s.hits()-1)
	}
	// And an operation override has no key that names a retry policy.
	_, err := runtime.ParseOverrides([]byte(`{"operations": {"createPets": {"retry": "quick"}}}`))
	if err == nil || !strings.Contains(err.Error(), `operation "createPets": unknown key "retry"`) {
		t.Fatalf("got %v; want an unknown-key error", err)
	}
}

func TestOverrideMistakesFailNewClient(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"unknown breaker", `{"breakers": {"petz": {"minimumCalls": 2}}}`,
			`overrides: this client has no breaker "petz"; did you mean "pets"?`},
		{"unknown retry policy", `{"retries": {"fast": {"maxAttempts": 1}}}`,
			`overrides: this client has no retry policy "fast" (it has quick)`},
		{"unknown operation", `{"operations": {"showPet": {"timeout": "1s"}}}`,
			`overrides: this client has no operation "showPet"; did you mean "showPetById"?`},
		{"a key the window does not read", `{"breakers": {"pets": {"windowDuration": "30s"}}}`,
			`overrides: breaker "pets": windowDuration is for time windows, but windowType is count`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := overridesFile(t, tc.doc)
			c, err := NewClient("http://127.0.0.1:1", WithOverrides(o))
			if c != nil || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, %v; want an error with %q", c, err, tc.want)
			}
		})
	}
	// Bad values and unknown keys are refused when the file is read, with
	// the file's name.
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"value out of range", `{"breakers": {"pets": {"minimumCalls": 0}}}`,
			`overrides: breaker "pets": minimumCalls must be a whole number ≥ 1, got 0`},
		{"threshold above 100", `{"breakers": {"pets": {"failureRateThreshold": 150}}}`,
			`overrides: breaker "pets": failureRateThreshold must be a percentage in (0, 100], got 150`},
		{"misspelt key", `{"breakers": {"pets": {"minimumCall": 2}}}`,
			`overrides: breaker "pets": unknown key "minimumCall" in breaker policy; did you mean "minimumCalls"?`},
		{"duration without unit", `{"operations": {"listPets": {"timeout": 5}}}`,
			`overrides: operation "listPets": timeout must be a duration, got 5`},
		{"misspelt section", `{"breaker": {"pets": {}}}`,
			`overrides: unknown key "breaker"; the keys are breakers, retries, operations; did you mean "breakers"?`},
		{"not JSON", `breakers: {}`, `overrides: invalid character`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ops.json")
			os.WriteFile(path, []byte(tc.doc), 0o600)
			o, err := runtime.LoadOverrides(path)
			if o != nil || err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), path+": ") {
				t.Fatalf("got %v; want an error starting with the path, with %q", err, tc.want)
			}
		})
	}
}
