//go:build unix

package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/resgen/resgen/scripts/internal/benchrun"
)

// goalTable prints the size and speed goals as a markdown table, baseline against
// new, and says whether the new side meets each.
func goalTable(base, cur *side, took time.Duration) bool {
	fmt.Printf("Size and speed goals, measured in one run: baseline %s against new %s\n\n", base.rev, cur.rev)
	fmt.Printf("| goal | baseline %s | new %s | new/base | met |\n", base.rev, cur.rev)
	fmt.Println("|---|---:|---:|---:|:-:|")
	ok := true
	row := func(goal, b, n string, ratio float64, met bool) {
		r := "–"
		if ratio > 0 {
			r = fmt.Sprintf("%.2f", ratio)
		}
		fmt.Printf("| %s | %s | %s | %s | %s |\n", goal, b, n, r, yesNo(met))
		ok = ok && met
	}
	div := func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a / b
	}

	bm, nm := base.petLines.mean(), cur.petLines.mean()
	row("petstore: generated lines per operation ≤ 40",
		fmt.Sprintf("%.1f (%d ops, file %d lines)", bm, len(base.petLines.Ops), base.petLines.Total),
		fmt.Sprintf("%.1f (%d ops, file %d lines)", nm, len(cur.petLines.Ops), cur.petLines.Total),
		div(nm, bm), nm <= 40)
	row("Cloudflare: output lines ≤ 0.65× baseline", thousands(base.cfLines), thousands(cur.cfLines),
		div(float64(cur.cfLines), float64(base.cfLines)), div(float64(cur.cfLines), float64(base.cfLines)) <= 0.65)
	if len(base.buildSecs) > 0 {
		secs := func(v []float64) string {
			return fmt.Sprintf("%.1f s (%.1f – %.1f)", benchrun.MedianOf(v), slices.Min(v), slices.Max(v))
		}
		bt, nt := benchrun.MedianOf(base.buildSecs), benchrun.MedianOf(cur.buildSecs)
		bc, nc := benchrun.MedianOf(base.buildCPU), benchrun.MedianOf(cur.buildCPU)
		br, nr := benchrun.MedianOf(base.buildRSSKiB), benchrun.MedianOf(cur.buildRSSKiB)
		row(fmt.Sprintf("Cloudflare: `go build` wall time ≤ 0.5× (median of %d, range)", len(base.buildSecs)),
			secs(base.buildSecs), secs(cur.buildSecs), div(nt, bt), div(nt, bt) <= 0.5)
		row("Cloudflare: `go build` CPU time (user+sys) ≤ 0.5×, steadier than wall time on a busy machine",
			secs(base.buildCPU), secs(cur.buildCPU), div(nc, bc), div(nc, bc) <= 0.5)
		row(fmt.Sprintf("Cloudflare: `go build` peak RSS ≤ 0.5× (median of %d)", len(base.buildRSSKiB)),
			benchrun.MiB(br), benchrun.MiB(nr), div(nr, br), div(nr, br) <= 0.5)
	}
	bo, no := overhead(base.all), overhead(cur.all)
	if bo.pair != "" && no.pair != "" {
		row(fmt.Sprintf("call overhead, default timeouts ≤ 400 ns (%s)", pairNote(bo, no)),
			fmt.Sprintf("%.0f ns", bo.ns), fmt.Sprintf("%.0f ns", no.ns), div(no.ns, bo.ns), no.ns <= 400)
		row("call overhead, default timeouts ≤ 1 alloc", fmt.Sprintf("%.0f allocs, %.0f B", bo.allocs, bo.bytes),
			fmt.Sprintf("%.0f allocs, %.0f B", no.allocs, no.bytes), 0, no.allocs <= 1)
	}
	bl, bLo, bHi := pairedRatio(base.all)
	nl, nLo, nHi := pairedRatio(cur.all)
	if bl > 0 && nl > 0 {
		row("loopback: generated / hand-written net/http ≤ 1.05 (paired)",
			fmt.Sprintf("%.3f (%.3f – %.3f)", bl, bLo, bHi), fmt.Sprintf("%.3f (%.3f – %.3f)", nl, nLo, nHi), div(nl, bl), nl <= 1.05)
	}

	fmt.Println()
	g := median(cur.all["GobreakerExecute"], ns)
	fmt.Printf("Call overhead: median over the rounds of each round's difference. ")
	fmt.Printf("%d rounds of -benchtime %s (medians; loopback: median of the rounds' paired ratios, range in brackets), sides alternating; ", *rounds, *benchtime)
	if len(base.buildSecs) > 0 {
		fmt.Printf("Cloudflare builds: warm cache, only the generated package compiled; peak RSS = ru_maxrss of `go build`, i.e. the compiler's (a cache-hit `go build` peaks at %s). ", benchrun.MiB(goCommandRSSKiB))
	}
	if g > 0 {
		fmt.Printf("gobreaker Execute here %.0f ns (reference machine: %.0f ns); new overhead scaled to it: %.0f ns. ", g, gobreakerRef, no.ns*gobreakerRef/g)
	}
	fmt.Printf("%s, %d CPUs", runtime.Version(), runtime.NumCPU())
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			fmt.Printf(", load average %s / %s / %s at the end (1 / 5 / 15 min)", f[0], f[1], f[2])
		}
	}
	fmt.Printf("; the run took %s.\n", took.Round(time.Second))
	return ok
}

// cost is what one side's call path costs over its hand baseline.
type cost struct {
	pair              string // "A − B"
	ns, allocs, bytes float64
}

// overhead is OperationCallTimeouts − HandRequestTimeout when the side
// has them, else OperationDoTimeouts − BareDoerTimeout: the median of the
// rounds' differences (both measured in the same process, seconds apart).
func overhead(all runs) cost {
	for _, p := range [][2]string{{"OperationCallTimeouts", "HandRequestTimeout"}, {"OperationDoTimeouts", "BareDoerTimeout"}} {
		o, b := all[p[0]], all[p[1]]
		n := min(len(o), len(b))
		if n == 0 {
			continue
		}
		diff := func(f func(result) float64) float64 {
			d := make([]float64, n)
			for i := range n {
				d[i] = f(o[i]) - f(b[i])
			}
			return benchrun.MedianOf(d)
		}
		return cost{pair: p[0] + " − " + p[1], ns: diff(ns), allocs: diff(allocs), bytes: diff(bytesOf)}
	}
	return cost{}
}

func pairNote(b, n cost) string {
	if b.pair == n.pair {
		return b.pair
	}
	return "baseline " + b.pair + "; new " + n.pair
}

// pairedRatio is the median over the rounds of the paired loopback
// benchmark's gen/hand, and its range.
func pairedRatio(all runs) (med, lo, hi float64) {
	var v []float64
	for _, r := range all["LoopbackShowPetByID/paired"] {
		v = append(v, r.metrics["gen/hand"])
	}
	if len(v) == 0 {
		return 0, 0, 0
	}
	return benchrun.MedianOf(v), slices.Min(v), slices.Max(v)
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
