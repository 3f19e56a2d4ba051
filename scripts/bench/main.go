//go:build unix

// Command bench measures the size and speed goals and the runtime's
// overhead, each
// against a baseline measured in the same run, and is what `make bench`
// runs.
//
// The goal table compares two sides built in this run: the baseline (a
// `git archive` of -base, default f683eee, into a temporary folder) and
// the working tree ("new"):
//
//   - generated lines per operation on testdata/specs/petstore.yaml (each
//     side's generator on its own copy of the spec): the lines of each
//     operation's Params and Response types, its methods (body variants and
//     shared send method included), the package-level vars and funcs only
//     it uses or that carry its name (decode tables), and its registration
//     statement(s) in NewClient, doc comments included (lines.go); goal
//     ≤ 40;
//   - lines of the Cloudflare spec's output (goal new/base ≤ 0.65);
//   - `go build` of that output: wall time and peak RSS (goal ≤ 0.5× each).
//     Each side builds its own output in a fresh module whose replace
//     points at that side's tree, with one GOCACHE for the run (a
//     temporary folder, removed afterwards, unless -gocache) warmed untimed with every
//     dependency of the generated package and one build of the package
//     itself (the first compile ran slower in trials), and a file with a unique
//     constant in the package so that only the generated package is
//     compiled, never a cache hit. Peak RSS is ru_maxrss of wait4 on `go
//     build`: Linux reports the largest resident set of it and of every
//     descendant it waited for, i.e. the compile of the generated package
//     (GNU time's %M gives the same). Builds alternate sides (ABBA); the
//     table shows medians of -builds;
//   - the runtime's cost per call with the default timeouts over a hand
//     baseline on a canned transport: OperationCallTimeouts −
//     HandRequestTimeout where the side has them, else OperationDoTimeouts
//     − BareDoerTimeout (the table says which); goal ≤ 400 ns, ≤ 1 alloc;
//   - generated client / hand-written net/http on loopback (golden/petstore
//     BenchmarkLoopbackShowPetByID, paired; goal ≤ 1.05).
//
// The overhead rows (the new side only, unless -goals-only) are:
//
//   - the wrapper's cost per successful call with a no-op transport:
//     OperationDo − BareDoer (goal ≤ 400 ns, ≤ 1 allocation), and with the
//     default timeouts, OperationDoTimeouts − BareDoerTimeout (the same
//     canned transport behind the context.WithTimeout any hand-written
//     call with a timeout pays). The 400 ns were set on a machine where
//     gobreaker's Execute alone took 181 ns; the cost is also shown scaled
//     by gobreaker's cost in the same run, and the goal judged on that;
//   - generated client / hand-written net/http against a loopback server
//     (golden/petstore BenchmarkLoopbackShowPetByID; goal < 1.05), and the
//     runtime's own loopback pairs.
//
// Method: each test binary is built once per side; then, for -rounds
// rounds, the runtime benchmarks the goal table needs run once (-count
// 1) on each side back to back, then the overhead set on the new side, then
// the loopback benchmark in its own process per side, sides alternating
// (ABBA), so drift of a noisy machine falls on both. A ratio or a
// difference is the median of the per-round ones, shown with its range
// over the rounds where it helps. Goals are
// printed as met or not and never fail the run unless -check is given:
// speed is shown by numbers measured in the same run, not asserted.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/resgen/resgen/scripts/internal/benchrun"
)

var (
	rounds    = flag.Int("rounds", 5, "rounds of every benchmark (medians over rounds)")
	benchtime = flag.String("benchtime", "1s", "-test.benchtime of each benchmark run")
	filter    = flag.String("bench", ".", "regexp of the new side's runtime benchmarks to run (the overhead rows)")
	check     = flag.Bool("check", false, "exit 1 when a goal is missed")
	verbose   = flag.Bool("v", false, "print every benchmark line as it comes, and each operation's lines")
	cpu       = flag.String("cpu", "1", "-test.cpu of the runtime benchmarks (the reference numbers are -cpu 1)")
	baseRev   = flag.String("base", "f683eee", "git revision of the baseline, built in this run from a git archive of it")
	builds    = flag.Int("builds", 2, "go builds of the Cloudflare output per side (median); 0 skips them")
	goalsOnly = flag.Bool("goals-only", false, "print the goal table only (and run only the benchmarks it needs)")
	cfSpec    = flag.String("cloudflare", "", "the Cloudflare spec (default ../shared/specs/real/cloudflare-2024-08.json from the repository root)")
	gocache   = flag.String("gocache", "", "GOCACHE of the Cloudflare builds (default: a temporary one, removed afterwards; e.g. $(go env GOCACHE) skips rebuilding the standard library)")
	keep      = flag.Bool("keep", false, "keep the temporary folder (exports, outputs, build modules) and print its path")
)

