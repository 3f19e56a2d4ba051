package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/internal/jsontree"
	yaml "go.yaml.in/yaml/v4"
)

// Checks on a parsed document, before kin-openapi decodes it: a spec must
// not make the loader do unbounded work. kin-openapi decodes each nested
// node on its own, so go-yaml's guard against alias bombs never sees the
// whole expansion; and it resolves a $ref by copying its target without
// remembering the result, so chains of $refs cost the square of their
// length (10,000 of them took a minute).
const (
	// maxAliasNodes bounds the nodes YAML aliases add to one document when
	// expanded: 18 levels of two aliases each are 1.4 KB and 2^18 copies.
	maxAliasNodes = 100_000
	// maxKeyPairs bounds the pairs of keys of all mappings of a document
	// (n keys make n²/2): go-yaml compares every two keys of a mapping to
	// find duplicates, 20 ns a pair. Cloudflare's spec has 7.6 million;
	// the limit, one mapping of 14,000 keys, costs about 2 s.
	maxKeyPairs = 100_000_000
	// maxRefDepth bounds a chain of $refs, each inside what the previous
	// one names (S0 → S1 → …, directly or through a property). The specs
	// of the corpus need at most 27 (Stripe).
	maxRefDepth = 1000
	// maxRefSteps bounds the $refs the loader follows, as it follows the
	// whole chain below each $ref anew: each $ref counts 1 plus the
	// longest chain below what it names. Cloudflare's spec needs 23,000;
	// the limit costs about 3 s.
	maxRefSteps = 1_000_000
	// maxRefVisits bounds the nodes the validator visits: it walks each
	// component and each path item with everything it refers to,
	// directly or not, anew, about 0.13 µs a node. Stripe's spec needs
	// 16.3 million (2.2 s); the limit is about 7 s.
	maxRefVisits = 50_000_000
	// MaxNameBytes bounds the spec text that becomes a name: mapping keys
	// (paths, schema, property and header names), operationIds, parameter
	// names, tags and enum values (and, checked by generator/policy, the
	// names of policies and idempotency headers). Each is repeated many times
	// in the generated code (types, methods, constants, comments): 150
	// operationIds of 200 KB made a 332 MB Go file. The longest in the
	// corpus are about 200 bytes (Azure, Microsoft Graph).
	MaxNameBytes = 1024
)

// checkTree refuses what would make decoding blow up, and what JSON
// decoders accept silently: YAML aliases that expand beyond maxAliasNodes,
// and a key written twice in one mapping.
func checkTree(file string, root *yaml.Node) diag.Diagnostics {
	c := &treeCheck{file: file}
	c.walk(root, false)
	if c.added > maxAliasNodes {
		c.diags = append(c.diags, diag.Diagnostic{Severity: diag.Error, File: file, Line: c.worst.Line, Col: c.worst.Column,
			Msg:  fmt.Sprintf("YAML aliases expand this document by more than %d nodes; *%s alone expands to %d", maxAliasNodes, c.worst.Value, c.worstSize),
			Hint: "write what is shared once, as a component, and $ref it"})
	}
	if c.pairs > maxKeyPairs {
		c.diags = append(c.diags, diag.Diagnostic{Severity: diag.Error, File: file, Line: c.biggest.Line, Col: c.biggest.Column,
			Msg:  fmt.Sprintf("the mappings of this document are too big to decode: more than %d pairs of keys to compare; this one has %d keys", maxKeyPairs, len(c.biggest.Content)/2),
			Hint: "split it into smaller mappings or files"})
	}
	return c.diags
}

type treeCheck struct {
	file string
	// sizes is the expanded size of each anchored node, known before its
	// aliases: an anchor comes first in the document.
	sizes     map[*yaml.Node]int
	added     int        // nodes the aliases add, saturated
	worst     *yaml.Node // the alias that adds most
	worstSize int
	pairs     int        // pairs of keys in all mappings, saturated
	biggest   *yaml.Node // the mapping with most keys
	diags     diag.Diagnostics
}

// sizeCap keeps sizes from overflowing: 60 levels of aliases are 2^60.
const sizeCap = 1 << 40

