package conformance

import (
	"go/ast"
	"strings"
)

// Dead code: a mutant in a method of a type that no code an operation
// runs refers to (a schema component no operation uses, say a union whose
// parameter resgen writes as []string) changes nothing any call executes,
// so no oracle can see it: it is equivalent. RunMutants leaves such sites
// out of the sample and the report says how many and why.

// live reports the names of the types and functions the code of the
// client's methods may run: what their signatures and bodies name, the
// types and methods of what those name, and so on (a fixpoint, so a type
// only another live type's method converts to is live too).
func (f *srcFile) live() map[string]bool {
	if f.liveNames != nil {
		return f.liveNames
	}
	funcs := map[string]*ast.FuncDecl{}
	methods := map[string][]*ast.FuncDecl{}
	for _, d := range f.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		if recv := recvType(fd); recv != "" {
			methods[recv] = append(methods[recv], fd)
		} else {
			funcs[fd.Name.Name] = fd
		}
	}
	seen := map[string]bool{}
	var queue []ast.Node
	// Roots: the client's methods and every exported function (NewClient
	// and its options, which build the operations' descriptors).
	for _, d := range f.file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && (recvType(fd) == "Client" || recvType(fd) == "" && fd.Name.IsExported()) {
			queue = append(queue, fd)
			seen[fd.Name.Name] = recvType(fd) == ""
		}
	}
	seen["Client"] = true
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		ast.Inspect(n, func(x ast.Node) bool {
			id, ok := x.(*ast.Ident)
			if !ok || seen[id.Name] {
				return true
			}
			if ts := f.types[id.Name]; ts != nil {
				seen[id.Name] = true
				queue = append(queue, ts.Type)
				for _, m := range methods[id.Name] {
					queue = append(queue, m)
				}
			} else if fd := funcs[id.Name]; fd != nil {
				seen[id.Name] = true
				queue = append(queue, fd)
			}
			return true
		})
	}
	f.liveNames = seen
	return seen
}

// recvType is the name of a method's receiver type ("" for a function).
func recvType(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	t := fd.Recv.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// deadAt reports whether the offset lies in a function or method no live
// code can run (see live); what names it.
func (f *srcFile) deadAt(off int) (what string, dead bool) {
	for _, d := range f.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || off < f.off(fd.Pos()) || off >= f.off(fd.End()) {
			continue
		}
		name := recvType(fd)
		if name == "" {
			name = fd.Name.Name
		}
		if strings.HasPrefix(fd.Name.Name, "init") && name == fd.Name.Name {
			return "", false // init runs whoever calls
		}
		return name, !f.live()[name]
	}
	return "", false
}

// shadowedAt reports whether the offset lies in the arguments of an
// o.Allows(name, ...) call of a function that first returns whenever
// wire.Discriminator(data, name) finds name (an if whose body ends in a
// return): the call then runs only when name is absent, where Allows is
// true whatever the values, or not a JSON string, where it is false
// whatever the (string) values: a literal changed there changes nothing.
func (f *srcFile) shadowedAt(off int) bool {
	var fd *ast.FuncDecl
	for _, d := range f.file.Decls {
		if x, ok := d.(*ast.FuncDecl); ok && x.Body != nil && off >= f.off(x.Pos()) && off < f.off(x.End()) {
			fd = x
		}
	}
	if fd == nil {
		return false
	}
	guarded := map[string]bool{}
	for _, st := range fd.Body.List {
		is, ok := st.(*ast.IfStmt)
		if !ok || is.Init == nil || len(is.Body.List) == 0 {
			continue
		}
		if _, ok := is.Body.List[len(is.Body.List)-1].(*ast.ReturnStmt); !ok {
			continue
		}
		ast.Inspect(is.Init, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok && f.text(c.Fun) == "wire.Discriminator" && len(c.Args) == 2 {
				guarded[f.text(c.Args[1])] = true
			}
			return true
		})
	}
	shadowed := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || shadowed {
			return !shadowed
		}
		sel, ok := c.Fun.(*ast.SelectorExpr)
		if ok && sel.Sel.Name == "Allows" && len(c.Args) >= 2 && guarded[f.text(c.Args[0])] &&
			off >= f.off(c.Args[1].Pos()) && off < f.off(c.End()) {
			shadowed = true
		}
		return true
	})
	return shadowed
}
