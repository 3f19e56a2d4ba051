package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/resgen/resgen/generator"
)

// The decoder refuses two jobs writing one output, or a file into another
// job's split folder, as the paths are written. Symbolic links can still
// lead two outputs to one place: a link to a split folder, a folder of
// links, an output that is a link into another job's folder. Then one
// job's run replaces the other's files, or removes them as files it no
// longer writes. So the outputs are compared again where they are on
// disk, before any job runs.

// realPath is where p is on disk: the deepest folder of p that exists,
// its symbolic links resolved, joined with the rest of p, which does not
// exist yet.
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for d := abs; ; d = filepath.Dir(d) {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(real, rest), nil
		}
		if filepath.Dir(d) == d {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(d), rest)
	}
}

// outputPlace is where a job writes, on disk.
type outputPlace struct {
	r *jobRun
	// file is the real path of a single-file output; dir the real path
	// of a split folder, and links the real targets of the .gen.go
	// symbolic links in it, which its run writes through.
	file, dir string
	links     []string
}

// placeOf finds where r writes.
func placeOf(r *jobRun) (*outputPlace, error) {
	p := &outputPlace{r: r}
	if r.cfg.Split == "" {
		target, err := outputTarget(r.out)
		if err != nil {
			return nil, err
		}
		p.file, err = realPath(target)
		return p, err
	}
	var err error
	if p.dir, err = realPath(r.out); err != nil {
		return nil, err
	}
	entries, _ := os.ReadDir(p.dir)
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink == 0 || !strings.HasSuffix(e.Name(), ".gen.go") {
			continue
		}
		target, err := outputTarget(filepath.Join(p.dir, e.Name()))
		if err != nil {
			continue // refused when the job writes it
		}
		if real, err := realPath(target); err == nil && filepath.Dir(real) != p.dir {
			p.links = append(p.links, real)
		}
	}
	return p, nil
}

// outputsClash reports the first two jobs of runs that write one place on
// disk: one file, one split folder, or a file (a single output, or one
// that a link in a split folder leads to) in another job's split folder.
func outputsClash(path string, runs []*jobRun) *generator.Diagnostic {
	files := map[string]*jobRun{} // every file written, by real path
	dirs := map[string]*jobRun{}  // split folders, by real path
	var places []*outputPlace
	for _, r := range runs {
		p, err := placeOf(r)
		if err != nil {
			continue // checkOutput reported it, or the write will
		}
		places = append(places, p)
		if p.dir != "" {
			if first, dup := dirs[p.dir]; dup {
				return clashAt(path, r, fmt.Sprintf("is the split folder of %s too (through a symbolic link): each run would replace or remove the other's files", first.job.label()))
			}
			dirs[p.dir] = r
		}
		for _, file := range append(p.links, p.file) {
			if file == "" {
				continue
			}
			if first, dup := files[file]; dup && first != r {
				return clashAt(path, r, fmt.Sprintf("is the file %s writes too (through a symbolic link)", first.job.label()))
			}
			files[file] = r
		}
	}
	for _, p := range places {
		for _, file := range append(p.links, p.file) {
			if owner, in := dirs[filepath.Dir(file)]; file != "" && in && owner != p.r {
				return clashAt(path, p.r, fmt.Sprintf("leads into the split folder of %s (to %s, through a symbolic link), whose run replaces or removes the .gen.go files there", owner.job.label(), file))
			}
		}
	}
	return nil
}

// clashAt is an error about r's output: at its output: in the config, or
// at -o when the flag set it.
func clashAt(path string, r *jobRun, msg string) *generator.Diagnostic {
	d := &generator.Diagnostic{Severity: generator.Error, File: r.out, Msg: "cannot write the output: " + msg}
	if n := r.job.outNode; n != nil && r.out == r.job.output {
		d.File, d.Line, d.Col = path, n.Line, n.Column
		d.Msg = fmt.Sprintf("%s writes %s, which %s", r.job.label(), n.Value, msg)
	}
	return d
}