// gobreakerRef is gobreaker Execute's cost on the machine the overhead
// goal was set on (2 vCPU VM, -cpu 1). Dividing by gobreaker's cost measured in
// the same run scales a wrapper cost to that machine.
const gobreakerRef = 181.0

// goalBenchmarks are the runtime benchmarks the goal table needs: the
// new pair, the old pair it falls back on, and gobreaker for the scale.
const goalBenchmarks = "^Benchmark(OperationCallTimeouts|HandRequestTimeout|OperationDoTimeouts|BareDoerTimeout|GobreakerExecute)$"

// result is one benchmark line: ns/op, B/op, allocs/op and any metric
// the benchmark reported (by unit).
type result struct {
	ns, bytes, allocs float64
	metrics           map[string]float64
}

// runs holds every round's result by benchmark name (without -GOMAXPROCS).
type runs map[string][]result

// side is one of the two trees compared: its source, what was built from
// it, and what was measured.
type side struct {
	name   string // "baseline" or "new"
	rev    string // short revision, "+changes" for a working tree with edits
	src    string // the tree
	work   string // its folder under the run's temporary folder
	resgen string // binaries
	rtTest string
	pet    string

	petLines    *fileLines
	cfLines     int
	buildSecs   []float64
	buildCPU    []float64 // user+sys seconds of the same builds
	buildRSSKiB []float64
	all         runs
}

