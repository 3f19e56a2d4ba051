//go:build unix

// Command benchgen measures resgen generate against its floor, and is what
// `make bench-gen` runs (goal: resgen ≤ 1.3× the floor).
//
// The floor is kin-openapi (the version in go.mod) reading a spec, loading
// it with external $refs allowed and validating it with the relaxed options
// resgen uses (scripts/benchgen/floor): what any kin-based generator has to
// do before it writes a line. Against it, on each spec (by default the
// three largest of ../shared/specs/real), benchgen times resgen generate of
// the working tree ("new") and of a baseline revision ("base", -base, built
// in this run from a git archive of it), each run a process of its own
// that writes to a temporary folder.
//
// Method: the three binaries are built once; the spec files are read once
// untimed, so that no side pays for a cold page cache; then, for -rounds
// rounds, every spec is run by floor, new and base, one after the other,
// so the drift of a noisy machine falls on all three. The table shows the
// medians of each side's wall time and of its peak RSS (ru_maxrss of the
// child), and new and base over the floor (median over median); a second
// one the spread of the wall times and the CPU times (user+sys), which a
// busy machine disturbs less. Goals are
// shown as met or not and never fail the run: the exit status is non-zero
// only when something could not be built or run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/resgen/resgen/scripts/internal/benchrun"
)

// goalRatio is the speed goal: resgen generate within this factor of the
// floor's wall time.
const goalRatio = 1.3

// defaultSpecs are the three largest specs of the corpus, the ones the
// goal is set on.
var defaultSpecs = []string{"stripe-2023-09.yaml", "github-2020.json", "cloudflare-2024-08.json"}

// sharedEnv names the folder that holds specs/real when -shared is not
// given; without either it is ../shared from the repository root.
const sharedEnv = "RESGEN_SHARED"

// options are benchgen's flags, checked.
type options struct {
	rounds int
	base   string
	shared string   // "" for $RESGEN_SHARED, else ../shared from the repository root
	specs  []string // names under <shared>/specs/real, or paths
	dryRun bool
}

// parseArgs parses and checks the command line.
func parseArgs(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("benchgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.rounds, "rounds", 3, "runs of each side on each spec (the table shows medians)")
	fs.StringVar(&o.base, "base", "c2a4528", "git revision of the baseline, built in this run from a git archive of it")
	fs.StringVar(&o.shared, "shared", "", "the folder that holds specs/real (default $"+sharedEnv+", else ../shared from the repository root)")
	specs := fs.String("specs", strings.Join(defaultSpecs, ","), "comma-separated specs: names under <shared>/specs/real, or paths (with a /)")
	fs.BoolVar(&o.dryRun, "dry-run", false, "check the arguments, print what would be built and run, and stop")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (specs go in -specs)", fs.Arg(0))
	}
	if o.rounds < 1 {
		return nil, fmt.Errorf("-rounds %d: need at least 1", o.rounds)
	}
	if strings.TrimSpace(o.base) == "" {
		return nil, errors.New("-base: need a git revision")
	}
	for _, s := range strings.Split(*specs, ",") {
		if s = strings.TrimSpace(s); s != "" {
			o.specs = append(o.specs, s)
		}
	}
	if len(o.specs) == 0 {
		return nil, errors.New("-specs: need at least one spec")
	}
	return o, nil
}

// spec is one spec file the run measures.
type spec struct {
	name string // file name, the table's row
	path string // absolute
	size int64
}

