package lab

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestStreamResumedAgainstNoResume: with resume every event of the broken
// stream comes once and in order, each break counted on the breaker;
// without it the first break ends the stream with an error.
func TestStreamResumedAgainstNoResume(t *testing.T) {
	tg := labTarget(t, "getStatus")
	r, err := Run(context.Background(), "stream", tg, Options{Speed: 10, Compare: true})
	if err != nil {
		t.Fatal(err)
	}
	res := r.Results.(streamResults)
	if len(res.Strategies) != 2 {
		t.Fatalf("%d strategies", len(res.Strategies))
	}
	on, off := res.Strategies[0], res.Strategies[1]
	if on.End != "complete" || on.Delivered != streamEvents || on.Duplicated != 0 || on.Lost != 0 || on.OutOfOrder != 0 {
		t.Errorf("resume: %+v", on)
	}
	if on.Breaks != len(streamBreaks) || on.Connections != len(streamBreaks)+1 || on.Resent != len(streamBreaks) {
		t.Errorf("resume: %d breaks, %d connections, %d sent again", on.Breaks, on.Connections, on.Resent)
	}
	if want := []string{"60", "150", "240"}; strings.Join(on.LastEventIDs, ",") != strings.Join(want, ",") {
		t.Errorf("Last-Event-ID %q; want %q", on.LastEventIDs, want)
	}
	if on.BreakerCalls != 2*len(streamBreaks)+1 || on.BreakerFailed != len(streamBreaks) {
		t.Errorf("breaker: %d calls, %d failed", on.BreakerCalls, on.BreakerFailed)
	}
	if off.End == "complete" || off.Delivered != streamBreaks[0] || off.Lost != streamEvents-streamBreaks[0] || off.Connections != 1 || off.BreakerFailed != 1 {
		t.Errorf("no resume: %+v", off)
	}
	f := strings.Join(r.Findings, "\n")
	if !strings.Contains(f, "resume: all 300 events delivered once each and in order across 3 breaks") || !strings.Contains(f, "no resume: the caller got 60 of 300 events, then error: ") {
		t.Errorf("findings:\n%s", f)
	}
	if p := r.Plots[0]; len(p.Series) != 2 || len(p.Series[0].Points) != streamEvents || len(p.Marks) != 4 {
		t.Errorf("plot: %d series, %d marks", len(p.Series), len(p.Marks))
	}
	var b strings.Builder
	if err := r.Text(&b); err != nil || !strings.Contains(b.String(), "duplicated") {
		t.Errorf("text report: %v\n%s", err, b.String())
	}
}

// A stream is never resumed on an operation that is not retry-safe: the
// lab refuses it, saying why.
func TestStreamRefusesNotRetrySafe(t *testing.T) {
	_, err := Run(context.Background(), "stream", labTarget(t, "createItem"), Options{Speed: 10})
	if !errors.Is(err, ErrNotRetrySafe) || !strings.Contains(err.Error(), "must not be resumed") {
		t.Fatalf("err %v", err)
	}
}

func TestStreamCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, "stream", labTarget(t, "getStatus"), Options{Speed: 10, Compare: true}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
}
