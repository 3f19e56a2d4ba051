package resgenredis

import (
	"testing"

	"github.com/resgen/resgen/redis/redistest"
	"github.com/resgen/resgen/runtime"
	"github.com/resgen/resgen/runtime/fleettest"
)

// TestConformance runs the FleetStore conformance suite on one real
// redis-server: each store is a Store with a client of its own, as each
// replica has.
func TestConformance(t *testing.T) {
	srv := redistest.Start(t)
	fleettest.Run(t, func(t *testing.T, prefix string) runtime.FleetStore {
		s, err := NewStore(srv.Client(), prefix)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
