package resgenredis_test

// TEMPORARY until runtime.Fleet, resgenredis.NewFleet and lab.WithFleet
// are merged: the fleet variants report errFleetPending and are skipped.

import (
	"errors"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/resgen/resgen/golden/lab"
)

var errFleetPending = errors.New("the fleet is not merged yet")

// fleetOption makes a lab client one replica of the fleet prefix on rdb:
// its option and its Fleet's Close.
func fleetOption(rdb *redis.Client, prefix string, sync time.Duration, log *slog.Logger) (lab.Option, func() error, error) {
	return nil, nil, errFleetPending
}
