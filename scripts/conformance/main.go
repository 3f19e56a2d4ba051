// Command conformance checks generated clients on the wire (see
// tools/conformance): go run ./scripts/conformance [-v] SPEC...
// prints one row per spec and exits 1 when any check fails.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"sync"

	"github.com/resgen/resgen/tools/conformance"
)

func main() {
	verbose := flag.Bool("v", false, "list each failing call with the reason, and the skipped calls")
	parallel := flag.Int("p", 2, "specs run at once")
	keep := flag.Bool("keep", false, "keep each temp module (printed in the notes)")
	known := flag.Bool("known", false, "accept the failures tools/conformance/known-failures.txt lists (CI's ratchet): any other failure, or a listed one that no longer fails, fails the run")
	writeKnown := flag.String("write-known", "", "write the known-failures list that covers this run's failures to `FILE`")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/conformance [-v] [-p N] SPEC...")
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
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(2)
	}
	exc, err := conformance.DefaultExceptions()
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(2)
	}
	opts := conformance.Options{RepoRoot: root, Exceptions: exc, KeepDir: *keep}
	specs := flag.Args()
	reports := make([]*conformance.Report, len(specs))
	// The largest specs start first, so that the last to finish is a
	// small one (the rows keep the order given).
	order := make([]int, len(specs))
	size := make([]int64, len(specs))
	for i, s := range specs {
		order[i] = i
		if fi, err := os.Stat(s); err == nil {
			size[i] = fi.Size()
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return size[order[a]] > size[order[b]] })
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(*parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				reports[i] = conformance.Run(context.Background(), specs[i], opts)
			}
		}()
	}
	for _, i := range order {
		next <- i
	}
	close(next)
	wg.Wait()
	if *writeKnown != "" {
		f, err := os.Create(*writeKnown)
		if err == nil {
			err = conformance.WriteKnown(f, reports)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "conformance:", err)
			os.Exit(2)
		}
	}
	if *known {
		list := conformance.KnownFailures()
		for _, r := range reports {
			conformance.ApplyKnown(r, list)
		}
	}
	conformance.PrintTable(os.Stdout, reports, *verbose)
	for _, r := range reports {
		if r.Failed() {
			os.Exit(1)
		}
	}
}
