package load

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/diag"
)

// The operations of a spec as the later stages walk them: policy resolves
// each one's x-resilience, build makes each a method. Both take them from
// here, so they agree on which operations there are, in what order, and
// on each one's parameters.

// Operation is one operation of the spec.
type Operation struct {
	Path   string // the path key, as written
	Method string // upper case: GET, POST...
	Item   *openapi3.PathItem
	Op     *openapi3.Operation
	// ID is the operationId, or "METHOD path" when it has none.
	ID string
	// Params are the operation's parameters: the path item's, overridden
	// by the operation's by (in, name). ParamPtr is where each is written
	// (its $ref, when it is one), a pointer of the root document.
	Params   []*openapi3.Parameter
	ParamPtr map[*openapi3.Parameter]string
}

// Ptr is the operation's JSON pointer.
func (o Operation) Ptr() string { return diag.PointerJoin("/paths", o.Path, strings.ToLower(o.Method)) }

var methodOrder = map[string]int{"GET": 0, "HEAD": 1, "OPTIONS": 2, "TRACE": 3, "PUT": 4, "POST": 5, "PATCH": 6, "DELETE": 7}

// Operations are the operations of s sorted by path, then method (in
// HTTP's usual order), leaving out those of a path key no request can be
// sent to (BadPath; build reports it).
func (s *Spec) Operations() []Operation {
	var ops []Operation
	if s.Doc.Paths == nil {
		return nil
	}
	for _, p := range s.Doc.Paths.Keys() {
		item := s.Doc.Paths.Value(p)
		if item == nil || BadPath(URLPath(p)) != "" {
			continue
		}
		for m, op := range item.Operations() {
			if op != nil {
				ops = append(ops, operation(p, strings.ToUpper(m), item, op))
			}
		}
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].Path != ops[j].Path {
			return ops[i].Path < ops[j].Path
		}
		mi, mj := methodOrder[ops[i].Method], methodOrder[ops[j].Method]
		if mi != mj {
			return mi < mj
		}
		return ops[i].Method < ops[j].Method
	})
	return ops
}

func operation(path, method string, item *openapi3.PathItem, op *openapi3.Operation) Operation {
	o := Operation{Path: path, Method: method, Item: item, Op: op, ID: op.OperationID, ParamPtr: map[*openapi3.Parameter]string{}}
	if o.ID == "" {
		o.ID = method + " " + path
	}
	type key struct{ in, name string }
	idx := map[key]int{}
	for li, list := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		listPtr := diag.PointerJoin("/paths", path, "parameters")
		if li == 1 {
			listPtr = diag.PointerJoin(o.Ptr(), "parameters")
		}
		for i, pr := range list {
			if pr == nil || pr.Value == nil {
				continue
			}
			o.ParamPtr[pr.Value] = diag.PointerJoin(listPtr, strconv.Itoa(i))
			k := key{pr.Value.In, pr.Value.Name}
			if i, ok := idx[k]; ok {
				o.Params[i] = pr.Value
				continue
			}
			idx[k] = len(o.Params)
			o.Params = append(o.Params, pr.Value)
		}
	}
	return o
}

// PathParamRE matches a {name} template of a path key.
var PathParamRE = regexp.MustCompile(`\{([^{}]+)\}`)

// URLPath is the path a path key sends requests to. A "#fragment"
// ("/files/{file_id}#add_shared_link") only tells two keys of one path
// apart: it is never part of a request, and written into the URL it
// would swallow the query that follows it.
func URLPath(key string) string {
	if i := strings.IndexByte(key, '#'); i >= 0 {
		return key[:i]
	}
	return key
}

// BadPath says why the literal parts of a path key (its {name}
// templates aside, which the client fills in escaped) cannot be sent as a
// URL path, or "": a control character, a % that does not start a
// %-escape.
func BadPath(key string) string {
	lit := PathParamRE.ReplaceAllString(key, "x")
	for i, r := range lit {
		switch {
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
			return fmt.Sprintf("has the control character U+%04X", r)
		case r == '%' && (i+2 >= len(lit) || !isHex(lit[i+1]) || !isHex(lit[i+2])):
			return fmt.Sprintf("has %q, which is not a %%-escape", lit[i:min(i+3, len(lit))])
		}
	}
	if _, err := url.Parse("http://host" + lit); err != nil {
		return "is not a URL path"
	}
	return ""
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
