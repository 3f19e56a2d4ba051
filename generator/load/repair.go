package load

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/resgen/resgen/generator/diag"
	yaml "go.yaml.in/yaml/v4"
)

// Real specs carry defects that do not change what a client sends or
// receives but stop kin-openapi from decoding them at all: `examples` as a
// map inside a 3.1 schema, a `$ref` object where a description string
// belongs, `required: true` inside a schema, a `type` written as a map.
// repair fixes such nodes in the raw document before kin-openapi sees it
// and reports each fix as a warning with its position. A document with
// nothing to repair is passed through byte for byte.

// repairs collects the warnings of every file a run reads.
type repairs struct {
	mu    sync.Mutex
	diags diag.Diagnostics
	// seen are the diagnostics of diags: the loader may read a file twice
	// (the spec itself again, for a $ref it cannot resolve).
	seen map[diag.Diagnostic]bool
}

func (rp *repairs) add(d diag.Diagnostic) {
	rp.mu.Lock()
	if !rp.seen[d] {
		if rp.seen == nil {
			rp.seen = map[diag.Diagnostic]bool{}
		}
		rp.seen[d] = true
		rp.diags = append(rp.diags, d)
	}
	rp.mu.Unlock()
}

func (rp *repairs) addAll(ds diag.Diagnostics) {
	for _, d := range ds {
		rp.add(d)
	}
}

// repairTree fixes the decode defects of a parsed document in place and
// returns how many it fixed.
func (rp *repairs) repairTree(file string, root *yaml.Node) int {
	n := 0
	repairNode(root, func(node *yaml.Node, msg string) {
		n++
		rp.add(diag.Diagnostic{Severity: diag.Warning, File: file, Line: node.Line, Col: node.Column, Msg: "repaired: " + msg})
	}, "")
	return n + rp.normalize(file, root)
}

// hasErrors reports whether a repair found what it cannot repair.
func (rp *repairs) hasErrors() bool {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.diags.HasErrors()
}

func isSchemaLike(m *yaml.Node) bool {
	has := func(k string) bool { return MapValue(m, k) != nil }
	// A type that is a parameter is a name in a file of named parameters
	// (DigitalOcean's resources/*/parameters.yml), not a schema's keyword.
	typ := MapValue(m, "type")
	hasType := typ != nil && !(typ.Kind == yaml.MappingNode && MapValue(typ, "in") != nil && MapValue(typ, "name") != nil)
	return (hasType || has("properties") || has("items") || has("allOf") || has("oneOf") || has("anyOf") || has("additionalProperties") || has("patternProperties")) && !has("in") && !has("schema") && !has("content")
}

func MapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// nameMaps are the keys whose value is a map from names the author chose
// (a property called "description", a response called "200") to objects:
// their keys are never keywords to repair.
var nameMaps = map[string]bool{
	"properties": true, "patternProperties": true, "schemas": true, "responses": true, "parameters": true,
	"examples": true, "headers": true, "links": true, "callbacks": true, "securitySchemes": true,
	"requestBodies": true, "paths": true, "definitions": true, "content": true, "encoding": true,
	"variables": true, "mapping": true, "webhooks": true, "pathItems": true, "$defs": true, "dependentSchemas": true,
}

// dataKeys hold values, not spec objects: an example, a default, an enum
// or const value, an Example Object's value. What looks like a keyword in
// them (an items list) is the author's data and is never repaired.
var dataKeys = map[string]bool{"example": true, "default": true, "enum": true, "const": true, "value": true}

// schemaNames are the name maps whose values are schemas: a name there is
// the author's, even one that starts with x-.
var schemaNames = map[string]bool{"properties": true, "patternProperties": true, "schemas": true, "definitions": true, "$defs": true, "dependentSchemas": true}

// repairNode repairs n and what it holds; in is the key n is the value of
// ("" for the root and list elements).
func repairNode(n *yaml.Node, fix func(*yaml.Node, string), in string) {
	switch n.Kind {
	case yaml.SequenceNode:
		if in == "examples" {
			return // a schema's examples, also in one without a type
		}
		for _, c := range n.Content {
			repairNode(c, fix, "")
		}
	case yaml.MappingNode:
		if nameMaps[in] {
			for i := 0; i+1 < len(n.Content); i += 2 {
				name := n.Content[i].Value
				// An extension of the Paths or Responses object, or a
				// Swagger 2.0 example by media type: data.
				if strings.HasPrefix(name, "x-") && !schemaNames[in] || in == "examples" && strings.Contains(name, "/") {
					continue
				}
				repairNode(n.Content[i+1], fix, "")
			}
			return
		}
		schema := isSchemaLike(n)
		kept := n.Content[:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			switch {
			case (k.Value == "description" || k.Value == "summary") && v.Kind != yaml.ScalarNode:
				fix(k, fmt.Sprintf("%s is not a string; it is dropped", k.Value))
				continue
			case schema && k.Value == "examples" && v.Kind == yaml.MappingNode:
				fix(k, "examples in a schema must be a list; the map's values are used")
				seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: v.Line, Column: v.Column}
				for j := 1; j < len(v.Content); j += 2 {
					seq.Content = append(seq.Content, v.Content[j])
				}
				v = seq
			case schema && k.Value == "required" && v.Kind == yaml.ScalarNode:
				fix(k, "required in a schema must be a list of property names; required: "+v.Value+" is dropped")
				continue
			case schema && k.Value == "type" && v.Kind == yaml.MappingNode:
				fix(k, "type must be a string or a list of strings; the map is dropped")
				continue
			case schema && k.Value == "items" && v.Kind == yaml.SequenceNode:
				// JSON Schema draft 4's tuple form.
				fix(k, "items must be one schema; the list is read as prefixItems")
				k = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "prefixItems", Line: k.Line, Column: k.Column}
			}
			// A schema's examples are a list of values, extension values
			// are the extension's own: neither holds spec objects.
			if !dataKeys[k.Value] && !strings.HasPrefix(k.Value, "x-") && !(schema && k.Value == "examples") {
				repairNode(v, fix, k.Value)
			}
			kept = append(kept, k, v)
		}
		n.Content = kept
	}
}

// displayPath shows p relative to the working directory when it is below
// it, so diagnostics name files as the user would.
func displayPath(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil && !filepath.IsAbs(rel) && len(rel) < len(p) {
		return rel
	}
	return p
}
