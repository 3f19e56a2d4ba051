package lab

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// orderSpeeds are the speeds an order test tries, fastest first: the
// swapped order's counts are exact only while its attempts stay within
// the margin of the open period, and a busy machine's late timers eat
// more of that margin the faster the run (each run measures it).
var orderSpeeds = []float64{10, 5, 2.5}

// countsOf are the figures of a run that the model makes exact.
func countsOf(p orderPhases) []string {
	var out []string
	for _, row := range orderRows() {
		if !strings.Contains(row.label, "time") {
			out = append(out, row.label+"="+row.get(p))
		}
	}
	return out
}

func TestOrderPublishedCounts(t *testing.T) {
	tg := labTarget(t, "sustainedFailure")
	for _, speed := range orderSpeeds {
		r, err := Run(context.Background(), "order", tg, Options{Speed: speed})
		if err != nil {
			t.Fatal(err)
		}
		res := r.Results.(orderResults)
		outside, swapped := res.Strategies[0], res.Strategies[1]
		if outside.Strategy != "outside" || swapped.Strategy != "swapped" || len(res.Strategies) != 2 {
			t.Fatalf("strategies %v %v (%d)", outside.Strategy, swapped.Strategy, len(res.Strategies))
		}
		// The outside order's counts do not depend on timing at all, nor
		// do the swapped order's until it opens.
		for _, m := range res.Missed {
			if strings.HasPrefix(m, "outside ") || strings.HasPrefix(m, "swapped 1 ") {
				t.Errorf("speed %g: %s", speed, m)
			}
		}
		if !swapped.InMargin {
			t.Logf("speed %g: the swapped order's attempts left the margin of %v (wall) (drift %.1f ms, slipped %v): counts %v; trying slower",
				speed, clock{speed}.d(orderMargin(tg.Breaker, tg.Retry)), swapped.DriftS*1e3/speed, swapped.Slipped, countsOf(swapped))
			continue
		}
		if !res.Matched {
			t.Fatalf("speed %g: in margin (drift %.1f ms of %v), yet missed %v", speed, swapped.DriftS*1e3, orderMargin(tg.Breaker, tg.Retry), res.Missed)
		}
		// The table marks every published count as matched.
		marks := 0
		for _, row := range r.Tables[0].Rows {
			for _, c := range row[len(row)-2:] {
				if strings.HasSuffix(c, " ✗") {
					t.Errorf("row %v marked as missed", row)
				}
				if strings.HasSuffix(c, " ✓") {
					marks++
				}
			}
		}
		if marks != 13 {
			t.Errorf("%d published counts marked as matched, want 13", marks)
		}
		if !strings.Contains(r.Findings[0], "all 13 published counts matched") {
			t.Errorf("first finding %q", r.Findings[0])
		}
		// Relations that hold at any speed: the outside order takes the
		// retries' time to open, the swapped order's rejections take it
		// after.
		if outside.OpenS < 2*swapped.OpenS || outside.AfterS >= swapped.AfterS {
			t.Errorf("times: outside open %.2fs after %.2fs, swapped open %.2fs after %.2fs", outside.OpenS, outside.AfterS, swapped.OpenS, swapped.AfterS)
		}
		if speed > 1 && !strings.Contains(strings.Join(r.Setup, "\n"), "sped up ×") {
			t.Errorf("setup does not say the run was sped up: %q", r.Setup)
		}
		if p := r.Plots[0]; len(p.Series) != 2 || len(p.Series[0].Points) != 1+60+100 || len(p.Marks) != 2 || p.Marks[0].Label != "outside opened" || p.Marks[1].Label != "swapped opened" {
			t.Errorf("plot: %d series, %d points, %d marks", len(p.Series), len(p.Series[0].Points), len(p.Marks))
		}
		return
	}
	// The run says so itself (a warning finding); a machine this busy
	// cannot show the swapped order's later counts at these speeds.
	t.Skipf("the swapped order's attempts left their margin at every speed of %v (machine too busy): its phase 2 and 3 counts were not checked", orderSpeeds)
}

func TestOrderCompareAddsPolly(t *testing.T) {
	tg := labTarget(t, "sustainedFailure")
	r, err := Run(context.Background(), "order", tg, Options{Speed: 10, Compare: true})
	if err != nil {
		t.Fatal(err)
	}
	res := r.Results.(orderResults)
	if len(res.Strategies) != 3 || len(r.Tables[0].Columns) != 6 {
		t.Fatalf("%d strategies, columns %v", len(res.Strategies), r.Tables[0].Columns)
	}
	// A refusal ends the call: nothing after the open reaches the server,
	// and against transient failures only the requests before the open
	// succeed (timing plays no part: no attempt waits into a trial).
	p := res.Strategies[2]
	if p.Requests != 7 || p.ServerCalls != 20 || p.AfterCalls != 0 || p.AfterRefused != 10 || p.AfterRefusedAttempts != 10 || p.Successes != 10 || p.FinalState != "open" {
		t.Errorf("no-retry-refused: %v", countsOf(p))
	}
}

func TestOrderNeedsBreakerAndRetry(t *testing.T) {
	// createItem is a POST without an idempotency key: not retried.
	_, err := Run(context.Background(), "order", labTarget(t, "createItem"), Options{Speed: 10})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "needs both") || !strings.Contains(err.Error(), "has breaker default, no retry (POST without key: off)") {
		t.Errorf("createItem: %v", err)
	}
	tg := labTarget(t, "sustainedFailure")
	tg.Breaker, tg.BreakerName = nil, ""
	_, err = Run(context.Background(), "order", tg, Options{Speed: 10})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "has no breaker") {
		t.Errorf("no breaker: %v", err)
	}
}

func TestOrderCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := Run(ctx, "order", labTarget(t, "sustainedFailure"), Options{Speed: 2})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v to stop", d)
	}
}

// TestOrderExactSpeeds measures, when RESGEN_LAB_SPEEDS lists speeds
// ("10,20,40"), how many of RESGEN_LAB_ROUNDS runs at each speed match
// every published count: how orderMaxExactSpeed was chosen.
func TestOrderExactSpeeds(t *testing.T) {
	list := os.Getenv("RESGEN_LAB_SPEEDS")
	if list == "" {
		t.Skip("RESGEN_LAB_SPEEDS not set")
	}
	rounds, _ := strconv.Atoi(os.Getenv("RESGEN_LAB_ROUNDS"))
	rounds = max(rounds, 3)
	tg := labTarget(t, "sustainedFailure")
	for _, f := range strings.Split(list, ",") {
		speed, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatal(err)
		}
		exact, worst := 0, 0.0
		for range rounds {
			r, err := order(context.Background(), tg, Options{Speed: speed})
			if err != nil {
				t.Fatal(err)
			}
			res := r.Results.(orderResults)
			sw := res.Strategies[1]
			if res.Matched {
				exact++
			} else {
				t.Logf("speed %g: missed %v (drift %.1f ms wall, slipped %v)", speed, res.Missed, sw.DriftS*1e3/speed, sw.Slipped)
			}
			worst = max(worst, sw.DriftS*1e3/speed)
		}
		t.Logf("speed %g: %d of %d runs exact; worst drift %.1f ms wall (margin %.1f ms)", speed, exact, rounds, worst, orderMargin(tg.Breaker, tg.Retry).Seconds()*1e3/speed)
	}
}
