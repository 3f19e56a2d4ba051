//go:build !resgen_otel

// TODO(merge): delete this file when otel.go loses its build tag.

package main

import "github.com/resgen/resgen/runtime"

// newObserver is no observer until the otel module is merged (otel.go).
func newObserver() (runtime.Observer, func(map[string]*runtime.Breaker), error) {
	return nil, func(map[string]*runtime.Breaker) {}, nil
}
