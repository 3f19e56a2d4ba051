package lab

import (
	"math"
	"time"
)

// fakeReport is a storm-like report with every part filled, for the
// writer's tests (the scenarios are tested on their own).
func fakeReport() *Report {
	names := []string{"spec policy", "no retry", "naive (5 attempts, immediate)", "backoff, no jitter", "backoff, full jitter", "backoff, equal jitter", "backoff, decorrelated jitter", "backoff, full jitter + budget"}
	var series []Series
	for i, n := range names {
		var ps []Point
		for k := 0; k <= 400; k++ {
			x := float64(k) * 0.02
			y := math.Round(10 + 20*math.Exp(-x*float64(i+1)/4)*math.Abs(math.Sin(x*3+float64(i))))
			if x > 5+float64(i)*0.3 {
				y = 0
			}
			ps = append(ps, Point{x, y})
		}
		series = append(series, Series{Name: n, Points: ps})
	}
	return &Report{
		Scenario:  "storm",
		Spec:      "testdata/specs/lab.yaml",
		Operation: "listItems",
		Policy:    "breaker default (count 100, 50%), retry 3 attempts, exponential 100ms→2s, full jitter",
		Speed:     10,
		Started:   time.Date(2026, 12, 1, 16, 30, 0, 0, time.UTC),
		Took:      1234 * time.Millisecond,
		Setup:     []string{"50 users × 5 requests, no think time", "capacity 10 concurrent × 200ms, queue 20, beyond: 503", "sped up ×10: every duration ÷10"},
		Tables: []Table{{
			Title:   "storm: 250 logical calls",
			Columns: []string{"strategy", "server requests", "amplification", "success", "wall", "÷ floor"},
			Rows: [][]string{
				{"spec policy", "312", "1.25×", "100%", "6.1s", "1.22"},
				{"naive → storm", "1210", "4.84×", "61%", "12.0s", "2.40"},
				{"no retry", "250", "1.00×", "40%", "5.0s", "1.00"},
			},
			Notes: []string{"floor = 250 calls / (10 / 200ms) = 5s"},
		}},
		Plots: []Plot{
			{Name: "load", Title: "server in-flight requests", XLabel: "time (s)", YLabel: "in-flight requests", Series: series, Step: true,
				Marks: []Mark{{1, "server down"}, {1.3, "open"}, {4, "half-open"}, {4.1, "closed"}}},
			{Name: "rejections", Title: "rejections per second", XLabel: "time (s)", YLabel: "503/s", Series: series[:3]},
		},
		Log:      []string{`time=... level=WARN msg="breaker opened" breaker=default reason="failure rate 40% ≥ 40%"`},
		Findings: []string{"the spec policy reaches 100% success at 1.25× amplification"},
		Results:  map[string]any{"strategies": []map[string]any{{"name": "spec policy", "wallS": 6.1, "amplification": 1.25}}},
	}
}
