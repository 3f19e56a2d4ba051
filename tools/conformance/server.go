package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// verdict is what the server found about one call's request.
type verdict struct {
	seen     bool
	problems []problem
	// uploadJudged: the call's bytes or file parts were compared with
	// the ones it sent (see uploadCompared).
	uploadJudged bool
}

// problem is one failed check.
type problem struct {
	kind   string // request, value, body, route, ...
	detail string
	// at is the one place the problem is about (nil: none), for the
	// exceptions to match.
	at *place
}

// server validates each request against the oracle and answers it.
type server struct {
	doc   *openapi3.T
	calls map[string]*call
	// creds are the credentials the spec's security schemes declare (see
	// credentials).
	creds map[string]bool

	mu       sync.Mutex
	verdicts map[string]*verdict
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(callHeader)
	c := s.calls[id]
	if c == nil {
		http.Error(w, "unknown call", http.StatusTeapot)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	r.Body.Close()
	r.Header.Del(callHeader)
	probs := s.check(r, body, c)
	s.mu.Lock()
	v := s.verdicts[id]
	if v == nil {
		v = &verdict{}
		s.verdicts[id] = v
	}
	if !v.seen {
		v.seen = true
		v.problems = probs
		v.uploadJudged = c.upload && uploadCompared(r, c)
	}
	s.mu.Unlock()
	for k, vals := range c.respHeaders {
		w.Header()[k] = vals
	}
	if c.respCT != "" {
		w.Header().Set("Content-Type", c.respCT)
	}
	w.WriteHeader(c.status)
	if !c.download && c.events == "" {
		w.Write(c.respBody)
		return
	}
	// A download or a stream comes in pieces, as over a network: flushed
	// chunks that cut lines and events, so the client must join them.
	rc := http.NewResponseController(w)
	for b := c.respBody; len(b) > 0; {
		n := min(len(b), 997)
		w.Write(b[:n])
		rc.Flush()
		b = b[n:]
	}
}

func (s *server) verdict(id string) *verdict {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.verdicts[id]; v != nil {
		return v
	}
	return &verdict{}
}

func reset(r *http.Request, body []byte) {
	r.Body = io.NopCloser(bytes.NewReader(body))
}

func options() *openapi3filter.Options {
	return &openapi3filter.Options{
		MultiError:         true,
		AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
		// A default is the server's business: kin-openapi would insert
		// it into the request and then judge that.
		SkipSettingDefaults: true,
	}
}

func (s *server) check(r *http.Request, body []byte, c *call) []problem {
	ctx := context.Background()
	var probs []problem
	reset(r, body)
	route, pathParams, err := routeFor(s.doc, c, r)
	if err != nil {
		return []problem{{kind: "route", detail: err.Error()}}
	}
	rawPath, _ := c.tmpl.matchRaw(r.URL.EscapedPath())
	// kin-openapi reads cookies as written; it judges them decoded.
	wire := r
	r = decodedCookies(r, c)
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: pathParams, Route: route, Options: options()}
	if c.bodySent && !kinDecodes(c.bodyCT) {
		// kin-openapi has no decoder for this media type: checkBody
		// compares the bytes instead.
		in.Options.ExcludeRequestBody = true
	}
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
		ps := kinProblems("request", err, nil)
		probs = append(probs, ps...)
		probs = append(probs, revalidateRefused(ctx, in, r, body, c, ps)...)
	}
	// The values kin-openapi decodes must be the ones intended: a wrong
	// style can still be valid (a|b is a valid string).
	for _, ip := range c.params {
		if ip.param.In == "cookie" {
			continue // checkText compares cookies, decoded, with the intended text
		}
		reset(r, body)
		pin := &openapi3filter.RequestValidationInput{Request: r, PathParams: pathParams, Route: route, Options: options()}
		if err := openapi3filter.ValidateParameter(ctx, pin, pinned(ip)); err != nil {
			probs = append(probs, problem{"value", fmt.Sprintf("%s parameter %q: intended %s, sent %s; %s", ip.param.In, ip.param.Name, short(ip.value), wireOf(r, ip.param), oneLine(err.Error())),
				&place{param: ip.param}})
		}
	}
	probs = append(probs, checkText(wire, rawPath, c)...)
	probs = append(probs, s.checkExtra(wire, c)...)
	probs = append(probs, checkDeepObjectKeys(wire, c)...)
	probs = append(probs, checkAccept(wire, c)...)
	if c.bodyOmitted && (len(body) > 0 || wire.Header.Get("Content-Type") != "") {
		probs = append(probs, problem{kind: "extra", detail: fmt.Sprintf("the call left the optional body out; sent Content-Type %q and %d bytes %q", wire.Header.Get("Content-Type"), len(body), truncate(string(body), 100))})
	}
	if c.bodySent {
		probs = append(probs, s.checkBody(r, body, c)...)
		probs = append(probs, checkFields(wire, body, c)...)
		probs = append(probs, checkFileParts(wire, body, c)...)
	}
	// What the request carried, for the exceptions to look at.
	var form url.Values
	if c.bodySent && mediaBase(r.Header.Get("Content-Type")) == formCT {
		form, _ = url.ParseQuery(string(body))
	}
	for _, p := range probs {
		switch {
		case p.at == nil:
		case p.at.body:
			p.at.wire = form
		case p.at.param != nil:
			p.at.wire = paramWire(r, pathParams, p.at.param)
		}
	}
	return probs
}

