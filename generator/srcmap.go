package generator

import (
	"strconv"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v4"
)

// srcMap finds the line and column of a JSON pointer in one file's raw
// bytes. kin-openapi's origins stop at extension values and do not exist
// for JSON files, so positions come from our own YAML node tree (YAML is a
// superset of JSON). The tree is built on first use: most runs report no
// diagnostic and never pay for it.
type srcMap struct {
	data []byte
	once sync.Once
	root *yaml.Node
}

func newSrcMap(data []byte) *srcMap { return &srcMap{data: data} }

func (m *srcMap) tree() *yaml.Node {
	m.once.Do(func() {
		var doc yaml.Node
		if err := yaml.Unmarshal(m.data, &doc); err == nil && len(doc.Content) > 0 {
			m.root = doc.Content[0]
		}
	})
	return m.root
}

// lookup returns the node a pointer ("#/a/b" or "/a/b") names, or nil. For
// a mapping entry the node is the key's, so the position points at the key
// the author wrote; value reports whether the caller wants the value node.
func (m *srcMap) lookup(ptr string, value bool) *yaml.Node {
	n := m.tree()
	if n == nil {
		return nil
	}
	ptr = strings.TrimPrefix(ptr, "#")
	if ptr == "" {
		return n
	}
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	var key *yaml.Node
	for _, t := range toks {
		t = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		switch n.Kind {
		case yaml.MappingNode:
			found := false
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == t {
					key, n = n.Content[i], n.Content[i+1]
					found = true
					break
				}
			}
			if !found {
				return nil
			}
		case yaml.SequenceNode:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(n.Content) {
				return nil
			}
			key, n = nil, n.Content[i]
		default:
			return nil
		}
	}
	if !value && key != nil {
		return key
	}
	return n
}

// pos returns the 1-based line and column of ptr, or 0, 0 when unknown. It
// walks up to the nearest ancestor that exists, so a pointer to a missing
// key still lands on its parent.
func (m *srcMap) pos(ptr string) (line, col int) {
	for {
		if n := m.lookup(ptr, false); n != nil {
			return n.Line, n.Column
		}
		i := strings.LastIndex(ptr, "/")
		if i <= 0 {
			return 0, 0
		}
		ptr = ptr[:i]
	}
}
