package runtime

// PLACEHOLDER for helper "fleet"'s runtime/fleet.go, so that the generated
// WithFleet option and the lab compile on this branch; the coordinator drops
// this commit at merge.

import (
	"log/slog"
	"time"
)

// Fleet is a replica's connection to a fleet store (placeholder).
type Fleet struct{ store FleetStore }

// FleetOptions tune a Fleet (placeholder).
type FleetOptions struct {
	SyncInterval, Timeout, PermitLease time.Duration
	Logger                             *slog.Logger
}

// NewFleet returns a Fleet on store (placeholder: it shares nothing).
func NewFleet(store FleetStore, opt FleetOptions) *Fleet { return &Fleet{store: store} }

// Close stops the Fleet (placeholder).
func (f *Fleet) Close() error { return nil }

// NewMemoryFleetStore returns a store in one process (placeholder).
func NewMemoryFleetStore() FleetStore { return nil }
