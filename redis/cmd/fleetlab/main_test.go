package main

import (
	"bytes"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/resgen/resgen/generator"
	"github.com/resgen/resgen/redis/redistest"
	"github.com/resgen/resgen/tools/lab"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// labSpeed keeps a run at about 4 s of wall time; the fleet then syncs
// every 20 ms, each Sync bounded by 10 ms, which loopback Redis keeps.
const labSpeed = 5

// TestOutageOnRedis runs the outage lab with 10 replicas whose fleet is
// in a real redis-server, and checks what the fleet is for against the
// same replicas with local breakers: fewer calls spent on the dead
// server, sooner stopped, and halfOpenCalls trial calls at recovery in
// all against each replica's own. It leaves no key behind.
func TestOutageOnRedis(t *testing.T) {
	srv := redistest.Start(t)
	tg, err := lab.Resolve(t.Context(), generator.Config{Spec: "../../../testdata/specs/lab.yaml"}, "getStatus")
	if err != nil {
		t.Fatal(err)
	}
	stores, err := newStores(srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	const replicas = 10
	rep, err := lab.Run(t.Context(), "outage", tg, lab.Options{Speed: labSpeed, Replicas: replicas, Fleet: stores, FleetAbout: "redis"})
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Results.(lab.OutageResults)
	local, fleet := res.Strategies[0], res.Strategies[1]
	if local.Name != "local" || fleet.Name != "fleet" {
		t.Fatalf("strategies %s, %s", local.Name, fleet.Name)
	}
	for _, s := range res.Strategies {
		// A request to the dead server that is neither a trial nor
		// admitted before the open is a leak, unless a Sync did not
		// answer in time and the local breakers decided meanwhile (the
		// fallback working, which a loaded machine can cause).
		if s.StoppedAfterS == nil || s.RecoveredAfterS == nil || (s.DeadOther != 0 && s.StoreFallbacks == 0) {
			t.Fatalf("%s: %+v", s.Name, s)
		}
		if s.StoreFallbacks > 0 {
			t.Logf("%s: %d fallbacks to local breakers, %d other requests to the dead server", s.Name, s.StoreFallbacks, s.DeadOther)
		}
		t.Logf("%s: dead calls %d (requests %d), stopped after %.2fs, recovery trials %d, refused while healthy %d",
			s.Name, s.DeadCalls, s.DeadRequests, *s.StoppedAfterS, s.RecoveryTrials, s.RefusedWhileUp)
	}
	if 2*fleet.DeadCalls > local.DeadCalls {
		t.Errorf("fleet: %d calls reached the dead server, want at most half of local's %d", fleet.DeadCalls, local.DeadCalls)
	}
	if *fleet.StoppedAfterS >= *local.StoppedAfterS {
		t.Errorf("fleet stopped calling after %.2fs, local %.2fs: want sooner", *fleet.StoppedAfterS, *local.StoppedAfterS)
	}
	h := tg.Breaker.HalfOpenCalls
	if local.RecoveryTrials != replicas*h || fleet.RecoveryTrials < 1 || fleet.RecoveryTrials > h {
		t.Errorf("trial calls at recovery: local %d, fleet %d; want %d and 1 to %d", local.RecoveryTrials, fleet.RecoveryTrials, replicas*h, h)
	}
	if keys, err := srv.Client().Keys(t.Context(), "resgen-fleetlab:*").Result(); err != nil || len(keys) != 0 {
		t.Errorf("keys left: %q (%v)", keys, err)
	}
}

// TestRun: the command prints the lab's replicas table, and refuses bad
// flags with exit status 2 and one line.
func TestRun(t *testing.T) {
	srv := redistest.Start(t)
	var out, errs bytes.Buffer
	code := run(t.Context(), []string{"-redis", srv.Addr(), "-spec", "../../../testdata/specs/lab.yaml", "-replicas", "3", "-down", "2s", "-speed", "20"}, &out, &errs)
	if code != 0 || !strings.Contains(out.String(), "\n3 replicas: local breakers and a fleet\n") || !strings.Contains(out.String(), "Redis ") {
		t.Fatalf("exit %d, stdout %s, stderr %s", code, out.String(), errs.String())
	}
	for _, args := range [][]string{
		{},
		{"-redis", srv.Addr(), "-replicas", "0"},
		{"-redis", srv.Addr(), "-replicas", "101"},
		{"-redis", srv.Addr(), "-speed", "0.5"},
		{"-redis", srv.Addr(), "extra"},
	} {
		out.Reset()
		errs.Reset()
		if code := run(t.Context(), args, &out, &errs); code != 2 || out.Len() != 0 || strings.Count(errs.String(), "\n") != 1 || !strings.HasPrefix(errs.String(), "fleetlab: ") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and one line", args, code, out.String(), errs.String())
		}
	}
}
