package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/resgen/resgen/generator"
	"github.com/resgen/resgen/generator/view"
	"github.com/resgen/resgen/internal/gopanic"
	"github.com/resgen/resgen/internal/sanitize"
)

// Exit statuses: 0 success, 1 a resgen fault, 2 bad input (spec, flags,
// extension), 3 stale output under generate -check.
const (
	exitOK       = 0
	exitInternal = 1
	exitInput    = 2
	// exitStale is generate -check's answer when the output on disk is
	// not what the spec generates: CI can tell it from bad input.
	exitStale = 3
)

// maxDiags caps how many diagnostics one run prints.
const maxDiags = 50

const usage = `resgen generates resilient Go API clients from OpenAPI specs
annotated with x-resilience (breaker outside, retry inside).

Usage:
  resgen generate -spec FILE -package NAME -o OUT.go   write a client
  resgen generate [-config FILE] [-job NAME]           write the clients resgen.yaml lists
  resgen lint -spec FILE                               check x-resilience, write nothing
  resgen explain -spec FILE [-format table|markdown|json]
                                                       print each operation's policy
  resgen diff -old FILE|git:REV:FILE -new FILE [-format text|markdown|json]
                                                       what a spec change does to each
                                                       operation's policy (exit 4: changed)
  resgen lab SCENARIO -spec FILE -op OPERATION_ID [-compare] [-speed N] [-o DIR]
                                                       run an operation's policy against a
                                                       storm, order, slow, outage or stream
                                                       server
  resgen version                                       print the version
  resgen help                                          print this help

generate, lint, explain and lab take -overlay FILE (OpenAPI Overlay 1.0, repeatable,
applied in order), -strict (warnings become errors) and -allow-read DIR
(repeatable): a $ref reads only files below the spec's Go module, else its
repository, else its folder, and below each -allow-read folder.

Run "resgen COMMAND -h" for a command's flags.

Exit status: 0 success; 2 bad input (spec, flags, x-resilience) or an -o that
cannot be written; 1 a bug in resgen (one line, please report it); 3 stale
output (generate -check); 4 a policy changed (diff); 130 a lab stopped by Ctrl-C. A failed run never
changes an existing output file.
`

// issues is where a resgen bug is reported.
const issues = "https://github.com/resgen/resgen/issues"

// generate is the generator. Tests replace it to make resgen fail in the
// ways no input should (a panic, code gofmt cannot parse).
var generate = generator.Generate

// checkSpec is the stages before printing: lint and explain stop there,
// so a fault of the printer cannot break them.
var checkSpec = generator.Check

// run is the whole CLI, callable from tests in-process. A panic anywhere
// is a resgen bug: it becomes one line on stderr and exit status 1, not a
// goroutine dump.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "resgen: internal error: panic: %s%s (a bug in resgen: please report it, with the spec if you can, at %s)\n",
				oneLine(fmt.Sprint(p)), panicSite(p), issues)
			code = exitInternal
		}
	}()
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitInput
	}
	switch args[0] {
	case "generate", "lint", "explain":
		return runCommand(ctx, args[0], args[1:], stdout, stderr)
	case "diff":
		return runDiff(ctx, args[1:], stdout, stderr)
	case "lab":
		return runLab(ctx, args[1:], stdout, stderr)
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, "resgen "+version())
		return exitOK
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "resgen: unknown command %q\n\n%s", args[0], usage)
	return exitInput
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// commandHelp is each spec command's usage line and description.
var commandHelp = map[string][2]string{
	"generate": {"resgen generate -spec FILE -package NAME -o OUT.go [-split kind|tag] [-check] [-overlay FILE]... [-strict]\n       resgen generate [-config FILE] [-job NAME] [-check] [-strict] [-split kind|tag]",
		"Writes one gofmt'd Go file with a typed client for every operation of the spec.\nThe file is replaced atomically (a temp file in its folder, synced, renamed over\nit); a failed run leaves it as it was. It keeps its permission bits. If -o is a\nsymbolic link, the file it points to is replaced and the link kept. A folder, a\ndevice or a pipe is refused.\n\nWith -split, -o is a folder and the client is written as several files:\nkind: types.gen.go, client.gen.go, operations.gen.go; tag: types.gen.go,\nclient.gen.go and ops_<tag>.gen.go per tag. Files resgen wrote there before\nand no longer writes are removed.\n\nWith -check nothing is written: exit status 3 says the output on disk is stale\n(for CI), 0 that it is current.\n\nWith no -spec, the jobs of ./resgen.yaml (or of -config FILE) run: each job\nnames a spec, overlays, package, output, split and strict, paths relative to\nthe config's folder (docs/config.md). Every job is generated before any file\nis written, and nothing is written unless every job succeeds. -job NAME runs\none job (its name, else its output as written). -strict and -split given\nexplicitly override every job; -spec, -overlay, -package and -o only the one\njob selected. The exit status is the worst of the jobs'."},
	"lint": {"resgen lint -spec FILE [-overlay FILE]... [-strict]",
		"Checks the spec and its x-resilience: errors, then warnings about policies that\nwill not do what they seem to. Writes nothing. Exit status 2 on any error\n(and on any warning with -strict)."},
	"explain": {"resgen explain -spec FILE [-overlay FILE]... [-format table|markdown|json]",
		"Prints each operation's breaker, retry (on or off, and why), attempts and\ntimeouts, then each breaker and retry policy once: the facts written above\neach generated method. The table fits 120 columns; markdown (for a pull\nrequest) adds retryOn, the Retry-After cap, the budget and the warnings;\njson has every value."},
	"lab": {labUsage, labHelp},
}

