package load

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/jsonpath"
	"github.com/resgen/resgen/internal/rawval"
	yaml "go.yaml.in/yaml/v4"
)

// OpenAPI Overlay 1.0: users annotate specs they do not own by keeping
// x-resilience in a separate document of actions, each a JSONPath target
// plus an update to merge into every node it selects, or remove: true.
// Overlays are applied in order to the spec's node tree before loading;
// nodes they add keep their positions in the overlay's file, so an error
// inside an overlay's x-resilience names the overlay's file and line.

type Overlay struct {
	Path string
	Data []byte
}

var overlayActionKeys = []string{"target", "description", "update", "remove"}

// maxOverlayNodes bounds the nodes the overlays of one run add to the
// spec: each target gets its own copy of an action's update, so an update
// copied into many targets, or actions that each double what the one
// before added (2^K nodes for K actions), are refused as bad input.
// Overlays of real specs add tens of thousands at most.
const maxOverlayNodes = 1_000_000

// applyOverlay applies one overlay to src's tree and returns how many
// nodes it changed. added counts the nodes the overlays of the run added
// (maxOverlayNodes).
func applyOverlay(src *srcMap, o Overlay, added *int) (changed int, diags diag.Diagnostics) {
	errAt := func(n *yaml.Node, sev diag.Severity, format string, args ...any) {
		d := diag.Diagnostic{Severity: sev, File: o.Path, Msg: fmt.Sprintf(format, args...)}
		if n != nil {
			d.Line, d.Col = n.Line, n.Column
		}
		diags = append(diags, d)
	}
	var doc yaml.Node
	err := yaml.Unmarshal(o.Data, &doc)
	if err == nil {
		err = secondDocument(o.Data)
	}
	if de, ok := errors.AsType[*docError](err); ok {
		return 0, diag.Diagnostics{{Severity: diag.Error, File: o.Path, Line: de.line, Col: de.col, Msg: strings.Replace(de.msg, "a spec", "an overlay", 1)}}
	}
	if err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		d := diag.Diagnostic{Severity: diag.Error, File: o.Path, Msg: "cannot load overlay: not a YAML or JSON object"}
		if err != nil {
			d.Msg = "cannot load overlay: " + err.Error()
			if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
				d.Line, _ = strconv.Atoi(m[1])
			}
		}
		return 0, diag.Diagnostics{d}
	}
	root := doc.Content[0]
	if ds := checkTree(o.Path, root); ds != nil {
		return 0, ds
	}
	if v := MapValue(root, "overlay"); v == nil || !strings.HasPrefix(v.Value, "1.") {
		errAt(root, diag.Error, "not an OpenAPI Overlay 1.x document: it needs `overlay: 1.0.0`")
		return 0, diags
	}
	actions := MapValue(root, "actions")
	if actions == nil || actions.Kind != yaml.SequenceNode {
		errAt(root, diag.Error, "an overlay needs a list of actions")
		return 0, diags
	}
	for _, a := range actions.Content {
		if a.Kind != yaml.MappingNode {
			errAt(a, diag.Error, "an overlay action must be an object")
			continue
		}
		for i := 0; i+1 < len(a.Content); i += 2 {
			k := a.Content[i].Value
			if !slices.Contains(overlayActionKeys, k) && !strings.HasPrefix(k, "x-") {
				msg := fmt.Sprintf("unknown key %q in overlay action", k)
				if s := rawval.Suggest(k, overlayActionKeys); s != "" {
					msg += fmt.Sprintf("; did you mean %q?", s)
				}
				errAt(a.Content[i], diag.Error, "%s", msg)
			}
		}
		target := MapValue(a, "target")
		if target == nil || target.Kind != yaml.ScalarNode {
			errAt(a, diag.Error, "an overlay action needs a target (a JSONPath such as $.paths['/pets'].get)")
			continue
		}
		path, err := jsonpath.Parse(target.Value)
		if err != nil {
			errAt(target, diag.Error, "bad JSONPath %q: %v", target.Value, err)
			continue
		}
		matches := path.Eval(src.tree())
		if len(matches) == 0 {
			errAt(target, diag.Warning, "target %s selects nothing in the spec", target.Value)
			continue
		}
		if rm := MapValue(a, "remove"); rm != nil && rm.Value == "true" {
			changed += removeNodes(matches)
			continue
		}
		update := MapValue(a, "update")
		if update == nil {
			errAt(a, diag.Error, "an overlay action needs update or remove: true")
			continue
		}
		// Each target gets a copy: an update shared by its targets would
		// be one node under many parents, which the next action's target
		// selects through each of them, and the tree, walked or written
		// out, has as many copies as paths to it.
		size := nodeSize(update)
		if *added+min(len(matches)*size, maxOverlayNodes+1) > maxOverlayNodes {
			errAt(target, diag.Error, "the overlays add more than %d nodes to the spec: this action's update (%d nodes) goes into each of the %d nodes target %s selects",
				maxOverlayNodes, size, len(matches), target.Value)
			return changed, diags
		}
		for _, m := range matches {
			switch m.Node.Kind {
			case yaml.MappingNode:
				if update.Kind != yaml.MappingNode {
					errAt(update, diag.Error, "target %s is an object; its update must be an object too", target.Value)
					continue
				}
				*added += size
				mergeInto(m.Node, copyUpdate(update, src.from, o.Path))
			case yaml.SequenceNode:
				*added += size
				m.Node.Content = append(m.Node.Content, copyUpdate(update, src.from, o.Path))
			default:
				errAt(target, diag.Error, "target %s selects a %s; only objects and lists can be updated", target.Value, kindName(m.Node))
				continue
			}
			changed++
		}
	}
	return changed, diags
}