// decodedCookies is r with the cookie parameters' values percent-decoded
// where the decoded text is still a cookie value net/http parses (else
// as written), for kin-openapi, which reads them as they are.
func decodedCookies(r *http.Request, c *call) *http.Request {
	pairs := cookiePairs(r)
	if len(pairs) == 0 {
		return r
	}
	mine := map[string]bool{}
	for _, ip := range c.params {
		if ip.param.In == "cookie" {
			mine[ip.param.Name] = true
		}
	}
	parts := make([]string, 0, len(pairs))
	for _, kv := range pairs {
		v := kv[1]
		if mine[kv[0]] {
			if d, err := url.PathUnescape(v); err == nil && cookieSafe(d) {
				v = d
			}
		}
		parts = append(parts, kv[0]+"="+v)
	}
	cp := r.Clone(r.Context())
	cp.Header.Set("Cookie", strings.Join(parts, "; "))
	return cp
}

// cookieSafe reports whether net/http parses s as a cookie value as is.
func cookieSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b <= ' ' || b >= 0x7f || b == '"' || b == ';' || b == '\\' || b == ',' {
			return false
		}
	}
	return true
}

// paramWire is what the request carried of a parameter, as form values:
// the query (a query parameter's style may spread it over other names),
// or the parameter's own values in the path (when not empty), headers or
// cookies.
func paramWire(r *http.Request, pathParams map[string]string, p *openapi3.Parameter) url.Values {
	switch p.In {
	case "query":
		return r.URL.Query()
	case "path":
		if v := pathParams[p.Name]; v != "" {
			return url.Values{p.Name: {v}}
		}
	case "header":
		if vs := r.Header.Values(p.Name); len(vs) > 0 {
			return url.Values{p.Name: vs}
		}
	case "cookie":
		if c, err := r.Cookie(p.Name); err == nil {
			return url.Values{p.Name: {c.Value}}
		}
	}
	return url.Values{}
}

// pinned is a copy of p that is required and whose schema admits only the
// intended value (kin-openapi compares the decoded value with enum).
func pinned(ip intendedParam) *openapi3.Parameter {
	cp := *ip.param
	cp.Required = true
	pin := func(ref *openapi3.SchemaRef) *openapi3.SchemaRef {
		if ref == nil || ref.Value == nil {
			return ref
		}
		sc := *ref.Value
		if !holdsBigInt(ip.value) {
			// kin-openapi compares numbers as float64 (and its 2020
			// validator so converts the decoded value): an integer past
			// 2^53 is compared exactly by checkText instead.
			sc.Enum = []any{ip.value}
		}
		return &openapi3.SchemaRef{Value: &sc}
	}
	if cp.Schema != nil {
		cp.Schema = pin(cp.Schema)
	} else if cp.Content != nil {
		content := openapi3.Content{}
		for k, mt := range cp.Content {
			m := *mt
			m.Schema = pin(mt.Schema)
			content[k] = &m
		}
		cp.Content = content
	}
	return &cp
}

// holdsBigInt reports whether v holds an integer float64 cannot (a
// json.Number).
func holdsBigInt(v any) bool {
	switch x := v.(type) {
	case json.Number:
		return true
	case []any:
		return slices.ContainsFunc(x, holdsBigInt)
	case map[string]any:
		for _, e := range x {
			if holdsBigInt(e) {
				return true
			}
		}
	}
	return false
}

