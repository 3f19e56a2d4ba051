package policy

// The paging lint: an operation that looks paged (a cursor, token, page or
// offset query parameter, and a next cursor, next URL or Link header in
// its 2xx answer) but says nothing of its paging gets a warning with the
// annotation to add, so its client gets the iterators.

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/load"
)

// maxPageLints is how many operations get a warning of their own; the
// rest of a big spec's are counted in one more.
const maxPageLints = 10

// Parameter names (lower case, without _ and -) by the kind they suggest.
var pageParamKinds = map[string]string{
	"cursor": "cursor", "after": "cursor", "startingafter": "cursor", "startcursor": "cursor", "marker": "cursor",
	"continuation": "cursor", "continuationtoken": "token", "pagetoken": "token", "nexttoken": "token",
	"nextpagetoken": "token", "pagingtoken": "token",
	"page": "page", "pagenumber": "page", "pageno": "page",
	"offset": "offset", "skip": "offset",
}

var limitNames = []string{"limit", "pagesize", "perpage", "size", "count", "maxresults", "top"}

// nextFieldNames are the body fields (lower case, without _ and -) that
// name a next page; urlish ones hold its URL.
var nextFieldNames = map[string]bool{
	"next": true, "nextcursor": true, "nextpagetoken": true, "nexttoken": true, "nextpage": true, "cursor": true,
	"continuation": true, "nextpageurl": true, "nexturl": true, "nextlink": true, "hasmore": true, "startcursor": true,
}

// pageWord is a name lower case, without _, - and dots, for matching.
func pageWord(s string) string {
	return strings.NewReplacer("_", "", "-", "", ".", "").Replace(strings.ToLower(s))
}

func urlish(field string) bool {
	f := pageWord(field)
	return strings.Contains(f, "url") || strings.Contains(f, "link") || strings.HasSuffix(f, "href")
}

// lintPaging warns about each operation that looks paged but is not
// annotated (resolved[i] is ops[i]'s).
func (r *Resolver) lintPaging(ops []load.Operation, resolved []Resolved) {
	n := 0
	first := ""
	for i, o := range ops {
		if resolved[i].Paging != nil || o.Op == nil || o.Op.Extensions[paginationExt] != nil {
			continue
		}
		if m, ok := o.Op.Extensions[extName].(map[string]any); ok && m["pagination"] != nil {
			continue // annotated, with a mistake reported already
		}
		suggestion, why := suggestPaging(o)
		if suggestion == "" {
			continue
		}
		if n++; n > maxPageLints {
			continue
		}
		if first == "" {
			first = o.Ptr()
		}
		r.warnf(o.Ptr(), "add x-resilience: {pagination: "+suggestion+"} (or the same object as x-pagination), by hand or by an overlay",
			"operation %s %s looks paged (%s) but does not say how: its client gets no iterator over its pages", o.Method, o.Path, why)
	}
	if n > maxPageLints {
		r.warnf(first, "see docs/contract.md, pagination", "%d more operations look paged but do not say how (warned for the first %d only)", n-maxPageLints, maxPageLints)
	}
}

