package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// The checks here read the request as written, independent of
// kin-openapi's lenient parsing (strconv.ParseBool takes "1" and "TRUE",
// ParseInt "05" and "+5", ParseFloat "1e+06"; cookies are not unescaped;
// undeclared parameters and form fields are ignored; Accept is not read).

// leaf is one scalar of a parameter's intended value: the whole value, a
// list's item (key "") or an object's property.
type leaf struct {
	key   string
	value any
}

// leavesOf splits an intended value as a style writes it.
func leavesOf(v any) (kind byte, leaves []leaf) {
	switch x := v.(type) {
	case []any:
		for _, it := range x {
			leaves = append(leaves, leaf{"", it})
		}
		return 'a', leaves
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			leaves = append(leaves, leaf{k, x[k]})
		}
		return 'o', leaves
	}
	return 's', []leaf{{"", v}}
}

// canonicalText is the one text a scalar has in a parameter: booleans true
// or false, integers without sign or leading zero, numbers in decimal
// without an exponent; ok is false for strings and what is not a scalar.
func canonicalText(v any) (text string, ok bool) {
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case json.Number:
		r, ok := parseRat(string(x))
		if !ok {
			return string(x), true
		}
		if r.IsInt() {
			return r.Num().String(), true
		}
		f, _ := r.Float64()
		return strconv.FormatFloat(f, 'f', -1, 64), true
	}
	return "", false
}

