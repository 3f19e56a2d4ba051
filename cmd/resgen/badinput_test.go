package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resgen/resgen/generator"
	"github.com/resgen/resgen/internal/gopanic"
)

// Bad input through the CLI: each case exits 2 with a diagnostic of the
// spec or of -o, and whatever -o names is left exactly as it was. resgen's
// own faults (a panic, code gofmt cannot parse) exit 1 with one line.

// specText is a small valid spec with an x-resilience root and the
// responses of its one operation.
func specText(xres, responses string) string {
	if xres == "" {
		xres = "  {}"
	}
	if responses == "" {
		responses = `        "200": {description: ok}`
	}
	return "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\nx-resilience:\n" + xres +
		"\npaths:\n  /x:\n    get:\n      operationId: getX\n      responses:\n" + responses + "\n"
}

// outputKind is what -o names before the run.
type outputKind int

const (
	oldFile     outputKind = iota // a regular file holding an older output
	folder                        // an empty folder
	namedPipe                     // a FIFO: reading it would block
	charDevice                    // a character device (a copy of /dev/null)
	underFile                     // a path below a regular file
	splitOnFile                   // -split with -o naming a regular file
)

// runCLIWithin runs resgen and fails the test if it does not return within
// a few seconds (a FIFO read used to hang).
func runCLIWithin(t *testing.T, args ...string) (code int, stderr string) {
	t.Helper()
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		c := run(context.Background(), args, &out, &errb)
		done <- result{c, errb.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.stderr
	case <-time.After(20 * time.Second):
		t.Fatalf("resgen %s did not return", strings.Join(args, " "))
		return 0, ""
	}
}

