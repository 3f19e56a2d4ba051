package build

import (
	"fmt"
	"go/token"
	"strconv"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/diag"
)

// Every Go identifier resgen emits is made here, from spec text of any
// shape: the result is always a valid identifier, and the same input gives
// the same name on every run.

// initialisms are golint's common initialisms, which Go writes in one case
// (ID, URL; id, url at the start of an unexported name). A word that is
// one of them followed by a lowercase s is its plural, written IDs, URLs
// (see initialism). staticcheck's later additions (DB, TS, GID, AMQP,
// RTP, SIP) are not taken: they would rename fields clients already use
// (Db, Ts) for no gain in meaning.
var initialisms = map[string]string{
	"acl": "ACL", "api": "API", "ascii": "ASCII", "cpu": "CPU", "css": "CSS", "dns": "DNS",
	"eof": "EOF", "guid": "GUID", "html": "HTML", "http": "HTTP", "https": "HTTPS", "id": "ID",
	"ip": "IP", "json": "JSON", "lhs": "LHS", "qps": "QPS", "ram": "RAM", "rhs": "RHS",
	"rpc": "RPC", "sla": "SLA", "smtp": "SMTP", "sql": "SQL", "ssh": "SSH", "tcp": "TCP",
	"tls": "TLS", "ttl": "TTL", "udp": "UDP", "ui": "UI", "uid": "UID", "uuid": "UUID",
	"uri": "URI", "url": "URL", "utf8": "UTF8", "vm": "VM", "xml": "XML", "xmpp": "XMPP",
	"xsrf": "XSRF", "xss": "XSS",
}

// symbolWords spells out punctuation that carries meaning in names, so
// "StartTime<" and "StartTime>" do not both become StartTime.
var symbolWords = map[rune]string{
	'+': "Plus", '<': "Lt", '>': "Gt", '=': "Eq", '!': "Not", '*': "Star", '@': "At",
	'#': "Hash", '%': "Percent", '&': "And", '|': "Or", '~': "Tilde", '^': "Caret", '$': "Dollar",
}

// words splits s into words at punctuation and at lower→upper and
// letter↔digit... boundaries (only lower→Upper and ACRONYMWord: digits stay
// attached so "v2" and "md5" stay whole).
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if len(cur) > 0 && unicode.IsUpper(r) {
				prev := cur[len(cur)-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower && !pluralNext(cur, rs, i)) {
					flush()
				}
			}
			cur = append(cur, r)
		default:
			flush()
			if w, ok := symbolWords[r]; ok && i > 0 {
				out = append(out, w)
			}
		}
	}
	flush()
	return out
}

// initialism is how Go writes word w when it is an initialism ("id" →
// "ID") or one in the plural ("ids" → "IDs", as Go's own APIs write
// them); ok is false for any other word.
func initialism(w string) (in string, ok bool) {
	lw := strings.ToLower(w)
	if in, ok := initialisms[lw]; ok {
		return in, true
	}
	if stem, plural := strings.CutSuffix(lw, "s"); plural {
		if in, ok := initialisms[stem]; ok {
			return in + "s", true
		}
	}
	return "", false
}

// pluralNext reports whether rs[i] (a capital after the capitals of cur)
// ends an initialism whose plural s follows it: "IDs" and "URLs" stay one
// word, where "URLPath" splits before its P.
func pluralNext(cur, rs []rune, i int) bool {
	if i+1 >= len(rs) || rs[i+1] != 's' || i+2 < len(rs) && unicode.IsLower(rs[i+2]) {
		return false
	}
	_, ok := initialisms[strings.ToLower(string(cur)+string(rs[i]))]
	return ok
}

// exportedName makes a PascalCase exported identifier. fallback is used
// when s has no letters or digits at all.
func exportedName(s, fallback string) string {
	var b strings.Builder
	for _, w := range words(s) {
		if in, ok := initialism(w); ok {
			b.WriteString(in)
			continue
		}
		rs := []rune(w)
		allUpper := true
		for _, r := range rs {
			if unicode.IsLower(r) {
				allUpper = false
				break
			}
		}
		if allUpper && len(rs) > 1 {
			rs = []rune(strings.ToLower(w))
		}
		rs[0] = unicode.ToUpper(rs[0])
		b.WriteString(string(rs))
	}
	n := b.String()
	if n == "" {
		return fallback
	}
	first := []rune(n)[0]
	if !unicode.IsUpper(first) {
		// A leading digit, or a letter with no case (日本): not exportable.
		n = "X" + n
	}
	return n
}

// pluralEndsAt reports whether exportedName(s) has a plural initialism
// (IDs) whose s is at rune i.
func pluralEndsAt(s string, i int) bool {
	at := 0
	for _, w := range words(s) {
		in, ok := initialism(w)
		if !ok {
			in = w
		}
		at += len([]rune(in))
		if at > i {
			return ok && at == i+1 && strings.HasSuffix(in, "s") && in != strings.ToUpper(in)
		}
	}
	return false
}

