package conformance

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/model"
)

// call is one planned call with everything the server needs to judge it.
type call struct {
	id     string
	op     *model.Operation
	kinOp  *openapi3.Operation
	item   *openapi3.PathItem
	tmpl   *template
	what   string // "all parameters", "required only", "body variant 2", "status 404"
	plan   planCall
	params []intendedParam
	// body is the intended request body (nil: none sent).
	body      any
	bodyBytes []byte // for raw byte bodies
	// upload marks a body the client takes as bytes (a []byte or an
	// io.Reader) or with file parts: judged byte for byte.
	upload bool
	// files are the contents of the file parts by part name, in order.
	files    map[string][][]byte
	bodySent bool
	bodyCT   string
	// bytesOnly is the media type of a raw body kin-openapi cannot decode
	// (XML): its bytes and Content-Type are compared, its schema unjudged.
	bytesOnly string
	// The answer: its status, and the declared one it is an instance of
	// ("4XX", "default").
	status      int
	respStatus  string
	respCT      string
	respBody    []byte
	respHeaders http.Header
	respValue   any // what respBody holds (nil: no typed field checked)
	// respHeaderVals are the intended values of respHeaders by canonical
	// name (what the typed header fields must hold).
	respHeaderVals map[string]any
	// bodyOmitted marks the call that leaves an optional body out:
	// nothing may be sent, not even a Content-Type.
	bodyOmitted bool
	// gaps are what could not be synthesized for the call (optional
	// parameters and response headers it goes without): synth failures.
	gaps []string
	// is31 is the spec's reading of nullable (3.1: a type list's null).
	is31      bool
	field     string
	fieldText bool // the field is a string holding respBody
	// download marks a field that is the unread body (an io.ReadCloser):
	// the driver reads it whole, and its bytes must be respBody's.
	download bool
	// events is how a stream of events is framed ("sse", "jsonl"; ""
	// for no stream).
	events string
}

type intendedParam struct {
	param *openapi3.Parameter
	value any
}

// operationParams are an operation's kin-openapi parameters, path-level
// ones overridden by the operation's own.
func operationParams(item *openapi3.PathItem, op *openapi3.Operation) map[string]*openapi3.Parameter {
	out := map[string]*openapi3.Parameter{}
	for _, list := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, p := range list {
			if p != nil && p.Value != nil {
				out[p.Value.In+"\x00"+p.Value.Name] = p.Value
			}
		}
	}
	return out
}

func paramKey(in, name string) string {
	if in == "header" {
		name = http.CanonicalHeaderKey(name)
	}
	return in + "\x00" + name
}

// planner turns one model operation into calls.
type planner struct {
	doc    *openapi3.T
	is31   bool
	nextID int
}

// validOpts are the options of the harness's own pre-checks of what it
// synthesized.
func (p *planner) validOpts() []openapi3.SchemaValidationOption {
	return []openapi3.SchemaValidationOption{openapi3.MultiErrors(), openapi3.EnableFormatValidation()}
}

// precheck validates a synthesized value. For 3.1 specs the verdict is
// kin's JSON Schema 2020 validator's, as the server's checks, which judge,
// use it: the OpenAPI 3.0 one ignores const and type lists, and passed
// values the server then found invalid.
func (p *planner) precheck(s *openapi3.Schema, v any, opts ...openapi3.SchemaValidationOption) error {
	opts = append(p.validOpts(), opts...)
	if p.is31 {
		opts = append(opts, openapi3.EnableJSONSchema2020())
	}
	return s.VisitJSON(v, opts...)
}

// instance synthesizes a value of ref that kin-openapi itself accepts,
// trying a few seeds.
func (p *planner) instance(ref *openapi3.SchemaRef, seed, variant int, writing bool, at valuePlace) (any, error) {
	return p.instanceOf(ref, seed, variant, writing, at, false)
}

// instanceOf is instance; minimal leaves every optional property out.
func (p *planner) instanceOf(ref *openapi3.SchemaRef, seed, variant int, writing bool, at valuePlace, minimal bool) (any, error) {
	var lastErr error
	for try := 0; try < 4; try++ {
		g := newSynth(seed+try*7, variant, writing)
		g.place, g.is31 = at, p.is31
		g.minimal = minimal || try >= 2
		v, err := g.value(ref, 0, 0)
		if err != nil {
			lastErr = err
			continue
		}
		if ref != nil && ref.Value != nil {
			dir := openapi3.VisitAsRequest()
			if !writing {
				dir = openapi3.VisitAsResponse()
			}
			if err := p.precheck(ref.Value, v, dir); err != nil {
				lastErr = fmt.Errorf("%w: the synthesized value is invalid: %v", errUnsynthesizable, oneLine(err.Error()))
				continue
			}
		}
		return v, nil
	}
	if ptr, why := unmeetable(ref, writing, p.is31); why != "" {
		return nil, &noValueError{ptr, why}
	}
	return nil, lastErr
}

// noValueError is a schema no value meets at ptr (the spec contradicts
// itself there): what no synthesizer could make, and no server send.
type noValueError struct{ ptr, why string }

func (e *noValueError) Error() string {
	return fmt.Sprintf("no value meets the schema at %s: %s", cmp.Or(e.ptr, "(top)"), e.why)
}

func (e *noValueError) Unwrap() error { return errUnsynthesizable }

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…" // whole characters: the text goes into YAML and terminals
	}
	return s
}

// skipped is a value or answer that could not be synthesized: a harness
// failure (kind synth), whose call is not made when what it lacks is
// required.
type skipped struct {
	op, what, reason string
	// at is the place the reason is about (nil: none), in call c's
	// operation (a call that was not made: for exceptions only).
	at *place
	c  *call
}

