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
// byte.
func filePartLastByteDropped(f *srcFile) []Site {
	fd := f.runtimeFunc("Multipart", "TypedFile")
	if fd == nil {
		return nil
	}
	var site []Site
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || site != nil || f.text(c.Fun) != "io.Copy" || len(c.Args) != 2 || !strings.HasSuffix(f.text(c.Args[1]), ".Content") {
			return site == nil
		}
		site = []Site{{Func: "Multipart.TypedFile", Desc: "file parts lose their content's last byte", edits: []edit{
			f.replace(c.Args[1], "mutantDropLast("+f.text(c.Args[1])+")"),
			{len(f.src), len(f.src), dropLast},
		}}}
		return false
	})
	return site
}

// uploadReadTwice: a Client method reads the caller's io.Reader body once
// before the read that sends it (to size or check it), so the body sent
// is what is left: nothing, from a reader that cannot rewind.
func uploadReadTwice(f *srcFile) []Site {
	var out []Site
	f.inspect(isClientMethod, func(fd *ast.FuncDecl, stack []ast.Node, n ast.Node) {
		c, ok := n.(*ast.CallExpr)
		if !ok || f.text(c.Fun) != "io.ReadAll" || len(c.Args) != 1 || !readerParam(f, fd, f.text(c.Args[0])) || len(stack) == 0 {
			return
		}
		// The statement that holds the read: the extra read goes before it.
		var stmt ast.Node
		for i := len(stack) - 1; i >= 0 && stmt == nil; i-- {
			if s, ok := stack[i].(ast.Stmt); ok {
				if _, block := s.(*ast.BlockStmt); !block {
					stmt = s
				}
			}
		}
		if stmt == nil {
			return
		}
		out = append(out, Site{Func: funcName(fd), Desc: "the io.Reader body read once before it is sent", edits: []edit{
			f.insert(stmt.Pos(), "_, _ = io.ReadAll("+f.text(c.Args[0])+")\n\t"),
		}})
	})
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
