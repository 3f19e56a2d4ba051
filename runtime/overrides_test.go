package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func mustOverrides(t *testing.T, doc string) *Overrides {
	t.Helper()
	o, err := ParseOverrides([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestOverridesChangeOnlyTheKeysGiven: an override adjusts a policy key by
// key; operations sharing a retry policy keep sharing one; an operation
// without retries gets none; the caller's policy values are not changed.
func TestOverridesChangeOnlyTheKeysGiven(t *testing.T) {
	o := mustOverrides(t, `{
		"breakers": {"b": {"windowType": "time", "windowDuration": "30s", "recordOn": [503]}},
		"retries": {"r": {"maxAttempts": 2, "jitter": "none", "budget": {"ratio": 0.5}}},
		"operations": {"one": {"timeout": 0, "idleTimeout": "5s", "resume": true}, "post": {"totalTimeout": "1s"}}
	}`)
	e := newEngine(config{Overrides: o})
	bp := DefaultBreakerPolicy()
	b := e.Breaker("b", bp)
	got := b.Policy()
	if got.WindowType != TimeWindow || got.WindowDuration != 30*time.Second || !got.RecordOn.status(503) || got.RecordOn.status(500) || got.RecordOn.Transport {
		t.Fatalf("breaker policy %+v", got)
	}
	if got.MinimumCalls != bp.MinimumCalls || got.FailureRateThreshold != bp.FailureRateThreshold {
		t.Fatalf("keys not given changed: %+v", got)
	}
	if bp.WindowType != CountWindow {
		t.Fatal("the caller's policy was changed")
	}
	if e.Breaker("b", bp) != b {
		t.Fatal("a shared breaker is made once")
	}

	rp := DefaultRetryPolicy()
	rp.Policy = "r"
	one := e.operation(operationSpec{Name: "one", Method: "GET", Breaker: b, Retry: &rp, Timeout: time.Second, TotalTimeout: time.Minute})
	two := e.operation(operationSpec{Name: "two", Method: "GET", Breaker: b, Retry: &rp, Timeout: time.Second})
	post := e.operation(operationSpec{Name: "post", Method: "POST", Breaker: b, Timeout: time.Second})
	if err := e.CheckOverrides(); err != nil {
		t.Fatal(err)
	}
	r1, r2 := one.spec.Retry, two.spec.Retry
	if r1 != r2 || r1 == &rp {
		t.Fatal("operations sharing a policy must share its one overridden copy")
	}
	if r1.MaxAttempts != 2 || r1.Jitter != NoJitter || r1.Budget == nil || r1.Budget.Ratio != 0.5 || r1.Budget.MinPerSecond != 10 || r1.InitialInterval != rp.InitialInterval {
		t.Fatalf("retry policy %+v, budget %+v", r1, r1.Budget)
	}
	if rp.MaxAttempts != 3 || rp.Budget != nil {
		t.Fatal("the caller's retry policy was changed")
	}
	if one.spec.Timeout != 0 || one.spec.TotalTimeout != time.Minute || two.spec.Timeout != time.Second {
		t.Fatalf("timeouts: one %v/%v, two %v", one.spec.Timeout, one.spec.TotalTimeout, two.spec.Timeout)
	}
	if one.spec.IdleTimeout != 5*time.Second || !one.spec.Resume || two.spec.Resume || post.spec.IdleTimeout != 0 {
		t.Fatalf("stream keys: one %v/%v, two resume %v, post idle %v", one.spec.IdleTimeout, one.spec.Resume, two.spec.Resume, post.spec.IdleTimeout)
	}
	if post.spec.Retry != nil || post.spec.TotalTimeout != time.Second {
		t.Fatalf("post: retry %v, totalTimeout %v; an override never adds retries", post.spec.Retry, post.spec.TotalTimeout)
	}
}

func TestOverridesRefuseWhatTheyCannotDo(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`[]`, "cannot unmarshal array"},
		{`null`, "must be a JSON object"},
		{`{} {}`, "more than one JSON value"},
		{`{"retries": {"r": {"maxAttempts": 1, "maxAttempts": 5}}}`, `overrides: "maxAttempts" is given twice in retries.r`},
		{`{"breakers": {}, "breakers": {"b": {}}}`, `overrides: "breakers" is given twice in the document`},
		{`{"breakers": []}`, "overrides: breakers must be an object of names, got a list"},
		{`{"retries": {"r": 3}}`, `overrides: retry policy "r" must be an object, got 3`},
		{`{"retries": {"r": {"extends": "x"}}}`, `overrides: retry policy "r": unknown key "extends" in retry policy`},
		{`{"breakers": {"b": {"scope": "operation"}}}`, `unknown key "scope" in breaker policy`},
		{`{"retries": {"r": {"budget": {"rate": 1}}}}`, `overrides: retry policy "r": unknown key "rate" in budget; did you mean "ratio"?`},
		{`{"operations": {"op": {"resume": "yes"}}}`, `resume must be true or false, got "yes"`},
		{`{"operations": {"op": {"idleTimeout": "5"}}}`, `idleTimeout`},
		{`{"breakers": {"b": {"windowDuration": "2h", "windowType": "time"}}}`, `windowDuration must be at most 1h, got 2h (fix: a time window holds one bucket per second: use at most 1h)`},
	} {
		if _, err := ParseOverrides([]byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v; want %q", tc.doc, err, tc.want)
		}
	}
	// Every mistake is reported, not only the first.
	_, err := ParseOverrides([]byte(`{"breakers": {"b": {"minimumCalls": 0, "halfOpenCalls": 0}}, "retries": {"r": {"multiplier": 0}}}`))
	if err == nil || strings.Count(err.Error(), "\n") != 2 {
		t.Errorf("got %v; want three errors", err)
	}

	// What depends on the client is refused when it is built.
	o := mustOverrides(t, `{"breakers": {"b": {"windowSize": 5}, "c": {}}, "retries": {"r": {}}, "operations": {"op": {}}}`)
	e := newEngine(config{Overrides: o})
	p := DefaultBreakerPolicy()
	p.WindowType = TimeWindow
	e.Breaker("b", p)
	err = e.CheckOverrides()
	for _, want := range []string{
		`overrides: breaker "b": windowSize is for count windows, but windowType is time`,
		`overrides: this client has no breaker "c"; did you mean "b"?`,
		`overrides: this client has no retry policy "r" (it has no retry policy)`,
		`overrides: this client has no operation "op"`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v; want %q", err, want)
		}
	}
	if e.Breaker("b", p).Policy().WindowSize != p.WindowSize {
		t.Error("a refused override must not change the policy")
	}
	if newEngine(config{}).CheckOverrides() != nil {
		t.Error("no overrides, no error")
	}
}