func (p *planner) plan(op *model.Operation) ([]*call, []skipped) {
	item := p.doc.Paths.Find(op.Path)
	if item == nil {
		return nil, []skipped{{op: op.Name, reason: "the oracle has no path " + op.Path}}
	}
	kinOp := item.GetOperation(strings.ToUpper(op.Method))
	if kinOp == nil {
		return nil, []skipped{{op: op.Name, reason: "the oracle has no operation " + op.Method + " " + op.Path}}
	}
	kinParams := operationParams(item, kinOp)
	byKey := map[string]*openapi3.Parameter{}
	for _, kp := range kinParams {
		byKey[paramKey(kp.In, kp.Name)] = kp
	}
	var skips []skipped
	tmpl, err := compileTemplate(op.Path, kinParams)
	if err != nil {
		return nil, []skipped{{op: op.Name, reason: "path template: " + err.Error()}}
	}

	// Variants of the body: one call per top-level union variant.
	bodyVariants := 1
	var bodyMT *openapi3.MediaType
	if op.Body != nil && kinOp.RequestBody != nil && kinOp.RequestBody.Value != nil {
		bodyMT = kinOp.RequestBody.Value.Content.Get(op.Body.ContentType)
		if bodyMT != nil && bodyMT.Schema != nil && bodyMT.Schema.Value != nil {
			if alts := unionOf(bodyMT.Schema.Value); len(alts) > 1 {
				bodyVariants = min(len(alts), 6)
			}
		}
	}
	type shape struct {
		what     string
		seed     int
		optional bool
		variant  int
		respPick int // index into the response choices
		// method and body are the Go method called and the body it
		// sends (op.Name and op.Body but for the content-type variants).
		method string
		body   *model.Body
		// minimal leaves the body's optional properties unset; noBody
		// leaves an optional body out.
		minimal, noBody bool
	}
	shapes := []shape{{what: "all parameters", optional: true, method: op.Name, body: op.Body}}
	if hasOptional(op) {
		shapes = append(shapes, shape{what: "required parameters only", seed: 1, method: op.Name, body: op.Body})
	}
	if op.Body != nil && bodyMT != nil && typedObjectBody(op.Body) && hasOptionalProps(bodyMT.Schema, 0) {
		// What catches a field that sends its zero value (or null) when
		// left unset: the body must then hold the required ones only.
		shapes = append(shapes, shape{what: "optional body properties unset", seed: 1, optional: true, method: op.Name, body: op.Body, minimal: true})
	}
	if op.Body != nil && !op.Body.Required && bodyMT != nil && !kinOp.RequestBody.Value.Required && oneBodyArg(op.Body) {
		shapes = append(shapes, shape{what: "body left out", optional: true, method: op.Name, body: op.Body, noBody: true})
	}
	for v := 1; v < bodyVariants; v++ {
		shapes = append(shapes, shape{what: fmt.Sprintf("body variant %d", v+1), seed: v, optional: true, variant: v, method: op.Name, body: op.Body})
	}
	{
		// Each nested union variant and enum value of the body, under
		// each variant, and of the parameters.
		nested := paramChoices(kinParams)
		if bodyMT != nil && bodyMT.Schema != nil {
			nested = max(nested, nestedChoices(bodyMT.Schema))
		}
		vs, seeds := choiceRounds(bodyVariants, nested, 0)
		for i := range vs {
			what := fmt.Sprintf("body variant %d, nested choices %d", vs[i]+1, seeds[i]-vs[i]+1)
			if op.Body == nil {
				what = fmt.Sprintf("parameter choices %d", seeds[i]+1)
			}
			shapes = append(shapes, shape{what: what, seed: seeds[i], optional: true, variant: vs[i], method: op.Name, body: op.Body})
		}
	}
	// One call per method of another request content type, the raw
	// WithBody one included.
	for _, bv := range op.Variants {
		what := "body " + bv.Body.ContentType
		if bv.Body.Encoding == model.BodyRaw {
			what = "raw body"
		}
		shapes = append(shapes, shape{what: what + " (" + bv.Name + ")", optional: true, method: bv.Name, body: bv.Body})
	}
	answers := p.answers(op, kinOp)
	for i := 1; i < len(answers); i++ {
		shapes = append(shapes, shape{what: answers[i].what, seed: 2 + i, optional: true, respPick: i, method: op.Name, body: op.Body})
	}

	var calls []*call
	for _, sh := range shapes {
		c := &call{op: op, kinOp: kinOp, item: item, tmpl: tmpl, what: sh.what, is31: p.is31}
		c.plan.Method = sh.method
		fail := ""
		var failAt *place
		// Path parameters, in order, each a value the others do not have
		// (so that two swapped segments show).
		var pathVals []string
		for _, mp := range op.PathParams {
			kp := byKey[paramKey("path", mp.SpecName)]
			if kp == nil {
				fail = "path parameter " + mp.SpecName + " is not in the oracle's operation"
				break
			}
			v, err := p.distinctParamValue(kp, sh.seed, &pathVals)
			if err != nil {
				fail = "path parameter " + mp.SpecName + ": " + err.Error()
				break
			}
			v = typelessText(mp.Type, kp, v)
			raw, err := argJSON(mp.Type, v, isByteFormat(kp))
			if err != nil {
				fail = err.Error()
				break
			}
			c.plan.Args = append(c.plan.Args, planArg{Kind: "path", Value: raw})
			c.params = append(c.params, intendedParam{kp, v})
		}
		if fail == "" && op.ParamsType != "" {
			fields := map[string]rawJSON{}
			for _, mp := range op.Params {
				kp := byKey[paramKey(string(mp.In), mp.SpecName)]
				if kp == nil && mp.IdempotencyKey {
					continue // a key header resgen adds from x-resilience: the client fills it
				}
				if kp == nil {
					fail = string(mp.In) + " parameter " + mp.SpecName + " is not in the oracle's operation"
					break
				}
				if !mp.Required && !kp.Required && !sh.optional {
					continue
				}
				if mp.In == model.InHeader && transportHeaders[http.CanonicalHeaderKey(mp.SpecName)] {
					continue // OpenAPI ignores these; net/http owns them
				}
				if onlyNull(kp) {
					continue // a flag of type null: nothing a value could say
				}
				v, err := p.paramValue(kp, sh.seed)
				if err != nil {
					if !kp.Required && !mp.Required {
						// The call goes without it, and the gap is a
						// failure of its own.
						skips = append(skips, skipped{op: op.Name, what: sh.what, reason: string(mp.In) + " parameter " + mp.SpecName + " (optional, left out): " + err.Error()})
						continue
					}
					fail = string(mp.In) + " parameter " + mp.SpecName + ": " + err.Error()
					break
				}
				v = typelessText(mp.Type, kp, v)
				raw, err := argJSON(mp.Type, v, isByteFormat(kp))
				if err != nil {
					fail = err.Error()
					break
				}
				fields[mp.GoName] = raw
				c.params = append(c.params, intendedParam{kp, v})
			}
			c.plan.Args = append(c.plan.Args, planArg{Kind: "params", Fields: fields})
		}
		if fail == "" && sh.body != nil && sh.noBody {
			// No value: the argument's zero value (a JSON null would make
			// a json.RawMessage hold "null").
			c.plan.Args = append(c.plan.Args, planArg{Kind: "body"})
			c.bodyOmitted = true
		} else if fail == "" && sh.body != nil {
			args, err := p.body(c, sh.body, sh.seed, sh.variant, sh.minimal)
			if m, ok := c.body.(map[string]any); ok && err == nil && sh.minimal && len(m) == 0 && c.bodyCT != "" && !strings.Contains(mediaBase(c.bodyCT), "json") {
				continue // an empty form is no body: the plain call's optional ones are what it would check
			}
			if err != nil {
				fail = "body: " + err.Error()
				var nv *noValueError
				if errors.As(err, &nv) {
					failAt = &place{body: true, ptr: nv.ptr}
				}
			} else {
				c.plan.Args = append(c.plan.Args, args...)
			}
		}
		if fail == "" && sh.respPick < len(answers) {
			a := answers[sh.respPick]
			if a.err != nil {
				fail = "response " + a.status + ": " + a.err.Error()
				var nv *noValueError
				if errors.As(a.err, &nv) {
					failAt = &place{response: true, ptr: nv.ptr}
					c.respStatus, c.respCT = a.status, a.ct
				}
			} else {
				a.apply(c)
			}
		} else if fail == "" {
			c.status = 200
		}
		if fail != "" {
			skips = append(skips, skipped{op.Name, sh.what, fail, failAt, c})
			continue
		}
		p.nextID++
		c.id = "c" + strconv.Itoa(p.nextID)
		c.plan.ID = c.id
		c.plan.Field = c.field
		switch {
		case c.download:
			c.plan.FieldKind = "stream"
		case c.events != "":
			c.plan.FieldKind = "events"
		}
		for _, h := range op.Headers {
			if c.plan.Headers == nil {
				c.plan.Headers = map[string]string{}
			}
			c.plan.Headers[h.FieldName] = h.Name
		}
		calls = append(calls, c)
	}
	return calls, skips
}

