package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
)

// template matches request paths against one operation's path template.
// kin-openapi's routers validate the whole document first and refuse
// specs kin-openapi finds invalid; matching the one operation each call
// is meant for needs no more than this.
type template struct {
	re    *regexp.Regexp
	names []string
}

var paramInPath = regexp.MustCompile(`\{[^{}/]+\}`)

// compileTemplate builds the matcher of path (any "?query" part of the
// template is ignored); each parameter captures by its style.
func compileTemplate(path string, params map[string]*openapi3.Parameter) (*template, error) {
	// A "#fragment" or "?query" in a path key is never part of the path
	// on the wire.
	path, _, _ = strings.Cut(path, "#")
	path, _, _ = strings.Cut(path, "?")
	t := &template{}
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for _, loc := range paramInPath.FindAllStringIndex(path, -1) {
		b.WriteString(regexp.QuoteMeta(escapeLiteral(path[last:loc[0]])))
		name := path[loc[0]+1 : loc[1]-1]
		t.names = append(t.names, name)
		style := ""
		if p := params["path\x00"+name]; p != nil {
			style = p.Style
		}
		switch style {
		case "label":
			b.WriteString(`(\.[^/;]*|)`)
		case "matrix":
			b.WriteString(`(;[^/]*|)`)
		default:
			b.WriteString(`([^/]*?)`)
		}
		last = loc[1]
	}
	b.WriteString(regexp.QuoteMeta(escapeLiteral(path[last:])))
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, err
	}
	t.re = re
	return t, nil
}

// escapeLiteral is a literal part of a template as it appears escaped.
func escapeLiteral(s string) string {
	return (&url.URL{Path: s}).EscapedPath()
}

// match returns the path parameters (unescaped) of an escaped path.
func (t *template) match(escaped string) (map[string]string, bool) {
	raw, ok := t.matchRaw(escaped)
	if !ok {
		return nil, false
	}
	out := make(map[string]string, len(raw))
	for n, r := range raw {
		v, err := url.PathUnescape(r)
		if err != nil {
			v = r
		}
		out[n] = v
	}
	return out, true
}

// matchRaw returns the path parameters of an escaped path as written.
func (t *template) matchRaw(escaped string) (map[string]string, bool) {
	m := t.re.FindStringSubmatch(escaped)
	if m == nil {
		return nil, false
	}
	out := make(map[string]string, len(t.names))
	for i, n := range t.names {
		out[n] = m[i+1]
	}
	return out, true
}

// routeFor is the route of c's operation, with the request's path
// parameters, or an error when the request's path is not the operation's.
func routeFor(doc *openapi3.T, c *call, r *http.Request) (*routers.Route, map[string]string, error) {
	if !strings.EqualFold(r.Method, c.op.Method) {
		return nil, nil, fmt.Errorf("method %s; the operation is %s %s", r.Method, c.op.Method, c.op.Path)
	}
	params, ok := c.tmpl.match(r.URL.EscapedPath())
	if !ok {
		return nil, nil, fmt.Errorf("path %s does not match the operation's template %s", r.URL.EscapedPath(), c.op.Path)
	}
	route := &routers.Route{Spec: doc, Path: c.op.Path, PathItem: c.item, Method: strings.ToUpper(c.op.Method), Operation: withoutSecurity(c.kinOp)}
	if len(doc.Servers) > 0 {
		route.Server = doc.Servers[0]
	}
	return route, params, nil
}

// withoutSecurity is a copy of op that requires no security: credentials
// are not what the harness checks, and specs name undeclared schemes.
func withoutSecurity(op *openapi3.Operation) *openapi3.Operation {
	cp := *op
	cp.Security = &openapi3.SecurityRequirements{}
	return &cp
}
