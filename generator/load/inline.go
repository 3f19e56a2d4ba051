package load

import (
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/diag"
	yaml "go.yaml.in/yaml/v4"
)

// Multi-file specs are often laid out for a bundler: components.schemas is
// {$ref: ./schemas/_index.yaml}, a file that holds the whole map, and the
// same for paths or any other map of components. OpenAPI has no $ref in
// that place (a schema called "$ref" is what it says), but what the author
// means is plain, and bundlers read it so: inlineMaps puts the entries of
// the file in place of the $ref before kin-openapi decodes the document.
// The file is read through the read guard, within its roots and limits,
// its nodes keep their positions in it, and its relative $refs are made
// relative to the spec's folder.

// mapHolders are the keys of a document's root whose value is a map of
// names to objects: OpenAPI 3's and Swagger 2.0's.
var mapHolders = map[string]bool{
	"paths": true, "webhooks": true, "components": true,
	"definitions": true, "parameters": true, "responses": true, "securityDefinitions": true,
}

// maxMapRefs bounds how often a map is a $ref to another map.
const maxMapRefs = 8

// inlineMaps replaces each $ref standing for a whole map of the root
// document with that map, and returns how many it replaced. Nodes read
// from another file are recorded in from, with the file's name.
func (g *readGuard) inlineMaps(file string, loc *url.URL, root *yaml.Node, from map[*yaml.Node]string) (int, diag.Diagnostics) {
	n := 0
	var diags diag.Diagnostics
	inline := func(m *yaml.Node, ptr string) {
		k, d := g.inlineMap(file, loc, root, m, ptr, "map", from)
		n += k
		diags = append(diags, d...)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if !mapHolders[k.Value] || v.Kind != yaml.MappingNode {
			continue
		}
		inline(v, diag.PointerJoin("", k.Value))
		if k.Value != "components" {
			continue
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			if c := v.Content[j+1]; c.Kind == yaml.MappingNode && !strings.HasPrefix(v.Content[j].Value, "x-") {
				inline(c, diag.PointerJoin("", k.Value, v.Content[j].Value))
			}
		}
	}
	return n, diags
}

// inlineMap replaces the $ref of the map m, at ptr in the root document,
// with the entries of the map it names, until m has no $ref; what names
// the object m stands for, in errors.
func (g *readGuard) inlineMap(file string, loc *url.URL, root, m *yaml.Node, ptr, what string, from map[*yaml.Node]string) (int, diag.Diagnostics) {
	for n := 0; ; n++ {
		i := refIndex(m)
		if i < 0 {
			return n, nil
		}
		k, ref := m.Content[i], m.Content[i+1].Value
		errAt := func(msg string) diag.Diagnostics {
			kfile := file
			if f, ok := from[k]; ok {
				kfile = f // written in a file inlined before
			}
			return diag.Diagnostics{{Severity: diag.Error, File: kfile, Line: k.Line, Col: k.Column, Pointer: "#" + ptr,
				Msg: fmt.Sprintf("$ref %q stands for the %s at %s: %s", ref, what, ptr, msg)}}
		}
		if n == maxMapRefs {
			return n, errAt(fmt.Sprintf("it leads to %d more such $refs", maxMapRefs))
		}
		u, err := url.Parse(ref)
		if err != nil {
			return n, errAt("not a URL")
		}
		target, tfile, rel := root, file, ""
		if u.Scheme != "" || u.Path != "" {
			if u.Scheme == "" && !filepath.IsAbs(filepath.FromSlash(u.Path)) {
				u.Path = filepath.ToSlash(filepath.Join(filepath.Dir(filepath.FromSlash(loc.Path)), filepath.FromSlash(u.Path)))
			}
			if target, err = g.readTree(u); err != nil {
				return n, nil // refused: the diagnostic is in g.refused
			}
			tfile = displayPath(filepath.FromSlash(u.Path))
			if r, err := filepath.Rel(filepath.Dir(filepath.FromSlash(loc.Path)), filepath.FromSlash(u.Path)); err == nil {
				rel = filepath.ToSlash(r)
			} else {
				rel = u.String()
			}
		}
		if rel == "" && (u.Fragment == "" || u.Fragment == ptr || strings.HasPrefix(ptr, u.Fragment+"/")) {
			// Copying a map into itself would grow it each round.
			return n, errAt("it names the map that holds it")
		}
		src := lookupNode(target, u.Fragment, true)
		if src == nil || src.Kind != yaml.MappingNode {
			return n, errAt("it names no " + what)
		}
		entries := copyTree(src).Content
		if rel != "" {
			rebaseRefs(entries, rel, filepath.Base(filepath.FromSlash(loc.Path)), u.Fragment, ptr)
			if from != nil {
				for _, e := range entries {
					markFrom(from, e, tfile)
				}
			}
		}
		// The $ref's siblings stay, and go first.
		kept := append(m.Content[:i:i], m.Content[i+2:]...)
		keys := make(map[string]*yaml.Node, len(kept)/2)
		for j := 0; j+1 < len(kept); j += 2 {
			keys[kept[j].Value] = kept[j]
		}
		for j := 0; j+1 < len(entries); j += 2 {
			if dup := keys[entries[j].Value]; dup != nil {
				return n, errAt(fmt.Sprintf("%q is also written here, at line %d", entries[j].Value, dup.Line))
			}
		}
		m.Content = append(kept, entries...)
	}
}

