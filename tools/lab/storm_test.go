package lab

import (
	"context"
	"errors"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"
)

// stormSpeed keeps each storm under a second of wall time; under -race on
// two cores the 20 ms service time is still far above the scheduling noise.
const stormSpeed = 10

func byName(t *testing.T, rs []StormStrategyResult, name string) StormStrategyResult {
	t.Helper()
	for _, r := range rs {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no strategy %q", name)
	return StormStrategyResult{}
}

// The whole comparison on the preset's operation, breaker kept: the preset
// meets the goals, the report has a row and a line per strategy.
// The strategies run one after the other: 13 × 50 users at once under
// -race on two cores would measure the scheduler, not the policies.
func TestStormCompare(t *testing.T) {
	tg := labTarget(t, "listItemsOverload")
	rep, err := stormRun(context.Background(), tg, Options{Speed: stormSpeed, Compare: true}, true)
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Results.(StormResults)
	if len(res.Strategies) != 13 || len(rep.Tables[0].Rows) != 13 || len(rep.Plots) != 2 || len(rep.Plots[0].Series) != len(stormPlotted) {
		t.Fatalf("strategies %d, rows %d, plots %d (%d lines, want %d)", len(res.Strategies), len(rep.Tables[0].Rows), len(rep.Plots), len(rep.Plots[0].Series), len(stormPlotted))
	}
	for _, r := range res.Strategies {
		t.Logf("%-24s %4d req %.2f× %3.0f%% wall %.2f× opens %d budget %d", r.Name, r.ServerRequests, r.Amplification, r.SuccessPct, r.WallOverFloor, r.BreakerOpens, r.BudgetRefused)
		if r.ServerRequests == 0 || r.Succeeded == 0 {
			t.Errorf("%s: nothing happened: %+v", r.Name, r)
		}
	}
	spec := byName(t, res.Strategies, "spec")
	// Wall time is the one figure the machine can spoil: a test package
	// running beside this one delays the users' goroutines, and a delay
	// only ever adds time, never removes it. So the preset's wall time is
	// the least of up to three runs of the same storm (the counts are the
	// first run's).
	wall := spec.WallOverFloor
	for i := 0; i < 2 && wall > 1.4; i++ {
		again, err := stormRun(context.Background(), tg, Options{Speed: stormSpeed}, true)
		if err != nil {
			t.Fatal(err)
		}
		w := byName(t, again.Results.(StormResults).Strategies, "spec").WallOverFloor
		t.Logf("spec again: wall %.2f×", w)
		wall = min(wall, w)
	}
	if spec.SuccessPct < 99 || spec.Amplification > 1.25 || wall > 1.4 || spec.BreakerOpens != 0 {
		t.Errorf("overload preset: %.0f%% success, %.2f× amplification, wall %.2f× floor (least of the runs), %d opens; want ≥ 99%%, ≤ 1.25, ≤ 1.4, 0",
			spec.SuccessPct, spec.Amplification, wall, spec.BreakerOpens)
	}
	// A call the breaker refuses sends nothing; every other call of
	// "none" sends exactly one request.
	none := byName(t, res.Strategies, "none")
	if none.ServerRequests != 250-none.CallsRefused {
		t.Errorf("none: %d requests, %d calls refused; want requests = 250 − refused", none.ServerRequests, none.CallsRefused)
	}
	// Immediate retries multiply the load even when the breaker cuts
	// them short (TestStormModel has their numbers without it); the
	// budget caps the retries.
	naive := byName(t, res.Strategies, "naive")
	if naive.Amplification < 1.5*spec.Amplification {
		t.Errorf("naive: %.2f×; want far above the preset's %.2f×", naive.Amplification, spec.Amplification)
	}
	if b := byName(t, res.Strategies, "exp-full+budget"); b.BudgetRefused == 0 || b.ServerRequests >= byName(t, res.Strategies, "exp-full").ServerRequests {
		t.Errorf("exp-full+budget: %d refused by the budget, %d requests; want refusals and fewer requests than exp-full", b.BudgetRefused, b.ServerRequests)
	}
}

// The model without a breaker: its exact counts and the storm naive
// retries make of it.
func TestStormModel(t *testing.T) {
	tg := labTarget(t, "listItemsOverload")
	tg.Breaker = nil
	o := Options{Speed: stormSpeed, Compare: true}
	ss := stormStrategies(tg, o)
	// At 2×: the 20 users turned away hammer the server, and how many of
	// them slip in between an answer and its user's next request depends on
	// the loopback's round trip against the service time; sped up further
	// (and under -race) the round trip weighs more than it does at 1×.
	clk := clock{2}
	run := func(name string) StormStrategyResult {
		for _, s := range ss {
			if s.Name == name {
				r, err := stormOne(context.Background(), clk, tg, s, false)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
		}
		t.Fatalf("no strategy %q", name)
		return StormStrategyResult{}
	}
	none := run("none")
	if none.Amplification != 1 || none.Rejected != 250-none.Succeeded {
		t.Errorf("none: %.2f× amplification, %d rejected, %d succeeded; want exactly 1 and rejected = 250 − succeeded", none.Amplification, none.Rejected, none.Succeeded)
	}
	// 20 users are turned away at t=0, the moment the server is full.
	if none.Rejected < 20 {
		t.Errorf("none: %d rejected; want at least the 20 beyond the queue at t=0", none.Rejected)
	}
	// Naive retries at least double the load and buy next to nothing.
	naive := run("naive")
	t.Logf("none %.2f× %.0f%%, naive %.2f× %.0f%%", none.Amplification, none.SuccessPct, naive.Amplification, naive.SuccessPct)
	if naive.Amplification < 2 || naive.SuccessPct > 70 {
		t.Errorf("naive: %.2f× at %.0f%%; want ≥ 2 and ≤ 70%%", naive.Amplification, naive.SuccessPct)
	}
}

// Retry-After raises short waits to the server's hint: the same short
// backoff sends fewer requests when the server sends one.
func TestStormRetryAfter(t *testing.T) {
	tg := labTarget(t, "listItems")
	tg.Breaker = nil
	clk := clock{stormSpeed}
	var plain, hinted stormStrategy
	for _, s := range stormStrategies(tg, Options{Compare: true}) {
		if s.Name == "exp-none" {
			plain, hinted = s, s
		}
	}
	hinted.hints = true
	a, err := stormOne(context.Background(), clk, tg, plain, false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := stormOne(context.Background(), clk, tg, hinted, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("exp-none: %d requests, %.0f%%; with Retry-After: %d, %.0f%%", a.ServerRequests, a.SuccessPct, b.ServerRequests, b.SuccessPct)
	if b.ServerRequests >= a.ServerRequests || b.SuccessPct < a.SuccessPct {
		t.Errorf("with Retry-After %d requests at %.0f%%, without %d at %.0f%%; want fewer and no worse", b.ServerRequests, b.SuccessPct, a.ServerRequests, a.SuccessPct)
	}
}

// The hint: with a full queue, 21 × 200 ms ÷ 10 = 0.42 s, so 1 s; as
// Retry-After at real speed, as Retry-After-Ms on a sped-up clock.
func TestStormHint(t *testing.T) {
	for _, c := range []struct {
		speed        float64
		header, want string
	}{{1, "Retry-After", "1"}, {10, "Retry-After-Ms", "100"}, {3, "Retry-After-Ms", "333.3333333333333"}} {
		q := &stormQueue{clk: clock{c.speed}, hints: true, waiting: make([]chan struct{}, stormQueueSize)}
		srv := clock{c.speed}.NewServer(q.handle)
		w := httptest.NewRecorder()
		q.refuse(srv, w, context.Background())
		srv.Close()
		if w.Code != 503 || w.Header().Get(c.header) != c.want || len(w.Header()) != 1 {
			t.Errorf("speed %g: %d %v; want 503 with %s: %s only", c.speed, w.Code, w.Header(), c.header, c.want)
		}
	}
}

// In the timeout mode the excess gets no answer: the client's attempts
// time out, no 503 reaches it.
func TestStormTimeoutMode(t *testing.T) {
	tg := labTarget(t, "listItems")
	tg.Breaker = nil
	var none stormStrategy
	for _, s := range stormStrategies(tg, Options{Compare: true}) {
		if s.Name == "none" {
			none = s
		}
	}
	r, err := stormOne(context.Background(), clock{stormSpeed}, tg, none, true)
	if err != nil {
		t.Fatal(err)
	}
	if r.Answers503 != 0 || r.AttemptTimeouts == 0 || r.AttemptTimeouts != int64(r.Rejected) || r.ServerRequests != 250 {
		t.Errorf("timeout mode: %d 503s, %d attempt timeouts, %d held, %d requests; want 0, every held one timed out, 250", r.Answers503, r.AttemptTimeouts, r.Rejected, r.ServerRequests)
	}
}

// A lab whose strategies retry refuses an operation that is not
// retry-safe, before anything runs; its own policy (one attempt) runs.
func TestStormNotRetrySafe(t *testing.T) {
	tg := labTarget(t, "createItem")
	_, err := Run(context.Background(), "storm", tg, Options{Speed: stormSpeed, Compare: true})
	if !errors.Is(err, ErrNotRetrySafe) {
		t.Fatalf("-compare on createItem: %v; want ErrNotRetrySafe", err)
	}
	rep, err := Run(context.Background(), "storm", tg, Options{Speed: 20})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results.(StormResults).Strategies[0]
	if r.ServerRequests != 250-r.CallsRefused {
		t.Errorf("createItem: %d requests, %d refused; want one request per call the breaker let through", r.ServerRequests, r.CallsRefused)
	}
}

// Cancelling stops the run at once with ctx's error, long before any
// strategy could have finished (the floor is 5 s at real speed).
func TestStormCancel(t *testing.T) {
	tg := labTarget(t, "listItemsOverload")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := Run(ctx, "storm", tg, Options{Speed: 1, Compare: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v; want context.Canceled", err)
	}
	if took := time.Since(start); took > stormFloor/2 {
		t.Errorf("cancelled run took %v; want well under the %v floor", took, stormFloor)
	}
}

// lab.yaml's overload policy is the preset the docs give.
func TestStormPresetInSpec(t *testing.T) {
	tg := labTarget(t, "listItemsOverload")
	if want := OverloadPreset(); tg.Retry == nil || !reflect.DeepEqual(*tg.Retry, want) {
		t.Errorf("lab.yaml overload:\n %+v\nOverloadPreset:\n %+v", tg.Retry, want)
	}
}

func TestStormBadOverload(t *testing.T) {
	if _, err := Run(context.Background(), "storm", labTarget(t, "listItems"), Options{Overload: "drop"}); err == nil {
		t.Error("-overload drop accepted")
	}
}

func TestPeakPerBucket(t *testing.T) {
	w := 0.1
	got := peakPerBucket([]Point{{0.01, 1}, {0.05, 3}, {0.02, 2}, {0.12, 1}, {0.11, 4}, {0.35, 0}}, w)
	want := []Point{{0, 3}, {w, 4}, {3 * w, 0}} // 0.11 after 0.12 joins its bucket
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
