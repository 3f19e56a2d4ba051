// Package load is the first stage: it takes the spec's bytes (and the
// overlays') and gives a *Spec, the OpenAPI 3 document kin-openapi loaded
// with the node tree positions come from. On the way: the read guard
// (which files $refs may read, and how much), the tree checks, $ref
// checks and inlining, OpenAPI Overlays (JSONPath in generator/jsonpath),
// the decode repairs real specs need, Swagger 2.0 conversion, and every
// load error placed at its file:line:col. Later stages place their
// diagnostics with Diag (a pointer of the root document; for Swagger 2.0,
// the converted document's pointer is mapped back, swaggerpos.go) and
// DiagIn (a pointer of a file a $ref read, indexed on first use).
// Validation is a separate step, Validate. It knows nothing of
// x-resilience (generator/policy) or of Go.
package load

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/model"
	yaml "go.yaml.in/yaml/v4"
)

// spec is a loaded, resolved OpenAPI 3 document with what is needed to
// point back into the file the user wrote.
type Spec struct {
	Doc     *openapi3.T
	File    string // path as given, for diagnostics
	src     *srcMap
	Swagger bool // converted from Swagger 2.0: positions are approximate
	// decodedTree is set when Doc was decoded from src's tree (decodeTree)
	// rather than by kin-openapi parsing the bytes again.
	decodedTree bool

	// root is the root document's absolute, slash-separated path, the
	// base its $refs resolve against; g holds the files they read, whose
	// position indexes ext holds, each built on the first warning in it.
	root  string
	g     *readGuard
	extMu sync.Mutex
	ext   map[string]*srcMap
}

// diag builds a diagnostic at a JSON pointer of the root document.
// For a Swagger 2.0 spec, ptr may be a pointer of the converted document
// (see swaggerPointer).
func (s *Spec) Diag(sev diag.Severity, ptr, msg, hint string) diag.Diagnostic {
	return s.diagAt(sev, s.swaggerPointer(ptr), msg, hint)
}

// diagAt is Diag at a pointer of the document as written (for Swagger 2.0,
// the 2.0 one): what load finds in the node tree.
func (s *Spec) diagAt(sev diag.Severity, ptr, msg, hint string) diag.Diagnostic {
	d := diag.Diagnostic{Severity: sev, Pointer: "#" + ptr, Msg: msg, Hint: hint}
	d.File, d.Line, d.Col = s.src.pos(ptr)
	return d
}

// Root is the root document's absolute, slash-separated path: what a $ref
// written in it resolves against, and what PosIn takes for it.
func (s *Spec) Root() string { return s.root }

// DiagIn is Diag at a pointer of the file at the absolute, slash-separated
// path file: the root document (Root) or a file one of its $refs read.
func (s *Spec) DiagIn(sev diag.Severity, file, ptr, msg, hint string) diag.Diagnostic {
	if file == "" || file == s.root {
		return s.Diag(sev, ptr, msg, hint)
	}
	d := diag.Diagnostic{Severity: sev, Pointer: "#" + ptr, Msg: msg, Hint: hint}
	d.File, d.Line, d.Col = s.extMap(file).pos(ptr)
	return d
}

// PosIn is Pos in the file at file, as DiagIn places it.
func (s *Spec) PosIn(file, ptr string) model.Pos {
	d := s.DiagIn(diag.Warning, file, ptr, "", "")
	return model.Pos{File: d.File, Line: d.Line, Col: d.Col}
}

// extMap is the position index of a referenced file, built on first use
// from the tree the read guard keeps (the file as written); a file that
// was not read has an index with no nodes, which names the file only.
func (s *Spec) extMap(file string) *srcMap {
	s.extMu.Lock()
	defer s.extMu.Unlock()
	if m, ok := s.ext[file]; ok {
		return m
	}
	m := &srcMap{file: displayPath(filepath.FromSlash(file)), parsed: true}
	if s.g != nil {
		m.root = s.g.tree(siteKey(&url.URL{Path: file}))
	}
	if s.ext == nil {
		s.ext = map[string]*srcMap{}
	}
	s.ext[file] = m
	return m
}

// NodeDiag builds a diagnostic at a node of the root document or of an
// overlay.
func (s *Spec) NodeDiag(sev diag.Severity, n *yaml.Node, msg, hint string) diag.Diagnostic {
	file := s.File
	if f, ok := s.src.from[n]; ok {
		file = f
	}
	return diag.Diagnostic{Severity: sev, File: file, Line: n.Line, Col: n.Column, Msg: msg, Hint: hint}
}

