package emit

import (
	"bytes"
	"go/format"
	goruntime "runtime"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/dave/jennifer/jen"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/internal/gopanic"
	"github.com/resgen/resgen/internal/sanitize"
	"github.com/resgen/resgen/templates"
)

// Render prints f as gofmt'd Go source in the given layout. An error means
// resgen built bad code: a *FormatError.
func Render(f *model.File, split string) ([]Output, error) {
	return render(f, split, min(goruntime.GOMAXPROCS(0), maxWorkers), minChunk)
}

// maxWorkers bounds the goroutines Render prints with: past a few, the
// chunks get small and joining them costs more than it saves.
const maxWorkers = 8

// unit prints one group of declarations. Each begins with a doc comment
// or a blank line, so gofmt puts exactly one blank line before it whatever
// comes before: where one is printed alone, the join does the same.
type unit func(*jen.File)

// render prints f with up to workers goroutines, in chunks of at least
// minUnits units; 1 worker prints each file in one piece.
func render(f *model.File, split string, workers, minUnits int) ([]Output, error) {
	e := &emitter{m: f}
	var hdr strings.Builder
	if err := templates.T.ExecuteTemplate(&hdr, "header", f.Source); err != nil {
		return nil, err
	}
	header := "// " + sanitize.Comment(hdr.String())
	units := map[string][]unit{}
	typesFile, clientFile, opsFile := "", "", ""
	if split != SplitNone {
		typesFile, clientFile, opsFile = "types.gen.go", "client.gen.go", "operations.gen.go"
	}
	units[clientFile] = append(units[clientFile], func(cf *jen.File) {
		/* const _ = impl.SupportPackageIsVersion1 */
		cf.Comment("// This file needs a runtime package of the same resgen version.")
		cf.Const().Id("_").Op("=").Qual(implPkg, "SupportPackageIsVersion1")
	})
	for _, t := range f.Types {
		units[typesFile] = append(units[typesFile], func(jf *jen.File) { e.emitType(jf, t) })
	}
	units[clientFile] = append(units[clientFile], e.emitClient, e.emitBreakers)
	tagFiles := newFileNames("types.gen.go", "client.gen.go")
	for _, op := range f.Operations {
		name := opsFile
		if split == SplitTag {
			name = tagFiles.name(op.Tag)
		}
		units[name] = append(units[name], func(of *jen.File) {
			e.emitParams(of, op)
			e.emitResponse(of, op)
			e.emitOperation(of, op)
			e.emitPaging(of, op)
		})
	}
	names := make([]string, 0, len(units))
	for name := range units {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]Output, len(names))
	if workers <= 1 {
		for i, name := range names {
			src, err := renderWhole(f.Package, header, name, units[name])
			if err != nil {
				return nil, err
			}
			out[i] = Output{Name: name, Source: src}
		}
		return out, nil
	}
	// Every file is cut into chunks of consecutive units; workers print and
	// gofmt the chunks of all files (a file of one chunk whole), and each
	// file is joined in order.
	var tasks []func()
	perFile := make([][]*chunk, len(names))
	errs := make([]error, len(names))
	for i, name := range names {
		cut := split4(units[name], workers, minUnits)
		if len(cut) == 1 {
			tasks = append(tasks, func() { out[i].Source, errs[i] = renderWhole(f.Package, header, name, units[name]) })
			continue
		}
		for _, us := range cut {
			c := &chunk{units: us}
			perFile[i] = append(perFile[i], c)
			tasks = append(tasks, func() { c.print(f.Package) })
		}
	}
	var next atomic.Int64
	var wg gopanic.Group // a printer's panic is Render's
	for range min(workers, len(tasks)) {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(tasks)); i = next.Add(1) - 1 {
				tasks[i]()
			}
		})
	}
	wg.Wait()
	for i, name := range names {
		out[i].Name = name
		if perFile[i] == nil {
			if errs[i] != nil {
				return nil, errs[i]
			}
			continue
		}
		src, ok := join(f.Package, header, perFile[i])
		if !ok {
			// A chunk gofmt refused, or imports the chunks name differently:
			// printing the file whole gives today's source, or error.
			var err error
			if src, err = renderWhole(f.Package, header, name, units[name]); err != nil {
				return nil, err
			}
		}
		out[i].Source = src
	}
	return out, nil
}

// newFile starts a jennifer file with the import names generated code
// uses; header "" leaves the header comment out (a chunk has none).
func newFile(pkg, header string) *jen.File {
	jf := jen.NewFile(pkg)
	// gofmt runs apart, so a failure keeps the source apart from the
	// message (jennifer's own error quotes all of it).
	jf.NoFormat = true
	if header != "" {
		jf.HeaderComment(header)
	}
	jf.ImportName(runtimePkg, "runtime")
	jf.ImportName(wirePkg, "wire")
	jf.ImportName(implPkg, "impl")
	jf.ImportName("net/url", "url")
	jf.ImportName("log/slog", "slog")
	jf.ImportName("encoding/json", "json")
	jf.ImportName("iter", "iter")
	return jf
}

