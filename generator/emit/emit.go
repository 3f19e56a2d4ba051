// Package emit prints a model.File as Go source with jennifer. It decides
// nothing: every name comes from the model, or is one of the printer's own
// in model/reserved.go, and spec text only ever enters the output through
// jen.Lit or through comment lines it sanitised. It takes a *model.File and
// gives gofmt'd files (Render); it imports no earlier stage but model.
package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dave/jennifer/jen"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/internal/sanitize"
	"github.com/resgen/resgen/runtime"
)

const runtimePkg = "github.com/resgen/resgen/runtime"

// wirePkg is what only generated code calls: parameter styles, bodies,
// union JSON (runtime/wire).
const wirePkg = runtimePkg + "/wire"

// implPkg is the engine only generated code calls: the client's engine,
// its operations and each method's call (runtime/impl).
const implPkg = runtimePkg + "/impl"

// emitter prints one file.
type emitter struct {
	m *model.File
}

// Output is one generated Go file: Name is "" for the single-file layout
// (the CLI's -o), or a file name in the output folder when split.
type Output struct {
	Name   string
	Source []byte
}

// Split layouts: one file, or several by kind or by tag.
const (
	SplitNone = ""
	SplitKind = "kind" // types.gen.go, client.gen.go, operations.gen.go
	SplitTag  = "tag"  // types.gen.go, client.gen.go, <tag>.gen.go per tag
)

// FormatError says resgen built Go code that gofmt cannot parse: a resgen
// bug. Source is kept apart from the message, so the message stays short
// and the caller decides where the source goes.
type FormatError struct {
	File   string // the output file's name ("" in the one-file layout)
	Err    error  // gofmt's error
	Source []byte // the unformatted source
}

func (e *FormatError) Error() string {
	return "the generated code does not parse: " + sanitize.Terminal(firstLine(e.Err.Error()))
}

func (e *FormatError) Unwrap() error { return e.Err }

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// groupImports puts the standard library's imports first and the others
// (the runtime) in a group of their own, as goimports does; jennifer writes
// one block. The result is still gofmt'd: gofmt sorts within groups.
func groupImports(src []byte) []byte {
	start := bytes.Index(src, []byte("\nimport (\n"))
	if start < 0 {
		return src
	}
	start += len("\nimport (\n")
	end := bytes.Index(src[start:], []byte("\n)\n"))
	if end < 0 {
		return src
	}
	end += start + 1
	var std, other [][]byte
	for _, line := range bytes.Split(bytes.TrimRight(src[start:end], "\n"), []byte("\n")) {
		// `"path"` or `alias "path"`: the path is between the quotes.
		path := line[bytes.IndexByte(line, '"')+1:]
		path = path[:max(bytes.IndexByte(path, '"'), 0)]
		first, _, _ := bytes.Cut(path, []byte("/"))
		if bytes.ContainsRune(first, '.') {
			other = append(other, line)
		} else {
			std = append(std, line)
		}
	}
	if len(std) == 0 || len(other) == 0 {
		return src
	}
	var b bytes.Buffer
	b.Write(src[:start])
	b.Write(bytes.Join(std, []byte("\n")))
	b.WriteString("\n\n")
	b.Write(bytes.Join(other, []byte("\n")))
	b.WriteString("\n")
	b.Write(src[end:])
	return b.Bytes()
}

// fileNames maps tags to distinct file names: lower case letters, digits
// and underscores, then .gen.go; the same tag always gets the same name.
type fileNames struct {
	byTag map[string]string
	taken map[string]bool
}

func newFileNames(reserved ...string) *fileNames {
	n := &fileNames{byTag: map[string]string{}, taken: map[string]bool{}}
	for _, r := range reserved {
		n.taken[r] = true
	}
	return n
}

