package conformance

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/resgen/resgen/generator"
)

// MutantOptions configure RunMutants.
type MutantOptions struct {
	// Options are the harness's (RepoRoot, Exceptions, GoCache...); Mutate
	// and Overlay are set per mutant.
	Options
	// PerSpec bounds the mutants of one kind in one spec, PerKind those of
	// one kind in all (0: 2 and 8). Sites are picked by a hash of the
	// site, so the sample is the same from run to run.
	PerSpec, PerKind int
	// Parallel is the number of harness runs at once (0: 2).
	Parallel int
	// Kinds, when set, selects the kinds by name.
	Kinds *regexp.Regexp
	// Sites, when set, keeps only the sites whose "kind, spec, site" line
	// (as the report lists them) it matches, before sampling.
	Sites *regexp.Regexp
	// Progress, when set, gets a line per finished run.
	Progress io.Writer
}

// MutantResult is the outcome of one mutant.
type MutantResult struct {
	Spec string
	Site Site
	// Status is killed, survived, stillborn (it does not build) or
	// unapplied (the generated file it edits did not come back the same).
	Status string
	// By is the first failure the mutant added (killed) or the build
	// error (stillborn).
	By string
}

// MutantReport is a whole run.
type MutantReport struct {
	Results []MutantResult
	// Notes are what the table cannot say: kinds that found no site,
	// runtime kinds the runtime already has, specs left out.
	Notes   []string
	Elapsed time.Duration
	// Phases sum each phase of the harness runs (Report.Phases) over Runs.
	Phases []Phase
	Runs   int
	kinds  []*MutantKind
}

func (r *MutantReport) addPhases(rep *Report) {
	r.Runs++
	for _, ph := range rep.Phases {
		i := slices.IndexFunc(r.Phases, func(p Phase) bool { return p.Name == ph.Name })
		if i < 0 {
			r.Phases = append(r.Phases, Phase{Name: ph.Name})
			i = len(r.Phases) - 1
		}
		r.Phases[i].Took += ph.Took
	}
}

type candidate struct {
	spec string
	site Site
	hash uint64
}

type specSource struct {
	files  [][]byte
	parsed []*srcFile
	warned map[string][]warnedParam
}

// masked reports whether s is in a parameter resgen warns it cannot send
// as the spec means: the harness excepts that parameter's failures, so
// no mutant there can be seen.
func (ss *specSource) masked(s Site) bool {
	if s.Param == "" {
		return false
	}
	op := s.Func
	if rest, ok := strings.CutPrefix(op, "send"); ok {
		op = rest
	}
	return slices.ContainsFunc(ss.warned[op], func(w warnedParam) bool { return w.name == s.Param })
}

