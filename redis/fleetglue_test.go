package resgenredis_test

import (
	"errors"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/resgen/resgen/golden/lab"
	resgenredis "github.com/resgen/resgen/redis"
	"github.com/resgen/resgen/runtime"
)

// TEMPORARY until lab.WithFleet (the generated option) is merged.
var errFleetPending = errors.New("the generated WithFleet is not merged yet")

// fleetOption makes a lab client one replica of the fleet prefix on rdb:
// its option and its Fleet's Close.
func fleetOption(rdb *redis.Client, prefix string, sync time.Duration, log *slog.Logger) (lab.Option, func() error, error) {
	if rdb == nil {
		return nil, nil, errFleetPending
	}
	st, err := resgenredis.NewStore(rdb, prefix)
	if err != nil {
		return nil, nil, err
	}
	f := runtime.NewFleet(st, runtime.FleetOptions{SyncInterval: sync, Logger: log})
	_ = f
	return nil, f.Close, errFleetPending
}
