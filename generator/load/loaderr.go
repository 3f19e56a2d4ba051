package load

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/diag"
	yaml "go.yaml.in/yaml/v4"
)

// Load errors carry file:line:col and a JSON pointer, like every other
// diagnostic. kin-openapi reports positions of the bytes it decoded, which
// after a repair are a re-encoding of the file, not the file; encoding/json
// (Swagger 2.0) reports none; conversion, $ref and validation errors name
// what failed in words or in typed wrappers. Each is turned into a pointer
// of the document, and the pointer into a position through the node tree,
// which keeps the positions of the file the user wrote.

// swaggerDecodeError is a failure to decode a Swagger 2.0 document (before
// its conversion).
type swaggerDecodeError struct{ err error }

func (e *swaggerDecodeError) Error() string { return e.err.Error() }
func (e *swaggerDecodeError) Unwrap() error { return e.err }

// loadErrors turns a failure to decode, convert or resolve the document
// into diagnostics. root is the (repaired) node tree, data what was decoded.
func (s *Spec) loadErrors(root *yaml.Node, data []byte, err error, g *readGuard) diag.Diagnostics {
	const prefix = "cannot load spec: "
	var lerrs *yaml.LoadErrors
	if errors.As(err, &lerrs) && len(lerrs.Errors) > 0 {
		if ds := s.referencedFileErrors(lerrs, g); ds != nil {
			return ds
		}
		// The marks are positions in data: find their node there, and the
		// node's position in the file through its pointer.
		decoded, _ := parseTree(data)
		var ds diag.Diagnostics
		for _, e := range lerrs.Errors {
			ptr, ok := pointerAt(decoded, e.Mark.Line, e.Mark.Column)
			msg := trimPointer(e.Message)
			if !ok {
				d := s.unplaced(data, err)
				d.Msg = prefix + msg
				ds = append(ds, d)
				continue
			}
			ds = append(ds, s.diagAt(diag.Error, ptr, prefix+msg, ""))
		}
		return ds
	}
	var sde *swaggerDecodeError
	if errors.As(err, &sde) {
		if ptr, ok := narrowSwagger(root, err.Error()); ok {
			return diag.Diagnostics{s.diagAt(diag.Error, ptr, prefix+err.Error(), "")}
		}
	}
	if s.Swagger {
		if ptr, ok := conversionPointer(root, err.Error()); ok {
			return diag.Diagnostics{s.diagAt(diag.Error, ptr, prefix+err.Error(), "")}
		}
	}
	if ptr, ok := refPointer(root, err.Error()); ok {
		d := s.diagAt(diag.Error, ptr, prefix+err.Error(), "")
		if cause, ok := s.externalCause(root, ptr, d, err.Error(), g); ok {
			return diag.Diagnostics{cause}
		}
		return diag.Diagnostics{d}
	}
	return diag.Diagnostics{s.unplaced(data, err)}
}

// unplaced is an error no node was found for: at the line the decoder
// names if it decoded the file as written; a line of the re-encoding would
// point at text that is not in the file.
func (s *Spec) unplaced(data []byte, err error) diag.Diagnostic {
	if bytes.Equal(data, s.src.data) {
		return s.decodeError(data, err)
	}
	return diag.Diagnostic{Severity: diag.Error, File: s.File, Msg: "cannot load spec: " + err.Error()}
}

// referencedFileErrors places the decode errors of a referenced file (one
// a $ref names whole, decoded apart from the spec) in that file; nil when
// the errors are the spec's own.
func (s *Spec) referencedFileErrors(lerrs *yaml.LoadErrors, g *readGuard) diag.Diagnostics {
	g.mu.Lock()
	last := g.last
	data := g.files[siteKey(&url.URL{Path: last})]
	g.mu.Unlock()
	abs, err := filepath.Abs(s.File)
	if last == "" || err != nil || last == filepath.ToSlash(abs) {
		return nil
	}
	file := displayPath(filepath.FromSlash(last))
	decoded, _ := parseTree(data)                 // what the loader decoded
	tree := g.tree(siteKey(&url.URL{Path: last})) // with the file's positions
	var ds diag.Diagnostics
	for _, e := range lerrs.Errors {
		d := diag.Diagnostic{Severity: diag.Error, File: file, Msg: "cannot load spec: " + trimPointer(e.Message)}
		if ptr, ok := pointerAt(decoded, e.Mark.Line, e.Mark.Column); ok {
			d.Pointer = "#" + ptr
			if n := lookupNode(tree, ptr, false); n != nil {
				d.Line, d.Col = n.Line, n.Column
			}
		}
		ds = append(ds, d)
	}
	return ds
}

