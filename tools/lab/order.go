package lab

// The order scenario: the same breaker and retry policy with the breaker
// outside the retry loop (resgen's order, as generated) and inside it
// (Resilience4j's Retry(CircuitBreaker(call))), through three phases of
// the published experiment.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/resgen/resgen/runtime"
)

// The published experiment's phase sizes.
const (
	orderAfterOpen = 10 // phase 2: requests after the breaker opened
	orderTransient = 50 // phase 3: requests against transient failures
)

// orderMaxExactSpeed is the highest -speed at which the swapped order's
// counts came out exact under -race on 2 cores (order_test.go's
// TestOrderExactSpeeds, at load 1 to 5: ×10 14 runs of 14, ×15 5 of 9,
// ×20 2 of 9; at load 7, ×5 slipped once in 6). Above it the report warns. The counts depend on each attempt
// landing inside its wait of the breaker's open period: timers fire
// late by a fixed ~0.5–1.5 ms per wait (more on a busy machine), which
// -speed does not shrink while it shrinks the margin; each run also
// checks its own drift (orderPhases.InMargin) and warns when it left it.
const orderMaxExactSpeed = 10

// orderPhases are one strategy's figures (scenario time).
type orderPhases struct {
	Strategy string `json:"strategy"`
	Swapped  bool   `json:"swapped"`
	// Phase 1: requests one after the other against a server failing
	// everything, until the breaker opened.
	Opened      bool    `json:"opened"`
	Requests    int     `json:"requestsToOpen"`
	ServerCalls int64   `json:"serverCallsToOpen"`
	OpenS       float64 `json:"timeToOpenS"`
	// Phase 2: orderAfterOpen more requests.
	AfterCalls           int64   `json:"callsAfterOpen"`
	AfterRefused         int     `json:"requestsRefusedAfterOpen"`
	AfterRefusedAttempts int64   `json:"attemptsRefusedAfterOpen"`
	AfterS               float64 `json:"afterOpenS"`
	// Phase 3: a fresh client and breaker, orderTransient requests whose
	// first attempt fails.
	Transient        int     `json:"transientRequests"`
	Successes        int     `json:"transientSuccesses"`
	TransientCalls   int64   `json:"transientServerCalls"`
	TransientRefused int64   `json:"transientAttemptsRefused"`
	FinalState       string  `json:"finalState"`
	FailureRatePct   float64 `json:"failureRatePct"`
	TransientS       float64 `json:"transientS"`
	// DriftS (swapped order) is how late, at most, the first trial after
	// an open came against its ideal time, the first whole number of
	// waits after the open period (scenario seconds); Slipped says one came
	// earlier, i.e. an attempt drifted past the end of the open period.
	// What the exact counts depend on.
	DriftS  float64 `json:"driftS,omitempty"`
	Slipped bool    `json:"slipped,omitempty"`
	// InMargin: the drift stayed under the margin and nothing slipped, so
	// the swapped counts are the model's, not the timers'.
	InMargin bool `json:"attemptsInMargin,omitempty"`

	calls []float64 // when each server call arrived (scenario s since the strategy began)
	opens []float64 // when the breaker opened (same clock)
}

// orderResults is the order scenario's Results.
type orderResults struct {
	Strategies []orderPhases `json:"strategies"`
	// Matched says whether every published count was matched; Missed
	// lists those that were not.
	Matched bool     `json:"allPublishedMatched"`
	Missed  []string `json:"missed,omitempty"`
	// Published are the published figures by order and table row.
	Published map[string]map[string]string `json:"published"`
}

// mkClient builds a strategy's client of the server at base; the
// cross-check test swaps in the runtime's own swapped order.
type mkClient func(s Strategy, base string, obs runtime.Observer) *Client

