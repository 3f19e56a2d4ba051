package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/resgen/resgen/generator"
	"github.com/resgen/resgen/tools/lab"
)

const labSpec = "testdata/specs/lab.yaml"

// afterWarnings is stderr without the spec's warnings, which a lab of
// labSpec prints first (its published jitter: none draws one) or counts.
func afterWarnings(stderr string) string {
	lines := strings.SplitAfter(stderr, "\n")
	i := 0
	for i < len(lines) && (strings.HasPrefix(lines[i], labSpec+":") && (strings.Contains(lines[i], ": warning: ") || strings.Contains(lines[i], " more warning")) || strings.HasPrefix(lines[i], "\t")) {
		i++
	}
	return strings.Join(lines[i:], "")
}

// lineOf is the 1-based line of the first line of file containing s.
func lineOf(t *testing.T, file, s string) int {
	t.Helper()
	data, err := os.ReadFile(file) // the tests run from the module root
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, s) && !strings.HasPrefix(strings.TrimSpace(l), "#") {
			return i + 1
		}
	}
	t.Fatalf("%s has no %q", file, s)
	return 0
}

// labCall is what a replaced labRun was called with.
type labCall struct {
	scenario string
	target   *lab.Target
	opts     lab.Options
}

// fakeLab replaces labRun for the test with fn (nil: a run that gives a
// one-table report) and returns the calls it saw.
func fakeLab(t *testing.T, fn func(context.Context, string, *lab.Target, lab.Options) (*lab.Report, error)) *[]labCall {
	t.Helper()
	var calls []labCall
	t.Cleanup(func() { labRun = lab.Run })
	labRun = func(ctx context.Context, scenario string, tg *lab.Target, o lab.Options) (*lab.Report, error) {
		calls = append(calls, labCall{scenario, tg, o})
		if fn != nil {
			return fn(ctx, scenario, tg, o)
		}
		return &lab.Report{Scenario: scenario, Spec: tg.Spec, Operation: tg.OperationID, Speed: o.Speed,
			Tables: []lab.Table{{Title: "fake", Columns: []string{"strategy", "requests"}, Rows: [][]string{{"spec", "250"}}}}}, nil
	}
	return &calls
}

