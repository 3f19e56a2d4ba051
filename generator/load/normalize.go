package load

import (
	"fmt"
	"net/url"
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
	swagger := isSwagger2(root)
	hoisted := map[*yaml.Node]string{} // wrongKind's copies, by the schema copied
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
			if t := lookup.lookup(v.Value[1:]); t != nil {
				if refKind(e.path) == "schemas" {
					wrongKind(e, t, root, swagger, hoisted, warn, rp, file)
				}
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

// wrongKind handles the $ref of e, written where a schema belongs, whose
// target (which exists) is another kind of component: a response, a
// parameter, a request body or a header. Real specs do this (a schema
// $ref to a response; a Swagger 2.0 schema $ref to a body parameter), and
// kin-openapi refuses them with no position, or with the position of
// another, correct $ref to the same component. When the component holds
// one schema, that schema is what the author meant: the $ref is read as a
// $ref to it, with a warning at the $ref. An inline schema is copied once
// into the document's schemas (components/schemas, or definitions in
// Swagger 2.0, whose conversion moves body parameters where no pointer
// reaches them) under the component's name. Otherwise it is an error at
// the $ref.
func wrongKind(e specEntry, target *yaml.Node, root *yaml.Node, swagger bool, hoisted map[*yaml.Node]string, warn func(at *yaml.Node, ptr, msg, hint string), rp *repairs, file string) {
	k, v := e.key(), e.val()
	tokens := strings.Split(strings.TrimPrefix(v.Value[1:], "/"), "/")
	var kind string
	switch {
	case len(tokens) == 3 && tokens[0] == "components":
		kind = tokens[1]
	case len(tokens) == 2 && swagger:
		kind = tokens[0]
	}
	what := map[string]string{"responses": "a response", "parameters": "a parameter", "requestBodies": "a request body", "headers": "a header"}[kind]
	if what == "" || target.Kind != yaml.MappingNode {
		return
	}
	hint := "write a $ref to the schema itself (components/schemas, or definitions in Swagger 2.0)"
	refuse := func(why string) {
		rp.add(diag.Diagnostic{Severity: diag.Error, File: file, Line: k.Line, Col: k.Column, Pointer: e.pointer(),
			Msg: fmt.Sprintf("$ref %q is where a schema belongs, but it names %s, %s", v.Value, what, why), Hint: hint})
	}
	schema := componentSchema(target)
	if schema == nil {
		refuse("which holds no single schema to read instead")
		return
	}
	to, copied := hoisted[schema], true
	switch ref := MapValue(schema, "$ref"); {
	case to != "":
	case ref != nil && ref.Kind == yaml.ScalarNode && strings.HasPrefix(ref.Value, "#") && len(schema.Content) == 2:
		to, copied = ref.Value, false // the schema is a $ref itself: the same target
	case nodes(schema, maxCopied) > maxCopied:
		refuse("whose schema is too large to copy")
		return
	default:
		name := tokens[len(tokens)-1]
		if u, err := url.PathUnescape(name); err == nil {
			name = u
		}
		to = hoist(root, swagger, strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~"), schema)
		if to == "" {
			refuse("and the document's schemas cannot take a copy of its schema")
			return
		}
		hoisted[schema] = to
	}
	as := to
	if copied {
		as = "copied to " + to
	}
	warn(k, e.pointer(), fmt.Sprintf("repaired: $ref %q is where a schema belongs, but it names %s; it is read as the schema that %s holds, %s", v.Value, what, strings.TrimPrefix(what, "a "), as), hint)
	v.Value = to
}

// hoist copies schema into the document's schemas (components/schemas,
// or Swagger 2.0's definitions) under name, or name with a number when
// that is taken, and returns the $ref to the copy; "" when the schemas
// are not a map.
func hoist(root *yaml.Node, swagger bool, name string, schema *yaml.Node) string {
	str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
	child := func(m *yaml.Node, key string) *yaml.Node {
		c := MapValue(m, key)
		if c == nil {
			c = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			m.Content = append(m.Content, str(key), c)
		}
		return c
	}
	var schemas *yaml.Node
	prefix := "#/definitions/"
	if swagger {
		schemas = child(root, "definitions")
	} else if c := child(root, "components"); c.Kind == yaml.MappingNode {
		schemas, prefix = child(c, "schemas"), "#/components/schemas/"
	}
	if schemas == nil || schemas.Kind != yaml.MappingNode {
		return ""
	}
	free := name
	for i := 2; MapValue(schemas, free) != nil; i++ {
		free = name + strconv.Itoa(i)
	}
	schemas.Content = append(schemas.Content, str(free), copyNode(schema))
	return prefix + strings.ReplaceAll(strings.ReplaceAll(free, "~", "~0"), "/", "~1")
}

// componentSchema is the one schema a response, parameter, request body
// or header holds (its schema, or the schema of its only media type); nil
// when it has none or several.
func componentSchema(c *yaml.Node) *yaml.Node {
	if s := MapValue(c, "schema"); s != nil && s.Kind == yaml.MappingNode {
		return s
	}
	content := MapValue(c, "content")
	if content == nil || content.Kind != yaml.MappingNode || len(content.Content) != 2 {
		return nil
	}
	if s := MapValue(content.Content[1], "schema"); s != nil && s.Kind == yaml.MappingNode {
		return s
	}
	return nil
}

// maxCopied bounds the nodes of a schema wrongKind copies.
const maxCopied = 10000

// nodes counts the nodes of n, stopping past limit.
func nodes(n *yaml.Node, limit int) int {
	c := 1
	for _, x := range n.Content {
		if c > limit {
			break
		}
		c += nodes(x, limit-c)
	}
	if n.Kind == yaml.AliasNode {
		c = limit + 1 // an alias may expand to anything: not copied
	}
	return c
}

// copyNode is a deep copy of n.
func copyNode(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = copyNode(x)
	}
	return &c
}