func TestBadInputThroughTheCLI(t *testing.T) {
	good := specText("", "")
	cases := []struct {
		name   string
		spec   string
		out    outputKind
		stderr string // the start of stderr; OUT stands for the -o path
	}{
		{"empty response code", specText("", `        "": {description: empty}`+"\n"+`        "200": {description: ok}`), oldFile,
			`spec.yaml:10:9: error: response code "" is not an HTTP status` + "\n\tat #/paths/~1x/get/responses/\n\tfix: write a status code from 100 to 599, a range from 1XX to 5XX, or default\n"},
		{"response class 6XX", specText("", `        "6XX": {description: no such class}`), oldFile,
			`spec.yaml:10:9: error: response code "6XX" is not an HTTP status`},
		{"response code abc", specText("", `        "abc": {description: a word}`), oldFile,
			`spec.yaml:10:9: error: response code "abc" is not an HTTP status`},
		{"response code 1000", specText("", `        "1000": {description: four digits}`), oldFile,
			`spec.yaml:10:9: error: response code "1000" is not an HTTP status`},
		{"windowSize no client can hold", specText("  defaults: {breaker: b}\n  breakers:\n    b: {windowSize: 20000}", ""), oldFile,
			"spec.yaml:6:9: error: windowSize must be a whole number from 1 to 10000, got 20000\n\tat #/x-resilience/breakers/b/windowSize\n\tfix: a count window holds one entry per call; for a busy client use windowType: time\n"},
		{"windowDuration of years", specText("  defaults: {breaker: b}\n  breakers:\n    b: {windowType: time, windowDuration: 2000000h}", ""), oldFile,
			"spec.yaml:6:27: error: windowDuration must be at most 1h, got 2000000h\n\tat #/x-resilience/breakers/b/windowDuration\n\tfix: a time window holds one bucket per second: use at most 1h\n"},
		{"waitInOpen past any clock", specText("  defaults: {breaker: b}\n  breakers:\n    b: {waitInOpen: 2562047h}", ""), oldFile,
			"spec.yaml:6:9: error: waitInOpen must be at most 24h, got 2562047h\n\tat #/x-resilience/breakers/b/waitInOpen\n\tfix: durations are at most 24h; is the unit right?\n"},
		{"-o a folder", good, folder,
			"OUT: error: cannot write the output: is a folder: name a file, or write a folder with -split\n"},
		{"-o a named pipe", good, namedPipe,
			"OUT: error: cannot write the output: is a named pipe, not a regular file: resgen replaces only regular files\n"},
		{"-o a character device", good, charDevice,
			"OUT: error: cannot write the output: is a character device, not a regular file: resgen replaces only regular files\n"},
		{"-o below a regular file", good, underFile,
			"OUT: error: cannot write the output: "},
		{"-split into a regular file", good, splitOnFile,
			"OUT: error: cannot write the output: is not a folder: with -split, -o names the folder the files go to\n"},
	}
	old := []byte("// the previous, hand-checked output\npackage x\n")
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			if err := os.WriteFile("spec.yaml", []byte(c.spec), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out", "client.gen.go")
			os.Mkdir(filepath.Dir(out), 0o755)
			args := []string{"generate", "-spec", "spec.yaml", "-package", "x", "-o"}
			switch c.out {
			case oldFile, splitOnFile:
				os.WriteFile(out, old, 0o644)
				os.Chtimes(out, past, past)
				if c.out == splitOnFile {
					args = append(args[:len(args)-1], "-split", "kind", "-o")
				}
			case folder:
				os.Mkdir(out, 0o755)
			case namedPipe:
				if err := mkfifo(out); err != nil {
					t.Skip("no named pipes here:", err)
				}
			case charDevice:
				if out = charDeviceAt(out); out == "" {
					t.Skip("no character devices here")
				}
			case underFile:
				os.WriteFile(out, old, 0o644)
				os.Chtimes(out, past, past)
				args = append(args, filepath.Join(out, "client.gen.go"))
			}
			if c.out != underFile {
				args = append(args, out)
			}
			before, _ := os.Lstat(out)
			code, stderr := runCLIWithin(t, args...)
			want := strings.ReplaceAll(c.stderr, "OUT", args[len(args)-1])
			if code != exitInput || !strings.HasPrefix(stderr, want) {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit %d, stderr starting:\n%s", code, stderr, exitInput, want)
			}
			after, err := os.Lstat(out)
			if err != nil || after.Mode() != before.Mode() || !after.ModTime().Equal(before.ModTime()) {
				t.Fatalf("-o changed: %v, %v → %v", err, before.Mode(), after)
			}
			if after.Mode().IsRegular() {
				if got, _ := os.ReadFile(out); !bytes.Equal(got, old) {
					t.Fatalf("the old output changed: %q", got)
				}
			}
			if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
				t.Fatalf("the output folder holds %d entries, a temp file was left", len(entries))
			}
			if after.IsDir() {
				if entries, _ := os.ReadDir(out); len(entries) != 0 {
					t.Fatalf("resgen wrote into the folder -o names: %v", entries)
				}
			}
		})
	}
}

// TestPanicIsOneLineExit1: a panic anywhere in a run is a resgen bug: one
// line asking for a report, exit 1, no goroutine dump, the old output kept.
func TestPanicIsOneLineExit1(t *testing.T) {
	t.Chdir("../..")
	t.Cleanup(func() { generate = generator.Generate })
	generate = func(context.Context, generator.Config) (*generator.Result, error) {
		var m map[string]int
		//lint:ignore SA5000 the panic is what the test is about
		m["boom"]++ // a nil map: the runtime panics
		return nil, nil
	}
	out := filepath.Join(t.TempDir(), "client.gen.go")
	old := []byte("package x\n")
	os.WriteFile(out, old, 0o644)
	code, stderr := runCLIWithin(t, "generate", "-spec", "testdata/specs/petstore.yaml", "-package", "p", "-o", out)
	want := "resgen: internal error: panic: assignment to entry in nil map at resgen.TestPanicIsOneLineExit1."
	if code != exitInternal || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "please report it") || strings.Contains(stderr, "goroutine") {
		t.Fatalf("exit %d, stderr %q; want exit 1 and one line starting %q", code, stderr, want)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, old) {
		t.Fatalf("the old output changed: %q", got)
	}
}

