package runtime

// TEMPORARY first-cut stub: replaced by the real breaker/retry engine.

import (
	"context"
	"net/http"
)

// Engine runs the operations of one client.
type Engine struct {
	cfg Config
}

// NewEngine builds the engine of one client.
func NewEngine(cfg Config) *Engine {
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	return &Engine{cfg: cfg}
}

// Breaker returns the engine's breaker instance with this name, creating it
// with p on first use.
func (e *Engine) Breaker(name string, p BreakerPolicy) *Breaker { return &Breaker{name: name} }

// Breaker is one circuit breaker instance.
type Breaker struct{ name string }

// Operation registers one API operation.
func (e *Engine) Operation(spec OperationSpec) *Operation { return &Operation{e: e, spec: spec} }

// Operation is one API operation with its resolved policy.
type Operation struct {
	e    *Engine
	spec OperationSpec
}

// Do runs one logical call. It returns the last attempt's response, or an
// error when there was none to return, and the number of attempts made.
func (op *Operation) Do(ctx context.Context, req *http.Request) (*http.Response, int, error) {
	for _, ed := range op.e.cfg.RequestEditors {
		if err := ed(ctx, req); err != nil {
			return nil, 0, err
		}
	}
	resp, err := op.e.cfg.HTTPClient.Do(req.WithContext(ctx))
	return resp, 1, err
}

// Observer receives events.
type Observer interface{}

// NewIdempotencyKey returns a random UUID v4 string.
func NewIdempotencyKey() string { return "00000000-0000-4000-8000-000000000000" }
