package build

import (
	"fmt"
	"slices"

	"github.com/resgen/resgen/generator/diag"
	"go.yaml.in/yaml/v4"
)

// goTypeExtensions are oapi-codegen's Go-type extensions, which specs and
// overlays written for it carry. resgen does not honour them yet: rather
// than ignore them silently, build reports each one it finds.
var goTypeExtensions = []string{"x-go-name", "x-go-type", "x-go-type-import", "x-go-type-skip-optional-pointer"}

// maxExtensionDepth bounds the walk over the spec's tree: a spec is
// untrusted input, and its nesting is the only thing that sizes the walk.
const maxExtensionDepth = 256

// warnGoTypeExtensions reports, for each extension of goTypeExtensions the
// spec uses, one unsupported: warning at its first place with the count.
func (b *builder) warnGoTypeExtensions() {
	root := b.s.Tree()
	if root == nil {
		return
	}
	found := map[string][]string{} // extension -> pointers, in document order
	var walk func(n *yaml.Node, ptr string, depth int)
	walk = func(n *yaml.Node, ptr string, depth int) {
		if n == nil || depth > maxExtensionDepth {
			return
		}
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, ptr, depth+1)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				p := diag.PointerJoin(ptr, k)
				if slices.Contains(goTypeExtensions, k) {
					found[k] = append(found[k], p)
					continue
				}
				walk(n.Content[i+1], p, depth+1)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, diag.PointerJoin(ptr, fmt.Sprint(i)), depth+1)
			}
		}
	}
	walk(root, "", 0)
	for _, ext := range goTypeExtensions {
		ptrs := found[ext]
		if len(ptrs) == 0 {
			continue
		}
		places := "1 place uses"
		if len(ptrs) > 1 {
			places = fmt.Sprintf("%d places use", len(ptrs))
		}
		msg := fmt.Sprintf("unsupported: %s %s (oapi-codegen's extension); resgen does not honour it yet: the generated Go names and types are resgen's own", places, ext)
		if len(ptrs) > 1 {
			msg += "; this is the first"
		}
		b.diags = append(b.diags, b.s.Diag(diag.Warning, ptrs[0], msg, "remove it to silence this warning: the client works without it"))
	}
}