func main() {
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, started)
	interrupted := ctx.Err() != nil // before stop, which cancels ctx
	stop()
	if errors.Is(err, errGoalMissed) {
		os.Exit(1)
	}
	if err != nil && interrupted {
		fmt.Fprintln(os.Stderr, "bench: interrupted (temporary files removed)")
		os.Exit(1)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

var errGoalMissed = errors.New("a goal was missed")

func run(ctx context.Context, start time.Time) error {
	root, err := benchrun.Output(ctx, ".", "git", "rev-parse", "--show-toplevel")
	if err != nil {
		return fmt.Errorf("not in a git checkout: %w", err)
	}
	cf := *cfSpec
	if cf == "" {
		cf = filepath.Join(root, "..", "shared", "specs", "real", "cloudflare-2024-08.json")
	}
	if _, err := os.Stat(cf); err != nil {
		return fmt.Errorf("the Cloudflare spec: %w (pass -cloudflare FILE)", err)
	}
	tmp, err := os.MkdirTemp("", "resgen-bench-")
	if err != nil {
		return err
	}
	if *keep {
		fmt.Fprintln(os.Stderr, "bench: keeping", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}

	base := &side{name: "baseline", work: filepath.Join(tmp, "baseline"), src: filepath.Join(tmp, "baseline", "src"), all: runs{}}
	cur := &side{name: "new", work: filepath.Join(tmp, "new"), src: root, all: runs{}}
	if base.rev, err = benchrun.Output(ctx, root, "git", "rev-parse", "--short", *baseRev+"^{commit}"); err != nil {
		return fmt.Errorf("-base %s: %w", *baseRev, err)
	}
	if cur.rev, err = benchrun.Output(ctx, root, "git", "rev-parse", "--short", "HEAD"); err != nil {
		return err
	}
	if changes, _ := benchrun.Output(ctx, root, "git", "status", "--porcelain", "--untracked-files=no"); changes != "" {
		cur.rev += "+changes"
	}
	logf("baseline %s (exported to %s), new %s (%s)", base.rev, base.src, cur.rev, root)
	if err := benchrun.ExportRev(ctx, root, base.rev, base.src); err != nil {
		return fmt.Errorf("export %s: %w", base.rev, err)
	}
	sides := []*side{base, cur}
	overheadRuns := runs{}
	for _, s := range sides {
		if err := s.build(ctx); err != nil {
			return err
		}
	}
	for _, s := range sides {
		if err := s.countLines(ctx, cf); err != nil {
			return err
		}
	}
	if *builds > 0 {
		if err := buildCloudflare(ctx, tmp, sides); err != nil {
			return err
		}
	}
	for r := range *rounds {
		order := sides
		if r%2 == 1 {
			order = []*side{cur, base}
		}
		logf("round %d/%d", r+1, *rounds)
		// The same benchmarks on both sides, back to back; the overhead
		// set on the new side after them.
		for _, s := range order {
			if err := bench(ctx, s.all, s.rtTest, goalBenchmarks, "-test.cpu", *cpu); err != nil {
				return err
			}
		}
		if !*goalsOnly {
			if err := bench(ctx, overheadRuns, cur.rtTest, *filter, "-test.cpu", *cpu); err != nil {
				return err
			}
		}
		for _, s := range order {
			all := s.all
			if s == cur && !*goalsOnly {
				all = overheadRuns // and copied to cur.all below
			}
			if err := bench(ctx, all, s.pet, "^BenchmarkLoopbackShowPetByID$"); err != nil {
				return err
			}
		}
	}

	if !*goalsOnly {
		cur.all["LoopbackShowPetByID/paired"] = overheadRuns["LoopbackShowPetByID/paired"]
	}
	ok := goalTable(base, cur, time.Since(start))
	if !*goalsOnly {
		fmt.Println()
		fmt.Println("Runtime overhead (new side):")
		fmt.Println()
		ok = overheadRows(overheadRuns) && ok
	}
	if !ok && *check {
		return errGoalMissed
	}
	return nil
}

var started = time.Now()

// logf reports progress on stderr, with the time since the start.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench %5.0fs: "+format+"\n", append([]any{time.Since(started).Seconds()}, args...)...)
}

// build compiles the side's generator and the test binaries of its
// runtime and golden/petstore.
func (s *side) build(ctx context.Context) error {
	if err := os.MkdirAll(s.work, 0o755); err != nil {
		return err
	}
	s.resgen = filepath.Join(s.work, "resgen")
	s.rtTest = filepath.Join(s.work, "runtime.test")
	s.pet = filepath.Join(s.work, "petstore.test")
	logf("%s: building resgen and the test binaries", s.name)
	for _, args := range [][]string{
		{"build", "-o", s.resgen, "./cmd/resgen"},
		{"test", "-c", "-o", s.rtTest, "./runtime"},
		{"test", "-c", "-o", s.pet, "./golden/petstore"},
	} {
		if out, err := benchrun.Combined(ctx, s.src, nil, "go", args...); err != nil {
			return fmt.Errorf("%s: go %s: %v\n%s", s.name, strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// countLines generates the petstore and the Cloudflare clients with the
// side's generator and counts their lines.
func (s *side) countLines(ctx context.Context, cf string) error {
	pet := filepath.Join(s.work, "petstore", "client.gen.go")
	if err := s.generate(ctx, filepath.Join(s.src, "testdata", "specs", "petstore.yaml"), "petstore", pet); err != nil {
		return err
	}
	src, err := os.ReadFile(pet)
	if err != nil {
		return err
	}
	if s.petLines, err = countLines(pet, src); err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	if *verbose {
		for _, o := range s.petLines.Ops {
			logf("%s: petstore %s: %d lines %v", s.name, o.Name, o.Lines, o.Parts)
		}
	}
	logf("%s: generating the Cloudflare client", s.name)
	out := filepath.Join(s.work, "cf", "gen", "client.gen.go")
	if err := s.generate(ctx, cf, "gen", out); err != nil {
		return err
	}
	s.cfLines, err = goLines(filepath.Dir(out))
	return err
}

func (s *side) generate(ctx context.Context, spec, pkg, out string) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if o, err := benchrun.Combined(ctx, s.work, nil, s.resgen, "generate", "-spec", spec, "-package", pkg, "-o", out); err != nil {
		return fmt.Errorf("%s: resgen generate -spec %s: %v\n%s", s.name, spec, err, benchrun.LastLines(o, 10))
	}
	return nil
}

// goLines counts the lines of the .go files in dir.
func goLines(dir string) (int, error) {
	n := 0
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return 0, err
		}
		n += bytes.Count(b, []byte("\n"))
	}
	return n, err
}

const nonceFile = "zz_bench_nonce.go"

// goCommandRSSKiB is the largest peak of a `go build` that compiled
// nothing (a cache hit): the go command's own share of a peak RSS.
var goCommandRSSKiB float64

// buildCloudflare times `go build` of each side's Cloudflare output in a
// module of its own (see the package comment), sides alternating.
func buildCloudflare(ctx context.Context, tmp string, sides []*side) error {
	cache := *gocache
	if cache == "" {
		cache = filepath.Join(tmp, "gocache")
	}
	env := []string{"GOCACHE=" + cache, "GOWORK=off", "GOFLAGS=-mod=mod"}
	for _, s := range sides {
		dir := filepath.Join(s.work, "cf")
		gomod := fmt.Sprintf("module example.com/bench\n\ngo 1.26\n\nrequire github.com/resgen/resgen v0.0.0\n\nreplace github.com/resgen/resgen => %s\n", s.src)
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
			return err
		}
		if b, err := os.ReadFile(filepath.Join(s.src, "go.sum")); err == nil {
			if err := os.WriteFile(filepath.Join(dir, "go.sum"), b, 0o644); err != nil {
				return err
			}
		}
		logf("%s: warming the build cache with the generated package's dependencies (untimed)", s.name)
		if out, err := benchrun.Combined(ctx, dir, env, "go", "mod", "tidy"); err != nil {
			return fmt.Errorf("%s: go mod tidy: %v\n%s", s.name, err, benchrun.LastLines(out, 10))
		}
		deps, err := benchrun.Command(ctx, dir, env, "go", "list", "-deps", "./...").Output()
		if err != nil {
			return fmt.Errorf("%s: go list -deps: %v", s.name, err)
		}
		var pkgs []string
		for _, p := range strings.Fields(string(deps)) {
			if p != "example.com/bench" && !strings.HasPrefix(p, "example.com/bench/") {
				pkgs = append(pkgs, p)
			}
		}
		if out, err := benchrun.Combined(ctx, dir, env, "go", append([]string{"build"}, pkgs...)...); err != nil {
			return fmt.Errorf("%s: go build of the dependencies: %v\n%s", s.name, err, benchrun.LastLines(out, 10))
		}
		// And one untimed build of the package itself: the first compile
		// after the cache is warmed ran 30-60% slower in trials, which
		// would fall on whichever side builds first.
		logf("%s: one untimed go build of the Cloudflare output", s.name)
		if out, err := benchrun.Combined(ctx, dir, env, "go", "build", "./..."); err != nil {
			return fmt.Errorf("%s: go build of the Cloudflare output: %v\n%s", s.name, err, benchrun.LastLines(out, 10))
		}
	}
	for i := range *builds {
		order := sides
		if i%2 == 1 {
			order = []*side{sides[1], sides[0]}
		}
		for _, s := range order {
			dir := filepath.Join(s.work, "cf")
			nonce := fmt.Sprintf("package gen\n\n// benchNonce makes this build's cache key unique.\nconst benchNonce = %q\n", fmt.Sprint(s.name, i, time.Now().UnixNano()))
			if err := os.WriteFile(filepath.Join(dir, "gen", nonceFile), []byte(nonce), 0o644); err != nil {
				return err
			}
			logf("%s: go build of the Cloudflare output (%d/%d)", s.name, i+1, *builds)
			m, err := benchrun.Measure(ctx, dir, env, "go", "build", "./...")
			if err != nil {
				return fmt.Errorf("%s: go build of the Cloudflare output: %v\n%s", s.name, err, benchrun.LastLines(m.Out, 10))
			}
			logf("%s: %.1f s (CPU %.1f s), %s", s.name, m.Wall.Seconds(), m.CPU.Seconds(), benchrun.MiB(float64(m.RSSKiB)))
			s.buildSecs = append(s.buildSecs, m.Wall.Seconds())
			s.buildCPU = append(s.buildCPU, m.CPU.Seconds())
			rss := m.RSSKiB
			s.buildRSSKiB = append(s.buildRSSKiB, float64(rss))
			// The same build again is a cache hit: the go command's own
			// peak, which shows the peak above is the compiler's.
			if m, err := benchrun.Measure(ctx, dir, env, "go", "build", "./..."); err == nil {
				goCommandRSSKiB = max(goCommandRSSKiB, float64(m.RSSKiB))
			}
		}
	}
	return nil
}

var (
	line   = regexp.MustCompile(`^Benchmark(\S+?)(-\d+)?\s+\d+\s+(.*)$`)
	metric = regexp.MustCompile(`([\d.e+-]+) (\S+)`)
)

// bench runs the benchmarks of one test binary that match re, once each.
func bench(ctx context.Context, all runs, bin, re string, args ...string) error {
	args = append([]string{"-test.run", "^$", "-test.bench", re, "-test.benchmem",
		"-test.count", "1", "-test.benchtime", *benchtime}, args...)
	cmd := benchrun.Command(ctx, filepath.Dir(bin), nil, bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		os.Stderr.Write(out.Bytes())
		return fmt.Errorf("%s -test.bench %s: %w", bin, re, err)
	}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		if *verbose {
			fmt.Fprintln(os.Stderr, sc.Text())
		}
		r := result{metrics: map[string]float64{}}
		for _, mm := range metric.FindAllStringSubmatch(m[3], -1) {
			v, err := strconv.ParseFloat(mm[1], 64)
			if err != nil {
				continue
			}
			switch mm[2] {
			case "ns/op":
				r.ns = v
			case "B/op":
				r.bytes = v
			case "allocs/op":
				r.allocs = v
			default:
				r.metrics[mm[2]] = v
			}
		}
		all[m[1]] = append(all[m[1]], r)
	}
	return nil
}

