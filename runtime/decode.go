package runtime

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
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
//	}
//
// An exact status wins over its class (4XX), a class over default. The
// plan of a type is read once per operation and type.

type how uint8

const (
	howNone      how = iota // declared, nothing to decode
	howJSON                 // *T: a new T, set once it decoded (null: the zero T)
	howJSONValue            // slice, map or raw JSON: decoded in place
	howText                 // *string
	howStream               // io.ReadCloser, unread
)

type decodeCase struct {
	field int // -1: none
	how   how
}

type plan struct {
	typ     reflect.Type
	exact   map[int]*decodeCase
	class   [6]*decodeCase
	dflt    *decodeCase
	headers []headerField
}

type headerField struct {
	field int
	name  string
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
func (op *Operation) planFor(out Typed) (*plan, error) {
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
	add := func(key string, c decodeCase) error {
		switch k := strings.ToUpper(key); {
		case k == "DEFAULT":
			p.dflt = &c
		case len(k) == 3 && k[1:] == "XX" && k[0] >= '1' && k[0] <= '5':
			p.class[k[0]-'0'] = &c
		default:
			n, err := strconv.Atoi(k)
			if err != nil || n < 100 || n > 599 {
				return errors.New("bad status " + strconv.Quote(key) + " in a resgen tag of " + st.String())
			}
			p.exact[n] = &c
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
			p.headers = append(p.headers, headerField{i, name})
			continue
		}
		statuses, mode, _ := strings.Cut(tag, ",")
		c := decodeCase{field: i}
		switch {
		case f.Anonymous:
			c.field, c.how = -1, howNone
		case mode == "stream":
			c.how = howStream
		case mode == "text":
			c.how = howText
		case f.Type.Kind() == reflect.Pointer:
			c.how = howJSON
		default:
			c.how = howJSONValue
		}
		for _, s := range strings.Fields(statuses) {
			if err := add(s, c); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

// decode fills out from the answer and returns the error the call ends
// with: a *StatusError for a status of 400 or more, a *DecodeError for a
// declared body below 400 that did not decode.
func (op *Operation) decode(p *plan, stop error, resp *http.Response, attempts int, out Typed) error {
	base := out.response()
	base.StatusCode, base.Header, base.Attempts = resp.StatusCode, resp.Header, attempts
	v := reflect.ValueOf(out).Elem()
	for _, h := range p.headers {
		if vals := resp.Header.Values(h.name); len(vals) > 0 {
			v.Field(h.field).Set(reflect.ValueOf(&vals[0]))
		}
	}
	status := resp.StatusCode
	dc := p.lookup(status)
	if dc != nil && dc.how == howStream && status < 400 {
		v.Field(dc.field).Set(reflect.ValueOf(resp.Body))
		return nil
	}
	if dc == nil || dc.how == howStream {
		if status >= 400 {
			// Undeclared: a bounded part, so a huge error body never
			// reaches memory.
			base.Body = readBounded(resp.Body)
			return op.statusError(stop, base, nil, nil)
		}
	}
	raw, err := readBody(resp, op.spec.Method == http.MethodHead)
	base.Body = raw
	if err != nil {
		return &CallError{Operation: op.spec.Name, Attempts: attempts, Reason: "reading the response failed", Err: err}
	}
	var decoded any
	var derr error
	if dc != nil && dc.field >= 0 {
		f := v.Field(dc.field)
		switch dc.how {
		case howJSON:
			if len(raw) > 0 {
				pv := reflect.New(f.Type().Elem())
				if derr = json.Unmarshal(raw, pv.Interface()); derr == nil {
					f.Set(pv)
					decoded = pv.Interface()
				}
			}
		case howJSONValue:
			if len(raw) > 0 {
				if derr = json.Unmarshal(raw, f.Addr().Interface()); derr == nil {
					decoded = f.Interface()
				}
			}
		case howText:
			s := string(raw)
			f.Set(reflect.ValueOf(&s))
			decoded = &s
		}
	}
	if status >= 400 {
		return op.statusError(stop, base, decoded, derr)
	}
	if derr != nil {
		return &DecodeError{Operation: op.spec.Name, StatusCode: status, Attempts: attempts, Err: derr}
	}
	return nil
}

// statusError is the error of base; Call fills in the URL.
func (op *Operation) statusError(stop error, base *Response, decoded any, derr error) *StatusError {
	body := base.Body
	if len(body) > maxErrorBody {
		body = body[:maxErrorBody:maxErrorBody]
	}
	return &StatusError{Operation: op.spec.Name, Method: op.spec.Method, StatusCode: base.StatusCode,
		Header: base.Header, Body: body, Attempts: base.Attempts, Stop: stop, Decoded: decoded, DecodeErr: derr}
}

// readBody reads a whole body and closes it, sized by Content-Length.
func readBody(resp *http.Response, head bool) ([]byte, error) {
	defer resp.Body.Close()
	n := resp.ContentLength
	if n == 0 || head { // a HEAD's Content-Length is the GET's
		return nil, nil
	}
	if n < 0 || n > 1<<20 {
		return io.ReadAll(resp.Body)
	}
	buf := make([]byte, n, n+1) // +1: the read that sees EOF needs no growth
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		return buf, err
	}
	// One more read must see EOF; a body longer than it said is read on.
	m, err := resp.Body.Read(buf[n : n+1])
	for m == 0 && err == nil {
		m, err = resp.Body.Read(buf[n : n+1])
	}
	if m == 0 {
		if err == io.EOF {
			err = nil
		}
		return buf, err
	}
	rest, err := io.ReadAll(resp.Body)
	return append(buf[:n+1], rest...), err
}

// readBounded reads at most 64 KiB of an undeclared answer, drains at most
// 64 KiB more so that a short body leaves the connection reusable (a
// longer one is closed unread), and closes it.
func readBounded(body io.ReadCloser) []byte {
	raw, _ := io.ReadAll(io.LimitReader(body, maxErrorBody))
	io.CopyN(io.Discard, body, drainMax)
	body.Close()
	return raw
}
