//go:build unix

package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/resgen/resgen/scripts/internal/benchrun"
)

// sample is one run of one side on one spec.
type sample struct {
	wall, cpu float64 // seconds; cpu is user+sys
	rssKiB    float64
}

// summary is one side's runs on one spec: medians, and the range of the
// wall times.
type summary struct {
	wall, cpu, rssKiB float64
	wallMin, wallMax  float64
}

func summarize(runs []sample) summary {
	var wall, cpu, rss []float64
	for _, r := range runs {
		wall, cpu, rss = append(wall, r.wall), append(cpu, r.cpu), append(rss, r.rssKiB)
	}
	if len(runs) == 0 {
		return summary{}
	}
	return summary{
		wall: benchrun.MedianOf(wall), cpu: benchrun.MedianOf(cpu), rssKiB: benchrun.MedianOf(rss),
		wallMin: slices.Min(wall), wallMax: slices.Max(wall),
	}
}

// row is one spec's line of the table.
type row struct {
	spec             spec
	floor, base, cur summary
}

// table is what writeTable prints.
type table struct {
	baseRev, newRev, floor string
	rounds                 int
	rows                   []row
	machine                string
	took                   time.Duration
}

// writeTable prints the markdown table, the method and the machine.
func writeTable(w io.Writer, t table) {
	fmt.Fprintf(w, "resgen generate over its floor (%s: load + relaxed validation), base %s against new %s, measured in one run\n\n", t.floor, t.baseRev, t.newRev)
	fmt.Fprintf(w, "| spec | size | floor s | base s | base ×floor | new s | new ×floor | goal ≤ %s | met? | floor RSS | base RSS | new RSS |\n", times(goalRatio))
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|:-:|---:|---:|---:|")
	for _, r := range t.rows {
		newX := over(r.cur.wall, r.floor.wall)
		fmt.Fprintf(w, "| %s | %s | %.2f | %.2f | %s | %.2f | %s | ≤ %.2f s | %s | %s | %s | %s |\n",
			r.spec.name, size(r.spec.size),
			r.floor.wall, r.base.wall, times(over(r.base.wall, r.floor.wall)),
			r.cur.wall, times(newX), goalRatio*r.floor.wall, met(newX),
			benchrun.MiB(r.floor.rssKiB), benchrun.MiB(r.base.rssKiB), benchrun.MiB(r.cur.rssKiB))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| spec | floor wall min – max | base wall min – max | new wall min – max | floor CPU s | base CPU s | base CPU ×floor | new CPU s | new CPU ×floor |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range t.rows {
		span := func(m summary) string { return fmt.Sprintf("%.2f – %.2f", m.wallMin, m.wallMax) }
		fmt.Fprintf(w, "| %s | %s | %s | %s | %.2f | %.2f | %s | %.2f | %s |\n",
			r.spec.name, span(r.floor), span(r.base), span(r.cur),
			r.floor.cpu, r.base.cpu, times(over(r.base.cpu, r.floor.cpu)), r.cur.cpu, times(over(r.cur.cpu, r.floor.cpu)))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Wall time, CPU time and peak RSS (ru_maxrss of the child) are medians of %d %s, each a process of its own, run in the order floor, new, base per spec and round; ×floor is median over median; the goal column is the new side's time the goal allows. %s; the run took %s.\n",
		t.rounds, plural(t.rounds, "run"), t.machine, t.took.Round(time.Second))
}

// over is a/b, 0 when b is not positive.
func over(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

// ratio formats a factor with two decimals, – for none.
func ratio(x float64) string {
	if x <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", x)
}

// times is ratio with a ×, – for none.
func times(x float64) string {
	if x <= 0 {
		return "–"
	}
	return ratio(x) + "×"
}

// met says whether a factor over the floor meets the goal.
func met(x float64) string {
	if x > 0 && x <= goalRatio {
		return "yes"
	}
	return "no"
}

// size formats a file size in MiB, or KiB under 1 MiB.
func size(b int64) string {
	if b < 1<<20 {
		return fmt.Sprintf("%.0f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// machine describes where the numbers were measured: the parallelism the
// children get (they inherit benchgen's environment), the CPUs, the Go
// that built the binaries, and GC settings from the environment, which
// change every side's time.
func machine(goVersion, loadStart string) string {
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	parts := []string{
		fmt.Sprintf("GOMAXPROCS %d", runtime.GOMAXPROCS(0)),
		fmt.Sprintf("nproc %d", runtime.NumCPU()),
		goVersion + " " + runtime.GOOS + "/" + runtime.GOARCH,
	}
	for _, env := range []string{"GOGC", "GOMEMLIMIT", "GOMAXPROCS"} {
		if v, ok := os.LookupEnv(env); ok {
			parts = append(parts, env+"="+v)
		}
	}
	if end := loadAverage(); end != "" {
		parts = append(parts, fmt.Sprintf("load average (1 / 5 / 15 min) %s at the start, %s at the end", loadStart, end))
	}
	return strings.Join(parts, ", ")
}

// loadAverage is /proc/loadavg's three averages, "" where there is none.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " / ")
}
