// Command conformance-mutants measures the conformance harness
// (tools/conformance): it plants plausible client bugs (mutants, one
// per run) in the generated clients of the given specs and in the runtime
// they call, runs the harness on each, and prints per kind how many it
// killed; the last line is "killed K of N mutants (P%)". It exits 1 when
// fewer than 95% are killed or some kind never is.
//
//	go run ./scripts/conformance-mutants [-p N] [-per-spec N] [-per-kind N] [-kinds RE] [-sites RE] [-v] SPEC...
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"

	"github.com/resgen/resgen/tools/conformance"
)

func main() {
	parallel := flag.Int("p", 2, "harness runs at once")
	perSpec := flag.Int("per-spec", 2, "mutants of one kind in one spec")
	perKind := flag.Int("per-kind", 8, "mutants of one kind in all")
	kinds := flag.String("kinds", "", "only the kinds whose name matches this `regexp`")
	sites := flag.String("sites", "", "only the sites whose report line (kind, spec, site) matches this `regexp`")
	verbose := flag.Bool("v", false, "list the killed mutants with the failure each added")
	quiet := flag.Bool("q", false, "no progress lines on stderr")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/conformance-mutants [flags] SPEC...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	wd, _ := os.Getwd()
	root, err := conformance.RepoRoot(wd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance-mutants:", err)
		os.Exit(2)
	}
	exc, err := conformance.DefaultExceptions()
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance-mutants:", err)
		os.Exit(2)
	}
	mo := conformance.MutantOptions{
		Options:  conformance.Options{RepoRoot: root, Exceptions: exc},
		PerSpec:  *perSpec,
		PerKind:  *perKind,
		Parallel: *parallel,
	}
	if *kinds != "" {
		re, err := regexp.Compile(*kinds)
		if err != nil {
			fmt.Fprintln(os.Stderr, "conformance-mutants: -kinds:", err)
			os.Exit(2)
		}
		mo.Kinds = re
	}
	if *sites != "" {
		re, err := regexp.Compile(*sites)
		if err != nil {
			fmt.Fprintln(os.Stderr, "conformance-mutants: -sites:", err)
			os.Exit(2)
		}
		mo.Sites = re
	}
	if !*quiet {
		mo.Progress = os.Stderr
	}
	rep := conformance.RunMutants(context.Background(), flag.Args(), mo)
	rep.Print(os.Stdout, *verbose)
	if !rep.Pass() {
		os.Exit(1)
	}
}
