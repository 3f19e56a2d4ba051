package policy

// An operation's paging: its x-resilience pagination (or x-pagination,
// the same object), read and checked for shape here, with its position.
// What it names (parameters, body fields, the items' array) is the
// operation's, which build checks against the operation's types.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/resgen/resgen/internal/rawval"
)

// paginationExt is the extension that may hold an operation's paging
// instead of x-resilience's pagination key.
const paginationExt = "x-pagination"

// PageKinds are the ways an operation pages, as pagination.kind names them.
var PageKinds = []string{"cursor", "token", "offset", "page", "nextURL", "link"}

// pageKeys are the keys each kind takes besides kind and items.
var pageKeys = map[string][]string{
	"cursor":  {"param", "next", "nextHeader", "nextItem", "more"},
	"token":   {"param", "next", "nextHeader", "more"},
	"offset":  {"param", "limit", "more"},
	"page":    {"param", "start", "more"},
	"nextURL": {"next"},
	"link":    {},
}

// Pagination is how an operation pages, as written and checked for shape.
type Pagination struct {
	// Kind is one of PageKinds.
	Kind string
	// Ptr is where the object is written.
	Ptr string
	// Param is the parameter the next page's cursor, token, offset or
	// page number goes into; Limit offset's page size parameter ("" none).
	Param, Limit string
	// Next is the 2xx body field holding the next cursor, token or URL
	// (a JSON pointer or a dotted path); NextHeader the response header
	// holding the cursor or token instead.
	Next, NextHeader string
	// NextItem is the field of a page's last item that is the next
	// cursor (Stripe's starting_after: the last item's id).
	NextItem string
	// More is the boolean 2xx body field that says whether a next page
	// exists (Stripe's has_more): false ends the iteration.
	More string
	// Items is the 2xx body field holding the page's items; "" when the
	// body itself is the list.
	Items string
	// Start is the number of a page kind's first page (1 unless written).
	Start int64
}

// KeyPtr is where key of the object is written.
func (p *Pagination) KeyPtr(key string) string { return p.Ptr + "/" + esc(key) }

// pagination reads the paging of an operation: opExt is its x-resilience
// (at opPtr), pagExt its x-pagination; nil when it pages by neither.
func (r *Resolver) pagination(opPtr string, opExt, pagExt any) *Pagination {
	var v any
	var ptr string
	if m, ok := opExt.(map[string]any); ok {
		if pv, ok := m["pagination"]; ok {
			v, ptr = pv, opPtr+"/"+extName+"/pagination"
		}
	}
	if pagExt != nil {
		if v != nil {
			r.errorf(opPtr+"/"+paginationExt, "keep one of them", "the operation's paging is written twice: in x-resilience pagination and in x-pagination")
			return nil
		}
		v, ptr = pagExt, opPtr+"/"+paginationExt
	}
	if v == nil {
		return nil
	}
	o, ok := r.object(ptr, v, "pagination")
	if !ok {
		return nil
	}
	p := &Pagination{Ptr: ptr, Start: 1}
	kv, ok := o.m["kind"]
	if !ok {
		r.errorf(ptr, "add kind: one of "+strings.Join(PageKinds, ", "), "pagination has no kind")
		return nil
	}
	r.enum(p.KeyPtr("kind"), kv, &p.Kind, PageKinds...)
	if p.Kind == "" {
		return nil
	}
	known := append([]string{"kind", "items"}, pageKeys[p.Kind]...)
	r.checkKeys(o, known, "pagination of kind "+p.Kind)
	bad := false
	str := func(key string, dst *string) {
		v, ok := o.m[key]
		if !ok {
			return
		}
		if s, ok := v.(string); ok && (s != "" || key == "items") {
			*dst = s
			return
		}
		r.errorf(p.KeyPtr(key), "", "%s must be a non-empty string, got %s", key, rawval.Show(v))
		bad = true
	}
	for key, dst := range map[string]*string{"param": &p.Param, "limit": &p.Limit, "next": &p.Next, "nextHeader": &p.NextHeader,
		"nextItem": &p.NextItem, "more": &p.More, "items": &p.Items} {
		if slices.Contains(known, key) {
			str(key, dst)
		}
	}
	if v, ok := o.m["start"]; ok && p.Kind == "page" {
		if f, ok := v.(float64); ok && f == float64(int64(f)) && f >= 0 && f < 1<<53 {
			p.Start = int64(f)
		} else {
			r.errorf(p.KeyPtr("start"), "", "start must be a whole number of at least 0, got %s", rawval.Show(v))
			bad = true
		}
	}
	need := func(key, what string) {
		if _, ok := o.m[key]; !ok {
			r.errorf(ptr, "add "+key, "pagination of kind %s needs %s: %s", p.Kind, key, what)
			bad = true
		}
	}
	switch p.Kind {
	case "cursor", "token":
		need("param", "the parameter the next "+p.Kind+" goes into")
		var where []string
		for _, k := range []string{"next", "nextHeader", "nextItem"} {
			if _, ok := o.m[k]; ok {
				where = append(where, k)
			}
		}
		switch {
		case len(where) > 1:
			r.errorf(p.KeyPtr(where[1]), "keep one of them", "pagination of kind %s takes one of next, nextHeader and nextItem, not %s", p.Kind, strings.Join(where, " and "))
			bad = true
		case len(where) == 0:
			r.errorf(ptr, "add next (a body field), nextHeader (a response header) or nextItem (a field of the last item)", "pagination of kind %s needs where the next %s is: next, nextHeader or nextItem", p.Kind, p.Kind)
			bad = true
		}
	case "offset":
		need("param", "the offset parameter")
	case "page":
		need("param", "the page number parameter")
	case "nextURL":
		need("next", "the body field holding the next page's URL")
	}
	if p.NextHeader != "" && !validHeaderName(p.NextHeader) {
		r.errorf(p.KeyPtr("nextHeader"), "", "nextHeader must be an HTTP header name, got %s", rawval.Show(p.NextHeader))
		bad = true
	}
	if bad {
		return nil
	}
	return p
}

// String is the paging in words, as explain and the doc comment say it.
func (p *Pagination) String() string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(p.Kind)
	switch {
	case p.Next != "":
		fmt.Fprintf(&b, " from body %s", p.Next)
	case p.NextHeader != "":
		fmt.Fprintf(&b, " from header %s", p.NextHeader)
	case p.NextItem != "":
		fmt.Fprintf(&b, " from the last item's %s", p.NextItem)
	case p.Kind == "link":
		b.WriteString(` from header Link rel="next"`)
	}
	if p.Param != "" {
		fmt.Fprintf(&b, " into %s", p.Param)
	}
	if p.Limit != "" {
		fmt.Fprintf(&b, ", page size in %s", p.Limit)
	}
	if p.Kind == "page" {
		fmt.Fprintf(&b, ", from %d", p.Start)
	}
	if p.Items != "" {
		fmt.Fprintf(&b, "; items in %s", p.Items)
	}
	if p.More != "" {
		fmt.Fprintf(&b, "; more while %s", p.More)
	}
	return b.String()
}
