//go:build unix

// Command compare runs oapi-codegen v2.8.2, ogen v1.24.0 and resgen (built
// from the repository's HEAD) on the real-spec corpus and prints, per spec
// and tool, whether generation succeeded and how long it took, and whether
// `go build` of the output succeeded, how long it took and its peak memory.
// It is what `make compare` runs; it is not part of `make test`.
//
// Method (as in ../shared/research/peers-on-real-specs.md):
//   - each tool binary is built once before any timing (the peers with
//     `go install module@version`, the same build `go run module@version`
//     does; resgen with `go build ./cmd/resgen` from a `git archive` of HEAD),
//     so tool compile time is never counted;
//   - every generation and build runs in a fresh module example.com/gen with
//     the tool's runtime dependency (oapi-codegen: runtime v1.9.0; ogen:
//     ogen v1.24.0; resgen: a replace to the same HEAD export and its go.sum),
//     `go mod tidy` and a build of every dependency first (untimed), so the
//     dependencies are warm in the build cache, and a file with a unique
//     constant in the generated package, so the package itself is never a
//     build-cache hit;
//   - generation time is the wall time of the generator process; build time
//     is the wall time of `go build ./...`; peak memory is ru_maxrss of
//     wait4 on `go build`, which Linux reports as the largest resident set
//     of the go command and any process it waited for (the compiler of the
//     generated package, in practice), the figure GNU time's %M gives;
//   - with -repeat N every (spec, tool) runs N times, tools interleaved
//     within each round, and the table shows medians.
package main

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	oapiPkg      = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen"
	oapiVersion  = "v2.8.2"
	oapiRuntime  = "github.com/oapi-codegen/runtime@v1.9.0"
	ogenPkg      = "github.com/ogen-go/ogen/cmd/ogen"
	ogenVersion  = "v1.24.0"
	ogenRuntime  = "github.com/ogen-go/ogen@v1.24.0"
	genModule    = "example.com/gen"
	genPackage   = "x"
	nonceFile    = "zz_compare_nonce.go"
	maxCapture   = 256 << 10
	noteMaxRunes = 180
)

// ogen has no client-only switch; this disables the server side, as in
// peers-on-real-specs.md (client and otel remain).
const ogenConfig = `generator:
  features:
    disable:
      - paths/server
      - webhooks/server
      - ogen/unimplemented
`

// ogenLenientConfig also skips what ogen has not implemented (it then drops
// the operations involved); only run with -tools ...,ogen-lenient.
const ogenLenientConfig = ogenConfig + `  ignore_not_implemented: ["all"]
`

// tool is one generator under comparison.
type tool struct {
	Name    string
	Version string
	bin     string
	tmpl    string // directory holding the template go.mod and go.sum
	args    func(spec string) []string
}

// spec is one entry of the corpus.
type spec struct {
	Name      string // file name without extension, or folder name
	Path      string // file given to the generators
	FileBytes int64  // size of Path
	Bytes     int64  // FileBytes, or the whole folder for a multi-file spec
	Multi     bool
}

// sample is one generate (and build) of one spec by one tool.
type sample struct {
	GenOK      bool    `json:"gen_ok"`
	GenSecs    float64 `json:"gen_secs"`
	GenRSSKiB  int64   `json:"gen_rss_kib"`
	GenNote    string  `json:"gen_note,omitempty"`
	LOC        int     `json:"loc,omitempty"`
	Files      int     `json:"files,omitempty"`
	BuildRun   bool    `json:"build_run"`
	BuildOK    bool    `json:"build_ok"`
	BuildSecs  float64 `json:"build_secs,omitempty"`
	BuildCPU   float64 `json:"build_cpu_secs,omitempty"`
	BuildRSS   int64   `json:"build_rss_kib,omitempty"`
	BuildNote  string  `json:"build_note,omitempty"`
	SetupNote  string  `json:"setup_note,omitempty"`
	TimedOut   string  `json:"timed_out,omitempty"`
	Repetition int     `json:"repetition"`
}

// result aggregates the samples of one (spec, tool).
type result struct {
	Spec    string   `json:"spec"`
	Tool    string   `json:"tool"`
	Samples []sample `json:"samples"`
}

func (r *result) genOK() bool {
	for _, s := range r.Samples {
		if !s.GenOK {
			return false
		}
	}
	return len(r.Samples) > 0
}

func (r *result) buildOK() bool {
	for _, s := range r.Samples {
		if !s.BuildOK {
			return false
		}
	}
	return len(r.Samples) > 0
}

