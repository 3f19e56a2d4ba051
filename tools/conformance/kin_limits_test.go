package conformance

import (
	"cmp"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/model"
)

// proof is a construct's evidence: a minimal spec in testdata/kin and a
// request written as the spec means it, on which kin-openapi's verdict is
// wrong at the listed places (and only there).
type proof struct {
	spec string
	// op is the operationId ("proof" when empty).
	op string
	// method and target are the request line; ct and wire its body.
	method, target string
	ct, wire       string
	// params are the intended parameter values ("query created"); body is
	// the intended body.
	params map[string]any
	body   any
	// at are the places kin-openapi's wrong verdict is at: "query created",
	// "path id", "body /expand", "body" (the whole body). Each must hold a
	// failure the construct excuses.
	at []string
	// not are places of the same request the construct is not at.
	not []string
	// answer, for a construct of kind synth, is the status whose answer
	// (or "body": the request body whose value) cannot be synthesized;
	// at and not are then "response /ptr" or "body /ptr", and tries are
	// values kin-openapi must refuse (each part's own at the place).
	answer string
	tries  []any
}

// proofs are the evidence of each construct of constructs.go, by name.
var proofs = map[string][]proof{
	"kin: form property of a shape kin's form decoder refuses": {{
		spec: "form-refused-property.yaml", method: "POST", target: "/charges",
		ct: formCT, wire: "name=alpha&lines%5B0%5D%5Bprice%5D=3&meta%5Bk%5D=v",
		body: map[string]any{"name": "alpha", "lines": []any{map[string]any{"price": 3.0}}, "meta": map[string]any{"k": "v"}},
		at:   []string{"body /lines", "body /meta"},
		not:  []string{"body /name", "body"},
	}},
	"kin: form or multipart body whose schema is not of type object": {{
		spec: "form-untyped-body.yaml", method: "POST", target: "/flows",
		ct: formCT, wire: "method=password&password=secret",
		body: map[string]any{"method": "password", "password": "secret"},
		at:   []string{"body"},
		not:  []string{"body /method"},
	}},
	"kin: deepObject value that is not an object": {{
		spec: "deepobject-non-object.yaml", method: "POST", target: "/charges?created=6",
		ct: formCT, wire: "expand%5B0%5D=alpha&expand%5B1%5D=bravo&description=text&meta%5Bk%5D=v",
		params: map[string]any{"query created": 6.0},
		body:   map[string]any{"expand": []any{"alpha", "bravo"}, "description": "text", "meta": map[string]any{"k": "v"}},
		at:     []string{"query created", "body /expand", "body /description"},
		not:    []string{"body /meta"},
	}},
	"kin: deepObject object none of whose keys kin decodes": {{
		spec: "deepobject-undeclared-keys.yaml", method: "POST", target: "/payment_methods",
		ct: formCT, wire: "affirm%5Bkey%5D=value&card%5Btoken%5D=tok&data%5Bextra%5D%5Bkey%5D=value&data%5Bname%5D=n&meta%5Bk%5D=v",
		body: map[string]any{"affirm": map[string]any{"key": "value"}, "card": map[string]any{"token": "tok"},
			"data": map[string]any{"extra": map[string]any{"key": "value"}, "name": "n"}, "meta": map[string]any{"k": "v"}},
		at:  []string{"body /affirm", "body /card", "body /data/extra/key"},
		not: []string{"body /meta", "body /data/name", "body /meta/k"},
	}},
	"kin: deepObject member of a union read as text": {{
		spec: "deepobject-text-first.yaml", method: "POST", target: "/prices?status%5Bposted_at%5D=4",
		ct: formCT, wire: "tier%5Bup_to%5D=4&tier%5Bflat%5D=5",
		params: map[string]any{"query status": map[string]any{"posted_at": 4.0}},
		body:   map[string]any{"tier": map[string]any{"up_to": 4.0, "flat": 5.0}},
		at:     []string{"query status", "body /tier/up_to"},
		not:    []string{"body /tier/flat"},
	}},
	"kin: schema without type": {{
		spec: "typeless.yaml", method: "POST", target: "/accounts/699d98642c564d2e855e9661899b7252?tags=a&tags=b&region=asia-east1&count=3",
		ct: formCT, wire: "note=hello&title=t",
		params: map[string]any{"path id": "699d98642c564d2e855e9661899b7252", "query tags": []any{"a", "b"}, "query region": "asia-east1", "query count": 3.0},
		body:   map[string]any{"note": "hello", "title": "t"},
		at:     []string{"path id", "query tags", "query region", "body /note"},
		not:    []string{"query count", "body /title"},
	}, {
		spec: "typeless-part.yaml", method: "POST", target: "/transcriptions?user_id=alice",
		ct:     multipartCT,
		params: map[string]any{"query filter": map[string]any{"user_id": "alice"}},
		body:   map[string]any{"stream": true, "model": "whisper"},
		at:     []string{"query filter", "body /stream"},
		not:    []string{"body /model"},
	}},
	"kin: form or multipart property whose type list has null": {{
		spec: "typelist-null.yaml", method: "POST", target: "/messages",
		ct: formCT, wire: "sticker_ids=1&sticker_ids=2&content=hi",
		body: map[string]any{"sticker_ids": []any{"1", "2"}, "content": "hi"},
		at:   []string{"body /sticker_ids"},
		not:  []string{"body /content"},
	}, {
		spec: "typelist-null.yaml", op: "proofParts", method: "POST", target: "/webhooks",
		ct:   multipartCT,
		body: map[string]any{"attachments": []any{map[string]any{"title": "a"}, map[string]any{"title": "b"}}, "text": "hi"},
		at:   []string{"body /attachments"},
		not:  []string{"body /text"},
	}},
	"kin: form or multipart property that only additionalProperties declares": {{
		spec: "additional-properties-form.yaml", method: "PUT", target: "/metadata",
		ct: formCT, wire: "alpha=1&bravo=2&known=k",
		body: map[string]any{"alpha": "1", "bravo": "2", "known": "k"},
		at:   []string{"body /alpha", "body /bravo"},
		not:  []string{"body /known"},
	}, {
		spec: "additional-properties-form.yaml", op: "proofParts", method: "PUT", target: "/metadata/parts",
		ct:   multipartCT,
		body: map[string]any{"alpha": "1"},
		at:   []string{"body /alpha"},
	}},
	"spec contradiction: required property that no property declares": {{
		spec: "required-undeclared.yaml", method: "POST", target: "/oauth2/revoke",
		ct: "application/json", wire: `{"token":"t","client_id":"c"}`,
		body: map[string]any{"token": "t", "client_id": "c"},
		at:   []string{"body /grant_type"},
		not:  []string{"body /token", "body /client_id"},
	}},
	"spec contradiction: request body media type that is no media range": {{
		spec: "no-media-range.yaml", method: "PUT", target: "/objects/a",
		ct: "application/octet-stream", wire: "bytes",
		params: map[string]any{"path name": "a"},
		at:     []string{"body"},
	}},
	"kin: form-exploded object parameter without declared properties": {{
		spec: "freeform-exploded-object.yaml", method: "GET", target: "/items?alpha=1&bravo=2&r=4",
		params: map[string]any{"query meta": map[string]any{"alpha": "1", "bravo": "2"}, "query color": map[string]any{"r": 4.0}},
		at:     []string{"query meta"},
		not:    []string{"query color"},
	}},
	"kin: oneOf parameter read as a later variant": {{
		spec: "oneof-later-variant.yaml", method: "GET", target: "/issues?level=3&ids=alpha&size=4",
		params: map[string]any{"query level": 3.0, "query ids": "alpha", "query size": 4.0},
		at:     []string{"query level", "query ids"},
		not:    []string{"query size"},
	}},
	"kin: oneOf of typeless const or enum variants in a parameter": {{
		spec: "oneof-typeless-consts.yaml", method: "GET", target: "/search?author_type=-user&limit=3",
		params: map[string]any{"query author_type": []any{"-user"}, "query limit": 3.0},
		at:     []string{"query author_type"},
		not:    []string{"query limit"},
	}},
	"kin: multipart part of a media type kin has no decoder for": {{
		spec: "multipart-undecodable-part.yaml", method: "POST", target: "/reports",
		ct:   multipartCT,
		body: map[string]any{"doc": map[string]any{"a": "x"}, "note": "hello"},
		at:   []string{"body /doc"},
		not:  []string{"body /note", "body"},
	}},
	"spec contradiction: allOf parts that no value meets": {{
		spec: "allof-unmeetable.yaml", answer: "4XX",
		at:    []string{"response /success"},
		not:   []string{"response /errors", "response"},
		tries: []any{map[string]any{"success": true, "errors": []any{}}, map[string]any{"success": false, "errors": []any{}}},
	}, {
		spec: "allof-unmeetable.yaml", answer: "body",
		at:    []string{"body /result"},
		not:   []string{"body /note", "body"},
		tries: []any{map[string]any{"result": nil}, map[string]any{"result": []any{"a"}}, map[string]any{"result": map[string]any{}}},
	}},
	"spec contradiction: oneOf whose variants are all alike": {{
		spec: "oneof-alike.yaml", answer: "200",
		at:    []string{"response"},
		not:   []string{"response /aggregate"},
		tries: []any{map[string]any{"aggregate": map[string]any{"name": "a"}}},
	}, {
		spec: "oneof-alike.yaml", answer: "body",
		at:    []string{"body /aggregate"},
		not:   []string{"body", "body /note"},
		tries: []any{map[string]any{"aggregate": map[string]any{"name": "a"}, "note": "n"}},
	}},
	"spec contradiction: oneOf of open objects that admit each other's values": {{
		spec: "oneof-open.yaml", answer: "body",
		at:  []string{"body"},
		not: []string{"body /credentials"},
		tries: []any{map[string]any{"credentials": map[string]any{"name": "a"}}, map[string]any{"profile": map[string]any{"email": "e"}},
			map[string]any{"credentials": map[string]any{"name": "a"}, "profile": map[string]any{"email": "e"}}},
	}},
	"spec contradiction: required path parameter that is not in the path": {{
		spec: "path-param-not-in-path.yaml", method: "GET", target: "/v2.0/address-groups?limit=3",
		params: map[string]any{"query limit": 3.0},
		at:     []string{"path id"},
		not:    []string{"query limit"},
	}},
}

