// Package conformance checks generated clients on the wire: for a spec it
// generates the client, calls every operation with arguments synthesized
// from the schema against a loopback server that judges each request with
// kin-openapi's openapi3filter (an oracle that shares no code with resgen's
// generator), answers with a synthesized declared response, and checks that
// the client decodes it into the typed field and re-encodes it unchanged.
//
// The values are adversarial where the schema allows (synth.go): reserved
// and non-ASCII text, empty strings and explicit nulls in bodies, int64
// extremes and integers past 2^53, a million, fractions, time offsets.
// Beside kin-openapi's verdict the server reads the request as written
// (wirecheck.go): each parameter's scalars in their canonical text,
// nothing the call did not set (no undeclared or unset parameter, header,
// cookie or form field, no body when the call left an optional one out),
// and an Accept that lists the responses' media types; the driver prints
// the typed response header fields, each compared with its own header.
// Bodies that go as bytes or events are judged too, never skipped: a
// download's Stream is read whole and compared byte for byte with opaque
// bytes sent in chunks, a []byte or io.Reader body and each file part
// must arrive as the read-once reader held it (bytes.go), and an event
// stream's events, read through Events, must carry the data, id, event
// and retry sent (events.go).
// What cannot be synthesized is a failure (kind synth), never a skip. A
// schema the harness proves no value meets (allOf parts with no common
// value, oneOf variants no value tells apart) is such a failure at its
// place, which an exception by construct excuses as a spec contradiction
// (constructs.go): no server could send that answer, nor a client that body.
//
// It is resgen's own test tool (scripts/conformance, make conformance),
// not an API.
package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/resgen/resgen/generator"
	"github.com/resgen/resgen/generator/model"
)

// Options configure a run.
type Options struct {
	// RepoRoot is the resgen module the temp module replaces
	// github.com/resgen/resgen with (its go.sum is copied too).
	RepoRoot string
	// GoTool is the go command ("go" when empty).
	GoTool string
	// GoCache, when set, is the GOCACHE of the driver builds.
	GoCache string
	// Exceptions are the known exceptions (nil: none).
	Exceptions []Exception
	// Mutate, when set, edits each generated file before it is built
	// (the harness's own tests use it to plant regressions).
	Mutate func([]byte) []byte
	// Overlay, when set, replaces files of the resgen module (by absolute
	// path) with other contents in the driver's build only (go build
	// -overlay), e.g. a mutated runtime/wire file; the repository is not
	// touched.
	Overlay map[string][]byte
	// KeepDir keeps the temp module (for debugging).
	KeepDir bool
}

// Failure is one failed check of one call.
type Failure struct {
	Operation string // the Go method
	OpID      string // operationId
	Call      string // what the call exercised
	Method    string // the Go method called (Operation's or a body variant's)
	// Kind is load, generate, build, driver, synth (a value or answer the
	// harness could not make), route, request, value, text (a parameter
	// not in its canonical text), extra (a parameter, header, cookie,
	// field or body the call did not set), accept, body, client, type,
	// status, decode, header (a response header field), roundtrip or
	// exception.
	Kind   string
	Detail string
	// At is the one place the failure is about (a parameter, a JSON path
	// in the request body or the response), "" when it names none.
	At string
	// Excepted is the exception or warning that covers it ("" when none).
	Excepted string
	// site is At in the oracle's document (nil: none), for exceptions.
	site *site
}