// TestLabBadInput: every flag error, and every spec or operation the lab
// cannot run, is one line (or the spec's diagnostics) and exit status 2,
// before the lab runs.
func TestLabBadInput(t *testing.T) {
	t.Chdir("../..")
	calls := fakeLab(t, nil)
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := []string{"-spec", labSpec, "-op", "listItems"}
	with := func(args ...string) []string { return append(append([]string{"lab"}, args...), spec...) }
	cases := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no scenario", []string{"lab"}, "resgen lab: missing SCENARIO: one of storm, order, slow, outage, stream (resgen lab -h says what each does)\n"},
		{"no scenario, flags only", with(), "resgen lab: missing SCENARIO: one of storm, order, slow, outage, stream"},
		{"misspelt scenario", with("storrm"), "resgen lab: unknown scenario \"storrm\" (did you mean \"storm\"?)\n"},
		{"unknown scenario", with("quake"), "resgen lab: unknown scenario \"quake\": one of storm, order, slow, outage, stream\n"},
		{"misspelt scenario after the flags", append(with(), "outge"), "resgen lab: unknown scenario \"outge\" (did you mean \"outage\"?)\n"},
		{"two scenarios", append(with("storm"), "order"), "resgen lab: unexpected argument \"order\" after the scenario \"storm\"\n"},
		{"no -spec", []string{"lab", "storm", "-op", "listItems"}, "resgen lab: missing -spec\n"},
		{"no -op", []string{"lab", "storm", "-spec", labSpec}, "resgen lab: missing -op\n"},
		{"neither", []string{"lab", "storm"}, "resgen lab: missing -spec, -op\n"},
		{"unknown flag", with("storm", "-users", "10"), "resgen lab: flag provided but not defined: -users (resgen lab -h lists the flags)\n"},
		{"-speed a word", with("storm", "-speed", "fast"), "resgen lab: invalid value \"fast\" for flag -speed: not a number (resgen lab -h lists the flags)\n"},
		{"-speed 0", with("storm", "-speed", "0"), "resgen lab: invalid value \"0\" for flag -speed: must be from 1 to 1000"},
		{"-speed below 1", with("storm", "-speed", "0.5"), "resgen lab: invalid value \"0.5\" for flag -speed: must be from 1 to 1000"},
		{"-speed above 1000", with("storm", "-speed", "1001"), "resgen lab: invalid value \"1001\" for flag -speed: must be from 1 to 1000"},
		{"-speed NaN", with("storm", "-speed", "NaN"), "resgen lab: invalid value \"NaN\" for flag -speed: must be from 1 to 1000"},
		{"-overload unknown", with("storm", "-overload", "drop"), "resgen lab: -overload must be reject or timeout, not \"drop\"\n"},
		{"-overload not storm", with("order", "-overload", "timeout"), "resgen lab: -overload is for the storm scenario, not order\n"},
		{"-retry-after not storm", with("slow", "-retry-after"), "resgen lab: -retry-after is for the storm scenario, not slow\n"},
		{"-down not outage", with("storm", "-down", "5s"), "resgen lab: -down is for the outage scenario, not storm\n"},
		{"-down 0", with("outage", "-down", "0s"), "resgen lab: invalid value \"0s\" for flag -down: must be more than 0 and at most 10m"},
		{"-down negative", with("outage", "-down", "-5s"), "resgen lab: invalid value \"-5s\" for flag -down: must be more than 0 and at most 10m"},
		{"-down too long", with("outage", "-down", "10m1s"), "resgen lab: invalid value \"10m1s\" for flag -down: must be more than 0 and at most 10m"},
		{"-down not a duration", with("outage", "-down", "20"), "resgen lab: invalid value \"20\" for flag -down: not a duration (e.g. 20s)"},
		{"-replicas not outage", with("storm", "-replicas", "5"), "resgen lab: -replicas is for the outage scenario, not storm\n"},
		{"-replicas 0", with("outage", "-replicas", "0"), "resgen lab: invalid value \"0\" for flag -replicas: must be from 1 to 100 (resgen lab -h lists the flags)\n"},
		{"-replicas above 100", with("outage", "-replicas", "101"), "resgen lab: invalid value \"101\" for flag -replicas: must be from 1 to 100"},
		{"-replicas a word", with("outage", "-replicas", "ten"), "resgen lab: invalid value \"ten\" for flag -replicas: not a whole number"},
		{"-replicas a fraction", with("outage", "-replicas", "2.5"), "resgen lab: invalid value \"2.5\" for flag -replicas: not a whole number"},
		{"-o a file", with("storm", "-o", file), file + ": error: cannot write the output: is not a folder: -o names the folder the report goes to\n"},
		{"-o below a file", with("storm", "-o", filepath.Join(file, "report")), filepath.Join(file, "report") + ": error: cannot write the output: " + file + " is not a folder\n"},
		{"spec missing", []string{"lab", "storm", "-spec", "testdata/specs/nope.yaml", "-op", "x"}, "testdata/specs/nope.yaml: error: cannot read spec"},
		{"spec invalid", []string{"lab", "storm", "-spec", "testdata/specs/invalid/retry-on-post.yaml", "-op", "x"},
			"testdata/specs/invalid/retry-on-post.yaml:9:9: error: retry on POST /servers, which is not retry-safe"},
		{"-strict makes the warning an error", append(with("storm"), "-strict"), fmt.Sprintf("testdata/specs/lab.yaml:%d:7: error: jitter: none with 3 attempts", lineOf(t, labSpec, "jitter: none"))},
		{"no such operation", []string{"lab", "storm", "-spec", labSpec, "-op", "listItem"},
			"resgen lab: testdata/specs/lab.yaml: no operation has operationId \"listItem\" (did you mean \"listItems\"?)\n"},
		{"no operation close", []string{"lab", "storm", "-spec", labSpec, "-op", "zzz"},
			"resgen lab: testdata/specs/lab.yaml: no operation has operationId \"zzz\" (it has sustainedFailure, listItems, createItem, listItemsOverload, slowReport, getStatus)\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, c.args...)
			if code != exitInput || stdout != "" {
				t.Fatalf("exit %d, stdout %q; want %d and nothing", code, stdout, exitInput)
			}
			last := afterWarnings(stderr)
			if !strings.HasPrefix(last, c.stderr) {
				t.Fatalf("stderr:\n%s\nwant it to start:\n%s", stderr, c.stderr)
			}
			if strings.HasPrefix(c.stderr, "resgen lab: ") && strings.Count(last, "\n") != 1 {
				t.Fatalf("not one line: %q", last)
			}
		})
	}
	if len(*calls) != 0 {
		t.Fatalf("the lab ran on bad input: %+v", *calls)
	}
	if _, err := os.Stat(filepath.Join(file, "report")); err == nil {
		t.Fatal("-o below a file was made")
	}
}