func kindName(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return "value (" + n.Value + ")"
	}
	return "node"
}

func markFrom(from map[*yaml.Node]string, n *yaml.Node, file string) {
	from[n] = file
	for _, c := range n.Content {
		markFrom(from, c, file)
	}
}

// copyUpdate is a deep copy of n, aliases expanded and anchors dropped (the
// copy is written into the spec, where the overlay's anchors are not),
// each node marked as from the overlay's file.
func copyUpdate(n *yaml.Node, from map[*yaml.Node]string, file string) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	c := *n
	c.Anchor = ""
	if len(n.Content) > 0 {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, child := range n.Content {
			c.Content[i] = copyUpdate(child, from, file)
		}
	}
	from[&c] = file
	return &c
}

// nodeSize is how many nodes copyUpdate makes of n (checkTree bounds the
// aliases of the overlay's document).
func nodeSize(n *yaml.Node) int {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	size := 1
	for _, c := range n.Content {
		size += nodeSize(c)
	}
	return size
}

// mergeInto merges update's keys into target: objects recursively, any
// other value replaces the target's.
func mergeInto(target, update *yaml.Node) {
	for i := 0; i+1 < len(update.Content); i += 2 {
		k, v := update.Content[i], update.Content[i+1]
		if old := MapValue(target, k.Value); old != nil {
			if old.Kind == yaml.MappingNode && v.Kind == yaml.MappingNode {
				mergeInto(old, v)
				continue
			}
			for j := 0; j+1 < len(target.Content); j += 2 {
				if target.Content[j].Value == k.Value {
					target.Content[j+1] = v
				}
			}
			continue
		}
		target.Content = append(target.Content, k, v)
	}
}

// removeNodes deletes every match from its parent.
func removeNodes(ms []jsonpath.Match) int {
	gone := map[*yaml.Node]bool{}
	for _, m := range ms {
		if m.Parent != nil {
			gone[m.Node] = true
		}
	}
	parents := map[*yaml.Node]bool{}
	for _, m := range ms {
		if m.Parent != nil {
			parents[m.Parent] = true
		}
	}
	for p := range parents {
		kept := p.Content[:0]
		if p.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(p.Content); i += 2 {
				if !gone[p.Content[i+1]] {
					kept = append(kept, p.Content[i], p.Content[i+1])
				}
			}
		} else {
			for _, c := range p.Content {
				if !gone[c] {
					kept = append(kept, c)
				}
			}
		}
		p.Content = kept
	}
	return len(gone)
}
