package lab

// The slow scenario: a server that answers every call correctly (200)
// but slower and slower, from well under the breaker's slowCallDuration
// to well over it (yet under the attempt timeout: slow successes, not
// timeouts). It shows when the breaker opens on slow calls alone, with
// no error returned before, and the runtime's log line saying why.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/resgen/resgen/runtime"
)

// slowPerStep is how many calls the server answers at each latency step
// under slowCallDuration; slowAfter how many calls follow the over-slow
// steps, to show what callers get once the breaker is open.
const (
	slowPerStep = 5
	slowAfter   = 5
)

// slowCallHeader numbers each call, so the server knows its latency.
const slowCallHeader = "X-Lab-Call"

// slowPlan is the server's latency per call, in scenario time.
type slowPlan struct {
	// base is what "slow" means here: the policy's slowCallDuration, or,
	// when the breaker cannot open on slow calls, a stand-in below the
	// timeout.
	base      time.Duration
	latencies []time.Duration
	// why is "" when the breaker can open on slow calls, else why not.
	why string
}

// planSlow builds the latency steps for the target: four steps under
// slowCallDuration (0.2 to 0.8 of it), then enough calls over it (1.2,
// then 1.6 of it, both kept under the attempt timeout) to fill the
// window with slow calls, then slowAfter more.
func planSlow(t *Target) slowPlan {
	p := slowPlan{why: slowCannotOpen(t)}
	p.base = time.Second
	switch {
	case p.why == "":
		p.base = t.Breaker.SlowCallDuration
	case t.Timeout > 0:
		p.base = t.Timeout / 2
	}
	over := func(f, g float64) time.Duration {
		d := time.Duration(f * float64(p.base))
		if t.Timeout > 0 {
			d = min(d, p.base+time.Duration(g*float64(t.Timeout-p.base)))
		}
		return d
	}
	for _, f := range []float64{0.2, 0.4, 0.6, 0.8} {
		for range slowPerStep {
			p.latencies = append(p.latencies, time.Duration(f*float64(p.base)))
		}
	}
	n := 10
	if b := t.Breaker; b != nil {
		n = max(n, b.WindowSize, b.MinimumCalls)
	}
	for i := range n + slowAfter {
		if i < slowPerStep {
			p.latencies = append(p.latencies, over(1.2, 0.4))
		} else {
			p.latencies = append(p.latencies, over(1.6, 0.7))
		}
	}
	return p
}

// slowCannotOpen says why the target's breaker cannot open on slow
// calls, "" when it can.
func slowCannotOpen(t *Target) string {
	b := t.Breaker
	switch {
	case b == nil:
		return fmt.Sprintf("%s has no breaker (breaker: none), so nothing stops callers waiting on a slow server", t.OperationID)
	case b.SlowCallRateThreshold <= 0:
		return fmt.Sprintf("breaker %q has slow-call detection off (slowCallRateThreshold 0), so it cannot open on slow calls", t.BreakerName)
	case b.SlowCallDuration <= 0:
		return fmt.Sprintf("breaker %q has no slowCallDuration, so no call counts as slow", t.BreakerName)
	case t.Timeout > 0 && b.SlowCallDuration >= t.Timeout:
		return fmt.Sprintf("breaker %q counts a call as slow from %v, but the attempt timeout is %v: a call that slow times out first (a failure, not a slow success), so it cannot open on slow calls", t.BreakerName, b.SlowCallDuration, t.Timeout)
	}
	return ""
}

// slowCall is one call of a run (scenario time).
type slowCall struct {
	AtS            float64 `json:"atS"`
	ServerLatencyS float64 `json:"serverLatencyS"`
	LatencyS       float64 `json:"latencyS"`
	// Outcome is "ok" (a 2xx), "refused" (the breaker was open) or
	// "error".
	Outcome string `json:"outcome"`
}

