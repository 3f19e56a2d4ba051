package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// `resgen diff -old git:REV:path` reads the spec as of a git revision,
// with the files its $refs may read. The revision and the path are the
// user's, but what the revision holds is not: it may come from anyone's
// branch. So nothing of it is run or followed: the files are listed with
// git ls-tree (mode, size, name), only regular YAML and JSON files below
// the spec's read root are taken (plus the spec itself), each name must
// stay inside the temp folder, and their sizes are bounded before a byte
// is read; git cat-file writes them there.

// Variables so that a test can lower them.
var (
	// maxGitBytes bounds the files taken from a revision, together: the
	// loader reads at most as much in one run.
	maxGitBytes int64 = 256 << 20
	// maxGitFiles bounds how many files are taken.
	maxGitFiles = 20_000
)

// gitSpecPrefix marks a diff side read from git.
const gitSpecPrefix = "git:"

// gitSide is a spec materialised from a revision.
type gitSide struct {
	dir  string // the temp folder, the repository's root as of rev
	spec string // the spec's path in dir
	// root is the folder the spec's $refs may read below: its Go module
	// as of rev, else the repository, as for a spec in a working tree.
	root string
	// label is how diagnostics name the temp folder: "git:REV:".
	label string
	// cleanup removes dir if a signal ends the run first.
	cleanup *tempCleanup
}

func (g *gitSide) Close() error {
	err := os.RemoveAll(g.dir)
	g.cleanup.forget(g.dir)
	return err
}

// relabel makes a path in the temp folder read as git:REV:path.
func (g *gitSide) relabel(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(g.dir, abs); err == nil && filepath.IsLocal(rel) {
		return g.label + filepath.ToSlash(rel)
	}
	return p
}

// gitError is a git:REV:path the user must fix (exit status 2).
type gitError struct{ msg string }

func (e *gitError) Error() string { return e.msg }

// materializeGit writes the spec of arg ("git:REV:path", path relative to
// the current folder, as -new's) and the files it may $ref into a new temp
// folder, which tc removes if a signal ends the run first. The caller
// closes the result.
func materializeGit(ctx context.Context, arg string, tc *tempCleanup) (*gitSide, error) {
	rest := strings.TrimPrefix(arg, gitSpecPrefix)
	i := strings.LastIndexByte(rest, ':')
	if i <= 0 || i == len(rest)-1 {
		return nil, &gitError{fmt.Sprintf("%s: want git:REV:path, e.g. git:origin/main:api.yaml", arg)}
	}
	rev, specPath := rest[:i], rest[i+1:]
	if strings.HasPrefix(rev, "-") {
		return nil, &gitError{fmt.Sprintf("%s: a revision cannot start with -", arg)}
	}
	top, err := gitOut(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, &gitError{fmt.Sprintf("%s: not in a git repository: %v", arg, err)}
	}
	prefix, err := gitOut(ctx, "rev-parse", "--show-prefix")
	if err != nil {
		return nil, &gitError{fmt.Sprintf("%s: %v", arg, err)}
	}
	inRepo := path.Clean(prefix + filepath.ToSlash(specPath))
	if filepath.IsAbs(specPath) {
		rel, err := filepath.Rel(top, specPath)
		if err != nil {
			return nil, &gitError{fmt.Sprintf("%s: %v", arg, err)}
		}
		inRepo = filepath.ToSlash(rel)
	}
	if !filepath.IsLocal(inRepo) {
		return nil, &gitError{fmt.Sprintf("%s: the path is outside the repository", arg)}
	}
	commit, err := gitOut(ctx, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return nil, &gitError{fmt.Sprintf("%s: no revision %q in this repository", arg, rev)}
	}
	files, err := listGitFiles(ctx, commit)
	if err != nil {
		return nil, err
	}
	var spec *gitFile
	modules := map[string]bool{}
	for i, f := range files {
		if f.name == inRepo {
			spec = &files[i]
		}
		if path.Base(f.name) == "go.mod" {
			modules[path.Dir(f.name)] = true
		}
	}
	if spec == nil {
		return nil, &gitError{fmt.Sprintf("%s: no file %s at %s", arg, inRepo, rev)}
	}
	// The read root: the nearest folder above the spec holding go.mod,
	// else the repository's root.
	root := "."
	for d := path.Dir(inRepo); ; d = path.Dir(d) {
		if modules[d] {
			root = d
			break
		}
		if d == "." {
			break
		}
	}
	var take []gitFile
	var total int64
	for _, f := range files {
		if f.name != inRepo && (!isSpecFile(f.name) || !below(f.name, root)) {
			continue
		}
		total += f.size
		take = append(take, f)
		if total > maxGitBytes || len(take) > maxGitFiles {
			return nil, &gitError{fmt.Sprintf("%s: the YAML and JSON files below %s at %s exceed %d bytes or %d files", arg, root, rev, maxGitBytes, maxGitFiles)}
		}
	}
	if msg := treeClash(take); msg != "" {
		return nil, &gitError{fmt.Sprintf("%s: the tree at %s is malformed: %s", arg, rev, msg)}
	}
	dir, err := tc.mkdirTemp("resgen-git-*")
	if err != nil {
		return nil, err
	}
	g := &gitSide{dir: dir, spec: filepath.Join(dir, filepath.FromSlash(inRepo)), root: filepath.Join(dir, filepath.FromSlash(root)), label: gitSpecPrefix + rev + ":", cleanup: tc}
	if err := writeGitFiles(ctx, dir, take); err != nil {
		g.Close()
		if errors.Is(err, fs.ErrExist) {
			// Two names this file system does not tell apart (A.yaml
			// and a.yaml on macOS): the revision's, not resgen's.
			return nil, &gitError{fmt.Sprintf("%s: the files at %s cannot be written out here: %s", arg, rev, oneLine(err.Error()))}
		}
		return nil, err
	}
	return g, nil
}

