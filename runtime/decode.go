package runtime

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/resgen/resgen/runtime/wire"
)

// A generated response type says with struct tags how each declared
// answer decodes, so a generated method is only the request and one Call:
//
//	type ListPetsResponse struct {
//		runtime.Response `resgen:"204"`        // declared statuses without a body
//		XNext *string    `resgen:"header:x-next"`
//		JSON200 *Pets    `resgen:"200"`        // JSON; also 4XX, default
//		Text400 *string  `resgen:"400,text"`
//		Stream io.ReadCloser `resgen:"200 206,stream"` // handed over unread
//		Events *runtime.Stream[Tick] `resgen:"200,sse"` // text/event-stream
//		Lines *runtime.Stream[Row] `resgen:"200,jsonl"`  // JSON lines
//	}
//
// A status may have an event stream beside another field (JSON, or a
// stream when the request asks for one): the answer's Content-Type picks
// the event stream's field (text/event-stream for sse, application/jsonl
// or application/x-ndjson for jsonl), any other the other field.
// An exact status wins over its class (4XX), a class over default. The
// plan of a type is read once per operation and type.

type how uint8

const (
	howNone      how = iota // declared, nothing to decode
	howJSON                 // *T: a new T, set once it decoded (null: the zero T)
	howJSONValue            // slice, map or raw JSON: decoded in place
	howText                 // *string
	howStream               // io.ReadCloser, unread
	howSSE                  // *Stream[T] of text/event-stream, unread
	howJSONL                // *Stream[T] of JSON lines, unread
)

// events says the case is a typed event stream.
func (h how) events() bool { return h == howSSE || h == howJSONL }

// handsOver says the answer's body goes to the caller unread.
func (h how) handsOver() bool { return h >= howStream }

type decodeCase struct {
	field int // -1: none
	how   how
	// events is the event stream (sse, jsonl) declared for the same
	// status beside this case: an answer of its content type goes there
	// (an API that streams when the request asks, else sends JSON).
	events *decodeCase
}