func order(ctx context.Context, t *Target, o Options) (*Report, error) {
	if t.Breaker == nil || t.Retry == nil || t.Retry.MaxAttempts <= 1 {
		has := "breaker " + t.BreakerName
		if t.Breaker == nil {
			has = "no breaker"
		}
		if t.Retry == nil || t.Retry.MaxAttempts <= 1 {
			has += ", no retry (" + t.RetryWhy + ")"
		}
		return nil, fmt.Errorf("%w: lab order compares the breaker outside and inside the retry loop, so it needs both, and %s %s (%s) has %s", ErrRefused, t.Method, t.Path, t.OperationID, has)
	}
	strategies := orderStrategies(t, o.Compare)
	for _, s := range strategies {
		if err := checkRetrySafe(t, s); err != nil {
			return nil, err
		}
	}
	clk := clock{o.Speed}
	mk := func(s Strategy, base string, obs runtime.Observer) *Client {
		return clk.NewClient(t, s, base, obs, nil)
	}
	res, err := runEach(o, "order", strategyNames(strategies), clk.d(orderExpected(t)), len(strategies), 0,
		func(i int) (orderPhases, error) { return orderRun(ctx, clk, t, strategies[i], mk) })
	if err != nil {
		return nil, err
	}
	return orderReport(t, o, res), nil
}

// orderStrategies: the spec's policy as generated, the same in the
// swapped order, and with -compare the swapped order whose retry does not
// retry a refusal (Polly's: its retry handles what it is told to, and
// BrokenCircuitException is seldom among it).
func orderStrategies(t *Target, compare bool) []Strategy {
	outside := SpecStrategy(t)
	outside.Name, outside.About = "outside", "breaker outside the retry loop (resgen, as generated)"
	swapped := SpecStrategy(t)
	swapped.Name, swapped.About, swapped.Swapped = "swapped", "breaker inside the retry loop, a refused attempt retried (Resilience4j)", true
	// The lab's swapped order hands a refusal to the retry loop as a
	// transport error; the server here never fails at the transport, so
	// retrying transport errors is exactly retrying refusals.
	swapped.Retry.RetryOn.Transport = true
	ss := []Strategy{outside, swapped}
	if compare {
		polly := SpecStrategy(t)
		polly.Name, polly.About, polly.Swapped = "swapped-no-retry-refused", "breaker inside the retry loop, a refusal ends the call (Polly)", true
		polly.Retry.RetryOn.Transport = false
		ss = append(ss, polly)
	}
	return ss
}

// orderExpected is about how long one strategy runs (scenario time): the
// outside order's 20 requests of two waits each, then 50 of one wait.
func orderExpected(t *Target) time.Duration {
	w := t.Retry.InitialInterval
	n := max(t.Breaker.MinimumCalls, 1)
	return time.Duration(n*(t.Retry.MaxAttempts-1)+orderTransient) * w
}