// typedObjectBody reports whether b is written from a typed object whose
// unset fields must stay off the wire (JSON, form, multipart).
func typedObjectBody(b *model.Body) bool {
	switch b.Encoding {
	case model.BodyJSON, model.BodyForm, model.BodyFormTyped, model.BodyMultipart, model.BodyMultipartFields:
		return true
	}
	return false
}

// oneBodyArg reports whether b is one argument a nil leaves out.
func oneBodyArg(b *model.Body) bool {
	switch b.Encoding {
	case model.BodyJSON, model.BodyForm, model.BodyFormTyped, model.BodyMultipartFields, model.BodyText, model.BodyBytes:
		return b.Type == nil || b.Type.Nilable() || !b.Required
	}
	return false
}

// hasOptionalProps reports whether an object schema (its allOf parts and
// union variants included) has a property it does not require.
func hasOptionalProps(ref *openapi3.SchemaRef, depth int) bool {
	if ref == nil || ref.Value == nil || depth > maxDepth {
		return false
	}
	s := ref.Value
	for name := range s.Properties {
		if !slices.Contains(s.Required, name) {
			return true
		}
	}
	for _, list := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
		for _, part := range list {
			if hasOptionalProps(part, depth+1) {
				return true
			}
		}
	}
	return false
}

// transportHeaders are header parameters OpenAPI says to ignore (Accept,
// Content-Type, Authorization) and ones net/http writes itself.
var transportHeaders = map[string]bool{"Accept": true, "Content-Type": true, "Authorization": true,
	"Content-Length": true, "Transfer-Encoding": true, "Host": true, "Connection": true}

func onlyNull(kp *openapi3.Parameter) bool {
	return kp.Schema != nil && kp.Schema.Value != nil && kp.Schema.Value.Type != nil && kp.Schema.Value.Type.Is("null")
}

func hasOptional(op *model.Operation) bool {
	for _, p := range op.Params {
		if !p.Required {
			return true
		}
	}
	return false
}

// paramValue synthesizes a parameter's intended value.
func (p *planner) paramValue(kp *openapi3.Parameter, seed int) (any, error) {
	ref := kp.Schema
	if ref == nil {
		for _, mt := range kp.Content {
			if mt != nil {
				ref = mt.Schema
			}
			break
		}
	}
	if ref == nil {
		return "alpha", nil
	}
	// The spec's own example of a scalar, when valid: the tame value of
	// the second call (the first gets an adversarial one), and the value
	// when none can be synthesized.
	var example any
	if ref.Value != nil {
		switch ex := normalize(kp.Example).(type) {
		case string, float64, bool:
			if ex != "" && p.precheck(ref.Value, ex) == nil {
				example = ex
			}
		}
	}
	if seed == 1 && example != nil {
		return example, nil
	}
	if kp.In == "header" && http.CanonicalHeaderKey(kp.Name) == "Cookie" && ref.Value != nil {
		// A header parameter that is the Cookie header: its text is a
		// cookie string (name=value pairs), whatever the schema's words.
		if v := "session=a%2Fb%20c%C3%A9; theme=bravo"; p.precheck(ref.Value, v) == nil {
			return v, nil
		}
	}
	v, err := p.instance(ref, seed, -1, true, paramPlace(kp))
	if err != nil && example != nil {
		return example, nil
	}
	return v, err
}

