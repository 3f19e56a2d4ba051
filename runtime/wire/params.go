package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Parameter and body encodings the generated code calls when a value's
// form depends on the spec's style: OpenAPI's path styles (simple, label,
// matrix), objects in a query (form, deepObject) or header, and multipart
// bodies.

// PathSegment escapes v as (part of) one path segment. Unlike
// url.PathEscape it also escapes "." and "..", which a server or proxy
// would otherwise resolve as the current or parent folder.
func PathSegment(v string) string {
	switch v {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	return url.PathEscape(v)
}

// PathValue formats a path parameter's text values in style (simple,
// label or matrix), escaping each value but not the delimiters.
func PathValue(style string, explode bool, name string, values ...string) string {
	esc := make([]string, len(values))
	for i, v := range values {
		esc[i] = PathSegment(v)
	}
	switch style {
	case "label":
		if explode {
			return "." + strings.Join(esc, ".")
		}
		return "." + strings.Join(esc, ",")
	case "matrix":
		n := url.PathEscape(name)
		if explode && len(esc) > 1 {
			return ";" + n + "=" + strings.Join(esc, ";"+n+"=")
		}
		return ";" + n + "=" + strings.Join(esc, ",")
	}
	return strings.Join(esc, ",")
}

// ObjectPairs returns an object's properties as sorted key, value text
// pairs (nested values as JSON), for object parameters.
func ObjectPairs(v any) ([][2]string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return pairsOf(data)
}

// pairsOf is ObjectPairs of a JSON text.
func pairsOf(data []byte) ([][2]string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("an object parameter must encode as a JSON object: %w", err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([][2]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, [2]string{k, scalarText(m[k])})
	}
	return out, nil
}

// scalarText is a JSON value as parameter text: strings unquoted, numbers
// without an exponent (numberText), others as written.
func scalarText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		return numberText(string(raw))
	}
	return string(raw)
}

