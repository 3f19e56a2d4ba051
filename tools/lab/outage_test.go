package lab

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
)

// outageSpeed keeps the run at about 4 s (20 s of scenario time). At
// ×10 the requests the no-breaker strategy sends to the dead server alone
// are about 2400 a second of wall time, more than -race on 2 shared cores
// keeps up with, and its count then falls with the machine's load.
const outageSpeed = 5

func outageTarget(t *testing.T) *Target {
	t.Helper()
	tg := labTarget(t, "getStatus")
	if tg.Breaker == nil || tg.Retry == nil {
		t.Fatalf("getStatus should have a breaker and a retry: %+v", tg)
	}
	return tg
}

// TestOutage runs the scenario with -compare and checks what a breaker
// is for, and the relations between the strategies, in one run.
func TestOutage(t *testing.T) {
	tg := outageTarget(t)
	rep, err := Run(t.Context(), "outage", tg, Options{Speed: outageSpeed, Compare: true})
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Results.(OutageResults)
	if len(res.Strategies) != 3 {
		t.Fatalf("strategies: %d, want spec, no breaker, swapped", len(res.Strategies))
	}
	spec, none, swapped := res.Strategies[0], res.Strategies[1], res.Strategies[2]
	for _, s := range res.Strategies {
		t.Logf("%s: opened %v, dead %d (before %d, in flight %d, trials %d, other %d), refused %d, refused attempts %d, recovered %v, failed %d of %d, half-open %+v",
			s.Name, ptr(s.OpenedAfterS), s.DeadRequests, s.DeadBeforeOpen, s.DeadInFlight, s.DeadTrials, s.DeadOther,
			s.Refused, s.RefusedAttempts, ptr(s.RecoveredAfterS), s.FailedCalls, s.Calls, s.HalfOpen)
	}
	down := res.UpAtS - res.DownAtS
	b, r := tg.Breaker, tg.Retry
	for _, s := range []OutageStrategyResults{spec, swapped} {
		// The breaker opens during the outage and closes after it.
		if s.OpenedAfterS == nil || *s.OpenedAfterS >= down {
			t.Errorf("%s: the breaker did not open during the outage: %v", s.Name, ptr(s.OpenedAfterS))
		}
		if s.RecoveredAfterS == nil {
			t.Errorf("%s: the breaker did not close after the outage", s.Name)
		}
		// After the open, only trials and calls admitted before it
		// reach the dead server, and each half-open period lets exactly
		// its trials through: all fail while down; the last period's all
		// succeed and close the breaker.
		if s.DeadOther != 0 {
			t.Errorf("%s: %d requests reached the dead server after the open that were neither trials nor admitted before it", s.Name, s.DeadOther)
		}
		if len(s.HalfOpen) < 2 {
			t.Fatalf("%s: %d half-open periods, want at least one while down and the one that closed", s.Name, len(s.HalfOpen))
		}
		// The half-open rule (runtime doc): exactly HalfOpenCalls trials,
		// then open again if their failure rate reaches the threshold,
		// else closed. Every period but the last re-opened; those well
		// inside the outage failed every trial; the last one closed.
		failedTrials := 0
		for i, h := range s.HalfOpen {
			last := i == len(s.HalfOpen)-1
			reopen := float64(h.Failed)*100 >= b.FailureRateThreshold*float64(h.Trials)
			switch {
			case h.Trials != b.HalfOpenCalls:
				t.Errorf("%s: half-open at %.2fs let %d trials through, want %d", s.Name, h.AtS, h.Trials, b.HalfOpenCalls)
			case reopen && h.Then != "open", !reopen && h.Then != "closed":
				t.Errorf("%s: half-open at %.2fs: %+v, against the half-open rule", s.Name, h.AtS, h)
			case !last && h.Then != "open", last && h.Then != "closed":
				t.Errorf("%s: half-open at %.2fs: %+v, want open again until the last, closed", s.Name, h.AtS, h)
			case h.AtS+0.5 < res.UpAtS && h.Failed != h.Trials:
				t.Errorf("%s: half-open at %.2fs, while down: %+v, want every trial failed", s.Name, h.AtS, h)
			}
			failedTrials += h.Failed
		}
		if s.DeadTrials != failedTrials {
			t.Errorf("%s: %d trials reached the dead server, want the %d failed trials", s.Name, s.DeadTrials, failedTrials)
		}
		// A call admitted before the open makes at most its remaining
		// attempts, and at most every other user was in such a call.
		if limit := (res.Users - 1) * (r.MaxAttempts - 1); s.DeadInFlight > limit {
			t.Errorf("%s: %d attempts of calls admitted before the open, want ≤ %d", s.Name, s.DeadInFlight, limit)
		}
		if s.DeadRequests != s.DeadBeforeOpen+s.DeadTrials+s.DeadInFlight+s.DeadOther {
			t.Errorf("%s: the dead requests do not add up", s.Name)
		}
		// While the breaker is open the callers fail without a request.
		if s.Refused == 0 || s.Refused >= s.Calls {
			t.Errorf("%s: %d calls refused of %d", s.Name, s.Refused, s.Calls)
		}
	}

	// Without a breaker the same retry keeps hitting the dead server for
	// the whole outage: many times the load, and every failed call pays
	// its retries; but it succeeds as soon as the server is back.
	if none.OpenedAfterS != nil || none.Refused != 0 || len(none.HalfOpen) != 0 {
		t.Errorf("no breaker: %+v", none)
	}
	// About 30× on an idle machine; 14–25× under -race with a load
	// average of 6, where the no-breaker strategy sends fewer.
	if none.DeadRequests < 8*spec.DeadRequests {
		t.Errorf("no breaker: %d requests reached the dead server, want ≥ 8× the spec's %d", none.DeadRequests, spec.DeadRequests)
	}
	if none.FailedDownP50S <= spec.FailedDownP50S {
		t.Errorf("no breaker: failed calls took %.4fs (median), want longer than the spec's %.4fs", none.FailedDownP50S, spec.FailedDownP50S)
	}
	if none.FirstSuccessAfterS == nil {
		t.Errorf("no breaker: no success after the server came back")
	}

	// Swapped (breaker inside the retry): every attempt is a sample, so it
	// opens on fewer requests to the dead server; its refusals are
	// retried, so it refuses more attempts than calls and its callers do
	// not fail fast.
	if swapped.DeadBeforeOpen >= spec.DeadBeforeOpen || swapped.DeadRequests >= spec.DeadRequests {
		t.Errorf("swapped: %d requests to the dead server before the open (%d in all), want fewer than the spec's %d (%d)",
			swapped.DeadBeforeOpen, swapped.DeadRequests, spec.DeadBeforeOpen, spec.DeadRequests)
	}
	if swapped.RefusedAttempts <= swapped.Refused {
		t.Errorf("swapped: %d refused attempts for %d refused calls, want more: the retry retries a refusal", swapped.RefusedAttempts, swapped.Refused)
	}
	if spec.RefusedAttempts != spec.Refused {
		t.Errorf("spec: %d refusals for %d refused calls, want one each", spec.RefusedAttempts, spec.Refused)
	}
	if swapped.FailedDownP50S <= spec.FailedDownP50S {
		t.Errorf("swapped: failed calls took %.4fs (median), want longer than the spec's %.4fs", swapped.FailedDownP50S, spec.FailedDownP50S)
	}

	// The report: tables in order, the log has the open line, plots have
	// a series per strategy, the results marshal.
	if len(rep.Tables) != 3 || len(rep.Tables[0].Rows) != 3 || !strings.Contains(rep.Tables[0].Notes[0], "sped up ×5") {
		t.Errorf("tables: %+v", rep.Tables)
	}
	if len(rep.Log) == 0 || !strings.Contains(rep.Log[0], `breaker "downstream" opened: failure rate`) {
		t.Errorf("log: %q", rep.Log)
	}
	if len(rep.Plots) != 2 || len(rep.Plots[0].Series) != 3 || len(rep.Plots[1].Series) != 2 {
		t.Errorf("plots: %+v", rep.Plots)
	}
	if _, err := json.Marshal(rep.Results); err != nil {
		t.Error(err)
	}
}

