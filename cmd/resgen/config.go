package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/resgen/resgen/generator"
	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/internal/rawval"
	"github.com/resgen/resgen/internal/sanitize"
	yaml "go.yaml.in/yaml/v4"
)

// resgen.yaml lists a module's generation jobs, so that a //go:generate
// line is `go tool resgen generate` and not five flags repeated per spec.
// It is decoded by walking go-yaml's node tree, not into a struct, so
// every error has its line and column and one run reports them all.
// docs/config.md is the user's guide; schema/resgen.schema.json says the
// same for editors (TestConfigSchemaAgrees keeps the two in step).

// defaultConfig is the config generate reads with no -spec: go generate
// runs in the folder of the file holding the //go:generate line, so this
// is the one next to it.
const defaultConfig = "resgen.yaml"

// maxConfigBytes bounds a config: a config is a list of jobs, and a
// config from a checkout of someone else's module must not make resgen
// read without end (a link to /dev/zero).
const maxConfigBytes = 1 << 20

// maxConfigValues bounds the values decoding a config visits, YAML aliases
// expanded: an alias is decoded again each time it is used, so 60,000
// aliases of one job with 40,000 overlays in a 500 KB file would be 2.4
// billion paths. A config of maxConfigBytes written out has fewer.
const maxConfigValues = 1_000_000

// The keys the decoder knows, in the order the docs list them.
var (
	configKeys  = []string{"jobs"}
	jobKeys     = []string{"name", "spec", "overlays", "package", "output", "split", "strict"}
	jobRequired = []string{"spec", "package", "output"}
	splitModes  = []string{"kind", "tag"}
)

// job is one entry of jobs:, its paths joined to the config's folder.
type job struct {
	index     int    // 1-based position in jobs:
	name      string // as written, else the output as written
	line, col int    // of the job's mapping
	spec      string
	overlays  []string
	pkg       string
	output    string
	split     string
	strict    bool
	outNode   *yaml.Node // the output's value, where a clash is reported
}

// label names j in messages: job 2 "billing".
func (j *job) label() string { return fmt.Sprintf("job %d %q", j.index, j.name) }

// configDecoder walks one config's tree and collects its errors.
type configDecoder struct {
	file  string // the config's path, as given
	dir   string // its folder, which the paths are relative to
	diags generator.Diagnostics
	// values counts the values decoded, aliases expanded; over is set
	// once it passes maxConfigValues, and decoding stops.
	values int
	over   bool
}

// spend counts n more values decoded at node at (an alias, as written, is
// where the budget runs out) and reports whether decoding may go on.
func (d *configDecoder) spend(n int, at *yaml.Node) bool {
	if d.over {
		return false
	}
	if d.values += n; d.values > maxConfigValues {
		d.over = true
		msg := fmt.Sprintf("this config decodes more than %d values", maxConfigValues)
		if at.Kind == yaml.AliasNode {
			msg += fmt.Sprintf(" with its YAML aliases expanded (each *%s is decoded again): write the jobs out", at.Value)
		}
		d.errAt(at, "%s", msg)
	}
	return !d.over
}

func (d *configDecoder) errAt(n *yaml.Node, format string, args ...any) {
	dg := generator.Diagnostic{Severity: generator.Error, File: d.file, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		dg.Line, dg.Col = n.Line, n.Column
	}
	d.diags = append(d.diags, dg)
}

// readConfig reads and decodes the config at path.
func readConfig(path string) ([]*job, generator.Diagnostics) {
	data, err := readConfigFile(path)
	if err != nil {
		return nil, generator.Diagnostics{{Severity: generator.Error, File: path, Msg: "cannot read config: " + load.PathErrText(err)}}
	}
	return decodeConfig(path, data)
}

// readConfigFile reads a regular file of at most maxConfigBytes. Opening
// does not block (a named pipe would wait for a writer).
func readConfigFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err == nil && len(data) > maxConfigBytes {
		err = fmt.Errorf("larger than %d MiB: a config lists jobs", maxConfigBytes>>20)
	}
	return data, err
}

