//go:build resgen_swapped

package lab

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
	"github.com/resgen/resgen/runtime/impl"
)

// runtimeSwapped builds the swapped order as the runtime's own test-only
// Operation.RetryOutside runs it (the breaker guarding each attempt inside
// one operation), to check the lab's composition of two operations.
func runtimeSwapped(clk clock, t *Target) mkClient {
	return func(s Strategy, base string, obs runtime.Observer) *Client {
		tr := &http.Transport{MaxIdleConnsPerHost: 1000, IdleConnTimeout: time.Minute}
		e := impl.NewEngine(impl.Config{HTTPClient: &http.Client{Transport: tr}, Logger: slog.New(slog.DiscardHandler), Observer: obs})
		bp, rp := clk.scaled(s)
		b := e.Breaker(t.BreakerName, *bp)
		op := e.Operation(impl.OperationSpec{Name: t.OperationID, Method: t.Method, Path: t.Path, Breaker: b, Retry: rp,
			Timeout: clk.d(t.Timeout), TotalTimeout: clk.d(t.TotalTimeout)}).RetryOutside()
		return &Client{Op: op, Breaker: b, URL: base + t.Path, tr: tr}
	}
}

// TestOrderSwappedSameAsRuntime: the lab's swapped order (two real
// runtime operations composed, the breaker's inside the retry loop's)
// gives the same counts in every phase as the runtime's own
// RetryOutside, run side by side on the same phases.
func TestOrderSwappedSameAsRuntime(t *testing.T) {
	tg := labTarget(t, "sustainedFailure")
	s := orderStrategies(tg, false)[1]
	if !s.Swapped {
		t.Fatal("strategy 1 is not the swapped order")
	}
	for _, speed := range orderSpeeds {
		clk := clock{speed}
		lab := func(s Strategy, base string, obs runtime.Observer) *Client {
			return clk.NewClient(tg, s, base, obs, nil)
		}
		var res [2]orderPhases
		var errs [2]error
		var wg sync.WaitGroup
		for i, mk := range []mkClient{lab, runtimeSwapped(clk, tg)} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[i], errs[i] = orderRun(context.Background(), clk, tg, s, mk)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if !res[0].InMargin || !res[1].InMargin {
			t.Logf("speed %g: out of margin (drift %.1f / %.1f ms scenario), trying slower", speed, res[0].DriftS*1e3, res[1].DriftS*1e3)
			continue
		}
		lc, rc := countsOf(res[0]), countsOf(res[1])
		if !slices.Equal(lc, rc) {
			t.Fatalf("speed %g:\nlab     %v\nruntime %v", speed, lc, rc)
		}
		if res[0].Successes != 18 || res[0].AfterCalls != 5 {
			t.Errorf("not the published swapped counts: %v", lc)
		}
		return
	}
	t.Skipf("out of margin at every speed of %v (machine too busy): not compared", orderSpeeds)
}
