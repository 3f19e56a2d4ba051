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
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/internal/rawval"
	"github.com/resgen/resgen/internal/sanitize"
	"github.com/resgen/resgen/tools/lab"
)

// exitInterrupted is a lab stopped by Ctrl-C: 128 + SIGINT, what a shell
// reports for a process the signal killed, so scripts can tell it from
// bad input.
const exitInterrupted = 130

// maxSpeed bounds -speed: at ÷1000 the storm's 200 ms service time is
// 200 µs, about a loopback round trip plus a goroutine wake-up on a busy
// machine; beyond it a run measures the machine, not the policy.
const maxSpeed = 1000

// maxDown bounds -down: an outage lab runs the whole outage in real time,
// and beyond 10 minutes it shows nothing a shorter one does not.
const maxDown = 10 * time.Minute

// maxReplicas bounds -replicas: each replica is a client with its own
// connections, and a hundred make the point a thousand would.
const maxReplicas = 100

const labUsage = "resgen lab SCENARIO -spec FILE -op OPERATION_ID [-overlay FILE]... [-allow-read DIR]... [-strict] [-compare] [-speed N] [-o DIR] [-overload reject|timeout] [-retry-after] [-down DURATION] [-replicas N]"

const labHelp = `Runs the operation's resolved x-resilience policy (the real runtime: breaker,
retry, budget, Retry-After) against an in-process loopback server that models
SCENARIO, and prints a table. The flags may come before or after SCENARIO.

Scenarios:
  storm   50 users × 5 requests against a server of capacity 10 concurrent ×
          200ms with a queue of 20, beyond it an immediate 503
  order   breaker outside retry (as generated) against the order swapped, in
          three phases: sustained failure, after open, transient failures
  slow    a server that answers correctly but slowly: does the breaker open
          on slow calls alone?
  outage  healthy, down for -down, healthy again: time to open, calls wasted,
          time to recover; -replicas N runs N clients with local breakers
          against the same N sharing one breaker (a fleet, in memory)
  stream  an event stream broken mid-way three times and resumed with
          Last-Event-ID (events delivered, none duplicated, none lost);
          -compare adds the same stream without resume

-compare runs the scenario's alternative strategies side by side; a strategy
that retries is refused on an operation that is not retry-safe. With -o the
report is also written to DIR: report.md, results.json and an SVG per plot.
While it runs, progress goes to stderr if that is a terminal.

Exit status: 0 success; 2 bad input (flags, spec, an operation the scenario
cannot run on); 1 a bug in resgen; 130 stopped by Ctrl-C (Interrupt).
See docs/labs.md.`

// labRun is the lab. Tests replace it to see the options the CLI passes
// and to make it fail in the ways the CLI must tell apart.
var labRun = lab.Run