// decodeConfig decodes a config's bytes: every error found, or the jobs.
func decodeConfig(path string, data []byte) ([]*job, generator.Diagnostics) {
	d := &configDecoder{file: path, dir: filepath.Dir(path)}
	l, err := yaml.NewLoader(bytes.NewReader(data))
	if err != nil {
		return nil, generator.Diagnostics{{Severity: generator.Error, File: path, Msg: "cannot read config: " + err.Error()}}
	}
	var doc yaml.Node
	if err := l.Load(&doc); err != nil && !errors.Is(err, io.EOF) {
		d.syntaxError(err)
		return nil, d.diags
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		d.errAt(nil, "no jobs: a config is a mapping with a jobs: list (see docs/config.md)")
		return nil, d.diags
	}
	var extra yaml.Node
	switch err := l.Load(&extra); {
	case err == nil:
		d.errAt(&extra, "a second YAML document: a config is one document")
	case !errors.Is(err, io.EOF):
		d.syntaxError(err)
	}
	jobs := d.root(doc.Content[0])
	if !d.over {
		// Past the budget, the jobs decoded so far are no config.
		d.clashes(jobs)
	}
	if d.diags.HasErrors() {
		d.diags.Sort()
		return nil, d.diags
	}
	return jobs, nil
}

// syntaxError reports YAML that does not parse, at go-yaml's position.
func (d *configDecoder) syntaxError(err error) {
	dg := generator.Diagnostic{Severity: generator.Error, File: d.file, Msg: "not YAML: " + err.Error()}
	if le, ok := errors.AsType[*yaml.LoadError](err); ok {
		dg.Line, dg.Col, dg.Msg = le.Mark.Line, le.Mark.Column, "not YAML: "+le.Message
	}
	d.diags = append(d.diags, dg)
}

// resolve follows an alias to the node it names. Merge keys are refused
// elsewhere, so nothing is expanded: the walk is as big as the file.
func resolve(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// fields walks mapping m's keys, reporting the unknown, repeated and
// non-string ones (where says which mapping, for messages), and calls
// visit with each known key and its value.
func (d *configDecoder) fields(m *yaml.Node, known []string, where string, visit func(key string, k, v *yaml.Node)) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolve(m.Content[i+1])
		switch {
		case k.Tag == "!!merge":
			d.errAt(k, "YAML merge keys (<<) are not read%s: write the keys out", where)
			continue
		case k.Kind != yaml.ScalarNode || k.Tag != "!!str":
			d.errAt(k, "a key must be a string%s", where)
			continue
		case !slices.Contains(known, k.Value):
			msg := fmt.Sprintf("unknown key %q%s", k.Value, where)
			if s := rawval.Suggest(k.Value, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			} else {
				msg += "; the keys are " + strings.Join(known, ", ")
			}
			d.errAt(k, "%s", msg)
			continue
		case seen[k.Value]:
			d.errAt(k, "%s is given twice%s", k.Value, where)
			continue
		}
		seen[k.Value] = true
		visit(k.Value, k, v)
	}
}

// root decodes the top-level mapping.
func (d *configDecoder) root(n *yaml.Node) []*job {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		d.errAt(n, "a config is a mapping with a jobs: list, not %s", kindName(n))
		return nil
	}
	var jobs []*job
	hasJobs := false
	d.fields(n, configKeys, "", func(_ string, k, v *yaml.Node) {
		hasJobs = true
		if v.Kind != yaml.SequenceNode {
			d.errAt(v, "jobs must be a list of jobs, not %s", kindName(v))
			return
		}
		if len(v.Content) == 0 {
			d.errAt(k, "jobs is empty: list at least one job")
		}
		for i, item := range v.Content {
			if !d.spend(jobSize(resolve(item)), item) {
				break
			}
			if j := d.job(i+1, resolve(item)); j != nil {
				jobs = append(jobs, j)
			}
		}
	})
	if !hasJobs && !d.diags.HasErrors() {
		d.errAt(n, "no jobs key: a config is a mapping with a jobs: list (see docs/config.md)")
	}
	return jobs
}