// TestKinLimits runs kin-openapi, as the harness's server does, on each
// construct's minimal spec and asserts its wrong verdict at each listed
// place, that the construct is found there (and not at the other places),
// and that the request has no other failure: once kin-openapi judges the
// construct right, this test fails and the exception must go.
func TestKinLimits(t *testing.T) {
	for _, e := range constructs {
		t.Run(e.Construct, func(t *testing.T) {
			prs, ok := proofs[e.Construct]
			if !ok {
				t.Fatalf("construct %q has no proof: add a minimal spec to testdata/kin and an entry to proofs", e.Construct)
			}
			for _, pr := range prs {
				checkProof(t, e, pr)
			}
		})
	}
	for name := range proofs {
		if !slices.ContainsFunc(constructs, func(e Exception) bool { return e.Construct == name }) {
			t.Errorf("proof of %q, which is no construct", name)
		}
	}
}

// checkProof runs one proof of construct e.
func checkProof(t *testing.T, e Exception, pr proof) {
	t.Helper()
	if pr.answer != "" {
		checkSynthProof(t, e, pr)
		return
	}
	{
		{
			c, fails := runProof(t, pr)
			for _, want := range pr.at {
				found := false
				for _, f := range fails {
					if f.site != nil && placeIs(f.site.place, want) && e.covers(f) {
						found = true
					}
				}
				if !found {
					t.Errorf("%s: at %s: no failure the construct excuses; kin-openapi may judge it right now (then remove the exception). Failures:\n%s", pr.spec, want, listFailures(fails))
				}
			}
			for _, f := range fails {
				if !e.covers(f) {
					t.Errorf("%s: a failure the construct does not excuse (the minimal spec must show this limit alone): %s at %s: %s", pr.spec, f.Kind, f.At, f.Detail)
				}
			}
			for _, other := range pr.not {
				if s := siteOf(c, parsePlace(t, c, other)); e.At(s) {
					t.Errorf("%s: the construct is found at %s, which does not have it", pr.spec, other)
				}
			}
		}
	}
}