// paramPlace is where a parameter's value goes.
func paramPlace(kp *openapi3.Parameter) valuePlace {
	switch kp.In {
	case "path":
		if kp.Style == "label" || kp.Style == "matrix" {
			return inPathDelimited
		}
		return inPath
	case "header":
		return inHeader
	case "cookie":
		return inCookie
	}
	return inQuery
}

// argJSON is the JSON the driver decodes into an argument of type t.
// The value of a format: byte schema is base64 text already, which is how
// JSON writes a []byte: it goes as it is (the client encodes the bytes).
func argJSON(t *model.GoType, v any, base64Text bool) (rawJSON, error) {
	if t != nil && t.Kind == model.Builtin && t.Name == "[]byte" && !base64Text {
		if s, ok := v.(string); ok {
			return json.Marshal(base64.StdEncoding.EncodeToString([]byte(s)))
		}
		b, _ := json.Marshal(v)
		return json.Marshal(base64.StdEncoding.EncodeToString(b))
	}
	return json.Marshal(v)
}

// typelessText is a parameter's value as text when its schema has no type
// (any text is valid: minimum and the like constrain numbers only) and the
// client types it as a string: a number synthesized from such keywords
// goes as its text, which the string holds.
func typelessText(t *model.GoType, kp *openapi3.Parameter, v any) any {
	for t != nil && t.Kind == model.Pointer {
		t = t.Elem
	}
	f, num := v.(float64)
	if !num || t == nil || t.Kind != model.Builtin || t.Name != "string" || kp.Schema == nil || kp.Schema.Value == nil {
		return v
	}
	if sc := kp.Schema.Value; sc.Type == nil && len(sc.AllOf)+len(sc.AnyOf)+len(sc.OneOf) == 0 {
		return scalarText(f)
	}
	return v
}

// isByteFormat reports whether a parameter's schema is format: byte.
func isByteFormat(kp *openapi3.Parameter) bool {
	return kp.Schema != nil && kp.Schema.Value != nil && kp.Schema.Value.Format == "byte"
}

// body plans the request body of c as method argument(s) for b.
func (p *planner) body(c *call, b *model.Body, seed, variant int, minimal bool) ([]planArg, error) {
	var content openapi3.Content
	if rb := c.kinOp.RequestBody; rb != nil && rb.Value != nil {
		content = rb.Value.Content
	}
	if b.Encoding == model.BodyRaw {
		return p.rawBody(c, b, content, seed)
	}
	mt := content.Get(b.ContentType)
	if mt == nil {
		return nil, fmt.Errorf("the oracle's operation has no %s body", b.ContentType)
	}
	c.bodyCT = b.ContentType
	c.bodySent = true
	at := inJSON
	switch b.Encoding {
	case model.BodyForm, model.BodyFormTyped, model.BodyMultipart, model.BodyMultipartFields:
		at = inForm
	}
	v, err := p.instanceOf(mt.Schema, seed, variant, true, at, minimal)
	if err != nil {
		return nil, err
	}
	c.body = v
	one := func(raw rawJSON, err error) ([]planArg, error) {
		if err != nil {
			return nil, err
		}
		return []planArg{{Kind: "body", Value: raw}}, nil
	}
	switch b.Encoding {
	case model.BodyMultipartFields:
		// File parts carry opaque bytes, which go to the driver as base64.
		return one(json.Marshal(withFiles(c, b, v, seed)))
	case model.BodyJSON, model.BodyFormTyped:
		return one(json.Marshal(v))
	case model.BodyText:
		s, ok := v.(string)
		if !ok {
			s = canonical(v)
		}
		c.body = s
		return one(json.Marshal(s))
	case model.BodyForm:
		vals, err := formValues(v, mt.Encoding, mt.Schema)
		if err != nil {
			return nil, err
		}
		return one(json.Marshal(vals))
	case model.BodyMultipart:
		// The io.Reader of the body the caller encodes, and its
		// Content-Type: the harness writes the parts, kin-openapi
		// decodes them.
		data, ct, err := multipartOf(v, mt.Encoding, mt.Schema)
		if err != nil {
			return nil, err
		}
		raw, _ := json.Marshal(data)
		text, _ := json.Marshal(ct)
		return []planArg{{Kind: "reader", Value: raw}, {Kind: "body", Value: text}}, nil
	default: // bytes: a []byte or an io.Reader, which the driver makes
		raw := bytesOf(v)
		if opaqueSchema(mt.Schema) {
			raw = fileBytes(seed)
			c.body = string(raw)
		}
		c.bodyBytes, c.upload = raw, true
		data, _ := json.Marshal(raw)
		return []planArg{{Kind: "reader", Value: data}}, nil
	}
}