// refIndex is the index of the key $ref of the mapping m, or -1.
func refIndex(m *yaml.Node) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "$ref" && m.Content[i+1].Kind == yaml.ScalarNode {
			return i
		}
	}
	return -1
}

// copyTree copies n deeply (aliases expanded), so that editing the copy
// leaves the tree it came from as it was.
func copyTree(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	c := *n
	c.Anchor = ""
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, child := range n.Content {
		c.Content[i] = copyTree(child)
	}
	return &c
}

// isMappingRef reports whether e is an entry of a discriminator's mapping
// whose value is a $ref (a path or a pointer), not a schema's name.
func isMappingRef(e specEntry) bool {
	n := len(e.path)
	if n < 2 || e.path[n-1] != "mapping" || e.path[n-2] != "discriminator" {
		return false
	}
	v := e.val().Value
	return strings.ContainsAny(v, "#/") || strings.HasSuffix(v, ".yml") || strings.HasSuffix(v, ".yaml") || strings.HasSuffix(v, ".json")
}

// rebaseRefs makes the $refs of entries, read from the file rel (relative
// to the spec's folder) at fragment, mean in the root document (rootName,
// in that folder), at ptr, what they meant there.
func rebaseRefs(entries []*yaml.Node, rel, rootName, fragment, ptr string) {
	holder := &yaml.Node{Kind: yaml.MappingNode, Content: entries}
	walkSpec(holder, func(e specEntry) {
		k, v := e.key(), e.val()
		if v.Kind != yaml.ScalarNode || !(k.Value == "$ref" && !e.names || isMappingRef(e)) {
			return
		}
		u, err := url.Parse(v.Value)
		switch {
		case err != nil || u.Scheme != "" || strings.HasPrefix(u.Path, "/") || filepath.IsAbs(filepath.FromSlash(u.Path)):
		case u.Path == "" && (u.Fragment == fragment || strings.HasPrefix(u.Fragment, fragment+"/")):
			// Into the map itself: now at ptr.
			v.Value = "#" + ptr + u.Fragment[len(fragment):]
		case u.Path == "":
			v.Value = rel + v.Value
		default:
			u.Path = filepath.ToSlash(filepath.Join(filepath.Dir(filepath.FromSlash(rel)), filepath.FromSlash(u.Path)))
			if u.Path == rootName {
				// Back into the spec, which kin-openapi must not read
				// again as it was written.
				u.Path = ""
			}
			v.Value = u.String()
		}
	})
}

// More $refs stand where OpenAPI has none, and kin-openapi reads them as
// nothing or not at all: an operation written as {$ref: file} (all 659 of
// DigitalOcean's) and a media type so written, which kin keeps as an
// extension of an empty object without a word, and a schema's properties
// map written as {$ref: file#/x}, which it cannot decode. inlineObjects
// puts what they name in their place, as inlineMap does, and warns once
// for each kind and file: the author's meaning is plain, but other tools
// will not read it so.

