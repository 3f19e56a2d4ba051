//go:build unix

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseArgs(t *testing.T) {
	o, err := parseArgs(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.rounds != 3 || o.base != "c2a4528" || o.shared != "" || o.dryRun || !slices.Equal(o.specs, defaultSpecs) {
		t.Errorf("defaults: %+v", o)
	}
	o, err = parseArgs([]string{"-rounds", "1", "-base", "HEAD", "-specs", " a.yaml, ,dir/b.json ", "-shared", "/s", "-dry-run"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.rounds != 1 || o.base != "HEAD" || o.shared != "/s" || !o.dryRun || !slices.Equal(o.specs, []string{"a.yaml", "dir/b.json"}) {
		t.Errorf("flags: %+v", o)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-rounds", "0"}, "-rounds 0: need at least 1"},
		{[]string{"-rounds", "-2"}, "need at least 1"},
		{[]string{"-specs", " , "}, "-specs: need at least one spec"},
		{[]string{"-base", " "}, "-base: need a git revision"},
		{[]string{"stripe.yaml"}, `unexpected argument "stripe.yaml"`},
		{[]string{"-nope"}, "not defined"},
	} {
		if _, err := parseArgs(c.args, io.Discard); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parseArgs(%q) = %v, want an error with %q", c.args, err, c.want)
		}
	}
}

func TestResolveSpecs(t *testing.T) {
	corpus := t.TempDir()
	if err := os.WriteFile(filepath.Join(corpus, "a.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pet := filepath.Join("..", "..", "testdata", "specs", "petstore.yaml")
	got, err := resolveSpecs(corpus, []string{"a.json", pet})
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(pet)
	fi, _ := os.Stat(pet)
	want := []spec{{name: "a.json", path: filepath.Join(corpus, "a.json"), size: 3}, {name: "petstore.yaml", path: abs, size: fi.Size()}}
	if !slices.Equal(got, want) {
		t.Errorf("resolveSpecs = %+v, want %+v", got, want)
	}

	// A path needs no corpus; a name does, and the error says how to
	// point at one.
	missing := filepath.Join(corpus, "nope")
	if _, err := resolveSpecs(missing, []string{pet}); err != nil {
		t.Errorf("a path without the corpus: %v", err)
	}
	_, err = resolveSpecs(missing, []string{"stripe-2023-09.yaml"})
	if err == nil || !strings.Contains(err.Error(), missing+" is not there") || !strings.Contains(err.Error(), "-shared") || !strings.Contains(err.Error(), sharedEnv) {
		t.Errorf("no corpus: %v", err)
	}
	if _, err := resolveSpecs(corpus, []string{"b.json"}); err == nil || !strings.Contains(err.Error(), "spec b.json") {
		t.Errorf("a missing spec: %v", err)
	}
	if _, err := resolveSpecs(corpus, []string{corpus + "/"}); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("a folder: %v", err)
	}
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	writeTable(&b, table{
		baseRev: "c2a4528", newRev: "abc1234", floor: "kin-openapi v0.153.0", rounds: 3, machine: "GOMAXPROCS 2, nproc 2", took: 61 * time.Second,
		rows: []row{
			{spec: spec{name: "big.yaml", size: 4164534},
				floor: summary{wall: 2.0, wallMin: 1.9, wallMax: 2.5, cpu: 2.2, rssKiB: 200 << 10},
				base:  summary{wall: 3.3, wallMin: 3.0, wallMax: 3.4, cpu: 4.4, rssKiB: 500 << 10},
				cur:   summary{wall: 2.6, wallMin: 2.6, wallMax: 2.6, cpu: 3.3, rssKiB: 300 << 10}},
			{spec: spec{name: "small.json", size: 2048},
				floor: summary{wall: 0.5, rssKiB: 1 << 10}, base: summary{wall: 1.5, rssKiB: 2 << 10}, cur: summary{wall: 0.66, rssKiB: 3 << 20}},
		},
	})
	want := []string{
		"resgen generate over its floor (kin-openapi v0.153.0: load + relaxed validation), base c2a4528 against new abc1234, measured in one run",
		"",
		"| spec | size | floor s | base s | base ×floor | new s | new ×floor | goal ≤ 1.30× | met? | floor RSS | base RSS | new RSS |",
		"|---|---:|---:|---:|---:|---:|---:|---:|:-:|---:|---:|---:|",
		// Exactly at the goal meets it.
		"| big.yaml | 4.0 MiB | 2.00 | 3.30 | 1.65× | 2.60 | 1.30× | ≤ 2.60 s | yes | 200 MiB | 500 MiB | 300 MiB |",
		"| small.json | 2 KiB | 0.50 | 1.50 | 3.00× | 0.66 | 1.32× | ≤ 0.65 s | no | 1 MiB | 2 MiB | 3.00 GiB |",
		"",
		"| spec | floor wall min – max | base wall min – max | new wall min – max | floor CPU s | base CPU s | base CPU ×floor | new CPU s | new CPU ×floor |",
		"|---|---:|---:|---:|---:|---:|---:|---:|---:|",
		"| big.yaml | 1.90 – 2.50 | 3.00 – 3.40 | 2.60 – 2.60 | 2.20 | 4.40 | 2.00× | 3.30 | 1.50× |",
		// No CPU time measured: no ratio.
		"| small.json | 0.00 – 0.00 | 0.00 – 0.00 | 0.00 – 0.00 | 0.00 | 0.00 | – | 0.00 | – |",
		"",
	}
	lines := strings.Split(b.String(), "\n")
	if len(lines) < len(want)+1 || !slices.Equal(lines[:len(want)], want) {
		t.Fatalf("table:\n%s\nwant it to start with:\n%s", b.String(), strings.Join(want, "\n"))
	}
	foot := lines[len(want)]
	for _, s := range []string{"medians of 3 runs", "floor, new, base", "GOMAXPROCS 2, nproc 2", "took 1m1s"} {
		if !strings.Contains(foot, s) {
			t.Errorf("the note under the table lacks %q: %s", s, foot)
		}
	}
}

func TestSummarize(t *testing.T) {
	got := summarize([]sample{{wall: 3, cpu: 1, rssKiB: 30}, {wall: 1, cpu: 5, rssKiB: 10}, {wall: 2, cpu: 2, rssKiB: 50}})
	want := summary{wall: 2, cpu: 2, rssKiB: 30, wallMin: 1, wallMax: 3}
	if got != want {
		t.Errorf("summarize = %+v, want %+v", got, want)
	}
	if got := summarize(nil); got != (summary{}) {
		t.Errorf("summarize(nil) = %+v", got)
	}
}

// TestGoalFromOneConstant: the header and the verdicts follow goalRatio,
// not a second copy of it.
func TestGoalFromOneConstant(t *testing.T) {
	if met(goalRatio) != "yes" || met(goalRatio+0.01) != "no" || met(0) != "no" {
		t.Errorf("met around goalRatio %v: %s %s %s", goalRatio, met(goalRatio), met(goalRatio+0.01), met(0))
	}
}

// TestDryRun resolves a real revision and spec, and prints the builds
// and one round in the order every round runs: floor, new, base.
func TestDryRun(t *testing.T) {
	pet, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "specs", "petstore.yaml"))
	var b bytes.Buffer
	err := run(context.Background(), &options{rounds: 2, base: "HEAD", specs: []string{pet}, dryRun: true}, &b)
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, s := range []string{
		"floor: go build ./scripts/benchgen/floor (kin-openapi v",
		"new: go build ./cmd/resgen",
		"base: go build ./cmd/resgen",
		"then 2 round(s) of:",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("dry run lacks %q:\n%s", s, out)
		}
	}
	i, j, k := strings.Index(out, "  floor: floor "+pet), strings.Index(out, "  new: resgen generate -spec "+pet), strings.Index(out, "  base: resgen generate -spec "+pet)
	if i < 0 || j < i || k < j {
		t.Errorf("want floor, new, base on %s in that order:\n%s", pet, out)
	}
	if err := run(context.Background(), &options{rounds: 1, base: "no-such-revision", specs: []string{pet}, dryRun: true}, io.Discard); err == nil || !strings.Contains(err.Error(), "-base no-such-revision") {
		t.Errorf("a bad -base: %v", err)
	}
}