// rawBody plans a call of a raw method (contentType, io.Reader): the
// harness encodes the body itself, preferring a declared content type no
// typed method of the operation sends (XML, a wildcard, multipart/mixed),
// else the plain method's.
func (p *planner) rawBody(c *call, b *model.Body, content openapi3.Content, seed int) ([]planArg, error) {
	typed := map[string]bool{}
	if ob := c.op.Body; ob != nil && ob.Encoding != model.BodyRaw {
		typed[ob.ContentType] = true
	}
	for _, v := range c.op.Variants {
		if v.Body.Encoding != model.BodyRaw {
			typed[v.Body.ContentType] = true
		}
	}
	var first, then []string
	for _, ct := range sortedCTs(content) {
		if typed[ct] {
			then = append(then, ct)
		} else {
			first = append(first, ct)
		}
	}
	if c.op.Body != nil && c.op.Body.Encoding != model.BodyRaw {
		then = append([]string{c.op.Body.ContentType}, then...)
	}
	var lastErr error = fmt.Errorf("the oracle's operation declares no request body")
	for _, ct := range append(first, then...) {
		mt := content[ct]
		if mt == nil {
			continue
		}
		send := concreteType(ct)
		at := inJSON
		if base := mediaBase(send); base == "application/x-www-form-urlencoded" || base == "multipart/form-data" {
			at = inForm
		}
		v, err := p.instance(mt.Schema, seed, -1, true, at)
		if err != nil {
			lastErr = err
			continue
		}
		if _, str := v.(string); !str && strings.HasPrefix(mediaBase(ct), "*/") {
			// Any media type: a value that is not text goes as JSON (as
			// octet-stream bytes, kin-openapi reads it as one string).
			send = "application/json"
		}
		data, header, err := encodeAs(send, v, mt)
		if err != nil {
			lastErr = fmt.Errorf("%s: %w", ct, err)
			continue
		}
		c.bodyCT, c.bodySent, c.body = send, true, v
		switch base := mediaBase(send); {
		case base == "text/plain":
			c.body = string(data)
		case strings.Contains(base, "json"), base == "application/x-www-form-urlencoded", base == "multipart/form-data",
			base == "application/yaml", base == "application/x-yaml":
			// kin-openapi decodes it: compared with the instance.
		default:
			// The bytes must arrive as written; where kin-openapi has
			// no decoder (XML) the schema goes unjudged: say so.
			if opaqueSchema(mt.Schema) && base != "text/plain" {
				data = fileBytes(seed)
				c.body = string(data)
			}
			c.bodyBytes, c.upload = data, true
			if bodyDecoder(base) == nil {
				c.bytesOnly = base
			}
		}
		ctJSON, _ := json.Marshal(header)
		raw, _ := json.Marshal(data)
		return []planArg{{Kind: "body", Value: ctJSON}, {Kind: "reader", Value: raw}}, nil
	}
	return nil, lastErr
}

func sortedCTs(c openapi3.Content) []string {
	out := make([]string, 0, len(c))
	for ct := range c {
		out = append(out, ct)
	}
	sort.Strings(out)
	return out
}

// concreteType is a media type to send for a declared one that may be a
// wildcard (image/* -> image/png).
func concreteType(ct string) string {
	base := mediaBase(ct)
	typ, sub, _ := strings.Cut(base, "/")
	switch {
	case typ == "*" || base == "":
		return "application/octet-stream"
	case sub == "*":
		if typ == "image" {
			return "image/png"
		}
		return typ + "/x-conformance"
	}
	return ct
}

// encodeAs writes v as media type ct; header is the Content-Type to send
// (a multipart boundary added).
func encodeAs(ct string, v any, mt *openapi3.MediaType) (data []byte, header string, err error) {
	base, schema := mediaBase(ct), mt.Schema
	switch {
	case strings.Contains(base, "json"):
		data, err = json.Marshal(v)
		return data, ct, err
	case base == "application/x-www-form-urlencoded":
		vals, err := formValues(v, mt.Encoding, mt.Schema)
		if err != nil {
			return nil, "", err
		}
		return []byte(url.Values(vals).Encode()), ct, nil
	case base == "multipart/form-data":
		return multipartOf(v, mt.Encoding, mt.Schema)
	case base == "application/xml" || base == "text/xml" || strings.HasSuffix(base, "+xml"):
		name := "root"
		if schema != nil && schema.Value != nil && schema.Value.XML != nil && schema.Value.XML.Name != "" {
			name = schema.Value.XML.Name
		} else if schema != nil && schema.Ref != "" {
			name = schema.Ref[strings.LastIndex(schema.Ref, "/")+1:]
		}
		var b bytes.Buffer
		b.WriteString(xml.Header)
		writeXML(&b, name, v)
		return b.Bytes(), ct, nil
	case base == "application/yaml" || base == "application/x-yaml":
		// JSON is YAML, and kin-openapi decodes YAML.
		data, err = json.Marshal(v)
		return data, ct, err
	}
	return bytesOf(v), ct, nil
}

// writeXML writes v as element name: objects as child elements, lists as
// repeated elements, scalars as text.
func writeXML(b *bytes.Buffer, name string, v any) {
	switch x := v.(type) {
	case []any:
		for _, it := range x {
			writeXML(b, name, it)
		}
		return
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(b, "<%s>", name)
		for _, k := range keys {
			writeXML(b, k, x[k])
		}
		fmt.Fprintf(b, "</%s>", name)
		return
	}
	fmt.Fprintf(b, "<%s>", name)
	xml.EscapeText(b, []byte(scalarText(v)))
	fmt.Fprintf(b, "</%s>", name)
}

// bytesOf is the raw bytes of a bytes body: a string's text, else its JSON.
func bytesOf(v any) []byte {
	if s, ok := v.(string); ok {
		return []byte(s)
	}
	return []byte(canonical(v))
}

// formValues is an object as form values, each property as the spec's
// encoding says (style form, explode true by default): scalars as they are,
// lists repeated (joined with explode false), objects spread over the form
// (explode true), joined as k,v (explode false) or in brackets (deepObject).
// An optional property no style can carry is left out of v.
func formValues(v any, encs map[string]*openapi3.Encoding, schema *openapi3.SchemaRef) (map[string][]string, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a form body that is not an object")
	}
	required := map[string]bool{}
	if schema != nil && schema.Value != nil {
		for _, r := range schema.Value.Required {
			required[r] = true
		}
	}
	vals := map[string][]string{}
	for k, x := range m {
		sm := encs[k].SerializationMethod()
		switch y := x.(type) {
		case []any:
			var items []string
			for _, it := range y {
				switch it.(type) {
				case map[string]any, []any:
					if !required[k] {
						delete(m, k)
						items = nil
						continue
					}
					return nil, fmt.Errorf("form property %q is a list of objects or lists: no form style carries it", k)
				}
				items = append(items, scalarText(it))
			}
			switch {
			case items == nil:
			case sm.Style == openapi3.SerializationForm && !sm.Explode:
				vals[k] = append(vals[k], strings.Join(items, ","))
			case sm.Style == openapi3.SerializationPipeDelimited:
				vals[k] = append(vals[k], strings.Join(items, "|"))
			case sm.Style == openapi3.SerializationSpaceDelimited:
				vals[k] = append(vals[k], strings.Join(items, " "))
			default:
				vals[k] = append(vals[k], items...)
			}
		case map[string]any:
			keys := make([]string, 0, len(y))
			for pk := range y {
				keys = append(keys, pk)
			}
			sort.Strings(keys)
			var joined []string
			for _, pk := range keys {
				switch y[pk].(type) {
				case map[string]any, []any:
					return nil, fmt.Errorf("form property %q has a nested value: no form style carries it", k)
				}
				t := scalarText(y[pk])
				switch {
				case sm.Style == openapi3.SerializationDeepObject:
					vals[k+"["+pk+"]"] = append(vals[k+"["+pk+"]"], t)
				case sm.Explode:
					vals[pk] = append(vals[pk], t)
				default:
					joined = append(joined, pk, t)
				}
			}
			if joined != nil {
				vals[k] = append(vals[k], strings.Join(joined, ","))
			}
		default:
			vals[k] = append(vals[k], scalarText(y))
		}
	}
	return vals, nil
}