// resolveSpecs finds the specs: a name without a / under dir (the
// corpus, <shared>/specs/real), anything else as a path. A missing corpus
// folder is said as such, with how to point at it.
func resolveSpecs(dir string, names []string) ([]spec, error) {
	var out []spec
	for _, n := range names {
		p := n
		if !strings.ContainsRune(n, '/') {
			if _, err := os.Stat(dir); err != nil {
				return nil, fmt.Errorf("spec %s: the corpus folder %s is not there: pass -shared DIR or set %s (the folder that holds specs/real), or give the spec as a path", n, dir, sharedEnv)
			}
			p = filepath.Join(dir, n)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("spec %s: %w", n, err)
		}
		if fi.IsDir() {
			return nil, fmt.Errorf("spec %s: %s is a folder, not a spec file", n, abs)
		}
		out = append(out, spec{name: filepath.Base(abs), path: abs, size: fi.Size()})
	}
	return out, nil
}

// side is one of the three programs measured: what it is, how it is run on
// a spec, and its samples by spec.
type side struct {
	name string // "floor", "new", "base"
	rev  string // what it was built from, for the table's header
	src  string // the tree it is built from
	pkg  string // the main package, relative to src
	bin  string // the built binary
	out  string // the output folder of a resgen side

	runs [][]sample // by spec index, one per round
}

// args is the command line of one run of the side on sp.
func (s *side) args(sp spec) []string {
	if s.name == "floor" {
		return []string{sp.path}
	}
	return []string{"generate", "-spec", sp.path, "-package", "gen", "-o", s.output(sp)}
}

func (s *side) output(sp spec) string {
	return filepath.Join(s.out, strings.TrimSuffix(sp.name, filepath.Ext(sp.name)), "client.gen.go")
}

func main() {
	o, err := parseArgs(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchgen:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err = run(ctx, o, os.Stdout)
	interrupted := ctx.Err() != nil // before stop, which cancels ctx
	stop()
	if err != nil && interrupted {
		fmt.Fprintln(os.Stderr, "benchgen: interrupted (temporary files removed)")
		os.Exit(1)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchgen:", err)
		os.Exit(1)
	}
}

var started = time.Now()

// logf reports progress on stderr, with the time since the start.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "benchgen %5.0fs: "+format+"\n", append([]any{time.Since(started).Seconds()}, args...)...)
}

