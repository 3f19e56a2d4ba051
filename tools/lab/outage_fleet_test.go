package lab

import (
	"strings"
	"testing"
)

// outageReplicas is the note's replica count.
const outageReplicas = 10

// TestOutageFleet runs the outage with 10 replicas, with local breakers
// and with a fleet on the memory store, and checks what the fleet is for:
// fewer calls spent on the dead server, and halfOpenCalls trial calls in
// all at recovery against each replica's own.
func TestOutageFleet(t *testing.T) {
	tg := outageTarget(t)
	rep, err := Run(t.Context(), "outage", tg, Options{Speed: outageSpeed, Replicas: outageReplicas, Fleet: MemoryFleet, FleetAbout: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Results.(OutageResults)
	if len(res.Strategies) != 2 || res.Strategies[0].Name != "local" || res.Strategies[1].Name != "fleet" {
		t.Fatalf("strategies %+v, want local and fleet", res.Strategies)
	}
	local, fleet := res.Strategies[0], res.Strategies[1]
	for _, s := range res.Strategies {
		t.Logf("%s: %d replicas, dead calls %d (requests %d: before %d, in flight %d, trials %d, other %d), stopped after %v, recovery trials %d, refused while healthy %d, recovered %v",
			s.Name, s.Replicas, s.DeadCalls, s.DeadRequests, s.DeadBeforeOpen, s.DeadInFlight, s.DeadTrials, s.DeadOther,
			ptr(s.StoppedAfterS), s.RecoveryTrials, s.RefusedWhileUp, ptr(s.RecoveredAfterS))
		if s.Replicas != outageReplicas || s.Fleet != (s.Name == "fleet") {
			t.Errorf("%s: %d replicas, fleet %v", s.Name, s.Replicas, s.Fleet)
		}
		if s.OpenedAfterS == nil || s.RecoveredAfterS == nil || s.StoppedAfterS == nil {
			t.Fatalf("%s: opened %v, recovered %v, stopped %v: want all three", s.Name, ptr(s.OpenedAfterS), ptr(s.RecoveredAfterS), ptr(s.StoppedAfterS))
		}
		// After a replica's breaker opened, only trials and calls it had
		// admitted before reach the dead server, unless the store did not
		// answer in time and the local breakers decided meanwhile (the
		// report says so; it is the fallback working, not a leak).
		if s.StoreFallbacks > 0 {
			t.Logf("%s: %d fallbacks to local breakers, %d other requests to the dead server", s.Name, s.StoreFallbacks, s.DeadOther)
		} else if s.DeadOther != 0 {
			t.Errorf("%s: %d requests reached the dead server that were neither trials nor admitted before the open", s.Name, s.DeadOther)
		}
	}
	b := tg.Breaker
	// Each local breaker needs its own failures: every replica has users
	// (20 dealt over 10), so about 10× the fleet's, which needs
	// minimumCalls in all plus what one sync interval lets through.
	if 2*fleet.DeadCalls > local.DeadCalls {
		t.Errorf("fleet: %d calls reached the dead server, want at most half of local's %d", fleet.DeadCalls, local.DeadCalls)
	}
	if fleet.DeadBeforeOpen < b.MinimumCalls {
		t.Errorf("fleet: %d requests before the open, want at least minimumCalls %d", fleet.DeadBeforeOpen, b.MinimumCalls)
	}
	if *fleet.StoppedAfterS >= *local.StoppedAfterS {
		t.Errorf("fleet stopped calling the dead server %.2fs into the outage, local %.2fs: want sooner", *fleet.StoppedAfterS, *local.StoppedAfterS)
	}
	// The trial calls at recovery: each local breaker closes on its own
	// halfOpenCalls trials; the fleet closes once, on halfOpenCalls in all.
	if local.RecoveryTrials != outageReplicas*b.HalfOpenCalls {
		t.Errorf("local: %d trial calls at recovery, want %d replicas × %d", local.RecoveryTrials, outageReplicas, b.HalfOpenCalls)
	}
	if fleet.RecoveryTrials < 1 || fleet.RecoveryTrials > b.HalfOpenCalls {
		t.Errorf("fleet: %d trial calls at recovery, want 1 to halfOpenCalls %d", fleet.RecoveryTrials, b.HalfOpenCalls)
	}

	// The report leads with the replicas table, one row per strategy, and
	// the findings compare the two.
	if len(rep.Tables) == 0 || !strings.HasPrefix(rep.Tables[0].Title, "10 replicas") || len(rep.Tables[0].Rows) != 2 {
		t.Errorf("tables: %+v", rep.Tables)
	}
	if len(rep.Findings) == 0 || !strings.HasPrefix(rep.Findings[0], "10 replicas: ") {
		t.Errorf("findings: %q", rep.Findings)
	}
}

// TestOutageFleetWithCompare: -replicas and -compare together run the
// four strategies, the fleet second.
func TestOutageFleetWithCompare(t *testing.T) {
	ss := outageStrategies(outageTarget(t), true, true)
	var names []string
	for _, s := range ss {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ", "); got != "local, fleet, no breaker, swapped" || !ss[1].Fleet || ss[0].Fleet {
		t.Fatalf("strategies %s", got)
	}
}

func TestOutageRefusesTooManyReplicas(t *testing.T) {
	_, err := Run(t.Context(), "outage", outageTarget(t), Options{Speed: outageSpeed, Replicas: maxReplicas + 1, Fleet: MemoryFleet})
	if err == nil || !strings.Contains(err.Error(), "at most 100 replicas") {
		t.Fatalf("err = %v", err)
	}
}