// runLab runs resgen lab.
func runLab(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("resgen lab", flag.ContinueOnError)
	// The flag package's own messages come out as one line of ours, not
	// followed by the whole usage.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	sf := addSpecFlags(fs)
	opID := fs.String("op", "", "the `OPERATION_ID` to run (required)")
	compare := fs.Bool("compare", false, "add the scenario's alternative strategies, side by side in the same run")
	speed := 1.0
	fs.Func("speed", fmt.Sprintf("divide every duration (the server's and the policy's) by `N`, from 1 to %d; tables say a run was sped up (default 1)", maxSpeed), func(v string) error {
		n, err := strconv.ParseFloat(v, 64)
		switch {
		case err != nil:
			return errors.New("not a number")
		case !(n >= 1 && n <= maxSpeed): // NaN too
			return fmt.Errorf("must be from 1 to %d", maxSpeed)
		}
		speed = n
		return nil
	})
	out := fs.String("o", "", "also write report.md, results.json and the plots' SVGs into `DIR` (created if missing)")
	overload := fs.String("overload", "reject", "storm: how the overloaded server answers beyond its queue: reject (an immediate 503) or timeout (slow answers)")
	retryAfter := fs.Bool("retry-after", false, "storm: the server sends a Retry-After hint from its queue length")
	var down time.Duration
	fs.Func("down", "outage: how long the server is down, a `DURATION` in (0, 10m] (default: the scenario's)", func(v string) error {
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
			return errors.New("not a duration (e.g. 20s)")
		case d <= 0 || d > maxDown:
			return errors.New("must be more than 0 and at most 10m")
		}
		down = d
		return nil
	})
	replicas := 0
	fs.Func("replicas", fmt.Sprintf("outage: run `N` replicas (1 to %d), with local breakers and with a fleet that shares them", maxReplicas), func(v string) error {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
			return errors.New("not a whole number")
		case n < 1 || n > maxReplicas:
			return fmt.Errorf("must be from 1 to %d", maxReplicas)
		}
		replicas = n
		return nil
	})
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "resgen lab: %s\n", sanitize.Terminal(fmt.Sprintf(format, a...)))
		return exitInput
	}

	// The flag package stops at the first argument that is not a flag: the
	// scenario, when it comes first.
	var scenario string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		scenario, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(fs, "lab", stderr)
			return exitOK
		}
		return bad("%v (resgen lab -h lists the flags)", err)
	}
	rest := fs.Args()
	if scenario == "" && len(rest) > 0 {
		scenario, rest = rest[0], rest[1:]
	}
	switch {
	case scenario == "":
		return bad("missing SCENARIO: one of %s (resgen lab -h says what each does)", strings.Join(lab.Scenarios, ", "))
	case !slices.Contains(lab.Scenarios, scenario):
		if g := rawval.Suggest(scenario, lab.Scenarios); g != "" {
			return bad("unknown scenario %q (did you mean %q?)", scenario, g)
		}
		return bad("unknown scenario %q: one of %s", scenario, strings.Join(lab.Scenarios, ", "))
	case len(rest) > 0:
		return bad("unexpected argument %q after the scenario %q", rest[0], scenario)
	}
	var missing []string
	if *sf.spec == "" {
		missing = append(missing, "-spec")
	}
	if *opID == "" {
		missing = append(missing, "-op")
	}
	if len(missing) > 0 {
		return bad("missing %s", strings.Join(missing, ", "))
	}
	if *overload != "reject" && *overload != "timeout" {
		return bad("-overload must be reject or timeout, not %q", *overload)
	}
	only := map[string]string{"overload": "storm", "retry-after": "storm", "down": "outage", "replicas": "outage"}
	var misplaced error
	fs.Visit(func(f *flag.Flag) {
		if s, ok := only[f.Name]; ok && s != scenario && misplaced == nil {
			misplaced = fmt.Errorf("-%s is for the %s scenario, not %s", f.Name, s, scenario)
		}
	})
	if misplaced != nil {
		return bad("%v", misplaced)
	}
	if *out != "" {
		if err := checkLabDir(*out); err != nil {
			return outputError(stderr, *out, err)
		}
	}

	cfg := sf.config()
	checked, err := checkSpec(ctx, cfg)
	if err != nil {
		return specError(stderr, err)
	}
	target, err := lab.Find(checked, cfg.Spec, *opID)
	if err != nil {
		printDiags(stderr, checked.Diags)
		return bad("%s", oneLine(err.Error()))
	}
	// The warnings about what the lab runs are shown; the others are
	// counted: they are lint's business, not the experiment's.
	var shown diag.Diagnostics
	for _, d := range checked.Diags {
		if target.Concerns(d.Pointer) {
			shown = append(shown, d)
		}
	}
	printDiags(stderr, shown)
	if n := len(checked.Diags) - len(shown); n > 0 {
		fmt.Fprintf(stderr, "%s: %d more %s about other parts of the spec (resgen lint lists them)\n", sanitize.Terminal(cfg.Spec), n, plural(n, "warning", "warnings"))
	}

	o := lab.Options{Speed: speed, Compare: *compare, RetryAfter: *retryAfter, Down: down}
	if scenario == "storm" {
		o.Overload = *overload
	}
	if replicas > 0 {
		o.Replicas, o.Fleet, o.FleetAbout = replicas, lab.MemoryFleet, "the runtime's memory store"
	}
	if isTerminal(stderr) {
		o.Progress = stderr
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	// Once the lab is told to stop, a second Ctrl-C kills at once, as it
	// would without the lab.
	defer context.AfterFunc(ctx, stop)()
	r, err := labRun(ctx, scenario, target, o)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "resgen lab: %s interrupted\n", scenario)
		return exitInterrupted
	case errors.Is(err, lab.ErrNotRetrySafe), errors.Is(err, lab.ErrRefused):
		return bad("%s", oneLine(err.Error()))
	default:
		return internalError(stderr, err)
	}
	if err := r.Text(stdout); err != nil {
		return internalError(stderr, err)
	}
	if *out != "" {
		files, err := r.WriteDir(*out)
		if err != nil {
			return outputError(stderr, *out, err)
		}
		for _, f := range files { // names in dir
			fmt.Fprintf(stderr, "wrote %s\n", sanitize.Terminal(filepath.Join(*out, f)))
		}
	}
	return exitOK
}

// checkLabDir refuses an -o that cannot become a folder: a file (or
// anything but a folder) at it or at the nearest of its parents that
// exists. A missing folder is made when the report is written.
func checkLabDir(dir string) error {
	dir = filepath.Clean(dir)
	for p := dir; ; p = filepath.Dir(p) {
		// Below a file, stat fails with "not a directory": go up to it.
		fi, err := os.Stat(p)
		switch {
		case err == nil && fi.IsDir():
			return nil
		case err == nil && p == dir:
			return errors.New("is not a folder: -o names the folder the report goes to")
		case err == nil:
			return fmt.Errorf("%s is not a folder", sanitize.Terminal(p))
		case filepath.Dir(p) == p:
			return err
		}
	}
}

// isTerminal says whether w is a terminal (a character device): progress
// lines, which redraw themselves with \r, are only for a person watching.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