func (r *result) median(f func(sample) float64, only func(sample) bool) (float64, int) {
	var v []float64
	for _, s := range r.Samples {
		if only(s) {
			v = append(v, f(s))
		}
	}
	if len(v) == 0 {
		return 0, 0
	}
	sort.Float64s(v)
	if len(v)%2 == 1 {
		return v[len(v)/2], len(v)
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2, len(v)
}

func all(sample) bool          { return true }
func built(s sample) bool      { return s.BuildRun }
func genTime(s sample) float64 { return s.GenSecs }

var (
	flagSpecs   = flag.String("specs", "", "comma-separated specs to run (file name without extension, or folder name of a multi-file spec); \"largest\" = the largest spec by single-file bytes and the largest as a whole; empty = the whole corpus")
	flagRepeat  = flag.Int("repeat", 1, "runs per spec and tool; the table shows medians")
	flagCorpus  = flag.String("corpus", "", "corpus folder (default: <repo>/../shared/specs/real)")
	flagOut     = flag.String("out", "", "results folder (default: <repo>/bin/compare)")
	flagTools   = flag.String("tools", "oapi-codegen,ogen,resgen", "tools to run, comma-separated: oapi-codegen, ogen, ogen-lenient, resgen")
	flagGenTO   = flag.Duration("gen-timeout", 900*time.Second, "limit per generation")
	flagBuildTO = flag.Duration("build-timeout", 1500*time.Second, "limit per go build")
	flagKeep    = flag.Bool("keep", false, "keep the work folder (generated code and modules)")
)

func main() {
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, time.Now().Format("15:04:05")+" "+format+"\n", args...)
}