// RunMutants plants mutants in the generated clients of specs (and in the
// runtime they call) and runs the harness on each: a mutant is killed when
// its report has a failure (no exception covers) that the unmutated
// client's report on the same spec does not have.
func RunMutants(ctx context.Context, specs []string, mo MutantOptions) *MutantReport {
	start := time.Now()
	if mo.PerSpec <= 0 {
		mo.PerSpec = 2
	}
	if mo.PerKind <= 0 {
		mo.PerKind = 8
	}
	if mo.Parallel <= 0 {
		mo.Parallel = 2
	}
	if mo.GoTool == "" {
		mo.GoTool = "go"
	}
	rep := &MutantReport{}
	for i := range MutantKinds {
		if mo.Kinds == nil || mo.Kinds.MatchString(MutantKinds[i].Name) {
			rep.kinds = append(rep.kinds, &MutantKinds[i])
		}
	}

	// The generated files of each spec, as Run will make them again.
	sources := map[string]*specSource{}
	var okSpecs []string
	for _, spec := range specs {
		res, err := generator.Generate(ctx, generator.Config{Spec: spec, Package: "client"})
		if err != nil {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: left out: it does not generate: %s", filepath.Base(spec), oneLine(err.Error())))
			continue
		}
		ss := &specSource{warned: warnedParams(res)}
		bad := false
		for _, f := range res.Files {
			pf, err := parseSrc(spec, f.Source)
			if err != nil {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: left out: the generated client does not parse: %v", filepath.Base(spec), err))
				bad = true
				break
			}
			ss.files = append(ss.files, f.Source)
			ss.parsed = append(ss.parsed, pf)
		}
		if bad {
			continue
		}
		sources[spec] = ss
		okSpecs = append(okSpecs, spec)
	}

	// Candidates: per kind, per spec, sorted by hash.
	perKind := map[string][][]candidate{}
	noop := map[string]bool{}
	masked, dead, shadowed := 0, 0, 0
	for _, k := range rep.kinds {
		if k.Runtime != "" {
			sites, _, why, err := k.RuntimeSites(mo.RepoRoot)
			if err != nil {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %v", k.Name, err))
			}
			if why != "" {
				noop[k.Name] = true
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: no mutant: %s", k.Name, why))
			}
			for _, spec := range okSpecs {
				if !slices.ContainsFunc(sources[spec].parsed, k.uses) {
					continue
				}
				var cs []candidate
				for i, s := range sites {
					if mo.Sites == nil || mo.Sites.MatchString(siteLine(spec, s)) {
						cs = append(cs, candidate{spec, s, siteHash(spec, s, i)})
					}
				}
				perKind[k.Name] = append(perKind[k.Name], pick(cs, mo.PerSpec))
			}
			continue
		}
		for _, spec := range okSpecs {
			var cs []candidate
			for fi, f := range sources[spec].parsed {
				for i, s := range k.sites(f, fi, "") {
					if sources[spec].masked(s) {
						masked++
						continue
					}
					if len(s.edits) > 0 {
						if _, isDead := f.deadAt(s.edits[0].start); isDead {
							dead++
							continue
						}
						if f.shadowedAt(s.edits[0].start) {
							shadowed++
							continue
						}
					}
					if mo.Sites != nil && !mo.Sites.MatchString(siteLine(spec, s)) {
						continue
					}
					cs = append(cs, candidate{spec, s, siteHash(spec, s, i)})
				}
			}
			if len(cs) > 0 {
				perKind[k.Name] = append(perKind[k.Name], pick(cs, mo.PerSpec))
			}
		}
	}
	if dead > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d sites left out as equivalent: in methods of types no operation's code refers to (dead code: no call runs them, so nothing on the wire can change)", dead))
	}
	if shadowed > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d sites left out as equivalent: a union decoder's Allows(discriminator, ...) after the discriminator's own switch returned (it runs only when the discriminator is absent, where Allows is true whatever the values, or not a string, where it is false whatever they are)", shadowed))
	}
	if masked > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d sites left out: in parameters resgen warns (unsupported:) it cannot send as the spec means, whose failures the harness excepts", masked))
	}
	// Round robin over the specs until PerKind.
	var chosen []candidate
	for _, k := range rep.kinds {
		lists := perKind[k.Name]
		n := 0
		for round := 0; n < mo.PerKind; round++ {
			took := false
			for _, l := range lists {
				if round < len(l) && n < mo.PerKind {
					chosen = append(chosen, l[round])
					n++
					took = true
				}
			}
			if !took {
				break
			}
		}
		if n == 0 && !noop[k.Name] {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: no site in these specs", k.Name))
		}
	}

	// Baselines, then mutants.
	baselines := map[string]*Report{}
	var need []string
	for _, c := range chosen {
		if _, ok := baselines[c.spec]; !ok {
			baselines[c.spec] = nil
			need = append(need, c.spec)
		}
	}
	var mu sync.Mutex
	done := 0
	progress := func(format string, args ...any) {
		if mo.Progress == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		done++
		fmt.Fprintf(mo.Progress, "[%d/%d %s] %s\n", done, len(need)+len(chosen), time.Since(start).Round(time.Second), fmt.Sprintf(format, args...))
	}
	parallel(len(need), mo.Parallel, func(i int) {
		opts := mo.Options
		opts.Mutate, opts.Overlay = nil, nil
		r := Run(ctx, need[i], opts)
		mu.Lock()
		baselines[need[i]] = r
		rep.addPhases(r)
		mu.Unlock()
		progress("baseline %s: %d failures", filepath.Base(need[i]), len(newFailures(r, nil)))
	})
	broken := map[string]bool{}
	for _, spec := range need {
		if r := baselines[spec]; r != nil {
			if fs := newFailures(r, nil); len(fs) > 0 {
				ops := map[string]bool{}
				for _, f := range fs {
					ops[f.Operation] = true
				}
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: the unmutated client's run already has %d failures in %d operations: a mutant there is killed only by a failure about something else", filepath.Base(spec), len(fs), len(ops)))
			}
		}
		if r := baselines[spec]; hasKind(r, "build") || hasKind(r, "generate") || hasKind(r, "load") {
			broken[spec] = true
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: left out: the unmutated client fails to build or load: %s", filepath.Base(spec), firstDetail(r)))
		}
	}
	var runtimeSrc sync.Map
	results := make([]MutantResult, len(chosen))
	parallel(len(chosen), mo.Parallel, func(i int) {
		c := chosen[i]
		res := MutantResult{Spec: c.spec, Site: c.site}
		defer func() {
			results[i] = res
			progress("%s %s %s: %s", res.Status, c.site.Kind, filepath.Base(c.spec), c.site)
		}()
		if broken[c.spec] {
			res.Status = "unapplied"
			res.By = "the unmutated client does not build"
			return
		}
		opts := mo.Options
		applied := false
		if c.site.Path != "" {
			path := filepath.Join(mo.RepoRoot, filepath.FromSlash(c.site.Path))
			src, ok := runtimeSrc.Load(path)
			if !ok {
				_, data, _, err := KindNamed(c.site.Kind).RuntimeSites(mo.RepoRoot)
				if err != nil {
					res.Status, res.By = "unapplied", err.Error()
					return
				}
				src, _ = runtimeSrc.LoadOrStore(path, data)
			}
			opts.Overlay = map[string][]byte{path: c.site.Apply(src.([]byte))}
			applied = true
		} else {
			orig := sources[c.spec].files[c.site.File]
			mutated := c.site.Apply(orig)
			// Run calls Mutate on its own goroutine, before it returns.
			opts.Mutate = func(src []byte) []byte {
				if bytes.Equal(src, orig) {
					applied = true
					return mutated
				}
				return src
			}
		}
		r := Run(ctx, c.spec, opts)
		mu.Lock()
		rep.addPhases(r)
		mu.Unlock()
		switch {
		case !applied:
			res.Status, res.By = "unapplied", "the generated file came back different"
		case hasKind(r, "build"):
			res.Status, res.By = "stillborn", firstOf(r, "build")
		default:
			if added := newFailures(r, baselines[c.spec]); len(added) > 0 {
				f := added[0]
				res.Status = "killed"
				res.By = fmt.Sprintf("%s [%s] %s: %s", f.Operation, f.Call, f.Kind, truncate(f.Detail, 300))
			} else {
				res.Status = "survived"
			}
		}
	})
	rep.Results = results
	rep.Elapsed = time.Since(start)
	return rep
}

