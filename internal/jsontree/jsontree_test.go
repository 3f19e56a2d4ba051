package jsontree

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v4"
)

// yamlTree is what the loader took from yaml.v4 before this package: the
// document node's child.
func yamlTree(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) != 1 {
		return nil, fmt.Errorf("%d nodes in the document", len(doc.Content))
	}
	return doc.Content[0], nil
}

// treeDiff describes the first difference between two trees, in document
// order, or returns "". It compares every field of yaml.Node.
func treeDiff(want, got *yaml.Node) string {
	type pair struct {
		want, got *yaml.Node
		parent    int // index in seen, -1 for the root
		index     int // in the parent's Content
	}
	var seen []pair // every pair visited, for the path to a difference
	todo := []int{0}
	seen = append(seen, pair{want, got, -1, 0})
	for len(todo) > 0 {
		at := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		w, g := seen[at].want, seen[at].got
		if w.Kind != g.Kind || w.Style != g.Style || w.Tag != g.Tag || w.Value != g.Value ||
			w.Anchor != g.Anchor || w.Alias != nil || g.Alias != nil || len(w.Content) != len(g.Content) ||
			w.HeadComment != g.HeadComment || w.LineComment != g.LineComment || w.FootComment != g.FootComment ||
			w.Line != g.Line || w.Column != g.Column || w.Stream != nil || g.Stream != nil {
			path := ""
			for i := at; seen[i].parent >= 0; i = seen[i].parent {
				path = fmt.Sprintf("[%d]%s", seen[i].index, path)
			}
			describe := func(n *yaml.Node) string {
				return fmt.Sprintf("{Kind %d Style %d Tag %q Value %.40q Anchor %q Alias %v Line %d Col %d comments %q %q %q Stream %v, %d children}",
					n.Kind, n.Style, n.Tag, n.Value, n.Anchor, n.Alias != nil, n.Line, n.Column,
					n.HeadComment, n.LineComment, n.FootComment, n.Stream != nil, len(n.Content))
			}
			return fmt.Sprintf("at $%s:\nyaml     %s\njsontree %s", path, describe(w), describe(g))
		}
		for i := len(w.Content) - 1; i >= 0; i-- {
			todo = append(todo, len(seen))
			seen = append(seen, pair{w.Content[i], g.Content[i], at, i})
		}
	}
	return ""
}

// jsonDiff checks a tree against encoding/json's reading of data: the
// same values in the same order (strings unescaped as it does). It is the
// oracle where yaml refuses the JSON.
func jsonDiff(data []byte, root *yaml.Node) string {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	dec.UseNumber()
	var walk func(n *yaml.Node) string
	walk = func(n *yaml.Node) string {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Sprintf("encoding/json: %v", err)
		}
		var want string
		switch v := tok.(type) {
		case json.Delim:
			want = "delim " + v.String()
		case string:
			want = "string " + v
		case json.Number:
			want = "number " + v.String()
		case bool:
			want = fmt.Sprint("bool ", v)
		case nil:
			want = "null"
		}
		var got string
		switch {
		case n.Kind == yaml.MappingNode:
			got = "delim {"
		case n.Kind == yaml.SequenceNode:
			got = "delim ["
		case n.Style == yaml.DoubleQuotedStyle:
			got = "string " + n.Value
		case n.Tag == boolTag:
			got = "bool " + n.Value
		case n.Tag == nullTag:
			got = "null"
		default:
			got = "number " + n.Value
		}
		if got != want {
			return fmt.Sprintf("line %d col %d: encoding/json %.60q, jsontree %.60q", n.Line, n.Column, want, got)
		}
		for _, c := range n.Content {
			if d := walk(c); d != "" {
				return d
			}
		}
		if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
			if _, err := dec.Token(); err != nil {
				return fmt.Sprintf("encoding/json at the end of a container: %v", err)
			}
		}
		return ""
	}
	if d := walk(root); d != "" {
		return d
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Sprintf("encoding/json reads more after the value: %v", err)
	}
	return ""
}