// Load reads the spec (data, as read from path) and applies the overlays
// in order: the tree checks, $ref checks and inlining below the read roots
// (readRoots, besides the spec's own module, repository or folder),
// repairs, Swagger 2.0 conversion and kin-openapi's load. Bad read roots
// are an *diag.InputError; other bad input is error Diagnostics (s nil);
// any other error is a resgen fault. It does not validate: see Validate.
func Load(ctx context.Context, path string, data []byte, overlays []Overlay, readRoots []string) (*Spec, diag.Diagnostics, error) {
	return loadRooted(ctx, path, data, overlays, readRoots, true)
}

// LoadWithin is Load whose $refs read only below readRoots: not below the
// spec's module, repository or folder, which are found by looking for
// go.mod and .git above it. resgen diff loads a revision so, confined to
// the temp folder it wrote the revision's files to, whatever the folders
// above that temp folder hold.
func LoadWithin(ctx context.Context, path string, data []byte, overlays []Overlay, readRoots []string) (*Spec, diag.Diagnostics, error) {
	return loadRooted(ctx, path, data, overlays, readRoots, false)
}

func loadRooted(ctx context.Context, path string, data []byte, overlays []Overlay, readRoots []string, withDefault bool) (*Spec, diag.Diagnostics, error) {
	g, gdiags := newReadGuard(path, readRoots)
	if gdiags != nil {
		return nil, nil, &diag.InputError{Diags: gdiags}
	}
	if !withDefault {
		g.roots = g.roots[1:] // newReadGuard puts the default root first
	}
	g.read = int64(len(data))
	for _, o := range overlays {
		g.read += int64(len(o.Data))
	}
	return load(ctx, path, data, overlays, g)
}

// Pos is the position of a JSON pointer of the root document, as a
// model position (see Diag for how a missing node is placed).
func (s *Spec) Pos(ptr string) model.Pos {
	var p model.Pos
	p.File, p.Line, p.Col = s.src.pos(s.swaggerPointer(ptr))
	return p
}

// NewSpec is the Spec of a document decoded elsewhere, positions read from
// data (the file's bytes): for tests of the later stages.
func NewSpec(doc *openapi3.T, file string, data []byte) *Spec {
	abs, _ := filepath.Abs(file)
	return &Spec{Doc: doc, File: file, root: filepath.ToSlash(abs), src: &srcMap{file: file, data: data, from: map[*yaml.Node]string{}}}
}

// Tree is the document's node tree, as overlays and repairs left it: what
// build reads exact literals and positions from.
func (s *Spec) Tree() *yaml.Node { return s.src.tree() }

