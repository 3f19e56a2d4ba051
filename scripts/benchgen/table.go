//go:build unix

package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/resgen/resgen/scripts/internal/benchrun"
)

// medians are one side's medians on one spec.
type medians struct {
	wall   float64 // seconds
	rssKiB float64
}

// row is one spec's line of the table.
type row struct {
	spec             spec
	floor, base, cur medians
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
	fmt.Fprintf(w, "| spec | size | floor s | base s | base ×floor | new s | new ×floor | goal ≤ %s× | met? | floor RSS | base RSS | new RSS |\n", ratio(goalRatio))
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|:-:|---:|---:|---:|")
	for _, r := range t.rows {
		newX := over(r.cur.wall, r.floor.wall)
		fmt.Fprintf(w, "| %s | %s | %.2f | %.2f | %s× | %.2f | %s× | ≤ %.2f s | %s | %s | %s | %s |\n",
			r.spec.name, size(r.spec.size),
			r.floor.wall, r.base.wall, ratio(over(r.base.wall, r.floor.wall)),
			r.cur.wall, ratio(newX), goalRatio*r.floor.wall, met(newX),
			benchrun.MiB(r.floor.rssKiB), benchrun.MiB(r.base.rssKiB), benchrun.MiB(r.cur.rssKiB))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Wall time and peak RSS (ru_maxrss of the child) are medians of %d %s, each a process of its own, run in the order floor, new, base per spec and round; ×floor is median over median; the goal column is the new side's time the goal allows. %s; the run took %s.\n",
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
func machine(goVersion string) string {
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
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			parts = append(parts, fmt.Sprintf("load average %s / %s / %s at the end", f[0], f[1], f[2]))
		}
	}
	return strings.Join(parts, ", ")
}
