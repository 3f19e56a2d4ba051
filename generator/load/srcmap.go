package load

import (
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// srcMap finds the file, line and column of a JSON pointer of the root
// document. kin-openapi's origins stop at extension values and do not
// exist for JSON files, so positions come from our own YAML node tree
// (YAML is a superset of JSON), the same tree overlays and repairs edit:
// a node an overlay added keeps its position in the overlay's file.
type srcMap struct {
	file string // the spec's path as given
	data []byte // the spec as read
	// root is the parsed document, built on first use (load uses it first
	// thing, to check the document).
	root   *yaml.Node
	parsed bool
	// source says which parser built root (treecheck.go).
	source treeSource
	err    error // why data did not parse
	// from names the overlay file of nodes an overlay added.
	from map[*yaml.Node]string
}

// tree returns the document's node tree, parsing it on first use; nil when
// it does not parse (err says why).
func (m *srcMap) tree() *yaml.Node {
	if !m.parsed {
		m.parsed = true
		m.root, m.source, m.err = parseTreeFrom(m.data)
	}
	return m.root
}

// lookup returns the node a pointer ("#/a/b" or "/a/b") names, or nil. For
// a mapping entry the node is the key's, so the position points at the key
// the author wrote, unless value is set.
func (m *srcMap) lookup(ptr string, value bool) *yaml.Node {
	return lookupNode(m.tree(), ptr, value)
}

// lookupNode is lookup in the tree below n.
func lookupNode(n *yaml.Node, ptr string, value bool) *yaml.Node {
	if n == nil {
		return nil
	}
	ptr = strings.TrimPrefix(ptr, "#")
	if ptr == "" {
		return n
	}
	var key *yaml.Node
	for _, t := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		t = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		if key, n = ChildNode(n, t); n == nil {
			return nil
		}
	}
	if !value && key != nil {
		return key
	}
	return n
}

// childNode is one step of a pointer: the value n (aliases followed) holds
// under the unescaped token t, with its key when n is a mapping; nil when
// there is none.
func ChildNode(n *yaml.Node, t string) (key, val *yaml.Node) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == t {
				return n.Content[i], n.Content[i+1]
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(t); err == nil && i >= 0 && i < len(n.Content) {
			return nil, n.Content[i]
		}
	}
	return nil, nil
}

// pos returns the file, 1-based line and column of ptr (0, 0 when
// unknown). It walks up to the nearest ancestor that exists, so a pointer
// to a missing key still lands on its parent.
func (m *srcMap) pos(ptr string) (file string, line, col int) {
	for {
		if n := m.lookup(ptr, false); n != nil {
			if f, ok := m.from[n]; ok {
				return f, n.Line, n.Column
			}
			return m.file, n.Line, n.Column
		}
		i := strings.LastIndex(ptr, "/")
		if i <= 0 {
			return m.file, 0, 0
		}
		ptr = ptr[:i]
	}
}