// specFlags are the flags of every command that reads a spec.
type specFlags struct {
	spec                *string
	strict              *bool
	overlays, allowRead []string
}

func addSpecFlags(fs *flag.FlagSet) *specFlags {
	f := &specFlags{spec: fs.String("spec", "", "OpenAPI 3 or Swagger 2.0 spec, YAML or JSON (required)")}
	fs.Func("overlay", "OpenAPI Overlay 1.0 `FILE` applied to the spec before loading (repeatable, in order)", func(v string) error {
		f.overlays = append(f.overlays, v)
		return nil
	})
	f.strict = fs.Bool("strict", false, "treat warnings as errors")
	fs.Func("allow-read", "let $refs read files below `DIR` too (repeatable); by default only below the spec's Go module, else its repository, else its folder", func(v string) error {
		f.allowRead = append(f.allowRead, v)
		return nil
	})
	return f
}

// config is the generator's configuration the flags say.
func (f *specFlags) config() generator.Config {
	return generator.Config{Spec: *f.spec, Package: "client", Overlays: f.overlays, Strict: *f.strict, ReadRoots: f.allowRead}
}

// printHelp prints cmd's usage, description and flags.
func printHelp(fs *flag.FlagSet, cmd string, w io.Writer) {
	h := commandHelp[cmd]
	fmt.Fprintf(w, "Usage: %s\n\n%s\n\nFlags:\n", h[0], h[1])
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// specError answers a spec that did not load or check: its diagnostics
// and exit status 2 for bad input, one line and 1 for a resgen fault.
func specError(stderr io.Writer, err error) int {
	var ie *generator.InputError
	if errors.As(err, &ie) {
		printDiags(stderr, ie.Diags)
		return exitInput
	}
	return internalError(stderr, err)
}

// runCommand runs generate, lint or explain.
func runCommand(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("resgen "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	sf := addSpecFlags(fs)
	var pkg, out, format, split *string
	var check *bool
	var jobs *jobFlags
	required := []string{"-spec"}
	switch cmd {
	case "generate":
		jobs = &jobFlags{sf: sf}
		addJobFlags(fs, jobs)
		pkg = fs.String("package", "", "Go package name of the output (required without a config)")
		out = fs.String("o", "", "output Go `FILE` (required without a config), or folder with -split; written atomically")
		split = fs.String("split", "", "write several files into the -o folder, by kind or by tag")
		check = fs.Bool("check", false, "write nothing; exit 3 if the output on disk differs from what the spec generates")
		required = append(required, "-package", "-o")
	case "explain":
		format = fs.String("format", "table", "output format: table, markdown or json")
	}
	fs.Usage = func() { printHelp(fs, cmd, stderr) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitInput
	}
	if jobs != nil {
		if code, ran := jobs.run(ctx, fs, pkg, out, split, check, stderr); ran {
			return code
		}
	}
	var missing []string
	for _, name := range required {
		if fs.Lookup(name[1:]).Value.String() == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 || fs.NArg() > 0 {
		if len(missing) > 0 {
			fmt.Fprintf(stderr, "resgen %s: missing %s\n", cmd, strings.Join(missing, ", "))
			if jobs != nil {
				fmt.Fprintf(stderr, "(or run it where a %s lists the jobs, or give -config FILE)\n", defaultConfig)
			}
		} else {
			fmt.Fprintf(stderr, "resgen %s: unexpected argument %q\n", cmd, fs.Arg(0))
		}
		fs.Usage()
		return exitInput
	}
	if format != nil && *format != "table" && *format != "markdown" && *format != "json" {
		fmt.Fprintf(stderr, "resgen explain: -format must be table, markdown or json, not %q\n", *format)
		return exitInput
	}
	cfg := sf.config()
	if pkg != nil {
		cfg.Package = *pkg
	}
	if split != nil {
		cfg.Split = *split
	}
	if out != nil {
		// Before any work: -o /dev/null, a folder or a pipe is refused
		// whatever the spec says.
		if err := checkOutput(*out, cfg.Split != ""); err != nil {
			return outputError(stderr, *out, err)
		}
	}
	var res *generator.Result
	var checked *generator.Checked
	var err error
	if cmd == "generate" {
		if res, err = generate(ctx, cfg); err == nil {
			checked = &generator.Checked{Model: res.Model, Diags: res.Diags}
		}
	} else {
		checked, err = checkSpec(ctx, cfg)
	}
	if err != nil {
		return specError(stderr, err)
	}
	printDiags(stderr, checked.Diags)
	switch cmd {
	case "generate":
		if *check {
			stale := staleFiles(*out, cfg.Split != "", res.Files)
			for _, f := range stale {
				fmt.Fprintf(stderr, "%s: stale: regenerate with resgen generate\n", sanitize.Terminal(f))
			}
			if len(stale) > 0 {
				return exitStale
			}
			return exitOK
		}
		var err error
		if cfg.Split == "" {
			err = writeAtomic(*out, res.Source)
		} else {
			err = writeFolder(*out, res.Files)
		}
		if err != nil {
			return outputError(stderr, *out, err)
		}
	case "explain":
		text, err := view.Explain(checked.Model, checked.Diags, *format)
		if err != nil {
			return internalError(stderr, err)
		}
		stdout.Write(text)
	}
	return exitOK
}

// outputError reports that the output cannot be written where -o says, as
// a diagnostic of the -o path: exit status 2, the user's to fix.
func outputError(stderr io.Writer, out string, err error) int {
	fmt.Fprintln(stderr, generator.Diagnostic{Severity: generator.Error, File: out, Msg: "cannot write the output: " + oneLine(err.Error())})
	return exitInput
}

// internalError reports a resgen fault in one line: no generated source on
// the terminal. Code gofmt could not parse is kept in a temp file for the
// bug report.
func internalError(stderr io.Writer, err error) int {
	msg := oneLine(err.Error())
	var fe *generator.FormatError
	if errors.As(err, &fe) {
		if f, ferr := os.CreateTemp("", "resgen-unformatted-*.go"); ferr == nil {
			_, werr := f.Write(fe.Source)
			if cerr := f.Close(); werr == nil && cerr == nil {
				msg += "; the code is in " + sanitize.Terminal(f.Name())
			}
		}
	}
	fmt.Fprintf(stderr, "resgen: internal error: %s (a bug in resgen: please report it at %s)\n", msg, issues)
	return exitInternal
}

// oneLine is the first line of s, escaped for a terminal and cut to a
// length a terminal line holds.
func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return sanitize.Terminal(s)
}

// panicSite names the function and line that panicked, from the deferred
// recover: " at generator.statusRank (operations.go:478)", or "".
// panicSite names where p was raised: on a worker goroutine of the
// generator, the site it carries; else the frame that panicked (the
// deferred function calling panicSite is skipped).
func panicSite(p any) string {
	if gp, ok := p.(*gopanic.Panic); ok {
		return gp.Site
	}
	return gopanic.Site(3)
}

func printDiags(w io.Writer, ds generator.Diagnostics) {
	for i, d := range ds {
		if i == maxDiags {
			fmt.Fprintf(w, "resgen: %d more not shown\n", len(ds)-maxDiags)
			break
		}
		fmt.Fprintln(w, d.String())
	}
}
