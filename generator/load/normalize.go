package load

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/resgen/resgen/generator/diag"
	yaml "go.yaml.in/yaml/v4"
)

// Three more shapes of real specs that kin-openapi cannot decode, repaired
// in the node tree with a positioned warning each (errors under -strict):
//
//   - an empty object written as [] (PHP's json_encode writes an empty
//     array and an empty map alike): "properties": [], a response
//     "204": [], [] inside allOf;
//   - a 3.1 schema with its own $defs and $ref: '#/$defs/X' (Pydantic;
//     definitions and '#/definitions/X' in draft 7's words): the $ref is
//     read against the nearest enclosing schema whose $defs hold X, which is what the author means but not what JSON Schema
//     says for a document without $id;
//   - a local $ref that names nothing: a schema (or an example or a
//     link) is left untyped, {} with the $ref's siblings, so the client
//     of the other operations is still generated; a response becomes one
//     without a body. A parameter, request body or anything else stays an
//     error, as leaving it out would send what the spec does not say.

// specEntry is one key and value of a mapping of a spec document, as
// walkSpec visits it.
type specEntry struct {
	m     *yaml.Node // the mapping
	i     int        // the key's index in m.Content; the value is at i+1
	path  []string   // the unescaped tokens from the root to m
	names bool       // m maps names the author chose (properties, responses) to objects
}

func (e specEntry) key() *yaml.Node { return e.m.Content[e.i] }
func (e specEntry) val() *yaml.Node { return e.m.Content[e.i+1] }

// pointer is the JSON pointer of m, with tokens below it.
func (e specEntry) pointer(tokens ...string) string {
	return "#" + diag.PointerJoin("", append(e.path[:len(e.path):len(e.path)], tokens...)...)
}

// literalKeys hold values (an example, a default), in which nothing is a
// keyword or a $ref.
var literalKeys = map[string]bool{"example": true, "default": true, "enum": true, "const": true, "value": true}

// walkSpec calls visit for every entry of every mapping of the tree below
// n, depth first, but not inside literal values, extensions (x-...) or a
// schema's examples. visit may replace the entry's value before walkSpec
// walks it.
func walkSpec(n *yaml.Node, visit func(specEntry)) {
	var walk func(n *yaml.Node, path []string, names bool)
	walk = func(n *yaml.Node, path []string, names bool) {
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		switch n.Kind {
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, append(path, strconv.Itoa(i)), false)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				visit(specEntry{m: n, i: i, path: path, names: names})
				k, v := n.Content[i], n.Content[i+1]
				if !names && (literalKeys[k.Value] || strings.HasPrefix(k.Value, "x-") || k.Value == "examples" && v.Kind == yaml.SequenceNode) {
					continue
				}
				walk(v, append(path, k.Value), !names && nameMaps[k.Value] && k.Value != "mapping")
			}
		}
	}
	walk(n, nil, false)
}

// objectKeys are the keys whose value is always an object, never a list.
var objectKeys = map[string]bool{
	"properties": true, "patternProperties": true, "$defs": true, "dependentSchemas": true, "responses": true,
	"headers": true, "content": true, "links": true, "callbacks": true, "encoding": true, "variables": true,
	"components": true, "schemas": true, "securitySchemes": true, "requestBodies": true, "pathItems": true,
	"webhooks": true, "paths": true, "securityDefinitions": true, "discriminator": true, "xml": true,
	"externalDocs": true, "info": true, "contact": true, "license": true, "requestBody": true, "schema": true,
	"additionalProperties": true, "not": true, "contains": true, "if": true, "then": true, "else": true,
	"propertyNames": true, "unevaluatedProperties": true, "unevaluatedItems": true, "additionalItems": true,
}

// schemaLists are the keys whose value is a list of schemas.
var schemaLists = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true}