// siteLine names a mutant in the report: kind, spec, site.
func siteLine(spec string, s Site) string {
	return fmt.Sprintf("%s, %s, %s", s.Kind, filepath.Base(spec), s)
}

// pick is the first n candidates by hash.
func pick(cs []candidate, n int) []candidate {
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].hash < cs[j].hash })
	if len(cs) > n {
		cs = cs[:n]
	}
	return cs
}

func parallel(n, p int, fn func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(min(p, n), 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

func hasKind(r *Report, kind string) bool {
	return r != nil && slices.ContainsFunc(r.Failures, func(f Failure) bool { return f.Kind == kind })
}

func firstOf(r *Report, kind string) string {
	for _, f := range r.Failures {
		if f.Kind == kind {
			return truncate(oneLine(f.Detail), 300)
		}
	}
	return ""
}

func firstDetail(r *Report) string {
	if r == nil || len(r.Failures) == 0 {
		return ""
	}
	return truncate(oneLine(r.Failures[0].Detail), 300)
}

// volatile are the parts of a failure's detail that differ from run to
// run: the loopback server's port, multipart boundaries, random keys.
var volatile = []*regexp.Regexp{
	regexp.MustCompile(`https?://\S+`),
	regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`),
	regexp.MustCompile(`[0-9a-f]{30,}`),
}

// echoes start the parts of a detail that echo what was sent or decoded
// (a mutant changes them in a failure the baseline already has).
var echoes = []string{": intended ", ", sent ", " sent ", "(sent ", ": sent ", ": not sent", " became ", " Schema:", " Value:"}

// failureKey is what makes a failure the same as one of the baseline's:
// its call and kind, and its subject (the detail up to the first echo of
// the values sent: the parameter, property path or field it is about).
func failureKey(f Failure) string {
	d := f.Detail
	cut := len(d)
	for _, e := range echoes {
		if i := strings.Index(d, e); i >= 0 && i < cut {
			cut = i
		}
	}
	d = d[:cut]
	for _, re := range volatile {
		d = re.ReplaceAllString(d, "…")
	}
	return strings.Join([]string{f.Operation, f.Call, f.Method, f.Kind, d}, "\x00")
}

// newFailures are r's failures (no exception or unused
// exception) whose key no failure of base has.
func newFailures(r, base *Report) []Failure {
	seen := map[string]bool{}
	if base != nil {
		for _, f := range base.Failures {
			seen[failureKey(f)] = true
		}
	}
	var out []Failure
	for _, f := range r.Failures {
		if f.Excepted != "" || f.Kind == "exception" || seen[failureKey(f)] {
			continue
		}
		out = append(out, f)
	}
	return out
}

// KindCount is one row of the table.
type KindCount struct {
	Kind                                            *MutantKind
	Mutants, Killed, Survived, Stillborn, Unapplied int
}

// Counts are the table's rows, in the catalogue's order.
func (r *MutantReport) Counts() []KindCount {
	var out []KindCount
	for _, k := range r.kinds {
		kc := KindCount{Kind: k}
		for _, res := range r.Results {
			if res.Site.Kind != k.Name {
				continue
			}
			switch res.Status {
			case "killed":
				kc.Mutants++
				kc.Killed++
			case "survived":
				kc.Mutants++
				kc.Survived++
			case "stillborn":
				kc.Stillborn++
			default:
				kc.Unapplied++
			}
		}
		out = append(out, kc)
	}
	return out
}

// Totals are the killed and counted mutants.
func (r *MutantReport) Totals() (killed, n int) {
	for _, kc := range r.Counts() {
		killed += kc.Killed
		n += kc.Mutants
	}
	return killed, n
}

// Pass is the acceptance line: at least 95% killed and every kind killed
// at least once.
func (r *MutantReport) Pass() bool {
	k, n := r.Totals()
	if n == 0 || k*100 < 95*n {
		return false
	}
	for _, kc := range r.Counts() {
		if kc.Killed == 0 {
			return false
		}
	}
	return true
}

// Print writes the markdown table, the survivors (verbose: the killed
// mutants and what killed them too), the notes, the elapsed time, and last
// the line "killed K of N mutants (P%)".
func (r *MutantReport) Print(w io.Writer, verbose bool) {
	fmt.Fprintln(w, "| kind | class | where | mutants | killed | survived | stillborn |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|---:|")
	for _, kc := range r.Counts() {
		where := "client"
		if kc.Kind.Runtime != "" {
			where = kc.Kind.Runtime
		}
		mark := ""
		if kc.Killed == 0 {
			mark = " **never killed**"
		}
		fmt.Fprintf(w, "| %s%s | %s | %s | %d | %d | %d | %d |\n", kc.Kind.Name, mark, kc.Kind.Class, where, kc.Mutants, kc.Killed, kc.Survived, kc.Stillborn)
	}
	section := func(title, status string, withBy bool) {
		var lines []string
		for _, res := range r.Results {
			if res.Status != status {
				continue
			}
			l := "- " + siteLine(res.Spec, res.Site)
			if withBy && res.By != "" {
				l += "\n  " + strings.ReplaceAll(res.By, "\n", " ")
			}
			lines = append(lines, l)
		}
		if len(lines) > 0 {
			fmt.Fprintf(w, "\n%s (%d):\n%s\n", title, len(lines), strings.Join(lines, "\n"))
		}
	}
	section("Survivors (kind, spec, site)", "survived", false)
	section("Stillborn (do not build; not counted)", "stillborn", true)
	section("Unapplied (not counted)", "unapplied", true)
	if verbose {
		section("Killed (kind, spec, site, the failure it added)", "killed", true)
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w, "\nNotes:")
		for _, n := range r.Notes {
			fmt.Fprintln(w, "- "+n)
		}
	}
	for _, kc := range r.Counts() {
		if kc.Killed == 0 {
			fmt.Fprintf(w, "kind %s was never killed (%d mutants)\n", kc.Kind.Name, kc.Mutants)
		}
	}
	k, n := r.Totals()
	p := 0.0
	if n > 0 {
		p = 100 * float64(k) / float64(n)
	}
	var b strings.Builder
	for _, ph := range r.Phases {
		fmt.Fprintf(&b, ", %s %s", ph.Name, ph.Took.Round(time.Second))
	}
	fmt.Fprintf(w, "elapsed %s (%d harness runs; their phases summed%s)\n", r.Elapsed.Round(time.Second), r.Runs, b.String())
	fmt.Fprintf(w, "killed %d of %d mutants (%.1f%%)\n", k, n, p)
}
