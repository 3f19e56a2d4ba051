package load

import (
	"fmt"
	"strings"
	"testing"

	"github.com/resgen/resgen/generator/diag"
	yaml "go.yaml.in/yaml/v4"
)

func TestOverlayActions(t *testing.T) {
	spec := `
openapi: 3.0.3
paths:
  /a: {get: {operationId: a, tags: [x]}, post: {operationId: b}}
  /b: {get: {operationId: c, deprecated: true}}
`
	cases := []struct {
		name, overlay, want string
	}{
		{"merge into every get", `
overlay: 1.0.0
actions:
  - target: $.paths.*.get
    update: {summary: read}`, "/a.get.summary=read /b.get.summary=read"},
		{"append to a list", `
overlay: 1.0.0
actions:
  - target: $.paths['/a'].get.tags
    update: y`, "/a.get.tags=[x,y]"},
		{"remove", `
overlay: 1.0.0
actions:
  - target: $.paths["/a"].post
    remove: true`, "/a.post=<none>"},
		{"filter", `
overlay: 1.0.0
actions:
  - target: $.paths.*[?(@.deprecated == true)]
    update: {summary: old}`, "/b.get.summary=old /a.get.summary=<none>"},
		{"recursive descent", `
overlay: 1.0.0
actions:
  - target: $..[?@.operationId == 'b']
    update: {summary: found}`, "/a.post.summary=found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(spec), &doc); err != nil {
				t.Fatal(err)
			}
			src := &srcMap{file: "spec.yaml", root: doc.Content[0], parsed: true, from: map[*yaml.Node]string{}}
			if _, diags := applyOverlay(src, Overlay{Path: "o.yaml", Data: []byte(c.overlay)}, new(int)); len(diags) > 0 {
				t.Fatal(diags)
			}
			for _, check := range strings.Fields(c.want) {
				path, want, _ := strings.Cut(check, "=")
				ptr := "/paths/" + strings.ReplaceAll(strings.TrimPrefix(path, "/"), ".", "/")
				ptr = strings.Replace(ptr, "/paths/", "/paths/~1", 1)
				n := src.lookup(ptr, true)
				got := "<none>"
				if n != nil {
					got = n.Value
					if n.Kind == yaml.SequenceNode {
						var vals []string
						for _, e := range n.Content {
							vals = append(vals, e.Value)
						}
						got = "[" + strings.Join(vals, ",") + "]"
					}
				}
				if got != want {
					t.Errorf("%s = %s, want %s", path, got, want)
				}
			}
		})
	}
}

// doublingOverlay is k actions, each adding two nodes x-l.x-nK and
// x-r.x-nK under every x-n(K-1): the nodes double with each action. With
// one update shared by its targets, 30 actions (2 KB) were 2^30 paths
// through the tree, and every command ran out of memory.
func doublingOverlay(k int) string {
	var b strings.Builder
	b.WriteString("overlay: 1.0.0\nactions:\n")
	for i := 1; i <= k; i++ {
		fmt.Fprintf(&b, "  - {target: $..x-n%d, update: {x-l: {x-n%d: {}}, x-r: {x-n%d: {}}}}\n", i-1, i, i)
	}
	return b.String()
}

func overlaySrc(t *testing.T, spec string) *srcMap {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(spec), &doc); err != nil {
		t.Fatal(err)
	}
	return &srcMap{file: "spec.yaml", root: doc.Content[0], parsed: true, from: map[*yaml.Node]string{}}
}

// TestOverlayWorkIsBounded: each target gets its own copy of an update,
// and the nodes the overlays add are bounded: the doubling overlay is
// refused at the action that passes maxOverlayNodes, at its target, having
// added at most maxOverlayNodes nodes.
func TestOverlayWorkIsBounded(t *testing.T) {
	src := overlaySrc(t, "openapi: 3.0.3\nx-n0: {}\npaths: {}\n")
	added := 0
	_, diags := applyOverlay(src, Overlay{Path: "o.yaml", Data: []byte(doublingOverlay(30))}, &added)
	if len(diags) != 1 || diags[0].Severity != diag.Error || !strings.Contains(diags[0].Msg, "the overlays add more than 1000000 nodes") ||
		diags[0].File != "o.yaml" || diags[0].Line != 19 || diags[0].Col != 14 {
		t.Fatalf("diags = %v; want one error at o.yaml:19:14, the target of the action that passes the bound", diags)
	}
	if added > maxOverlayNodes {
		t.Fatalf("the overlay added %d nodes, more than %d", added, maxOverlayNodes)
	}
	// What was added is a tree: no node has two parents.
	parents := map[*yaml.Node]int{}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		for _, c := range n.Content {
			if parents[c]++; parents[c] == 1 {
				walk(c)
			}
		}
	}
	walk(src.root)
	for n, p := range parents {
		if p > 1 {
			t.Fatalf("a node (%q at %d:%d) has %d parents", n.Value, n.Line, n.Column, p)
		}
	}
	// added counts each update whole; merged into a mapping, its root
	// mapping is not added.
	if got := len(parents) + 1; got > 6+added || got < 1<<16 {
		t.Fatalf("the tree has %d nodes; want at most the spec's 6 and the %d added, and the 2^16 of the actions applied", got, added)
	}
}