// inlineObjects inlines the operation $refs of the path items of the
// spec's root (spec set) and the properties-map and media-type $refs of
// any file, and returns how many it inlined.
func (g *readGuard) inlineObjects(file string, loc *url.URL, root *yaml.Node, spec bool, from map[*yaml.Node]string) (int, diag.Diagnostics) {
	var diags diag.Diagnostics
	n := 0
	// first is the warning for the first $ref of a kind; more counts the
	// others.
	type kind struct {
		first *diag.Diagnostic
		more  int
	}
	var ops, props, media kind
	inline := func(m *yaml.Node, ptr, what, kin string, seen *kind) {
		i := refIndex(m)
		if i < 0 {
			return
		}
		k, ref := m.Content[i], m.Content[i+1].Value
		if seen.first == nil {
			f := file
			if ff, ok := from[k]; ok {
				f = ff
			}
			seen.first = &diag.Diagnostic{Severity: diag.Warning, File: f, Line: k.Line, Col: k.Column, Pointer: "#" + ptr,
				Msg:  fmt.Sprintf("$ref %q stands for %s: OpenAPI allows no $ref there (%s); resgen reads what it names in its place, as the author meant", ref, what, kin),
				Hint: "for other tools, write it in place (a bundler does)"}
		} else {
			seen.more++
		}
		c, d := g.inlineMap(file, loc, root, m, ptr, what, from)
		n += c
		diags = append(diags, d...)
	}
	if spec {
		for _, holder := range [][]string{{"paths"}, {"webhooks"}, {"components", "pathItems"}} {
			items := lookupNode(root, diag.PointerJoin("", holder...), true)
			if items == nil || items.Kind != yaml.MappingNode {
				continue
			}
			for i := 0; i+1 < len(items.Content); i += 2 {
				item := items.Content[i+1]
				if item.Kind != yaml.MappingNode {
					continue
				}
				for j := 0; j+1 < len(item.Content); j += 2 {
					if op := item.Content[j+1]; OperationKeys[item.Content[j].Value] && op.Kind == yaml.MappingNode {
						inline(op, diag.PointerJoin("", append(holder, items.Content[i].Value, item.Content[j].Value)...), "an operation", "kin-openapi reads an empty operation", &ops)
					}
				}
			}
		}
	}
	walkSpec(root, func(e specEntry) {
		k, v := e.key().Value, e.val()
		if v.Kind != yaml.MappingNode {
			return
		}
		switch ptr := strings.TrimPrefix(e.pointer(k), "#"); {
		case k == "properties" && !e.names:
			inline(v, ptr, "a schema's properties", "kin-openapi cannot decode it", &props)
		case e.names && len(e.path) > 0 && e.path[len(e.path)-1] == "content":
			inline(v, ptr, "a media type", "kin-openapi reads a media type without a schema", &media)
		}
	})
	for _, k := range []kind{ops, props, media} {
		if k.first == nil {
			continue
		}
		if k.more > 0 {
			k.first.Msg += fmt.Sprintf(" (and the same for %d more such $refs)", k.more)
		}
		diags = append(diags, *k.first)
	}
	return n, diags
}

// refOperations are errors for the operations kin-openapi decoded with a
// $ref that inlineObjects could not reach (in a path item that is itself
// a $ref to a file, or in a callback): each would be a method with nothing
// of what the file declares.
func (s *Spec) refOperations() diag.Diagnostics {
	var diags diag.Diagnostics
	var items func(ptr string, m map[string]*openapi3.PathItem)
	items = func(ptr string, m map[string]*openapi3.PathItem) {
		for _, name := range slices.Sorted(maps.Keys(m)) {
			item := m[name]
			if item == nil {
				continue
			}
			ops := item.Operations()
			for _, method := range slices.Sorted(maps.Keys(ops)) {
				op := ops[method]
				at := diag.PointerJoin(ptr, name, strings.ToLower(method))
				if ref, ok := op.Extensions["$ref"].(string); ok {
					diags = append(diags, s.diagAt(diag.Error, at, fmt.Sprintf("the operation is a $ref (%q) where OpenAPI allows none, and resgen reads it only in a path item written in the spec's paths, webhooks or components.pathItems", ref),
						"write the operation in place, or make the path item that holds it part of the spec"))
				}
				for cname, cb := range op.Callbacks {
					if cb != nil && cb.Value != nil {
						items(diag.PointerJoin(at, "callbacks", cname), cb.Value.Map())
					}
				}
			}
		}
	}
	if s.Doc.Paths != nil {
		items("/paths", s.Doc.Paths.Map())
	}
	items("/webhooks", s.Doc.Webhooks)
	return diags
}

// OperationKeys are the keys of a path item that hold operations.
var OperationKeys = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "options": true, "head": true, "patch": true, "trace": true, "query": true}
