package service_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resgen/resgen/examples/clients/billing"
	"github.com/resgen/resgen/examples/clients/inventory"
	"github.com/resgen/resgen/examples/service"
	"github.com/resgen/resgen/runtime"
)

// downstream is a loopback server that records every request it gets.
type downstream struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

func newDownstream(t *testing.T, h http.HandlerFunc) *downstream {
	t.Helper()
	d := &downstream{}
	d.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		d.reqs = append(d.reqs, r.Clone(r.Context()))
		d.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(d.Close)
	return d
}

func (d *downstream) requests() []*http.Request {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]*http.Request(nil), d.reqs...)
}

// headers is the value of header name in each request so far, in order.
func (d *downstream) headers(name string) []string {
	var vs []string
	for _, r := range d.requests() {
		vs = append(vs, r.Header.Get(name))
	}
	return vs
}

func items(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, []inventory.Item{{Sku: "sku-1", Name: "Widget", InStock: 3}})
}

func balance(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, billing.Balance{AccountID: r.PathValue("id"), Cents: 1250, Currency: "EUR"})
}

// failing answers status to the first n requests, then hands over to next.
func failing(n int, status int, next http.HandlerFunc) http.HandlerFunc {
	var seen atomic.Int32
	return func(w http.ResponseWriter, r *http.Request) {
		if int(seen.Add(1)) <= n {
			writeJSON(w, status, billing.Error{Message: "busy"})
			return
		}
		next(w, r)
	}
}

// hangUp is a dead downstream: it drops every connection without an answer.
func hangUp(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func billingMux(balanceH, invoiceH http.HandlerFunc) http.HandlerFunc {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /accounts/{id}/balance", balanceH)
	if invoiceH != nil {
		mux.HandleFunc("POST /invoices", invoiceH)
	}
	return mux.ServeHTTP
}

// start runs the service against the two downstreams and returns its URL.
func start(t *testing.T, inv, bill *downstream) (*service.Service, string) {
	t.Helper()
	s, err := service.New(inv.URL, bill.URL, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return s, srv.URL
}

func getDashboard(t *testing.T, url string) (int, service.Dashboard) {
	t.Helper()
	resp, err := http.Get(url + "/dashboard?account=acct-7")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var d service.Dashboard
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(body, &d); err != nil {
			t.Fatalf("dashboard: %v: %s", err, body)
		}
	} else {
		d.Degraded = []string{strings.TrimSpace(string(body))}
	}
	return resp.StatusCode, d
}

func TestDashboardHealthy(t *testing.T) {
	inv := newDownstream(t, items)
	bill := newDownstream(t, billingMux(balance, nil))
	_, url := start(t, inv, bill)

	status, d := getDashboard(t, url)
	if status != http.StatusOK || len(d.Degraded) != 0 {
		t.Fatalf("status %d, degraded %q", status, d.Degraded)
	}
	if len(d.Items) != 1 || d.Items[0].Sku != "sku-1" || d.Balance == nil || d.Balance.AccountID != "acct-7" || d.Balance.Cents != 1250 {
		t.Fatalf("dashboard: %+v (balance %+v)", d, d.Balance)
	}
	// One attempt each; the per-call option numbers the inventory's.
	if got := inv.headers(service.AttemptHeader); len(got) != 1 || got[0] != "1" {
		t.Errorf("inventory attempts: %q, want [1]", got)
	}
	if got := inv.requests()[0].URL.Query().Get("limit"); got != "20" {
		t.Errorf("limit = %q, want 20", got)
	}
	if n := len(bill.requests()); n != 1 {
		t.Errorf("billing requests: %d, want 1", n)
	}
}

// A downstream answering 503 and then recovering: the client's retries
// make the page whole, and the downstream sees them.
func TestDashboardRetriesUntilRecovered(t *testing.T) {
	inv := newDownstream(t, failing(2, http.StatusServiceUnavailable, items))
	bill := newDownstream(t, billingMux(failing(1, http.StatusServiceUnavailable, balance), nil))
	_, url := start(t, inv, bill)

	status, d := getDashboard(t, url)
	if status != http.StatusOK || len(d.Degraded) != 0 || len(d.Items) != 1 || d.Balance == nil {
		t.Fatalf("status %d, dashboard %+v", status, d)
	}
	if got := strings.Join(inv.headers(service.AttemptHeader), ","); got != "1,2,3" {
		t.Errorf("inventory attempts: %s, want 1,2,3", got)
	}
	if n := len(bill.requests()); n != 2 {
		t.Errorf("billing requests: %d, want 2", n)
	}
}

// The per-call WithMaxAttempts(2) lowers billing's 3 attempts; the page is
// shown without the balance, and says why by the StatusError.
func TestDashboardDegradesOnStatusError(t *testing.T) {
	inv := newDownstream(t, items)
	bill := newDownstream(t, billingMux(failing(100, http.StatusServiceUnavailable, balance), nil))
	_, url := start(t, inv, bill)

	status, d := getDashboard(t, url)
	if status != http.StatusOK || d.Balance != nil || len(d.Items) != 1 {
		t.Fatalf("status %d, dashboard %+v", status, d)
	}
	want := "billing: status 503 after 2 attempts (" + runtime.ErrAttemptsExhausted.Error() + ")"
	if len(d.Degraded) != 1 || d.Degraded[0] != want {
		t.Errorf("degraded %q, want [%q]", d.Degraded, want)
	}
	if n := len(bill.requests()); n != 2 {
		t.Errorf("billing requests: %d, want 2", n)
	}
}

// A 404 is the caller's mistake, not an outage: the page is a 404 too,
// with the message of the declared error body.
func TestDashboardNoSuchAccount(t *testing.T) {
	inv := newDownstream(t, items)
	bill := newDownstream(t, billingMux(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, billing.Error{Message: "acct-7 is closed"})
	}, nil))
	_, url := start(t, inv, bill)

	status, d := getDashboard(t, url)
	if status != http.StatusNotFound || d.Degraded[0] != "no such account: acct-7 is closed" {
		t.Fatalf("status %d, body %q", status, d.Degraded)
	}
	if n := len(bill.requests()); n != 1 {
		t.Errorf("billing requests: %d, want 1 (a 404 is not retried)", n)
	}
}