// multipartOf writes an object as multipart/form-data parts: scalars as
// text, lists as repeated parts, objects as JSON, files (of schema's file
// properties) as file parts named as the driver names a runtime.File.
func multipartOf(v any, encs map[string]*openapi3.Encoding, schema *openapi3.SchemaRef) ([]byte, string, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, "", fmt.Errorf("a multipart body that is not an object")
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	part := func(k string, x any) error {
		ct := ""
		if e := encs[k]; e != nil && !strings.ContainsAny(e.ContentType, ",*") {
			ct = strings.TrimSpace(e.ContentType)
		}
		_, obj := x.(map[string]any)
		file := binarySchema(propertySchema(schema, k, 0))
		if !obj && ct == "" && !file {
			return w.WriteField(k, scalarText(x))
		}
		disposition := fmt.Sprintf(`form-data; name=%q`, k)
		if file {
			disposition += fmt.Sprintf(`; filename=%q`, uploadName)
			if ct == "" {
				ct = "application/octet-stream"
			}
		}
		var data []byte
		switch base := mediaBase(ct); {
		case base == "" && obj:
			ct, data = "application/json", []byte(canonical(x))
		case strings.Contains(base, "xml"):
			var b bytes.Buffer
			writeXML(&b, k, x)
			data = b.Bytes()
		case strings.Contains(base, "json"):
			data = []byte(canonical(x))
		default:
			data = bytesOf(x)
		}
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", disposition)
		h.Set("Content-Type", ct)
		pw, err := w.CreatePart(h)
		if err != nil {
			return err
		}
		_, err = pw.Write(data)
		return err
	}
	for _, k := range keys {
		items, list := m[k].([]any)
		if !list {
			items = []any{m[k]}
		}
		for _, it := range items {
			if err := part(k, it); err != nil {
				return nil, "", err
			}
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return b.Bytes(), w.FormDataContentType(), nil
}

func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return ""
	}
	if s, ok := v.(fmt.Stringer); ok {
		return s.String()
	}
	return strings.Trim(canonical(v), `"`)
}

// answer is one way to respond to an operation's calls.
type answer struct {
	what    string
	status  string
	code    int
	ct      string
	body    []byte
	value   any
	field   string
	text    bool
	headers http.Header
	// headerVals are the headers' intended values by canonical name;
	// gaps the declared headers that could not be synthesized.
	headerVals map[string]any
	gaps       []string
	err        error
	// nested is an extra answer for the nested choices (see
	// nestedChoices).
	nested bool
	// download: the field is the unread body (see call.download).
	download bool
	// events: the field is a stream of events (see call.events).
	events string
}

func (a answer) apply(c *call) {
	c.status, c.respCT, c.respBody, c.respValue, c.field, c.fieldText, c.respHeaders = a.code, a.ct, a.body, a.value, a.field, a.text, a.headers
	c.respHeaderVals = a.headerVals
	c.download, c.events = a.download, a.events
	c.gaps = append(c.gaps, a.gaps...)
	c.respStatus = a.status
}