// jobSize is how many values decoding job n visits: its keys and values,
// and the items of its lists (overlays).
func jobSize(n *yaml.Node) int {
	size := 1 + len(n.Content)
	for _, v := range n.Content {
		size += len(resolve(v).Content)
	}
	return size
}

// job decodes the index'th job.
func (d *configDecoder) job(index int, n *yaml.Node) *job {
	if n.Kind != yaml.MappingNode {
		d.errAt(n, "job %d must be a mapping (spec, package, output, ...), not %s", index, kindName(n))
		return nil
	}
	j := &job{index: index, line: n.Line, col: n.Column}
	where := fmt.Sprintf(" in job %d", index)
	given := map[string]bool{}
	str := func(key string, v *yaml.Node, dst *string) { *dst = d.str(v, key+where) }
	d.fields(n, jobKeys, where, func(key string, _, v *yaml.Node) {
		given[key] = true
		switch key {
		case "name":
			str(key, v, &j.name)
		case "spec":
			str(key, v, &j.spec)
			j.spec = d.path(j.spec)
		case "package":
			str(key, v, &j.pkg)
			if j.pkg != "" && !generator.IsPackageName(j.pkg) {
				d.errAt(v, "package%s: %q is not a Go package name", where, j.pkg)
			}
		case "output":
			str(key, v, &j.output)
			j.name = cmp(j.name, j.output) // the default name, replaced by a name: after it
			j.output = d.path(j.output)
			j.outNode = v
		case "split":
			str(key, v, &j.split)
			if j.split != "" && !slices.Contains(splitModes, j.split) {
				d.errAt(v, "split%s: %q is not a layout: use kind or tag", where, j.split)
			}
		case "strict":
			if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
				d.errAt(v, "strict%s must be true or false, not %s", where, kindName(v))
				return
			}
			j.strict = strings.EqualFold(v.Value, "true") // YAML's True and TRUE too
		case "overlays":
			if v.Kind != yaml.SequenceNode {
				d.errAt(v, "overlays%s must be a list of files, not %s", where, kindName(v))
				return
			}
			for _, o := range v.Content {
				var s string
				str(key, resolve(o), &s)
				j.overlays = append(j.overlays, d.path(s))
			}
		}
	})
	for _, key := range jobRequired {
		if !given[key] {
			d.errAt(n, "job %d has no %s", index, key)
		}
	}
	// A job with errors is kept, so that its name and output are checked
	// against the other jobs' in the same run.
	return j
}

// cmp returns a unless it is empty, else b.
func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// str decodes a non-empty string ("" after an error); what says which
// key, for messages.
func (d *configDecoder) str(v *yaml.Node, what string) string {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		d.errAt(v, "%s must be a string, not %s", what, kindName(v))
		return ""
	}
	if v.Value == "" {
		d.errAt(v, "%s is empty", what)
	}
	return v.Value
}

// path makes p, written relative to the config's folder, usable from the
// working directory. A path may leave that folder (../specs/api.yaml): the
// config is the user's own file, like a flag, and a spec's $refs keep
// their read limits whoever names the spec.
func (d *configDecoder) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(d.dir, filepath.FromSlash(p))
}

