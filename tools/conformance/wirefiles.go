package conformance

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// uploadName is the file name the driver gives every runtime.File it
// makes (driver.go's fill): a file part must carry it as its filename.
const uploadName = "upload.bin"

// checkFileParts reports file parts of a multipart body (a property of
// format binary, or a list of them) sent without the caller's file name,
// or with a Content-Type that is not the one the spec's encoding declares
// (application/octet-stream when it declares none). kin-openapi reads a
// part's content only, so neither shows in its verdict: a server that
// tells files from fields by the filename (RFC 7578 4.2) would take the
// file for a text field.
func checkFileParts(r *http.Request, body []byte, c *call) []problem {
	if mediaBase(r.Header.Get("Content-Type")) != "multipart/form-data" || c.kinOp == nil || c.kinOp.RequestBody == nil || c.kinOp.RequestBody.Value == nil {
		return nil
	}
	mt := c.kinOp.RequestBody.Value.Content.Get(c.bodyCT)
	if mt == nil || mt.Schema == nil {
		return nil
	}
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		return nil // checkBody reports it
	}
	var probs []problem
	seen := map[string]int{} // file parts read, by name
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return probs // checkBody reports it
		}
		name := part.FormName()
		ps := propertySchema(mt.Schema, name, 0)
		if !binarySchema(ps) {
			continue
		}
		// The caller's bytes, each exactly (kin-openapi reads no part of
		// a type it has no decoder for).
		if want := c.files[name]; seen[name] < len(want) {
			got, err := io.ReadAll(part)
			if d := bytesDiff(want[seen[name]], got); err != nil || d != "" {
				probs = append(probs, problem{kind: "body", detail: fmt.Sprintf("file part %q (%d of %d): %s%v", name, seen[name]+1, len(want), d, errText(err))})
			}
		}
		seen[name]++
		if fn := part.FileName(); fn != uploadName {
			probs = append(probs, problem{kind: "body", detail: fmt.Sprintf("file part %q: filename %q; the caller's file is named %q (Content-Disposition %q)", name, fn, uploadName, part.Header.Get("Content-Disposition"))})
		}
		want := []string{"application/octet-stream"}
		if enc := mt.Encoding[name]; enc != nil && strings.TrimSpace(enc.ContentType) != "" {
			want = strings.Split(enc.ContentType, ",")
		}
		got := mediaBase(part.Header.Get("Content-Type"))
		ok := false
		for _, w := range want {
			if mediaMatch(got, mediaBase(strings.TrimSpace(w))) && got != "" && !strings.Contains(got, "*") {
				ok = true
			}
		}
		if !ok {
			probs = append(probs, problem{kind: "body", detail: fmt.Sprintf("file part %q: Content-Type %q; the spec's encoding makes it %s", name, part.Header.Get("Content-Type"), strings.Join(want, " or "))})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.files)) {
		if n := len(c.files[name]); seen[name] != n {
			probs = append(probs, problem{kind: "body", detail: fmt.Sprintf("file part %q: %d sent; the call's body has %d", name, seen[name], n)})
		}
	}
	return probs
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return " (reading it: " + err.Error() + ")"
}

// propertySchema is the schema of an object schema's property name (its
// allOf parts and union variants searched too), nil when none declares it.
func propertySchema(ref *openapi3.SchemaRef, name string, depth int) *openapi3.Schema {
	if ref == nil || ref.Value == nil || depth > maxDepth {
		return nil
	}
	if p := ref.Value.Properties[name]; p != nil && p.Value != nil {
		return p.Value
	}
	for _, list := range []openapi3.SchemaRefs{ref.Value.AllOf, ref.Value.OneOf, ref.Value.AnyOf} {
		for _, part := range list {
			if s := propertySchema(part, name, depth+1); s != nil {
				return s
			}
		}
	}
	return nil
}

// binarySchema reports whether s is a file, as resgen's generator reads
// it (a *runtime.File part): format binary, or OpenAPI 3.1's
// contentEncoding binary or contentMediaType; or a list of such.
func binarySchema(s *openapi3.Schema) bool {
	if s == nil {
		return false
	}
	if s.Type != nil && s.Type.Is("array") && s.Items != nil {
		return binarySchema(s.Items.Value)
	}
	return s.Format == "binary" || s.ContentEncoding == "binary" || s.ContentMediaType != ""
}