// suggestPaging is the pagination object operation o looks like it
// takes, and why, or "" when it does not look paged.
func suggestPaging(o load.Operation) (suggestion, why string) {
	var param, kind, limit string
	for _, p := range o.Params {
		if p == nil || p.In != "query" {
			continue
		}
		if k, ok := pageParamKinds[pageWord(p.Name)]; ok && param == "" {
			param, kind = p.Name, k
			if s := p.Schema; (k == "page" || k == "offset") && s != nil && s.Value != nil && s.Value.Type != nil && s.Value.Type.Is("string") {
				kind = "token" // a page "number" that is text is the server's token
			}
		}
		if slices.Contains(limitNames, pageWord(p.Name)) && limit == "" {
			limit = p.Name
		}
	}
	if param == "" {
		return "", ""
	}
	body, link, header := pageAnswer(o.Op)
	if body == nil && !link && header == "" {
		return "", ""
	}
	items := ""
	next := ""
	if body != nil {
		if !isArray(body) {
			items = arrayField(body)
			next = nextField(body, "")
		}
	}
	obj := []string{}
	add := func(k, v string) {
		if v != "" {
			obj = append(obj, k+": "+v)
		}
	}
	switch {
	case link:
		add("kind", "link")
		why = fmt.Sprintf("query parameter %q and a Link header", param)
	case next != "" && urlish(next):
		add("kind", "nextURL")
		add("next", next)
		why = fmt.Sprintf("query parameter %q and field %q", param, next)
	case header != "" && (kind == "cursor" || kind == "token"):
		add("kind", kind)
		add("param", param)
		add("nextHeader", header)
		why = fmt.Sprintf("query parameter %q and header %q", param, header)
	case next != "":
		add("kind", kind)
		add("param", param)
		if kind == "cursor" || kind == "token" {
			add("next", next)
		}
		if kind == "offset" {
			add("limit", limit)
		}
		why = fmt.Sprintf("query parameter %q and field %q", param, next)
	default:
		return "", ""
	}
	add("items", items)
	return "{" + strings.Join(obj, ", ") + "}", why
}

// pageAnswer is the schema of o's first 2xx JSON body (nil when none),
// whether a 2xx answer declares a Link header, and the first next-ish
// header it declares.
func pageAnswer(op *openapi3.Operation) (body *openapi3.Schema, link bool, header string) {
	if op.Responses == nil {
		return nil, false, ""
	}
	keys := op.Responses.Keys()
	sort.Strings(keys)
	for _, k := range keys {
		rr := op.Responses.Value(k)
		if !strings.HasPrefix(k, "2") || rr == nil || rr.Value == nil {
			continue
		}
		hs := make([]string, 0, len(rr.Value.Headers))
		for h := range rr.Value.Headers {
			hs = append(hs, h)
		}
		sort.Strings(hs)
		for _, h := range hs {
			switch sq := pageWord(h); {
			case sq == "link":
				link = true
			case header == "" && (strings.Contains(sq, "next") || strings.Contains(sq, "cursor")):
				header = h
			}
		}
		if body == nil {
			for _, ct := range slices.Sorted(maps.Keys(rr.Value.Content)) {
				if mt := rr.Value.Content[ct]; strings.Contains(ct, "json") && mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
					body = mt.Schema.Value
					break
				}
			}
		}
	}
	return body, link, header
}

func isArray(s *openapi3.Schema) bool { return s.Type != nil && s.Type.Is("array") }

// props are s's properties with those of its allOf parts, sorted.
func props(s *openapi3.Schema) map[string]*openapi3.Schema {
	out := map[string]*openapi3.Schema{}
	for name, p := range s.Properties {
		if p != nil && p.Value != nil {
			out[name] = p.Value
		}
	}
	for _, part := range s.AllOf {
		if part != nil && part.Value != nil {
			for name, p := range part.Value.Properties {
				if p != nil && p.Value != nil {
					out[name] = p.Value
				}
			}
		}
	}
	return out
}

// arrayField is the first array property of s, by name.
func arrayField(s *openapi3.Schema) string {
	ps := props(s)
	for _, name := range slices.Sorted(maps.Keys(ps)) {
		if isArray(ps[name]) {
			return name
		}
	}
	return ""
}

// nextField is the dotted path of a string property of s (or of an
// object property of it) that names a next page, "" when none; prefix is
// the path so far.
func nextField(s *openapi3.Schema, prefix string) string {
	ps := props(s)
	names := slices.Sorted(maps.Keys(ps))
	for _, name := range names {
		if p := ps[name]; nextFieldNames[pageWord(name)] && p.Type != nil && p.Type.Is("string") {
			return prefix + name
		}
	}
	if prefix != "" {
		return ""
	}
	for _, name := range names {
		if p := ps[name]; p.Type != nil && p.Type.Is("object") && !strings.Contains(name, ".") {
			if f := nextField(p, name+"."); f != "" {
				return f
			}
		}
	}
	return ""
}