// Report is the result for one spec.
type Report struct {
	Spec       string
	Operations int
	Calls      int
	// Valid counts calls whose request kin-openapi accepted, with the
	// intended values decoded.
	Valid int
	// Decoded counts calls whose response the client decoded into the typed
	// field (or that have none); RoundTripped those whose re-encoding equals
	// what was sent.
	Decoded, RoundTripped int
	// Checked counts the calls that had a typed body to round-trip;
	// ErrorAnswers those of them answered with a declared 4xx (or default):
	// the client must return the typed field with no error.
	Checked, ErrorAnswers int
	// Exceptions counts the failures an exception excused.
	Exceptions int
	// Known counts the failures known-failures.txt lists (ApplyKnown).
	Known int
	// Warned counts the failures resgen itself reported as unsupported:
	// a typed body method's (pointing to the raw method) or a parameter's.
	Warned int
	// NeverCalled are the operations (Go methods) no call reached: each
	// has synth failures that say why.
	NeverCalled []string
	// Downloads, Uploads and Streams are the operations whose bodies go
	// as bytes or events (a Stream field; a []byte or io.Reader body, or
	// file parts; an event stream), and how many calls judged them.
	Downloads, Uploads, Streams Coverage
	Failures                    []Failure
	Notes                       []string
	// Phases are the durations of generate, oracle, plan, build and calls.
	Phases []Phase
	// Repaired is true when the oracle loaded resgen's repaired bytes.
	Repaired bool
	Duration time.Duration
}

// Failed reports whether any failure is not covered by an exception.
func (r *Report) Failed() bool {
	for _, f := range r.Failures {
		if f.Excepted == "" {
			return true
		}
	}
	return false
}

// Phase is the duration of one step of a run.
type Phase struct {
	Name string
	Took time.Duration
}