// jsonFiles lists the JSON files below dir, none when it is absent.
func jsonFiles(t testing.TB, dir string) []string {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".json") {
			files = append(files, path)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestSameTreeAsYAMLOnSpecs compares Parse with yaml.v4 node by node on
// every JSON spec of the repository and of the shared corpus.
func TestSameTreeAsYAMLOnSpecs(t *testing.T) {
	files := jsonFiles(t, "../../testdata")
	if shared := jsonFiles(t, "../../../shared/specs/real"); shared == nil {
		t.Log("../shared/specs/real is absent: only testdata's specs are compared")
	} else {
		files = append(files, shared...)
	}
	if len(files) == 0 {
		t.Fatal("no JSON spec found")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) > raceSpecLimit {
				t.Skipf("%d bytes: compared in make test's run without -race", len(data))
			}
			got, err := Parse(data)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			want, err := yamlTree(data)
			if err != nil {
				t.Fatalf("yaml refuses the spec (%v), so there is nothing to compare", err)
			}
			if d := treeDiff(want, got); d != "" {
				t.Error(d)
			}
			if d := jsonDiff(data, got); d != "" {
				t.Error(d)
			}
		})
	}
}

// sameAsYAML are documents yaml.v4 reads as JSON: Parse must give its tree.
var sameAsYAML = []string{
	`{}`, `[]`, `{"a":{},"b":[]}`, `"x"`, `1`, `true`, `null`, `[[[]]]`,
	`[-0, -0.0, -0e0, 0, -1, 0.5, 1e5, 1E+5, 1e-5, 1.5E-5, 1e400, -1e400, 1e-400]`,
	`[9223372036854775807, 9223372036854775808, -9223372036854775808, -9223372036854775809]`,
	`[18446744073709551615, 18446744073709551616, 123456789012345678, 1234567890123456789, 12345678901234567890123]`,
	`[true, false, null]`,
	`{"é€😀": "x", "b": "é", "c": [1, "😀", 2]}`,
	"{\"a\":\t\"t\",\t\"b\" :\t1}",
	"\ufeff{\"a\": 1}",
	"\ufeff{\"é\":\n\"é\", \"b\": 1}",
	`{"a":"\u0000\/\b\f\n\r\t\"\\"}`,
	`{"a":"\u0041\u00e9\u20AC\uffff\ufeff\u0080\u0085\u2028"}`,
	"{\"a\":\"\x7f\u0080\u009f\ufeff\ufffd\U0010FFFF\"}",
	"{\"a\"\n:\n1\n,\"b\"  :  [ 1 , 2 ]}",
	"{\"a\":\r\n1,\r\"b\":2,\n\r\"c\":\r\r3}",
	"{\"a\"\n\n\n:1, \"b\"\r\n:\r\n[\r\n]\r\n}",
	"[\n-1,\n0,\n\"-\",\n\"---\",\n\"...\",\n\"#\",\n{\"? x\": \"- y\"}\n]",
	" \n {\"a\":1} \n\n",
	"{\n\t\"a\": {\n\t\t\"b\": [\n\t\t\t1\n\t\t]\n\t}\n}\n",
	`{"a":1,"a":2}`,
	`{"<<": {"a": 1}, "~": null, "": ""}`,
	`{"` + strings.Repeat("k", 1030) + `": 1}`,
	`{"k"` + strings.Repeat(" ", 1030) + `: 1}`,
	`{"a": "` + strings.Repeat(`x\n`, 600) + `", "b": [1]}`,
	strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth),
}

// yamlRefuses are JSON that yaml.v4 refuses; Parse reads them as
// encoding/json does.
var yamlRefuses = []struct{ in, value string }{
	{`{"a":"\ud83d\ude00"}`, "😀"},
	{`{"a":"\ud83d"}`, "\ufffd"},
	{`{"a":"\udc00"}`, "\ufffd"},
	{`{"a":"\ud83dx"}`, "\ufffdx"},
	{`{"a":"\ud83d\u0041"}`, "\ufffdA"},
	{`{"a":"\ud83d\ud83d\ude00"}`, "\ufffd😀"},
	{`{"a":"\ude00\ud83d"}`, "\ufffd\ufffd"},
	{"{\"a\":\"\uffff\ufffe\"}", "\uffff\ufffe"},
}