// wireTexts reads parameter p from r as its style writes it: the texts of
// a scalar (one), a list's items, or an object's properties (by key, in
// keys). raw is the escaped text of a path parameter. A failure to read
// is an error (the structure kin-openapi's own check judges).
func wireTexts(r *http.Request, rawPath map[string]string, p *openapi3.Parameter, kind byte) (texts []string, keys []string, found bool, err error) {
	sm, err := p.SerializationMethod()
	if err != nil {
		return nil, nil, false, err
	}
	// split cuts s into a list's items or an object's key/value pairs.
	split := func(s, delim string, explode bool, unescape func(string) (string, error)) ([]string, []string, error) {
		var parts []string
		if kind == 's' {
			parts = []string{s}
		} else {
			parts = strings.Split(s, delim)
		}
		un := func(list []string) ([]string, error) {
			out := make([]string, len(list))
			for i, x := range list {
				u, err := unescape(x)
				if err != nil {
					return nil, fmt.Errorf("%q is not escaped right: %v", x, err)
				}
				out[i] = u
			}
			return out, nil
		}
		if kind != 'o' {
			t, err := un(parts)
			return t, nil, err
		}
		var ks, vs []string
		if explode {
			for _, pt := range parts {
				k, v, ok := strings.Cut(pt, "=")
				if !ok {
					return nil, nil, fmt.Errorf("%q is not key=value", pt)
				}
				ks, vs = append(ks, k), append(vs, v)
			}
		} else {
			if len(parts)%2 != 0 {
				return nil, nil, fmt.Errorf("%q has no value for its last key", s)
			}
			for i := 0; i < len(parts); i += 2 {
				ks, vs = append(ks, parts[i]), append(vs, parts[i+1])
			}
		}
		ku, err := un(ks)
		if err != nil {
			return nil, nil, err
		}
		vu, err := un(vs)
		return vu, ku, err
	}
	same := func(s string) (string, error) { return s, nil }
	switch p.In {
	case "query":
		q, err := rawQueryPairs(r.URL.RawQuery)
		if err != nil {
			return nil, nil, false, err
		}
		get := func(name string) []string {
			var out []string
			for _, kv := range q {
				if kv[0] == name {
					out = append(out, kv[1])
				}
			}
			return out
		}
		switch {
		case sm.Style == "deepObject" && kind == 'o':
			prefix := p.Name + "["
			for _, kv := range q {
				if strings.HasPrefix(kv[0], prefix) && strings.HasSuffix(kv[0], "]") {
					keys = append(keys, kv[0][len(prefix):len(kv[0])-1])
					texts = append(texts, kv[1])
				}
			}
			return texts, keys, len(texts) > 0, nil
		case sm.Explode && kind == 'o' && sm.Style == "form":
			// The properties are parameters of their own: read the
			// intended keys back (an extra one is the "extra" check's).
			return nil, nil, true, errObjectByKeys
		case sm.Explode && kind == 'a':
			texts = get(p.Name)
			return texts, nil, len(texts) > 0, nil
		}
		vals := get(p.Name)
		if len(vals) == 0 {
			return nil, nil, false, nil
		}
		if len(vals) > 1 {
			return nil, nil, true, fmt.Errorf("sent %d times", len(vals))
		}
		delim := ","
		switch sm.Style {
		case "spaceDelimited":
			delim = " "
		case "pipeDelimited":
			delim = "|"
		}
		texts, keys, err = split(vals[0], delim, false, same)
		return texts, keys, true, err
	case "header":
		vals := r.Header.Values(p.Name)
		if len(vals) == 0 {
			return nil, nil, false, nil
		}
		texts, keys, err = split(strings.Join(vals, ","), ",", sm.Explode, same)
		return texts, keys, true, err
	case "cookie":
		var vals []string
		for _, c := range cookiePairs(r) {
			if c[0] == p.Name {
				vals = append(vals, c[1])
			}
		}
		if len(vals) == 0 {
			return nil, nil, false, nil
		}
		if kind == 'a' && sm.Explode {
			texts, _, err = split(strings.Join(vals, ","), ",", false, url.PathUnescape)
			return texts, nil, true, err
		}
		if len(vals) > 1 {
			return nil, nil, true, fmt.Errorf("sent %d times", len(vals))
		}
		// Cookies are percent-encoded (RFC 6570 as OpenAPI's form style
		// says): a "+" is a plus, never a space.
		texts, keys, err = split(vals[0], ",", false, url.PathUnescape)
		return texts, keys, true, err
	case "path":
		raw, ok := rawPath[p.Name]
		if !ok {
			return nil, nil, false, nil
		}
		delim := ","
		switch sm.Style {
		case "label":
			if !strings.HasPrefix(raw, ".") {
				return nil, nil, true, fmt.Errorf("%q does not start with the label's \".\"", raw)
			}
			raw = raw[1:]
			if sm.Explode {
				delim = "."
			}
		case "matrix":
			prefix := ";" + url.PathEscape(p.Name) + "="
			if sm.Explode && kind == 'o' {
				if !strings.HasPrefix(raw, ";") {
					return nil, nil, true, fmt.Errorf("%q does not start with \";\"", raw)
				}
				raw, delim = raw[1:], ";"
				break
			}
			if sm.Explode && kind == 'a' {
				if !strings.HasPrefix(raw, prefix) {
					return nil, nil, true, fmt.Errorf("%q does not start with %q", raw, prefix)
				}
				texts, _, err = split(raw[len(prefix):], prefix, false, url.PathUnescape)
				return texts, nil, true, err
			}
			if !strings.HasPrefix(raw, prefix) {
				return nil, nil, true, fmt.Errorf("%q does not start with %q", raw, prefix)
			}
			raw = raw[len(prefix):]
		}
		texts, keys, err = split(raw, delim, sm.Explode, url.PathUnescape)
		return texts, keys, true, err
	}
	return nil, nil, false, nil
}

// errObjectByKeys: an exploded form object in a query is read key by key.
var errObjectByKeys = fmt.Errorf("read by keys")

// rawQueryPairs is a raw query's pairs, unescaped as a server reads them
// (url.ParseQuery: "+" is a space), in order.
func rawQueryPairs(raw string) ([][2]string, error) {
	var out [][2]string
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		ku, err := url.QueryUnescape(k)
		if err != nil {
			return nil, fmt.Errorf("query key %q is not escaped right: %v", k, err)
		}
		vu, err := url.QueryUnescape(v)
		if err != nil {
			return nil, fmt.Errorf("query value %q of %q is not escaped right: %v", v, ku, err)
		}
		out = append(out, [2]string{ku, vu})
	}
	return out, nil
}

