package resgenredis_test

import (
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/resgen/resgen/golden/lab"
	resgenredis "github.com/resgen/resgen/redis"
	"github.com/resgen/resgen/runtime"
)

// fleetOption makes a lab client one replica of the fleet prefix on rdb:
// its WithFleet option and its Fleet's Close.
func fleetOption(rdb *redis.Client, prefix string, sync time.Duration, log *slog.Logger) (lab.Option, func() error, error) {
	st, err := resgenredis.NewStore(rdb, prefix)
	if err != nil {
		return nil, nil, err
	}
	f := runtime.NewFleet(st, runtime.FleetOptions{SyncInterval: sync, Logger: log})
	return lab.WithFleet(f), f.Close, nil
}