// TestLabOptions: the flags reach the lab as Options, the scenario may
// come after the flags, and the target is the spec's resolved operation.
func TestLabOptions(t *testing.T) {
	t.Chdir("../..")
	cases := []struct {
		args         []string
		scenario, op string
		want         lab.Options
	}{
		{[]string{"storm", "-spec", labSpec, "-op", "listItemsOverload"}, "storm", "listItemsOverload", lab.Options{Speed: 1, Overload: "reject"}},
		{[]string{"-spec", labSpec, "-op", "listItemsOverload", "-compare", "-speed", "20", "-overload", "timeout", "-retry-after", "storm"},
			"storm", "listItemsOverload", lab.Options{Speed: 20, Compare: true, Overload: "timeout", RetryAfter: true}},
		{[]string{"outage", "-spec", labSpec, "-op", "getStatus", "-down", "10m", "-speed", "2.5"}, "outage", "getStatus", lab.Options{Speed: 2.5, Down: 10 * time.Minute}},
		{[]string{"order", "-spec", labSpec, "-op", "sustainedFailure", "-speed", "1000"}, "order", "sustainedFailure", lab.Options{Speed: 1000}},
		{[]string{"slow", "-op", "slowReport", "-spec", labSpec, "-compare"}, "slow", "slowReport", lab.Options{Speed: 1, Compare: true}},
		{[]string{"stream", "-op", "listItems", "-spec", labSpec, "-compare", "-speed", "10"}, "stream", "listItems", lab.Options{Speed: 10, Compare: true}},
		// -replicas runs the fleet in memory (Fleet is compared apart: a func).
		{[]string{"outage", "-spec", labSpec, "-op", "getStatus", "-replicas", "10", "-compare"}, "outage", "getStatus",
			lab.Options{Speed: 1, Compare: true, Replicas: 10, FleetAbout: "the runtime's memory store"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			calls := fakeLab(t, nil)
			code, stdout, stderr := runCLI(t, append([]string{"lab"}, c.args...)...)
			if code != exitOK || len(*calls) != 1 {
				t.Fatalf("exit %d, %d runs; stderr %s", code, len(*calls), stderr)
			}
			got := (*calls)[0]
			if fleet := got.opts.Fleet != nil; fleet != (c.want.Replicas > 0) {
				t.Fatalf("fleet %v with %d replicas", fleet, c.want.Replicas)
			}
			got.opts.Fleet = nil
			if got.scenario != c.scenario || !reflect.DeepEqual(got.opts, c.want) {
				t.Fatalf("scenario %q, options %+v; want %q, %+v", got.scenario, got.opts, c.scenario, c.want)
			}
			if got.target.OperationID != c.op || got.target.Spec != labSpec {
				t.Fatalf("target %s in %s, want %s", got.target.OperationID, got.target.Spec, c.op)
			}
			if !strings.Contains(stdout, "fake") {
				t.Fatalf("the report's table is not on stdout: %q", stdout)
			}
		})
	}
}

// TestLabShowsTheWarningsAboutItsTarget: a lab prints the spec's
// warnings about the operation it runs and the policies that operation
// uses, and only counts the others.
func TestLabShowsTheWarningsAboutItsTarget(t *testing.T) {
	t.Chdir("../..")
	const jitter = "warning: jitter: none with 3 attempts"
	for _, c := range []struct {
		op         string
		shown      bool
		countsMore string
	}{
		{"sustainedFailure", true, ""}, // its retry policy is the one warned about
		{"listItemsOverload", false, labSpec + ": 1 more warning about other parts of the spec (resgen lint lists them)\n"},
	} {
		fakeLab(t, nil)
		code, _, stderr := runCLI(t, "lab", "order", "-spec", labSpec, "-op", c.op)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", c.op, code, stderr)
		}
		if strings.Contains(stderr, jitter) != c.shown || !strings.Contains(stderr, c.countsMore) {
			t.Errorf("%s: stderr %q", c.op, stderr)
		}
	}
}