// overheadRows prints the overhead rows from one side's runs.
func overheadRows(all runs) bool {
	printTable(all)
	fmt.Println()
	ok := true
	g := median(all["GobreakerExecute"], ns)
	if g > 0 {
		fmt.Printf("gobreaker Execute alone: %.0f ns/op here, %.0f ns on the reference machine: scale ×%.2f\n", g, gobreakerRef, gobreakerRef/g)
	}
	ok = wrapper(all, "no timeouts", "OperationDo", "BareDoer", g) && ok
	ok = wrapper(all, "timeouts 10s/30s", "OperationDoTimeouts", "BareDoerTimeout", g) && ok
	fmt.Println()
	ok = paired(all, "generated client / hand-written net/http, loopback, paired calls", "LoopbackShowPetByID/paired", 1.05) && ok
	fmt.Println("separate loops (each side in its own loop: on a busy machine load falls unevenly, read with care):")
	ratio(all, "  generated client / hand-written net/http, loopback", "LoopbackShowPetByID/generated", "LoopbackShowPetByID/handwritten", 0)
	ratio(all, "  runtime Operation.Do / plain http.Client, loopback", "LoopbackRuntime", "LoopbackPlainHTTP", 0)
	ratio(all, "  runtime with timeouts / plain with context timeout, loopback", "LoopbackRuntimeTimeouts", "LoopbackPlainHTTPTimeout", 0)
	return ok
}