// TestWorkerPanicIsOneLineExit1: a panic on one of the generator's worker
// goroutines (validation, emit's printers run on a gopanic.Group) is
// answered the same way, naming the site in the worker.
func TestWorkerPanicIsOneLineExit1(t *testing.T) {
	t.Chdir("../..")
	t.Cleanup(func() { generate = generator.Generate })
	generate = func(context.Context, generator.Config) (*generator.Result, error) {
		var g gopanic.Group
		g.Go(func() {
			var m map[string]int
			//lint:ignore SA5000 the panic is what the test is about
			m["boom"]++
		})
		g.Wait()
		return nil, nil
	}
	code, stderr := runCLIWithin(t, "generate", "-spec", "testdata/specs/petstore.yaml", "-package", "p", "-o", filepath.Join(t.TempDir(), "c.go"))
	want := "resgen: internal error: panic: assignment to entry in nil map at resgen.TestWorkerPanicIsOneLineExit1.func2.1 (badinput_test.go:"
	if code != exitInternal || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "goroutine") {
		t.Fatalf("exit %d, stderr %q; want exit 1 and one line starting %q", code, stderr, want)
	}
}

// TestUnparsableCodeIsOneLineExit1: code gofmt cannot parse is a resgen
// bug; the message is one line and names the temp file holding the code,
// instead of printing the code.
func TestUnparsableCodeIsOneLineExit1(t *testing.T) {
	t.Chdir("../..")
	t.Cleanup(func() { generate = generator.Generate })
	src := []byte("package p\n\nfunc (\n" + strings.Repeat("// filler\n", 5000))
	generate = func(context.Context, generator.Config) (*generator.Result, error) {
		return nil, &generator.FormatError{Err: errors.New("3:7: expected ')', found 'EOF'\nmore lines"), Source: src}
	}
	code, _, stderr := runCLI(t, "generate", "-spec", "testdata/specs/petstore.yaml", "-package", "p", "-o", filepath.Join(t.TempDir(), "c.go"))
	if code != exitInternal || strings.Count(stderr, "\n") != 1 || len(stderr) > 400 || strings.Contains(stderr, "filler") {
		t.Fatalf("exit %d, stderr (%d bytes) %q", code, len(stderr), stderr)
	}
	_, path, ok := strings.Cut(stderr, "the code is in ")
	path, _, _ = strings.Cut(path, " ")
	if !ok {
		t.Fatalf("stderr names no file: %q", stderr)
	}
	t.Cleanup(func() { os.Remove(path) })
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, src) {
		t.Fatalf("the file does not hold the code: %v", err)
	}
}