// load parses the spec once into a node tree, checks it (checkTree,
// checkRefs), applies the overlays and the decode repairs to that tree,
// converts Swagger 2.0, and resolves every $ref (relative ones against the
// spec's own folder) through g, which confines and bounds what they read.
func load(ctx context.Context, path string, data []byte, overlays []Overlay, g *readGuard) (_ *Spec, diags diag.Diagnostics, _ error) {
	s := &Spec{File: path, src: &srcMap{file: path, data: data, from: map[*yaml.Node]string{}}}
	rp := &repairs{}
	g.rp = rp
	defer func() { diags = append(diags, rp.diags...) }()
	root := s.src.tree()
	if root == nil {
		return nil, diag.Diagnostics{s.decodeError(data, s.src.err)}, nil
	}
	// reencode replaces data with the (edited) node tree.
	reencoded := false
	reencode := func() error {
		out, err := yaml.Marshal(root)
		if err != nil {
			return fmt.Errorf("re-encoding the spec: %w", err)
		}
		data, reencoded = out, true
		return nil
	}
	if diags := checkTree(path, root); diags != nil {
		return nil, diags, nil
	}
	if len(overlays) > 0 {
		added := 0
		for _, o := range overlays {
			_, odiags := applyOverlay(s.src, o, &added)
			diags = append(diags, odiags...)
		}
		if diags.HasErrors() {
			return nil, diags, nil
		}
		rp.repairTree(path, root)
		if err := reencode(); err != nil {
			return nil, nil, err
		}
	}
	if root.Kind != yaml.MappingNode || MapValue(root, "openapi") == nil && MapValue(root, "swagger") == nil {
		return nil, append(diags, diag.Diagnostic{Severity: diag.Error, File: path, Msg: "not an OpenAPI document: no openapi or swagger key at the top level"}), nil
	}
	if d := s.checkVersion(root); d != nil {
		return nil, append(diags, *d), nil
	}

	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, err
	}
	loc := &url.URL{Path: filepath.ToSlash(abs)}
	s.root, s.g = loc.Path, g
	if rdiags := g.checkRefs(path, loc, root); rdiags != nil {
		return nil, append(diags, rdiags...), nil
	}
	inlined, idiags := g.inlineMaps(path, loc, root, s.src.from)
	if idiags == nil {
		var n int
		n, idiags = g.inlineObjects(path, loc, root, true, s.src.from)
		inlined += n
	}
	if len(g.refused) > 0 || idiags.HasErrors() {
		return nil, append(append(diags, g.refused...), idiags...), nil
	}
	diags = append(diags, idiags...)
	if inlined > 0 {
		if err := reencode(); err != nil {
			return nil, nil, err
		}
	}
	decode := func() error {
		// A $ref back to the spec from another file reads what is decoded
		// here, repaired once, not the file again.
		g.mu.Lock()
		g.files[siteKey(loc)] = data
		g.last = ""
		g.mu.Unlock()
		loader := openapi3.NewLoader()
		loader.Context = ctx
		loader.IsExternalRefsAllowed = true
		loader.ReadFromURIFunc = g.readRef
		// From the tree: a re-encoded JSON spec is YAML in flow style.
		s.Swagger = isSwagger2(root)
		if s.Swagger {
			var doc2 openapi2.T
			var decodeErr error
			if reencoded {
				decodeErr = decodeTreeAsJSON(root, &doc2)
			} else {
				decodeErr = decodeYAMLAsJSON(data, &doc2)
			}
			if decodeErr != nil {
				return &swaggerDecodeError{decodeErr}
			}
			doc, err := openapi2conv.ToV3WithLoader(&doc2, loader, loc)
			s.Doc = doc
			return err
		}
		if !reencoded && len(g.sites) == 0 && treeIsKins(s.src.source, data, root) {
			if doc, err := decodeTree(loader, root); err == nil {
				s.Doc, s.decodedTree = doc, true
				return nil
			}
			// kin-openapi's own load says why, in its words.
		}
		doc, err := loader.LoadFromDataWithPath(data, loc)
		s.Doc = doc
		return err
	}
	err = decode()
	repaired := len(overlays) > 0 // the overlays' tree is repaired already
	for err != nil && len(g.refused) == 0 {
		if !repaired {
			// Repair the decode defects real specs have, then try again. A
			// spec that decodes is passed to kin-openapi byte for byte.
			repaired = true
			n := rp.repairTree(path, root)
			if rp.hasErrors() {
				// What cannot be repaired, at its position, is why.
				return nil, diags, nil
			}
			if n > 0 {
				if rerr := reencode(); rerr != nil {
					return nil, nil, rerr
				}
				err = decode()
				continue
			}
		}
		errs := s.loadErrors(root, data, err, g)
		// A broken entry no $ref uses is skipped, and the rest tried again.
		skipped := s.skipUnused(root, errs)
		if skipped == nil {
			return nil, append(diags, errs...), nil
		}
		diags = append(diags, skipped...)
		if rerr := reencode(); rerr != nil {
			return nil, nil, rerr
		}
		err = decode()
	}
	// A refused file stops the loader, but kin-openapi does not pass every
	// read error on: the refusals are the errors, whatever it returned.
	if len(g.refused) > 0 {
		return nil, append(diags, g.refused...), nil
	}
	if rp.hasErrors() {
		return nil, diags, nil
	}
	if s.Doc.Paths == nil {
		s.Doc.Paths = openapi3.NewPaths()
	}
	if rdiags := s.refOperations(); rdiags != nil {
		return nil, append(diags, rdiags...), nil
	}

	return s, diags, nil
}

// Validate validates the loaded document with kin-openapi. Failures are
// warnings: many real specs have bad examples or defaults that do not
// change what a client sends or receives. Validation is relaxed (no
// examples, defaults or patterns, the sibling keys real specs carry) unless
// strict. A failure is one warning (an error under strict) at the first
// place kin-openapi names. It is a step of its own so that the top
// package can run it beside build and emit, once that is shown safe
// (kin-openapi's Validate must only read the document).
func Validate(ctx context.Context, s *Spec, strict bool) diag.Diagnostics {
	path := s.File
	opts := []openapi3.ValidationOption{
		openapi3.DisableExamplesValidation(),
		openapi3.DisableSchemaDefaultsValidation(),
		openapi3.DisableSchemaPatternValidation(),
		openapi3.AllowExtraSiblingFields("description", "summary", "example", "examples", "nullable", "deprecated", "readOnly", "writeOnly", "default", "title", "links", "name", "extraProperties", "descripion", "definitions"),
	}
	if strict {
		opts = nil
	}
	if err := s.Doc.Validate(ctx, opts...); err != nil {
		sev := diag.Warning
		if strict {
			sev = diag.Error
		}
		d := diag.Diagnostic{Severity: sev, File: path, Msg: "spec does not validate: " + err.Error(), Hint: "a client can still be generated; -strict makes this an error"}
		if ptr := s.validationPointer(err); ptr != "" {
			d = s.diagAt(sev, ptr, d.Msg, d.Hint)
		}
		return diag.Diagnostics{d}
	}
	return nil
}