// clashes reports jobs that cannot both run: two with one name (the
// output is the name of a job without one), two writing one output, and
// a file written into another job's split folder, which that job's run
// would remove as a file it no longer writes (or overwrite).
func (d *configDecoder) clashes(jobs []*job) {
	names := map[string]*job{}
	outs := map[string]*job{}
	splitDirs := map[string]*job{}
	for _, j := range jobs {
		if j.name == "" || j.output == "" {
			continue // an error of its own
		}
		if first, dup := names[j.name]; dup {
			d.errAt(&yaml.Node{Line: j.line, Column: j.col}, "job %d is named %q like job %d: names must differ", j.index, j.name, first.index)
		} else {
			names[j.name] = j
		}
		abs, err := filepath.Abs(j.output)
		if err != nil {
			continue
		}
		if first, dup := outs[abs]; dup {
			d.errAt(j.outNode, "job %d writes %s, which %s writes too", j.index, j.outNode.Value, first.label())
			continue
		}
		outs[abs] = j
		if j.split != "" {
			splitDirs[abs] = j
		}
	}
	for abs, j := range outs {
		if owner, in := splitDirs[filepath.Dir(abs)]; in && j.split == "" {
			d.errAt(j.outNode, "job %d writes %s into the split folder of %s, which replaces or removes the .gen.go files there", j.index, j.outNode.Value, owner.label())
		}
	}
}

// kindName says what a node is, for "must be X, not Y" messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "null"
		case "!!str":
			return fmt.Sprintf("the string %q", n.Value)
		case "!!int", "!!float":
			return "the number " + n.Value
		case "!!bool":
			return n.Value
		}
		return n.Value
	}
	return "an empty value"
}

// jobFlags are generate's flags that a config's jobs take: given
// explicitly, each overrides the field of every job it applies to.
type jobFlags struct {
	set          map[string]bool // the flags given, by name
	sf           *specFlags
	pkg, out     string
	split        string
	check        bool
	config, name string // -config, -job
}

// usesConfig reports whether generate runs the jobs of a config: with
// -config or -job, or with no -spec and a resgen.yaml here.
func (f *jobFlags) usesConfig() bool {
	switch {
	case f.set["config"], f.set["job"]:
		return true
	case f.set["spec"]:
		return false
	}
	_, err := os.Stat(defaultConfig)
	return err == nil
}

// run is a job made ready: the generator's configuration, the output and
// the files generated.
type jobRun struct {
	job   *job
	cfg   generator.Config
	out   string
	files []generator.Output
}

// runJobs runs generate for the jobs of the config the flags name. Every
// job is generated before anything is written, and the outputs are
// written only when every job succeeded: a config's outputs are one
// generation, and go generate must not leave half the clients new and
// half old. The exit status is the worst of the jobs' (1 over 2 over 3).
func runJobs(ctx context.Context, f *jobFlags, stderr io.Writer) int {
	path := cmp(f.config, defaultConfig)
	jobs, diags := readConfig(path)
	if diags.HasErrors() {
		printDiags(stderr, diags)
		return exitInput
	}
	jobs, code := selectJobs(path, jobs, f, stderr)
	if code != exitOK {
		return code
	}
	runs := make([]*jobRun, len(jobs))
	for i, j := range jobs {
		r := f.prepare(j)
		runs[i] = r
		// Before any work, as with flags: an output that is a device or
		// a folder is refused whatever the specs say.
		if err := checkOutput(r.out, r.cfg.Split != ""); err != nil {
			return outputError(stderr, r.out, err)
		}
	}
	// Outputs differ as written (the decoder checks); symbolic links can
	// still lead two of them to one place.
	if d := outputsClash(path, runs); d != nil {
		fmt.Fprintln(stderr, d)
		return exitInput
	}
	code = exitOK
	for _, r := range runs {
		res, err := generate(ctx, r.cfg)
		if err != nil {
			code = worse(code, specError(stderr, err))
			continue
		}
		printDiags(stderr, res.Diags)
		r.files = res.Files
		if f.check {
			stale := staleFiles(r.out, r.cfg.Split != "", r.files)
			for _, file := range stale {
				fmt.Fprintf(stderr, "%s: stale: regenerate with resgen generate (%s)\n", sanitize.Terminal(file), sanitize.Terminal(r.job.label()))
			}
			if len(stale) > 0 {
				code = worse(code, exitStale)
			}
			r.files = nil
		}
	}
	if code != exitOK || f.check {
		return code
	}
	return writeRuns(path, runs, stderr)
}