func ptr(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func TestOutageRefusesAnOperationWithoutBreaker(t *testing.T) {
	tg := *outageTarget(t)
	tg.Breaker, tg.BreakerName = nil, ""
	_, err := Run(t.Context(), "outage", &tg, Options{Speed: outageSpeed})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "getStatus") || !strings.Contains(err.Error(), "breaker: none") {
		t.Fatalf("err = %v, want ErrRefused naming getStatus and its breaker: none", err)
	}
}

func TestOutageRefusesRetryOnAnOperationNotRetrySafe(t *testing.T) {
	tg := *outageTarget(t)
	tg.Method, tg.NotRetrySafe, tg.RetryWhy = "POST", true, "POST without key"
	_, err := Run(t.Context(), "outage", &tg, Options{Speed: outageSpeed, Compare: true})
	if !errors.Is(err, ErrNotRetrySafe) {
		t.Fatalf("err = %v, want ErrNotRetrySafe", err)
	}
}

func TestOutageRefusesANegativeDown(t *testing.T) {
	_, err := Run(t.Context(), "outage", outageTarget(t), Options{Speed: outageSpeed, Down: -time.Second})
	if err == nil || !strings.Contains(err.Error(), "positive") {
		t.Fatalf("err = %v", err)
	}
}

// TestOutageStopsOnCancel: a real-speed run (20 s) cancelled during its
// outage returns ctx's error long before it would have ended, leaving no
// goroutine behind (TestMain).
func TestOutageStopsOnCancel(t *testing.T) {
	tg := outageTarget(t)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := Run(ctx, "outage", tg, Options{Speed: 1, Compare: true})
	took := time.Since(start)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if took > 5*time.Second {
		t.Fatalf("took %v to stop", took)
	}
}

// TestOutageShortDownWithoutRetry: a -down shorter than the breaker's
// wait in open still opens it, and it closes at its first half-open; an
// operation that is not retried has no swapped order to compare (the two
// orders are one), and says so.
func TestOutageShortDownWithoutRetry(t *testing.T) {
	tg := *outageTarget(t)
	tg.Retry = nil
	rep, err := Run(t.Context(), "outage", &tg, Options{Speed: outageSpeed * 2, Down: 2 * time.Second, Compare: true})
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Results.(OutageResults)
	if len(res.Strategies) != 2 || res.Strategies[1].Name != "no breaker" || !strings.Contains(strings.Join(rep.Setup, "\n"), "no swapped order") {
		t.Fatalf("strategies %+v, setup %q", res.Strategies, rep.Setup)
	}
	s := res.Strategies[0]
	if res.UpAtS-res.DownAtS != 2 || s.OpenedAfterS == nil || s.RecoveredAfterS == nil || len(s.HalfOpen) != 1 || s.HalfOpen[0].Then != runtime.StateClosed.String() {
		t.Fatalf("%+v", s)
	}
	// Without retries a call that reaches the dead server sends one request.
	if s.DeadRequests != s.DeadCalls || res.Strategies[1].DeadRequests != res.Strategies[1].DeadCalls {
		t.Errorf("dead requests %d/%d for dead calls %d/%d", s.DeadRequests, res.Strategies[1].DeadRequests, s.DeadCalls, res.Strategies[1].DeadCalls)
	}
}
