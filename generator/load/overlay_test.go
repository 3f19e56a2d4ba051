package load

import (
	"strings"
	"testing"

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
			if _, diags := applyOverlay(src, Overlay{Path: "o.yaml", Data: []byte(c.overlay)}); len(diags) > 0 {
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
