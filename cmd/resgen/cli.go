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
// extension).
const (
	exitOK       = 0
	exitInternal = 1
	exitInput    = 2
)

// maxDiags caps how many diagnostics one run prints.
const maxDiags = 50

const usage = `resgen generates resilient Go API clients from OpenAPI specs
annotated with x-resilience (breaker outside, retry inside).

Usage:
  resgen generate -spec FILE -package NAME -o OUT.go   write a client
  resgen version                                       print the version
  resgen help                                          print this help

Run "resgen COMMAND -h" for a command's flags.

Exit status: 0 success, 2 bad input (spec, flags, x-resilience), 1 internal
error. A failed run never changes an existing output file.
`

// run is the whole CLI, callable from tests in-process.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitInput
	}
	switch args[0] {
	case "generate":
		return runGenerate(ctx, args[1:], stdout, stderr)
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

func runGenerate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("resgen generate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	specPath := fs.String("spec", "", "OpenAPI 3 or Swagger 2.0 spec, YAML or JSON (required)")
	pkg := fs.String("package", "", "Go package name of the output (required)")
	out := fs.String("o", "", "output Go file (required); written atomically")
	strict := fs.Bool("strict", false, "treat warnings as errors")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: resgen generate -spec FILE -package NAME -o OUT.go [-strict]\n\nWrites one gofmt'd Go file with a typed client for every operation of the spec.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitInput
	}
	var missing []string
	for _, f := range []struct{ name, val string }{{"-spec", *specPath}, {"-package", *pkg}, {"-o", *out}} {
		if f.val == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 || fs.NArg() > 0 {
		if len(missing) > 0 {
			fmt.Fprintf(stderr, "resgen generate: missing %s\n", strings.Join(missing, ", "))
		} else {
			fmt.Fprintf(stderr, "resgen generate: unexpected argument %q\n", fs.Arg(0))
		}
		fs.Usage()
		return exitInput
	}
	res, err := generator.Generate(ctx, generator.Config{Spec: *specPath, Package: *pkg, Strict: *strict})
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
	if err := writeAtomic(*out, res.Source); err != nil {
		fmt.Fprintf(stderr, "resgen: %v\n", err)
		return exitInternal
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