// walk returns n's size with its aliases expanded. free says n is a value
// no name comes from (an example, a default, an extension's: generator/policy
// checks x-resilience's names), whose keys may be as long as they are.
func (c *treeCheck) walk(n *yaml.Node, free bool) int {
	if n.Kind == yaml.AliasNode {
		s, ok := c.sizes[n.Alias]
		if !ok {
			// Anchors come first, so this alias is inside its own anchor:
			// the tree is a cycle, which nothing may walk.
			c.diags = append(c.diags, diag.Diagnostic{Severity: diag.Error, File: c.file, Line: n.Line, Col: n.Column,
				Msg: fmt.Sprintf("the YAML alias *%s is inside its own anchor", n.Value)})
			return 1
		}
		c.added = min(c.added+s, sizeCap)
		if s > c.worstSize {
			c.worst, c.worstSize = n, s
		}
		return s
	}
	if n.Kind == yaml.MappingNode {
		c.duplicateKeys(n)
		k := len(n.Content) / 2
		c.pairs = min(c.pairs+k*k/2, sizeCap)
		if c.biggest == nil || k > len(c.biggest.Content)/2 {
			c.biggest = n
		}
	}
	size := 1
	for i, child := range n.Content {
		childFree := free
		if n.Kind == yaml.MappingNode && i%2 == 1 && !free {
			childFree = c.names(n.Content[i-1], child)
		}
		size = min(size+c.walk(child, childFree), sizeCap)
	}
	if n.Anchor != "" {
		if c.sizes == nil {
			c.sizes = map[*yaml.Node]int{}
		}
		c.sizes[n] = size
	}
	return size
}

// names reports a key, or a name its value gives (operationId, name,
// tags, enum), longer than maxNameBytes, and says whether v is free-form
// (see walk).
func (c *treeCheck) names(k, v *yaml.Node) (free bool) {
	if strings.HasPrefix(k.Value, "x-") {
		return true // an extension: generator/policy checks its own
	}
	c.nameLength(k, "a key")
	switch k.Value {
	case "operationId", "name":
		c.nameLength(v, k.Value)
	case "tags", "enum":
		if v.Kind == yaml.SequenceNode {
			for _, item := range v.Content {
				c.nameLength(item, "a value of "+k.Value)
			}
		}
	case "example", "examples", "default", "const":
		return true
	}
	return false
}

// nameLength reports scalar n, what (in words), when it is longer than
// MaxNameBytes.
func (c *treeCheck) nameLength(n *yaml.Node, what string) {
	if n.Kind != yaml.ScalarNode {
		return
	}
	if msg := LongName(what, n.Value); msg != "" {
		c.diags = append(c.diags, diag.Diagnostic{Severity: diag.Error, File: c.file, Line: n.Line, Col: n.Column, Msg: msg, Hint: LongNameHint})
	}
}

// LongName is the error for a name (what, in words) longer than
// MaxNameBytes, or "".
func LongName(what, name string) string {
	if len(name) <= MaxNameBytes {
		return ""
	}
	return fmt.Sprintf("%s is %d bytes long (%s…): names are at most %d bytes, as the generated code repeats them in types, methods, constants and comments",
		what, len(name), truncateUTF8(name, 40), MaxNameBytes)
}

// LongNameHint is the fix for a LongName error.
const LongNameHint = "shorten it in the spec (or with an overlay)"

// truncateUTF8 is s cut to at most n bytes at a rune boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// duplicateKeys reports every scalar key of m written before in m, whatever
// its YAML tag: `200:` (an integer) and `"200":` (a string) are one key once
// decoded to JSON, and the later would replace the earlier silently. Small
// mappings, nearly all of them, are compared pairwise, without allocating.
func (c *treeCheck) duplicateKeys(m *yaml.Node) {
	const small = 16
	same := func(a, b *yaml.Node) bool {
		return a.Kind == yaml.ScalarNode && b.Kind == yaml.ScalarNode && a.Value == b.Value && a.Tag != "!!merge" && b.Tag != "!!merge"
	}
	if len(m.Content) <= 2*small {
		for i := 2; i < len(m.Content); i += 2 {
			for j := 0; j < i; j += 2 {
				if same(m.Content[i], m.Content[j]) {
					c.duplicate(m.Content[i], m.Content[j])
					break
				}
			}
		}
		return
	}
	seen := make(map[string]*yaml.Node, len(m.Content)/2)
	for i := 0; i < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
			continue
		}
		if first, ok := seen[k.Value]; ok {
			c.duplicate(k, first)
			continue
		}
		seen[k.Value] = k
	}
}