func (n *fileNames) name(tag string) string {
	if f, ok := n.byTag[tag]; ok {
		return f
	}
	var b strings.Builder
	for _, c := range strings.ToLower(tag) {
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b.WriteRune(c)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	base := strings.Trim(b.String(), "_")
	if base == "" {
		base = "untagged"
	}
	// The prefix keeps tag files apart from types.gen.go and client.gen.go.
	base = "ops_" + base
	f := base + ".gen.go"
	for i := 2; n.taken[f]; i++ {
		f = fmt.Sprintf("%s_%d.gen.go", base, i)
	}
	n.taken[f] = true
	n.byTag[tag] = f
	return f
}

// comment adds doc lines. It is where all text reaches a generated
// comment: every line is sanitised (no control character, line separator,
// bidirectional control or byte order mark) and written as a // line, so
// no spec text can open or end a block comment, or show a reviewer
// something other than what is there. Lines are wrapped under 100
// columns (wrapDoc); a Group's comments are struct field docs, one tab in.
func comment(g interface{ Comment(string) *jen.Statement }, lines []string) {
	indent := 0
	if _, field := g.(*jen.Group); field {
		indent = tabWidth
	}
	clean := make([]string, len(lines))
	for i, l := range lines {
		clean[i] = sanitize.Comment(l)
	}
	for _, l := range wrapDoc(clean, indent) {
		if l == "" {
			g.Comment("//")
		} else {
			g.Comment("// " + l)
		}
	}
}

// typeWidth is how many columns typeExpr(t) takes when gofmt prints it
// alone (a package named as jennifer names it then: its path's last
// element, for the packages model types come from). noteRoom runs for
// every field, so it counts rather than prints.
func typeWidth(t *model.GoType) int {
	switch t.Kind {
	case model.Named:
		return len(t.Name)
	case model.Qual:
		n := len(t.Pkg) - strings.LastIndexByte(t.Pkg, '/') + len(t.Name)
		if t.Elem != nil {
			n += len("[]") + typeWidth(t.Elem)
		}
		return n
	case model.Slice:
		return len("[]") + typeWidth(t.Elem)
	case model.Map:
		if t.Name != "" {
			return len(t.Pkg) - strings.LastIndexByte(t.Pkg, '/') + len(t.Name)
		}
		return len("map[string]") + typeWidth(t.Elem)
	case model.Pointer:
		return len("*") + typeWidth(t.Elem)
	}
	return len(t.Name) // string, []byte, any, ...
}

// isNullable reports whether t is runtime.Nullable[...], an optional
// property that may be null.
func isNullable(t *model.GoType) bool {
	return t.Kind == model.Qual && t.Pkg == runtimePkg && t.Name == "Nullable"
}

// typeExpr is the one place model types become Go type expressions.
func typeExpr(t *model.GoType) *jen.Statement {
	switch t.Kind {
	case model.Named:
		return jen.Id(t.Name)
	case model.Qual:
		if t.Elem != nil {
			return jen.Qual(t.Pkg, t.Name).Types(typeExpr(t.Elem))
		}
		return jen.Qual(t.Pkg, t.Name)
	case model.Slice:
		return jen.Index().Add(typeExpr(t.Elem))
	case model.Map:
		if t.Name != "" {
			return jen.Qual(t.Pkg, t.Name)
		}
		return jen.Map(jen.String()).Add(typeExpr(t.Elem))
	case model.Pointer:
		return jen.Op("*").Add(typeExpr(t.Elem))
	}
	switch t.Name {
	case "[]byte":
		return jen.Index().Byte()
	case "any":
		return jen.Any()
	}
	return jen.Id(t.Name)
}

func (e *emitter) emitType(f *jen.File, t *model.Type) {
	// The schema's own title and description, or nothing: a line saying
	// only that a type is a schema tells a reviewer nothing.
	doc := append([]string(nil), t.Doc...)
	if t.Kind == model.Union {
		doc = []string{unionDoc(t)}
		if len(t.Doc) > 0 {
			doc = append(append(doc, ""), t.Doc...)
		}
	}
	if t.Deprecated {
		if len(doc) > 0 {
			doc = append(doc, "")
		}
		doc = append(doc, "Deprecated: the spec marks this schema as deprecated.")
	}
	comment(f, doc)
	if len(doc) == 0 {
		f.Line() // a blank line between declarations, as a comment would begin one
	}
	switch t.Kind {
	case model.Union:
		e.emitUnion(f, t)
		if t.ParamText {
			e.emitParamText(f, t)
		}
	case model.Struct:
		/* type T struct { Field Type `json:"name,omitempty"` } */
		f.Type().Id(t.Name).StructFunc(func(g *jen.Group) {
			for _, fl := range t.Fields {
				comment(g, fl.Doc)
				g.Id(fl.Name).Add(typeExpr(fl.Type)).Tag(map[string]string{"json": fieldTag(fl)})
			}
			if t.Extra != nil {
				comment(g, []string{"AdditionalProperties holds the properties the schema does not name."})
				g.Id("AdditionalProperties").Map(jen.String()).Add(typeExpr(t.Extra)).Tag(map[string]string{"json": "-"})
			}
		})
		switch {
		case t.Extra != nil || hasWireNames(t):
			e.emitCustomJSON(f, t)
		case len(emptyNotNull(t)) > 0:
			emitEmptyNotNull(f, t)
		}
	case model.Defined:
		decl := f.Type().Id(t.Name)
		if t.Alias {
			decl.Op("=")
		}
		decl.Add(typeExpr(t.Underlying))
	case model.Enum:
		f.Type().Id(t.Name).Add(typeExpr(t.Underlying))
		if len(t.Values) == 0 {
			return
		}
		comment(f, []string{"Values of " + t.Name + " the spec lists. A server may send others; they decode too."})
		f.Const().DefsFunc(func(g *jen.Group) {
			for _, v := range t.Values {
				g.Id(v.Name).Id(t.Name).Op("=").Add(enumLit(v.Value))
			}
		})
		if t.Only {
			emitOnlyValue(f, t)
		}
	}
}

// emitOnlyValue prints the MarshalJSON of an enum whose one value is all
// the spec allows: the zero value (a tag the caller left empty) is
// written as that value, and any other value is an error rather than a
// request the spec forbids. Decoding is encoding/json's, so what a server
// sends decodes as it is.
func emitOnlyValue(f *jen.File, t *model.Type) {
	if t.Underlying.Kind != model.Builtin || t.Underlying.Name == "any" || t.Underlying.Name == "[]byte" {
		return
	}
	text, err := json.Marshal(t.Values[0].Value)
	if err != nil {
		return
	}
	zero := jen.Lit(0)
	switch t.Underlying.Name {
	case "string":
		zero = jen.Lit("")
	case "bool":
		zero = jen.False()
	}
	cond := jen.Id("v").Op("!=").Id(t.Values[0].Name)
	if !isZero(t.Values[0].Value) {
		cond = cond.Op("&&").Id("v").Op("!=").Add(zero)
	}
	comment(f, []string{"MarshalJSON writes " + string(text) + " (the zero value too); the spec allows no other."})
	f.Func().Params(jen.Id("v").Id(t.Name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.If(cond).Block(jen.Return(jen.Nil(), jen.Qual(wirePkg, "OnlyValueError").Call(jen.Lit(t.Name), jsonText(string(text)), jen.Id("v")))),
		jen.Return(jen.Index().Byte().Parens(jsonText(string(text))), jen.Nil()),
	)
}

func isZero(v any) bool {
	switch x := v.(type) {
	case string:
		return x == ""
	case bool:
		return !x
	case int64:
		return x == 0
	case uint64:
		return x == 0
	case float64:
		return x == 0
	}
	return false
}

func enumLit(v any) *jen.Statement {
	switch x := v.(type) {
	case string:
		return jen.Lit(x)
	case bool:
		return jen.Lit(x)
	case int64:
		// An untyped constant: int64(3) would not convert to the enum type.
		return jen.Op(strconv.FormatInt(x, 10))
	case uint64:
		return jen.Op(strconv.FormatUint(x, 10))
	case float64:
		return jen.Lit(x)
	}
	return jen.Lit(fmt.Sprint(v))
}

// durExpr prints a duration as a reviewer writes it: 10 * time.Second.
func durExpr(d time.Duration) *jen.Statement {
	if d == 0 {
		return jen.Lit(0)
	}
	units := []struct {
		d    time.Duration
		name string
	}{{time.Hour, "Hour"}, {time.Minute, "Minute"}, {time.Second, "Second"}, {time.Millisecond, "Millisecond"}, {time.Microsecond, "Microsecond"}}
	for _, u := range units {
		if d%u.d == 0 {
			n := int64(d / u.d)
			if n == 1 {
				return jen.Qual("time", u.name)
			}
			return jen.Lit(int(n)).Op("*").Qual("time", u.name)
		}
	}
	return jen.Qual("time", "Duration").Call(jen.Lit(int64(d)))
}

// matchExpr prints an outcome set as a runtime.Match literal.
func matchExpr(m runtime.Match) *jen.Statement {
	return jen.Qual(runtimePkg, "Match").ValuesFunc(func(g *jen.Group) {
		if m.Transport {
			g.Id("Transport").Op(":").True()
		}
		if m.Timeout {
			g.Id("Timeout").Op(":").True()
		}
		for _, l := range []struct {
			name string
			list []int
		}{{"Codes", m.Codes}, {"Classes", m.Classes}} {
			if len(l.list) > 0 {
				items := make([]jen.Code, len(l.list))
				for i, n := range l.list {
					items[i] = jen.Lit(n)
				}
				g.Id(l.name).Op(":").Index().Int().Values(items...)
			}
		}
	})
}

// kv is one field of a composite literal.
type kv struct {
	key string
	val jen.Code // nil: field left out
}

// literal prints T{k: v, ...} with one field per line, in the order given
// (jen.Dict sorts keys; reviewers read policies in the contract's order).
func literal(t *jen.Statement, fields ...kv) *jen.Statement {
	var items []jen.Code
	for _, f := range fields {
		if f.val != nil {
			items = append(items, jen.Id(f.key).Op(":").Add(f.val))
		}
	}
	return t.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, items...)
}