// emptyObjectFor reports whether the value of e, when it is [], stands for
// an empty object.
func emptyObjectFor(e specEntry) bool {
	k := e.key().Value
	switch {
	case e.names:
		return true
	case objectKeys[k]:
		return true
	case len(e.path) == 0:
		// Swagger 2.0's top-level maps.
		return k == "definitions" || k == "parameters"
	case len(e.path) == 1 && e.path[0] == "components":
		return true
	case k == "examples":
		// A map of examples beside a schema (a parameter, a media type);
		// in a schema, examples is a list.
		return MapValue(e.m, "schema") != nil || MapValue(e.m, "in") != nil
	}
	return false
}

func isEmptyList(n *yaml.Node) bool { return n.Kind == yaml.SequenceNode && len(n.Content) == 0 }

func emptyObjectAt(n *yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: n.Style, Line: n.Line, Column: n.Column}
}

// normalize applies the repairs above to the tree of file and returns how
// many it made.
func (rp *repairs) normalize(file string, root *yaml.Node) int {
	n := 0
	lookup := &refGraph{root: root}
	warn := func(at *yaml.Node, ptr, msg, hint string) {
		n++
		rp.add(diag.Diagnostic{Severity: diag.Warning, File: file, Line: at.Line, Col: at.Column, Pointer: ptr, Msg: msg, Hint: hint})
	}
	const phpHint = "write {} for an empty object"
	walkSpec(root, func(e specEntry) {
		k, v := e.key(), e.val()
		switch {
		case isEmptyList(v) && emptyObjectFor(e):
			warn(v, e.pointer(k.Value), "repaired: "+k.Value+" is [], an empty list where an object belongs (PHP's JSON encoder writes an empty object so); it is read as {}", phpHint)
			obj := emptyObjectAt(v)
			if e.names && len(e.path) > 0 && e.path[len(e.path)-1] == "responses" {
				// A response must have a description: an empty one.
				obj.Content = []*yaml.Node{
					{Kind: yaml.ScalarNode, Tag: "!!str", Value: "description", Line: v.Line, Column: v.Column},
					{Kind: yaml.ScalarNode, Tag: "!!str", Value: "", Line: v.Line, Column: v.Column},
				}
			}
			e.m.Content[e.i+1] = obj
		case schemaLists[k.Value] && v.Kind == yaml.SequenceNode:
			for j, c := range v.Content {
				if isEmptyList(c) {
					warn(c, e.pointer(k.Value, strconv.Itoa(j)), "repaired: a schema of "+k.Value+" is [], an empty list where an object belongs (PHP's JSON encoder writes an empty object so); it is read as {}", phpHint)
					v.Content[j] = emptyObjectAt(c)
				}
			}
		case k.Value == "$ref" && !e.names && v.Kind == yaml.ScalarNode && strings.HasPrefix(v.Value, "#"):
			if lookup.lookup(v.Value[1:]) != nil {
				return
			}
			if holder, fromID := enclosingDefs(root, e.path, v.Value[1:]); holder != "" {
				to := "#" + holder + v.Value[1:]
				if fromID {
					n++ // what JSON Schema says, but not kin-openapi
				} else {
					kw := strings.SplitN(v.Value[2:], "/", 2)[0]
					warn(k, e.pointer(), fmt.Sprintf("$ref %q is read in the %s of the schema that holds it, #%s; by JSON Schema's rules it names the document's root, which has no %s (no enclosing schema has an $id)", v.Value, kw, holder, kw),
						"give the schema that holds "+kw+" an $id, or move its "+kw+" to components/schemas")
				}
				v.Value = to
				return
			}
			dangling(e, warn, rp, file)
		}
	})
	return n
}