// runProof sends the proof's request through the harness's server check
// and returns its failures.
func runProof(t *testing.T, pr proof) (*call, []Failure) {
	t.Helper()
	doc, err := loadOracle(filepath.Join("testdata", "kin", pr.spec))
	if err != nil {
		t.Fatal(err)
	}
	c := &call{what: "proof"}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.OperationID == cmp.Or(pr.op, "proof") {
				c.op = &model.Operation{Name: "Proof", ID: "proof", Method: strings.ToLower(method), Path: path}
				c.kinOp, c.item = op, item
			}
		}
	}
	if c.kinOp == nil {
		t.Fatalf("%s has no operation %s", pr.spec, cmp.Or(pr.op, "proof"))
	}
	kps := operationParams(c.item, c.kinOp)
	if c.tmpl, err = compileTemplate(c.op.Path, kps); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(pr.params))
	for k := range pr.params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		in, name, _ := strings.Cut(k, " ")
		kp := kps[in+"\x00"+name]
		if kp == nil {
			t.Fatalf("%s: no %s parameter %s", pr.spec, in, name)
		}
		c.params = append(c.params, intendedParam{kp, pr.params[k]})
	}
	wire := pr.wire
	if pr.body != nil {
		c.body, c.bodySent, c.bodyCT = pr.body, true, pr.ct
		if pr.ct == multipartCT {
			mt := c.kinOp.RequestBody.Value.Content.Get(pr.ct)
			data, ct, err := multipartOf(pr.body, mt.Encoding, mt.Schema)
			if err != nil {
				t.Fatal(err)
			}
			wire, c.bodyCT = string(data), ct
		}
	}
	r := httptest.NewRequest(pr.method, "http://example.com"+pr.target, strings.NewReader(wire))
	if c.bodySent {
		r.Header.Set("Content-Type", c.bodyCT)
		c.bodyCT = pr.ct
	}
	srv := &server{doc: doc}
	var fails []Failure
	for _, p := range srv.check(r, []byte(wire), c) {
		fails = append(fails, failureOf(c, p))
	}
	return c, fails
}

