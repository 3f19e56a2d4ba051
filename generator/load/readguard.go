package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/diag"
	yaml "go.yaml.in/yaml/v4"
)

// A spec may come from another team: its $refs must not make resgen read
// what the user did not hand it, nor read without end. A $ref may read only
// regular files below the read roots (the spec's Go module, else its
// repository, else its folder, plus each -allow-read folder), symlinks
// resolved first and each file opened once through its root (os.Root), so
// that what is read is what was checked, each file at most maxFileBytes and all of them together
// at most maxReadBytes. A referenced file must be a YAML or JSON mapping:
// what is not is refused without quoting it, since it is not a spec.
const (
	// maxFileBytes bounds one file: the largest real specs are 4 MB.
	maxFileBytes = 64 << 20
	// maxReadBytes bounds every file of one run together, the spec and
	// its overlays included.
	maxReadBytes = 256 << 20
	// maxFileReads bounds how often the loader asks for a referenced file:
	// it asks, and decodes the file, again for every $ref to a whole file
	// (about 0.15 ms for a small one). DigitalOcean's 2,900 files hold
	// 6,800 such $refs; the limit costs about 5 s.
	maxFileReads = 30_000
)

// readGuard is what one run may read, and what it has read.
type readGuard struct {
	spec  string   // the spec's path, as given
	roots []string // absolute, symlinks resolved
	rp    *repairs // the repairs of the run, applied to each file

	mu    sync.Mutex
	read  int64             // bytes read so far
	reads int               // reads of referenced files so far
	files map[string][]byte // referenced files by siteKey, as repaired
	// last is the path of the file the loader asked for last: the root
	// document decodes first, so a decode error after a read is that
	// file's.
	last string
	// repaired are the node trees of the referenced files that needed a
	// repair, by siteKey: their positions are the file's, unlike those of
	// the re-encoded bytes in files.
	repaired  map[string]*yaml.Node
	failed    map[string]bool // refused files by siteKey
	refSteps  int             // $ref resolution steps of every file (see checkRefs)
	refVisits int             // nodes the validator visits, of every file
	// sites are the $refs to other files, by what they resolve to, so a
	// refusal points at the $ref that asked for the file.
	sites map[string]refSite
	// into counts the $refs to each fragment of another file, by siteKey
	// and fragment: resolving each costs what the fragment reaches.
	into    map[string]map[string]int
	refused diag.Diagnostics
}

// refSite is where a $ref to another file is written.
type refSite struct {
	file      string
	line, col int
	ref       string
}

// newReadGuard returns the guard of a run on spec: its default root plus
// the folders of allow, which must exist.
func newReadGuard(spec string, allow []string) (*readGuard, diag.Diagnostics) {
	g := &readGuard{spec: spec, files: map[string][]byte{}, repaired: map[string]*yaml.Node{}, failed: map[string]bool{}, sites: map[string]refSite{}, into: map[string]map[string]int{}}
	root, err := defaultReadRoot(spec)
	if err != nil {
		return nil, diag.Diagnostics{{Severity: diag.Error, File: spec, Msg: "cannot read spec: " + err.Error()}}
	}
	g.roots = append(g.roots, root)
	var diags diag.Diagnostics
	for _, dir := range allow {
		if dir == "" {
			// filepath.Abs("") is the working directory: an empty value
			// (an unset variable in a script) must not allow it silently.
			diags = append(diags, diag.Diagnostic{Severity: diag.Error, File: "-allow-read", Msg: "an empty folder name; name the folder (-allow-read . for the working directory)"})
			continue
		}
		real, err := resolvedAbs(dir)
		if err == nil {
			var fi os.FileInfo
			if fi, err = os.Stat(real); err == nil && !fi.IsDir() {
				err = errors.New("not a folder")
			}
		}
		if err != nil {
			diags = append(diags, diag.Diagnostic{Severity: diag.Error, File: "-allow-read", Msg: fmt.Sprintf("%s: %v", dir, err)})
			continue
		}
		g.roots = append(g.roots, real)
	}
	return g, diags
}