// cookiePairs are the request's cookies as written (name, raw value).
func cookiePairs(r *http.Request) [][2]string {
	var out [][2]string
	for _, line := range r.Header.Values("Cookie") {
		for part := range strings.SplitSeq(line, ";") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			k, v, _ := strings.Cut(part, "=")
			if len(v) > 1 && v[0] == '"' && v[len(v)-1] == '"' {
				// RFC 6265's quoted form (net/http quotes a value with a
				// comma or space): the quotes are not the value's.
				v = v[1 : len(v)-1]
			}
			out = append(out, [2]string{k, v})
		}
	}
	return out
}

// checkText compares each parameter's scalars on the wire with their
// canonical text (strings too for cookies, which kin-openapi reads
// escaped).
func checkText(r *http.Request, rawPath map[string]string, c *call) []problem {
	var probs []problem
	for _, ip := range c.params {
		p := ip.param
		if p.Schema == nil && len(p.Content) > 0 {
			continue // a media type's text (JSON): kin-openapi decodes it
		}
		kind, leaves := leavesOf(ip.value)
		texts, keys, found, err := wireTexts(r, rawPath, p, kind)
		if err == errObjectByKeys {
			q, _ := rawQueryPairs(r.URL.RawQuery)
			for _, l := range leaves {
				for _, kv := range q {
					if kv[0] == l.key {
						keys, texts = append(keys, l.key), append(texts, kv[1])
						break
					}
				}
			}
			found, err = len(texts) > 0, nil
		}
		where := fmt.Sprintf("%s parameter %q", p.In, p.Name)
		// Strings and item counts too where kin-openapi's verdict may not
		// reach: cookies, and the items and members of lists and objects
		// (the harness gives them no delimiter of their style, so the
		// split is exact; kin's value check cannot pin an integer past
		// 2^53 and excepts typeless items).
		strict := p.In == "cookie" || kind != 's' && strictComposite(p)
		if err != nil {
			probs = append(probs, problem{kind: "text", detail: fmt.Sprintf("%s: %v (intended %s)", where, err, short(ip.value))})
			continue
		}
		if !found {
			if strict && kind != 's' && len(leaves) > 0 && p.In != "cookie" {
				probs = append(probs, problem{kind: "text", detail: fmt.Sprintf("%s is not on the wire as its style writes it (intended %s)", where, short(ip.value))})
			}
			continue // missing: kin-openapi's required check and the value check say so
		}
		if kind == 'o' {
			byKey := map[string]string{}
			for i, k := range keys {
				byKey[k] = texts[i]
			}
			for _, l := range leaves {
				got, ok := byKey[l.key]
				if !ok {
					if _, scalar := canonicalText(l.value); strict && (scalar || isString(l.value)) {
						probs = append(probs, problem{kind: "text", detail: fmt.Sprintf("%s: property %q is not on the wire (intended %s)", where, l.key, short(ip.value))})
					}
					continue
				}
				if d := textDiff(l.value, got, strict); d != "" {
					probs = append(probs, problem{kind: "text", detail: fmt.Sprintf("%s: property %q %s", where, l.key, d)})
				}
			}
			continue
		}
		if len(texts) != len(leaves) {
			if strict {
				probs = append(probs, problem{kind: "text", detail: fmt.Sprintf("%s: %d items on the wire; intended %s", where, len(texts), short(ip.value))})
			}
			continue // a structure kin-openapi's value check judges
		}
		for i, l := range leaves {
			if d := textDiff(l.value, texts[i], strict); d != "" {
				if kind == 'a' {
					d = fmt.Sprintf("item %d %s", i+1, d)
				}
				probs = append(probs, problem{kind: "text", detail: where + ": " + d})
			}
		}
	}
	return probs
}

