package conformance

import (
	"bytes"
	"go/ast"
	"strings"
)

// Mutants of the bodies that go as bytes (downloads, uploads, file parts):
// each changes the bytes a caller gets or sends by one, or reads a body
// twice, which only a byte-exact comparison sees.

// dropLast is the helper a mutant appends to the file it edits: rc (or r)
// without its last byte. strings, not bytes: the runtime files import it.
const dropLast = `

// Planted by a conformance mutant: the body loses its last byte.
type mutantShortBody struct {
	io.Reader
	io.Closer
}

func mutantDropLast(r io.Reader) io.Reader {
	data, err := io.ReadAll(r)
	if err != nil || len(data) == 0 {
		return strings.NewReader(string(data))
	}
	return strings.NewReader(string(data[:len(data)-1]))
}

func mutantDropLastRC(rc io.ReadCloser) io.ReadCloser {
	return mutantShortBody{mutantDropLast(rc), rc}
}
`

// downloadLastByteDropped: the Stream field handed to the caller loses
// the body's last byte (a reader that trims a trailing newline, an
// off-by-one in a buffered copy).
func downloadLastByteDropped(f *srcFile) []Site {
	fd := f.runtimeFunc("operation", "decode")
	if fd == nil {
		return nil
	}
	var site []Site
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || site != nil || f.text(c.Fun) != "reflect.ValueOf" || len(c.Args) != 1 || f.text(c.Args[0]) != "resp.Body" {
			return site == nil
		}
		site = []Site{{Func: "operation.decode", Desc: "a download's Stream loses its last byte", edits: []edit{
			f.replace(c.Args[0], "io.ReadCloser(mutantDropLastRC(resp.Body))"),
			{len(f.src), len(f.src), dropLast},
		}}}
		return false
	})
	return site
}

// filePartLastByteDropped: a multipart file part loses its content's last
// byte (where TypedFile copies or notes f.Content).
func filePartLastByteDropped(f *srcFile) []Site {
	fd := f.runtimeFunc("Multipart", "TypedFile")
	if fd == nil {
		return nil
	}
	var site []Site
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		var content ast.Expr
		switch x := n.(type) {
		case *ast.CallExpr:
			if f.text(x.Fun) == "io.Copy" && len(x.Args) == 2 {
				content = x.Args[1]
			}
		case *ast.KeyValueExpr:
			if f.text(x.Key) == "Content" {
				content = x.Value
			}
		}
		if content == nil || site != nil || !strings.HasSuffix(f.text(content), ".Content") {
			return site == nil
		}
		site = []Site{{Func: "Multipart.TypedFile", Desc: "file parts lose their content's last byte", edits: []edit{
			f.replace(content, "mutantDropLast("+f.text(content)+")"),
			{len(f.src), len(f.src), dropLast},
		}}}
		return false
	})
	return site
}

// uploadReadTwice: a Client method reads the caller's io.Reader body once
// before the statement that sends it (to size or check it), so the body
// sent is what is left: nothing, from a reader that cannot rewind.
func uploadReadTwice(f *srcFile) []Site {
	var out []Site
	for _, d := range f.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || !isClientMethod(fd) {
			continue
		}
		var site *Site
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || site != nil || len(as.Rhs) != 1 {
				return site == nil
			}
			// req.Upload = body, or raw, err := io.ReadAll(body).
			arg := f.text(as.Rhs[0])
			if c, ok := as.Rhs[0].(*ast.CallExpr); ok && f.text(c.Fun) == "io.ReadAll" && len(c.Args) == 1 {
				arg = f.text(c.Args[0])
			}
			if readerParam(f, fd, arg) {
				site = &Site{Func: funcName(fd), Desc: "the io.Reader body read once before it is sent", edits: []edit{
					f.insert(as.Pos(), "_, _ = io.ReadAll("+arg+")\n\t"),
				}}
			}
			return site == nil
		})
		if site != nil {
			out = append(out, *site)
		}
	}
	return out
}

// readerParam reports whether name is a parameter of fd of type io.Reader.
func readerParam(f *srcFile, fd *ast.FuncDecl, name string) bool {
	for _, p := range fd.Type.Params.List {
		for _, id := range p.Names {
			if id.Name == name && f.text(p.Type) == "io.Reader" {
				return true
			}
		}
	}
	return false
}

// streamsDownloads reports whether a generated client has a download (a
// Stream field) for the runtime mutants of downloads to change.
func streamsDownloads(f *srcFile) bool { return bytes.Contains(f.src, []byte(`,stream"`)) }

// sseIDDropped: SSE id fields are read but not given to the caller.
func sseIDDropped(f *srcFile) []Site {
	fd := f.runtimeFunc("sseParser", "next")
	if fd == nil {
		return nil
	}
	var site []Site
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || site != nil || len(as.Lhs) == 0 || len(as.Rhs) != len(as.Lhs) || f.text(as.Lhs[0]) != "ev.id" {
			return site == nil
		}
		site = []Site{{Func: "sseParser.next", Desc: "SSE id fields dropped", edits: []edit{f.replace(as.Rhs[0], `""`)}}}
		return false
	})
	return site
}

// sseDataLinesJoined: the data lines of one SSE event joined with a space
// instead of a line feed.
func sseDataLinesJoined(f *srcFile) []Site {
	fd := f.runtimeFunc("sseParser", "next")
	if fd == nil {
		return nil
	}
	var site []Site
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		cc, ok := n.(*ast.CaseClause)
		if !ok || site != nil || len(cc.List) != 1 || f.text(cc.List[0]) != `"data"` {
			return site == nil
		}
		ast.Inspect(cc, func(m ast.Node) bool {
			if lit, ok := m.(*ast.BasicLit); ok && lit.Value == `'\n'` && site == nil {
				site = []Site{{Func: "sseParser.next", Desc: "SSE data lines joined with a space", edits: []edit{f.replace(lit, `' '`)}}}
			}
			return site == nil
		})
		return false
	})
	return site
}

// jsonlLastLineDropped: a JSON-lines body's last line is lost when it
// lacks its line end.
func jsonlLastLineDropped(f *srcFile) []Site {
	fd := f.runtimeFunc("", "nextLine")
	if fd == nil {
		return nil
	}
	var site []Site
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		is, ok := n.(*ast.IfStmt)
		if !ok || site != nil || f.text(is.Cond) != "err == io.EOF" || len(is.Body.List) != 1 {
			return site == nil
		}
		site = []Site{{Func: "nextLine", Desc: "a last JSON line without its line end dropped", edits: []edit{f.replace(is.Body.List[0], "return nil, io.EOF")}}}
		return false
	})
	return site
}

// streamsEvents reports whether a generated client reads event streams.
func streamsEvents(f *srcFile) bool {
	return bytes.Contains(f.src, []byte(`,sse"`)) || bytes.Contains(f.src, []byte(`,jsonl"`))
}
