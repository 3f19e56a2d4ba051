package main

import (
	resgenotel "github.com/resgen/resgen/otel"
	"github.com/resgen/resgen/runtime"
)

// newObserver is the OpenTelemetry observer of both clients: a span per
// call with one per attempt, and the call, attempt, retry and rejection
// metrics. It uses the global providers (otel.SetTracerProvider,
// otel.SetMeterProvider): install your SDK's before calling it.
func newObserver() (runtime.Observer, func(map[string]*runtime.Breaker), error) {
	obs, err := resgenotel.New()
	if err != nil {
		return nil, nil, err
	}
	return obs, obs.AddBreakers, nil
}