// slowRun is one strategy's figures (scenario time).
type slowRun struct {
	Strategy string `json:"strategy"`
	Calls    int    `json:"calls"`
	// SlowCalls are the calls answered in slowCallDuration or more before
	// the breaker opened (all of them when it did not).
	SlowCalls int  `json:"slowCalls"`
	Opened    bool `json:"opened"`
	// OpenCall is the call (1-based) whose outcome opened the breaker.
	OpenCall         int     `json:"openCall,omitempty"`
	OpenAtS          float64 `json:"openAtS,omitempty"`
	LatencyAtOpenS   float64 `json:"latencyAtOpenS,omitempty"`
	ErrorsBeforeOpen int     `json:"errorsBeforeOpen"`
	RefusedAfterOpen int     `json:"refusedAfterOpen"`
	ErrorsAfterOpen  int     `json:"errorsAfterOpen"`
	ServerRequests   int64   `json:"serverRequests"`
	ServerOK         int64   `json:"serverOK"`
	// WaitedS is the time callers spent in calls, all calls added up.
	WaitedS    float64    `json:"waitedS"`
	WallS      float64    `json:"wallS"`
	FinalState string     `json:"finalState"`
	Log        []string   `json:"log,omitempty"`
	CallList   []slowCall `json:"callList"`
	opens      []float64
}

// slowResults is the slow scenario's Results.
type slowResults struct {
	SlowCallDurationS float64   `json:"slowCallDurationS"`
	CannotOpen        string    `json:"cannotOpen,omitempty"`
	Strategies        []slowRun `json:"strategies"`
}

func slow(ctx context.Context, t *Target, o Options) (*Report, error) {
	plan := planSlow(t)
	strategies := []Strategy{SpecStrategy(t)}
	if o.Compare && t.Breaker != nil && plan.why == "" {
		off := SpecStrategy(t)
		off.Name, off.About = "slow detection off", "the same breaker with slowCallRateThreshold 0"
		off.Breaker.SlowCallRateThreshold = 0
		strategies = append(strategies, off)
	}
	for _, s := range strategies {
		if err := checkRetrySafe(t, s); err != nil {
			return nil, err
		}
	}
	clk := clock{o.Speed}
	var expected time.Duration
	for _, d := range plan.latencies {
		expected += d
	}
	res, err := runEach(o, "slow", strategyNames(strategies), clk.d(expected), len(strategies), 0,
		func(i int) (slowRun, error) { return slowRunOne(ctx, clk, t, strategies[i], plan) })
	if err != nil {
		return nil, err
	}
	return slowReportOf(t, o, plan, res), nil
}