// Run checks one spec.
func Run(ctx context.Context, spec string, opts Options) *Report {
	start := time.Now()
	rep := &Report{Spec: spec}
	defer func() { rep.Duration = time.Since(start) }()
	if opts.GoTool == "" {
		opts.GoTool = "go"
	}
	fail := func(kind, detail string) *Report {
		rep.Failures = append(rep.Failures, Failure{Kind: kind, Detail: detail})
		applyExceptions(rep, opts.Exceptions)
		return rep
	}

	last := start
	phase := func(name string) {
		now := time.Now()
		rep.Phases = append(rep.Phases, Phase{name, now.Sub(last)})
		last = now
	}
	res, err := generator.Generate(ctx, generator.Config{Spec: spec, Package: "client"})
	phase("generate")
	if err != nil {
		return fail("generate", truncate(err.Error(), 2000))
	}
	doc, err := loadOracle(spec)
	if err != nil {
		// kin-openapi cannot decode the raw file (a list where a schema
		// belongs, a map where a string does): judge against the bytes
		// resgen's decode repairs make, and say so in the row.
		data, n, rerr := generator.Repaired(spec)
		if rerr != nil || n == 0 {
			return fail("load", "kin-openapi cannot load the spec: "+oneLine(err.Error()))
		}
		if doc, rerr = loadOracleData(spec, data); rerr != nil {
			return fail("load", "kin-openapi cannot load the spec, repaired or not: "+oneLine(rerr.Error()))
		}
		rep.Repaired = true
		rep.Notes = append(rep.Notes, fmt.Sprintf("the oracle loaded resgen's repaired bytes (%d repairs): kin-openapi cannot load the raw spec: %s", n, truncate(oneLine(err.Error()), 200)))
	}
	implicitMappings(doc)
	if n := inlinedOps(doc); n > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d operations are $refs to files (not OpenAPI; kin-openapi ignores them): the oracle inlined them", n))
	}
	rep.Operations = len(res.Model.Operations)
	phase("oracle")

	p := &planner{doc: doc, is31: doc.IsOpenAPI31OrLater()}
	var calls []*call
	// What cannot be synthesized is a harness failure, never a silent
	// skip: the call that needs it is not made, and an operation with no
	// call left is counted as never called.
	synthFail := func(op *model.Operation, what, detail string) {
		rep.Failures = append(rep.Failures, Failure{Operation: op.Name, OpID: op.ID, Call: what, Method: op.Name, Kind: "synth", Detail: oneLine(detail)})
	}
	for _, op := range res.Model.Operations {
		cs, skips := p.plan(op)
		calls = append(calls, cs...)
		for _, s := range skips {
			synthFail(op, s.what, s.reason)
			if s.at != nil {
				// A place (a spec contradiction's): exceptions look there.
				f := &rep.Failures[len(rep.Failures)-1]
				f.At, f.site = s.at.String(), siteOf(s.c, s.at)
			}
		}
	}

	srv := &server{doc: doc, calls: map[string]*call{}, verdicts: map[string]*verdict{}, creds: credentials(doc)}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	doc.Servers = openapi3.Servers{{URL: ts.URL}}

	// Each answer must itself be valid: check it before it is sent.
	var planned []*call
	for _, c := range calls {
		route := &routers.Route{Spec: doc, Path: c.op.Path, PathItem: c.item, Method: strings.ToUpper(c.op.Method), Operation: upperRanges(c.kinOp)}
		req := httptest.NewRequest(route.Method, ts.URL+"/", nil)
		if err := checkResponse(route, c, req); err != nil {
			synthFail(c.op, c.what, fmt.Sprintf("the synthesized %d answer is invalid: %s", c.status, oneLine(err.Error())))
			continue
		}
		for _, g := range c.gaps {
			synthFail(c.op, c.what, g)
		}
		srv.calls[c.id] = c
		planned = append(planned, c)
	}
	called := map[*model.Operation]bool{}
	for _, c := range planned {
		called[c.op] = true
	}
	for _, op := range res.Model.Operations {
		if !called[op] {
			rep.NeverCalled = append(rep.NeverCalled, op.Name)
		}
	}

	rep.Downloads, rep.Uploads, rep.Streams = coverageOf(res.Model.Operations, planned)
	if n := bytesOnlyNote(planned); n != "" {
		rep.Notes = append(rep.Notes, n)
	}
	phase("plan")
	dir, err := os.MkdirTemp("", "conformance-*")
	if err != nil {
		return fail("build", err.Error())
	}
	if opts.KeepDir {
		rep.Notes = append(rep.Notes, "module kept in "+dir)
	} else {
		defer os.RemoveAll(dir)
	}
	bin, err := buildDriver(ctx, &opts, dir, res, opts.Mutate)
	if err != nil {
		return fail("build", err.Error())
	}
	phase("build")
	plan := make([]planCall, len(planned))
	for i, c := range planned {
		plan[i] = c.plan
	}
	planData, _ := json.Marshal(plan)
	planPath := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(planPath, planData, 0o644); err != nil {
		return fail("build", err.Error())
	}
	// Calls time out on their own (30s each); this bounds a whole run.
	dctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(dctx, bin, planPath, ts.URL)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		rep.Failures = append(rep.Failures, Failure{Kind: "driver", Detail: fmt.Sprintf("%v: %s", err, truncate(stderr.String(), 2000))})
	}
	results := map[string]driverResult{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var dr driverResult
		if json.Unmarshal(sc.Bytes(), &dr) == nil {
			results[dr.ID] = dr
		}
	}
	phase("calls")
	rep.Calls = len(planned)
	for _, c := range planned {
		v := srv.verdict(c.id)
		judge(rep, c, v, results[c.id])
		if v.uploadJudged {
			rep.Uploads.Judged++
		}
	}
	markWarned(rep, res)
	applyExceptions(rep, opts.Exceptions)
	return rep
}

// rawHint finds the raw method an unsupported: warning about a body
// points the caller to.
var rawHint = regexp.MustCompile(`^unsupported: (.*); send the body as the spec says with (\w+)\(\.\.\., contentType, body\)`)

// warnedParts finds the property or part an unsupported: body warning
// names, or the list of them ("properties "a", "b" may be null").
var (
	warnedParts = regexp.MustCompile(`(?:property|part|properties|parts) ((?:"[^"]+"(?:, )?)+)`)
	quoted      = regexp.MustCompile(`"([^"]+)"`)
)