func (c *treeCheck) duplicate(k, first *yaml.Node) {
	msg := fmt.Sprintf("duplicate key %q (first at line %d, column %d)", k.Value, first.Line, first.Column)
	if k.Tag != first.Tag {
		msg = fmt.Sprintf("duplicate key %q (first at line %d, column %d): written once as %s and once as %s, it is one key once decoded",
			k.Value, first.Line, first.Column, tagName(first.Tag), tagName(k.Tag))
	}
	c.diags = append(c.diags, diag.Diagnostic{Severity: diag.Error, File: c.file, Line: k.Line, Col: k.Column,
		Msg: msg, Hint: "a JSON decoder keeps one of the two, silently; remove or rename one"})
}

// tagName says what a YAML tag makes a key, for messages.
func tagName(tag string) string {
	switch tag {
	case "!!str":
		return "a string"
	case "!!int":
		return "an integer"
	case "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!null":
		return "null"
	}
	return "the tag " + tag
}

// checkRefs bounds the work of resolving and validating the $refs of one
// file (maxRefDepth, maxRefSteps, maxRefVisits), adding it to the work of
// the other files of the run, and records each $ref to another file so
// that a refusal to read that file points at the $ref.
func (g *readGuard) checkRefs(file string, base *url.URL, root *yaml.Node) diag.Diagnostics {
	c := &refGraph{root: root, id: map[*yaml.Node]int32{}, targets: map[string]int32{}}
	external := 0
	c.collect(root, 0, false, func(k *yaml.Node, ref string) {
		external++
		g.addSite(base, file, k, ref)
	})
	errAt := func(k *yaml.Node, hint, format string, args ...any) diag.Diagnostics {
		d := diag.Diagnostic{Severity: diag.Error, File: file, Msg: fmt.Sprintf(format, args...), Hint: hint}
		if k != nil {
			d.Line, d.Col = k.Line, k.Column
		}
		return diag.Diagnostics{d}
	}
	into := g.refsInto(base)
	for fragment := range into {
		c.target("#" + fragment) // a vertex, before link weighs them
	}
	ok := c.link(maxRefVisits)
	if ok {
		if deep := c.chains(); deep >= 0 {
			v := &c.v[deep]
			return errAt(v.firstRef, "$ref the schema at the end of the chain directly",
				"$ref %q starts a chain of more than %d nested $refs", v.firstRefTo, maxRefDepth)
		}
	}
	// worst is the $ref key of the vertex that costs most steps.
	steps, worstSteps := external, 0
	var worst *yaml.Node
	for i := range c.v {
		n := min(c.v[i].sites*(1+c.v[i].depth), sizeCap)
		if steps = min(steps+n, sizeCap); n > worstSteps {
			worst, worstSteps = c.v[i].site, n
		}
	}
	visits := 0
	if ok {
		visits = c.visits(maxRefVisits)
		// $refs from the files read before into this one cost what they
		// reach here, each time.
		w := c.walker()
		for fragment, n := range into {
			if t := c.target("#" + fragment); t >= 0 && visits <= maxRefVisits {
				visits += n * w.reach(t, maxRefVisits-visits)
			}
		}
	}
	g.mu.Lock()
	g.refSteps = min(g.refSteps+steps, sizeCap)
	g.refVisits = min(g.refVisits+visits, sizeCap)
	steps, visits = g.refSteps, g.refVisits
	g.mu.Unlock()
	if steps > maxRefSteps {
		return errAt(worst, "$ref the shared schemas directly instead of through chains of other $refs",
			"resolving the $refs of this spec takes more than %d steps (each $ref counts 1 plus the longest chain of $refs below what it names)", maxRefSteps)
	}
	if !ok || visits > maxRefVisits {
		return errAt(nil, "make the schemas that everything refers to smaller, or refer to fewer of them",
			"validating this spec visits more than %d nodes (each component and each path visits everything it refers to, directly or not)", maxRefVisits)
	}
	return nil
}