// placeIs reports whether p is the place written as s ("query created",
// "body /expand", "body").
func placeIs(p *place, s string) bool {
	kind, rest, _ := strings.Cut(s, " ")
	if kind == "body" {
		return p.body && p.ptr == rest
	}
	return p.param != nil && p.param.In == kind && p.param.Name == rest && p.ptr == ""
}

// parsePlace is the place written as s in call c's operation.
func parsePlace(t *testing.T, c *call, s string) *place {
	t.Helper()
	kind, rest, _ := strings.Cut(s, " ")
	if kind == "body" {
		return &place{body: true, ptr: rest}
	}
	kp := operationParams(c.item, c.kinOp)[kind+"\x00"+rest]
	if kp == nil {
		t.Fatalf("no %s parameter %s", kind, rest)
	}
	return &place{param: kp}
}

func listFailures(fs []Failure) string {
	var b strings.Builder
	for _, f := range fs {
		at, _ := json.Marshal(f.At)
		b.WriteString("  " + f.Kind + " at " + string(at) + ": " + f.Detail + "\n")
	}
	if b.Len() == 0 {
		return "  (none)\n"
	}
	return b.String()
}

// checkSynthProof runs the proof of a construct of kind synth: the
// planner cannot synthesize the answer (or the request body), the failure
// it reports is at each listed place and excused there, the construct is
// not at the other places, and kin-openapi refuses each value tried.
func checkSynthProof(t *testing.T, e Exception, pr proof) {
	t.Helper()
	doc, err := loadOracle(filepath.Join("testdata", "kin", pr.spec))
	if err != nil {
		t.Fatal(err)
	}
	c := &call{what: "proof", is31: doc.IsOpenAPI31OrLater()}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.OperationID == cmp.Or(pr.op, "proof") {
				c.op = &model.Operation{Name: "Proof", ID: "proof", Method: strings.ToLower(method), Path: path}
				c.kinOp, c.item = op, item
			}
		}
	}
	if c.kinOp == nil {
		t.Fatalf("%s has no operation %s", pr.spec, cmp.Or(pr.op, "proof"))
	}
	var media *openapi3.MediaType
	writing := pr.answer == "body"
	if writing {
		c.bodyCT = "application/json"
		media = c.kinOp.RequestBody.Value.Content.Get(c.bodyCT)
	} else {
		c.respStatus, c.respCT = pr.answer, "application/json"
		media = kinResponse(c.kinOp, pr.answer).Content.Get(c.respCT)
	}
	p := &planner{doc: doc, is31: c.is31}
	_, err = p.instance(media.Schema, 0, -1, writing, inJSON)
	var nv *noValueError
	if !errors.As(err, &nv) {
		t.Fatalf("%s %s: synthesized (err %v); want no value to meet the schema", pr.spec, pr.answer, err)
	}
	parse := func(s string) *place {
		kind, ptr, _ := strings.Cut(s, " ")
		return &place{body: kind == "body", response: kind == "response", ptr: ptr}
	}
	at := &place{body: writing, response: !writing, ptr: nv.ptr}
	f := Failure{Kind: "synth", Detail: pr.answer + ": " + err.Error(), At: at.String(), site: siteOf(c, at)}
	for _, want := range pr.at {
		if w := parse(want); w.ptr != at.ptr || !e.covers(f) {
			t.Errorf("%s: at %s: no failure the construct excuses (the failure is at %s: %s)", pr.spec, want, f.At, f.Detail)
		}
	}
	for _, other := range pr.not {
		if e.At(siteOf(c, parse(other))) {
			t.Errorf("%s: the construct is found at %s, which does not have it", pr.spec, other)
		}
	}
	opts := []openapi3.SchemaValidationOption{openapi3.VisitAsResponse()}
	if writing {
		opts[0] = openapi3.VisitAsRequest()
	}
	for _, v := range pr.tries {
		if media.Schema.Value.VisitJSON(v, opts...) == nil {
			t.Errorf("%s: kin-openapi accepts %v: the parts are met after all", pr.spec, v)
		}
	}
}