// textDiff says how got differs from v's canonical text ("" when it does
// not, or when v is a string and strings are not compared).
func textDiff(v any, got string, strs bool) string {
	want, ok := canonicalText(v)
	if !ok {
		s, isStr := v.(string)
		if !isStr || !strs {
			return ""
		}
		want = s
	}
	if got == want {
		return ""
	}
	return fmt.Sprintf("is %q; the canonical text of %s is %q", got, short(v), want)
}

// allowedHeaders are what net/http and the harness put on every request.
var allowedHeaders = map[string]bool{"Host": true, "User-Agent": true, "Accept-Encoding": true, "Content-Length": true,
	"Content-Type": true, "Accept": true, "Connection": true, "Transfer-Encoding": true, http.CanonicalHeaderKey(callHeader): true}

// safeMethods are the methods whose calls never carry a key of the
// client's own making unless x-resilience asks for one.
var safeMethods = map[string]bool{"GET": true, "HEAD": true, "OPTIONS": true, "TRACE": true}

// credentials are the header, query and cookie names the spec's security
// schemes declare (by "in\x00name", headers canonical).
func credentials(doc *openapi3.T) map[string]bool {
	out := map[string]bool{"header\x00Authorization": true}
	if doc.Components == nil {
		return out
	}
	for _, ss := range doc.Components.SecuritySchemes {
		if ss == nil || ss.Value == nil || ss.Value.Type != "apiKey" {
			continue
		}
		out[paramKey(ss.Value.In, ss.Value.Name)] = true
	}
	return out
}

// resilienceKey reports whether x-resilience sets idempotencyKey for the
// operation (on it, its path or the defaults): a key the client makes is
// then declared even on a GET.
func resilienceKey(doc *openapi3.T, item *openapi3.PathItem, op *openapi3.Operation) bool {
	has := func(ext map[string]any) bool {
		m, _ := ext["x-resilience"].(map[string]any)
		v, ok := m["idempotencyKey"]
		return ok && v != false
	}
	if has(op.Extensions) || has(item.Extensions) {
		return true
	}
	root, _ := doc.Extensions["x-resilience"].(map[string]any)
	defs, _ := root["defaults"].(map[string]any)
	return has(map[string]any{"x-resilience": defs})
}

// checkExtra reports what the request carries that the call did not set:
// a query parameter, header or cookie the operation does not declare, or
// a declared optional one the call left unset (the "required parameters
// only" call sees none).
func (s *server) checkExtra(r *http.Request, c *call) []problem {
	var probs []problem
	declared := map[string]bool{}
	for _, kp := range operationParams(c.item, c.kinOp) {
		declared[paramKey(kp.In, kp.Name)] = true
	}
	set := map[string]bool{}
	queryKeys := map[string]bool{}
	prefixes := []string{}
	for _, ip := range c.params {
		p := ip.param
		set[paramKey(p.In, p.Name)] = true
		if p.In != "query" {
			continue
		}
		queryKeys[p.Name] = true
		sm, _ := p.SerializationMethod()
		if sm != nil && sm.Style == "deepObject" {
			prefixes = append(prefixes, p.Name+"[") // a list of objects too (name[0][key], as resgen warns)
		}
		if m, ok := ip.value.(map[string]any); ok && sm != nil && sm.Style == "form" && sm.Explode {
			for k := range m {
				queryKeys[k] = true
			}
		}
	}
	// A query the path template itself holds ("/x?kind=a").
	if _, q, ok := strings.Cut(c.op.Path, "?"); ok {
		if vals, err := url.ParseQuery(q); err == nil {
			for k := range vals {
				queryKeys[k] = true
			}
		}
	}
	keyHeader := ""
	for _, mp := range c.op.Params {
		if mp.IdempotencyKey {
			keyHeader = http.CanonicalHeaderKey(mp.SpecName)
		}
	}
	keyMade := keyHeader != "" && (!safeMethods[strings.ToUpper(c.op.Method)] || resilienceKey(s.doc, c.item, c.kinOp))
	creds := s.creds
	what := func(in, name string) string {
		if declared[paramKey(in, name)] {
			return fmt.Sprintf("%s parameter %q is sent; the call left it unset", in, name)
		}
		return fmt.Sprintf("%s parameter %q is sent; the operation declares no such parameter", in, name)
	}
	q, _ := rawQueryPairs(r.URL.RawQuery)
	reported := map[string]bool{}
	for _, kv := range q {
		k := kv[0]
		if queryKeys[k] || creds[paramKey("query", k)] || reported[k] || slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(k, p) }) {
			continue
		}
		reported[k] = true
		probs = append(probs, problem{kind: "extra", detail: what("query", k) + " (?" + truncate(r.URL.RawQuery, 160) + ")"})
	}
	names := make([]string, 0, len(r.Header))
	for k := range r.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	cookies := false
	for _, k := range names {
		switch {
		case k == "Cookie":
			cookies = true
		case allowedHeaders[k], set[paramKey("header", k)], creds[paramKey("header", k)]:
		case k == keyHeader && keyMade:
		default:
			probs = append(probs, problem{kind: "extra", detail: what("header", k) + fmt.Sprintf(" (%q)", truncate(strings.Join(r.Header.Values(k), ","), 80))})
		}
	}
	if cookies && !set[paramKey("header", "Cookie")] { // a Cookie header parameter holds any cookies
		seen := map[string]bool{}
		for _, ck := range cookiePairs(r) {
			if set[paramKey("cookie", ck[0])] || creds[paramKey("cookie", ck[0])] || seen[ck[0]] {
				continue
			}
			seen[ck[0]] = true
			probs = append(probs, problem{kind: "extra", detail: what("cookie", ck[0])})
		}
	}
	return probs
}

