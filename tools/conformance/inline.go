package conformance

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v4"
)

var methods = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "options": true, "head": true, "patch": true, "trace": true}

// inlineOperationRefs replaces each operation written as {$ref: file}
// (not OpenAPI, which kin-openapi ignores, but resgen reads them) with the
// file's content, its relative $refs rewritten against the spec's folder.
// It returns the new document and how many it inlined (0: data unchanged).
func inlineOperationRefs(specPath string, data []byte) ([]byte, int) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 {
		return data, 0
	}
	paths := mapGet(root.Content[0], "paths")
	if paths == nil || paths.Kind != yaml.MappingNode {
		return data, 0
	}
	dir := filepath.Dir(specPath)
	n := 0
	before, _ := yaml.Marshal(&root)
	inlineMapRefs(root.Content[0], dir, 0)
	if after, _ := yaml.Marshal(&root); !bytes.Equal(before, after) {
		n++
	}
	for i := 1; i < len(paths.Content); i += 2 {
		item := paths.Content[i]
		if item.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(item.Content); j += 2 {
			if !methods[strings.ToLower(item.Content[j].Value)] {
				continue
			}
			op := item.Content[j+1]
			ref := mapGet(op, "$ref")
			if op.Kind != yaml.MappingNode || len(op.Content) != 2 || ref == nil || strings.HasPrefix(ref.Value, "#") || strings.Contains(ref.Value, "://") {
				continue
			}
			file, frag, _ := strings.Cut(ref.Value, "#")
			if frag != "" || filepath.IsAbs(file) || strings.HasPrefix(path.Clean(file), "..") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
			if err != nil {
				continue
			}
			var sub yaml.Node
			if yaml.Unmarshal(b, &sub) != nil || len(sub.Content) == 0 {
				continue
			}
			rebase(sub.Content[0], file)
			inlineMapRefs(sub.Content[0], dir, 0)
			item.Content[j+1] = sub.Content[0]
			n++
		}
	}
	if n == 0 {
		return data, 0
	}
	out, err := yaml.Marshal(&root)
	if err != nil {
		return data, 0
	}
	return out, n
}

// rebase rewrites the $refs of a node read from file (relative to the
// spec's folder) so that they resolve the same from the spec itself.
func rebase(n *yaml.Node, file string) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "$ref" && v.Kind == yaml.ScalarNode {
				v.Value = rebaseRef(v.Value, file)
				continue
			}
			if k.Value == "mapping" && v.Kind == yaml.MappingNode {
				// Discriminator mapping values that are refs, not names.
				for j := 1; j < len(v.Content); j += 2 {
					if m := v.Content[j]; m.Kind == yaml.ScalarNode && strings.ContainsAny(m.Value, "#/") {
						m.Value = rebaseRef(m.Value, file)
					}
				}
				continue
			}
			rebase(v, file)
		}
		return
	}
	for _, c := range n.Content {
		rebase(c, file)
	}
}

func rebaseRef(ref, file string) string {
	if strings.Contains(ref, "://") {
		return ref
	}
	target, frag, hasFrag := strings.Cut(ref, "#")
	if target == "" {
		target = file
	} else if !path.IsAbs(target) {
		target = path.Join(path.Dir(file), target)
	}
	if hasFrag {
		target += "#" + frag
	}
	return target
}

func mapGet(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// inlineMapRefs replaces a properties map written as {$ref: file} (a ref
// standing for a whole map, which kin-openapi cannot decode) with the file.
func inlineMapRefs(n *yaml.Node, dir string, depth int) {
	if depth > 64 {
		return
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "properties" && v.Kind == yaml.MappingNode && len(v.Content) == 2 && v.Content[0].Value == "$ref" {
				file, frag, _ := strings.Cut(v.Content[1].Value, "#")
				if file != "" && !strings.Contains(file, "://") && !strings.HasPrefix(path.Clean(file), "..") {
					if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file))); err == nil {
						var sub yaml.Node
						if yaml.Unmarshal(b, &sub) == nil && len(sub.Content) > 0 {
							if target := pointer(sub.Content[0], frag); target != nil {
								rebase(target, file)
								n.Content[i+1] = target
								v = target
							}
						}
					}
				}
			}
			inlineMapRefs(v, dir, depth+1)
		}
		return
	}
	for _, c := range n.Content {
		inlineMapRefs(c, dir, depth+1)
	}
}

// pointer follows a JSON pointer ("" or "/a/b") inside a YAML node.
func pointer(n *yaml.Node, ptr string) *yaml.Node {
	if ptr == "" || ptr == "/" {
		return n
	}
	for _, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		if n = mapGet(n, seg); n == nil {
			return nil
		}
	}
	return n
}

// inlineFileMapRefs applies inlineMapRefs to a file $refs read (relative
// refs resolve against its own folder).
func inlineFileMapRefs(file string, data []byte) []byte {
	if !bytes.Contains(data, []byte("properties")) {
		return data
	}
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 {
		return data
	}
	before, _ := yaml.Marshal(&root)
	inlineMapRefs(root.Content[0], filepath.Dir(file), 0)
	after, err := yaml.Marshal(&root)
	if err != nil || bytes.Equal(before, after) {
		return data
	}
	return after
}