// defaultReadRoot is the folder a spec's $refs may read below: the nearest
// folder above the spec's holding go.mod (its Go module), else the nearest
// holding .git (its repository), else the spec's own folder.
func defaultReadRoot(spec string) (string, error) {
	dir, err := resolvedAbs(filepath.Dir(spec))
	if err != nil {
		return "", err
	}
	for _, marker := range []string{"go.mod", ".git"} {
		for d := dir; ; d = filepath.Dir(d) {
			if _, err := os.Lstat(filepath.Join(d, marker)); err == nil {
				return d, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return dir, nil
}

func resolvedAbs(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// within reports whether the resolved path p is below one of the roots.
func (g *readGuard) within(p string) bool {
	for _, root := range g.roots {
		rel, err := filepath.Rel(root, p)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// readAtMost reads f to its end, or fails when that is more than limit
// bytes.
func readAtMost(f *os.File, limit int64) ([]byte, error) {
	var b bytes.Buffer
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if fi.Size() > limit {
			return nil, errTooBig
		}
		b.Grow(int(fi.Size()) + bytes.MinRead)
	}
	if _, err := b.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err
	}
	if int64(b.Len()) > limit {
		return nil, errTooBig
	}
	return b.Bytes(), nil
}

var errTooBig = fmt.Errorf("larger than %d MiB", maxFileBytes>>20)

// readBounded reads f within maxFileBytes and what is left of
// maxReadBytes, and counts what it read.
func (g *readGuard) readBounded(f *os.File) ([]byte, error) {
	g.mu.Lock()
	left := maxReadBytes - g.read
	g.mu.Unlock()
	data, err := readAtMost(f, min(maxFileBytes, left))
	if err == errTooBig && left < maxFileBytes {
		err = fmt.Errorf("the files this spec reads are larger than %d MiB in all", maxReadBytes>>20)
	}
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	g.read += int64(len(data))
	g.mu.Unlock()
	return data, nil
}

// errRefused is what the loader gets for a refused file; the diagnostic
// is in readGuard.refused.
var errRefused = errors.New("refused")

// refuse records why the file u names was not read, at the $ref that
// asked for it, and returns the error that stops the loader.
func (g *readGuard) refuse(u *url.URL, msg, hint string) error {
	d := g.atRef(u, msg, hint)
	g.mu.Lock()
	g.refused = append(g.refused, d)
	g.mu.Unlock()
	return fmt.Errorf("%s: %w", msg, errRefused)
}

// atRef is an error about the file u names, at the first $ref to it.
func (g *readGuard) atRef(u *url.URL, msg, hint string) diag.Diagnostic {
	g.mu.Lock()
	s, ok := g.sites[siteKey(u)]
	g.mu.Unlock()
	if !ok {
		return diag.Diagnostic{Severity: diag.Error, File: g.spec, Msg: "a $ref: " + msg, Hint: hint}
	}
	return diag.Diagnostic{Severity: diag.Error, File: s.file, Line: s.line, Col: s.col, Msg: fmt.Sprintf("$ref %q: %s", s.ref, msg), Hint: hint}
}

// refusedAt records a diagnostic about a file that was read (a limit
// inside it) and returns the error that stops the loader.
func (g *readGuard) refusedAt(ds diag.Diagnostics) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.refused = append(g.refused, ds...)
	return errRefused
}

// siteKey names what a $ref resolves to, the way the loader hands it to
// readRef: scheme, host and path, without the fragment.
func siteKey(u *url.URL) string {
	return u.Scheme + "://" + u.Host + u.Path
}

// addSite records a $ref to another file, written in the file at base.
func (g *readGuard) addSite(base *url.URL, file string, key *yaml.Node, ref string) {
	u, err := url.Parse(ref)
	if err != nil {
		return
	}
	if u.Scheme == "" && !filepath.IsAbs(filepath.FromSlash(u.Path)) && !strings.HasPrefix(u.Path, "/") {
		joined := *base
		joined.Path = filepath.ToSlash(filepath.Join(filepath.Dir(filepath.FromSlash(base.Path)), filepath.FromSlash(u.Path)))
		u = &joined
	}
	k := siteKey(u)
	g.mu.Lock()
	if _, ok := g.sites[k]; !ok {
		g.sites[k] = refSite{file: file, line: key.Line, col: key.Column, ref: ref}
		g.into[k] = map[string]int{}
	}
	g.into[k][u.Fragment]++
	g.mu.Unlock()
}

// refsInto is how many $refs of the files read so far name each fragment
// of the file at u.
func (g *readGuard) refsInto(u *url.URL) map[string]int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return maps.Clone(g.into[siteKey(u)])
}

// readRef is the loader's ReadFromURIFunc: a referenced file, read within
// the roots and limits, checked (checkTree, checkRefs) and repaired like
// the root document. Each file is read once; one refused is refused again
// without another diagnostic.
func (g *readGuard) readRef(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
	data, _, err := g.readRefTree(u)
	return data, err
}

// readTree is readRef for resgen itself: the file's node tree, as checked
// and repaired, with the positions of the file as written when this is its
// first read.
func (g *readGuard) readTree(u *url.URL) (*yaml.Node, error) {
	data, root, err := g.readRefTree(u)
	if err != nil || root != nil {
		return root, err
	}
	return parseTree(data)
}

// readRefTree is readRef with the file's tree on its first read (nil when
// it was read before).
func (g *readGuard) readRefTree(u *url.URL) ([]byte, *yaml.Node, error) {
	key := siteKey(u)
	g.mu.Lock()
	g.reads++
	g.last = u.Path
	reads, failed := g.reads, g.failed[key]
	data, ok := g.files[key]
	g.mu.Unlock()
	switch {
	case failed:
		return nil, nil, errRefused
	case reads > maxFileReads:
		// The loader asks again for every $ref to a whole file and
		// decodes it again.
		return nil, nil, g.refuse(u, fmt.Sprintf("the spec asks for files more than %d times", maxFileReads), "")
	case ok:
		return data, nil, nil
	}
	data, root, err := g.readNew(u)
	g.mu.Lock()
	if err != nil {
		g.failed[key] = true
	} else {
		g.files[key] = data
	}
	g.mu.Unlock()
	return data, root, err
}

func (g *readGuard) readNew(u *url.URL) ([]byte, *yaml.Node, error) {
	if u.Scheme != "" && u.Scheme != "file" {
		return nil, nil, g.refuse(u, "only local files can be referenced", "")
	}
	if u.Host != "" && u.Host != "localhost" {
		return nil, nil, g.refuse(u, fmt.Sprintf("a file URL with a host (%s) is not a local file", u.Host), "write a path, relative to the spec's folder")
	}
	p := filepath.FromSlash(u.Path)
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, nil, g.refuse(u, "cannot read "+displayPath(p)+": "+PathErrText(err), "")
	}
	if !g.within(real) {
		return nil, nil, g.refuse(u, fmt.Sprintf("%s is outside the folders this spec may read (%s)", displayPath(p), strings.Join(g.roots, ", ")),
			"move the file below that folder, or allow its folder with -allow-read DIR")
	}
	data, err := g.readRegular(real)
	if err != nil {
		return nil, nil, g.refuse(u, displayPath(p)+": "+err.Error(), "")
	}
	data, root, diags := g.checkFile(displayPath(p), u, data)
	if diags != nil {
		return nil, nil, g.refusedAt(diags)
	}
	return data, root, nil
}

// readRegular reads the regular file at real, a real path the caller
// checked is within the roots. It opens it once, through the root it is
// below (os.Root: each folder on the way opened in turn, no symbolic link
// followed out of the root), so a folder on real's path swapped for a
// link to outside the roots between the check and the open is refused,
// not followed. It looks before it opens, so that opening has no effect
// (a device, a FIFO that would block), and opens without blocking, then
// looks again at what it opened.
func (g *readGuard) readRegular(real string) ([]byte, error) {
	root, rel := g.rootOf(real)
	if root == "" {
		return nil, errors.New("outside the folders this spec may read")
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, errors.New(PathErrText(err))
	}
	defer r.Close()
	fi, err := r.Stat(rel)
	if err != nil {
		return nil, errors.New(PathErrText(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	f, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, errors.New(PathErrText(err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return g.readBounded(f)
}

// rootOf returns the first root the resolved path p is below, and p
// relative to it; "" when there is none.
func (g *readGuard) rootOf(p string) (root, rel string) {
	for _, root := range g.roots {
		if rel, err := filepath.Rel(root, p); err == nil && filepath.IsLocal(rel) {
			return root, rel
		}
	}
	return "", ""
}

// pathErrText is an error without the path, which the caller names.
func PathErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// checkFile checks a referenced file (a mapping, within the limits of
// checkTree and checkRefs) and returns it repaired with its tree, or the
// errors.
func (g *readGuard) checkFile(file string, u *url.URL, data []byte) ([]byte, *yaml.Node, diag.Diagnostics) {
	root, err := parseTree(data)
	if err != nil || root.Kind != yaml.MappingNode {
		// The parser's message may quote the file: give its line only.
		msg := file + ": not a YAML or JSON mapping, so not part of a spec"
		if m := yamlLine.FindStringSubmatch(fmt.Sprint(err)); m != nil {
			msg = file + ": not a YAML or JSON mapping (it does not parse at line " + m[1] + "), so not part of a spec"
		}
		return nil, nil, diag.Diagnostics{g.atRef(u, msg, "")}
	}
	if diags := checkTree(file, root); diags != nil {
		return nil, nil, diags
	}
	if diags := g.checkRefs(file, u, root); diags != nil {
		return nil, nil, diags
	}
	// A properties map written as a $ref, inlined before kin decodes it.
	inlined, idiags := g.inlineObjects(file, u, root, false, nil)
	if idiags.HasErrors() {
		return nil, nil, idiags
	}
	g.rp.addAll(idiags)
	if g.rp.repairTree(file, root)+inlined == 0 {
		return data, root, nil
	}
	out, err := yaml.Marshal(root)
	if err != nil {
		return data, root, nil
	}
	g.mu.Lock()
	g.repaired[siteKey(u)] = root
	g.mu.Unlock()
	return out, root, nil
}

// tree is the node tree of a referenced file that was read, with the
// file's positions; nil if it was not read.
func (g *readGuard) tree(key string) *yaml.Node {
	g.mu.Lock()
	root, data := g.repaired[key], g.files[key]
	g.mu.Unlock()
	if root == nil && data != nil {
		root, _ = parseTree(data)
	}
	return root
}
