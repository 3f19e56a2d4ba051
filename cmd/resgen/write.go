package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/resgen/resgen/generator"
	"github.com/resgen/resgen/internal/atomicfile"
)

// Writing the output. A file is replaced atomically: the new bytes go to a
// temp file in the folder of the file replaced, are synced, and renamed over
// it; the folder is synced after. A failed or killed run leaves the old
// file as it was. Every error here is about the -o the user gave (a folder,
// a device, a folder that cannot be written, a full disk): exit status 2.

// tempMarker is in the name of every temp file resgen writes:
// .<name>.resgen-<digits>, as os.CreateTemp fills the pattern.
const tempMarker = atomicfile.Marker

// staleAfter is how old a temp file must be before a later run removes it:
// a run still writing is never disturbed (it holds its temp file for
// milliseconds).
const staleAfter = time.Minute

// outputTarget returns the file that writing path replaces: path itself, or
// the file a symbolic link at path leads to (the link is kept, and the file
// it points to is replaced in its own folder). It refuses what resgen must
// not replace: a folder, a device, a pipe, a socket.
func outputTarget(path string) (string, error) {
	target := path
	for hops := 0; ; hops++ {
		fi, err := os.Lstat(target)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return target, nil
		case err != nil:
			return "", err
		case fi.Mode()&fs.ModeSymlink != 0:
			if hops == 40 {
				return "", errors.New("too many levels of symbolic links")
			}
			link, err := os.Readlink(target)
			if err != nil {
				return "", err
			}
			if !filepath.IsAbs(link) {
				link = filepath.Join(filepath.Dir(target), link)
			}
			target = link
		case fi.Mode().IsRegular():
			return target, nil
		case fi.IsDir():
			return "", errors.New("is a folder: name a file, or write a folder with -split")
		default:
			return "", fmt.Errorf("is %s, not a regular file: resgen replaces only regular files", fileKind(fi.Mode()))
		}
	}
}