// TestOutputThroughSymlinkKeepsLinkAndMode: -o on a symbolic link replaces
// the file it points to (atomically, in that file's folder) and keeps the
// link; the file keeps its permission bits.
func TestOutputThroughSymlinkKeepsLinkAndMode(t *testing.T) {
	t.Chdir("../..")
	dir := t.TempDir()
	real := filepath.Join(dir, "gen", "client.gen.go")
	os.Mkdir(filepath.Dir(real), 0o755)
	if err := os.WriteFile(real, []byte("package old\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	os.Chmod(real, 0o444) // whatever the umask
	link := filepath.Join(dir, "client.gen.go")
	if err := os.Symlink(filepath.Join("gen", "client.gen.go"), link); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "generate", "-spec", "testdata/specs/petstore.yaml", "-package", "petstore", "-o", link)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v, %v", fi.Mode(), err)
	}
	got, _ := os.ReadFile(real)
	want, _ := os.ReadFile("golden/petstore/client.gen.go")
	if !bytes.Equal(got, want) {
		t.Fatal("the link's target does not hold the new output")
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o444 {
		t.Fatalf("the output's mode is %v, want -r--r--r-- as before", fi.Mode().Perm())
	}
	for _, d := range []string{dir, filepath.Dir(real)} {
		entries, _ := os.ReadDir(d)
		if n := len(entries); n != 1 && !(d == dir && n == 2) {
			t.Fatalf("%s holds %d entries: a temp file was left", d, n)
		}
	}
}

// TestStaleTempFilesAreRemoved: the temp files a killed run left for this
// output are removed once they are old; a fresh one (a run writing right
// now), other names and other outputs' temp files are kept.
func TestStaleTempFilesAreRemoved(t *testing.T) {
	t.Chdir("../..")
	for _, split := range []bool{false, true} {
		t.Run(fmt.Sprint("split=", split), func(t *testing.T) {
			dir := t.TempDir()
			out, args := filepath.Join(dir, "client.gen.go"), []string{"-spec", "testdata/specs/petstore.yaml", "-package", "petstore"}
			if split {
				out, args = dir, append(args, "-split", "kind")
			}
			past := time.Now().Add(-time.Hour)
			put := func(name string, when time.Time) string {
				p := filepath.Join(dir, name)
				os.WriteFile(p, []byte("half a file"), 0o644)
				os.Chtimes(p, when, when)
				return p
			}
			stale := []string{put(".client.gen.go.resgen-123456", past)}
			if split {
				stale = append(stale, put(".types.gen.go.resgen-42", past), put(".ops_gone.gen.go.resgen-7", past))
			}
			kept := []string{
				put(".client.gen.go.resgen-99", time.Now()), // a run writing now
				put(".client.gen.go.resgen-12x", past),      // not our pattern
				put(".other.go.resgen-5", past),             // another output's
				put("client.gen.go.resgen-5", past),         // not hidden
				put(".client.gen.go.resgen-", past),         // no digits
				put(".notes.resgen-1", past),                // not a generated name
			}
			code, _, stderr := runCLI(t, append(append([]string{"generate"}, args...), "-o", out)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, p := range stale {
				if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s is still there", filepath.Base(p))
				}
			}
			for _, p := range kept {
				if _, err := os.Lstat(p); err != nil {
					t.Errorf("%s was removed", filepath.Base(p))
				}
			}
		})
	}
}

// TestPathKeyThatCannotBeSent: a path key whose literal part has a control
// character or a % that is no %-escape is refused at its line and column
// by every command (exit 2), lab included, which made its calls and failed
// with exit 1; generate wrote a method that failed every call. %-escapes
// and {templates} (whatever their names) stay valid.
func TestPathKeyThatCannotBeSent(t *testing.T) {
	pathSpec := func(key string) string {
		return "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n  " + key + ":\n    get:\n      operationId: getX\n      responses:\n        \"200\": {description: ok}\n"
	}
	dir := t.TempDir()
	t.Chdir(dir)
	out := filepath.Join(dir, "client.gen.go")
	old := []byte("// the previous output\npackage x\n")
	for _, c := range []struct{ key, want string }{
		{`"/pets%zz"`, `spec.yaml:4:3: error: path key "/pets%zz" has "%zz", which is not a %-escape, so no request can be sent to it`},
		{`"/pets/100%"`, `spec.yaml:4:3: error: path key "/pets/100%" has "%", which is not a %-escape`},
		{`"/pets\x01a"`, `spec.yaml:4:3: error: path key "/pets\x01a" has the control character U+0001`},
		{`"/pets\ta"`, `spec.yaml:4:3: error: path key "/pets\ta" has the control character U+0009`},
		{`"/pets\u0085"`, `spec.yaml:4:3: error: path key "/pets\u0085" has the control character U+0085`},
	} {
		if err := os.WriteFile("spec.yaml", []byte(pathSpec(c.key)), 0o644); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(out, old, 0o644)
		for _, args := range [][]string{
			{"generate", "-spec", "spec.yaml", "-package", "x", "-o", out},
			{"lint", "-spec", "spec.yaml"},
			{"lab", "order", "-spec", "spec.yaml", "-op", "getX", "-speed", "100"},
		} {
			code, stderr := runCLIWithin(t, args...)
			if code != exitInput || !strings.HasPrefix(stderr, c.want) {
				t.Errorf("%s with %s: exit %d, stderr:\n%s\nwant 2 and a start of\n%s", args[0], c.key, code, stderr, c.want)
			}
		}
		if got, _ := os.ReadFile(out); !bytes.Equal(got, old) {
			t.Errorf("%s: the output changed", c.key)
		}
	}
	for _, key := range []string{`"/a%20b/{id}"`, `"/files/{name%zz}"`, `"/x%2Fy"`} {
		os.WriteFile("spec.yaml", []byte(pathSpec(key)), 0o644)
		if code, stderr := runCLIWithin(t, "lint", "-spec", "spec.yaml"); code != exitOK || strings.Contains(stderr, "path key") {
			t.Errorf("%s: exit %d, stderr:\n%s", key, code, stderr)
		}
	}
}