func run(ctx context.Context) error {
	if *flagRepeat < 1 {
		return errors.New("-repeat must be at least 1")
	}
	repo, err := output(ctx, "", "git", "rev-parse", "--show-toplevel")
	if err != nil {
		return fmt.Errorf("not in the repository: %v", err)
	}
	head, err := output(ctx, repo, "git", "rev-parse", "--short", "HEAD")
	if err != nil {
		return err
	}
	headSubject, _ := output(ctx, repo, "git", "log", "-1", "--format=%s", "HEAD")
	dirty, _ := output(ctx, repo, "git", "status", "--porcelain", "--untracked-files=no")
	corpus := *flagCorpus
	if corpus == "" {
		corpus = filepath.Join(repo, "..", "shared", "specs", "real")
	}
	outDir := *flagOut
	if outDir == "" {
		outDir = filepath.Join(repo, "bin", "compare")
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	goVersion, _ := output(ctx, "", "go", "env", "GOVERSION")

	specs, err := listCorpus(corpus)
	if err != nil {
		return err
	}
	bySingle, byWhole := largest(specs)
	selected, err := selectSpecs(specs, *flagSpecs, bySingle, byWhole)
	if err != nil {
		return err
	}

	work, err := os.MkdirTemp("", "resgen-compare-")
	if err != nil {
		return err
	}
	if *flagKeep {
		logf("work folder: %s (kept)", work)
	} else {
		defer os.RemoveAll(work)
	}

	// resgen from HEAD: export the commit, build the CLI from it, and point
	// the build modules' replace at the same export.
	src := filepath.Join(work, "resgen-src")
	if err := exportHead(ctx, repo, src); err != nil {
		return fmt.Errorf("git archive HEAD: %v", err)
	}
	binDir := filepath.Join(work, "bin")
	toolsCache := filepath.Join(outDir, "tools")
	for _, d := range []string{binDir, toolsCache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	logf("resgen %s: building ./cmd/resgen from HEAD", head)
	resgenBin := filepath.Join(binDir, "resgen")
	if out, err := combined(ctx, src, nil, "go", "build", "-o", resgenBin, "./cmd/resgen"); err != nil {
		return fmt.Errorf("go build ./cmd/resgen at %s: %v\n%s", head, err, out)
	}

	var tools []*tool
	for _, name := range strings.Split(*flagTools, ",") {
		name = strings.TrimSpace(name)
		var t *tool
		switch name {
		case "oapi-codegen":
			bin, err := installTool(ctx, toolsCache, oapiPkg, oapiVersion)
			if err != nil {
				return err
			}
			t = &tool{Name: name, Version: oapiVersion, bin: bin, args: func(spec string) []string {
				return []string{"-generate", "types,client", "-package", genPackage, "-o", genPackage + "/client.gen.go", spec}
			}}
			t.tmpl, err = peerTemplate(ctx, work, name, oapiRuntime)
			if err != nil {
				return err
			}
		case "ogen", "ogen-lenient":
			bin, err := installTool(ctx, toolsCache, ogenPkg, ogenVersion)
			if err != nil {
				return err
			}
			cfg, content := filepath.Join(work, name+".yml"), ogenConfig
			if name == "ogen-lenient" {
				content = ogenLenientConfig
			}
			if err := os.WriteFile(cfg, []byte(content), 0o644); err != nil {
				return err
			}
			t = &tool{Name: name, Version: ogenVersion, bin: bin, args: func(spec string) []string {
				return []string{"--target", genPackage, "--package", genPackage, "--clean", "--config", cfg, spec}
			}}
			t.tmpl, err = peerTemplate(ctx, work, name, ogenRuntime)
			if err != nil {
				return err
			}
		case "resgen":
			t = &tool{Name: name, Version: head, bin: resgenBin, args: func(spec string) []string {
				return []string{"generate", "-spec", spec, "-package", genPackage, "-o", genPackage + "/client.gen.go"}
			}}
			t.tmpl, err = resgenTemplate(work, src)
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown tool %q", name)
		}
		tools = append(tools, t)
	}

	started := time.Now()
	var results []*result
	index := map[[2]string]*result{}
	for _, sp := range selected {
		for _, t := range tools {
			r := &result{Spec: sp.Name, Tool: t.Name}
			results = append(results, r)
			index[[2]string{sp.Name, t.Name}] = r
		}
	}
	for i, sp := range selected {
		for rep := 1; rep <= *flagRepeat; rep++ {
			for _, t := range tools {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				s := runOne(ctx, work, t, sp, rep)
				index[[2]string{sp.Name, t.Name}].Samples = append(index[[2]string{sp.Name, t.Name}].Samples, s)
				logf("[%d/%d] %s %s #%d: %s", i+1, len(selected), sp.Name, t.Name, rep, sampleLine(s))
			}
		}
	}

	meta := runMeta{
		Commit: head, Subject: headSubject, Dirty: dirty != "", Date: started.UTC().Format(time.RFC3339),
		Duration: time.Since(started).Round(time.Second).String(), GoVersion: goVersion,
		CPUs: runtime.NumCPU(), Repeat: *flagRepeat, Corpus: corpus,
		Largest: [2]string{bySingle.Name, byWhole.Name},
	}
	for _, t := range tools {
		meta.Tools = append(meta.Tools, t.Name+" "+t.Version)
	}
	report := render(meta, specs, selected, tools, results, bySingle, byWhole)
	fmt.Print(report)

	stamp := started.UTC().Format("20060102-150405")
	base := filepath.Join(outDir, "compare-"+stamp+"-"+head)
	if err := os.WriteFile(base+".md", []byte(report), 0o644); err != nil {
		return err
	}
	raw, _ := json.MarshalIndent(struct {
		Meta    runMeta   `json:"meta"`
		Results []*result `json:"results"`
	}{meta, results}, "", "  ")
	if err := os.WriteFile(base+".json", raw, 0o644); err != nil {
		return err
	}
	logf("wrote %s.md and %s.json", base, base)
	return nil
}

type runMeta struct {
	Commit    string    `json:"commit"`
	Subject   string    `json:"subject"`
	Dirty     bool      `json:"worktree_dirty"`
	Date      string    `json:"date"`
	Duration  string    `json:"duration"`
	GoVersion string    `json:"go_version"`
	CPUs      int       `json:"cpus"`
	Repeat    int       `json:"repeat"`
	Corpus    string    `json:"corpus"`
	Tools     []string  `json:"tools"`
	Largest   [2]string `json:"largest_single_file_and_whole"`
}

// listCorpus takes every top-level YAML or JSON file, and the entry file
// (*public*.yaml) of each folder, as the corpus test does.
func listCorpus(dir string) ([]spec, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("corpus: %v", err)
	}
	var out []spec
	for _, e := range entries {
		p, err := filepath.Abs(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		switch {
		case e.IsDir():
			m, _ := filepath.Glob(filepath.Join(p, "*public*.yaml"))
			if len(m) != 1 {
				continue
			}
			fi, err := os.Stat(m[0])
			if err != nil {
				return nil, err
			}
			var total int64
			filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					if info, err := d.Info(); err == nil {
						total += info.Size()
					}
				}
				return nil
			})
			out = append(out, spec{Name: e.Name(), Path: m[0], FileBytes: fi.Size(), Bytes: total, Multi: true})
		case strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml") || strings.HasSuffix(e.Name(), ".json"):
			fi, err := e.Info()
			if err != nil {
				return nil, err
			}
			name := strings.TrimSuffix(e.Name(), filepath.Ext(e.Name()))
			out = append(out, spec{Name: name, Path: p, FileBytes: fi.Size(), Bytes: fi.Size()})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("corpus %s: no specs", dir)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Bytes < out[j].Bytes })
	return out, nil
}

// largest returns the largest spec by the size of its single file (a
// multi-file spec counts its entry file) and by its whole size (a
// multi-file spec counts its folder).
func largest(specs []spec) (bySingle, byWhole spec) {
	for _, s := range specs {
		if s.FileBytes > bySingle.FileBytes {
			bySingle = s
		}
		if s.Bytes > byWhole.Bytes {
			byWhole = s
		}
	}
	return bySingle, byWhole
}