// refGraph is the graph of the local $refs of one document. Its vertices
// are the nodes that $refs name and the units kin-openapi validates one by
// one (each component, each path item); an edge goes from a vertex to what
// each $ref below it names.
type refGraph struct {
	root    *yaml.Node
	id      map[*yaml.Node]int32
	v       []refVertex
	targets map[string]int32 // a local $ref → its vertex, -1 if it names nothing
	index   map[*yaml.Node]map[string]*yaml.Node
}

type refVertex struct {
	node       *yaml.Node
	unit       bool
	sites      int        // $refs naming it, aliases expanded
	site       *yaml.Node // the first $ref key naming it
	firstRef   *yaml.Node // the first $ref key below it
	firstRefTo string
	weight     int // nodes below it, aliases expanded
	edges      []int32
	depth      int // the longest chain of $refs below it
}

func (c *refGraph) vertex(n *yaml.Node) int32 {
	if i, ok := c.id[n]; ok {
		return i
	}
	i := int32(len(c.v))
	c.id[n] = i
	c.v = append(c.v, refVertex{node: n})
	return i
}

// collect walks the document once, aliases expanded: it counts the $refs
// naming each vertex, marks the units (the nodes at depth 2, at depth 3
// below components: /paths/~1pets, /components/schemas/Pet) and passes
// each $ref to another file to external.
func (c *refGraph) collect(n *yaml.Node, depth int, inComponents bool, external func(k *yaml.Node, ref string)) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if inComponents && depth == 3 || !inComponents && depth == 2 {
		c.v[c.vertex(n)].unit = true
	}
	if n.Kind != yaml.MappingNode {
		for _, child := range n.Content {
			c.collect(child, depth+1, inComponents, external)
		}
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value != "$ref" || v.Kind != yaml.ScalarNode {
			c.collect(v, depth+1, inComponents || depth == 0 && k.Value == "components", external)
			continue
		}
		if !strings.HasPrefix(v.Value, "#") {
			external(k, v.Value)
		} else if t := c.target(v.Value); t >= 0 {
			c.v[t].sites++
			if c.v[t].site == nil {
				c.v[t].site = k
			}
		}
	}
}

// link finds each vertex's weight and edges. It walks the subtree of every
// vertex (nested vertices again), and stops, false, when that is more than
// budget nodes.
func (c *refGraph) link(budget int) bool {
	walked := 0
	linked := make([]int32, len(c.v)) // the vertex (+1) that last linked to each
	for i := range c.v {
		v := &c.v[i]
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			for n.Kind == yaml.AliasNode && n.Alias != nil {
				n = n.Alias
			}
			v.weight++
			if n.Kind != yaml.MappingNode {
				for _, child := range n.Content {
					walk(child)
				}
				return
			}
			for j := 0; j+1 < len(n.Content); j += 2 {
				k, val := n.Content[j], n.Content[j+1]
				v.weight++
				if k.Value != "$ref" || val.Kind != yaml.ScalarNode {
					walk(val)
					continue
				}
				v.weight++
				if v.firstRef == nil {
					v.firstRef, v.firstRefTo = k, val.Value
				}
				if t, ok := c.targets[val.Value]; ok && t >= 0 && linked[t] != int32(i)+1 {
					linked[t] = int32(i) + 1
					v.edges = append(v.edges, t)
				}
			}
		}
		walk(v.node)
		if walked += v.weight; walked > budget {
			return false
		}
	}
	return true
}