// trimPointer drops the " in /pointer" kin-openapi appends to a decode
// error: the diagnostic has the pointer.
func trimPointer(msg string) string {
	if i := strings.LastIndex(msg, " in /"); i >= 0 {
		return msg[:i]
	}
	return msg
}

// pointerAt is the pointer of the shallowest node of n that starts at line
// and col, the key's for a mapping entry.
func pointerAt(n *yaml.Node, line, col int) (string, bool) {
	if n == nil || line == 0 {
		return "", false
	}
	if n.Line == line && n.Column == col {
		return "", true
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Line == line && k.Column == col {
				return diag.PointerJoin("", k.Value), true
			}
			if p, ok := pointerAt(v, line, col); ok {
				return diag.PointerJoin("", k.Value) + p, true
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if p, ok := pointerAt(c, line, col); ok {
				return "/" + strconv.Itoa(i) + p, true
			}
		}
	}
	return "", false
}

// narrowSwagger finds what a Swagger 2.0 decode failure (msg) is about:
// the deepest node that, kept alone with its ancestors, still fails to
// decode with msg. encoding/json names neither map keys nor list indices.
// Each step decodes only one child and the path to it, so this costs about
// one decode of the document per level.
func narrowSwagger(root *yaml.Node, msg string) (string, bool) {
	type step struct {
		node *yaml.Node
		key  *yaml.Node // nil in a list
	}
	var path []step
	ptr := ""
	// alone is the document holding only child (with key) below path.
	alone := func(key, child *yaml.Node) *yaml.Node {
		n := child
		for i := len(path); i >= 0; i-- {
			parent := root
			if i > 0 {
				parent = path[i-1].node
			}
			c := *parent
			if key != nil {
				c.Content = []*yaml.Node{key, n}
			} else {
				c.Content = []*yaml.Node{n}
			}
			n = &c
			if i > 0 {
				key = path[i-1].key
			}
		}
		return n
	}
	fails := func(doc *yaml.Node) bool {
		var doc2 openapi2.T
		err := decodeTreeAsJSON(doc, &doc2)
		return err != nil && err.Error() == msg
	}
	cur := root
	for {
		// A node that fails with nothing in it is what is wrong (a list
		// where a bool belongs), not one of its children.
		if len(path) > 0 {
			empty := *cur
			empty.Content = nil
			last := path[len(path)-1]
			path = path[:len(path)-1]
			whole := fails(alone(last.key, &empty))
			path = append(path, last)
			if whole {
				return ptr, true
			}
		}
		found := false
		switch cur.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(cur.Content) && !found; i += 2 {
				k, v := cur.Content[i], cur.Content[i+1]
				if fails(alone(k, v)) {
					path = append(path, step{v, k})
					ptr = diag.PointerJoin(ptr, k.Value)
					cur, found = v, true
				}
			}
		case yaml.SequenceNode:
			for i, c := range cur.Content {
				if fails(alone(nil, c)) {
					path = append(path, step{c, nil})
					ptr += "/" + strconv.Itoa(i)
					cur, found = c, true
					break
				}
			}
		}
		if !found {
			return ptr, ptr != ""
		}
	}
}