// by is the case of an answer with header h: c's events case when the
// answer's Content-Type is that stream's, else c.
func (c *decodeCase) by(h http.Header) *decodeCase {
	if c == nil || c.events == nil {
		return c
	}
	mt, _, _ := strings.Cut(h.Get("Content-Type"), ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	if c.events.how == howSSE && mt == "text/event-stream" ||
		c.events.how == howJSONL && (mt == "application/jsonl" || mt == "application/x-ndjson") {
		return c.events
	}
	return c
}

type plan struct {
	typ     reflect.Type
	exact   map[int]*decodeCase
	class   [6]*decodeCase
	dflt    *decodeCase
	headers []headerField
	// handsOver: some answer goes to the caller unread, so the call's
	// timeouts run on timers that stop at hand-over (handover.go).
	handsOver bool
}

type headerField struct {
	field int
	name  string
	kind  reflect.Kind // of the value: the pointer's or the slice's element
	list  bool         // a slice: the items of a comma-separated list
	typ   reflect.Type // the element type
}

func (p *plan) lookup(status int) *decodeCase {
	if c, ok := p.exact[status]; ok {
		return c
	}
	if k := status / 100; k >= 1 && k <= 5 && p.class[k] != nil {
		return p.class[k]
	}
	return p.dflt
}

// planFor returns the plan of out's type, cached in op.
func (op *operation) planFor(out wire.Typed) (*plan, error) {
	t := reflect.TypeOf(out)
	if p := op.plan.Load(); p != nil && p.typ == t {
		return p, nil
	}
	p, err := newPlan(t)
	if err != nil {
		return nil, errors.New(op.spec.Name + ": " + err.Error())
	}
	op.plan.Store(p)
	return p, nil
}

func newPlan(t reflect.Type) (*plan, error) {
	st := t.Elem()
	p := &plan{typ: t, exact: map[int]*decodeCase{}}
	// join is c where old was: an event stream beside another case of
	// the same status waits for its content type (decodeCase.by).
	join := func(old *decodeCase, c decodeCase) *decodeCase {
		switch {
		case old != nil && c.how.events() && !old.how.events():
			old.events = &c
			return old
		case old != nil && old.how.events() && !c.how.events():
			c.events = old
		}
		return &c
	}
	add := func(key string, c decodeCase) error {
		switch k := strings.ToUpper(key); {
		case k == "DEFAULT":
			p.dflt = join(p.dflt, c)
		case len(k) == 3 && k[1:] == "XX" && k[0] >= '1' && k[0] <= '5':
			p.class[k[0]-'0'] = join(p.class[k[0]-'0'], c)
		default:
			n, err := strconv.Atoi(k)
			if err != nil || n < 100 || n > 599 {
				return errors.New("bad status " + strconv.Quote(key) + " in a resgen tag of " + st.String())
			}
			p.exact[n] = join(p.exact[n], c)
		}
		return nil
	}
	for i := range st.NumField() {
		f := st.Field(i)
		tag, ok := f.Tag.Lookup("resgen")
		if !ok {
			continue
		}
		if name, ok := strings.CutPrefix(tag, "header:"); ok {
			h := headerField{field: i, name: name}
			switch f.Type.Kind() {
			case reflect.Pointer:
				h.typ = f.Type.Elem()
			case reflect.Slice:
				h.typ, h.list = f.Type.Elem(), true
			default:
				return nil, errors.New("the header field " + f.Name + " of " + st.String() + " is neither a pointer nor a slice")
			}
			switch h.kind = h.typ.Kind(); h.kind {
			case reflect.String, reflect.Bool, reflect.Int, reflect.Int32, reflect.Int64,
				reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
			default:
				return nil, errors.New("the header field " + f.Name + " of " + st.String() + " holds a " + h.typ.String())
			}
			p.headers = append(p.headers, h)
			continue
		}
		statuses, mode, _ := strings.Cut(tag, ",")
		c := decodeCase{field: i}
		switch {
		case f.Anonymous:
			c.field, c.how = -1, howNone
		case mode == "stream":
			c.how = howStream
		case mode == "sse" || mode == "jsonl":
			if !f.Type.Implements(streamerType) {
				return nil, errors.New("the " + mode + " field " + f.Name + " of " + st.String() + " is not a *runtime.Stream")
			}
			c.how = howSSE
			if mode == "jsonl" {
				c.how = howJSONL
			}
		case mode == "text":
			c.how = howText
		case f.Type.Kind() == reflect.Pointer:
			c.how = howJSON
		default:
			c.how = howJSONValue
		}
		p.handsOver = p.handsOver || c.how.handsOver()
		for _, s := range strings.Fields(statuses) {
			if err := add(s, c); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

// decode fills out from the answer, whose body c read in its attempt
// (c.raw; a stream below 400 is in resp.Body, unread), and returns the
// error the call ends with: a *StatusError for a status of 400 or more, a
// *DecodeError for a declared body below 400 that did not decode, is
// empty, or is over its cap.
func (op *operation) decode(p *plan, c *call, resp *http.Response, out wire.Typed) error {
	attempts := c.attempts
	base := wire.ResponseOf(out)
	base.StatusCode, base.Header, base.Attempts = resp.StatusCode, resp.Header, attempts
	v := reflect.ValueOf(out).Elem()
	// herr is the first declared header that did not decode: its field
	// stays nil, its text stays in Header, and the call's error says so.
	var herr error
	for i := range p.headers {
		h := &p.headers[i]
		vals := resp.Header.Values(h.name)
		switch {
		case len(vals) == 0:
		case h.kind == reflect.String && !h.list:
			v.Field(h.field).Set(reflect.ValueOf(&vals[0]))
		default:
			if err := h.set(v.Field(h.field), vals); err != nil && herr == nil {
				herr = err
			}
		}
	}
	status := resp.StatusCode
	dc := p.lookup(status).by(resp.Header)
	if dc != nil && dc.how.handsOver() && status < 400 {
		f := v.Field(dc.field)
		if dc.how == howStream {
			f.Set(reflect.ValueOf(resp.Body))
		} else {
			s := reflect.New(f.Type().Elem())
			s.Interface().(streamer).attach(newStreamConn(op, c, dc, resp.Body))
			f.Set(s)
		}
		if herr != nil {
			return &DecodeError{Operation: op.spec.Name, StatusCode: status, Attempts: attempts, Err: herr}
		}
		return nil
	}
	raw := c.raw
	base.Body = raw
	if dc == nil || dc.how.handsOver() {
		if status >= 400 {
			// Undeclared: only a bounded part was read.
			return op.statusError(c.stopErr, base, nil, herr)
		}
	}
	var decoded any
	var derr error
	if c.tooLarge > 0 {
		derr = &BodyTooLargeError{StatusCode: status, Limit: c.tooLarge}
	} else if dc != nil && dc.field >= 0 {
		f := v.Field(dc.field)
		switch dc.how {
		case howJSON:
			if len(raw) > 0 {
				pv := reflect.New(f.Type().Elem())
				if derr = json.Unmarshal(raw, pv.Interface()); derr == nil {
					f.Set(pv)
					decoded = pv.Interface()
				}
			} else if status < 400 && mayHaveBody(op.spec.Method, status) {
				derr = ErrEmptyBody
			}
		case howJSONValue:
			if len(raw) > 0 {
				if derr = json.Unmarshal(raw, f.Addr().Interface()); derr == nil {
					decoded = f.Interface()
				}
			} else if status < 400 && mayHaveBody(op.spec.Method, status) {
				derr = ErrEmptyBody
			}
		case howText:
			s := string(raw)
			f.Set(reflect.ValueOf(&s))
			decoded = &s
		}
	}
	if derr == nil {
		derr = herr
	}
	if status >= 400 {
		return op.statusError(c.stopErr, base, decoded, derr)
	}
	if derr != nil {
		return &DecodeError{Operation: op.spec.Name, StatusCode: status, Attempts: attempts, Err: derr}
	}
	return nil
}

// mayHaveBody says whether an answer of status to method can carry a body
// (RFC 9110: not a HEAD's, nor a 1xx, 204 or 304).
func mayHaveBody(method string, status int) bool {
	return method != http.MethodHead && status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

// HeaderError says that a declared response header's value is not of the
// type its schema gives it (an integer header that reads "12abc", say).
// The typed response still comes back: the header's field is nil, and its
// text is in Response.Header. It is the Err of a *DecodeError, or the
// DecodeErr of a *StatusError.
type HeaderError struct {
	// Header is the header's name as the spec writes it.
	Header string
	// Type is what the value should be: "an integer", "a number", ...
	Type string
}

func (e *HeaderError) Error() string {
	return "response header " + strconv.Quote(e.Header) + " is not " + e.Type
}

// set decodes a declared header's values into f, strictly: integers as
// decimal digits without a sign but "-" or a leading zero, numbers as
// JSON writes them, booleans as true or false; a list's items are the
// comma-separated parts of every value, each trimmed of spaces and tabs.
func (h *headerField) set(f reflect.Value, vals []string) error {
	if !h.list {
		x, err := h.scalar(vals[0])
		if err != nil {
			return err
		}
		pv := reflect.New(h.typ)
		pv.Elem().Set(x)
		f.Set(pv)
		return nil
	}
	n := 0
	for _, v := range vals {
		n += strings.Count(v, ",") + 1
	}
	out := reflect.MakeSlice(f.Type(), 0, n)
	for _, v := range vals {
		if strings.TrimSpace(v) == "" {
			continue // an empty value: no item
		}
		for item := range strings.SplitSeq(v, ",") {
			x, err := h.scalar(strings.Trim(item, " \t"))
			if err != nil {
				return err
			}
			out = reflect.Append(out, x)
		}
	}
	f.Set(out)
	return nil
}

// scalar decodes one value of h's element type.
func (h *headerField) scalar(s string) (reflect.Value, error) {
	x := reflect.New(h.typ).Elem()
	bad := func(what string) (reflect.Value, error) {
		return reflect.Value{}, &HeaderError{Header: h.name, Type: what}
	}
	switch h.kind {
	case reflect.String:
		x.SetString(s)
	case reflect.Bool:
		switch s {
		case "true":
			x.SetBool(true)
		case "false":
		default:
			return bad("a boolean (true or false)")
		}
	case reflect.Int, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, h.typ.Bits())
		if err != nil || !decimalInt(strings.TrimPrefix(s, "-")) {
			return bad("an integer (" + h.typ.String() + ")")
		}
		x.SetInt(n)
	case reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(s, 10, h.typ.Bits())
		if err != nil || !decimalInt(s) {
			return bad("a non-negative integer (" + h.typ.String() + ")")
		}
		x.SetUint(n)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(s, h.typ.Bits())
		if err != nil || !jsonNumber(s) {
			return bad("a number")
		}
		x.SetFloat(f)
	}
	return x, nil
}

// decimalInt reports whether s is an unsigned decimal integer without a
// leading zero ("0" itself is one): what JSON and the parameter styles
// write. strconv also takes "+5", "05" and "1_000" (base 0 only).
func decimalInt(s string) bool {
	if s == "" || len(s) > 1 && s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// jsonNumber reports whether s is a number as JSON writes it: an optional
// "-", an integer without a leading zero, an optional fraction and
// exponent. strconv also takes "+1", ".5", "0x1p4", "Inf" and "NaN".
func jsonNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if !decimalInt(s[:i]) {
		return false
	}
	digits := func() bool {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(s)
}

// statusError is the error of base; Call fills in the URL.
func (op *operation) statusError(stop error, base *wire.Response, decoded any, derr error) *StatusError {
	body := base.Body
	if len(body) > maxErrorBody {
		body = body[:maxErrorBody:maxErrorBody]
	}
	return &StatusError{Operation: op.spec.Name, Method: op.spec.Method, StatusCode: base.StatusCode,
		Header: base.Header, Body: body, Attempts: base.Attempts, Stop: stop, Decoded: decoded, DecodeErr: derr}
}

// readBody reads a whole body of Content-Length n (-1: unknown), sized by
// it.
func readBody(body io.Reader, n int64) ([]byte, error) {
	if n < 0 || n > 1<<20 {
		return io.ReadAll(body)
	}
	buf := make([]byte, n, n+1) // +1: the read that sees EOF needs no growth
	if _, err := io.ReadFull(body, buf); err != nil {
		return buf, err
	}
	// One more read must see EOF; a body longer than it said is read on.
	m, err := body.Read(buf[n : n+1])
	for m == 0 && err == nil {
		m, err = body.Read(buf[n : n+1])
	}
	if m == 0 {
		if err == io.EOF {
			err = nil
		}
		return buf, err
	}
	rest, err := io.ReadAll(body)
	return append(buf[:n+1], rest...), err
}