// markWarned marks the request-body failures of the typed methods of an
// operation whose body resgen reported as unsupported: the client said it
// cannot write that body as the spec means and named its raw method (whose
// call is judged like any other). A failure is marked only when it names
// the property or part the warning names.
func markWarned(rep *Report, res *generator.Result) {
	// parts are the properties or parts the warning names (none: the
	// whole body, which the typed method cannot write).
	type warning struct {
		parts []string
		text  string
	}
	warned := map[string][]warning{} // raw method -> its warnings
	for _, d := range res.Diags {
		m := rawHint.FindStringSubmatch(d.Msg)
		if m == nil {
			continue
		}
		w := warning{text: fmt.Sprintf("resgen warns at %s:%d: unsupported: %s", filepath.Base(d.File), d.Line, m[1])}
		if pm := warnedParts.FindStringSubmatch(m[1]); pm != nil {
			for _, q := range quoted.FindAllStringSubmatch(pm[1], -1) {
				w.parts = append(w.parts, q[1])
			}
		}
		warned[m[2]] = append(warned[m[2]], w)
	}
	rawOf := map[string]string{}
	for _, op := range res.Model.Operations {
		for _, v := range op.Variants {
			if v.Body.Encoding == model.BodyRaw {
				rawOf[op.Name] = v.Name
			}
		}
	}
	params := warnedParams(res)
	for i := range rep.Failures {
		f := &rep.Failures[i]
		if f.Excepted == "" {
			for _, w := range params[f.Operation] {
				if strings.Contains(f.Detail, `parameter "`+w.name+`"`) || strings.Contains(f.Detail, "params field "+w.goName+" ") || strings.Contains(f.Detail, "params field "+w.goName+":") {
					f.Excepted = w.text
					rep.Warned++
					break
				}
			}
			if f.Excepted != "" {
				continue
			}
		}
		raw := rawOf[f.Operation]
		if raw == "" || f.Method == raw || f.Excepted != "" {
			continue
		}
		if f.Kind != "body" && !(f.Kind == "request" && strings.Contains(f.Detail, "request body")) {
			continue
		}
		for _, w := range warned[raw] {
			if len(w.parts) == 0 || slices.ContainsFunc(w.parts, func(part string) bool {
				return strings.Contains(f.Detail, `"`+part+`"`) || strings.Contains(f.Detail, "/"+part) || strings.Contains(f.Detail, "path "+part+":")
			}) {
				f.Excepted = w.text
				rep.Warned++
				break
			}
		}
	}
}

// judge adds one call's outcome to rep.
func judge(rep *Report, c *call, v *verdict, dr driverResult) {
	addAt := func(kind, detail string, at *place) {
		rep.Failures = append(rep.Failures, failureOf(c, problem{kind, detail, at}))
	}
	add := func(kind, detail string) { addAt(kind, detail, nil) }
	for _, co := range dr.Coerced {
		add("type", co)
	}
	for _, u := range dr.Unknowns {
		// The harness sends and answers declared variants only: one that
		// decodes into Unknown is read as no variant (a wrong literal or
		// case in the union's decoder).
		add("union", u)
	}
	if !v.seen {
		if dr.ID == "" {
			add("client", "the driver printed no result (it crashed or timed out)")
		} else {
			add("client", "no request reached the server: "+oneLine(dr.Err))
		}
		return
	}
	if len(v.problems) == 0 {
		rep.Valid++
	}
	for _, pr := range v.problems {
		addAt(pr.kind, pr.detail, pr.at)
	}
	if dr.Err != "" {
		add("client", oneLine(dr.Err))
		return
	}
	if dr.Status != c.status {
		add("status", fmt.Sprintf("the response has status %d; the server sent %d", dr.Status, c.status))
		return
	}
	for _, d := range headerDiffs(c, dr.Headers) {
		add("header", d)
	}
	if c.download {
		judgeDownload(rep, c, dr, add)
		return
	}
	if c.events != "" {
		judgeEvents(rep, c, dr, add, addAt)
		return
	}
	if c.field == "" || c.respValue == nil {
		rep.Decoded++
		return
	}
	if c.status >= 400 {
		rep.ErrorAnswers++
	}
	rep.Checked++
	if dr.FieldNil || len(dr.Field) == 0 {
		add("decode", fmt.Sprintf("%s stayed nil after a %d answer %s", c.field, c.status, short(c.respValue)))
		return
	}
	rep.Decoded++
	got, err := decodeExact(dr.Field)
	if err != nil {
		add("roundtrip", "the driver printed invalid JSON: "+err.Error())
		return
	}
	want, _ := decodeExact(c.respBody)
	if c.fieldText {
		want = string(c.respBody)
	}
	// Every place the re-encoding differs is its own failure.
	if ds := jsonDiffs(want, got); len(ds) > 0 {
		for _, d := range ds {
			var at *place
			if d.path != "…" {
				at = &place{response: true, ptr: d.path}
			}
			addAt("roundtrip", fmt.Sprintf("%s re-encodes differently from the %d answer at %s: %s", c.field, c.status, d.where(), d.text), at)
		}
		return
	}
	rep.RoundTripped++
}