// answers lists the responses to exercise: the first is the main one (the
// lowest 2xx, a JSON body preferred); then the other declared statuses
// with typed fields, and the variants of a union response.
func (p *planner) answers(op *model.Operation, kinOp *openapi3.Operation) []answer {
	// pieces are the downloads and event streams, judged too: the main
	// answer when it is of their status, else answers of their own after
	// the others (which keep their order and seeds).
	var typed, plain, pieces []*model.Response
	head := strings.EqualFold(op.Method, "head")
	for _, r := range op.Responses {
		switch {
		case r.FieldName != "" && (r.Encoding == model.ResponseJSON || r.Encoding == model.ResponseText):
			typed = append(typed, r)
		case r.Encoding == model.ResponseStream || r.Encoding.Events():
			if !head && (r.Status[0] == '2' || strings.EqualFold(r.Status, "default")) {
				pieces = append(pieces, r)
			}
			plain = append(plain, r)
		default:
			plain = append(plain, r)
		}
	}
	piece := func(r *model.Response, seed int) answer {
		kr := kinResponse(kinOp, r.Status)
		var mt *openapi3.MediaType
		if kr != nil {
			mt = kr.Content.Get(r.ContentType)
		}
		code := statusCode(r.Status, op.Responses)
		if r.Encoding == model.ResponseStream {
			return p.downloadAnswer(r, kr, mt, code, seed)
		}
		return p.eventsAnswer(r, kr, mt, code, seed)
	}
	rank := func(s string) int {
		s = strings.ToUpper(s) // "4xx" is "4XX"
		switch {
		case len(s) == 3 && s[0] == '2' && s[1] != 'X':
			n, _ := strconv.Atoi(s)
			return n
		case s == "2XX":
			return 299
		case s == "default":
			return 700
		}
		n, err := strconv.Atoi(strings.ReplaceAll(s, "X", "0"))
		if err != nil {
			return 900
		}
		return 300 + n
	}
	sort.SliceStable(typed, func(i, j int) bool { return rank(typed[i].Status) < rank(typed[j].Status) })
	sort.SliceStable(plain, func(i, j int) bool { return rank(plain[i].Status) < rank(plain[j].Status) })
	var out []answer
	// No typed 2xx: the main answer is the lowest declared 2xx (or 200),
	// empty; with no 2xx declared at all (a redirect only, and a
	// default) the typed answers below are the calls' answers.
	code, status, ok := untypedMain(typed, plain, kinOp, rank)
	// The piece of the main answer's status, else one whose range or
	// default covers it.
	i := slices.IndexFunc(pieces, func(r *model.Response) bool { return r.Status == status })
	if i < 0 && code >= 200 && code < 300 {
		i = slices.IndexFunc(pieces, func(r *model.Response) bool {
			return strings.EqualFold(r.Status, "default") || strings.EqualFold(r.Status, "2XX")
		})
	}
	if ok && i >= 0 {
		out = append(out, piece(pieces[i], 0))
		pieces = slices.Delete(pieces, i, i+1)
	} else if ok {
		a := answer{what: "untyped " + strconv.Itoa(code), status: status, code: code}
		// A declared body the client does not decode still has to be a
		// valid one.
		if kr := kinResponse(kinOp, status); kr != nil && len(kr.Content) > 0 {
			cts := make([]string, 0, len(kr.Content))
			for ct := range kr.Content {
				cts = append(cts, ct)
			}
			sort.Strings(cts)
			ct := cts[0]
			a.ct = ct
			val, err := p.instance(kr.Content[ct].Schema, 0, 0, false, inJSON)
			a.err = err
			if str, ok := val.(string); ok && !strings.Contains(ct, "json") {
				a.body = []byte(str)
			} else {
				a.body, _ = json.Marshal(val)
			}
			a.headers, a.headerVals, a.gaps = p.responseHeaders(kr)
		} else if kr != nil {
			a.headers, a.headerVals, a.gaps = p.responseHeaders(kr)
		}
		out = append(out, a)
	}
	for i, r := range typed {
		code := statusCode(r.Status, op.Responses)
		if code == 0 || code >= 500 || code == 408 || code == 429 || (code >= 300 && code < 400) {
			continue // unreachable, retried or redirected: not a plain answer
		}
		if code == 204 || code == 304 {
			// HTTP gives these no body, whatever the spec declares.
			a := answer{what: "status " + r.Status, status: r.Status, code: code}
			if kr := kinResponse(kinOp, r.Status); kr != nil {
				a.headers, a.headerVals, a.gaps = p.responseHeaders(kr)
			}
			out = append(out, a)
			continue
		}
		kr := kinResponse(kinOp, r.Status)
		var mt *openapi3.MediaType
		if kr != nil {
			mt = kr.Content.Get(r.ContentType)
		}
		variants := 1
		if mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
			if alts := unionOf(mt.Schema.Value); len(alts) > 1 {
				variants = min(len(alts), 6)
			}
		}
		var choiceVs, choiceSeeds []int
		if mt != nil && mt.Schema != nil && !strings.EqualFold(op.Method, "head") {
			choiceVs, choiceSeeds = choiceRounds(variants, nestedChoices(mt.Schema), i)
		}
		minimalAt := -1 // the answer with the optional properties unset
		if len(choiceVs) < maxChoiceCalls && mt != nil && !strings.EqualFold(op.Method, "head") && r.Encoding == model.ResponseJSON && hasOptionalProps(mt.Schema, 0) {
			minimalAt = variants + len(choiceVs)
		}
		for v := 0; v < variants+len(choiceVs) || v == minimalAt; v++ {
			a := answer{what: "status " + r.Status, status: r.Status, code: code, ct: r.ContentType, field: r.FieldName, text: r.Encoding == model.ResponseText}
			variant, seed := v, i+v
			minimal := v == minimalAt
			if minimal {
				// What a decoder's field that writes its zero value (or
				// null) when the answer lacks it shows in.
				variant, seed = 0, i
				a.what += " optional properties unset"
				a.nested = true
			} else if v >= variants {
				// Each nested union variant and enum value (kept past
				// the cut below).
				variant, seed = choiceVs[v-variants], choiceSeeds[v-variants]
				a.what += fmt.Sprintf(" variant %d, nested choices %d", variant+1, seed-i-variant+1)
				a.nested = true
			} else if variants > 1 {
				a.what += fmt.Sprintf(" variant %d", v+1)
			}
			if mt == nil {
				a.err = fmt.Errorf("the oracle declares no %s content", r.ContentType)
			} else {
				val, err := p.instanceOf(mt.Schema, seed, variant, false, inJSON, minimal)
				a.err = err
				if err == nil {
					if a.text {
						s, ok := val.(string)
						if !ok {
							s = scalarText(val)
						}
						val = s
						a.body = []byte(s)
					} else {
						a.body, _ = json.Marshal(val)
					}
					a.value = val
				}
			}
			if kr != nil {
				a.headers, a.headerVals, a.gaps = p.responseHeaders(kr)
			}
			out = append(out, a)
		}
	}
	if strings.EqualFold(op.Method, "head") {
		// A response to HEAD has no body, whatever the spec declares
		// (net/http drops it): the answer is its status and headers.
		for i := range out {
			out[i].ct, out[i].body, out[i].value, out[i].field, out[i].text, out[i].download, out[i].events = "", nil, nil, "", false, false, ""
		}
	}
	var nested []answer
	out = slices.DeleteFunc(out, func(a answer) bool {
		if a.nested {
			nested = append(nested, a)
		}
		return a.nested
	})
	if len(out) > 8 {
		// Keep one declared error answer, if any, past the cut.
		for i := 8; i < len(out); i++ {
			if out[i].code >= 400 && !slices.ContainsFunc(out[1:8], func(a answer) bool { return a.code >= 400 }) {
				out[7] = out[i]
				break
			}
		}
		out = out[:8]
	}
	out = append(out, nested[:min(len(nested), maxChoiceCalls)]...)
	for i, r := range pieces {
		out = append(out, piece(r, len(typed)+i))
	}
	return out
}

