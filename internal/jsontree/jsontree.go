// Package jsontree parses a JSON document into the *yaml.Node tree that
// go.yaml.in/yaml/v4 builds for it, about 12 times faster than libyaml:
// the same Kind, Tag, Value, Style, Line and Column on every node, so that
// a loader may use either parser and give the same positions.
//
// What yaml.v4 gives for JSON, and so what Parse gives:
//   - objects are !!map and arrays !!seq, both in FlowStyle; a mapping's
//     Content alternates key and value nodes;
//   - strings are !!str scalars in DoubleQuotedStyle, Value unescaped;
//   - numbers, true, false and null are plain scalars whose Value is the
//     text as written and whose Tag is yaml's resolution of that text:
//     !!int when it fits an int64 or a uint64, !!float otherwise (and for
//     -0 and -0.0), !!str when it overflows a float64 (1e400);
//   - Line and Column are 1-based and count characters (runes), not bytes;
//     a tab is one column; CR LF, CR and LF each end a line; a leading
//     byte order mark is not counted.
//
// Parse reads JSON (RFC 8259) only and refuses what is not, where yaml
// may accept it (comments, trailing commas, 01). It also refuses three
// kinds of valid JSON on which it would not give yaml's tree: invalid
// UTF-8 (yaml refuses it; encoding/json replaces it), and U+0085, U+2028
// and U+2029 written raw in a string (yaml reads them as line breaks,
// folding the string and counting lines). A caller that wants yaml's
// answer on those parses with yaml when Parse fails.
//
// Escaped UTF-16 surrogates (\ud83d\ude00), which yaml refuses, are
// decoded as encoding/json decodes them: a pair to its character, a lone
// one to U+FFFD. Raw U+FFFE and U+FFFF, which yaml also refuses, are kept.
//
// Parse is safe on hostile input: it works in time linear in the input,
// nests at most MaxDepth arrays and objects (yaml's limit) and never
// recurses deeper than that.
package jsontree

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v4"
)

// MaxDepth is the deepest nesting of arrays and objects Parse accepts:
// yaml.v4's default limit (and encoding/json's).
const MaxDepth = 10000

// SyntaxError says why and where data is not JSON Parse reads.
type SyntaxError struct {
	Line, Column int // 1-based; Column counts runes as yaml does
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg)
}

// The tags yaml.v4 resolves JSON values to.
const (
	mapTag   = "!!map"
	seqTag   = "!!seq"
	strTag   = "!!str"
	intTag   = "!!int"
	floatTag = "!!float"
	boolTag  = "!!bool"
	nullTag  = "!!null"
)

// Parse returns the root node of the JSON document data (what yaml.v4's
// document node holds as its only child).
func Parse(data []byte) (*yaml.Node, error) {
	p := &parser{data: data, src: string(data), line: 1}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		p.pos, p.lineStart = 3, 3
	}
	p.initSlabs()
	p.space()
	root, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos < len(data) {
		return nil, p.errorf("%s after the top-level value", p.describe())
	}
	return root, nil
}

type parser struct {
	data []byte
	// src is data as one string: Values written without escapes are
	// slices of it, one copy for the whole document.
	src string
	pos int
	// line is pos's line; lineStart the offset where it starts; extra the
	// bytes beyond the first of the multi-byte characters on this line
	// before the last string read, so that the column is in runes.
	line, lineStart, extra int

	nodes   []yaml.Node  // the slab new nodes come from
	content []*yaml.Node // the slab Content slices come from
	// stack holds the children of the open arrays and objects, innermost
	// last, until each closes and gets its Content cut to size.
	stack []*yaml.Node
	buf   []byte // scratch for unescaping
}

// Slabs: one allocation for many nodes. The first is sized from the
// input (a JSON node takes a dozen bytes or more in a spec), so that a
// small document does not allocate a big slab.
const (
	maxNodeSlab    = 4096
	maxContentSlab = 8192
)

func (p *parser) initSlabs() {
	n := min(max(len(p.data)/16, 16), maxNodeSlab)
	p.nodes = make([]yaml.Node, n)
	p.content = make([]*yaml.Node, min(n*2, maxContentSlab))
	p.stack = make([]*yaml.Node, 0, 256)
}

func (p *parser) node(kind yaml.Kind, style yaml.Style, tag string, start int) *yaml.Node {
	if len(p.nodes) == 0 {
		p.nodes = make([]yaml.Node, maxNodeSlab)
	}
	n := &p.nodes[0]
	p.nodes = p.nodes[1:]
	n.Kind, n.Style, n.Tag = kind, style, tag
	n.Line, n.Column = p.line, start-p.lineStart-p.extra+1
	return n
}