// chains finds the depth of every vertex, and returns the first vertex
// whose depth is more than maxRefDepth, or -1. Cycles count once.
func (c *refGraph) chains() int {
	for i := range c.v {
		c.v[i].depth = -1
	}
	open := make([]bool, len(c.v))
	var depth func(i int32, level int) int
	depth = func(i int32, level int) int {
		v := &c.v[i]
		if v.depth >= 0 {
			return v.depth
		}
		if open[i] {
			return 0
		}
		if level > maxRefDepth {
			return level // far enough: the caller reports it
		}
		open[i] = true
		d := 0
		for _, t := range v.edges {
			d = max(d, 1+depth(t, level+1))
			if d > maxRefDepth {
				break
			}
		}
		open[i] = false
		v.depth = d
		return d
	}
	for i := range c.v {
		if depth(int32(i), 0) > maxRefDepth {
			return i
		}
	}
	return -1
}

// visits is how many nodes validating the document visits: each unit
// with the weight of every vertex it reaches. It stops past budget.
func (c *refGraph) visits(budget int) int {
	w := c.walker()
	total := 0
	for u := range c.v {
		if c.v[u].unit {
			if total += w.reach(int32(u), budget-total); total > budget {
				break
			}
		}
	}
	return total
}

// reachWalker sums the weights a vertex reaches, reusing its marks.
type reachWalker struct {
	c     *refGraph
	seen  []int32 // the walk (+1) that last reached each vertex
	walk  int32
	stack []int32
}

func (c *refGraph) walker() *reachWalker {
	return &reachWalker{c: c, seen: make([]int32, len(c.v))}
}

// reach is the weight of from and of all it reaches, or more than budget.
func (w *reachWalker) reach(from int32, budget int) int {
	w.walk++
	w.seen[from] = w.walk
	w.stack = append(w.stack[:0], from)
	total := 0
	for len(w.stack) > 0 {
		i := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		if total += w.c.v[i].weight; total > budget {
			return total
		}
		for _, t := range w.c.v[i].edges {
			if w.seen[t] != w.walk {
				w.seen[t] = w.walk
				w.stack = append(w.stack, t)
			}
		}
	}
	return total
}

// target is the vertex of the node a local $ref names, or -1.
func (c *refGraph) target(ref string) int32 {
	if t, ok := c.targets[ref]; ok {
		return t
	}
	t := int32(-1)
	if n := c.lookup(ref[1:]); n != nil {
		t = c.vertex(n)
	}
	c.targets[ref] = t
	return t
}