// selectJobs returns the jobs -job names (all without it), or reports a
// flag that a config takes only for a single job.
func selectJobs(path string, jobs []*job, f *jobFlags, stderr io.Writer) ([]*job, int) {
	if f.set["job"] {
		i := slices.IndexFunc(jobs, func(j *job) bool { return j.name == f.name })
		if i < 0 {
			names := make([]string, len(jobs))
			for k, j := range jobs {
				names[k] = j.name
			}
			msg := fmt.Sprintf("-job %q: no such job", f.name)
			if s := rawval.Suggest(f.name, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			fmt.Fprintln(stderr, generator.Diagnostic{Severity: generator.Error, File: path, Msg: msg + "; the jobs are " + strings.Join(names, ", ")})
			return nil, exitInput
		}
		jobs = jobs[i : i+1]
	}
	for _, name := range []string{"spec", "overlay", "package", "o"} {
		if f.set[name] && len(jobs) != 1 {
			fmt.Fprintf(stderr, "resgen generate: -%s with a config sets one job's field: choose the job with -job NAME (%s lists %d)\n", name, sanitize.Terminal(path), len(jobs))
			return nil, exitInput
		}
	}
	return jobs, exitOK
}

// prepare is j with the flags given applied over its fields. Paths of
// flags are relative to the working directory, as always.
func (f *jobFlags) prepare(j *job) *jobRun {
	r := &jobRun{job: j, out: j.output, cfg: generator.Config{
		Spec: j.spec, Package: j.pkg, Overlays: j.overlays, Strict: j.strict, Split: j.split, ReadRoots: f.sf.allowRead,
	}}
	if f.set["spec"] {
		r.cfg.Spec = *f.sf.spec
	}
	if f.set["overlay"] {
		r.cfg.Overlays = f.sf.overlays
	}
	if f.set["package"] {
		r.cfg.Package = f.pkg
	}
	if f.set["o"] {
		r.out = f.out
	}
	if f.set["strict"] {
		r.cfg.Strict = *f.sf.strict
	}
	if f.set["split"] {
		r.cfg.Split = f.split
	}
	return r
}

// writeRuns stages every job's files, then renames them all into place:
// a file that cannot be staged leaves every output as it was.
func writeRuns(path string, runs []*jobRun, stderr io.Writer) int {
	var all []pending
	for _, r := range runs {
		ps, err := stageOutput(r.out, r.cfg.Split != "", r.files)
		if err != nil {
			discard(all)
			return outputError(stderr, r.out, err)
		}
		all = append(all, ps...)
	}
	if err := commit(all); err != nil {
		return outputError(stderr, path, err)
	}
	for _, r := range runs {
		if r.cfg.Split != "" {
			removeLeftovers(r.out, r.files)
		}
	}
	return exitOK
}

// worse is the exit status that says more: a resgen fault over bad input
// over stale output over success.
func worse(a, b int) int {
	rank := func(c int) int {
		switch c {
		case exitOK:
			return 0
		case exitStale:
			return 1
		case exitInput:
			return 2
		}
		return 3
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// addJobFlags declares generate's config flags.
func addJobFlags(fs *flag.FlagSet, f *jobFlags) {
	fs.StringVar(&f.config, "config", "", "run the jobs of the config `FILE` (default ./"+defaultConfig+" when there is no -spec)")
	fs.StringVar(&f.name, "job", "", "run only the job of the config with this `NAME` (its name:, else its output:)")
}

// run runs the config's jobs when generate's flags ask for a config (see
// usesConfig), after the flags are parsed; ran is false otherwise.
func (f *jobFlags) run(ctx context.Context, fs *flag.FlagSet, pkg, out, split *string, check *bool, stderr io.Writer) (code int, ran bool) {
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if !f.usesConfig() {
		return 0, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "resgen generate: unexpected argument %q\n", fs.Arg(0))
		return exitInput, true
	}
	f.pkg, f.out, f.split, f.check = *pkg, *out, *split, *check
	return runJobs(ctx, f, stderr), true
}