// failureOf is a problem of call c as a failure.
func failureOf(c *call, p problem) Failure {
	return Failure{Operation: c.op.Name, OpID: c.op.ID, Call: c.what, Method: c.plan.Method, Kind: p.kind, Detail: p.detail,
		At: p.at.String(), site: siteOf(c, p.at)}
}

// paramHint is an unsupported: warning about one parameter.
var paramHint = regexp.MustCompile(`^unsupported: (query|header|path|cookie) parameter "([^"]+)"`)

type warnedParam struct{ name, goName, text string }

// warnedParams are, by operation, the parameters resgen reported it
// cannot write as the spec means (it says what it sends instead): their
// failures are that warning, not a silent defect. The warning's pointer
// names the operation; one under components applies to every operation
// with a parameter of that name and place.
func warnedParams(res *generator.Result) map[string][]warnedParam {
	out := map[string][]warnedParam{}
	for _, d := range res.Diags {
		m := paramHint.FindStringSubmatch(d.Msg)
		if m == nil {
			continue
		}
		text := fmt.Sprintf("resgen warns at %s:%d: %s", filepath.Base(d.File), d.Line, d.Msg)
		for _, op := range res.Model.Operations {
			opPtr := "#/paths/" + strings.ReplaceAll(strings.ReplaceAll(op.Path, "~", "~0"), "/", "~1") + "/"
			if strings.HasPrefix(d.Pointer, "#/paths/") && !strings.HasPrefix(d.Pointer, opPtr+strings.ToLower(op.Method)+"/") &&
				!strings.HasPrefix(d.Pointer, opPtr+"parameters/") {
				continue
			}
			for _, p := range append(append([]*model.Param{}, op.PathParams...), op.Params...) {
				if string(p.In) == m[1] && p.SpecName == m[2] {
					out[op.Name] = append(out[op.Name], warnedParam{p.SpecName, p.GoName, text})
				}
			}
		}
	}
	return out
}

// bytesOnlyNote says how many raw bodies went in types kin-openapi cannot
// decode: their bytes and Content-Type are checked, their schema is not.
func bytesOnlyNote(calls []*call) string {
	byType := map[string]int{}
	for _, c := range calls {
		if c.bytesOnly != "" {
			byType[c.bytesOnly]++
		}
	}
	if len(byType) == 0 {
		return ""
	}
	var parts []string
	for t, n := range byType {
		parts = append(parts, fmt.Sprintf("%d %s", n, t))
	}
	sort.Strings(parts)
	return "raw bodies of types kin-openapi cannot decode (" + strings.Join(parts, ", ") + "): checked as bytes and Content-Type, the schema unjudged"
}

// RepoRoot finds the resgen module root from dir upward.
func RepoRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(bytes.TrimSpace(data), []byte("module github.com/resgen/resgen\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the resgen module")
		}
		dir = parent
	}
}

var _ = http.StatusOK