// slowRunOne makes the plan's calls one after the other.
func slowRunOne(ctx context.Context, clk clock, t *Target, s Strategy, plan slowPlan) (slowRun, error) {
	r := slowRun{Strategy: s.Name}
	srv := clk.NewServer(func(_ *Server, w http.ResponseWriter, req *http.Request) {
		i, err := strconv.Atoi(req.Header.Get(slowCallHeader))
		if err != nil || i < 0 || i >= len(plan.latencies) {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		tm := time.NewTimer(clk.d(plan.latencies[i]))
		defer tm.Stop()
		select {
		case <-tm.C:
		case <-req.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"report":"ok"}`))
	})
	defer srv.Close()
	var answeredOK int64
	logs := &lockedBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{ReplaceAttr: dropTime}))
	cnt := clk.NewCounter()
	cl := clk.NewClient(t, s, srv.URL, cnt, log)
	defer cl.Close()
	begin := time.Now()
	slowFrom := time.Duration(0)
	if s.Breaker != nil {
		slowFrom = s.Breaker.SlowCallDuration
	}
	for i, lat := range plan.latencies {
		req, err := http.NewRequestWithContext(ctx, t.Method, cl.URL, nil)
		if err != nil {
			return r, err
		}
		req.Header.Set(slowCallHeader, strconv.Itoa(i))
		at := clk.back(time.Since(begin))
		start := time.Now()
		resp, _, err := cl.Op.Do(ctx, req)
		took := clk.back(time.Since(start))
		if ctx.Err() != nil {
			Drain(resp)
			return r, ctx.Err()
		}
		c := slowCall{AtS: at.Seconds(), ServerLatencyS: lat.Seconds(), LatencyS: took.Seconds(), Outcome: "ok"}
		switch {
		case errors.Is(err, runtime.ErrCircuitOpen):
			c.Outcome, c.ServerLatencyS = "refused", 0
		case err != nil || resp.StatusCode/100 != 2:
			c.Outcome = "error"
		}
		if resp != nil {
			if resp.StatusCode/100 == 2 {
				answeredOK++
			}
			Drain(resp)
		}
		wasOpen := r.Opened
		if !wasOpen && opened(cnt) {
			r.Opened, r.OpenCall, r.LatencyAtOpenS = true, i+1, took.Seconds()
			r.OpenAtS = firstOpen(cnt).At.Seconds()
		}
		switch {
		case !wasOpen && c.Outcome != "ok":
			r.ErrorsBeforeOpen++
		case wasOpen && c.Outcome == "refused":
			r.RefusedAfterOpen++
		case wasOpen && c.Outcome == "error":
			r.ErrorsAfterOpen++
		}
		if !wasOpen && c.Outcome == "ok" && slowFrom > 0 && took >= slowFrom {
			r.SlowCalls++
		}
		r.WaitedS += took.Seconds()
		r.CallList = append(r.CallList, c)
	}
	r.Calls = len(plan.latencies)
	r.WallS = clk.back(time.Since(begin)).Seconds()
	r.ServerRequests, r.ServerOK = srv.Requests(), answeredOK
	if cl.Breaker != nil {
		r.FinalState = cl.Breaker.State().String()
	}
	r.opens = opensAt(cnt, 0)
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if strings.Contains(line, " opened: ") {
			r.Log = append(r.Log, line)
		}
	}
	return r, nil
}

func slowReportOf(t *Target, o Options, plan slowPlan, res []slowRun) *Report {
	sec := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	r := &Report{Policy: policyWords(t)}
	steps := []string{}
	for i := 0; i < len(plan.latencies); i += slowPerStep {
		steps = append(steps, plan.latencies[i].String())
	}
	r.Setup = []string{
		fmt.Sprintf("one user, %d calls one after the other, no think time; the server answers every call 200, taking longer and longer: %d calls at each of %s (the last step until the end)", len(plan.latencies), slowPerStep, strings.Join(compactSteps(steps), ", ")),
	}
	if plan.why == "" {
		r.Setup = append(r.Setup, fmt.Sprintf("slow means ≥ slowCallDuration %v; every latency stays under the attempt timeout %v, so slow calls are successes, not timeouts", plan.base, t.Timeout))
	} else {
		r.Setup = append(r.Setup, fmt.Sprintf("%s; the steps are fractions of %v instead, under the attempt timeout %v", plan.why, plan.base, t.Timeout))
	}
	if len(res) > 1 {
		r.Setup = append(r.Setup, res[1].Strategy+": the same breaker with slowCallRateThreshold 0, to show what slow-call detection alone does")
	}
	if o.Speed > 1 {
		r.Setup = append(r.Setup, speedNote(o.Speed)+"; the runtime's log lines are in wall time (durations ÷"+strconv.FormatFloat(o.Speed, 'g', -1, 64)+")")
	}

	cols := []string{"figure"}
	for _, p := range res {
		cols = append(cols, p.Strategy)
	}
	type row struct {
		label string
		get   func(slowRun) string
	}
	n := func(v int) string { return strconv.Itoa(v) }
	rows := []row{
		{"calls", func(p slowRun) string { return n(p.Calls) }},
		{"slow calls (≥ " + plan.base.String() + ") before open, or in all", func(p slowRun) string { return n(p.SlowCalls) }},
		{"opened at call", func(p slowRun) string { return ifOpen(p, n(p.OpenCall)) }},
		{"opened at (s)", func(p slowRun) string { return ifOpen(p, sec(p.OpenAtS)) }},
		{"latency at open (s)", func(p slowRun) string { return ifOpen(p, sec(p.LatencyAtOpenS)) }},
		{"errors returned before open", func(p slowRun) string { return n(p.ErrorsBeforeOpen) }},
		{"calls failed fast after open", func(p slowRun) string { return n(p.RefusedAfterOpen) }},
		{"other errors after open", func(p slowRun) string { return n(p.ErrorsAfterOpen) }},
		{"server answers 200 / requests", func(p slowRun) string {
			return strconv.FormatInt(p.ServerOK, 10) + " / " + strconv.FormatInt(p.ServerRequests, 10)
		}},
		{"time callers waited (s)", func(p slowRun) string { return sec(p.WaitedS) }},
		{"wall time (s)", func(p slowRun) string { return sec(p.WallS) }},
		{"breaker at the end", func(p slowRun) string { return cmp.Or(p.FinalState, "none") }},
	}
	tb := Table{Title: "slow calls (" + t.OperationID + ")", Columns: cols}
	for _, rw := range rows {
		cells := []string{rw.label}
		for _, p := range res {
			cells = append(cells, rw.get(p))
		}
		tb.Rows = append(tb.Rows, cells)
	}
	if o.Speed > 1 {
		tb.Notes = append(tb.Notes, speedNote(o.Speed))
	}
	r.Tables = []Table{tb}

	spec := res[0]
	for _, p := range res {
		for _, l := range p.Log {
			r.Log = append(r.Log, p.Strategy+": "+l)
		}
	}
	if plan.why != "" {
		r.Findings = append(r.Findings, "cannot open on slow calls: "+plan.why)
	}
	if spec.ErrorsBeforeOpen == 0 && spec.ServerOK == spec.ServerRequests {
		r.Findings = append(r.Findings, fmt.Sprintf("%s: every call the server got was answered 200 (%d), and no call returned an error before the breaker opened", spec.Strategy, spec.ServerOK))
	}
	switch {
	case spec.Opened && spec.ErrorsBeforeOpen == 0:
		r.Findings = append(r.Findings, fmt.Sprintf("%s: the breaker opened on slow calls alone at call %d (%.2f s in), answered in %.2f s against a slowCallDuration of %v, after %d slow calls; then %d calls failed fast with the breaker open", spec.Strategy, spec.OpenCall, spec.OpenAtS, spec.LatencyAtOpenS, plan.base, spec.SlowCalls, spec.RefusedAfterOpen))
	case spec.Opened:
		r.Findings = append(r.Findings, fmt.Sprintf("%s: the breaker opened at call %d, but %d calls returned an error before: not on slow calls alone", spec.Strategy, spec.OpenCall, spec.ErrorsBeforeOpen))
	default:
		r.Findings = append(r.Findings, fmt.Sprintf("%s: the breaker did not open in %d calls (%d slow); callers waited %.2f s in all", spec.Strategy, spec.Calls, spec.SlowCalls, spec.WaitedS))
	}
	if spec.Opened && len(spec.Log) == 0 {
		r.Findings = append(r.Findings, "the breaker opened but the runtime logged no line saying why")
	}
	if len(res) > 1 {
		off := res[1]
		state := "stayed " + cmp.Or(off.FinalState, "none")
		if off.Opened {
			state = fmt.Sprintf("opened at call %d", off.OpenCall)
		}
		r.Findings = append(r.Findings, fmt.Sprintf("%s: the breaker %s and no call failed (%d errors); callers waited %.2f s in all against %.2f s with detection on", off.Strategy, state, off.ErrorsBeforeOpen+off.ErrorsAfterOpen+off.RefusedAfterOpen, off.WaitedS, spec.WaitedS))
	}

	plot := Plot{Name: "slow", Title: "call latency over time (slow-call breaker)", XLabel: "time (s)", YLabel: "call latency (s)"}
	end := 0.0
	for _, p := range res {
		pts := make([]Point, 0, len(p.CallList))
		for _, c := range p.CallList {
			pts = append(pts, Point{c.AtS, c.LatencyS})
			end = max(end, c.AtS+c.LatencyS)
		}
		plot.Series = append(plot.Series, Series{Name: p.Strategy, Points: pts})
		for _, at := range p.opens {
			plot.Marks = append(plot.Marks, Mark{X: at, Label: p.Strategy + " open"})
		}
	}
	plot.Series = append(plot.Series, Series{Name: "slowCallDuration " + plan.base.String(), Points: []Point{{0, plan.base.Seconds()}, {end, plan.base.Seconds()}}})
	r.Plots = []Plot{plot}
	r.Results = slowResults{SlowCallDurationS: plan.base.Seconds(), CannotOpen: plan.why, Strategies: res}
	return r
}

func ifOpen(p slowRun, s string) string {
	if !p.Opened {
		return "—"
	}
	return s
}

// compactSteps drops repeats of the last step ("1.6s, 1.6s" → "1.6s").
func compactSteps(steps []string) []string {
	var out []string
	for _, s := range steps {
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}
