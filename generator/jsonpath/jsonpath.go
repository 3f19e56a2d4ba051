// Package jsonpath parses and evaluates the JSONPath subset (RFC 9535)
// OpenAPI Overlay 1.0 targets use, over a *yaml.Node tree. It takes a
// path and a document root and gives the nodes selected, each with the
// node that holds it; it knows nothing of OpenAPI.
package jsonpath

import (
	"fmt"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// A JSONPath subset (RFC 9535) enough for overlays: $, .name, ['name'],
// ["name"], [0], .*, [*], ..name, ..*, lists in brackets, and filters
// [?(@.a.b == 'x')], [?@.a != 1], [?(@.a)].

// Match is one selected node and the mapping or list holding it (nil for
// the root).
type Match struct {
	Node, Parent *yaml.Node
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

// Path is a parsed JSONPath.
type Path []segment

type filterExpr struct {
	path []string // names after @
	op   string   // "", "==", "!="
	lit  string   // literal in YAML scalar form
}

// Parse parses a JSONPath of the subset above.
func Parse(s string) (Path, error) {
	p := &pathParser{s: strings.TrimSpace(s)}
	if !p.eat("$") {
		return nil, fmt.Errorf("it must start with $")
	}
	var out Path
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

// Eval returns the nodes jp selects below root, each once, in document
// order of selection.
func (jp Path) Eval(root *yaml.Node) []Match {
	cur := []Match{{Node: root}}
	for _, seg := range jp {
		var next []Match
		for _, m := range cur {
			if seg.descend {
				Walk(m, func(d Match) { next = append(next, selectChildren(d.Node, seg.sels)...) })
			} else {
				next = append(next, selectChildren(m.Node, seg.sels)...)
			}
		}
		cur = dedupe(next)
	}
	return cur
}

func dedupe(ms []Match) []Match {
	seen := map[*yaml.Node]bool{}
	out := ms[:0]
	for _, m := range ms {
		if !seen[m.Node] {
			seen[m.Node] = true
			out = append(out, m)
		}
	}
	return out
}

// walkMatches calls f on m and every node below it.
func Walk(m Match, f func(Match)) {
	f(m)
	n := m.Node
	switch n.Kind {
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			Walk(Match{Node: n.Content[i], Parent: n}, f)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			Walk(Match{Node: c, Parent: n}, f)
		}
	}
}

func selectChildren(n *yaml.Node, sels []selector) []Match {
	var out []Match
	for _, s := range sels {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if s.kind == '*' || (s.kind == 'n' && k.Value == s.name) || (s.kind == '?' && s.filter.matches(v)) {
					out = append(out, Match{Node: v, Parent: n})
				}
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				idx := s.index
				if idx < 0 {
					idx += len(n.Content)
				}
				if s.kind == '*' || (s.kind == 'i' && i == idx) || (s.kind == '?' && s.filter.matches(c)) {
					out = append(out, Match{Node: c, Parent: n})
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
		if n = member(n, name); n == nil {
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

// member is the value of key in the mapping m, or nil.
func member(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