// renderWhole prints one file in one piece.
func renderWhole(pkg, header, name string, units []unit) ([]byte, error) {
	jf := newFile(pkg, header)
	for _, u := range units {
		u(jf)
	}
	var buf bytes.Buffer
	if err := jf.Render(&buf); err != nil {
		return nil, err
	}
	src, err := format.Source(buf.Bytes())
	if err != nil {
		return nil, &FormatError{File: name, Err: err, Source: buf.Bytes()}
	}
	return groupImports(src), nil
}

// minChunk is the fewest units worth a chunk of their own.
const minChunk = 16

// split4 cuts units into about four chunks per worker, so that a worker
// that finishes early takes another, but no chunk has fewer than minUnits.
func split4(units []unit, workers, minUnits int) [][]unit {
	n := max(min(4*workers, len(units)/minUnits), 1)
	out := make([][]unit, 0, n)
	for i := range n {
		out = append(out, units[i*len(units)/n:(i+1)*len(units)/n])
	}
	return out
}

// chunk is a run of one file's units, printed and gofmt'd on its own.
type chunk struct {
	units   []unit
	imports []string // the import lines jennifer wrote, as `"path"` or `name "path"`
	body    []byte   // gofmt'd declarations, without the package clause
	ok      bool
}

// print fills c.imports and c.body; c.ok is false when jennifer or gofmt
// failed (the whole file is then printed again to say why).
func (c *chunk) print(pkg string) {
	jf := newFile(pkg, "")
	for _, u := range c.units {
		u(jf)
	}
	var buf bytes.Buffer
	if jf.Render(&buf) != nil {
		return
	}
	// Jennifer writes "package p\n\n", the imports, then the declarations,
	// each after a newline: gofmt needs only the package clause with them,
	// written over the end of the imports.
	clause := "package " + pkg + "\n"
	src, ok := bytes.CutPrefix(buf.Bytes(), []byte(clause+"\n"))
	if !ok {
		return
	}
	var block []byte
	switch {
	case bytes.HasPrefix(src, []byte("import (\n")):
		end := bytes.Index(src, []byte("\n)\n\n"))
		if end < 0 {
			return
		}
		block, src = src[len("import (\n"):end], src[end+len("\n)\n\n"):]
	case bytes.HasPrefix(src, []byte("import ")):
		end := bytes.Index(src, []byte("\n\n"))
		if end < 0 {
			return
		}
		block, src = src[len("import "):end], src[end+len("\n\n"):]
	}
	if len(block) > 0 {
		c.imports = strings.Split(string(block), "\n")
	}
	// The clause fits: the imports or at least its own blank line were there.
	start := len(buf.Bytes()) - len(src) - len(clause)
	copy(buf.Bytes()[start:], clause)
	formatted, err := format.Source(buf.Bytes()[start:])
	if err != nil {
		return
	}
	if formatted, ok = bytes.CutPrefix(formatted, []byte(clause)); !ok {
		return
	}
	c.body = bytes.TrimPrefix(formatted, []byte("\n"))
	c.ok = true
}

// join makes one file of its chunks: the header, the package clause and
// the union of the chunks' imports, gofmt'd, then the chunks' declarations
// with a blank line before each chunk. That is byte for byte what gofmt
// makes of the file printed whole, as long as every import has the name
// in each chunk that it would have in the whole file: false if any could
// differ.
func join(pkg, header string, chunks []*chunk) ([]byte, bool) {
	byPath := map[string]string{}
	byName := map[string]bool{}
	for _, c := range chunks {
		if !c.ok {
			return nil, false
		}
		for _, line := range c.imports {
			path := line[strings.IndexByte(line, '"'):]
			if prev, seen := byPath[path]; seen {
				if prev != line {
					return nil, false
				}
				continue
			}
			// Jennifer numbers a name already taken (json1) and then writes
			// it: two paths of one name would be named by the order of use
			// in the whole file, which a chunk cannot know.
			name := importName(line)
			if byName[name] {
				return nil, false
			}
			byName[name] = true
			byPath[path] = line
		}
	}
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths) // jennifer sorts the unquoted paths; quoting keeps their order
	var head bytes.Buffer
	hf := newFile(pkg, header)
	if hf.Render(&head) != nil {
		return nil, false
	}
	switch len(paths) {
	case 0:
	case 1:
		head.WriteString("import " + byPath[paths[0]] + "\n\n")
	default:
		head.WriteString("import (\n")
		for _, p := range paths {
			head.WriteString(byPath[p] + "\n")
		}
		head.WriteString(")\n\n")
	}
	fhead, err := format.Source(head.Bytes())
	if err != nil {
		return nil, false
	}
	// The import block is all in the head, so grouping it there is
	// grouping the file's.
	fhead = groupImports(fhead)
	size := len(fhead)
	for _, c := range chunks {
		size += 1 + len(c.body)
	}
	src := make([]byte, 0, size)
	src = append(src, fhead...)
	for _, c := range chunks {
		if len(c.body) > 0 {
			src = append(append(src, '\n'), c.body...)
		}
	}
	return src, true
}

// importName is the name a jennifer import line gives its package: the
// alias it writes, else the last element of the path that is not a major
// version (the standard library's names, and the runtime's, are theirs).
func importName(line string) string {
	if alias, _, ok := strings.Cut(line, " "); ok {
		return alias
	}
	path := strings.Trim(line, `"`)
	elems := strings.Split(path, "/")
	last := elems[len(elems)-1]
	if len(elems) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = elems[len(elems)-2]
	}
	return last
}