func ns(r result) float64      { return r.ns }
func bytesOf(r result) float64 { return r.bytes }
func allocs(r result) float64  { return r.allocs }

func median(rs []result, f func(result) float64) float64 {
	if len(rs) == 0 {
		return 0
	}
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	return benchrun.MedianOf(v)
}

func printTable(all runs) {
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	slices.Sort(names)
	fmt.Printf("%-36s %12s %18s %9s %9s\n", "benchmark (median of rounds)", "ns/op", "min – max", "B/op", "allocs/op")
	for _, n := range names {
		rs := all[n]
		lo := slices.MinFunc(rs, func(a, b result) int { return cmpF(a.ns, b.ns) }).ns
		hi := slices.MaxFunc(rs, func(a, b result) int { return cmpF(a.ns, b.ns) }).ns
		fmt.Printf("%-36s %12.1f %18s %9.0f %9.0f\n", n, median(rs, ns), fmt.Sprintf("%.0f – %.0f", lo, hi), median(rs, bytesOf), median(rs, allocs))
	}
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "OVER"
}

// wrapper prints what op costs over base with the same canned transport:
// the runtime's own cost per call, measured and scaled to the reference
// machine by gobreaker's cost g; the goal is judged on the scaled cost.
func wrapper(all runs, label, op, base string, g float64) bool {
	o, b := all[op], all[base]
	if len(o) == 0 || len(b) == 0 {
		return true
	}
	d := median(o, ns) - median(b, ns)
	a := median(o, allocs) - median(b, allocs)
	by := median(o, bytesOf) - median(b, bytesOf)
	scaled := d
	if g > 0 {
		scaled = d * gobreakerRef / g
	}
	ok := scaled <= 400 && a <= 1
	minOf := func(rs []result) float64 {
		return slices.MinFunc(rs, func(a, b result) int { return cmpF(a.ns, b.ns) }).ns
	}
	fmt.Printf("wrapper per successful call, %s (%s − %s): %.0f ns here (%.0f ns scaled; %.0f ns from the rounds' minima), %.0f allocs, %.0f B   [goal ≤ 400 ns, ≤ 1 alloc: %s]\n",
		label, op, base, d, scaled, minOf(o)-minOf(b), a, by, verdict(ok))
	return ok
}