func selectSpecs(specs []spec, list string, bySingle, byWhole spec) ([]spec, error) {
	if strings.TrimSpace(list) == "" {
		return specs, nil
	}
	byName := map[string]spec{}
	for _, s := range specs {
		byName[s.Name] = s
	}
	var out []spec
	seen := map[string]bool{}
	add := func(s spec) {
		if !seen[s.Name] {
			seen[s.Name] = true
			out = append(out, s)
		}
	}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
		case n == "largest":
			add(bySingle)
			add(byWhole)
		default:
			s, ok := byName[n]
			if !ok {
				var names []string
				for _, s := range specs {
					names = append(names, s.Name)
				}
				return nil, fmt.Errorf("no spec %q in the corpus; have: %s", n, strings.Join(names, ", "))
			}
			add(s)
		}
	}
	return out, nil
}

// runOne generates spec with t into a fresh module and builds it.
func runOne(ctx context.Context, work string, t *tool, sp spec, rep int) sample {
	s := sample{Repetition: rep}
	dir := filepath.Join(work, "run", t.Name)
	if *flagKeep {
		dir = filepath.Join(work, "run", sp.Name, t.Name, strconv.Itoa(rep))
	}
	if err := os.RemoveAll(dir); err != nil {
		s.SetupNote = err.Error()
		return s
	}
	if !*flagKeep {
		defer os.RemoveAll(dir)
	}
	if err := os.MkdirAll(filepath.Join(dir, genPackage), 0o755); err != nil {
		s.SetupNote = err.Error()
		return s
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		if err := copyFile(filepath.Join(t.tmpl, f), filepath.Join(dir, f)); err != nil {
			s.SetupNote = err.Error()
			return s
		}
	}

	g := measure(ctx, dir, nil, *flagGenTO, t.bin, t.args(sp.Path)...)
	s.GenSecs, s.GenRSSKiB = g.wall.Seconds(), g.maxRSS
	if g.err != nil {
		s.GenNote = genError(g)
		if g.timedOut {
			s.TimedOut = "generate"
		}
		return s
	}
	s.Files, s.LOC = countGo(filepath.Join(dir, genPackage))
	if s.Files == 0 {
		s.GenNote = "no Go file written"
		return s
	}
	s.GenOK = true

	nonce := fmt.Sprintf("package %s\n\n// compareNonce makes this package's build-cache key unique to one run.\nconst compareNonce = %q\n",
		genPackage, fmt.Sprintf("%s/%s/%d/%d", sp.Name, t.Name, rep, time.Now().UnixNano()))
	if err := os.WriteFile(filepath.Join(dir, genPackage, nonceFile), []byte(nonce), 0o644); err != nil {
		s.SetupNote = err.Error()
		return s
	}
	// Untimed: resolve the imports of the generated code, then build every
	// dependency so that only the generated package is compiled below.
	if out, err := combinedTimeout(ctx, dir, 10*time.Minute, "go", "mod", "tidy"); err != nil {
		s.SetupNote = "go mod tidy: " + firstLines(out, 2)
	}
	if deps, err := combinedTimeout(ctx, dir, 5*time.Minute, "go", "list", "-e", "-deps", "-f", "{{.ImportPath}}", "./..."); err == nil {
		var pkgs []string
		for _, p := range strings.Fields(deps) {
			if p != genModule && !strings.HasPrefix(p, genModule+"/") {
				pkgs = append(pkgs, p)
			}
		}
		if len(pkgs) > 0 {
			combinedTimeout(ctx, dir, 15*time.Minute, "go", append([]string{"build"}, pkgs...)...)
		}
	}

	b := measure(ctx, dir, nil, *flagBuildTO, "go", "build", "./...")
	s.BuildRun = true
	s.BuildSecs, s.BuildRSS, s.BuildCPU = b.wall.Seconds(), b.maxRSS, b.cpu.Seconds()
	if b.err != nil {
		s.BuildNote = buildError(b)
		if b.timedOut {
			s.TimedOut = "build"
		}
		return s
	}
	s.BuildOK = true
	return s
}

type measured struct {
	wall     time.Duration
	cpu      time.Duration
	maxRSS   int64 // KiB
	stdout   string
	stderr   string
	err      error
	timedOut bool
}

// measure runs a command in its own process group, killed as a group when
// the limit passes, and reads its wait4 rusage.
func measure(ctx context.Context, dir string, env []string, limit time.Duration, name string, args ...string) measured {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOWORK=off"), env...)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	err := cmd.Run()
	m := measured{wall: time.Since(start), stdout: stdout.String(), stderr: stderr.String(), err: err}
	if ctx.Err() == context.DeadlineExceeded {
		m.timedOut = true
		m.err = fmt.Errorf("timed out after %s", limit)
	}
	if ps := cmd.ProcessState; ps != nil {
		m.cpu = ps.UserTime() + ps.SystemTime()
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			m.maxRSS = int64(ru.Maxrss)
			if runtime.GOOS == "darwin" {
				m.maxRSS /= 1024 // bytes there, KiB on Linux
			}
		}
	}
	return m
}

