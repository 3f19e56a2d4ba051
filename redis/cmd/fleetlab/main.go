// Command fleetlab runs resgen lab's outage scenario with replicas whose
// breakers share state through Redis (resgenredis), against the same
// replicas with local breakers: the numbers of docs/fleet.md and the note.
//
//	go run ./cmd/fleetlab -redis 127.0.0.1:6390 [-spec FILE] [-op ID] [-replicas N] [-speed N] [-down D] [-compare] [-o DIR]
//
// It runs from the redis module's folder; -spec defaults to the lab spec
// of the main module (../testdata/specs/lab.yaml). The Redis server must
// be one the run may write to: every run uses a prefix of its own,
// resgen-fleetlab:<random>:<n>, and deletes its keys at the end.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/resgen/resgen/generator"
	resgenredis "github.com/resgen/resgen/redis"
	"github.com/resgen/resgen/runtime"
	"github.com/resgen/resgen/tools/lab"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// maxReplicas is resgen lab's bound on -replicas.
const maxReplicas = 100

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fleetlab", flag.ContinueOnError)
	// A mistake is one line of ours; -h prints the flags.
	fs.SetOutput(io.Discard)
	addr := fs.String("redis", "", "the Redis server's `host:port` (required)")
	spec := fs.String("spec", "../testdata/specs/lab.yaml", "the spec `FILE`")
	op := fs.String("op", "getStatus", "the `OPERATION_ID` to run")
	replicas := fs.Int("replicas", 10, "how many replicas, 1 to 100")
	speed := fs.Float64("speed", 1, "divide every duration by `N` (1 to 1000)")
	down := fs.Duration("down", 0, "how long the server is down (default: the scenario's 10s)")
	compare := fs.Bool("compare", false, "add the single-client alternatives (no breaker, swapped)")
	out := fs.String("o", "", "also write report.md, results.json and the plots into `DIR`")
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "fleetlab: %s\n", strings.ReplaceAll(fmt.Sprintf(format, a...), "\n", " "))
		return 2
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "Usage: fleetlab -redis HOST:PORT [-spec FILE] [-op ID] [-replicas N] [-speed N] [-down D] [-compare] [-o DIR]")
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return 0
		}
		return bad("%v", err)
	}
	switch {
	case *addr == "":
		return bad("missing -redis host:port (e.g. a redis-server --port 6390 --save '' --appendonly no)")
	case fs.NArg() > 0:
		return bad("unexpected argument %q", fs.Arg(0))
	case *replicas < 1 || *replicas > maxReplicas:
		return bad("-replicas must be from 1 to %d, not %d", maxReplicas, *replicas)
	case !(*speed >= 1 && *speed <= 1000):
		return bad("-speed must be from 1 to 1000")
	case *down < 0 || *down > 10*time.Minute:
		return bad("-down must be more than 0 and at most 10m")
	}
	check := redis.NewClient(&redis.Options{Addr: *addr})
	defer check.Close()
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := check.Ping(pctx).Err(); err != nil {
		return bad("redis at %s: %v", *addr, err)
	}
	var version string
	if info, err := check.InfoMap(pctx, "server").Result(); err == nil {
		version = info["Server"]["redis_version"]
	}
	t, err := lab.Resolve(ctx, generator.Config{Spec: *spec}, *op)
	if err != nil {
		return bad("%v", err)
	}
	stores, err := newStores(*addr)
	if err != nil {
		return bad("%v", err)
	}
	o := lab.Options{Speed: *speed, Compare: *compare, Down: *down, Replicas: *replicas, Fleet: stores,
		FleetAbout: fmt.Sprintf("Redis %s at %s through resgenredis, one go-redis client per replica", version, *addr)}
	r, err := lab.Run(ctx, "outage", t, o)
	switch {
	case err == nil:
	case errors.Is(err, lab.ErrRefused), errors.Is(err, lab.ErrNotRetrySafe):
		return bad("%v", err)
	default:
		fmt.Fprintf(stderr, "fleetlab: %v\n", err)
		return 1
	}
	if err := r.Text(stdout); err != nil {
		fmt.Fprintf(stderr, "fleetlab: %v\n", err)
		return 1
	}
	if *out != "" {
		files, err := r.WriteDir(*out)
		if err != nil {
			fmt.Fprintf(stderr, "fleetlab: %v\n", err)
			return 1
		}
		for _, f := range files {
			fmt.Fprintf(stderr, "wrote %s\n", f)
		}
	}
	return 0
}

// newStores returns the lab's fleet hook on the Redis at addr: each call
// is a fleet of its own under a new prefix, each replica with its own
// go-redis client (as replicas in their own processes would have), and
// done deletes the fleet's keys and closes the clients.
func newStores(addr string) (lab.FleetStores, error) {
	var run [8]byte
	if _, err := rand.Read(run[:]); err != nil {
		return nil, err
	}
	base := "resgen-fleetlab:" + hex.EncodeToString(run[:])
	var n atomic.Int64
	return func(replicas int) ([]runtime.FleetStore, func(), error) {
		prefix := fmt.Sprintf("%s:%d", base, n.Add(1))
		clients := make([]*redis.Client, replicas)
		stores := make([]runtime.FleetStore, replicas)
		done := func() {
			if clients[0] != nil {
				deleteKeys(clients[0], prefix)
			}
			for _, c := range clients {
				if c != nil {
					c.Close()
				}
			}
		}
		for i := range clients {
			clients[i] = redis.NewClient(&redis.Options{Addr: addr})
			s, err := resgenredis.NewStore(clients[i], prefix)
			if err != nil {
				done()
				return nil, nil, err
			}
			stores[i] = s
		}
		return stores, done, nil
	}, nil
}

// deleteKeys removes the keys under prefix (the run's own).
func deleteKeys(c *redis.Client, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	iter := c.Scan(ctx, 0, prefix+":*", 100).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if len(keys) > 0 && !errors.Is(iter.Err(), context.DeadlineExceeded) {
		c.Del(ctx, keys...)
	}
}
