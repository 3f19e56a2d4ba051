package lab

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSlowOpensOnSlowCallsAlone(t *testing.T) {
	tg := labTarget(t, "slowReport")
	r, err := Run(context.Background(), "slow", tg, Options{Speed: 10, Compare: true})
	if err != nil {
		t.Fatal(err)
	}
	res := r.Results.(slowResults)
	if res.CannotOpen != "" || len(res.Strategies) != 2 {
		t.Fatalf("cannot open %q, %d strategies", res.CannotOpen, len(res.Strategies))
	}
	spec, off := res.Strategies[0], res.Strategies[1]
	if !spec.Opened || spec.ErrorsBeforeOpen != 0 {
		t.Fatalf("opened %v at call %d, %d errors before", spec.Opened, spec.OpenCall, spec.ErrorsBeforeOpen)
	}
	// The call whose outcome opened it was slow, and so were enough of
	// the window's; every call until then reached the server and got 200,
	// none after.
	if spec.LatencyAtOpenS < tg.Breaker.SlowCallDuration.Seconds() || spec.SlowCalls*2 < tg.Breaker.WindowSize {
		t.Errorf("latency at open %.2fs, %d slow calls", spec.LatencyAtOpenS, spec.SlowCalls)
	}
	if spec.ServerOK != int64(spec.OpenCall) || spec.ServerRequests != spec.ServerOK {
		t.Errorf("server: %d answered 200 of %d, opened at call %d", spec.ServerOK, spec.ServerRequests, spec.OpenCall)
	}
	if spec.RefusedAfterOpen != spec.Calls-spec.OpenCall || spec.ErrorsAfterOpen != 0 || spec.FinalState != "open" {
		t.Errorf("after open: %d refused of %d, %d other errors, %s", spec.RefusedAfterOpen, spec.Calls-spec.OpenCall, spec.ErrorsAfterOpen, spec.FinalState)
	}
	// The runtime's own line says why, and it is in the report.
	if len(r.Log) != 1 || !strings.Contains(r.Log[0], `breaker \"slowcalls\" opened: slow-call rate 50% (5 of 10 calls ≥ 100ms) ≥ 50%; failure rate 0%`) {
		t.Errorf("log %q", r.Log)
	}
	// Without slow-call detection nothing fails, the breaker stays
	// closed, and callers wait for every slow answer.
	if off.Opened || off.ErrorsBeforeOpen != 0 || off.FinalState != "closed" || off.ServerOK != int64(off.Calls) || off.WaitedS < 1.5*spec.WaitedS {
		t.Errorf("detection off: opened %v, %d errors, %s, %d ok of %d, waited %.2fs vs %.2fs", off.Opened, off.ErrorsBeforeOpen, off.FinalState, off.ServerOK, off.Calls, off.WaitedS, spec.WaitedS)
	}
	if p := r.Plots[0]; len(p.Series) != 3 || len(p.Series[0].Points) != spec.Calls || len(p.Marks) != 1 {
		t.Errorf("plot: %d series, %d marks", len(p.Series), len(p.Marks))
	}
}

func TestSlowCannotOpen(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Target)
		want string
	}{
		{"no breaker", func(tg *Target) { tg.Breaker, tg.BreakerName = nil, "" }, "has no breaker"},
		{"timeout first", func(tg *Target) {}, "a call that slow times out first"},
		{"detection off", func(tg *Target) { tg.Breaker.SlowCallRateThreshold = 0 }, "slow-call detection off"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tg := labTarget(t, "slowReport")
			tg.Timeout = tg.Breaker.SlowCallDuration // short runs; the "timeout first" case
			c.edit(tg)
			r, err := Run(context.Background(), "slow", tg, Options{Speed: 10})
			if err != nil {
				t.Fatal(err)
			}
			res := r.Results.(slowResults)
			if !strings.Contains(res.CannotOpen, c.want) || !strings.Contains(strings.Join(r.Findings, "\n"), "cannot open on slow calls: ") {
				t.Errorf("cannot open %q, findings %q", res.CannotOpen, r.Findings)
			}
			// The stand-in steps stay under the timeout.
			if p := planSlow(tg); slices.Max(p.latencies) >= tg.Timeout {
				t.Errorf("steps up to %v, timeout %v", slices.Max(p.latencies), tg.Timeout)
			}
			if f := strings.Join(r.Findings, "\n"); strings.Contains(f, "opened on slow calls alone") {
				t.Errorf("findings: %s", f)
			}
		})
	}
}

func TestSlowCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := Run(ctx, "slow", labTarget(t, "slowReport"), Options{Speed: 2, Compare: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v to stop", d)
	}
}