// untypedMain is the status of an operation's main answer when no typed
// 2xx is: the lowest 2xx the client or else the spec declares, 200 when
// none is and no typed answer either; ok is false when typed answers are
// all there is to answer with.
func untypedMain(typed, plain []*model.Response, kinOp *openapi3.Operation, rank func(string) int) (code int, status string, ok bool) {
	if len(typed) > 0 && rank(typed[0].Status) < 300 {
		return 0, "", false
	}
	for _, r := range plain {
		if rank(r.Status) < 300 {
			return statusCode(r.Status, nil), r.Status, true
		}
	}
	code, status, best := 200, "200", 1000
	if kinOp.Responses != nil {
		for st := range kinOp.Responses.Map() {
			if r := rank(st); r < 300 && r < best {
				best, code, status = r, statusCode(st, nil), st
			}
		}
	}
	return code, status, best < 1000 || len(typed) == 0
}

// statusCode is a concrete status for a declared one ("4xx" is "4XX").
// A default beside a typed 2xx is answered with an error status no other
// response claims (the error path); alone, it may be the 200. When every
// such status is claimed (a 4XX range beside the default), it is 0: no
// plain answer reaches the default.
func statusCode(s string, all []*model.Response) int {
	s = strings.ToUpper(s)
	switch {
	case s == "DEFAULT":
		codes := []int{200, 418, 422, 400, 409}
		for _, r := range all {
			if r.Status != "default" && r.FieldName != "" && r.Status[0] == '2' {
				codes = codes[1:]
				break
			}
		}
		for _, c := range codes {
			free := true
			for _, r := range all {
				if r.Status != "default" && statusCovers(r.Status, c) {
					free = false
				}
			}
			if free {
				return c
			}
		}
		return 0
	case strings.HasSuffix(s, "XX"):
		n, _ := strconv.Atoi(s[:1])
		return n * 100
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 200
	}
	return n
}

func statusCovers(s string, code int) bool {
	if s = strings.ToUpper(s); strings.HasSuffix(s, "XX") {
		return strconv.Itoa(code)[:1] == s[:1]
	}
	return s == strconv.Itoa(code)
}

func kinResponse(op *openapi3.Operation, status string) *openapi3.Response {
	if op.Responses == nil {
		return nil
	}
	r := op.Responses.Value(status)
	if r == nil {
		r = op.Responses.Value(strings.ToLower(status))
	}
	if r == nil || r.Value == nil {
		return nil
	}
	return r.Value
}

// serverHeaders are response headers net/http writes or acts on itself: a
// value the harness made up would break the exchange (a Content-Length
// that is not the body's, a Content-Encoding the transport decodes), so
// they are neither sent nor compared.
var serverHeaders = map[string]bool{"Content-Type": true, "Content-Length": true, "Transfer-Encoding": true, "Connection": true,
	"Content-Encoding": true, "Trailer": true, "Upgrade": true, "Keep-Alive": true, "Proxy-Connection": true, "Te": true}

// responseHeaders synthesizes the declared headers of a response, each a
// different value where its schema allows (so that a field bound to
// another header's name shows), typed by its schema; vals are the
// intended values by canonical name, gaps the headers that could not be
// synthesized.
func (p *planner) responseHeaders(r *openapi3.Response) (h http.Header, vals map[string]any, gaps []string) {
	h, vals = http.Header{}, map[string]any{}
	names := make([]string, 0, len(r.Headers))
	for n := range r.Headers {
		names = append(names, n)
	}
	sort.Strings(names)
	seen := map[string]bool{}
	for i, n := range names {
		hr := r.Headers[n]
		if hr == nil || hr.Value == nil || serverHeaders[http.CanonicalHeaderKey(n)] || !headerToken(n) {
			continue // net/http's own, or a name HTTP cannot carry (no field can get it)
		}
		ref := hr.Value.Schema
		if ref == nil {
			for _, mt := range hr.Value.Content {
				if mt != nil {
					ref = mt.Schema
				}
				break
			}
		}
		if ref == nil {
			ref = openapi3.NewStringSchema().NewRef()
		}
		var text string
		var v any
		var err error
		// Distinct texts where the schema has room for them.
		for try := 0; try < 6; try++ {
			v, err = p.instance(ref, 2*i+try, -1, false, inHeader)
			if err != nil {
				break
			}
			if text, err = headerText(v, hr.Value.Explode != nil && *hr.Value.Explode); err != nil || !seen[text] {
				break
			}
		}
		if err != nil {
			gaps = append(gaps, fmt.Sprintf("response header %q: %v", n, err))
			continue
		}
		seen[text] = true
		h.Set(n, text)
		vals[http.CanonicalHeaderKey(n)] = v
	}
	return h, vals, gaps
}

// headerToken reports whether name is an HTTP field name (RFC 9110's
// token), one net/http sends.
func headerToken(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// headerText is a header value in style simple: a list's items joined by
// commas, an object's keys and values so (or k=v pairs, exploded).
func headerText(v any, explode bool) (string, error) {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, it := range x {
			switch it.(type) {
			case []any, map[string]any:
				return "", fmt.Errorf("%w: a list of lists or objects in a header", errUnsynthesizable)
			}
			parts[i] = scalarText(it)
		}
		return strings.Join(parts, ","), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			switch x[k].(type) {
			case []any, map[string]any:
				return "", fmt.Errorf("%w: a nested object in a header", errUnsynthesizable)
			}
			if explode {
				parts = append(parts, k+"="+scalarText(x[k]))
			} else {
				parts = append(parts, k, scalarText(x[k]))
			}
		}
		return strings.Join(parts, ","), nil
	case nil:
		return "", fmt.Errorf("%w: null in a header", errUnsynthesizable)
	}
	return scalarText(v), nil
}

// mediaBase is a content type without parameters, lower case.
func mediaBase(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
	}
	return mt
}
