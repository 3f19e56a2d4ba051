// Package service is a small HTTP service that calls two downstreams, an
// inventory API and a billing API, through clients resgen generated
// (../clients). It shows a consumer's side of a generated client: per-call
// options, and the error rule of docs/errors.md deciding, per downstream,
// whether the page fails or is shown without that part.
package service

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/resgen/resgen/examples/clients/billing"
	"github.com/resgen/resgen/examples/clients/inventory"
	"github.com/resgen/resgen/runtime"
)

// AttemptHeader carries the attempt number (1, 2, ...) of each request to
// the inventory, so its logs tell a retry from a first try.
const AttemptHeader = "X-Attempt"

// Service answers GET /dashboard, POST /invoices and GET /healthz. Make
// one and share it: the clients' breakers protect only calls that share
// them.
type Service struct {
	Inventory *inventory.Client
	Billing   *billing.Client
}

// New makes the clients of the two downstreams at these base URLs, sharing
// the logger (breaker state changes, with their reasons) and, when not nil,
// the observer (resgenotel's, for tracing and metrics).
func New(inventoryURL, billingURL string, logger *slog.Logger, o runtime.Observer) (*Service, error) {
	inv, err := inventory.NewClient(inventoryURL, inventory.WithLogger(logger), inventory.WithObserver(o))
	if err != nil {
		return nil, fmt.Errorf("inventory client: %w", err)
	}
	bill, err := billing.NewClient(billingURL, billing.WithLogger(logger), billing.WithObserver(o))
	if err != nil {
		return nil, fmt.Errorf("billing client: %w", err)
	}
	return &Service{Inventory: inv, Billing: bill}, nil
}

// Dashboard is the answer to GET /dashboard?account=ID. A downstream that
// cannot answer leaves its part empty and says why in Degraded.
type Dashboard struct {
	Items    []inventory.Item `json:"items"`
	Balance  *billing.Balance `json:"balance,omitempty"`
	Degraded []string         `json:"degraded,omitempty"`
}

// Handler routes the service's endpoints.
func (s *Service) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /dashboard", s.dashboard)
	mux.HandleFunc("POST /invoices", s.invoice)
	mux.HandleFunc("GET /healthz", s.healthz)
	return mux
}

func (s *Service) dashboard(w http.ResponseWriter, r *http.Request) {
	account := r.URL.Query().Get("account")
	if account == "" {
		http.Error(w, "account is required", http.StatusBadRequest)
		return
	}
	var (
		view           Dashboard
		invErr, balErr error
		items          *inventory.ListItemsResponse
		balance        *billing.GetBalanceResponse
		limit          = int32(20)
		wg             sync.WaitGroup
	)
	// The two downstreams are independent: call them at once.
	wg.Go(func() {
		items, invErr = s.Inventory.ListItems(r.Context(), &inventory.ListItemsParams{Limit: &limit},
			runtime.WithAttemptHeader(AttemptHeader))
	})
	wg.Go(func() {
		// At most two attempts: a person is waiting, and the overlay
		// already bounds each attempt by 300ms.
		balance, balErr = s.Billing.GetBalance(r.Context(), account, runtime.WithMaxAttempts(2))
	})
	wg.Wait()

	if invErr == nil {
		view.Items = items.JSON200
	} else {
		view.Degraded = append(view.Degraded, degraded("inventory", invErr))
	}
	var se *runtime.StatusError
	switch {
	case balErr == nil:
		view.Balance = balance.JSON200
	case errors.As(balErr, &se) && se.StatusCode == http.StatusNotFound:
		// The caller's mistake, not an outage: the whole page is a 404.
		msg := "no such account"
		if e, ok := se.Decoded.(*billing.Error); ok { // the same as balance.JSON404
			msg += ": " + e.Message
		}
		http.Error(w, msg, http.StatusNotFound)
		return
	default:
		view.Degraded = append(view.Degraded, degraded("billing", balErr))
	}
	writeJSON(w, http.StatusOK, view)
}

// degraded says in one line why a downstream's part is missing, by the
// error rule: an open breaker (nothing was sent), an answer of 400 or
// more, or no answer at all.
func degraded(downstream string, err error) string {
	var (
		open *runtime.CircuitOpenError
		se   *runtime.StatusError
		ce   *runtime.CallError
	)
	switch {
	case errors.As(err, &open): // errors.Is(err, runtime.ErrCircuitOpen)
		return fmt.Sprintf("%s: circuit open, not called until %s", downstream, open.RetryAt.UTC().Format(time.RFC3339))
	case errors.As(err, &se):
		return fmt.Sprintf("%s: status %d after %d attempts (%v)", downstream, se.StatusCode, se.Attempts, se.Stop)
	case errors.As(err, &ce):
		return fmt.Sprintf("%s: no answer after %d attempts (%s)", downstream, ce.Attempts, ce.Reason)
	default:
		return downstream + ": " + err.Error()
	}
}

// invoice creates an invoice in billing. The caller's Idempotency-Key is
// passed on, so a caller that retries this POST creates one invoice, and
// the client's own retries send the same key.
func (s *Service) invoice(w http.ResponseWriter, r *http.Request) {
	var in billing.NewInvoice
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&in); err != nil {
		http.Error(w, "bad invoice: "+err.Error(), http.StatusBadRequest)
		return
	}
	params := &billing.CreateInvoiceParams{}
	if key := r.Header.Get("Idempotency-Key"); key != "" {
		params.IdempotencyKey = &key
	}
	resp, err := s.Billing.CreateInvoice(r.Context(), params, in)
	var se *runtime.StatusError
	switch {
	case err == nil:
		writeJSON(w, http.StatusCreated, resp.JSON201)
	case errors.Is(err, runtime.ErrCircuitOpen):
		// Nothing was sent: the caller may try again later with the same key.
		w.Header().Set("Retry-After", "30")
		http.Error(w, degraded("billing", err), http.StatusServiceUnavailable)
	case errors.As(err, &se) && se.StatusCode < 500:
		// Billing refused the invoice itself: pass its status on.
		http.Error(w, degraded("billing", err), se.StatusCode)
	default:
		http.Error(w, degraded("billing", err), http.StatusBadGateway)
	}
}

// healthz lists every breaker of both clients and its state, from the
// clients' Breakers(): right on an idle client too.
func (s *Service) healthz(w http.ResponseWriter, _ *http.Request) {
	states := map[string]string{}
	for _, bs := range []map[string]*runtime.Breaker{s.Inventory.Breakers(), s.Billing.Breakers()} {
		for name, b := range bs {
			states[name] = b.State().String()
		}
	}
	status := http.StatusOK
	for _, state := range states {
		if state != runtime.StateClosed.String() {
			status = http.StatusServiceUnavailable
		}
	}
	writeJSON(w, status, states)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