func run(ctx context.Context, o *options, stdout io.Writer) error {
	root, err := benchrun.Output(ctx, ".", "git", "rev-parse", "--show-toplevel")
	if err != nil {
		return fmt.Errorf("not in a git checkout: %w", err)
	}
	shared := o.shared
	if shared == "" {
		shared = os.Getenv(sharedEnv)
	}
	if shared == "" {
		shared = filepath.Join(root, "..", "shared")
	}
	specs, err := resolveSpecs(filepath.Join(shared, "specs", "real"), o.specs)
	if err != nil {
		return err
	}
	baseRev, err := benchrun.Output(ctx, root, "git", "rev-parse", "--short", o.base+"^{commit}")
	if err != nil {
		return fmt.Errorf("-base %s: not a revision of %s", o.base, root)
	}
	newRev, err := benchrun.Output(ctx, root, "git", "rev-parse", "--short", "HEAD")
	if err != nil {
		return err
	}
	if changes, _ := benchrun.Output(ctx, root, "git", "status", "--porcelain", "--untracked-files=no"); changes != "" {
		newRev += "+changes"
	}

	tmp := filepath.Join(os.TempDir(), "resgen-benchgen-XXXX")
	if !o.dryRun {
		if tmp, err = os.MkdirTemp("", "resgen-benchgen-"); err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
	}
	floor := &side{name: "floor", rev: "kin-openapi " + kinVersion(ctx, root), src: root, pkg: "./scripts/benchgen/floor"}
	cur := &side{name: "new", rev: newRev, src: root, pkg: "./cmd/resgen"}
	base := &side{name: "base", rev: baseRev, src: filepath.Join(tmp, "base", "src"), pkg: "./cmd/resgen"}
	sides := []*side{floor, cur, base} // the order of every round
	for _, s := range sides {
		s.bin = filepath.Join(tmp, s.name, "bin", filepath.Base(s.pkg))
		s.out = filepath.Join(tmp, s.name, "out")
		s.runs = make([][]sample, len(specs))
	}

	if o.dryRun {
		fmt.Fprintf(stdout, "would export %s (-base %s) with git archive and build, in %s:\n", baseRev, o.base, root)
		for _, s := range sides {
			fmt.Fprintf(stdout, "  %s: go build %s (%s)\n", s.name, s.pkg, s.rev)
		}
		fmt.Fprintf(stdout, "then %d round(s) of:\n", o.rounds)
		for _, sp := range specs {
			for _, s := range sides {
				fmt.Fprintf(stdout, "  %s: %s %s\n", s.name, filepath.Base(s.bin), strings.Join(s.args(sp), " "))
			}
		}
		return nil
	}

	logf("base %s (exported to %s), new %s (%s)", baseRev, base.src, newRev, root)
	if err := benchrun.ExportRev(ctx, root, baseRev, base.src); err != nil {
		return fmt.Errorf("export %s: %w", baseRev, err)
	}
	for _, s := range sides {
		logf("%s: go build %s", s.name, s.pkg)
		if out, err := benchrun.Combined(ctx, s.src, nil, "go", "build", "-o", s.bin, s.pkg); err != nil {
			return fmt.Errorf("%s: go build %s: %v\n%s", s.name, s.pkg, err, benchrun.LastLines(out, 10))
		}
	}
	loadStart := loadAverage()
	// Untimed: whoever read a spec first would pay for the disk.
	for _, sp := range specs {
		if _, err := os.ReadFile(sp.path); err != nil {
			return err
		}
	}
	for r := range o.rounds {
		for i, sp := range specs {
			for _, s := range sides {
				if err := s.measure(ctx, i, sp); err != nil {
					return err
				}
				m := s.runs[i][r]
				logf("round %d/%d %s %s: %.2f s (CPU %.2f s), %s", r+1, o.rounds, sp.name, s.name, m.wall, m.cpu, benchrun.MiB(m.rssKiB))
			}
		}
	}

	rows := make([]row, len(specs))
	for i, sp := range specs {
		rows[i] = row{spec: sp}
		for _, s := range sides {
			m := summarize(s.runs[i])
			switch s {
			case floor:
				rows[i].floor = m
			case cur:
				rows[i].cur = m
			case base:
				rows[i].base = m
			}
		}
	}
	goVersion, _ := benchrun.Output(ctx, root, "go", "env", "GOVERSION")
	writeTable(stdout, table{
		baseRev: baseRev, newRev: newRev, floor: floor.rev, rounds: o.rounds, rows: rows,
		machine: machine(goVersion, loadStart), took: time.Since(started),
	})
	return nil
}

// measure runs the side once on spec i and keeps its wall and CPU time
// and peak RSS. A run that fails fails the benchmark: its time would mean
// nothing.
func (s *side) measure(ctx context.Context, i int, sp spec) error {
	if s.name != "floor" {
		// Each run writes a new file, as the first one did.
		out := s.output(sp)
		if err := os.RemoveAll(filepath.Dir(out)); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
	}
	m, err := benchrun.Measure(ctx, filepath.Dir(s.bin), nil, s.bin, s.args(sp)...)
	if err != nil {
		return fmt.Errorf("%s on %s: %v\n%s", s.name, sp.name, err, benchrun.LastLines(m.Out, 10))
	}
	s.runs[i] = append(s.runs[i], sample{wall: m.Wall.Seconds(), cpu: m.CPU.Seconds(), rssKiB: float64(m.RSSKiB)})
	return nil
}

// kinVersion is the kin-openapi version go.mod requires, which the floor
// is built with.
func kinVersion(ctx context.Context, root string) string {
	v, err := benchrun.Output(ctx, root, "go", "list", "-m", "-f", "{{.Version}}", "github.com/getkin/kin-openapi")
	if err != nil || v == "" {
		return "(version unknown)"
	}
	return v
}