// enclosingDefs finds, for a local $ref fragment that names nothing from
// the document's root (#/$defs/X..., #/definitions/X...), the nearest schema enclosing the
// $ref (whose mapping is at path) that it names something in, and returns
// that schema's pointer. fromID is set when that schema has an $id, which
// makes it the base JSON Schema resolves the $ref against.
func enclosingDefs(root *yaml.Node, path []string, fragment string) (holder string, fromID bool) {
	if !strings.HasPrefix(fragment, "/$defs/") && !strings.HasPrefix(fragment, "/definitions/") {
		return "", false
	}
	for depth := len(path); depth > 0; depth-- {
		ptr := diag.PointerJoin("", path[:depth]...)
		n := lookupNode(root, ptr, true)
		if n == nil || n.Kind != yaml.MappingNode {
			continue
		}
		found := lookupNode(n, fragment, true) != nil
		if MapValue(n, "$id") != nil {
			// The base JSON Schema resolves against: found or not, no
			// schema further out is what the $ref means.
			if found {
				return ptr, true
			}
			return "", false
		}
		if found {
			return ptr, false
		}
	}
	return "", false
}

// danglingKinds say what a $ref that names nothing becomes, by the
// component kind it names: untyped (the $ref dropped, its siblings kept),
// or a response without a body.
var danglingKinds = map[string]string{
	"schemas": "untyped", "definitions": "untyped", "examples": "untyped", "links": "untyped",
	"responses": "response",
}

// schemaPlaces are the keys whose value is a schema, and schemaMaps
// those whose value maps names to schemas.
var (
	schemaPlaces = map[string]bool{
		"schema": true, "items": true, "additionalProperties": true, "not": true, "contains": true,
		"if": true, "then": true, "else": true, "propertyNames": true, "unevaluatedProperties": true,
		"unevaluatedItems": true, "additionalItems": true, "contentSchema": true,
	}
	schemaMaps = map[string]bool{
		"schemas": true, "definitions": true, "properties": true, "patternProperties": true,
		"$defs": true, "dependentSchemas": true,
	}
)

// refKind is the kind of component (schemas, responses, ...) at the
// pointer tokens: a $ref's target, or where a $ref is written, which
// tells when the target does not (a file of schemas names them #/X).
func refKind(tokens []string) string {
	n := len(tokens)
	switch {
	case n == 3 && tokens[0] == "components":
		return tokens[1]
	case n == 2 && (tokens[0] == "definitions" || tokens[0] == "responses"):
		return tokens[0] // Swagger 2.0
	case n >= 1 && schemaPlaces[tokens[n-1]]:
		return "schemas"
	case n >= 2 && (schemaMaps[tokens[n-2]] || schemaLists[tokens[n-2]]):
		return "schemas"
	case n >= 2 && tokens[n-2] == "responses":
		return "responses"
	}
	return ""
}

// dangling handles the $ref of e, which names nothing in its document.
func dangling(e specEntry, warn func(at *yaml.Node, ptr, msg, hint string), rp *repairs, file string) {
	k, v := e.key(), e.val()
	kind := refKind(strings.Split(strings.TrimPrefix(v.Value[1:], "/"), "/"))
	if kind == "" {
		kind = refKind(e.path)
	}
	hint := "define what it names, or correct the $ref"
	switch danglingKinds[kind] {
	case "untyped":
		warn(k, e.pointer(), fmt.Sprintf("$ref %q names nothing in this document; the value is left untyped (json.RawMessage), so the other operations can still be called", v.Value), hint+"; -strict makes this an error")
		// An extension in the $ref's place keeps the entries where
		// walkSpec expects them, and what the $ref said.
		e.m.Content[e.i] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "x-resgen-dangling-ref", Line: k.Line, Column: k.Column}
	case "response":
		warn(k, e.pointer(), fmt.Sprintf("$ref %q names nothing in this document; the response is read as one without a body", v.Value), hint+"; -strict makes this an error")
		e.m.Content[e.i] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "description", Line: k.Line, Column: k.Column}
		e.m.Content[e.i+1] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "not in the spec: " + v.Value, Line: v.Line, Column: v.Column}
	default:
		rp.add(diag.Diagnostic{Severity: diag.Error, File: file, Line: k.Line, Col: k.Column, Pointer: e.pointer(),
			Msg: fmt.Sprintf("$ref %q names nothing in this document", v.Value), Hint: hint})
	}
}