// TestLabTargetIsResolve: the target the CLI hands the lab is the one
// lab.Resolve gives for the same spec and operation.
func TestLabTargetIsResolve(t *testing.T) {
	t.Chdir("../..")
	calls := fakeLab(t, nil)
	if code, _, stderr := runCLI(t, "lab", "order", "-spec", labSpec, "-op", "sustainedFailure"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want, err := lab.Resolve(context.Background(), generator.Config{Spec: labSpec}, "sustainedFailure")
	if err != nil {
		t.Fatal(err)
	}
	if got := (*calls)[0].target; !reflect.DeepEqual(got, want) {
		t.Fatalf("target\n%+v\nwant\n%+v", got, want)
	}
}

// TestLabProgressOnlyOnATerminal: progress lines go to stderr only when
// it is a character device; a buffer or a regular file gets none.
func TestLabProgressOnlyOnATerminal(t *testing.T) {
	t.Chdir("../..")
	calls := fakeLab(t, func(_ context.Context, _ string, _ *lab.Target, o lab.Options) (*lab.Report, error) {
		if o.Progress != nil {
			fmt.Fprint(o.Progress, "\rstorm · spec · 1.0s of ~5.0s")
		}
		return &lab.Report{}, nil
	})
	args := []string{"lab", "storm", "-spec", labSpec, "-op", "listItems", "-speed", "20"}
	code, _, stderr := runCLI(t, args...)
	if code != exitOK || strings.Contains(stderr, "\r") || (*calls)[0].opts.Progress != nil {
		t.Fatalf("exit %d; progress to a buffer: %q", code, stderr)
	}
	file, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if code := run(context.Background(), args, new(bytes.Buffer), file); code != exitOK || (*calls)[1].opts.Progress != nil {
		t.Fatalf("exit %d; progress to a regular file", code)
	}
	if got, _ := os.ReadFile(file.Name()); bytes.Contains(got, []byte("\r")) {
		t.Fatalf("progress written to a regular file: %q", got)
	}
	// A character device is what a terminal is to os.File; /dev/null is
	// one that every Unix has.
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer null.Close()
	if fi, err := null.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Skip("no character device here")
	}
	if code := run(context.Background(), args, new(bytes.Buffer), null); code != exitOK || (*calls)[2].opts.Progress != null {
		t.Fatalf("exit %d; no progress to a character device", code)
	}
}

// TestLabErrors: the lab's refusals are bad input (2), Ctrl-C is 130,
// anything else is a resgen fault (1).
func TestLabErrors(t *testing.T) {
	t.Chdir("../..")
	cases := []struct {
		name   string
		err    error
		code   int
		stderr string
	}{
		{"refused", fmt.Errorf("%w: order needs a breaker: listItems has breaker: none", lab.ErrRefused), exitInput,
			"resgen lab: cannot run on this operation: order needs a breaker: listItems has breaker: none\n"},
		{"not retry-safe", fmt.Errorf("%w: strategy \"naive\" retries", lab.ErrNotRetrySafe), exitInput,
			"resgen lab: not retry-safe: strategy \"naive\" retries\n"},
		{"anything else", errors.New("listen tcp: too many open files"), exitInternal,
			"resgen: internal error: listen tcp: too many open files (a bug in resgen"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fakeLab(t, func(context.Context, string, *lab.Target, lab.Options) (*lab.Report, error) { return nil, c.err })
			code, stdout, stderr := runCLI(t, "lab", "storm", "-spec", labSpec, "-op", "listItems")
			if code != c.code || stdout != "" || !strings.HasPrefix(afterWarnings(stderr), c.stderr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d, %q", code, stdout, stderr, c.code, c.stderr)
			}
		})
	}
	t.Run("interrupted", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		fakeLab(t, func(ctx context.Context, _ string, _ *lab.Target, _ lab.Options) (*lab.Report, error) {
			cancel() // as Ctrl-C would, while the lab runs
			<-ctx.Done()
			return nil, ctx.Err()
		})
		var stdout, stderr bytes.Buffer
		code := run(ctx, []string{"lab", "storm", "-spec", labSpec, "-op", "listItems"}, &stdout, &stderr)
		if code != exitInterrupted || stdout.Len() != 0 || afterWarnings(stderr.String()) != "resgen lab: storm interrupted\n" {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
		}
	})
}

// TestLabCtrlC: a real SIGINT while the lab runs cancels the lab's
// context (the process lives on) and the answer is exit status 130.
func TestLabCtrlC(t *testing.T) {
	t.Chdir("../..")
	fakeLab(t, func(ctx context.Context, _ string, _ *lab.Target, _ lab.Options) (*lab.Report, error) {
		self, err := os.FindProcess(os.Getpid())
		if err == nil {
			err = self.Signal(os.Interrupt)
		}
		if err != nil {
			return nil, fmt.Errorf("skip: %w", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Second):
			return nil, errors.New("the interrupt did not stop the lab")
		}
	})
	code, stdout, stderr := runCLI(t, "lab", "storm", "-spec", labSpec, "-op", "listItems")
	if strings.Contains(stderr, "skip: ") {
		t.Skip("cannot interrupt this process:", stderr)
	}
	if code != exitInterrupted || stdout != "" || afterWarnings(stderr) != "resgen lab: storm interrupted\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestLabWritesDir: with -o the report goes to stdout and into the folder
// (made if missing), and stderr lists the files written, each there.
func TestLabWritesDir(t *testing.T) {
	t.Chdir("../..")
	fakeLab(t, nil)
	dir := filepath.Join(t.TempDir(), "lab", "storm")
	code, stdout, stderr := runCLI(t, "lab", "storm", "-spec", labSpec, "-op", "listItems", "-o", dir)
	if code != exitOK || !strings.Contains(stdout, "fake") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	var files []string
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if f, ok := strings.CutPrefix(line, "wrote "); ok {
			files = append(files, f)
		}
	}
	if len(files) == 0 || !slices.Contains(files, filepath.Join(dir, "report.md")) {
		t.Fatalf("stderr lists %v, want report.md among them:\n%s", files, stderr)
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
			t.Fatalf("%s: %v", f, err)
		}
	}
}