// conversionPointer finds what a Swagger 2.0 conversion error is about;
// the converter's messages name no place.
func conversionPointer(root *yaml.Node, msg string) (string, bool) {
	switch {
	case strings.HasPrefix(msg, "invalid host "):
		return "/host", true
	case strings.HasPrefix(msg, "unsupported flow "):
		flow, _ := strconv.Unquote(strings.TrimPrefix(msg, "unsupported flow "))
		defs := MapValue(root, "securityDefinitions")
		for i := 0; defs != nil && defs.Kind == yaml.MappingNode && i+1 < len(defs.Content); i += 2 {
			if f := MapValue(defs.Content[i+1], "flow"); f != nil && f.Value == flow {
				return diag.PointerJoin("/securityDefinitions", defs.Content[i].Value, "flow"), true
			}
		}
	case msg == "multiple body parameters cannot exist for the same operation":
		// The second body parameter of the first operation with two.
		return findParameter(root, func(ins []string, i int) bool {
			n := 0
			for _, in := range ins[:i+1] {
				if in == "body" {
					n++
				}
			}
			return ins[i] == "body" && n == 2
		})
	case msg == "body and form parameters cannot exist together for the same operation":
		// The first form parameter of the first operation with a body.
		return findParameter(root, func(ins []string, i int) bool {
			return ins[i] == "formData" && slices.Contains(ins, "body")
		})
	}
	return "", false
}

// findParameter is the pointer of the first operation parameter, in
// document order, for which match (given the in of each of the operation's
// parameters) holds.
func findParameter(root *yaml.Node, match func(ins []string, i int) bool) (string, bool) {
	paths := MapValue(root, "paths")
	for i := 0; paths != nil && paths.Kind == yaml.MappingNode && i+1 < len(paths.Content); i += 2 {
		item := paths.Content[i+1]
		for j := 0; item.Kind == yaml.MappingNode && j+1 < len(item.Content); j += 2 {
			if !OperationKeys[item.Content[j].Value] {
				continue
			}
			params := MapValue(item.Content[j+1], "parameters")
			if params == nil || params.Kind != yaml.SequenceNode {
				continue
			}
			ins := make([]string, len(params.Content))
			for k, p := range params.Content {
				if in := MapValue(p, "in"); in != nil {
					ins[k] = in.Value
				}
			}
			for k := range ins {
				if match(ins, k) {
					return diag.PointerJoin("/paths", paths.Content[i].Value, item.Content[j].Value, "parameters", strconv.Itoa(k)), true
				}
			}
		}
	}
	return "", false
}

var quoted = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)

// refPointer finds the $ref a loader error quotes: the first written as
// quoted, else the first that ends with the quoted fragment (the loader
// quotes a fragment of another file without the file).
func refPointer(root *yaml.Node, msg string) (string, bool) {
	for _, m := range quoted.FindAllStringSubmatch(msg, -1) {
		q, err := strconv.Unquote(`"` + m[1] + `"`)
		if err != nil || q == "" {
			continue
		}
		if p, ok := findRef(root, "", func(ref string) bool { return ref == q }); ok {
			return p, true
		}
		if strings.HasPrefix(q, "#/") {
			if p, ok := findRef(root, "", func(ref string) bool { return strings.HasSuffix(ref, q) }); ok {
				return p, true
			}
		}
	}
	return "", false
}

// findRef is the pointer of the first $ref below n (at ptr), in document
// order, whose value matches; a discriminator's mapping values are $refs
// too.
func findRef(n *yaml.Node, ptr string, match func(string) bool) (string, bool) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "$ref" && v.Kind == yaml.ScalarNode && match(v.Value) {
				return diag.PointerJoin(ptr, "$ref"), true
			}
			if k.Value == "mapping" && v.Kind == yaml.MappingNode {
				for j := 0; j+1 < len(v.Content); j += 2 {
					if v.Content[j+1].Kind == yaml.ScalarNode && match(v.Content[j+1].Value) {
						return diag.PointerJoin(ptr, "mapping", v.Content[j].Value), true
					}
				}
			}
			if p, ok := findRef(v, diag.PointerJoin(ptr, k.Value), match); ok {
				return p, true
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if p, ok := findRef(c, ptr+"/"+strconv.Itoa(i), match); ok {
				return p, true
			}
		}
	}
	return "", false
}

