package build

import (
	"go/token"
	"slices"
	"strings"
	"testing"

	"github.com/resgen/resgen/generator/model"
)

// FuzzGoName: every identifier resgen emits comes from exportedName or
// unexportedName and a namer. For names of any text (one a line) the
// results must be valid identifiers (exported where asked), the same on
// every call, and distinct within one namer, never a reserved name.
func FuzzGoName(f *testing.F) {
	for _, s := range []string{
		"", "_", "123", "id", "ID", "userID", "URLPath", "x-rate-limit", "StartTime<\nStartTime>\nStartTime",
		"a\na\nA2\na\nA22", "type\nfunc\nFunc\n_func\nrange", "json\nhttp\nlen\nnil\niota\nstring", "\ufeffname\u202e",
		"İİ\nİD", "ǅungla", "日本\n日本語", "ϒ", "ß\nﬁle", "a\u0301b", "Ⅻ\n٣", "\xff\xfe", "$ref\n@type\n#/x",
		"v2\nV2\nmd5Sum", "A\nX\nX1\n1",
	} {
		f.Add(s)
	}
	reserved := append(append([]string{"Client"}, model.ImportNames...), predeclared...)
	f.Fuzz(func(t *testing.T, input string) {
		exported, unexported := newNamer(reserved...), newNamer(reserved...)
		// From each namer: the names it gave, and for what.
		seenExported, seenUnexported := map[string]string{}, map[string]string{}
		for _, s := range strings.Split(input, "\n") {
			e, u := exportedName(s, "Value"), unexportedName(s, "value")
			if !token.IsIdentifier(e) || !token.IsExported(e) {
				t.Fatalf("exportedName(%q) = %q: not an exported identifier", s, e)
			}
			// Never exported: a local must not shadow a type's name.
			if !token.IsIdentifier(u) || token.IsKeyword(u) || token.IsExported(u) {
				t.Fatalf("unexportedName(%q) = %q: not an unexported identifier", s, u)
			}
			if e2, u2 := exportedName(s, "Value"), unexportedName(s, "value"); e2 != e || u2 != u {
				t.Fatalf("%q: %q/%q, then %q/%q", s, e, u, e2, u2)
			}
			for _, g := range []struct {
				name string
				seen map[string]string
			}{{exported.name(e), seenExported}, {unexported.name(u), seenUnexported}} {
				if !token.IsIdentifier(g.name) || token.IsKeyword(g.name) || slices.Contains(reserved, g.name) {
					t.Fatalf("%q: namer gave %q", s, g.name)
				}
				if prev, dup := g.seen[g.name]; dup {
					t.Fatalf("%q and %q both named %q", prev, s, g.name)
				}
				g.seen[g.name] = s
			}
		}
	})
}
