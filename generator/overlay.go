package generator

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// OpenAPI Overlay 1.0: users annotate specs they do not own by keeping
// x-resilience in a separate document of actions, each a JSONPath target
// plus an update to merge into every node it selects, or remove: true.
// Overlays are applied in order to the spec's node tree before loading;
// nodes they add keep their positions in the overlay's file, so an error
// inside an overlay's x-resilience names the overlay's file and line.

type overlayFile struct {
	path string
	data []byte
}

var overlayActionKeys = []string{"target", "description", "update", "remove"}

// applyOverlay applies one overlay to src's tree and returns how many
// nodes it changed.
func applyOverlay(src *srcMap, o overlayFile) (changed int, diags Diagnostics) {
	errAt := func(n *yaml.Node, sev Severity, format string, args ...any) {
		d := Diagnostic{Severity: sev, File: o.path, Msg: fmt.Sprintf(format, args...)}
		if n != nil {
			d.Line, d.Col = n.Line, n.Column
		}
		diags = append(diags, d)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(o.data, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		d := Diagnostic{Severity: Error, File: o.path, Msg: "cannot load overlay: not a YAML or JSON object"}
		if err != nil {
			d.Msg = "cannot load overlay: " + err.Error()
			if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
				d.Line, _ = strconv.Atoi(m[1])
			}
		}
		return 0, Diagnostics{d}
	}
	root := doc.Content[0]
	if ds := checkTree(o.path, root); ds != nil {
		return 0, ds
	}
	if v := mapValue(root, "overlay"); v == nil || !strings.HasPrefix(v.Value, "1.") {
		errAt(root, Error, "not an OpenAPI Overlay 1.x document: it needs `overlay: 1.0.0`")
		return 0, diags
	}
	actions := mapValue(root, "actions")
	if actions == nil || actions.Kind != yaml.SequenceNode {
		errAt(root, Error, "an overlay needs a list of actions")
		return 0, diags
	}
	for _, a := range actions.Content {
		if a.Kind != yaml.MappingNode {
			errAt(a, Error, "an overlay action must be an object")
			continue
		}
		for i := 0; i+1 < len(a.Content); i += 2 {
			k := a.Content[i].Value
			if !slices.Contains(overlayActionKeys, k) && !strings.HasPrefix(k, "x-") {
				msg := fmt.Sprintf("unknown key %q in overlay action", k)
				if s := suggest(k, overlayActionKeys); s != "" {
					msg += fmt.Sprintf("; did you mean %q?", s)
				}
				errAt(a.Content[i], Error, "%s", msg)
			}
		}
		target := mapValue(a, "target")
		if target == nil || target.Kind != yaml.ScalarNode {
			errAt(a, Error, "an overlay action needs a target (a JSONPath such as $.paths['/pets'].get)")
			continue
		}
		path, err := parseJSONPath(target.Value)
		if err != nil {
			errAt(target, Error, "bad JSONPath %q: %v", target.Value, err)
			continue
		}
		matches := path.eval(src.tree())
		if len(matches) == 0 {
			errAt(target, Warning, "target %s selects nothing in the spec", target.Value)
			continue
		}
		if rm := mapValue(a, "remove"); rm != nil && rm.Value == "true" {
			changed += removeNodes(matches)
			continue
		}
		update := mapValue(a, "update")
		if update == nil {
			errAt(a, Error, "an overlay action needs update or remove: true")
			continue
		}
		markFrom(src.from, update, o.path)
		for _, m := range matches {
			switch m.node.Kind {
			case yaml.MappingNode:
				if update.Kind != yaml.MappingNode {
					errAt(update, Error, "target %s is an object; its update must be an object too", target.Value)
					continue
				}
				mergeInto(m.node, update)
			case yaml.SequenceNode:
				m.node.Content = append(m.node.Content, update)
			default:
				errAt(target, Error, "target %s selects a %s; only objects and lists can be updated", target.Value, kindName(m.node))
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

// mergeInto merges update's keys into target: objects recursively, any
// other value replaces the target's.
func mergeInto(target, update *yaml.Node) {
	for i := 0; i+1 < len(update.Content); i += 2 {
		k, v := update.Content[i], update.Content[i+1]
		if old := mapValue(target, k.Value); old != nil {
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
func removeNodes(ms []match) int {
	gone := map[*yaml.Node]bool{}
	for _, m := range ms {
		if m.parent != nil {
			gone[m.node] = true
		}
	}
	parents := map[*yaml.Node]bool{}
	for _, m := range ms {
		if m.parent != nil {
			parents[m.parent] = true
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

// A JSONPath subset (RFC 9535) enough for overlays: $, .name, ['name'],
// ["name"], [0], .*, [*], ..name, ..*, lists in brackets, and filters
// [?(@.a.b == 'x')], [?@.a != 1], [?(@.a)].

type match struct {
	node, parent *yaml.Node
}

type selector struct {
	kind   byte // 'n' name, '*' wildcard, 'i' index, '?' filter
	name   string
	index  int
	filter *filterExpr
}

type segment struct {
	descend bool // ..
	sels    []selector
}

type jsonPath []segment

type filterExpr struct {
	path []string // names after @
	op   string   // "", "==", "!="
	lit  string   // literal in YAML scalar form
}

func parseJSONPath(s string) (jsonPath, error) {
	p := &pathParser{s: strings.TrimSpace(s)}
	if !p.eat("$") {
		return nil, fmt.Errorf("it must start with $")
	}
	var out jsonPath
	for p.i < len(p.s) {
		var seg segment
		switch {
		case p.eat(".."):
			seg.descend = true
			if p.peek() == '[' {
				sels, err := p.brackets()
				if err != nil {
					return nil, err
				}
				seg.sels = sels
			} else {
				sel, err := p.dotName()
				if err != nil {
					return nil, err
				}
				seg.sels = []selector{sel}
			}
		case p.eat("."):
			sel, err := p.dotName()
			if err != nil {
				return nil, err
			}
			seg.sels = []selector{sel}
		case p.peek() == '[':
			sels, err := p.brackets()
			if err != nil {
				return nil, err
			}
			seg.sels = sels
		default:
			return nil, fmt.Errorf("unexpected %q at offset %d", p.s[p.i:p.i+1], p.i)
		}
		out = append(out, seg)
	}
	return out, nil
}

type pathParser struct {
	s string
	i int
}

func (p *pathParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *pathParser) eat(tok string) bool {
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}

func (p *pathParser) skipSpace() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *pathParser) dotName() (selector, error) {
	if p.eat("*") {
		return selector{kind: '*'}, nil
	}
	start := p.i
	for p.i < len(p.s) && p.s[p.i] != '.' && p.s[p.i] != '[' {
		p.i++
	}
	if start == p.i {
		return selector{}, fmt.Errorf("a name is missing at offset %d", start)
	}
	return selector{kind: 'n', name: p.s[start:p.i]}, nil
}

func (p *pathParser) quoted() (string, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '\\' && p.i+1 < len(p.s):
			b.WriteByte(p.s[p.i+1])
			p.i += 2
		case c == q:
			p.i++
			return b.String(), nil
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", fmt.Errorf("unterminated string")
}

func (p *pathParser) brackets() ([]selector, error) {
	p.i++ // [
	var sels []selector
	for {
		p.skipSpace()
		switch c := p.peek(); {
		case c == '\'' || c == '"':
			s, err := p.quoted()
			if err != nil {
				return nil, err
			}
			sels = append(sels, selector{kind: 'n', name: s})
		case c == '*':
			p.i++
			sels = append(sels, selector{kind: '*'})
		case c == '?':
			p.i++
			f, err := p.filter()
			if err != nil {
				return nil, err
			}
			sels = append(sels, selector{kind: '?', filter: f})
		case c == '-' || c >= '0' && c <= '9':
			start := p.i
			p.i++
			for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
				p.i++
			}
			n, err := strconv.Atoi(p.s[start:p.i])
			if err != nil {
				return nil, err
			}
			sels = append(sels, selector{kind: 'i', index: n})
		default:
			return nil, fmt.Errorf("unexpected %q in brackets at offset %d", string(c), p.i)
		}
		p.skipSpace()
		if p.eat("]") {
			return sels, nil
		}
		if !p.eat(",") {
			return nil, fmt.Errorf("missing ] at offset %d", p.i)
		}
	}
}

// filter parses @.a.b, @.a == 'x', @['a'] != 2, optionally in parentheses.
func (p *pathParser) filter() (*filterExpr, error) {
	p.skipSpace()
	paren := p.eat("(")
	p.skipSpace()
	if !p.eat("@") {
		return nil, fmt.Errorf("a filter must start with @ (offset %d)", p.i)
	}
	f := &filterExpr{}
	for {
		if p.eat(".") {
			sel, err := p.dotNameIn()
			if err != nil {
				return nil, err
			}
			f.path = append(f.path, sel)
			continue
		}
		if p.peek() == '[' && p.i+1 < len(p.s) && (p.s[p.i+1] == '\'' || p.s[p.i+1] == '"') {
			p.i++
			s, err := p.quoted()
			if err != nil {
				return nil, err
			}
			if !p.eat("]") {
				return nil, fmt.Errorf("missing ] at offset %d", p.i)
			}
			f.path = append(f.path, s)
			continue
		}
		break
	}
	p.skipSpace()
	for _, op := range []string{"==", "!="} {
		if p.eat(op) {
			f.op = op
			p.skipSpace()
			if c := p.peek(); c == '\'' || c == '"' {
				s, err := p.quoted()
				if err != nil {
					return nil, err
				}
				f.lit = s
			} else {
				start := p.i
				for p.i < len(p.s) && !strings.ContainsRune(" )],", rune(p.s[p.i])) {
					p.i++
				}
				f.lit = p.s[start:p.i]
			}
			break
		}
	}
	p.skipSpace()
	if paren && !p.eat(")") {
		return nil, fmt.Errorf("missing ) at offset %d", p.i)
	}
	return f, nil
}

func (p *pathParser) dotNameIn() (string, error) {
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(" .[]()=!,", rune(p.s[p.i])) {
		p.i++
	}
	if start == p.i {
		return "", fmt.Errorf("a name is missing at offset %d", start)
	}
	return p.s[start:p.i], nil
}

func (jp jsonPath) eval(root *yaml.Node) []match {
	cur := []match{{node: root}}
	for _, seg := range jp {
		var next []match
		for _, m := range cur {
			if seg.descend {
				walkMatches(m, func(d match) { next = append(next, selectChildren(d.node, seg.sels)...) })
			} else {
				next = append(next, selectChildren(m.node, seg.sels)...)
			}
		}
		cur = dedupe(next)
	}
	return cur
}

func dedupe(ms []match) []match {
	seen := map[*yaml.Node]bool{}
	out := ms[:0]
	for _, m := range ms {
		if !seen[m.node] {
			seen[m.node] = true
			out = append(out, m)
		}
	}
	return out
}

// walkMatches calls f on m and every node below it.
func walkMatches(m match, f func(match)) {
	f(m)
	n := m.node
	switch n.Kind {
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			walkMatches(match{node: n.Content[i], parent: n}, f)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			walkMatches(match{node: c, parent: n}, f)
		}
	}
}

func selectChildren(n *yaml.Node, sels []selector) []match {
	var out []match
	for _, s := range sels {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if s.kind == '*' || (s.kind == 'n' && k.Value == s.name) || (s.kind == '?' && s.filter.matches(v)) {
					out = append(out, match{node: v, parent: n})
				}
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				idx := s.index
				if idx < 0 {
					idx += len(n.Content)
				}
				if s.kind == '*' || (s.kind == 'i' && i == idx) || (s.kind == '?' && s.filter.matches(c)) {
					out = append(out, match{node: c, parent: n})
				}
			}
		}
	}
	return out
}

func (f *filterExpr) matches(n *yaml.Node) bool {
	for _, name := range f.path {
		if n.Kind != yaml.MappingNode {
			return false
		}
		if n = mapValue(n, name); n == nil {
			return false
		}
	}
	switch f.op {
	case "==":
		return n.Kind == yaml.ScalarNode && n.Value == f.lit
	case "!=":
		return n.Kind != yaml.ScalarNode || n.Value != f.lit
	}
	return true
}
