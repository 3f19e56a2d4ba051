package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/resgen/resgen/generator"
	"github.com/resgen/resgen/generator/view"
)

// exitPolicyChanged is resgen diff's answer when the two specs' policies
// differ: a CI step tells it from bad input (2) and posts the diff.
const exitPolicyChanged = 4

const diffUsage = "resgen diff -old FILE|git:REV:FILE -new FILE [-old-overlay FILE]... [-new-overlay FILE]... [-format text|markdown|json]"

const diffHelp = `Compares the resolved resilience policy of every operation between two specs
(matched by operationId, else "METHOD path"): breaker and its thresholds, retry
on or off and why, attempts, waits, jitter, retryOn, Retry-After, budget,
timeouts, idempotency key; operations added and removed; the operations a
changed breaker affects. Either side may be git:REV:FILE, the spec as of a
git revision (FILE relative to the current folder), with the files it $refs
as of that revision. Each side's warnings and errors go to stderr.

Exit status: 0 no policy change; 4 the policy changed; 2 bad input (a spec
that does not load, with its diagnostics); 1 a bug in resgen.`

// diffSide is one side's flags.
type diffSide struct {
	flag     string // -old or -new
	spec     string
	overlays []string
}

func runDiff(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("resgen diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	old, new := diffSide{flag: "-old"}, diffSide{flag: "-new"}
	fs.StringVar(&old.spec, "old", "", "the spec before the change: a `FILE`, or git:REV:FILE (required)")
	fs.StringVar(&new.spec, "new", "", "the spec after the change: a `FILE`, or git:REV:FILE (required)")
	for _, s := range []struct {
		name string
		side *diffSide
	}{{"old-overlay", &old}, {"new-overlay", &new}} {
		side := s.side
		fs.Func(s.name, "OpenAPI Overlay 1.0 `FILE` applied to that side's spec (repeatable, in order)", func(v string) error {
			side.overlays = append(side.overlays, v)
			return nil
		})
	}
	format := fs.String("format", "text", "output format: text, markdown or json")
	strict := fs.Bool("strict", false, "treat warnings as errors")
	var allowRead []string
	fs.Func("allow-read", "let $refs of a FILE side read files below `DIR` too (repeatable)", func(v string) error {
		allowRead = append(allowRead, v)
		return nil
	})
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: %s\n\n%s\n\nFlags:\n", diffUsage, diffHelp)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitInput
	}
	var missing []string
	for _, f := range []struct{ name, v string }{{"-old", old.spec}, {"-new", new.spec}} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	switch {
	case len(missing) > 0:
		fmt.Fprintf(stderr, "resgen diff: missing %s\n", strings.Join(missing, ", "))
		fs.Usage()
		return exitInput
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "resgen diff: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitInput
	case *format != "text" && *format != "markdown" && *format != "json":
		fmt.Fprintf(stderr, "resgen diff: -format must be text, markdown or json, not %q\n", *format)
		return exitInput
	}
	var tc *tempCleanup
	if strings.HasPrefix(old.spec, gitSpecPrefix) || strings.HasPrefix(new.spec, gitSpecPrefix) {
		// A git: side's temp folder must not outlive a Ctrl-C.
		tc = newTempCleanup()
		defer tc.stop()
	}
	// Both sides load even when the first fails, so one run shows what is
	// wrong with either.
	oldModel, oldCode := loadSide(ctx, old, *strict, allowRead, tc, stderr)
	newModel, newCode := loadSide(ctx, new, *strict, allowRead, tc, stderr)
	if code := max(oldCode, newCode); code != exitOK {
		return code
	}
	d := view.DiffPolicies(oldModel.Model, newModel.Model, old.spec, new.spec)
	text, err := d.Render(*format)
	if err != nil {
		return internalError(stderr, err)
	}
	stdout.Write(text)
	if d.Changed {
		return exitPolicyChanged
	}
	return exitOK
}

// loadSide checks one side's spec as lint does: its warnings and errors go
// to stderr, a git: side's under its git:REV:path name (its temp folder
// made through tc).
func loadSide(ctx context.Context, side diffSide, strict bool, allowRead []string, tc *tempCleanup, stderr io.Writer) (*generator.Checked, int) {
	cfg := generator.Config{Spec: side.spec, Package: "client", Overlays: side.overlays, Strict: strict, ReadRoots: allowRead}
	var g *gitSide
	if strings.HasPrefix(side.spec, gitSpecPrefix) {
		var err error
		if g, err = materializeGit(ctx, side.spec, tc); err != nil {
			var ge *gitError
			if errors.As(err, &ge) {
				fmt.Fprintln(stderr, generator.Diagnostic{Severity: generator.Error, File: side.flag, Msg: ge.msg})
				return nil, exitInput
			}
			return nil, internalError(stderr, err)
		}
		defer g.Close()
		// The revision's own root, and nothing above the temp folder.
		cfg.Spec, cfg.ReadRoots, cfg.OnlyReadRoots = g.spec, []string{g.root}, true
	}
	checked, err := checkSpec(ctx, cfg)
	if err != nil {
		var ie *generator.InputError
		if g != nil && errors.As(err, &ie) {
			g.relabelAll(ie.Diags)
		}
		return nil, specError(stderr, err)
	}
	if g != nil {
		g.relabelAll(checked.Diags)
	}
	printDiags(stderr, checked.Diags)
	return checked, exitOK
}

// relabelAll names the files of diagnostics git:REV:path, in their
// messages too: the temp folder means nothing to the user.
func (g *gitSide) relabelAll(ds generator.Diagnostics) {
	sep := string(filepath.Separator)
	// The folder itself (a read root, in a refusal) is the revision's
	// top: git:REV:.
	pairs := []string{g.dir + sep, g.label, g.dir, g.label + "."}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, g.dir); err == nil {
			pairs = append(pairs, rel+sep, g.label)
		}
	}
	inDir := strings.NewReplacer(pairs...)
	for i := range ds {
		ds[i].File = g.relabel(ds[i].File)
		ds[i].Msg, ds[i].Hint = inDir.Replace(ds[i].Msg), inDir.Replace(ds[i].Hint)
	}
}