// capped keeps the first maxCapture bytes written to it.
type capped struct{ bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxCapture - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func genError(m measured) string {
	if m.timedOut {
		return m.err.Error()
	}
	text := m.stderr
	if strings.TrimSpace(text) == "" {
		text = m.stdout
	}
	var keep []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		// ogen follows its error with an excerpt of the spec ("12 | ...").
		if isExcerpt(l) {
			break
		}
		// ogen logs with zap (level, logger, message) and prints the stack
		// frames of its error (function, then file:line); keep the error.
		if l == "" || isLogLine(l) || goFrame.MatchString(l) {
			continue
		}
		keep = append(keep, l)
		if len(keep) == 4 {
			break
		}
	}
	if len(keep) == 0 {
		return m.err.Error()
	}
	return clip(strings.Join(keep, " "))
}

// goFrame matches a stack-frame line: "main.run" or "/path/file.go:463".
var goFrame = regexp.MustCompile(`^(/\S+\.go:\d+|[\w./*()-]+\.[\w*()]+)$`)

func isLogLine(l string) bool {
	for _, level := range []string{"DEBUG", "INFO", "WARN"} {
		if strings.HasPrefix(l, level+"\t") || strings.Contains(l, "\t"+level+"\t") {
			return true
		}
	}
	return false
}

func isExcerpt(l string) bool {
	l = strings.TrimSpace(strings.TrimPrefix(l, "→"))
	n, _, ok := strings.Cut(l, " |")
	if !ok || n == "" {
		return false
	}
	_, err := strconv.Atoi(n)
	return err == nil
}

func buildError(m measured) string {
	if m.timedOut {
		return m.err.Error()
	}
	text := m.stderr + m.stdout
	lines := strings.Split(text, "\n")
	n := 0
	first := ""
	for _, l := range lines {
		if strings.Contains(l, ".go:") {
			if first == "" {
				first = strings.TrimSpace(l)
			}
			n++
		}
	}
	if first == "" {
		return clip(firstLines(text, 2) + " (" + m.err.Error() + ")")
	}
	if n > 1 {
		first += fmt.Sprintf(" (+%d more error lines)", n-1)
	}
	return clip(first)
}

func firstLines(s string, n int) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "# ") {
			keep = append(keep, l)
			if len(keep) == n {
				break
			}
		}
	}
	return strings.Join(keep, " ")
}

func clip(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	if r := []rune(s); len(r) > noteMaxRunes {
		return string(r[:noteMaxRunes]) + "…"
	}
	return s
}

// countGo counts the generated .go files under dir and their lines.
func countGo(dir string) (files, lines int) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || d.Name() == nonceFile {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		files++
		lines += bytes.Count(b, []byte("\n"))
		return nil
	})
	return files, lines
}

// installTool builds module@version once into the tools cache, with the
// build `go run module@version` would do.
func installTool(ctx context.Context, cache, pkg, version string) (string, error) {
	bin := filepath.Join(cache, filepath.Base(pkg)+"-"+version)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	gobin, err := os.MkdirTemp(cache, "install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(gobin)
	logf("building %s@%s (once; not timed)", pkg, version)
	if out, err := combined(ctx, "", []string{"GOBIN=" + gobin}, "go", "install", pkg+"@"+version); err != nil {
		return "", fmt.Errorf("go install %s@%s: %v\n%s", pkg, version, err, out)
	}
	if err := os.Rename(filepath.Join(gobin, filepath.Base(pkg)), bin); err != nil {
		return "", err
	}
	return bin, nil
}

// peerTemplate makes the go.mod and go.sum every build module of a peer
// starts from: module example.com/gen requiring the peer's runtime.
func peerTemplate(ctx context.Context, work, name, dep string) (string, error) {
	dir := filepath.Join(work, "tmpl", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if out, err := combined(ctx, dir, nil, "go", "mod", "init", genModule); err != nil {
		return "", fmt.Errorf("go mod init: %v\n%s", err, out)
	}
	if out, err := combined(ctx, dir, nil, "go", "get", dep); err != nil {
		return "", fmt.Errorf("go get %s: %v\n%s", dep, err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.sum")); err != nil {
		os.WriteFile(filepath.Join(dir, "go.sum"), nil, 0o644)
	}
	return dir, nil
}

// resgenTemplate makes the go.mod (a replace to the HEAD export) and go.sum
// (the repository's) of resgen's build modules.
func resgenTemplate(work, src string) (string, error) {
	dir := filepath.Join(work, "tmpl", "resgen")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	gomod := fmt.Sprintf("module %s\n\ngo 1.26\n\nrequire github.com/resgen/resgen v0.0.0\n\nreplace github.com/resgen/resgen => %s\n", genModule, src)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return "", err
	}
	return dir, copyFile(filepath.Join(src, "go.sum"), filepath.Join(dir, "go.sum"))
}

// exportHead writes the tree of HEAD (not the working tree, which others
// may be editing) into dst.
func exportHead(ctx context.Context, repo, dst string) error {
	cmd := exec.CommandContext(ctx, "git", "archive", "--format=tar", "HEAD")
	cmd.Dir = repo
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	tr := tar.NewReader(pipe)
	var extractErr error
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			extractErr = err
			break
		}
		p := filepath.Join(dst, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(p, filepath.Clean(dst)+string(filepath.Separator)) {
			continue
		}
		switch h.Typeflag {
		case tar.TypeDir:
			extractErr = os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			if extractErr = os.MkdirAll(filepath.Dir(p), 0o755); extractErr == nil {
				var f *os.File
				if f, extractErr = os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fs.FileMode(h.Mode)&0o777|0o200); extractErr == nil {
					_, extractErr = io.Copy(f, tr)
					if cerr := f.Close(); extractErr == nil {
						extractErr = cerr
					}
				}
			}
		case tar.TypeSymlink:
			os.MkdirAll(filepath.Dir(p), 0o755)
			extractErr = os.Symlink(h.Linkname, p)
		}
		if extractErr != nil {
			break
		}
	}
	io.Copy(io.Discard, pipe)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("%v: %s", err, stderr.String())
	}
	return extractErr
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