// children moves the nodes stacked since mark into a Content slice of
// exactly their number (its capacity too, so that an append copies it
// rather than writing over a neighbour's).
func (p *parser) children(mark int) []*yaml.Node {
	k := len(p.stack) - mark
	if k == 0 {
		return nil
	}
	if k > len(p.content) {
		if k > maxContentSlab/4 {
			c := make([]*yaml.Node, k)
			copy(c, p.stack[mark:])
			p.stack = p.stack[:mark]
			return c
		}
		p.content = make([]*yaml.Node, maxContentSlab)
	}
	c := p.content[:k:k]
	p.content = p.content[k:]
	copy(c, p.stack[mark:])
	p.stack = p.stack[:mark]
	return c
}

// space skips JSON white space, counting lines as yaml does.
func (p *parser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t':
			p.pos++
		case '\n':
			p.pos++
			p.newline()
		case '\r':
			p.pos++
			if p.pos < len(p.data) && p.data[p.pos] == '\n' {
				p.pos++
			}
			p.newline()
		default:
			return
		}
	}
}

func (p *parser) newline() {
	p.line, p.lineStart, p.extra = p.line+1, p.pos, 0
}

// value parses the value at pos; depth is the arrays and objects around it.
func (p *parser) value(depth int) (*yaml.Node, error) {
	if p.pos >= len(p.data) {
		return nil, p.errorf("unexpected end of JSON input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.container(depth+1, true)
	case c == '[':
		return p.container(depth+1, false)
	case c == '"':
		return p.string()
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	case c == 't':
		return p.literal("true", boolTag)
	case c == 'f':
		return p.literal("false", boolTag)
	case c == 'n':
		return p.literal("null", nullTag)
	}
	return nil, p.errorf("%s looking for the beginning of a value", p.describe())
}

// container parses the object or the array at pos.
func (p *parser) container(depth int, object bool) (*yaml.Node, error) {
	if depth > MaxDepth {
		return nil, p.errorf("exceeded max depth of %d", MaxDepth)
	}
	kind, tag, end, item := yaml.SequenceNode, seqTag, byte(']'), "an array element"
	if object {
		kind, tag, end, item = yaml.MappingNode, mapTag, '}', "an object key:value pair"
	}
	n := p.node(kind, yaml.FlowStyle, tag, p.pos)
	p.pos++
	mark := len(p.stack)
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == end {
		p.pos++
		return n, nil
	}
	for {
		if object {
			k, err := p.key()
			if err != nil {
				return nil, err
			}
			p.stack = append(p.stack, k)
		}
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		p.stack = append(p.stack, v)
		p.space()
		if p.pos < len(p.data) {
			switch p.data[p.pos] {
			case ',':
				p.pos++
				p.space()
				continue
			case end:
				p.pos++
				n.Content = p.children(mark)
				return n, nil
			}
		}
		return nil, p.errorf("%s after %s", p.describe(), item)
	}
}

// key parses an object's key, and the colon after it.
func (p *parser) key() (*yaml.Node, error) {
	if p.pos >= len(p.data) || p.data[p.pos] != '"' {
		return nil, p.errorf("%s looking for the beginning of an object key string", p.describe())
	}
	k, err := p.string()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos >= len(p.data) || p.data[p.pos] != ':' {
		return nil, p.errorf("%s after an object key", p.describe())
	}
	p.pos++
	p.space()
	return k, nil
}

// string parses the string at pos (its opening quote).
func (p *parser) string() (*yaml.Node, error) {
	n := p.node(yaml.ScalarNode, yaml.DoubleQuotedStyle, strTag, p.pos)
	start := p.pos + 1
	i := start
	data := p.data
	for i < len(data) {
		c := data[i]
		if c == '"' {
			n.Value = p.src[start:i]
			p.pos = i + 1
			return n, nil
		}
		if c == '\\' {
			return p.escaped(n, start, i)
		}
		if c < 0x20 {
			p.pos = i
			return nil, p.errorf("%s in string literal", p.describe())
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		size, err := p.char(i)
		if err != nil {
			return nil, err
		}
		i += size
	}
	p.pos = i
	return nil, p.errorf("unexpected end of JSON input in a string")
}

// char checks the multi-byte character at i in a string and returns its
// size.
func (p *parser) char(i int) (int, error) {
	r, size := utf8.DecodeRune(p.data[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		p.pos = i
		return 0, p.errorf("invalid UTF-8 in string literal")
	case r == '\u0085' || r == '\u2028' || r == '\u2029':
		// yaml reads them as line breaks: see the package comment.
		p.pos = i
		return 0, p.errorf("raw U+%04X in a string (YAML reads it as a line break; write it escaped)", r)
	}
	p.extra += size - 1
	return size, nil
}

// escaped finishes the string whose first backslash is at i, unescaping
// it into its own string.
func (p *parser) escaped(n *yaml.Node, start, i int) (*yaml.Node, error) {
	data := p.data
	b := append(p.buf[:0], data[start:i]...)
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			n.Value = string(b)
			p.buf = b
			p.pos = i + 1
			return n, nil
		case c == '\\':
			if i+1 >= len(data) {
				p.pos = i + 1
				return nil, p.errorf("unexpected end of JSON input in a string")
			}
			e := data[i+1]
			i += 2
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := hex4(data, i)
				if !ok {
					p.pos = i
					return nil, p.errorf("invalid \\u escape in string literal")
				}
				i += 4
				if 0xD800 <= r && r < 0xE000 {
					// As encoding/json: a high and a low surrogate are one
					// character; anything else is U+FFFD, and what follows
					// is read on its own.
					if r < 0xDC00 && i+6 <= len(data) && data[i] == '\\' && data[i+1] == 'u' {
						if r2, ok := hex4(data, i+2); ok && 0xDC00 <= r2 && r2 < 0xE000 {
							r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
							i += 6
							b = utf8.AppendRune(b, r)
							continue
						}
					}
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
			default:
				p.pos = i - 1
				return nil, p.errorf("invalid character %q in string escape code", e)
			}
		case c < 0x20:
			p.pos = i
			return nil, p.errorf("%s in string literal", p.describe())
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			size, err := p.char(i)
			if err != nil {
				return nil, err
			}
			b = append(b, data[i:i+size]...)
			i += size
		}
	}
	p.pos = i
	return nil, p.errorf("unexpected end of JSON input in a string")
}

func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number parses the number at pos, as JSON's grammar has it:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *parser) number() (*yaml.Node, error) {
	data := p.data
	start, i := p.pos, p.pos
	digits := func() bool {
		j := i
		for i < len(data) && '0' <= data[i] && data[i] <= '9' {
			i++
		}
		return i > j
	}
	if data[i] == '-' {
		i++
	}
	intStart := i
	if i < len(data) && data[i] == '0' {
		i++
	} else if !digits() {
		p.pos = i
		return nil, p.errorf("%s in numeric literal", p.describe())
	}
	intDigits := i - intStart
	plainInt := true
	if i < len(data) && data[i] == '.' {
		i++
		plainInt = false
		if !digits() {
			p.pos = i
			return nil, p.errorf("%s after decimal point in numeric literal", p.describe())
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		plainInt = false
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if !digits() {
			p.pos = i
			return nil, p.errorf("%s in exponent of numeric literal", p.describe())
		}
	}
	if err := p.delimiter(i); err != nil {
		return nil, err
	}
	text := p.src[start:i]
	tag := intTag
	// 18 digits always fit an int64; -0 is yaml's negative zero.
	if !plainInt || intDigits > 18 || text == "-0" {
		tag = numberTag(text)
	}
	n := p.node(yaml.ScalarNode, 0, tag, start)
	n.Value = text
	p.pos = i
	return n, nil
}

// numberTag resolves a JSON number as yaml.v4's resolver does (resolve in
// internal/libyaml/resolver.go): its table first (-0, -0.0), then int64,
// uint64, then float64; a float that overflows stays a string.
func numberTag(text string) string {
	if text == "-0" || text == "-0.0" {
		return floatTag
	}
	if _, err := strconv.ParseInt(text, 0, 64); err == nil {
		return intTag
	}
	if _, err := strconv.ParseUint(text, 0, 64); err == nil {
		return intTag
	}
	if _, err := strconv.ParseFloat(text, 64); err == nil {
		return floatTag
	}
	return strTag
}

func (p *parser) literal(word, tag string) (*yaml.Node, error) {
	end := p.pos + len(word)
	if end > len(p.data) || p.src[p.pos:end] != word {
		for i := p.pos; i < end && i < len(p.data); i++ {
			if want := word[i-p.pos]; p.data[i] != want {
				p.pos = i
				return nil, p.errorf("%s in literal %s (expecting %q)", p.describe(), word, want)
			}
		}
		p.pos = len(p.data)
		return nil, p.errorf("unexpected end of JSON input in literal %s", word)
	}
	if err := p.delimiter(end); err != nil {
		return nil, err
	}
	n := p.node(yaml.ScalarNode, 0, tag, p.pos)
	n.Value = p.src[p.pos:end]
	p.pos = end
	return n, nil
}

// delimiter checks that a number or literal ending at i ends there.
func (p *parser) delimiter(i int) error {
	if i < len(p.data) {
		switch p.data[i] {
		case ' ', '\t', '\n', '\r', ',', ']', '}':
		default:
			p.pos = i
			return p.errorf("%s after a value", p.describe())
		}
	}
	return nil
}

// describe names the character at pos for an error.
func (p *parser) describe() string {
	if p.pos >= len(p.data) {
		return "unexpected end of JSON input"
	}
	r, size := utf8.DecodeRune(p.data[p.pos:])
	if r == utf8.RuneError && size == 1 {
		return fmt.Sprintf("invalid byte 0x%02x", p.data[p.pos])
	}
	return fmt.Sprintf("invalid character %q", r)
}

// errorf makes the error at pos; its column counts the runes before pos
// on its line (errors are rare: counting again costs nothing).
func (p *parser) errorf(format string, args ...any) error {
	end := min(p.pos, len(p.data))
	col := utf8.RuneCount(p.data[min(p.lineStart, end):end]) + 1
	return &SyntaxError{Line: p.line, Column: col, Msg: fmt.Sprintf(format, args...)}
}