// numberText is a JSON number as parameter text: as written, unless it has
// an exponent (encoding/json writes 1e+21 and 1e-7 so), then the shortest
// decimal of the same float64 value: no OpenAPI style writes an exponent.
// A number beyond float64's range stays as written.
func numberText(n string) string {
	if !strings.ContainsAny(n, "eE") {
		return n
	}
	f, err := strconv.ParseFloat(n, 64)
	if err != nil {
		return n
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// Query builds a query string in the order parameters are added. Unlike
// url.Values it can join a list's escaped items with a delimiter left as
// is (form style's "a,b"), so a comma inside an item stays distinct from
// the separator.
type Query struct {
	b strings.Builder
}

// Add adds name=value.
func (q *Query) Add(name, value string) {
	q.sep()
	q.b.WriteString(url.QueryEscape(name))
	q.b.WriteByte('=')
	q.b.WriteString(url.QueryEscape(value))
}

// AddList adds name=item1<delim>item2…, each item escaped, the delimiter
// (",", " ", "|") not.
func (q *Query) AddList(name, delim string, items ...string) {
	q.sep()
	q.b.WriteString(url.QueryEscape(name))
	q.b.WriteByte('=')
	if delim == " " {
		delim = "%20"
	}
	for i, it := range items {
		if i > 0 {
			q.b.WriteString(delim)
		}
		q.b.WriteString(url.QueryEscape(it))
	}
}

func (q *Query) sep() {
	if q.b.Len() > 0 {
		q.b.WriteByte('&')
	}
}

// Encode returns the query string, without "?".
func (q *Query) Encode() string { return q.b.String() }

// Len is the length of the query string.
func (q *Query) Len() int { return q.b.Len() }

// AddObject adds an object parameter: style form exploded (a=1&b=2), form
// not exploded (name=a,1,b,2), space- or pipe-delimited (name=a|1|b|2), or
// deepObject (name[a]=1&name[b]=2, nested objects and lists in further
// brackets: name[a][b]=1, name[c][0]=x). v may also be a union whose set
// variant is a list (written as the style writes lists) or a scalar
// (name=text); null adds nothing. A list of objects or lists in style
// deepObject, which OpenAPI leaves undefined, is indexed as form bodies
// are (name[0][key]=value), as Stripe reads it.
func (q *Query) AddObject(name, style string, explode bool, v any) error {
	if style == "deepObject" {
		x, err := jsonValue(v)
		if err != nil {
			return err
		}
		switch x := x.(type) {
		case map[string]any:
			formValue(q, name, x, false)
			return nil
		case []any:
			if slices.ContainsFunc(x, notScalar) {
				formValue(q, name, x, false)
				return nil
			}
		}
	}
	pv, err := valueOf(v)
	if err != nil {
		return err
	}
	switch {
	case pv.kind == 's':
		q.Add(name, pv.text)
	case pv.kind == 'a' && explode:
		for _, it := range pv.items {
			q.Add(name, it)
		}
	case pv.kind == 'a':
		q.AddList(name, styleDelimiter(style), pv.items...)
	case pv.kind == 'o' && explode:
		for _, p := range pv.pairs {
			q.Add(p[0], p[1])
		}
	case pv.kind == 'o':
		// form, spaceDelimited, pipeDelimited (explode: false): keys and
		// values alike joined by the style's delimiter.
		flat := make([]string, 0, 2*len(pv.pairs))
		for _, p := range pv.pairs {
			flat = append(flat, p[0], p[1])
		}
		q.AddList(name, styleDelimiter(style), flat...)
	}
	return nil
}

// styleDelimiter is the delimiter of a query style's unexploded lists.
func styleDelimiter(style string) string {
	switch style {
	case "spaceDelimited":
		return " "
	case "pipeDelimited":
		return "|"
	}
	return ","
}

// CookieValue escapes a cookie parameter's value as OpenAPI's cookie
// style, form, means it: RFC 6570 percent-encoding, every byte but the
// unreserved ones (A-Z a-z 0-9 - . _ ~) as %XX, a space as %20 (not the +
// of a form body, which a server that percent-decodes reads as a plus).
// http.Cookie would drop the bytes a cookie cannot hold (; , " \ space,
// non-ASCII) instead.
func CookieValue(v string) string { return escape6570(v) }

// CookieList formats a list cookie (style form, explode false): each item
// escaped as CookieValue does, joined by commas left as they are.
func CookieList(items ...string) string {
	esc := make([]string, len(items))
	for i, it := range items {
		esc[i] = escape6570(it)
	}
	return strings.Join(esc, ",")
}

// CookieObject formats an object cookie (style form, explode false):
// a,1,b,2, each key and value escaped as CookieValue does; a list or
// scalar (a union's variant) as CookieList and CookieValue do.
func CookieObject(v any) (string, error) {
	pv, err := valueOf(v)
	switch pv.kind {
	case 'a':
		return CookieList(pv.items...), err
	case 's':
		return CookieValue(pv.text), err
	}
	return pv.join(",", ",", escape6570), err
}

// escape6570 percent-encodes every byte of s but the unreserved ones, as
// RFC 6570 expands a value (upper-case hex, as RFC 3986 recommends).
func escape6570(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !unreserved(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		if c := s[i]; unreserved(c) {
			b = append(b, c)
		} else {
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(b)
}

// unreserved reports whether c is an RFC 3986 unreserved character.
func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// PathObject formats an object path parameter in style (simple, label or
// matrix), each key and value escaped, the delimiters not: simple a,1,b,2
// (exploded a=1,b=2), label .a,1,b,2 (.a=1.b=2), matrix ;name=a,1,b,2
// (;a=1;b=2); a list or scalar (a union's variant) as PathValue does.
func PathObject(style string, explode bool, name string, v any) (string, error) {
	pv, err := valueOf(v)
	if err != nil {
		return "", err
	}
	switch pv.kind {
	case 'a':
		return PathValue(style, explode, name, pv.items...), nil
	case 's':
		return PathValue(style, explode, name, pv.text), nil
	}
	prefix, pairSep, kvSep := "", ",", ","
	if explode {
		kvSep = "="
	}
	switch style {
	case "label":
		prefix = "."
		if explode {
			pairSep = "."
		}
	case "matrix":
		prefix = ";" + url.PathEscape(name) + "="
		if explode {
			prefix, pairSep = ";", ";"
		}
	}
	return prefix + pv.join(pairSep, kvSep, PathSegment), nil
}

// EmptyValue reports whether v, an object path parameter's value, has no
// text in any style: null, an object with no properties, a list with no
// item or one empty item (a union's variant), or an empty string. A
// required path parameter cannot be empty: /items/{id} would become
// /items/, another resource.
func EmptyValue(v any) bool {
	pv, err := valueOf(v)
	if err != nil {
		return false // PathObject reports it
	}
	switch pv.kind {
	case 'o':
		return len(pv.pairs) == 0
	case 'a':
		return len(pv.items) == 0 || len(pv.items) == 1 && pv.items[0] == ""
	case 's':
		return pv.text == ""
	}
	return true
}

// ObjectText formats an object parameter for a header, style simple:
// a,1,b,2 or, exploded, a=1,b=2; a list (a union's variant) as a,b, a
// scalar as its text.
func ObjectText(explode bool, v any) (string, error) {
	pv, err := valueOf(v)
	switch pv.kind {
	case 'a':
		return strings.Join(pv.items, ","), err
	case 's':
		return pv.text, err
	}
	kvSep := ","
	if explode {
		kvSep = "="
	}
	return pv.join(",", kvSep, func(s string) string { return s }), err
}

// paramValue is a parameter value's JSON form in the pieces styles write:
// an object's sorted key/value pairs, a list's items or a scalar's text
// (nested values as JSON text; resgen warns where a spec allows them).
type paramValue struct {
	kind  byte // 'o' object, 'a' list, 's' scalar, 0 null
	pairs [][2]string
	items []string
	text  string
}

func valueOf(v any) (paramValue, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return paramValue{}, err
	}
	var pv paramValue
	switch Kind(data) {
	case KindNull:
	case KindObject:
		pv.kind = 'o'
		pv.pairs, err = pairsOf(data)
	case KindArray:
		var raw []json.RawMessage
		err = json.Unmarshal(data, &raw)
		pv.kind, pv.items = 'a', make([]string, len(raw))
		for i, r := range raw {
			pv.items[i] = scalarText(r)
		}
	default:
		pv.kind, pv.text = 's', scalarText(data)
	}
	return pv, err
}

// join writes an object's pairs as key<kvSep>value joined by pairSep, each
// key and value through esc.
func (pv paramValue) join(pairSep, kvSep string, esc func(string) string) string {
	var b strings.Builder
	for i, p := range pv.pairs {
		if i > 0 {
			b.WriteString(pairSep)
		}
		b.WriteString(esc(p[0]))
		b.WriteString(kvSep)
		b.WriteString(esc(p[1]))
	}
	return b.String()
}

// File is a file part of a multipart body.
type File struct {
	// Name is the file name sent in the part's Content-Disposition.
	Name string
	// ContentType defaults to application/octet-stream.
	ContentType string
	// Content is streamed by the call, never held whole. The body is
	// sent again by a retry only when every file's Content can be
	// replayed (see package runtime's upload rules): a *bytes.Reader, a
	// *strings.Reader, an io.ReadSeeker, or runtime.Opener's reader.
	Content io.Reader
}

// Multipart builds a multipart/form-data body: its text and JSON parts
// (small) are written at once, each file part's Content is only noted and
// read while the body is sent.
type Multipart struct {
	buf   bytes.Buffer
	w     *multipart.Writer
	files []FilePart
	err   error
}

// NewMultipart starts a multipart body.
func NewMultipart() *Multipart {
	m := &Multipart{}
	m.w = multipart.NewWriter(&m.buf)
	return m
}

// Field adds a text part.
func (m *Multipart) Field(name, value string) {
	if m.err == nil {
		m.err = m.w.WriteField(name, value)
	}
}

// JSON adds a part holding v as JSON.
func (m *Multipart) JSON(name string, v any) {
	if m.err != nil {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		m.err = err
		return
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="`+escapeQuotes(name)+`"`)
	h.Set("Content-Type", "application/json")
	pw, err := m.w.CreatePart(h)
	if err == nil {
		_, err = pw.Write(data)
	}
	m.err = err
}

// File adds a file part; a nil Content adds nothing.
func (m *Multipart) File(name string, f *File) { m.TypedFile(name, "application/octet-stream", f) }

// TypedFile adds a file part whose Content-Type is contentType (what the
// spec's encoding declares) unless f.ContentType says otherwise; a nil
// Content adds nothing.
func (m *Multipart) TypedFile(name, contentType string, f *File) {
	if m.err != nil || f == nil || f.Content == nil {
		return
	}
	ct := f.ContentType
	if ct == "" {
		ct = contentType
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="`+escapeQuotes(name)+`"; filename="`+escapeQuotes(f.Name)+`"`)
	h.Set("Content-Type", ct)
	if _, err := m.w.CreatePart(h); err != nil {
		m.err = err
		return
	}
	// The part's header is written; its content goes here when sent.
	m.files = append(m.files, FilePart{At: m.buf.Len(), Content: f.Content})
}

// Finish closes the body and puts it in rq with its Content-Type (which
// carries the boundary): in Body when it has no file part, else in Upload
// as a *MultipartBody, streamed by each attempt.
func (m *Multipart) Finish(rq *Request) error {
	if m.err != nil {
		return m.err
	}
	if err := m.w.Close(); err != nil {
		return err
	}
	rq.ContentType = m.w.FormDataContentType()
	if len(m.files) == 0 {
		rq.Body = m.buf.Bytes()
		return nil
	}
	rq.Upload = &MultipartBody{Framing: m.buf.Bytes(), Files: m.files}
	return nil
}

func escapeQuotes(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\r", "", "\n", "").Replace(s)
}

// FormEncoding is the spec's encoding of one top-level property of a form
// body, where it changes what FormBody writes: style form, explode false
// (a list as name=a,b, an object as name=key,value), or deepObject on a
// list (name[0]=a, name[0][key]=value: OpenAPI defines deepObject for
// objects only, and indexed brackets are what the servers that use it on
// lists, Stripe's among them, read).
type FormEncoding struct {
	Name    string
	Style   string
	Explode bool
}

// FormBody encodes v (a struct or map) as an application/x-www-form-urlencoded
// body, through its JSON form: top-level values as name=value, lists
// repeated (name=a&name=b), objects as deepObject brackets
// (meta[key]=value), lists of objects indexed (items[0][price]=p), and
// the properties in encodings as those say.
func FormBody(v any, encodings ...FormEncoding) (string, error) {
	m, err := jsonObject(v)
	if err != nil {
		return "", fmt.Errorf("a form body must encode as a JSON object: %w", err)
	}
	var q Query
	for _, k := range sortedKeys(m) {
		i := slices.IndexFunc(encodings, func(e FormEncoding) bool { return e.Name == k })
		switch {
		case i < 0:
			formValue(&q, k, m[k], true)
		case encodings[i].Style == "form" && !encodings[i].Explode:
			if err := formJoined(&q, k, m[k]); err != nil {
				return "", err
			}
		default:
			formValue(&q, k, m[k], false)
		}
	}
	return q.Encode(), nil
}

// formJoined adds a form-style, not exploded property: a list as a,b and
// an object as k1,v1,k2,v2, each item escaped, the commas not.
func formJoined(q *Query, name string, v any) error {
	var items []string
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		for _, e := range x {
			s, ok := formScalar(e)
			if !ok {
				return fmt.Errorf("form property %q: a list of style form, explode false holds scalars only", name)
			}
			items = append(items, s)
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			s, ok := formScalar(x[k])
			if !ok {
				return fmt.Errorf("form property %q: an object of style form, explode false holds scalars only", name)
			}
			items = append(items, k, s)
		}
	default:
		s, _ := formScalar(x)
		items = append(items, s)
	}
	q.AddList(name, ",", items...)
	return nil
}

// formScalar is a decoded JSON scalar as form text.
func formScalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return numberText(x.String()), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// jsonObject is v's JSON form as a map, numbers kept as written.
func jsonObject(v any) (map[string]any, error) {
	x, err := jsonValue(v)
	if err != nil {
		return nil, err
	}
	m, ok := x.(map[string]any)
	if !ok && x != nil {
		return nil, fmt.Errorf("got a JSON %T, not an object", x)
	}
	return m, nil
}

// jsonValue is v's JSON form decoded (maps, lists, json.Number, string,
// bool, nil), numbers kept as written.
func jsonValue(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var x any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	return x, nil
}

// notScalar reports whether a decoded JSON value is an object or a list.
func notScalar(x any) bool {
	switch x.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

func formValue(q *Query, name string, v any, top bool) {
	switch x := v.(type) {
	case nil:
	case map[string]any:
		for _, k := range sortedKeys(x) {
			formValue(q, name+"["+k+"]", x[k], false)
		}
	case []any:
		for i, e := range x {
			switch e.(type) {
			case map[string]any, []any:
				formValue(q, name+"["+strconv.Itoa(i)+"]", e, false)
			default:
				if top {
					formValue(q, name, e, false)
				} else {
					formValue(q, name+"["+strconv.Itoa(i)+"]", e, false)
				}
			}
		}
	default:
		if s, ok := formScalar(x); ok {
			q.Add(name, s)
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// RawText is a raw JSON value as parameter text: a string unquoted, any
// other value as written.
func RawText(raw []byte) string { return scalarText(raw) }
