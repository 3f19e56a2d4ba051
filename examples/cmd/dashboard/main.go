// Command dashboard serves the example service: GET /dashboard?account=ID
// from the inventory and billing APIs at -inventory and -billing.
package main

import (
	"flag"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/resgen/resgen/examples/service"
)

func main() {
	addr := flag.String("addr", "localhost:8080", "listen `address`")
	invURL := flag.String("inventory", "http://localhost:8081", "the inventory API's base `URL`")
	billURL := flag.String("billing", "http://localhost:8082", "the billing API's base `URL`")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))

	obs, addBreakers, err := newObserver()
	if err != nil {
		logger.Error("telemetry", "err", err)
		os.Exit(1)
	}
	s, err := service.New(*invURL, *billURL, logger, obs)
	if err != nil {
		logger.Error("clients", "err", err)
		os.Exit(1)
	}
	// The breaker-state gauge reads the breakers themselves, so it is
	// right on an idle client too.
	addBreakers(s.Inventory.Breakers())
	addBreakers(s.Billing.Breakers())

	srv := &http.Server{Addr: *addr, Handler: s.Handler(), ReadHeaderTimeout: 5 * time.Second}
	logger.Info("listening", "addr", *addr)
	if err := srv.ListenAndServe(); err != nil {
		logger.Error("serve", "err", err)
		os.Exit(1)
	}
}
