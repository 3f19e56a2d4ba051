package generator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	yaml "go.yaml.in/yaml/v4"
)

// spec is a loaded, resolved OpenAPI 3 document with what is needed to
// point back into the file the user wrote.
type spec struct {
	doc     *openapi3.T
	file    string // path as given, for diagnostics
	src     *srcMap
	swagger bool // converted from Swagger 2.0: positions are approximate
}

// diag builds a diagnostic at a JSON pointer of the root document.
func (s *spec) diag(sev Severity, ptr, msg, hint string) Diagnostic {
	d := Diagnostic{Severity: sev, Pointer: "#" + ptr, Msg: msg, Hint: hint}
	d.File, d.Line, d.Col = s.src.pos(ptr)
	return d
}

// load parses the spec once into a node tree, checks it (checkTree,
// checkRefs), applies the overlays and the decode repairs to that tree,
// converts Swagger 2.0, and resolves every $ref (relative ones against the
// spec's own folder) through g, which confines and bounds what they read.
// Validation failures are warnings: many real specs have bad examples or
// defaults that do not change what a client sends or receives.
func load(ctx context.Context, path string, data []byte, overlays []overlayFile, strict bool, g *readGuard) (_ *spec, diags Diagnostics, _ error) {
	s := &spec{file: path, src: &srcMap{file: path, data: data, from: map[*yaml.Node]string{}}}
	rp := &repairs{}
	g.rp = rp
	defer func() { diags = append(diags, rp.diags...) }()
	root := s.src.tree()
	if root == nil {
		return nil, Diagnostics{s.decodeError(data, s.src.err)}, nil
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
		for _, o := range overlays {
			_, odiags := applyOverlay(s.src, o)
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
	if root.Kind != yaml.MappingNode || mapValue(root, "openapi") == nil && mapValue(root, "swagger") == nil {
		return nil, append(diags, Diagnostic{Severity: Error, File: path, Msg: "not an OpenAPI document: no openapi or swagger key at the top level"}), nil
	}

	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, err
	}
	loc := &url.URL{Path: filepath.ToSlash(abs)}
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
		s.swagger = isSwagger2(root)
		if s.swagger {
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
			s.doc = doc
			return err
		}
		doc, err := loader.LoadFromDataWithPath(data, loc)
		s.doc = doc
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
	if s.doc.Paths == nil {
		s.doc.Paths = openapi3.NewPaths()
	}
	if rdiags := s.refOperations(); rdiags != nil {
		return nil, append(diags, rdiags...), nil
	}

	opts := []openapi3.ValidationOption{
		openapi3.DisableExamplesValidation(),
		openapi3.DisableSchemaDefaultsValidation(),
		openapi3.DisableSchemaPatternValidation(),
		openapi3.AllowExtraSiblingFields("description", "summary", "example", "examples", "nullable", "deprecated", "readOnly", "writeOnly", "default", "title", "links", "name", "extraProperties", "descripion", "definitions"),
	}
	if strict {
		opts = nil
	}
	if err := s.doc.Validate(ctx, opts...); err != nil {
		sev := Warning
		if strict {
			sev = Error
		}
		d := Diagnostic{Severity: sev, File: path, Msg: "spec does not validate: " + err.Error(), Hint: "a client can still be generated; -strict makes this an error"}
		if ptr := s.validationPointer(err); ptr != "" {
			d = s.diag(sev, ptr, d.Msg, d.Hint)
		}
		diags = append(diags, d)
	}
	return s, diags, nil
}

// isSwagger2 reports whether the document root is Swagger 2.0.
func isSwagger2(root *yaml.Node) bool {
	v := mapValue(root, "swagger")
	return v != nil && v.Kind == yaml.ScalarNode && strings.HasPrefix(v.Value, "2")
}

// decodeTreeAsJSON decodes a node tree into v through JSON.
func decodeTreeAsJSON(n *yaml.Node, v any) error {
	var raw any
	if err := n.Decode(&raw); err != nil {
		return err
	}
	b, err := json.Marshal(stringKeys(raw))
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
	b, err := json.Marshal(stringKeys(raw))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

var yamlLine = regexp.MustCompile(`line (\d+)(?::(\d+))?`)

// decodeError turns a decode failure into a diagnostic, keeping the line
// the YAML or JSON decoder reported when there is one.
func (s *spec) decodeError(data []byte, err error) Diagnostic {
	d := Diagnostic{Severity: Error, File: s.file, Msg: "cannot load spec: " + err.Error()}
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
func readNamed(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAtMost(f, maxFileBytes)
}

// stringKeys makes every map key a string, as JSON needs: YAML decodes
// `200:` (a response code) as an integer key.
func stringKeys(v any) any {
	switch x := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = stringKeys(e)
		}
		return m
	case map[string]any:
		for k, e := range x {
			x[k] = stringKeys(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = stringKeys(e)
		}
		return x
	}
	return v
}