// unexportedName makes a camelCase identifier for locals and fields.
func unexportedName(s, fallback string) string {
	n := exportedName(s, "")
	if n == "" {
		return fallback
	}
	if strings.HasPrefix(n, "X") && len(n) > 1 && !unicode.IsLetter([]rune(n[1:])[0]) {
		n = "x" + n[1:]
	} else {
		// Lower the leading run of capitals: "ID" → "id", "URLPath" →
		// "urlPath" (its last capital starts the next word), "IDs" →
		// "ids" (the s is the plural's own).
		rs := []rune(n)
		i := 0
		for i < len(rs) && unicode.IsUpper(rs[i]) {
			i++
		}
		if i > 1 && i < len(rs) && !pluralEndsAt(s, i) {
			i--
		}
		for j := 0; j < i; j++ {
			rs[j] = unicode.ToLower(rs[j])
		}
		n = string(rs)
	}
	if token.IsExported(n) {
		// A capital with no lower case (ϒ): still exported, and a local
		// named like a type would shadow it.
		n = "x" + n
	}
	if token.IsKeyword(n) || !token.IsIdentifier(n) {
		n += "_"
	}
	return n
}

// namer hands out unique identifiers within one scope. The first to ask for
// a name gets it; later ones get a numeric suffix. Callers ask in a sorted
// order, so the result is the same on every run.
type namer struct {
	// taken maps each name handed out to what holds it.
	taken map[string]claimant
}

// claimant is what holds a name: in words, for a warning ("schema
// \"Pet\""; reservedHolder for a name the generated code declares), and
// where it is written, asked only when another wants the name (nil when
// nowhere).
type claimant struct {
	who string
	at  func(msg, hint string) diag.Diagnostic
}

// reservedHolder is what holds a name the generated code declares itself.
const reservedHolder = "the generated code"

func newNamer(reserved ...string) *namer {
	n := &namer{taken: map[string]claimant{}}
	for _, r := range reserved {
		n.taken[r] = claimant{who: reservedHolder}
	}
	return n
}

func (n *namer) name(want string) string {
	got, _ := n.claim(want, "", nil)
	return got
}

// claim hands out want, or want with a numeric suffix when it is taken, to
// who, written where at places; then holder is what took want first, for
// the warning that says why who did not get it.
func (n *namer) claim(want, who string, at func(msg, hint string) diag.Diagnostic) (got string, holder claimant) {
	c := claimant{who, at}
	if _, taken := n.taken[want]; !taken {
		n.taken[want] = c
		return want, claimant{}
	}
	for i := 2; ; i++ {
		name := want + strconv.Itoa(i)
		if _, taken := n.taken[name]; !taken {
			n.taken[name] = c
			return name, n.taken[want]
		}
	}
}

// predeclared are names a package-level declaration must not take: Go's
// universe scope would be shadowed and the generated code could break.
var predeclared = []string{
	"any", "bool", "byte", "comparable", "complex64", "complex128", "error", "float32", "float64",
	"int", "int8", "int16", "int32", "int64", "rune", "string", "uint", "uint8", "uint16", "uint32",
	"uint64", "uintptr", "true", "false", "iota", "nil", "append", "cap", "clear", "close", "complex",
	"copy", "delete", "imag", "len", "make", "max", "min", "new", "panic", "print", "println", "real", "recover",
}

// clashHint is the fix for every renamed-to-avoid-a-clash warning.
const clashHint = "rename one of them in the spec (or with an overlay) to choose the Go names"

// claimAt hands out want from n for who (in words, "schema \"pet\"") and,
// when want was taken, warns at (see b.at) which name who got and what
// holds want, and where: a renamed type or method changes the code that
// uses it, so it must not happen silently.
func (b *builder) claimAt(n *namer, want, who string, at func(msg, hint string) diag.Diagnostic) string {
	got, holder := n.claim(want, who, at)
	if got != want {
		what := holder.who
		if what == "" {
			what = "another generated name"
		}
		if holder.at != nil {
			if d := holder.at("", ""); d.Line > 0 {
				what += fmt.Sprintf(" (at %s:%d:%d)", d.File, d.Line, d.Col)
			}
		}
		b.diags = append(b.diags, at(fmt.Sprintf("%s is named %s in Go: %s is taken by %s", who, got, want, what), clashHint))
	}
	return got
}

// at positions a warning at the node of JSON pointer ptr, or at the file
// when ptr is "".
func (b *builder) at(ptr string) func(msg, hint string) diag.Diagnostic {
	return func(msg, hint string) diag.Diagnostic {
		if ptr == "" {
			return diag.Diagnostic{Severity: diag.Warning, File: b.s.File, Msg: msg, Hint: hint}
		}
		return b.s.Diag(diag.Warning, ptr, msg, hint)
	}
}

// schemaAt positions a warning at the tokens sub below schema s, where s
// is written (see schemaDiag).
func (b *builder) schemaAt(s *openapi3.Schema, sub ...string) func(msg, hint string) diag.Diagnostic {
	return func(msg, hint string) diag.Diagnostic { return b.schemaDiag(s, msg, hint, sub...) }
}