// TestOverlayUpdateIsCopied: an update applied to two targets is two
// copies: a later action that changes one leaves the other as it was, and
// each copy is placed in the overlay's file.
func TestOverlayUpdateIsCopied(t *testing.T) {
	src := overlaySrc(t, "openapi: 3.0.3\npaths:\n  /a: {get: {operationId: a}}\n  /b: {get: {operationId: b}}\n")
	ov := "overlay: 1.0.0\nactions:\n  - target: $.paths.*.get\n    update: {x-resilience: {retry: r}}\n" +
		"  - target: $.paths['/a'].get.x-resilience\n    update: {retry: s}\n"
	if _, diags := applyOverlay(src, Overlay{Path: "o.yaml", Data: []byte(ov)}, new(int)); len(diags) > 0 {
		t.Fatal(diags)
	}
	a, b := src.lookup("/paths/~1a/get/x-resilience/retry", true), src.lookup("/paths/~1b/get/x-resilience/retry", true)
	if a == nil || b == nil || a.Value != "s" || b.Value != "r" {
		t.Fatalf("retry of /a = %v, of /b = %v; want s and r", a, b)
	}
	if f := src.from[src.lookup("/paths/~1b/get/x-resilience", true)]; f != "o.yaml" {
		t.Fatalf("the copy is placed in %q, want o.yaml", f)
	}
}

// FuzzApplyOverlay applies an overlay of any bytes to a small spec: it must
// not panic, must give errors with positions in the overlay's file, must
// add at most maxOverlayNodes nodes, and must leave a tree (no node under
// two parents, so what is written out is what was walked).
func FuzzApplyOverlay(f *testing.F) {
	for _, s := range []string{
		"overlay: 1.0.0\nactions:\n  - target: $.paths.*.get\n    update: {summary: read}\n",
		"overlay: 1.0.0\nactions:\n  - target: $.paths['/a'].get.tags\n    update: y\n",
		"overlay: 1.0.0\nactions:\n  - {target: $..x-n0, update: &u {x-l: {x-n1: {}}, x-r: *u}}\n",
		"overlay: 1.0.0\nactions:\n  - {target: '$..*', update: {a: &a [1, 2], b: *a}}\n  - {target: '$..a', update: 3}\n",
		"overlay: 1.0.0\nactions:\n  - {target: $.paths, remove: true}\n---\nx: 1\n",
		doublingOverlay(4),
	} {
		f.Add([]byte(s))
	}
	const spec = "openapi: 3.0.3\nx-n0: {}\npaths:\n  /a: {get: {operationId: a, tags: [x]}, post: {operationId: b}}\n  /b: {get: {operationId: c}}\n"
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4<<10 {
			return
		}
		src := overlaySrc(t, spec)
		added := 0
		_, diags := applyOverlay(src, Overlay{Path: "o.yaml", Data: data}, &added)
		for _, d := range diags {
			if d.File != "o.yaml" || d.Msg == "" {
				t.Fatalf("a diagnostic not in the overlay's file, or empty: %v", d)
			}
		}
		if added > maxOverlayNodes {
			t.Fatalf("added %d nodes", added)
		}
		seen := map[*yaml.Node]bool{}
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			for _, c := range n.Content {
				if seen[c] {
					t.Fatalf("a node (%q) is under two parents", c.Value)
				}
				seen[c] = true
				if c.Kind == yaml.AliasNode {
					t.Fatalf("an alias (*%s) was written into the spec", c.Value)
				}
				walk(c)
			}
		}
		walk(src.root)
	})
}