// TestLabNotRetrySafe: a lab whose strategies retry, on an operation that
// must not be retried, is refused before it runs, naming the strategy
// (the real lab: skipped while the storm scenario is a stub).
func TestLabNotRetrySafe(t *testing.T) {
	t.Chdir("../..")
	code, stdout, stderr := runCLI(t, "lab", "storm", "-spec", labSpec, "-op", "createItem", "-compare", "-speed", "20")
	if code != exitInput || stdout != "" || !strings.Contains(stderr, "resgen lab: not retry-safe: POST /items (createItem) is not retry-safe") || !strings.Contains(stderr, `strategy "`) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestLabRefusesWhatTheScenarioCannotRun: the real order lab on an
// operation without retry is bad input (exit 2, one line naming it), not
// a resgen fault.
func TestLabRefusesWhatTheScenarioCannotRun(t *testing.T) {
	t.Chdir("../..")
	code, stdout, stderr := runCLI(t, "lab", "order", "-spec", labSpec, "-op", "createItem", "-speed", "20")
	last := afterWarnings(stderr)
	if code != exitInput || stdout != "" || strings.Count(last, "\n") != 1 ||
		!strings.HasPrefix(last, "resgen lab: cannot run on this operation: lab order compares the breaker outside and inside the retry loop, so it needs both, and POST /items (createItem) has breaker default, no retry (POST without key: off)") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestLabOrderRuns: a sped-up order lab through the CLI prints its table
// and exits 0.
func TestLabOrderRuns(t *testing.T) {
	t.Chdir("../..")
	code, stdout, stderr := runCLI(t, "lab", "order", "-spec", labSpec, "-op", "sustainedFailure", "-speed", "20")
	if code != exitOK || !strings.Contains(stdout, "sustainedFailure") || !strings.Contains(stdout, "20") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestLabOutageReplicasRuns: -replicas runs the outage with local
// breakers and a fleet in memory, and leads with the table comparing them.
func TestLabOutageReplicasRuns(t *testing.T) {
	t.Chdir("../..")
	code, stdout, stderr := runCLI(t, "lab", "outage", "-spec", labSpec, "-op", "getStatus", "-replicas", "3", "-down", "2s", "-speed", "20")
	if code != exitOK || !strings.Contains(stdout, "\n3 replicas: local breakers and a fleet\n") || !strings.Contains(stdout, "trial calls at recovery") ||
		!strings.Contains(stdout, "  fleet  ") || !strings.Contains(stdout, "the runtime's memory store") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestLabHelp: resgen lab -h documents every flag; resgen help lists lab.
func TestLabHelp(t *testing.T) {
	code, stdout, stderr := runCLI(t, "lab", "-h")
	if code != exitOK || stdout != "" || !strings.HasPrefix(stderr, "Usage: "+labUsage+"\n") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, f := range []string{"spec", "op", "overlay", "allow-read", "strict", "compare", "speed", "o", "overload", "retry-after", "down", "replicas"} {
		if !strings.Contains(labUsage, "-"+f+" ") && !strings.Contains(labUsage, "-"+f+"]") {
			t.Errorf("the usage line lacks -%s", f)
		}
		if !strings.Contains(stderr, "\n  -"+f+" ") && !strings.Contains(stderr, "\n  -"+f+"\n") {
			t.Errorf("the flags lack -%s", f)
		}
	}
	for _, s := range lab.Scenarios {
		if !strings.Contains(stderr, "\n  "+s+" ") {
			t.Errorf("the help does not describe %s", s)
		}
	}
	if _, stdout, _ := runCLI(t, "help"); !strings.Contains(stdout, "\n  resgen lab SCENARIO ") {
		t.Errorf("resgen help does not list lab:\n%s", stdout)
	}
}