var badData = regexp.MustCompile(`bad data in "(?:[^"\\]|\\.)*" \(expecting ([a-zA-Z ]+)\)`)

// refTargets are the types the loader decodes a $ref's target into, by
// the name its "bad data" error gives them.
var refTargets = map[string]func() any{
	"ref to schema object": func() any { return new(openapi3.SchemaRef) }, "ref to parameter object": func() any { return new(openapi3.ParameterRef) },
	"ref to response object": func() any { return new(openapi3.ResponseRef) }, "ref to requestBody object": func() any { return new(openapi3.RequestBodyRef) },
	"ref to header object": func() any { return new(openapi3.HeaderRef) }, "ref to example object": func() any { return new(openapi3.ExampleRef) },
	"ref to link object": func() any { return new(openapi3.LinkRef) }, "ref to securityScheme object": func() any { return new(openapi3.SecuritySchemeRef) },
	"ref to callback object": func() any { return new(openapi3.CallbackRef) }, "callback object": func() any { return new(openapi3.Callback) },
	"pathItem object": func() any { return new(openapi3.PathItem) },
}

// externalCause finds why the target of the $ref at refPtr (a fragment of
// another file) does not decode, which the loader's "bad data in" error
// does not say: the target is decoded again from that file's node tree, so
// the error has the file's own line. at is the error at the $ref.
func (s *Spec) externalCause(root *yaml.Node, refPtr string, at diag.Diagnostic, msg string, g *readGuard) (diag.Diagnostic, bool) {
	m := badData.FindStringSubmatch(msg)
	ref := lookupNode(root, refPtr, true)
	if m == nil || refTargets[m[1]] == nil || ref == nil {
		return diag.Diagnostic{}, false
	}
	file, frag, _ := strings.Cut(ref.Value, "#")
	if file == "" || strings.Contains(file, "://") {
		return diag.Diagnostic{}, false
	}
	abs, err := filepath.Abs(filepath.Join(filepath.Dir(s.File), filepath.FromSlash(file)))
	if err != nil {
		return diag.Diagnostic{}, false
	}
	target := lookupNode(g.tree(siteKey(&url.URL{Path: filepath.ToSlash(abs)})), frag, true)
	if target == nil {
		return diag.Diagnostic{}, false
	}
	var lerrs *yaml.LoadErrors
	if err := target.Decode(refTargets[m[1]]()); !errors.As(err, &lerrs) || len(lerrs.Errors) == 0 {
		return diag.Diagnostic{}, false
	}
	e := lerrs.Errors[0]
	line, col := e.Mark.Line, e.Mark.Column
	sub, _ := pointerAt(target, line, col)
	if n := lookupNode(target, sub, false); n != nil {
		line, col = n.Line, n.Column // the key, as elsewhere
	}
	return diag.Diagnostic{Severity: diag.Error, File: displayPath(abs), Line: line, Col: col, Pointer: "#" + frag + sub,
		Msg:  "cannot load spec: " + trimPointer(e.Message),
		Hint: fmt.Sprintf("read through the $ref at %s:%d:%d", at.File, at.Line, at.Col)}, true
}

// componentKeys are the component sections, by the singular kin-openapi's
// validation errors name them with.
var componentKeys = map[string]string{
	"schema": "schemas", "parameter": "parameters", "header": "headers", "request body": "requestBodies",
	"response": "responses", "security scheme": "securitySchemes", "example": "examples", "link": "links",
	"callback": "callbacks", "path item": "pathItems",
}