// checkAccept compares the Accept header with the media types the
// operation's responses declare: every media range it lists must be one
// the responses declare, and every response with a body must be one the
// client accepts (else a server that negotiates answers 406 where the
// spec says it answers that body). A client that sends no Accept where
// responses have bodies does not say what it reads.
func checkAccept(r *http.Request, c *call) []problem {
	var declared []string
	var perStatus [][]string
	if c.kinOp.Responses != nil {
		codes := make([]string, 0, c.kinOp.Responses.Len())
		for code := range c.kinOp.Responses.Map() {
			codes = append(codes, code)
		}
		sort.Strings(codes)
		for _, code := range codes {
			rr := c.kinOp.Responses.Value(code)
			if rr == nil || rr.Value == nil || len(rr.Value.Content) == 0 {
				continue
			}
			var types []string
			for ct := range rr.Value.Content {
				types = append(types, mediaBase(ct))
			}
			sort.Strings(types)
			perStatus = append(perStatus, types)
			declared = append(declared, types...)
		}
	}
	vals := r.Header.Values("Accept")
	if len(declared) == 0 {
		if len(vals) > 0 {
			return []problem{{kind: "accept", detail: fmt.Sprintf("Accept %q; no response declares a body", strings.Join(vals, ", "))}}
		}
		return nil
	}
	if len(vals) == 0 {
		return []problem{{kind: "accept", detail: fmt.Sprintf("no Accept header; the responses declare %s", strings.Join(uniq(declared), ", "))}}
	}
	var ranges []string
	for _, v := range vals {
		for part := range strings.SplitSeq(v, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			mt, params, err := mime.ParseMediaType(part)
			if err != nil {
				return []problem{{kind: "accept", detail: fmt.Sprintf("Accept %q: %q is not a media range: %v", strings.Join(vals, ", "), part, err)}}
			}
			if q, ok := params["q"]; ok && (q == "0" || strings.Trim(q, "0.") == "" && strings.HasPrefix(q, "0")) {
				continue // q=0: not acceptable
			}
			ranges = append(ranges, mt)
		}
	}
	var probs []problem
	for _, rg := range ranges {
		if !slices.ContainsFunc(declared, func(d string) bool { return mediaMatch(rg, d) }) {
			probs = append(probs, problem{kind: "accept", detail: fmt.Sprintf("Accept lists %s, which no response declares (they declare %s)", rg, strings.Join(uniq(declared), ", "))})
		}
	}
	for _, types := range perStatus {
		ok := slices.ContainsFunc(types, func(d string) bool {
			return slices.ContainsFunc(ranges, func(rg string) bool { return mediaMatch(rg, d) })
		})
		if !ok {
			probs = append(probs, problem{kind: "accept", detail: fmt.Sprintf("Accept %q accepts none of a response's media types %s", strings.Join(vals, ", "), strings.Join(types, ", "))})
		}
	}
	return probs
}