// paired prints the median over the rounds of the gen/hand metric of a
// paired benchmark (itself the median of its pairs' ratios), with its
// range, which the goal is judged on; and the ratios of total times, all
// pairs (gen/hand-sum) and without the slowest 1% (gen/hand-trim), which
// also charge GC pauses but every burst of load of a busy machine too.
func paired(all runs, label, name string, goal float64) bool {
	rs := all[name]
	if len(rs) == 0 {
		return true
	}
	var med, sum, trim, gen, hand []float64
	for _, r := range rs {
		med = append(med, r.metrics["gen/hand"])
		sum = append(sum, r.metrics["gen/hand-sum"])
		trim = append(trim, r.metrics["gen/hand-trim"])
		gen = append(gen, r.metrics["gen-median-ns"])
		hand = append(hand, r.metrics["hand-median-ns"])
	}
	m := benchrun.MedianOf(med)
	ok := m < goal
	fmt.Printf("%s: %.3f (rounds %.3f – %.3f; median call %.0f / %.0f ns)   [goal < %.2f: %s]\n",
		label, m, slices.Min(med), slices.Max(med), benchrun.MedianOf(gen), benchrun.MedianOf(hand), goal, verdict(ok))
	fmt.Printf("  total time / total time: %.3f (rounds %.3f – %.3f); without the slowest 1%% of pairs: %.3f (rounds %.3f – %.3f)\n",
		benchrun.MedianOf(sum), slices.Min(sum), slices.Max(sum), benchrun.MedianOf(trim), slices.Min(trim), slices.Max(trim))
	return ok
}

// ratio prints the median of the per-round ratios a/b with their range;
// goal 0 means none.
func ratio(all runs, label, a, b string, goal float64) bool {
	ra, rb := all[a], all[b]
	n := min(len(ra), len(rb))
	if n == 0 {
		return true
	}
	per := make([]float64, n)
	for i := range n {
		per[i] = ra[i].ns / rb[i].ns
	}
	m := benchrun.MedianOf(per)
	s := fmt.Sprintf("%s: %.3f (rounds %.3f – %.3f; medians %.0f / %.0f ns; allocs %.0f / %.0f)",
		label, m, slices.Min(per), slices.Max(per), median(ra, ns), median(rb, ns), median(ra, allocs), median(rb, allocs))
	ok := goal == 0 || m < goal
	if goal > 0 {
		s += fmt.Sprintf("   [goal < %.2f: %s]", goal, verdict(ok))
	}
	fmt.Println(strings.TrimRight(s, " "))
	return ok
}