// nestedFieldTexts holds the numbers and booleans a form writes below its
// top-level fields (name[key], name[0][key]: deepObject properties, lists
// of objects) to their canonical text, as checkFields does the top-level
// ones: kin-openapi decodes them through float64, so a digit lost past
// 2^53 or an exponent would pass its verdict.
func nestedFieldTexts(values map[string][]string, m map[string]any) []problem {
	want := map[string]any{}
	for k, v := range m {
		bracketLeaves(want, k, v, 0, false)
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var probs []problem
	for _, k := range keys {
		got := values[k]
		if len(got) != 1 {
			continue // kin-openapi's decode and the comparison judge it
		}
		if d := textDiff(want[k], got[0], false); d != "" {
			probs = append(probs, problem{kind: "text", detail: fmt.Sprintf("body field %q: %s", k, d)})
		}
	}
	return probs
}

// bracketLeaves records in out each scalar below v by its bracketed key
// (prefix[key], prefix[0][key]), as forms and deepObject write them; the
// value itself (depth 0) is no leaf. skipNil leaves nulls out (a
// deepObject writer drops them).
func bracketLeaves(out map[string]any, prefix string, v any, depth int, skipNil bool) {
	if depth > maxDepth {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			bracketLeaves(out, prefix+"["+k+"]", e, depth+1, skipNil)
		}
	case []any:
		for i, e := range x {
			bracketLeaves(out, prefix+"["+strconv.Itoa(i)+"]", e, depth+1, skipNil)
		}
	default:
		if depth > 0 && (v != nil || !skipNil) {
			out[prefix] = v
		}
	}
}

// checkDeepObjectKeys holds a deepObject query parameter's keys to the
// intended value's members (name[key], name[0][key]: resgen writes lists
// of objects indexed): a member sent under another name, one the value
// does not hold, or one left out shows, and numbers and booleans are held
// to their canonical text. kin-openapi reads such keys by the schema's
// property names and cannot decode lists of objects at all (an exception
// by construct), so its verdict sees none of this.
func checkDeepObjectKeys(r *http.Request, c *call) []problem {
	var probs []problem
	pairs, _ := rawQueryPairs(r.URL.RawQuery)
	for _, ip := range c.params {
		p := ip.param
		if p.In != "query" {
			continue
		}
		if sm, _ := p.SerializationMethod(); sm == nil || sm.Style != "deepObject" {
			continue
		}
		switch v := ip.value.(type) {
		case map[string]any:
		case []any:
			if !slices.ContainsFunc(v, func(e any) bool {
				switch e.(type) {
				case map[string]any, []any:
					return true
				}
				return false
			}) {
				continue // a list of scalars goes as name=a&name=b
			}
		default:
			continue
		}
		want := map[string]any{}
		bracketLeaves(want, p.Name, ip.value, 0, true)
		got := map[string][]string{}
		for _, kv := range pairs {
			if strings.HasPrefix(kv[0], p.Name+"[") {
				got[kv[0]] = append(got[kv[0]], kv[1])
			}
		}
		keys := make([]string, 0, len(want)+len(got))
		for k := range want {
			keys = append(keys, k)
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			w, intended := want[k]
			g, sent := got[k]
			switch {
			case !sent:
				probs = append(probs, problem{kind: "value", detail: fmt.Sprintf("query parameter %q: key %s is not sent; the intended value holds %s there", p.Name, k, short(w))})
			case !intended:
				probs = append(probs, problem{kind: "extra", detail: fmt.Sprintf("query parameter %q: key %s is sent; the intended value holds no such member", p.Name, k)})
			case len(g) == 1:
				if d := textDiff(w, g[0], true); d != "" {
					probs = append(probs, problem{kind: "text", detail: fmt.Sprintf("query parameter %q: key %s %s", p.Name, k, d)})
				}
			}
		}
	}
	return probs
}

// strictComposite reports whether a list or object parameter's items
// and members are read back exactly by checkText: a query or header one,
// or a path one of style simple (label and matrix split on "." and ";",
// which a format's text such as a date-time's may hold).
func strictComposite(p *openapi3.Parameter) bool {
	switch p.In {
	case "query", "header":
		return true
	case "path":
		return p.Style == "" || p.Style == "simple"
	}
	return false
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}
