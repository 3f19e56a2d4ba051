package lab

import "time"

// Report is what a scenario run gives: everything `resgen lab` prints
// (Tables), writes to report.md (all of it), results.json (Results and
// the tables) and one SVG per plot.
type Report struct {
	// Scenario is the scenario's name ("storm").
	Scenario string `json:"scenario"`
	// Spec and Operation name what ran; Policy says it in words (the
	// spec's breaker and retry, as explain says them).
	Spec      string `json:"spec"`
	Operation string `json:"operation"`
	Policy    string `json:"policy"`
	// Speed is Options.Speed; tables say a run was sped up when it is > 1.
	Speed float64 `json:"speed"`
	// Started is when the run began; Took how long it ran (wall time).
	Started time.Time     `json:"started"`
	Took    time.Duration `json:"tookNs"`
	// Setup describes the scenario's model, one line each ("50 users × 5
	// requests, no think time", "capacity 10 concurrent × 200ms").
	Setup []string `json:"setup"`
	// Tables are printed in order; the first is the headline.
	Tables []Table `json:"tables"`
	// Plots each become NAME.svg.
	Plots []Plot `json:"-"`
	// Log holds log lines worth showing (a breaker's "opened: slow-call
	// rate ..." line), as the runtime wrote them.
	Log []string `json:"log,omitempty"`
	// Findings are short conclusions, one line each ("the breaker opened
	// on slow calls alone after 10 calls").
	Findings []string `json:"findings,omitempty"`
	// Results are the scenario's numbers in machine form (its own struct).
	Results any `json:"results"`
}

// Table is a titled table of text cells. Columns are right-aligned
// except the first.
type Table struct {
	Title   string     `json:"title"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
	// Notes are printed under the table.
	Notes []string `json:"notes,omitempty"`
}

// Plot is a line chart over time, one line per series.
type Plot struct {
	// Name is the file stem (NAME.svg), Title the chart's title.
	Name, Title string
	// XLabel and YLabel label the axes ("time (s)", "in-flight requests").
	XLabel, YLabel string
	Series         []Series
	// Marks are vertical lines with a label ("server down", "open").
	Marks []Mark
	// Step draws each series as a step function (counts, states) instead
	// of straight segments.
	Step bool
}

// Series is one line of a plot; X ascending.
type Series struct {
	Name   string
	Points []Point
}

// Point is an (x, y) pair in the plot's units.
type Point struct{ X, Y float64 }

// Mark is a labelled vertical line at X.
type Mark struct {
	X     float64
	Label string
}