// mediaMatch reports whether media range a and declared media type (or
// range) d overlap.
func mediaMatch(a, d string) bool {
	at, as, _ := strings.Cut(a, "/")
	dt, ds, _ := strings.Cut(d, "/")
	return (at == "*" || dt == "*" || at == dt) && (as == "*" || ds == "*" || as == ds)
}

func uniq(list []string) []string {
	out := slices.Clone(list)
	sort.Strings(out)
	return slices.Compact(out)
}

// checkFields reports form fields and multipart parts the intended body
// does not hold: undeclared ones, or optional ones the call left unset
// (kin-openapi's decoders read the declared properties only).
func checkFields(r *http.Request, body []byte, c *call) []problem {
	m, ok := c.body.(map[string]any)
	if !ok {
		return nil
	}
	var sent []string
	values := map[string][]string{} // a field's texts, in order
	switch mediaBase(r.Header.Get("Content-Type")) {
	case "application/x-www-form-urlencoded":
		pairs, err := rawQueryPairs(string(body))
		if err != nil {
			return []problem{{kind: "body", detail: "the form body: " + err.Error()}}
		}
		for _, kv := range pairs {
			sent = append(sent, kv[0])
			values[kv[0]] = append(values[kv[0]], kv[1])
		}
	case "multipart/form-data":
		_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || params["boundary"] == "" {
			return nil // checkBody reports it
		}
		mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil // checkBody reports it
			}
			sent = append(sent, part.FormName())
			if mediaBase(part.Header.Get("Content-Type")) == "" || strings.HasPrefix(mediaBase(part.Header.Get("Content-Type")), "text/plain") {
				data, _ := io.ReadAll(io.LimitReader(part, 4096))
				values[part.FormName()] = append(values[part.FormName()], string(data))
			}
		}
	default:
		return nil
	}
	var allowed map[string][]string
	if rb := c.kinOp.RequestBody; rb != nil && rb.Value != nil {
		if mt := rb.Value.Content.Get(c.bodyCT); mt != nil && mediaBase(c.bodyCT) == "application/x-www-form-urlencoded" {
			cp := make(map[string]any, len(m))
			for k, v := range m {
				cp[k] = v
			}
			allowed, _ = formValues(cp, mt.Encoding, mt.Schema)
		}
	}
	props := map[string]bool{}
	if rb := c.kinOp.RequestBody; rb != nil && rb.Value != nil {
		if mt := rb.Value.Content.Get(c.bodyCT); mt != nil {
			declaredProps(mt.Schema, props, 0)
		}
	}
	var probs []problem
	// Each number or boolean field in its canonical text (kin-openapi's
	// form decoder parses them as leniently as parameters).
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		got := values[k]
		items, list := m[k].([]any)
		if !list {
			items = []any{m[k]}
		}
		if len(got) == 1 && len(items) > 1 {
			got = strings.FieldsFunc(got[0], func(r rune) bool { return r == ',' || r == '|' || r == ' ' })
		}
		if len(got) != len(items) {
			continue // kin-openapi's decode and the comparison judge it
		}
		for i, it := range items {
			if d := textDiff(it, got[i], false); d != "" {
				if list {
					d = fmt.Sprintf("item %d %s", i+1, d)
				}
				probs = append(probs, problem{kind: "text", detail: fmt.Sprintf("body field %q: %s", k, d)})
			}
		}
	}
	probs = append(probs, nestedFieldTexts(values, m)...)
	seen := map[string]bool{}
	for _, k := range sent {
		if seen[k] {
			continue
		}
		seen[k] = true
		top := k
		if _, ok := m[k]; !ok {
			if i := strings.IndexByte(k, '['); i > 0 {
				top = k[:i] // a nested value's key (name[0][key])
			}
		}
		if _, ok := m[top]; ok {
			continue
		}
		if _, ok := allowed[k]; ok {
			continue // an exploded object's own keys
		}
		if props[k] || props[top] {
			probs = append(probs, problem{kind: "extra", detail: fmt.Sprintf("body field %q is sent; the call left it unset", k)})
		} else {
			probs = append(probs, problem{kind: "extra", detail: fmt.Sprintf("body field %q is sent; the body declares no such property", k)})
		}
	}
	return probs
}