// A dead inventory opens its breaker after minimumCalls (4) failed calls;
// then the page is served at once without items and without a request to
// the inventory, while billing, behind its own breaker, is still called.
func TestDeadInventoryOpensItsBreaker(t *testing.T) {
	inv := newDownstream(t, hangUp)
	bill := newDownstream(t, billingMux(balance, nil))
	s, url := start(t, inv, bill)

	for i := range 4 {
		status, d := getDashboard(t, url)
		if status != http.StatusOK || d.Balance == nil || len(d.Degraded) != 1 ||
			!strings.HasPrefix(d.Degraded[0], "inventory: no answer after 3 attempts") {
			t.Fatalf("call %d: status %d, dashboard %+v", i+1, status, d)
		}
	}
	if got := s.Inventory.Breakers()[inventory.BreakerInventory].State(); got != runtime.StateOpen {
		t.Fatalf("inventory breaker %v after 4 dead calls, want open", got)
	}
	sent := len(inv.requests())

	start := time.Now()
	status, d := getDashboard(t, url)
	if status != http.StatusOK || d.Balance == nil || len(d.Items) != 0 || len(d.Degraded) != 1 ||
		!strings.HasPrefix(d.Degraded[0], "inventory: circuit open, not called until ") {
		t.Fatalf("open breaker: status %d, dashboard %+v", status, d)
	}
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("open breaker: page took %v; it should fail fast", elapsed)
	}
	if n := len(inv.requests()); n != sent {
		t.Errorf("inventory got %d requests while its breaker was open", n-sent)
	}
	if n := len(bill.requests()); n != 5 {
		t.Errorf("billing requests: %d, want 5", n)
	}

	resp, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var states map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&states); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusServiceUnavailable || states[inventory.BreakerInventory] != "open" || states[billing.BreakerBilling] != "closed" {
		t.Errorf("healthz: %d %v", resp.StatusCode, states)
	}
}

// The overlay tightens getBalance to 300ms an attempt: a balance taking
// 600ms is left out (two timed-out attempts) where the spec's 1s would
// have waited for it.
func TestOverlayTimeoutBoundsSlowBalance(t *testing.T) {
	inv := newDownstream(t, items)
	bill := newDownstream(t, billingMux(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(600 * time.Millisecond):
			balance(w, r)
		case <-r.Context().Done():
		}
	}, nil))
	_, url := start(t, inv, bill)

	start := time.Now()
	status, d := getDashboard(t, url)
	elapsed := time.Since(start)
	if status != http.StatusOK || d.Balance != nil || len(d.Items) != 1 || len(d.Degraded) != 1 ||
		!strings.HasPrefix(d.Degraded[0], "billing: no answer after 2 attempts") {
		t.Fatalf("status %d, dashboard %+v", status, d)
	}
	if elapsed < 600*time.Millisecond || elapsed > 1200*time.Millisecond {
		t.Errorf("page took %v, want two 300ms attempts", elapsed)
	}
}

// POST /invoices passes the caller's Idempotency-Key on, and without one
// the client makes one: either way its retry of the 503 sends the same
// key, so billing, which turns away each key's first try, makes one
// invoice per POST.
func TestInvoiceKeepsItsKeyAcrossRetries(t *testing.T) {
	var (
		mu   sync.Mutex
		seen = map[string]bool{}
		made int
	)
	create := func(w http.ResponseWriter, r *http.Request) {
		var in billing.NewInvoice
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		key := r.Header.Get("Idempotency-Key")
		mu.Lock()
		first := !seen[key]
		seen[key] = true
		if !first {
			made++
		}
		mu.Unlock()
		if first {
			writeJSON(w, http.StatusServiceUnavailable, billing.Error{Message: "busy"})
			return
		}
		writeJSON(w, http.StatusCreated, billing.Invoice{ID: "inv-" + key, AccountID: in.AccountID, Cents: in.Cents})
	}
	inv := newDownstream(t, items)
	bill := newDownstream(t, billingMux(balance, create))
	_, url := start(t, inv, bill)

	for _, key := range []string{"order-42", ""} {
		before := len(bill.requests())
		req, err := http.NewRequest(http.MethodPost, url+"/invoices", strings.NewReader(`{"accountId":"acct-7","cents":990}`))
		if err != nil {
			t.Fatal(err)
		}
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got billing.Invoice
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusCreated || got.Cents != 990 {
			t.Fatalf("key %q: status %d, invoice %+v, %v", key, resp.StatusCode, got, err)
		}
		keys := bill.headers("Idempotency-Key")[before:]
		if len(keys) != 2 || keys[0] != keys[1] || keys[0] == "" || key != "" && keys[0] != key {
			t.Errorf("caller's key %q: billing saw keys %q, want the same key twice", key, keys)
		}
	}
	if made != 2 {
		t.Errorf("billing made %d invoices, want 2 (one per POST)", made)
	}
}