// refused are not JSON, or JSON Parse refuses (see the package comment):
// where the error is, and what it says.
var refused = []struct{ in, err string }{
	{``, "1:1: unexpected end of JSON input"},
	{` `, "1:2: unexpected end of JSON input"},
	{"\ufeff", "1:1: unexpected end of JSON input"},
	{"\ufeff\ufeff{}", "1:1: invalid character '\\ufeff' looking for the beginning of a value"},
	{`{"a":1} x`, "1:9: invalid character 'x' after the top-level value"},
	{`{"a":1}{}`, "1:8: invalid character '{' after the top-level value"},
	{"{\"a\":1}\n#x", "2:1: invalid character '#'"},
	{"{\"a\":1}\n---\n", "2:1: invalid character '-'"},
	{`[1,]`, "1:4: invalid character ']' looking for the beginning of a value"},
	{`{"a":1,}`, "1:8: invalid character '}' looking for the beginning of an object key string"},
	{`{"a":01}`, "1:7: invalid character '1' after a value"},
	{`{"a":.5}`, "1:6: invalid character '.' looking for the beginning of a value"},
	{`{"a":+1}`, "1:6: invalid character '+'"},
	{`{"a":1.}`, "1:8: invalid character '}' after decimal point"},
	{`{"a":1e}`, "1:8: invalid character '}' in exponent"},
	{`{"a":-}`, "1:7: invalid character '}' in numeric literal"},
	{`{"a":NaN}`, "1:6: invalid character 'N' looking for the beginning of a value"},
	{`{"a":tru}`, "1:9: invalid character '}' in literal true (expecting 'e')"},
	{`{"a":nul`, "1:9: unexpected end of JSON input in literal null"},
	{`{"a":truex}`, "1:10: invalid character 'x' after a value"},
	{`{"a":'x'}`, "1:6: invalid character '\\''"},
	{`{a:1}`, "1:2: invalid character 'a' looking for the beginning of an object key string"},
	{`{"a" 1}`, "1:6: invalid character '1' after an object key"},
	{`{"a":1 "b":2}`, "1:8: invalid character '\"' after an object key:value pair"},
	{`[1 2]`, "1:4: invalid character '2' after an array element"},
	{`{"a":[1}`, "1:8: invalid character '}' after an array element"},
	{`{"a":"x`, "1:8: unexpected end of JSON input in a string"},
	{`{"é€😀":"x`, "1:10: unexpected end of JSON input in a string"},
	{"{\"a\":\"\x01\"}", "1:7: invalid character '\\x01' in string literal"},
	{"{\"a\":\"\t\"}", "1:7: invalid character '\\t' in string literal"},
	{"{\"a\":\"\\n\n\"}", "1:9: invalid character '\\n' in string literal"},
	{`{"a":"\x41"}`, "1:8: invalid character 'x' in string escape code"},
	{`{"a":"\U0001F600"}`, "1:8: invalid character 'U' in string escape code"},
	{`{"a":"\u12"}`, "1:9: invalid \\u escape"},
	{`{"a":"\`, "1:8: unexpected end of JSON input in a string"},
	{"{\"é\":\"x\xff\"}", "1:8: invalid UTF-8"},
	{"{\"a\":\"x\xed\xa0\x80\"}", "1:8: invalid UTF-8"}, // a surrogate in UTF-8
	{"{\"a\":\"x\u0085y\"}", "1:8: raw U+0085"},
	{"{\"a\":\"x\u2028y\"}", "1:8: raw U+2028"},
	{"{\"a\":\"x\u2029y\"}", "1:8: raw U+2029"},
	{"{\"a\":1}\v", "1:8: invalid character '\\v' after the top-level value"},
	{"\u00a0{}", "1:1: invalid character '\\u00a0'"},
	{"{\"a\":1}\x00", "1:8: invalid character '\\x00'"},
	{"\xff", "1:1: invalid byte 0xff"},
	{strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), fmt.Sprintf("1:%d: exceeded max depth of 10000", MaxDepth+1)},
	{"[\n" + strings.Repeat("{\"a\":", MaxDepth), fmt.Sprintf("2:%d: exceeded max depth of 10000", 5*(MaxDepth-1)+1)},
}

func TestSameTreeAsYAML(t *testing.T) {
	for _, in := range sameAsYAML {
		want, err := yamlTree([]byte(in))
		if err != nil {
			t.Errorf("%.60q: yaml refuses it: %v", in, err)
			continue
		}
		got, err := Parse([]byte(in))
		if err != nil {
			t.Errorf("%.60q: %v", in, err)
			continue
		}
		if d := treeDiff(want, got); d != "" {
			t.Errorf("%.60q: %s", in, d)
		}
		if d := jsonDiff([]byte(in), got); d != "" {
			t.Errorf("%.60q: %s", in, d)
		}
	}
}

func TestJSONThatYAMLRefuses(t *testing.T) {
	for _, c := range yamlRefuses {
		if _, err := yamlTree([]byte(c.in)); err == nil {
			t.Errorf("%q: yaml reads it now: move it to sameAsYAML", c.in)
		}
		got, err := Parse([]byte(c.in))
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if v := got.Content[1]; v.Value != c.value || v.Line != 1 || v.Column != 6 || v.Style != yaml.DoubleQuotedStyle || v.Tag != strTag {
			t.Errorf("%q: got %q at %d:%d, want %q at 1:6", c.in, v.Value, v.Line, v.Column, c.value)
		}
		if d := jsonDiff([]byte(c.in), got); d != "" {
			t.Errorf("%q: %s", c.in, d)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, c := range refused {
		n, err := Parse([]byte(c.in))
		var se *SyntaxError
		if !errors.As(err, &se) || n != nil {
			t.Errorf("%.60q: got %v, %v; want a *SyntaxError", c.in, n, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.err) {
			t.Errorf("%.60q:\n got %s\nwant %s...", c.in, err, c.err)
		}
	}
}

// TestDeepNestingFails: a million brackets are an error, not a stack
// overflow, and found without reading them all.
func TestDeepNestingFails(t *testing.T) {
	for _, open := range []string{"[", `{"a":`, `[{"a":`} {
		_, err := Parse([]byte(strings.Repeat(open, 1_000_000)))
		if err == nil || !strings.Contains(err.Error(), "exceeded max depth") {
			t.Errorf("%s × 1e6: %v", open, err)
		}
	}
}

// TestContentAppend: Content slices share slabs; appending to one must
// not write over the next one's.
func TestContentAppend(t *testing.T) {
	root, err := Parse([]byte(`[[1,2],[3,4],{"a":5}]`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range root.Content {
		if len(c.Content) != cap(c.Content) {
			t.Fatalf("Content has len %d, cap %d", len(c.Content), cap(c.Content))
		}
	}
	root.Content[0].Content = append(root.Content[0].Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "x"})
	if v := root.Content[1].Content[0].Value; v != "3" {
		t.Errorf("the next array's first element is now %q", v)
	}
}

// FuzzParse: Parse never panics; it accepts what encoding/json accepts,
// but for what the package comment says it refuses, and reads the same
// values; and where yaml reads the input too, its tree is yaml's.
func FuzzParse(f *testing.F) {
	for _, in := range sameAsYAML {
		if len(in) < 4096 {
			f.Add([]byte(in))
		}
	}
	for _, c := range yamlRefuses {
		f.Add([]byte(c.in))
	}
	for _, c := range refused {
		if len(c.in) < 4096 {
			f.Add([]byte(c.in))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Parse(data)
		body := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
		if err != nil {
			if json.Valid(body) && utf8.Valid(body) && !bytes.ContainsAny(body, "\u0085\u2028\u2029") {
				t.Fatalf("encoding/json reads %q, Parse refuses it: %v", data, err)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatalf("Parse reads %q, encoding/json refuses it", data)
		}
		if d := jsonDiff(data, got); d != "" {
			t.Fatalf("%q: %s", data, d)
		}
		if want, err := yamlTree(data); err == nil {
			if d := treeDiff(want, got); d != "" {
				t.Fatalf("%q: %s", data, d)
			}
		}
	})
}

// TestTreeDiffSeesEveryField: the comparison the other tests rest on
// notices a change to any field of any node.
func TestTreeDiffSeesEveryField(t *testing.T) {
	in := []byte(`{"a": [1, "x"]}`)
	edits := map[string]func(n *yaml.Node){
		"Kind":        func(n *yaml.Node) { n.Kind = yaml.MappingNode },
		"Style":       func(n *yaml.Node) { n.Style = yaml.SingleQuotedStyle },
		"Tag":         func(n *yaml.Node) { n.Tag = intTag },
		"Value":       func(n *yaml.Node) { n.Value = "y" },
		"Anchor":      func(n *yaml.Node) { n.Anchor = "a" },
		"Alias":       func(n *yaml.Node) { n.Alias = n },
		"Content":     func(n *yaml.Node) { n.Content = []*yaml.Node{{}} },
		"HeadComment": func(n *yaml.Node) { n.HeadComment = "#" },
		"LineComment": func(n *yaml.Node) { n.LineComment = "#" },
		"FootComment": func(n *yaml.Node) { n.FootComment = "#" },
		"Line":        func(n *yaml.Node) { n.Line++ },
		"Column":      func(n *yaml.Node) { n.Column++ },
		"Stream":      func(n *yaml.Node) { n.Stream = &yaml.Stream{} },
	}
	for field, edit := range edits {
		want, _ := yamlTree(in)
		got, err := Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if d := treeDiff(want, got); d != "" {
			t.Fatal(d)
		}
		edit(got.Content[1].Content[1])
		if treeDiff(want, got) == "" {
			t.Errorf("treeDiff misses a change of %s", field)
		}
	}
}