// treeClash says what makes files unwritable as one tree, or "": a name
// twice (git fsck's duplicateEntries, which git mktree writes), or a name
// that is a file and a folder of another.
func treeClash(files []gitFile) string {
	names := make(map[string]bool, len(files))
	for _, f := range files {
		if names[f.name] {
			return fmt.Sprintf("it holds %s twice", f.name)
		}
		names[f.name] = true
	}
	for _, f := range files {
		for d := path.Dir(f.name); d != "."; d = path.Dir(d) {
			if names[d] {
				return fmt.Sprintf("%s is a file and the folder of %s", d, f.name)
			}
		}
	}
	return ""
}

// gitFile is a regular file of a revision.
type gitFile struct {
	name   string // slash-separated, relative to the repository's root
	object string
	size   int64
}

// isSpecFile reports whether a $ref may name the file: YAML or JSON.
func isSpecFile(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return path.Base(name) == "go.mod"
}

func below(name, dir string) bool {
	return dir == "." || strings.HasPrefix(name, dir+"/")
}

// listGitFiles lists the regular files of commit with their sizes; names
// that are not local paths (.., absolute) are dropped.
func listGitFiles(ctx context.Context, commit string) ([]gitFile, error) {
	cmd := exec.CommandContext(ctx, "git", "ls-tree", "-r", "-l", "-z", "--full-tree", commit)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var files []gitFile
	r := bufio.NewReader(out)
	for {
		entry, err := r.ReadString(0)
		if err == io.EOF {
			break
		}
		if err != nil {
			cmd.Wait()
			return nil, err
		}
		// <mode> SP <type> SP <object> SP <size, padded> TAB <name> NUL
		meta, name, ok := strings.Cut(strings.TrimSuffix(entry, "\x00"), "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 4 || fields[1] != "blob" || (fields[0] != "100644" && fields[0] != "100755") {
			continue // symlinks, submodules
		}
		size, err := strconv.ParseInt(fields[3], 10, 64)
		if err != nil || !filepath.IsLocal(filepath.FromSlash(name)) || strings.Contains(name, "\\") {
			continue
		}
		files = append(files, gitFile{name: name, object: fields[2], size: size})
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("git ls-tree: %v: %s", err, oneLine(stderr.String()))
	}
	return files, nil
}

// writeGitFiles writes files into dir with one git cat-file --batch, each
// file's size checked against what ls-tree said.
func writeGitFiles(ctx context.Context, dir string, files []gitFile) error {
	cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch")
	var in bytes.Buffer
	for _, f := range files {
		in.WriteString(f.object + "\n")
	}
	cmd.Stdin = &in
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	werr := readBatch(bufio.NewReader(out), dir, files)
	if werr != nil {
		io.Copy(io.Discard, out)
	}
	if err := cmd.Wait(); err != nil && werr == nil {
		werr = fmt.Errorf("git cat-file: %v", err)
	}
	return werr
}

func readBatch(r *bufio.Reader, dir string, files []gitFile) error {
	for _, f := range files {
		header, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("git cat-file: %v", err)
		}
		// <object> SP blob SP <size> LF <content> LF
		fields := strings.Fields(header)
		if len(fields) != 3 || fields[0] != f.object || fields[1] != "blob" || fields[2] != strconv.FormatInt(f.size, 10) {
			return fmt.Errorf("git cat-file: unexpected %q for %s", oneLine(header), f.name)
		}
		dst := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		w, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, err = io.CopyN(w, r, f.size)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if b, err := r.ReadByte(); err != nil || b != '\n' {
			return errors.New("git cat-file: a blob without its newline")
		}
	}
	return nil
}

// gitOut runs git in the current folder and returns its output's one line.
func gitOut(ctx context.Context, args ...string) (string, error) {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", errors.New(oneLine(msg))
		}
		return "", err
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}