// TestOverridesNoCostWithout: an Engine without overrides registers an
// operation as before, without allocating for them.
func TestOverridesNoCostWithout(t *testing.T) {
	e := newEngine(config{})
	rp := DefaultRetryPolicy()
	if e.ov != nil {
		t.Fatal("override state without overrides")
	}
	op := e.operation(operationSpec{Name: "x", Method: "GET", Retry: &rp})
	if op.spec.Retry != &rp {
		t.Fatal("the policy was copied without overrides")
	}
}

// TestLoadOverridesIsBounded: LoadOverrides refuses, naming the file, what
// is larger than MaxOverridesBytes without reading it whole (a sparse file
// over the bound, /dev/zero, which never ends), and reads a document of
// exactly MaxOverridesBytes.
func TestLoadOverridesIsBounded(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxOverridesBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	paths := []string{big}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths = append(paths, "/dev/zero")
	}
	for _, p := range paths {
		o, err := LoadOverrides(p)
		if o != nil || err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") || !strings.HasPrefix(err.Error(), p+": ") {
			t.Errorf("LoadOverrides(%s) = %v, %v; want an error naming the file and the 1 MiB bound", p, o, err)
		}
	}
	full := filepath.Join(dir, "full.json")
	doc := `{"retries": {"r": {"maxAttempts": 2}}}`
	if err := os.WriteFile(full, []byte(doc+strings.Repeat(" ", MaxOverridesBytes-len(doc))), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOverrides(full); err != nil {
		t.Errorf("a file of exactly MaxOverridesBytes: %v", err)
	}
}