func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// checkOutput refuses an -o that resgen would not write, before any work:
// a non-regular file (or, with -split, anything but a folder).
func checkOutput(out string, split bool) error {
	if !split {
		_, err := outputTarget(out)
		return err
	}
	fi, err := os.Stat(out)
	if err == nil && !fi.IsDir() {
		return errors.New("is not a folder: with -split, -o names the folder the files go to")
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// readRegular reads path if it is a regular file, and reports whether it
// was. Opening does not block (a named pipe put there after checkOutput
// would otherwise wait for a writer forever).
func readRegular(path string) ([]byte, bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	data, err := io.ReadAll(f)
	return data, err == nil
}

// holds reports whether target is a regular file whose bytes are data.
func holds(target string, data []byte) bool {
	old, ok := readRegular(target)
	return ok && bytes.Equal(old, data)
}

// current reports whether the output at path (or the file a link at path
// points to) already holds data.
func current(path string, data []byte) bool {
	target, err := outputTarget(path)
	return err == nil && holds(target, data)
}

// pending is a temp file written and synced, waiting to be renamed over
// its target.
type pending struct{ tmp, target string }

// stage writes data to a temp file in target's folder, with the permission
// bits of the file it replaces (0644 for a new one), and syncs it. It
// returns ok false when target already holds data: nothing to do.
func stage(target string, data []byte) (p pending, ok bool, err error) {
	if holds(target, data) {
		return pending{}, false, nil
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		mode = fi.Mode().Perm() // even when it could not be read
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return pending{}, false, err
	}
	tmp, err := atomicfile.WriteTemp(dir, filepath.Base(target), data, mode)
	if err != nil {
		return pending{}, false, err
	}
	return pending{tmp, target}, true, nil
}

// commit renames the staged files into place and syncs their folders; on
// a failure the temp files not yet renamed are removed.
func commit(ps []pending) error {
	for i, p := range ps {
		if err := os.Rename(p.tmp, p.target); err != nil {
			discard(ps[i:])
			return err
		}
	}
	synced := map[string]bool{}
	for _, p := range ps {
		if dir := filepath.Dir(p.target); !synced[dir] {
			synced[dir] = true
			syncDir(dir)
		}
	}
	return nil
}

// discard removes the temp files of staged writes that will not be
// committed.
func discard(ps []pending) {
	for _, p := range ps {
		os.Remove(p.tmp)
	}
}

// syncDir makes the renames into dir durable. Some systems cannot sync a
// folder; the rename is done either way, so an error is not reported.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// removeStaleTemps removes the temp files that killed runs left in dir for
// the outputs whose names match: only resgen's exact pattern
// (.<name>.resgen-<digits>), only regular files, only ones older than
// staleAfter.
func removeStaleTemps(dir string, match func(name string) bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name, ok := tempOf(e.Name())
		if !ok || !match(name) || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleAfter {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// tempOf returns the output name a temp file name is for, and whether it
// is one of resgen's: ".client.gen.go.resgen-123" is for client.gen.go.
func tempOf(file string) (string, bool) {
	i := strings.LastIndex(file, tempMarker)
	if !strings.HasPrefix(file, ".") || i < 2 {
		return "", false
	}
	digits := file[i+len(tempMarker):]
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return "", false
	}
	return file[1:i], true
}

// stagePath stages data for the output at path (or the file a link at
// path points to).
func stagePath(path string, data []byte) (pending, bool, error) {
	target, err := outputTarget(path)
	if err != nil {
		return pending{}, false, err
	}
	return stage(target, data)
}

// writeAtomic replaces the file at path (or the file a link at path points
// to) with data. An unchanged file is left alone, keeping its modification
// time.
func writeAtomic(path string, data []byte) error {
	ps, err := stageFile(path, data)
	if err != nil {
		return err
	}
	return commit(ps)
}

// stageFile stages data for the file at path: nothing when it holds data
// already.
func stageFile(path string, data []byte) ([]pending, error) {
	target, err := outputTarget(path)
	if err != nil {
		return nil, err
	}
	removeStaleTemps(filepath.Dir(target), func(name string) bool { return name == filepath.Base(target) })
	p, changed, err := stage(target, data)
	if err != nil || !changed {
		return nil, err
	}
	return []pending{p}, nil
}

// stageOutput stages a run's output at out: its one file, or with split
// the files of the folder out.
func stageOutput(out string, split bool, files []generator.Output) ([]pending, error) {
	if !split {
		return stageFile(out, files[0].Source)
	}
	return stageFolder(out, files)
}

// staleFiles lists the output files whose bytes on disk differ from files
// (missing ones included), and in a split folder the generated files that
// would be removed.
func staleFiles(out string, split bool, files []generator.Output) []string {
	var stale []string
	if !split {
		if !current(out, files[0].Source) {
			stale = append(stale, out)
		}
		return stale
	}
	keep := map[string]bool{}
	for _, f := range files {
		p := filepath.Join(out, f.Name)
		keep[f.Name] = true
		if !current(p, f.Source) {
			stale = append(stale, p)
		}
	}
	return append(stale, leftovers(out, keep)...)
}

// generatedBanner starts every file resgen writes; only such files are
// removed from a split output folder.
const generatedBanner = "// Code generated by resgen"

// leftovers lists the files of a split folder that resgen wrote before and
// no longer writes: regular *.gen.go files starting with its banner.
func leftovers(dir string, keep map[string]bool) []string {
	var out []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.Type().IsRegular() || keep[e.Name()] || !strings.HasSuffix(e.Name(), ".gen.go") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if data, ok := readRegular(p); ok && bytes.HasPrefix(data, []byte(generatedBanner)) {
			out = append(out, p)
		}
	}
	return out
}

// writeFolder writes a split output: every file is staged first, and only
// when all are written are they renamed into place, so a failed run
// changes nothing. Files resgen wrote before that are no longer part of the
// output are removed.
func writeFolder(dir string, files []generator.Output) error {
	ps, err := stageFolder(dir, files)
	if err != nil {
		return err
	}
	if err := commit(ps); err != nil {
		return err
	}
	removeLeftovers(dir, files)
	return nil
}

// stageFolder stages the files of a split output in dir.
func stageFolder(dir string, files []generator.Output) ([]pending, error) {
	if err := checkOutput(dir, true); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	removeStaleTemps(dir, func(name string) bool { return strings.HasSuffix(name, ".gen.go") })
	var ps []pending
	for _, f := range files {
		p, changed, err := stagePath(filepath.Join(dir, f.Name), f.Source)
		if err != nil {
			discard(ps)
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		if changed {
			ps = append(ps, p)
		}
	}
	return ps, nil
}

// removeLeftovers removes the files of a split folder that resgen wrote
// before and that files no longer holds, once files are in place.
func removeLeftovers(dir string, files []generator.Output) {
	keep := map[string]bool{}
	for _, f := range files {
		keep[f.Name] = true
	}
	for _, p := range leftovers(dir, keep) {
		os.Remove(p)
	}
}