// lookup is lookupNode, with an index of the keys of big mappings, such
// as components/schemas, which thousands of $refs look into.
func (c *refGraph) lookup(fragment string) *yaml.Node {
	if p, err := url.PathUnescape(fragment); err == nil {
		fragment = p
	}
	n := c.root
	if fragment == "" {
		return n
	}
	for _, tok := range strings.Split(strings.TrimPrefix(fragment, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		if n.Kind != yaml.MappingNode || len(n.Content) <= 32 {
			if _, n = ChildNode(n, tok); n == nil {
				return nil
			}
			continue
		}
		keys, ok := c.index[n]
		if !ok {
			keys = make(map[string]*yaml.Node, len(n.Content)/2)
			for i := len(n.Content) - 2; i >= 0; i -= 2 {
				keys[n.Content[i].Value] = n.Content[i+1]
			}
			if c.index == nil {
				c.index = map[*yaml.Node]map[string]*yaml.Node{}
			}
			c.index[n] = keys
		}
		if n = keys[tok]; n == nil {
			return nil
		}
	}
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// parseTree parses a YAML or JSON document into its node tree.
func parseTree(data []byte) (*yaml.Node, error) {
	root, _, err := parseTreeFrom(data)
	return root, err
}

// treeSource says which parser built a node tree.
type treeSource uint8

const (
	fromYAML     treeSource = iota // go-yaml, as kin-openapi parses
	fromJSONTree                   // internal/jsontree: YAML's tree for JSON
	fromJSON                       // jsonTree: JSON that YAML refuses
)

// parseTreeFrom is parseTree, and says which parser built the tree.
func parseTreeFrom(data []byte) (*yaml.Node, treeSource, error) {
	if isJSONObject(data) {
		// The tree YAML gives, without libyaml's cost; what jsontree
		// refuses, YAML (or jsonTree) reads as before.
		if root, err := jsontree.Parse(data); err == nil {
			return root, fromJSONTree, nil
		}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		if isJSONObject(data) {
			// YAML refuses some JSON that JSON decoders read.
			if root, jerr := jsonTree(data); jerr == nil {
				return root, fromJSON, nil
			}
		}
		return nil, fromYAML, err
	}
	if len(doc.Content) == 0 {
		return nil, fromYAML, errors.New("the file is empty")
	}
	if err := secondDocument(data); err != nil {
		return nil, fromYAML, err
	}
	return doc.Content[0], fromYAML, nil
}

// secondDocument refuses a YAML stream of more than one document (after
// `---` or `...`): yaml.Unmarshal, as kin-openapi, reads the first and
// drops the rest without a word. An empty document (a trailing `---`)
// holds nothing and is let be. Only a file with a line starting `---` or
// `...` past its first is parsed again.
func secondDocument(data []byte) error {
	if !bytes.Contains(data, []byte("\n---")) && !bytes.Contains(data, []byte("\n...")) {
		return nil
	}
	l, err := yaml.NewLoader(bytes.NewReader(data), yaml.WithV3Defaults())
	if err != nil {
		return nil
	}
	for i := 0; ; i++ {
		var doc yaml.Node
		if err := l.Load(&doc); err != nil {
			return nil // the end, or what the first parse let pass
		}
		if i == 0 {
			continue
		}
		if len(doc.Content) > 0 && (doc.Content[0].Tag != "!!null" || doc.Content[0].Value != "") {
			n := doc.Content[0]
			return &docError{line: n.Line, col: n.Column, msg: "a second YAML document: a spec is one document, and what follows the first would be ignored"}
		}
	}
}

// docError is a document that parses but is refused, at a position.
type docError struct {
	line, col int
	msg       string
}

func (e *docError) Error() string { return fmt.Sprintf("line %d:%d: %s", e.line, e.col, e.msg) }

// isJSONObject reports whether data starts as a JSON object does.
func isJSONObject(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeftFunc(data, unicode.IsSpace), []byte("{"))
}

// jsonTree builds the node tree of a JSON document that YAML does not
// parse (an escaped UTF-16 surrogate pair such as "\ud83d\ude00" is not
// YAML), so the checks and positions apply to it as well.
func jsonTree(data []byte) (*yaml.Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := &jsonPos{data: data, line: 1, col: 1}
	var build func() (*yaml.Node, error)
	build = func() (*yaml.Node, error) {
		line, col := p.next(int(dec.InputOffset()))
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		n := &yaml.Node{Line: line, Column: col}
		switch v := tok.(type) {
		case json.Delim:
			n.Kind, n.Tag, n.Style = yaml.MappingNode, "!!map", yaml.FlowStyle
			end := json.Delim('}')
			if v == '[' {
				n.Kind, n.Tag, end = yaml.SequenceNode, "!!seq", ']'
			}
			for dec.More() {
				child, err := build()
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, child)
			}
			if tok, err := dec.Token(); err != nil || tok != end {
				return nil, errors.New("unbalanced JSON")
			}
		case string:
			n.Kind, n.Tag, n.Value, n.Style = yaml.ScalarNode, "!!str", v, yaml.DoubleQuotedStyle
		case json.Number:
			n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!int", v.String()
			if strings.ContainsAny(n.Value, ".eE") {
				n.Tag = "!!float"
			}
		case bool:
			n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!bool", fmt.Sprint(v)
		case nil:
			n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!null", "null"
		}
		return n, nil
	}
	root, err := build()
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("JSON document followed by more data")
	}
	return root, nil
}

// jsonPos turns offsets into lines and columns, moving forward only.
type jsonPos struct {
	data      []byte
	off       int
	line, col int
}

// next returns the position of the token after off: past white space and
// the separators the decoder reads with the token.
func (p *jsonPos) next(off int) (line, col int) {
	for off < len(p.data) && strings.IndexByte(" \t\r\n,:", p.data[off]) >= 0 {
		off++
	}
	for ; p.off < off; p.off++ {
		if p.data[p.off] == '\n' {
			p.line, p.col = p.line+1, 1
		} else {
			p.col++
		}
	}
	return p.line, p.col
}