// parseRat reads a JSON number exactly.
func parseRat(s string) (*big.Rat, bool) {
	return new(big.Rat).SetString(s)
}

// headerDiffs compares the response's typed header fields (their JSON by
// Go field name, as the driver printed them) with the headers the answer
// carried: each field must hold its own header's value, typed as its
// schema says, and stay nil when the answer lacks that header.
func headerDiffs(c *call, got map[string]rawJSON) []string {
	var out []string
	for _, h := range c.op.Headers {
		name := http.CanonicalHeaderKey(h.Name)
		if serverHeaders[name] || !headerToken(h.Name) {
			continue // net/http's own, or not a field name: not synthesized
		}
		g, has := got[h.FieldName]
		want, sent := c.respHeaderVals[name]
		text := c.respHeaders.Get(name)
		switch {
		case !sent && !has:
		case !sent:
			out = append(out, fmt.Sprintf("%s (header %s) holds %s; the answer has no %s header", h.FieldName, h.Name, truncate(string(g), 80), h.Name))
		case !has:
			out = append(out, fmt.Sprintf("%s (header %s) stayed nil; the answer's %s is %q", h.FieldName, h.Name, h.Name, text))
		default:
			v, err := decodeExact(g)
			if err != nil {
				out = append(out, fmt.Sprintf("%s (header %s): the driver printed invalid JSON: %v", h.FieldName, h.Name, err))
				continue
			}
			if d := headerValueDiff(want, text, v); d != "" {
				out = append(out, fmt.Sprintf("%s (header %s, sent %q) %s", h.FieldName, h.Name, text, d))
			}
		}
	}
	return out
}

// headerValueDiff says how a header field's value v differs from the
// intended want (sent as text).
func headerValueDiff(want any, text string, v any) string {
	s, isStr := v.(string)
	switch w := want.(type) {
	case string:
		if !isStr || s != w {
			return "holds " + short(v)
		}
		return ""
	case []any, map[string]any:
		if isStr {
			if s != text {
				return "holds " + short(v)
			}
			return ""
		}
	default:
		if isStr {
			ct, _ := canonicalText(w)
			if s != ct {
				return "holds " + short(v)
			}
			return fmt.Sprintf("is the string %q; the header's schema makes it %s", s, jsonKind(w))
		}
	}
	if !sameJSON(want, v) {
		return "holds " + short(v)
	}
	return ""
}

func jsonKind(v any) string {
	if _, ok := v.(bool); ok {
		return "a boolean"
	}
	return "a number"
}

// declaredProps adds the property names of an object schema, its allOf
// parts and union variants included, to out.
func declaredProps(ref *openapi3.SchemaRef, out map[string]bool, depth int) {
	if ref == nil || ref.Value == nil || depth > maxDepth {
		return
	}
	for name := range ref.Value.Properties {
		out[name] = true
	}
	for _, list := range []openapi3.SchemaRefs{ref.Value.AllOf, ref.Value.OneOf, ref.Value.AnyOf} {
		for _, part := range list {
			declaredProps(part, out, depth+1)
		}
	}
}
