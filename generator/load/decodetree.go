package load

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	yaml "go.yaml.in/yaml/v4"
)

// decodeTree is kin-openapi's load of a spec from the node tree we parsed
// already, for a spec of one file. kin-openapi parses every document with
// go-yaml, JSON too, prepares the tree's scalars (see treeIsKins) and
// decodes it with its types' UnmarshalYAML methods; our tree is that same
// tree (go-yaml's, or for JSON internal/jsontree's, tested node by node
// against go-yaml's), so decoding it here is the same decode without the
// second parse, the costliest step of a load (0.9 s of Cloudflare's
// 1.2 s). Refs resolve as LoadFromData resolves them: every $ref is within
// the document (the caller checks), so there is no file to locate them
// against. TestDecodedTreeIsKinsOwnLoad compares the documents.
func decodeTree(loader *openapi3.Loader, root *yaml.Node) (*openapi3.T, error) {
	doc := &openapi3.T{}
	if err := root.Decode(doc); err != nil {
		return nil, err
	}
	if err := loader.ResolveRefsIn(doc, nil); err != nil {
		return nil, err
	}
	return doc, nil
}

// surrogateEscape matches a \u escape of a UTF-16 surrogate, which YAML
// refuses and JSON decoders read.
var surrogateEscape = regexp.MustCompile(`\\u[dD][89abAB]|\\u[dD][c-fC-F]`)

// yamlReadsAsJSON reports whether YAML reads JSON data as JSON does:
// YAML refuses some characters JSON allows raw (DEL, the C1 controls,
// U+FFFE and U+FFFF) and escapes of surrogates, and kin-openapi then
// decodes such a document through encoding/json instead, which gives
// extension values other types. A key longer than YAML's 1024-character
// limit on implicit keys is refused too (see readsApart). The test is
// conservative: an escaped backslash before "ud800" also says no.
func yamlReadsAsJSON(data []byte) bool {
	if bytes.IndexByte(data, 0x7f) >= 0 || bytes.Contains(data, []byte("\uFFFE")) || bytes.Contains(data, []byte("\uFFFF")) {
		return false
	}
	for i := bytes.IndexByte(data, 0xc2); i >= 0; {
		if i+1 < len(data) && data[i+1] >= 0x80 && data[i+1] <= 0x9f {
			return false
		}
		j := bytes.IndexByte(data[i+1:], 0xc2)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return !surrogateEscape.Match(data)
}

// readsApart reports whether kin-openapi would read part of the tree
// below n apart from the decode: a discriminator's mapping to a schema in
// another file ("pets.json#/Dog"), resolved against the document's
// location, or a key too long for YAML's implicit keys, which makes
// go-yaml refuse JSON and kin-openapi fall back to encoding/json.
func readsApart(n *yaml.Node) bool {
	if n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode {
		return false
	}
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			if len(c.Value) > 1000 {
				return true
			}
			if c.Value == "discriminator" && i+1 < len(n.Content) {
				if _, m := ChildNode(n.Content[i+1], "mapping"); m != nil && m.Kind == yaml.MappingNode {
					for j := 1; j < len(m.Content); j += 2 {
						if v := m.Content[j].Value; bytes.ContainsRune([]byte(v), '/') && v[0] != '#' {
							return true
						}
					}
				}
			}
			continue
		}
		if readsApart(c) {
			return true
		}
	}
	return false
}

// treeIsKins reports whether root, parsed from data by source, is the tree
// kin-openapi decodes for data: the tree its own go-yaml parse builds, and
// one its scalar preparation leaves as it is. kin-openapi retags local
// tags, timestamps and non-string keys as strings, refuses infinities,
// null keys and alias cycles, and merges "<<" keys itself; a tree with
// any of them, or with an alias at all, is left to kin-openapi. So is a
// spec whose discriminator maps to another file, data with a raw U+0085
// (kin-openapi reads that JSON with encoding/json), and JSON that YAML
// would not read as JSON (yamlReadsAsJSON).
func treeIsKins(source treeSource, data []byte, root *yaml.Node) bool {
	switch source {
	case fromJSONTree:
		if !yamlReadsAsJSON(data) {
			return false
		}
	case fromYAML:
		if bytes.Contains(data, []byte("\u0085")) {
			return false
		}
	default:
		return false
	}
	return !readsApart(root) && !needsPreparing(root)
}

// needsPreparing reports whether kin-openapi's scalar preparation would
// change or refuse the tree below n (see treeIsKins).
func needsPreparing(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.AliasNode:
		return true
	case yaml.ScalarNode:
		switch {
		case n.Tag == "!!timestamp", strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!"):
			return true
		case n.Tag == "!!float":
			switch strings.ToLower(strings.TrimLeft(n.Value, "+-")) {
			case ".inf", ".nan":
				return true
			}
		}
		return false
	}
	if n.Anchor != "" {
		return true
	}
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 && (c.Kind != yaml.ScalarNode || c.Tag != "!!str") {
			return true
		}
		if needsPreparing(c) {
			return true
		}
	}
	return false
}