// validationPointer is the pointer of what a validation error is about, as
// far as its typed context wrappers tell, in the document as written (for
// Swagger 2.0, the section the converted one came from).
func (s *Spec) validationPointer(err error) string {
	ptr := ""
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch w := e.(type) {
		case *openapi3.SectionValidationError:
			ptr = diag.PointerJoin("", w.Section)
		case *openapi3.PathValidationError:
			ptr = diag.PointerJoin("/paths", w.Path)
		case *openapi3.RequiredFieldError:
			// Field is dotted, relative to the document for these only.
			if w.Field == "openapi" || strings.HasPrefix(w.Field, "info.") {
				ptr = "/" + strings.ReplaceAll(w.Field, ".", "/")
			}
		case *openapi3.PathParametersError:
			ptr = diag.PointerJoin("/paths", w.Path)
			if w.Method != "" {
				ptr = diag.PointerJoin(ptr, strings.ToLower(w.Method))
			}
		case *openapi3.ConflictingPathsError:
			ptr = diag.PointerJoin("/paths", w.Path2) // the later of the two
		case *openapi3.OperationValidationError:
			ptr = diag.PointerJoin(ptr, strings.ToLower(w.Method))
		case *openapi3.WebhookValidationError:
			ptr = diag.PointerJoin("/webhooks", w.Name)
		case *openapi3.ComponentValidationError:
			if key, ok := componentKeys[w.Section]; ok {
				ptr = diag.PointerJoin("/components", key, w.Name)
			}
		case *openapi3.ParameterFieldValidationError:
			if params := s.src.lookup(ptr+"/parameters", true); params != nil && params.Kind == yaml.SequenceNode {
				for i, p := range params.Content {
					if n := MapValue(p, "name"); n != nil && n.Value == w.ParameterName {
						ptr = diag.PointerJoin(ptr, "parameters", strconv.Itoa(i), w.Field)
						break
					}
				}
			}
		}
	}
	if s.Swagger {
		for v3, v2 := range map[string]string{"/components/schemas/": "/definitions/", "/components/parameters/": "/parameters/",
			"/components/requestBodies/": "/parameters/", "/components/responses/": "/responses/", "/components/securitySchemes/": "/securityDefinitions/"} {
			if strings.HasPrefix(ptr, v3) {
				ptr = v2 + ptr[len(v3):]
			}
		}
	}
	return ptr
}

// reusableSections are where a document keeps entries used only through
// a $ref: an entry no $ref names is not part of any operation.
var reusableSections = []string{"/parameters/", "/responses/", "/definitions/",
	"/components/schemas/", "/components/parameters/", "/components/responses/", "/components/requestBodies/",
	"/components/headers/", "/components/examples/", "/components/links/", "/components/callbacks/", "/components/pathItems/"}

// skipUnused removes from root the reusable entries that the errors ds are
// about and that no $ref of the spec uses, and returns a warning for each;
// nil when there is none. What a broken entry that is used breaks stays an
// error.
func (s *Spec) skipUnused(root *yaml.Node, ds diag.Diagnostics) diag.Diagnostics {
	var warnings diag.Diagnostics
	for _, d := range ds {
		if d.File != s.File {
			continue // a pointer into another file
		}
		ptr := strings.TrimPrefix(d.Pointer, "#")
		for _, sec := range reusableSections {
			if strings.HasPrefix(sec, "/components/") == s.Swagger || !strings.HasPrefix(ptr, sec) {
				continue
			}
			name, _, _ := strings.Cut(ptr[len(sec):], "/")
			entry := sec + name
			if _, used := findRef(root, "", func(ref string) bool {
				_, frag, _ := strings.Cut(ref, "#")
				return frag == entry || strings.HasPrefix(frag, entry+"/")
			}); used {
				continue
			}
			parent := lookupNode(root, sec[:len(sec)-1], true)
			if !removeKey(parent, unescape(name)) {
				continue
			}
			w := d
			w.Severity = diag.Warning
			w.Msg = strings.TrimPrefix(d.Msg, "cannot load spec: ")
			w.Msg = strings.Trim(sec, "/") + " entry " + strconv.Quote(unescape(name)) + " is skipped: no $ref uses it, and it cannot be read: " + w.Msg
			w.Hint = "fix the entry, or delete it"
			warnings = append(warnings, w)
		}
	}
	return warnings
}

func unescape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// removeKey removes key from the mapping m, reporting whether it was there.
func removeKey(m *yaml.Node, key string) bool {
	for i := 0; m != nil && m.Kind == yaml.MappingNode && i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i:i], m.Content[i+2:]...)
			return true
		}
	}
	return false
}