// openapiVersion is the openapi versions resgen reads: 3.0, 3.1 and the
// later 3.x, which stay compatible within the major version.
var openapiVersion = regexp.MustCompile(`^3\.[0-9]+(\.[0-9]+)?([-+][0-9A-Za-z.+-]*)?$`)

// checkVersion refuses a document resgen cannot read as what it says it
// is: an openapi that is not 3.x (null, 4.0.0), a swagger that is not 2.0
// (1.2), and one without the paths its version requires (3.1 also takes
// webhooks or components instead). Loading one would give a client with
// no operations, replacing a good one without a word.
func (s *Spec) checkVersion(root *yaml.Node) *diag.Diagnostic {
	at := func(n *yaml.Node, format string, args ...any) *diag.Diagnostic {
		d := s.NodeDiag(diag.Error, n, fmt.Sprintf(format, args...), "")
		return &d
	}
	key, v := ChildNode(root, "openapi")
	if key == nil {
		key, v = ChildNode(root, "swagger")
		if v.Kind != yaml.ScalarNode || (v.Value != "2.0" && v.Value != "2") {
			return at(v, "swagger: %s is not a version resgen reads: it reads Swagger 2.0 and OpenAPI 3", shownValue(v))
		}
	} else if v.Kind != yaml.ScalarNode || v.Tag == "!!null" || !openapiVersion.MatchString(v.Value) {
		return at(v, "openapi: %s is not a version resgen reads: it reads OpenAPI 3 (3.0.x, 3.1.x) and Swagger 2.0", shownValue(v))
	}
	required, what := []string{"paths"}, "paths"
	if key.Value == "openapi" && !strings.HasPrefix(v.Value, "3.0") {
		required, what = []string{"paths", "webhooks", "components"}, "paths, webhooks or components"
	}
	for _, k := range required {
		if MapValue(root, k) != nil {
			return nil
		}
	}
	return at(key, "not an OpenAPI document: %s %s needs %s at the top level, where its operations are", key.Value, v.Value, what)
}

// shownValue is a scalar as written, quoted, or what a node is.
func shownValue(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind != yaml.ScalarNode:
		return "a list"
	case n.Tag == "!!null":
		return "null"
	}
	return strconv.Quote(n.Value)
}

// isSwagger2 reports whether the document root is Swagger 2.0.
func isSwagger2(root *yaml.Node) bool {
	v := MapValue(root, "swagger")
	return v != nil && v.Kind == yaml.ScalarNode && strings.HasPrefix(v.Value, "2")
}

// decodeTreeAsJSON decodes a node tree into v through JSON.
func decodeTreeAsJSON(n *yaml.Node, v any) error {
	var raw any
	if err := n.Decode(&raw); err != nil {
		return err
	}
	b, err := json.Marshal(StringKeys(raw))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// decodeYAMLAsJSON decodes YAML (or JSON) into v through JSON, as kin-openapi
// types only implement JSON decoding.
func decodeYAMLAsJSON(data []byte, v any) error {
	if isJSONObject(data) {
		return json.Unmarshal(data, v)
	}
	var raw any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return err
	}
	b, err := json.Marshal(StringKeys(raw))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

var yamlLine = regexp.MustCompile(`line (\d+)(?::(\d+))?`)

// decodeError turns a decode failure into a diagnostic, keeping the line
// the YAML or JSON decoder reported when there is one.
func (s *Spec) decodeError(data []byte, err error) diag.Diagnostic {
	if de, ok := errors.AsType[*docError](err); ok {
		return diag.Diagnostic{Severity: diag.Error, File: s.File, Line: de.line, Col: de.col, Msg: de.msg}
	}
	d := diag.Diagnostic{Severity: diag.Error, File: s.File, Msg: "cannot load spec: " + err.Error()}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		d.Line, _ = strconv.Atoi(m[1])
		if m[2] != "" {
			d.Col, _ = strconv.Atoi(m[2])
		}
	}
	var se *json.SyntaxError
	if asJSONSyntax(err, &se) {
		d.Line, d.Col = offsetPos(data, int(se.Offset))
	}
	return d
}

func asJSONSyntax(err error, target **json.SyntaxError) bool {
	for err != nil {
		if se, ok := err.(*json.SyntaxError); ok {
			*target = se
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

func offsetPos(data []byte, off int) (line, col int) {
	if off > len(data) {
		off = len(data)
	}
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	col = off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// readNamed reads a file the user named (the spec, an overlay): anything
// that can be read, a pipe too, of at most maxFileBytes.
func ReadNamed(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAtMost(f, maxFileBytes)
}

// StringKeys makes every map key a string, as JSON needs: YAML decodes
// `200:` (a response code) as an integer key.
func StringKeys(v any) any {
	switch x := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = StringKeys(e)
		}
		return m
	case map[string]any:
		for k, e := range x {
			x[k] = StringKeys(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = StringKeys(e)
		}
		return x
	}
	return v
}