func output(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

func combined(ctx context.Context, dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOWORK=off"), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func combinedTimeout(ctx context.Context, dir string, limit time.Duration, name string, args ...string) (string, error) {
	m := measure(ctx, dir, nil, limit, name, args...)
	return m.stdout + m.stderr, m.err
}

func sampleLine(s sample) string {
	if !s.GenOK {
		return fmt.Sprintf("generate FAIL %.2fs: %s%s", s.GenSecs, s.GenNote, s.SetupNote)
	}
	st := "ok"
	if !s.BuildOK {
		st = "FAIL: " + s.BuildNote
	}
	return fmt.Sprintf("generate ok %.2fs (%d LOC); build %s %.2fs %s%s", s.GenSecs, s.LOC, st, s.BuildSecs, mib(s.BuildRSS), setup(s.SetupNote))
}

func setup(n string) string {
	if n == "" {
		return ""
	}
	return " [setup: " + n + "]"
}

func mib(kib int64) string {
	if kib == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f MiB", float64(kib)/1024)
}

func size(b int64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(b)/(1<<20))
	default:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func secs(v float64) string { return fmt.Sprintf("%.2f s", v) }

// render writes the markdown report.
func render(meta runMeta, specs, selected []spec, tools []*tool, results []*result, bySingle, byWhole spec) string {
	var b strings.Builder
	dirty := ""
	if meta.Dirty {
		dirty = " (the working tree had uncommitted changes; they were not measured: resgen is built from a `git archive` of HEAD)"
	}
	fmt.Fprintf(&b, "# make compare: resgen %s vs oapi-codegen %s vs ogen %s\n\n", meta.Commit, oapiVersion, ogenVersion)
	fmt.Fprintf(&b, "- resgen commit: `%s` %q%s\n", meta.Commit, meta.Subject, dirty)
	fmt.Fprintf(&b, "- date: %s, took %s; %s, %d CPUs; %d run(s) per spec and tool (medians shown)\n", meta.Date, meta.Duration, meta.GoVersion, meta.CPUs, meta.Repeat)
	fmt.Fprintf(&b, "- corpus: %s (%d specs, %d run)\n", meta.Corpus, len(specs), len(selected))
	fmt.Fprintf(&b, "- largest spec: by single file %s (%s B); as a whole (multi-file specs by folder) %s (%s B)", bySingle.Name, thousands(int(bySingle.FileBytes)), byWhole.Name, thousands(int(byWhole.Bytes)))
	var multi []string
	for _, s := range specs {
		if s.Multi {
			multi = append(multi, fmt.Sprintf("%s: entry file %s B, folder %s B", s.Name, thousands(int(s.FileBytes)), thousands(int(s.Bytes))))
		}
	}
	if len(multi) > 0 {
		fmt.Fprintf(&b, "; %s", strings.Join(multi, "; "))
	}
	if len(specs) > 1 {
		rank := slices.Clone(specs)
		sort.Slice(rank, func(i, j int) bool { return rank[i].Bytes > rank[j].Bytes })
		fmt.Fprintf(&b, "; runner-up %s (%s B)", rank[1].Name, thousands(int(rank[1].Bytes)))
	}
	b.WriteString("\n")
	b.WriteString("- generate: oapi-codegen `-generate types,client -package x -o x/client.gen.go SPEC`; ogen `--target x --package x --clean --config ogen-client.yml SPEC` (config disables paths/server, webhooks/server, ogen/unimplemented); resgen `generate -spec SPEC -package x -o x/client.gen.go`. Time = wall time of the generator process (binaries prebuilt).\n")
	b.WriteString("- build: fresh module per run (oapi-codegen runtime v1.9.0; ogen v1.24.0; resgen replace to HEAD), `go mod tidy` and dependencies built first (untimed), a unique constant file in the package; time = wall time of `go build ./...`; peak RSS = ru_maxrss of wait4 on it (the largest single process: the compile of the generated package).\n")
	fmt.Fprintf(&b, "- limits: %s per generation, %s per build\n\n", *flagGenTO, *flagBuildTO)

	index := map[[2]string]*result{}
	for _, r := range results {
		index[[2]string{r.Spec, r.Tool}] = r
	}

	b.WriteString("| spec | size | tool | generate | gen time | LOC | build | build time | build peak RSS | first error |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, sp := range selected {
		for _, t := range tools {
			r := index[[2]string{sp.Name, t.Name}]
			b.WriteString(row(sp, r))
		}
	}

	// Totals.
	b.WriteString("\n## Totals\n\n| tool | generate ok | build ok | sum gen time (ok) | sum build time (ok) | max build peak RSS |\n|---|---|---|---|---|---|\n")
	for _, t := range tools {
		var gen, bld int
		var gsum, bsum float64
		var rss int64
		for _, sp := range selected {
			r := index[[2]string{sp.Name, t.Name}]
			if r.genOK() {
				gen++
				v, _ := r.median(genTime, all)
				gsum += v
			}
			if r.buildOK() {
				bld++
				v, _ := r.median(func(s sample) float64 { return s.BuildSecs }, built)
				bsum += v
				m, _ := r.median(func(s sample) float64 { return float64(s.BuildRSS) }, built)
				rss = max(rss, int64(m))
			}
		}
		fmt.Fprintf(&b, "| %s %s | %d/%d | %d/%d | %s | %s | %s |\n", t.Name, t.Version, gen, len(selected), bld, len(selected), secs(gsum), secs(bsum), mib(rss))
	}

	// Per-sample detail when repeated.
	if meta.Repeat > 1 {
		b.WriteString("\n## Every run\n\n| spec | tool | gen times | build times | build peak RSS |\n|---|---|---|---|---|\n")
		for _, sp := range selected {
			for _, t := range tools {
				r := index[[2]string{sp.Name, t.Name}]
				var g, bt, rs []string
				for _, s := range r.Samples {
					st := ""
					if !s.GenOK {
						st = " (fail)"
					}
					g = append(g, fmt.Sprintf("%.2f%s", s.GenSecs, st))
					if s.BuildRun {
						st = ""
						if !s.BuildOK {
							st = " (fail)"
						}
						bt = append(bt, fmt.Sprintf("%.2f%s", s.BuildSecs, st))
						rs = append(rs, fmt.Sprintf("%.0f", float64(s.BuildRSS)/1024))
					}
				}
				fmt.Fprintf(&b, "| %s | %s | %s s | %s | %s |\n", sp.Name, t.Name, strings.Join(g, ", "), joinOr(bt, " s"), joinOr(rs, " MiB"))
			}
		}
	}

	// The acceptance check on the largest spec(s), when they were run.
	b.WriteString(verdict(bySingle, index, bySingle.Name == byWhole.Name))
	if byWhole.Name != bySingle.Name {
		b.WriteString(verdict(byWhole, index, false))
	}
	b.WriteString(largestBuiltByOgen(selected, index))
	return b.String()
}

func joinOr(v []string, unit string) string {
	if len(v) == 0 {
		return "—"
	}
	return strings.Join(v, ", ") + unit
}

func row(sp spec, r *result) string {
	n := len(r.Samples)
	gok := 0
	for _, s := range r.Samples {
		if s.GenOK {
			gok++
		}
	}
	gen := "ok"
	switch {
	case n == 0:
		gen = "not run"
	case gok == 0:
		gen = "**FAIL**"
	case gok < n:
		gen = fmt.Sprintf("**flaky %d/%d**", gok, n)
	}
	gt, _ := r.median(genTime, all)
	loc, build, bt, rss, note := "", "—", "—", "—", ""
	var builds, bok int
	for _, s := range r.Samples {
		if s.GenOK && loc == "" {
			loc = thousands(s.LOC)
		}
		if s.BuildRun {
			builds++
			if s.BuildOK {
				bok++
			}
		}
	}
	if builds > 0 {
		build = "ok"
		switch {
		case bok == 0:
			build = "**FAIL**"
		case bok < builds:
			build = fmt.Sprintf("**flaky %d/%d**", bok, builds)
		}
		v, _ := r.median(func(s sample) float64 { return s.BuildSecs }, built)
		bt = secs(v)
		m, _ := r.median(func(s sample) float64 { return float64(s.BuildRSS) }, built)
		rss = mib(int64(m))
	}
	for _, s := range r.Samples {
		switch {
		case s.GenNote != "":
			note = s.GenNote
		case s.BuildNote != "":
			note = s.BuildNote
		case s.SetupNote != "":
			note = "setup: " + clip(s.SetupNote)
		default:
			continue
		}
		break
	}
	name := sp.Name
	if sp.Multi {
		name += " (multi-file)"
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, size(sp.Bytes), r.Tool, gen, secs(gt), loc, build, bt, rss, note)
}

// verdict states the acceptance line for one largest spec from this run's
// medians, if the spec was run with resgen and both peers.
func verdict(sp spec, index map[[2]string]*result, both bool) string {
	rg, oa, og := index[[2]string{sp.Name, "resgen"}], index[[2]string{sp.Name, "oapi-codegen"}], index[[2]string{sp.Name, "ogen"}]
	if rg == nil || oa == nil || og == nil || len(rg.Samples) == 0 {
		return ""
	}
	which := "largest spec"
	if !both {
		which = "largest spec (one reading)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Acceptance check: %s %s (%s B), medians of %d run(s)\n\n", which, sp.Name, thousands(int(sp.Bytes)), len(rg.Samples))
	status := func(r *result) string {
		if r.genOK() {
			return "ok"
		}
		return "failed"
	}
	rgt, _ := rg.median(genTime, all)
	oat, _ := oa.median(genTime, all)
	ogt, _ := og.median(genTime, all)
	fmt.Fprintf(&b, "- generation: resgen %s (%s), oapi-codegen %s (%s), ogen %s (%s)\n", secs(rgt), status(rg), secs(oat), status(oa), secs(ogt), status(og))
	faster := rg.genOK() && rgt < oat && rgt < ogt
	qual := ""
	if rg.genOK() && (!oa.genOK() || !og.genOK()) {
		qual = " (a failed peer's time is the time it took to give up)"
	}
	fmt.Fprintf(&b, "- resgen generates faster than both: **%v**%s\n", yes(faster), qual)
	if !rg.buildOK() {
		fmt.Fprintf(&b, "- go build of resgen's output: **failed**\n")
		return b.String()
	}
	rbt, _ := rg.median(func(s sample) float64 { return s.BuildSecs }, built)
	rrs, _ := rg.median(func(s sample) float64 { return float64(s.BuildRSS) }, built)
	fmt.Fprintf(&b, "- go build of resgen's output: %s, peak RSS %s\n", secs(rbt), mib(int64(rrs)))
	if !og.buildOK() {
		why := "ogen generated no code"
		if og.genOK() {
			why = "ogen's output did not build"
		}
		fmt.Fprintf(&b, "- go build of ogen's output: none (%s), so the build comparison with ogen cannot be made on this spec\n", why)
		return b.String()
	}
	obt, _ := og.median(func(s sample) float64 { return s.BuildSecs }, built)
	ors, _ := og.median(func(s sample) float64 { return float64(s.BuildRSS) }, built)
	fmt.Fprintf(&b, "- go build of ogen's output: %s, peak RSS %s\n", secs(obt), mib(int64(ors)))
	fmt.Fprintf(&b, "- resgen's output builds in less time and memory than ogen's: **%v**\n", yes(rbt < obt && rrs < ors))
	return b.String()
}

func yes(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

// largestBuiltByOgen compares resgen with ogen on the largest spec of this
// run where both outputs built, since ogen often builds nothing on the
// largest specs.
func largestBuiltByOgen(selected []spec, index map[[2]string]*result) string {
	var best *spec
	for i := range selected {
		sp := &selected[i]
		og, rg := index[[2]string{sp.Name, "ogen"}], index[[2]string{sp.Name, "resgen"}]
		if og == nil || rg == nil || !og.buildOK() || !rg.buildOK() {
			continue
		}
		if best == nil || sp.Bytes > best.Bytes {
			best = sp
		}
	}
	if best == nil {
		return ""
	}
	og, rg := index[[2]string{best.Name, "ogen"}], index[[2]string{best.Name, "resgen"}]
	bt := func(s sample) float64 { return s.BuildSecs }
	rs := func(s sample) float64 { return float64(s.BuildRSS) }
	ogt, _ := og.median(genTime, all)
	rgt, _ := rg.median(genTime, all)
	obt, _ := og.median(bt, built)
	rbt, _ := rg.median(bt, built)
	ors, _ := og.median(rs, built)
	rrs, _ := rg.median(rs, built)
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Largest spec of this run where both ogen's and resgen's output build: %s (%s B)\n\n", best.Name, thousands(int(best.Bytes)))
	fmt.Fprintf(&b, "- generation: resgen %s, ogen %s\n", secs(rgt), secs(ogt))
	fmt.Fprintf(&b, "- go build: resgen %s, peak RSS %s; ogen %s, peak RSS %s\n", secs(rbt), mib(int64(rrs)), secs(obt), mib(int64(ors)))
	fmt.Fprintf(&b, "- resgen's output builds in less time and memory: **%v**\n", yes(rbt < obt && rrs < ors))
	return b.String()
}