func (s *server) checkBody(r *http.Request, body []byte, c *call) []problem {
	got := mediaBase(r.Header.Get("Content-Type"))
	if got != mediaBase(c.bodyCT) {
		return []problem{{kind: "body", detail: fmt.Sprintf("Content-Type %q; the call sends %q", r.Header.Get("Content-Type"), c.bodyCT)}}
	}
	if c.bodyBytes != nil {
		if !bytes.Equal(body, c.bodyBytes) {
			return []problem{{kind: "body", detail: fmt.Sprintf("raw body %q; intended %q", truncate(string(body), 100), truncate(string(c.bodyBytes), 100))}}
		}
		return nil
	}
	rb := c.kinOp.RequestBody.Value
	mt := rb.Content.Get(c.bodyCT)
	if mt == nil || mt.Schema == nil {
		return nil
	}
	dec := bodyDecoder(got)
	if dec == nil {
		if want := canonical(c.body); string(body) != want && string(body) != fmt.Sprint(c.body) {
			return []problem{{kind: "body", detail: fmt.Sprintf("kin-openapi cannot decode %s; the bytes %q are not the intended %s", got, truncate(string(body), 100), short(c.body))}}
		}
		return nil
	}
	encFn := func(name string) *openapi3.Encoding { return mt.Encoding[name] }
	// A property kin-openapi's form decoder refuses is one problem; the
	// rest of the body is still compared.
	v, probs, err := decodeWithout(dec, body, r.Header, mt.Schema, encFn, got == formCT)
	if err != nil {
		ps := kinProblems("body", err, &place{body: true})
		for i := range ps {
			ps[i].detail = "kin-openapi cannot decode the body: " + ps[i].detail
		}
		return append(probs, ps...)
	}
	var refused []string
	for _, p := range probs {
		refused = append(refused, p.at.tokens()[0])
	}
	want := withoutKeys(c.body, refused)
	if got == formCT {
		want = withoutEmpty(want)
	}
	// Every place the decoded body differs is its own problem, so that an
	// exception for one place hides no other.
	for _, d := range jsonDiffs(want, v) {
		p := problem{kind: "body", detail: fmt.Sprintf("decoded body differs from the intended one at %s: %s (sent %s)", d.where(), d.text, truncate(string(body), 160))}
		if d.path != "…" {
			p.at = &place{body: true, ptr: d.path}
		}
		probs = append(probs, p)
	}
	return probs
}

// checkResponse validates the answer the server is about to send.
func checkResponse(route *routers.Route, c *call, req *http.Request) error {
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, Route: route, Options: options()},
		Status:                 c.status,
		Header:                 http.Header{},
		Options:                &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true},
	}
	if c.respCT != "" && bodyDecoder(mediaBase(c.respCT)) == nil {
		in.Options.ExcludeResponseBody = true // kin-openapi cannot read it
	}
	if c.status == http.StatusNoContent || c.status == http.StatusNotModified {
		// HTTP gives these no body (nor its Content-Type), whatever the
		// spec declares: there is none to judge.
		in.Options.ExcludeResponseBody = true
	}
	for k, v := range c.respHeaders {
		in.Header[k] = v
	}
	if c.respCT != "" {
		in.Header.Set("Content-Type", c.respCT)
	}
	in.SetBodyBytes(c.respBody)
	return openapi3filter.ValidateResponse(context.Background(), in)
}

// bodyDecoder is kin-openapi's decoder of a media type (JSON for any
// +json type), nil when it has none.
func bodyDecoder(mediaType string) openapi3filter.BodyDecoder {
	if dec := openapi3filter.RegisteredBodyDecoder(mediaType); dec != nil {
		return dec
	}
	if strings.HasSuffix(mediaType, "+json") || strings.HasSuffix(mediaType, "-json") {
		return openapi3filter.JSONBodyDecoder
	}
	return nil
}

func kinDecodes(ct string) bool {
	return openapi3filter.RegisteredBodyDecoder(mediaBase(ct)) != nil
}

// wireOf shows how a parameter arrived, for a failure message.
func wireOf(r *http.Request, p *openapi3.Parameter) string {
	switch p.In {
	case "query":
		return "?" + r.URL.RawQuery
	case "header":
		return fmt.Sprintf("%s: %q", p.Name, r.Header.Values(p.Name))
	case "cookie":
		return fmt.Sprintf("Cookie: %q", r.Header.Values("Cookie"))
	}
	return r.URL.EscapedPath()
}