// orderRun runs the three phases for one strategy.
func orderRun(ctx context.Context, clk clock, t *Target, s Strategy, mk mkClient) (orderPhases, error) {
	r := orderPhases{Strategy: s.Name, Swapped: s.Swapped}
	begin := time.Now()
	since := func() float64 { return clk.back(time.Since(begin)).Seconds() }
	var mu sync.Mutex
	arrived := func() {
		at := since()
		mu.Lock()
		r.calls = append(r.calls, at)
		mu.Unlock()
	}

	// Phases 1 and 2: a server answering 500 to everything.
	failing := clk.NewServer(func(_ *Server, w http.ResponseWriter, _ *http.Request) {
		arrived()
		w.WriteHeader(http.StatusInternalServerError)
	})
	defer failing.Close()
	base := since()
	cnt := clk.NewCounter()
	cl := mk(s, failing.URL, cnt)
	defer cl.Close()
	// A breaker that never opens would loop for ever: stop after enough
	// requests to fill its window twice.
	limit := 2*max(t.Breaker.WindowSize, t.Breaker.MinimumCalls) + 10
	for r.Requests < limit && !opened(cnt) {
		if _, err := orderRequest(ctx, cl, t.Method, r.Requests); err != nil {
			return r, err
		}
		r.Requests++
	}
	r.ServerCalls = failing.Requests()
	if ch := firstOpen(cnt); ch != nil {
		r.Opened, r.OpenS = true, ch.At.Seconds()
	}

	calls0, refused0, start := failing.Requests(), cnt.Rejections.Load(), time.Now()
	for i := range orderAfterOpen {
		out, err := orderRequest(ctx, cl, t.Method, r.Requests+i)
		if err != nil {
			return r, err
		}
		if out == outRefused {
			r.AfterRefused++
		}
	}
	after := clk.back(time.Since(start))
	r.AfterS = after.Seconds()
	r.AfterCalls = failing.Requests() - calls0
	r.AfterRefusedAttempts = cnt.Rejections.Load() - refused0
	opens12 := opensAt(cnt, base)
	r.opens = append(r.opens, opens12...)
	mu.Lock()
	calls12 := slices.Clone(r.calls)
	mu.Unlock()
	cl.Close()
	failing.Close()

	// Phase 3: a fresh client and breaker; each request's first attempt
	// to reach the server fails, every later one succeeds.
	var seenMu sync.Mutex
	seen := map[string]bool{}
	transient := clk.NewServer(func(_ *Server, w http.ResponseWriter, req *http.Request) {
		arrived()
		key := req.Header.Get(labRequestHeader)
		seenMu.Lock()
		again := seen[key]
		seen[key] = true
		seenMu.Unlock()
		if !again {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	defer transient.Close()
	base = since()
	cnt = clk.NewCounter()
	cl = mk(s, transient.URL, cnt)
	defer cl.Close()
	start = time.Now()
	for i := range orderTransient {
		out, err := orderRequest(ctx, cl, t.Method, i)
		if err != nil {
			return r, err
		}
		if out == outSuccess {
			r.Successes++
		}
	}
	r.TransientS = clk.back(time.Since(start)).Seconds()
	r.Transient = orderTransient
	r.TransientCalls = transient.Requests()
	r.TransientRefused = cnt.Rejections.Load()
	m := cl.Breaker.Metrics()
	r.FinalState, r.FailureRatePct = m.State.String(), m.FailureRate
	opens3 := opensAt(cnt, base)
	r.opens = append(r.opens, opens3...)
	mu.Lock()
	calls3 := slices.Clone(r.calls[len(calls12):])
	mu.Unlock()
	if s.Swapped && s.Retry.RetryOn.Transport && constantWait(s.Retry) {
		w, inOpen := s.Retry.InitialInterval, s.Breaker.WaitInOpen
		d12, slip12 := trialDrift(calls12, opens12, w, inOpen)
		d3, slip3 := trialDrift(calls3, opens3, w, inOpen)
		r.DriftS, r.Slipped = max(d12, d3), slip12 || slip3
		// Half the margin: the drift measured is the first trial's, and
		// on a loaded machine the attempts around it drift as much again
		// (a run 186ms late against a 190ms margin missed the counts).
		r.InMargin = !r.Slipped && time.Duration(r.DriftS*1e9) < orderMargin(s.Breaker, s.Retry)/2
	}
	return r, nil
}

// trialDrift returns, in scenario seconds, how late at most the first server
// call after each open came against the first whole number of waits past
// the open period, and whether one came before it (an earlier attempt
// slipped past the end of the open period). calls are the times of one
// server's calls, sorted; an open without a later call is skipped.
func trialDrift(calls, opens []float64, wait, inOpen time.Duration) (worst float64, slipped bool) {
	ideal := (time.Duration(int(inOpen/wait)+1) * wait).Seconds()
	for _, o := range opens {
		i, _ := slices.BinarySearch(calls, o)
		if i == len(calls) {
			continue
		}
		late := calls[i] - o - ideal
		slipped = slipped || late < 0
		worst = max(worst, late)
	}
	return worst, slipped
}

// constantWait: every wait of the policy is InitialInterval exactly (the
// order servers send no Retry-After).
func constantWait(p *runtime.RetryPolicy) bool {
	return p.InitialInterval > 0 && p.Backoff == runtime.ConstantBackoff && p.Jitter == runtime.NoJitter
}

// labRequestHeader keys each logical request, so a server can tell a
// request's first attempt from its retries.
const labRequestHeader = "X-Lab-Request"

type requestOutcome uint8

const (
	outSuccess requestOutcome = iota // a 2xx answer
	outFailed                        // an answer of another status, or another error
	outRefused                       // the final error is the open breaker
)

// orderRequest sends logical request i and says how it ended; the error
// is the context's (the run was cancelled).
func orderRequest(ctx context.Context, cl *Client, method string, i int) (requestOutcome, error) {
	req, err := http.NewRequestWithContext(ctx, method, cl.URL, nil)
	if err != nil {
		return outFailed, err
	}
	req.Header.Set(labRequestHeader, strconv.Itoa(i))
	resp, _, err := cl.Op.Do(ctx, req)
	if ctx.Err() != nil {
		Drain(resp)
		return outFailed, ctx.Err()
	}
	switch {
	case errors.Is(err, runtime.ErrCircuitOpen):
		return outRefused, nil
	case err != nil:
		return outFailed, nil
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode/100 == 2 {
		return outSuccess, nil
	}
	return outFailed, nil
}

func opened(c *Counter) bool { return firstOpen(c) != nil }

func firstOpen(c *Counter) *StateChange {
	for _, ch := range c.Changes() {
		if ch.To == runtime.StateOpen {
			return &ch
		}
	}
	return nil
}

// opensAt returns when the counter's breaker opened, offset by base
// seconds (the counter's start on the strategy's clock).
func opensAt(c *Counter, base float64) []float64 {
	var ts []float64
	for _, ch := range c.Changes() {
		if ch.To == runtime.StateOpen {
			ts = append(ts, base+ch.At.Seconds())
		}
	}
	return ts
}

// orderRow is one figure of the headline table: its label, how to read
// it from a run, and the published outside and swapped values ("" when
// none was published; approximate ones are shown, not matched).
type orderRow struct {
	label       string
	get         func(orderPhases) string
	pubOutside  string
	pubSwapped  string
	approximate bool
}

func orderRows() []orderRow {
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	sec := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	return []orderRow{
		{label: "1 · requests until open", get: func(p orderPhases) string {
			if !p.Opened {
				return n(int64(p.Requests)) + " (not open)"
			}
			return n(int64(p.Requests))
		}, pubOutside: "20", pubSwapped: "7"},
		{label: "1 · server calls until open", get: func(p orderPhases) string { return n(p.ServerCalls) }, pubOutside: "60", pubSwapped: "20"},
		{label: "1 · time to open (s)", get: func(p orderPhases) string { return sec(p.OpenS) }, pubOutside: "~8.2", approximate: true},
		{label: "2 · calls that reached the server (of 10)", get: func(p orderPhases) string { return n(p.AfterCalls) }, pubOutside: "0", pubSwapped: "5"},
		{label: "2 · requests refused (breaker open)", get: func(p orderPhases) string { return n(int64(p.AfterRefused)) }, pubSwapped: "8"},
		{label: "2 · attempts refused", get: func(p orderPhases) string { return n(p.AfterRefusedAttempts) }},
		{label: "2 · time (s)", get: func(p orderPhases) string { return sec(p.AfterS) }},
		{label: "3 · successes (of 50)", get: func(p orderPhases) string { return n(int64(p.Successes)) }, pubOutside: "50", pubSwapped: "18"},
		{label: "3 · final state", get: func(p orderPhases) string { return p.FinalState }, pubOutside: "closed", pubSwapped: "open"},
		{label: "3 · failure rate", get: func(p orderPhases) string { return pct(p.FailureRatePct) }, pubOutside: "0%", pubSwapped: "60%"},
		{label: "3 · server calls", get: func(p orderPhases) string { return n(p.TransientCalls) }},
		{label: "3 · time (s)", get: func(p orderPhases) string { return sec(p.TransientS) }},
	}
}

// pct prints a percentage with at most one decimal.
func pct(v float64) string {
	return strconv.FormatFloat(float64(int64(v*10+0.5))/10, 'f', -1, 64) + "%"
}

// orderMismatches compares a run with the published figures: the labels
// of those it missed, and how many it was compared on.
func orderMismatches(res []orderPhases) (missed []string, compared int) {
	for _, row := range orderRows() {
		for _, p := range res {
			if p.Strategy != "outside" && p.Strategy != "swapped" {
				continue
			}
			pub := row.pubOutside
			if p.Swapped {
				pub = row.pubSwapped
			}
			if pub == "" || row.approximate {
				continue
			}
			compared++
			if row.get(p) != pub {
				missed = append(missed, p.Strategy+" "+row.label+": "+row.get(p)+", published "+pub)
			}
		}
	}
	return missed, compared
}

func orderReport(t *Target, o Options, res []orderPhases) *Report {
	b, rp := t.Breaker, t.Retry
	r := &Report{Policy: policyWords(t)}
	r.Setup = []string{
		"one user, requests one after the other, no think time; each request is keyed by its " + labRequestHeader + " header",
		"phase 1: the server answers 500 to every request; requests until the breaker opens",
		fmt.Sprintf("phase 2: %d more requests against the same server", orderAfterOpen),
		fmt.Sprintf("phase 3: a fresh client and breaker; %d requests, the first attempt of each to reach the server answered 503, every later one 200", orderTransient),
		"outside: the breaker admits and records each request once, its retries inside (resgen, as generated)",
		"swapped: the retry loop outside, each attempt a single-attempt call through the breaker, two real runtime operations composed; a refused attempt is retried like a failed one (Resilience4j's Retry(CircuitBreaker(call)))",
	}
	if o.Compare {
		r.Setup = append(r.Setup, "swapped-no-retry-refused: the same, but a refusal ends the call (Polly, whose retry handles only what it is told to)")
	}
	if o.Speed > 1 {
		r.Setup = append(r.Setup, speedNote(o.Speed))
	}

	cols := []string{"phase · figure"}
	for _, p := range res {
		cols = append(cols, p.Strategy)
	}
	cols = append(cols, "published outside", "published swapped")
	var byOrder [2]*orderPhases
	for i := range res {
		switch res[i].Strategy {
		case "outside":
			byOrder[0] = &res[i]
		case "swapped":
			byOrder[1] = &res[i]
		}
	}
	mark := func(p *orderPhases, row orderRow, pub string) string {
		switch {
		case pub == "":
			return "—"
		case row.approximate || p == nil:
			return pub
		case row.get(*p) == pub:
			return pub + " ✓"
		}
		return pub + " ✗"
	}
	tb := Table{Title: "breaker outside vs swapped (" + t.OperationID + ")", Columns: cols}
	for _, row := range orderRows() {
		cells := []string{row.label}
		for _, p := range res {
			cells = append(cells, row.get(p))
		}
		cells = append(cells, mark(byOrder[0], row, row.pubOutside), mark(byOrder[1], row, row.pubSwapped))
		tb.Rows = append(tb.Rows, cells)
	}
	tb.Notes = []string{"✓ the run matched the published count, ✗ it did not; the published ~8.2 s is approximate (2 waits of " + rp.InitialInterval.String() + " × 20 requests = 8.0 s plus the server's time), so it is shown, not matched"}
	if o.Speed > 1 {
		tb.Notes = append(tb.Notes, speedNote(o.Speed))
	}
	r.Tables = []Table{tb}

	missed, compared := orderMismatches(res)
	if len(missed) == 0 {
		r.Findings = append(r.Findings, fmt.Sprintf("all %d published counts matched, in both orders", compared))
	} else {
		r.Findings = append(r.Findings, fmt.Sprintf("%d of %d published counts matched; missed: %s", compared-len(missed), compared, joinSemi(missed)))
	}
	for _, p := range res {
		r.Findings = append(r.Findings, orderFinding(p))
	}
	if sw := byOrder[1]; sw != nil && constantWait(rp) {
		// The swapped order's attempts land a whole number of waits after
		// each open; the last refused one stays before the end of the open
		// period, the first trial after it, while they drift less than
		// the margin between the two.
		inOpen := int(b.WaitInOpen / rp.InitialInterval)
		margin := orderMargin(b, rp)
		drift := time.Duration(sw.DriftS * 1e9)
		r.Findings = append(r.Findings, fmt.Sprintf("swapped: the first trial after an open came at most %v late against %d waits after it; the counts are exact while that stays well under the margin of %v (waitInOpen %v = %d waits + %v; the run checks half of it)",
			drift.Round(100*time.Microsecond), inOpen+1, margin, b.WaitInOpen, inOpen, margin))
		switch {
		case sw.Slipped:
			r.Findings = append(r.Findings, "warning: a swapped attempt came so late that it passed the end of an open period and was let through as a trial a wait early, so the swapped counts depend on timing here (timers fire late, and -speed shrinks the margin, not the lateness): run at a lower -speed or on a quieter machine")
		case !sw.InMargin:
			r.Findings = append(r.Findings, "warning: the swapped order's attempts drifted past that margin (timers fire late, and -speed shrinks the margin, not the lateness), so its counts depend on timing here: run at a lower -speed or on a quieter machine")
		}
	}
	if o.Speed > orderMaxExactSpeed {
		r.Findings = append(r.Findings, fmt.Sprintf("warning: sped up ×%g, above ×%d, the highest speed at which the counts were exact under -race on 2 busy cores: the swapped order's counts may be off", o.Speed, orderMaxExactSpeed))
	}

	plot := Plot{Name: "order", Title: "server calls over time: breaker outside vs swapped", XLabel: "time (s)", YLabel: "server calls (cumulative)", Step: true}
	for _, p := range res {
		pts := []Point{{0, 0}}
		for i, at := range p.calls {
			pts = append(pts, Point{at, float64(i + 1)})
		}
		plot.Series = append(plot.Series, Series{Name: p.Strategy, Points: pts})
		// Only the first open, sustained failure's: the swapped order
		// re-opens after every half-open, and a mark each would bury the
		// one that matters.
		if len(p.opens) > 0 {
			plot.Marks = append(plot.Marks, Mark{X: p.opens[0], Label: p.Strategy + " opened"})
		}
	}
	r.Plots = []Plot{plot}

	var out orderResults
	out.Strategies = res
	out.Matched = len(missed) == 0
	out.Missed = missed
	out.Published = map[string]map[string]string{"outside": {}, "swapped": {}}
	for _, row := range orderRows() {
		if row.pubOutside != "" {
			out.Published["outside"][row.label] = row.pubOutside
		}
		if row.pubSwapped != "" {
			out.Published["swapped"][row.label] = row.pubSwapped
		}
	}
	r.Results = out
	return r
}

// orderMargin is how late the swapped order's attempts may come and
// still land on their side of the end of the open period: the part of
// waitInOpen past its last whole wait (0: they land on it).
func orderMargin(b *runtime.BreakerPolicy, r *runtime.RetryPolicy) time.Duration {
	w := r.InitialInterval
	return b.WaitInOpen - b.WaitInOpen/w*w
}

// orderFinding says what one strategy's run shows, in numbers.
func orderFinding(p orderPhases) string {
	open := fmt.Sprintf("opened after %d requests (%d server calls, %.2f s)", p.Requests, p.ServerCalls, p.OpenS)
	if !p.Opened {
		open = fmt.Sprintf("did not open in %d requests (%d server calls)", p.Requests, p.ServerCalls)
	}
	return fmt.Sprintf("%s: the breaker %s; of %d requests after that %d reached the server (%d calls) and %d were refused; against transient failures %d of %d succeeded, breaker %s at %s failure rate",
		p.Strategy, open, orderAfterOpen, orderAfterOpen-p.AfterRefused, p.AfterCalls, p.AfterRefused, p.Successes, p.Transient, p.FinalState, pct(p.FailureRatePct))
}
