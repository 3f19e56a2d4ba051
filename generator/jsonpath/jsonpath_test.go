package jsonpath

import (
	"slices"
	"testing"

	yaml "go.yaml.in/yaml/v4"
)

func TestParseErrors(t *testing.T) {
	for _, bad := range []string{"paths", "$.", "$[", "$['a'", "$[?(@.a == 'x']", "$..", "$[?a]"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q parsed; want an error", bad)
		}
	}
}

// overlayFuzzDoc is the fixed document FuzzOverlayPath selects from: maps,
// lists, nesting, odd keys and an alias.
const overlayFuzzDoc = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      tags: [pets, "a b"]
      parameters:
        - {name: limit, in: query, schema: {type: integer}}
        - {name: "it's", in: header}
      responses:
        "200": {description: ok}
    post:
      operationId: createPet
      x-resilience: {retry: none}
      responses: {"201": {description: created}}
  /pets/{id}:
    get:
      operationId: 'say "hi"'
      responses: {default: {description: error}}
components:
  schemas:
    Pet: &pet {type: object, properties: {id: {type: integer}, "": {type: string}}}
    Alias: *pet
list: [a, 1, [c, d], {e: f}, ~, true]
`

// FuzzOverlayPath parses any overlay target and evaluates it on a fixed
// document: no panic, and every result is a distinct node of the document
// whose parent is the node holding it; evaluating twice gives the same.
func FuzzOverlayPath(f *testing.F) {
	for _, s := range []string{
		"", "$", "$.", "$..", "$[", "$[]", "$['", `$["paths"]`, "$.paths['/pets'].get", "$.paths.*.*",
		"$..operationId", "$..*", "$..[*]", "$..[0,1,-1]", "$.list[-7]", "$.list[99999999999999999999]", "$.list[-]",
		"$.paths[*][?(@.operationId == 'listPets')]", `$..[?@.name != "limit"]`, "$..[?(@.responses)]",
		"$..parameters[?(@['in'] == header)]", "$..[?(@.x-resilience.retry == none)]", `$..['it\'s']`,
		"$[?(", "$[?@", "$[?(@.a ==", "$[?(@['a", "$[?(@.)]", "$.a b", " $ .paths", "$..*..*..*..*",
		"$.components.schemas.Alias.type", "$['', 'info'][*]", "$[?(@ == 'x')]", "$.list[2][1]",
	} {
		f.Add(s)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(overlayFuzzDoc), &doc); err != nil {
		f.Fatal(err)
	}
	root := doc.Content[0]
	// parentOf maps every node to the node holding it (values and list
	// items; a mapping's keys are never selected).
	parentOf := map[*yaml.Node]*yaml.Node{root: nil}
	Walk(Match{Node: root}, func(m Match) { parentOf[m.Node] = m.Parent })
	f.Fuzz(func(t *testing.T, target string) {
		jp, err := Parse(target)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: an empty error", target)
			}
			return
		}
		got := jp.Eval(root)
		if again := jp.Eval(root); !slices.Equal(got, again) {
			t.Fatalf("%q: two evaluations differ", target)
		}
		seen := map[*yaml.Node]bool{}
		for _, m := range got {
			parent, ok := parentOf[m.Node]
			if !ok {
				t.Fatalf("%q selected a node not in the document: %+v", target, m.Node)
			}
			if m.Parent != parent {
				t.Fatalf("%q selected %q with the wrong parent", target, m.Node.Value)
			}
			if seen[m.Node] {
				t.Fatalf("%q selected %q twice", target, m.Node.Value)
			}
			seen[m.Node] = true
		}
	})
}
