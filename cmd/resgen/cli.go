package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/resgen/resgen/generator"
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
  resgen lint -spec FILE                               check x-resilience, write nothing
  resgen explain -spec FILE [-format table|markdown|json]
                                                       print each operation's policy
  resgen version                                       print the version
  resgen help                                          print this help

generate, lint and explain take -overlay FILE (OpenAPI Overlay 1.0, repeatable,
applied in order), -strict (warnings become errors) and -allow-read DIR
(repeatable): a $ref reads only files below the spec's Go module, else its
repository, else its folder, and below each -allow-read folder.

Run "resgen COMMAND -h" for a command's flags.

Exit status: 0 success, 2 bad input (spec, flags, x-resilience), 1 internal
error, 3 stale output (generate -check). A failed run never changes an
existing output file.
`

// run is the whole CLI, callable from tests in-process.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitInput
	}
	switch args[0] {
	case "generate", "lint", "explain":
		return runCommand(ctx, args[0], args[1:], stdout, stderr)
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
	"generate": {"resgen generate -spec FILE -package NAME -o OUT.go [-split kind|tag] [-check] [-overlay FILE]... [-strict]",
		"Writes one gofmt'd Go file with a typed client for every operation of the spec.\nThe file is replaced atomically; a failed run leaves it as it was.\n\nWith -split, -o is a folder and the client is written as several files:\nkind: types.gen.go, client.gen.go, operations.gen.go; tag: types.gen.go,\nclient.gen.go and ops_<tag>.gen.go per tag. Files resgen wrote there before\nand no longer writes are removed.\n\nWith -check nothing is written: exit status 3 says the output on disk is stale\n(for CI), 0 that it is current."},
	"lint": {"resgen lint -spec FILE [-overlay FILE]... [-strict]",
		"Checks the spec and its x-resilience: errors, then warnings about policies that\nwill not do what they seem to. Writes nothing. Exit status 2 on any error\n(and on any warning with -strict)."},
	"explain": {"resgen explain -spec FILE [-overlay FILE]... [-format table|markdown|json]",
		"Prints each operation's breaker, retry (on or off, and why), attempts, waits\nand timeouts: the facts written above each generated method."},
}

// runCommand runs generate, lint or explain.
func runCommand(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("resgen "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	specPath := fs.String("spec", "", "OpenAPI 3 or Swagger 2.0 spec, YAML or JSON (required)")
	var overlays []string
	fs.Func("overlay", "OpenAPI Overlay 1.0 `FILE` applied to the spec before loading (repeatable, in order)", func(v string) error {
		overlays = append(overlays, v)
		return nil
	})
	strict := fs.Bool("strict", false, "treat warnings as errors")
	var allowRead []string
	fs.Func("allow-read", "let $refs read files below `DIR` too (repeatable); by default only below the spec's Go module, else its repository, else its folder", func(v string) error {
		allowRead = append(allowRead, v)
		return nil
	})
	var pkg, out, format, split *string
	var check *bool
	required := []string{"-spec"}
	switch cmd {
	case "generate":
		pkg = fs.String("package", "", "Go package name of the output (required)")
		out = fs.String("o", "", "output Go `FILE` (required), or folder with -split; written atomically")
		split = fs.String("split", "", "write several files into the -o folder, by kind or by tag")
		check = fs.Bool("check", false, "write nothing; exit 3 if the output on disk differs from what the spec generates")
		required = append(required, "-package", "-o")
	case "explain":
		format = fs.String("format", "table", "output format: table, markdown or json")
	}
	fs.Usage = func() {
		h := commandHelp[cmd]
		fmt.Fprintf(stderr, "Usage: %s\n\n%s\n\nFlags:\n", h[0], h[1])
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitInput
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
	cfg := generator.Config{Spec: *specPath, Package: "client", Overlays: overlays, Strict: *strict, ReadRoots: allowRead}
	if pkg != nil {
		cfg.Package = *pkg
	}
	if split != nil {
		cfg.Split = *split
	}
	res, err := generator.Generate(ctx, cfg)
	if err != nil {
		var ie *generator.InputError
		if errors.As(err, &ie) {
			printDiags(stderr, ie.Diags)
			return exitInput
		}
		fmt.Fprintf(stderr, "resgen: internal error: %v\n", err)
		return exitInternal
	}
	printDiags(stderr, res.Diags)
	switch cmd {
	case "generate":
		if *check {
			stale := staleFiles(*out, cfg.Split != "", res.Files)
			for _, f := range stale {
				fmt.Fprintf(stderr, "%s: stale: regenerate with resgen generate\n", f)
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
			fmt.Fprintf(stderr, "resgen: %v\n", err)
			return exitInternal
		}
	case "explain":
		text, err := generator.Explain(res.Model, *format)
		if err != nil {
			fmt.Fprintf(stderr, "resgen: internal error: %v\n", err)
			return exitInternal
		}
		stdout.Write(text)
	}
	return exitOK
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

// writeAtomic replaces path with data through a temp file in the same
// folder and a rename, so a reader (or a failed run) never sees half a
// file. An unchanged file is left alone, keeping its modification time.
func writeAtomic(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && string(old) == string(data) {
		return nil
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create output folder: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".resgen-*")
	if err != nil {
		return fmt.Errorf("cannot write output: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write output: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write output: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot write output: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot write output: %w", err)
	}
	return nil
}

// staleFiles lists the output files whose bytes on disk differ from files
// (missing ones included), and in a split folder the generated files that
// would be removed.
func staleFiles(out string, split bool, files []generator.Output) []string {
	var stale []string
	if !split {
		if old, err := os.ReadFile(out); err != nil || string(old) != string(files[0].Source) {
			stale = append(stale, out)
		}
		return stale
	}
	keep := map[string]bool{}
	for _, f := range files {
		p := filepath.Join(out, f.Name)
		keep[f.Name] = true
		if old, err := os.ReadFile(p); err != nil || string(old) != string(f.Source) {
			stale = append(stale, p)
		}
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		p := filepath.Join(out, e.Name())
		if !keep[e.Name()] && strings.HasSuffix(e.Name(), ".gen.go") {
			if data, err := os.ReadFile(p); err == nil && strings.HasPrefix(string(data), generatedBanner) {
				stale = append(stale, p)
			}
		}
	}
	return stale
}

// generatedBanner starts every file resgen writes; only such files are
// removed from a split output folder.
const generatedBanner = "// Code generated by resgen"

// writeFolder writes a split output: every file goes to a temp file first,
// and only when all are written are they renamed into place, so a failed
// run changes nothing. Files resgen wrote before that are no longer part of
// the output are removed.
func writeFolder(dir string, files []generator.Output) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create output folder: %w", err)
	}
	type pending struct{ tmp, final string }
	var done []pending
	cleanup := func() {
		for _, p := range done {
			os.Remove(p.tmp)
		}
	}
	keep := map[string]bool{}
	for _, f := range files {
		final := filepath.Join(dir, f.Name)
		keep[f.Name] = true
		if old, err := os.ReadFile(final); err == nil && string(old) == string(f.Source) {
			continue
		}
		tmp, err := os.CreateTemp(dir, "."+f.Name+".resgen-*")
		if err != nil {
			cleanup()
			return fmt.Errorf("cannot write output: %w", err)
		}
		done = append(done, pending{tmp.Name(), final})
		_, werr := tmp.Write(f.Source)
		if cerr := tmp.Chmod(0o644); werr == nil {
			werr = cerr
		}
		if cerr := tmp.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			cleanup()
			return fmt.Errorf("cannot write output: %w", werr)
		}
	}
	for _, p := range done {
		if err := os.Rename(p.tmp, p.final); err != nil {
			cleanup() // removes the temp files not yet renamed
			return fmt.Errorf("cannot write output: %w", err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if e.IsDir() || keep[e.Name()] || !strings.HasSuffix(e.Name(), ".gen.go") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if data, err := os.ReadFile(p); err == nil && strings.HasPrefix(string(data), generatedBanner) {
			os.Remove(p)
		}
	}
	return nil
}
