// Package policy is the only reader of x-resilience. It takes a loaded
// spec (*load.Spec) and gives, per operation, one resolved policy
// (Resolver.Operation): breaker instance and retry policy as model types,
// timeouts, whether retrying is safe and why, and the idempotency key's
// header with the declared header parameter that carries it, if any. It
// decodes and checks every key with its position, resolves built-in
// defaults → root defaults → path item → operation, extends, inline and
// named policies, and lints the policies it resolved (lint.go). The
// built-in policies are the runtime's own (runtime.DefaultBreakerPolicy,
// runtime.DefaultRetryPolicy).
package policy

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/internal/rawval"
	"github.com/resgen/resgen/runtime"
)

// The x-resilience extension, as ../shared/x-resilience.md defines it: this
// file reads the raw extension values, reports every mistake with its
// position, and resolves one policy per operation (built-in defaults → root
// defaults → path item → operation, key by key).

const extName = "x-resilience"

// The built-in policies are the runtime's: one definition of the defaults.
func builtinBreaker() model.BreakerPolicy {
	return modelBreaker(runtime.DefaultBreakerPolicy(), "default", "shared")
}

func builtinRetry() model.RetryPolicy {
	return modelRetry(runtime.DefaultRetryPolicy(), "default")
}

const (
	defaultTimeout      = 10 * time.Second
	defaultTotalTimeout = 30 * time.Second
	defaultKeyHeader    = "Idempotency-Key"
)

var (
	rootKeys      = []string{"idempotencyKeyHeader", "defaults", "breakers", "retries"}
	opPolicyKeys  = []string{"breaker", "retry", "timeout", "totalTimeout", "idempotent", "idempotencyKey"}
	safeMethods   = map[string]bool{"GET": true, "HEAD": true, "OPTIONS": true, "TRACE": true, "PUT": true, "DELETE": true}
	retryFixHints = "make it retry-safe: declare an idempotency-key header parameter, set idempotencyKey: true, or set idempotent: true if repeating it is harmless; or remove retry"
)

// rawObj is one x-resilience object as decoded, with its JSON pointer.
type rawObj struct {
	ptr string
	m   map[string]any
}

// Resolver resolves the policies of one spec.
type Resolver struct {
	s     *load.Spec
	diags diag.Diagnostics

	keyHeader   string
	defaults    rawObj
	breakerDefs map[string]rawObj
	retryDefs   map[string]rawObj

	breakers  map[string]*model.BreakerPolicy // resolved named policies
	retries   map[string]*model.RetryPolicy
	resolving map[string]bool

	instances map[string]*model.BreakerInstance
	// Used counts how often each named policy is used ("breakers/x").
	Used map[string]int
}

func (r *Resolver) errorf(ptr, hint, format string, args ...any) {
	r.diags = append(r.diags, r.s.Diag(diag.Error, ptr, fmt.Sprintf(format, args...), hint))
}

// New reads the root x-resilience of s and resolves every named policy,
// so mistakes in unused ones are reported too.
func New(s *load.Spec) *Resolver {
	r := &Resolver{
		s: s, keyHeader: defaultKeyHeader,
		breakerDefs: map[string]rawObj{}, retryDefs: map[string]rawObj{},
		breakers: map[string]*model.BreakerPolicy{}, retries: map[string]*model.RetryPolicy{},
		resolving: map[string]bool{}, instances: map[string]*model.BreakerInstance{}, Used: map[string]int{},
	}
	r.lintExtensionNames()
	v, ok := s.Doc.Extensions[extName]
	if !ok {
		return r
	}
	root, ok := r.object("/"+extName, v, "the root x-resilience")
	if !ok {
		return r
	}
	r.checkKeys(root, rootKeys, "root x-resilience")
	if h, ok := root.m["idempotencyKeyHeader"]; ok {
		if hs, ok := h.(string); ok && validHeaderName(hs) {
			r.keyHeader = hs
		} else {
			r.errorf(root.ptr+"/idempotencyKeyHeader", "", "idempotencyKeyHeader must be an HTTP header name, got %s", show(h))
		}
	}
	if d, ok := root.m["defaults"]; ok {
		if o, ok := r.object(root.ptr+"/defaults", d, "defaults"); ok {
			r.checkKeys(o, opPolicyKeys, "operation policy")
			r.defaults = o
		}
	}
	for _, kind := range []string{"breakers", "retries"} {
		v, ok := root.m[kind]
		if !ok {
			continue
		}
		o, ok := r.object(root.ptr+"/"+kind, v, kind)
		if !ok {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(o.m)) {
			p, ok := r.object(o.ptr+"/"+esc(name), o.m[name], kind[:len(kind)-1]+" policy")
			if !ok {
				continue
			}
			if kind == "breakers" {
				r.breakerDefs[name] = p
			} else {
				r.retryDefs[name] = p
			}
		}
	}
	// Resolve every definition now, so mistakes in unused policies are
	// reported too.
	for _, name := range slices.Sorted(maps.Keys(r.breakerDefs)) {
		r.namedBreaker(name, "")
	}
	for _, name := range slices.Sorted(maps.Keys(r.retryDefs)) {
		r.namedRetry(name, "")
	}
	return r
}

func esc(tok string) string { return diag.PointerJoin("", tok)[1:] }

func (r *Resolver) object(ptr string, v any, what string) (rawObj, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		r.errorf(ptr, "", "%s must be an object, got %s", what, show(v))
		return rawObj{}, false
	}
	return rawObj{ptr: ptr, m: m}, true
}

// checkKeys reports unknown keys, with the nearest known key as suggestion.
func (r *Resolver) checkKeys(o rawObj, known []string, what string) {
	for _, k := range slices.Sorted(maps.Keys(o.m)) {
		if slices.Contains(known, k) || strings.HasPrefix(k, "x-") {
			continue
		}
		hint := "known keys: " + strings.Join(known, ", ")
		msg := fmt.Sprintf("unknown key %q in %s", k, what)
		if s := suggest(k, known); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
			hint = "rename the key to " + strconv.Quote(s)
		}
		r.errorf(o.ptr+"/"+esc(k), hint, "%s", msg)
	}
}

// namedBreaker resolves a breaker policy by name; from is the pointer of
// the reference, "" when resolving a definition.
func (r *Resolver) namedBreaker(name, from string) *model.BreakerPolicy {
	if p, ok := r.breakers[name]; ok {
		return p
	}
	def, ok := r.breakerDefs[name]
	if !ok {
		if name == "default" {
			b := builtinBreaker()
			r.breakers[name] = &b
			return &b
		}
		if from != "" {
			r.errorf(from, "define it under x-resilience.breakers, or use one of: "+strings.Join(r.names(r.breakerDefs), ", "), "unknown breaker policy %q", name)
		}
		return nil
	}
	key := "breakers/" + name
	if r.resolving[key] {
		r.errorf(def.ptr+"/extends", "remove one of the extends", "breaker policy %q extends itself: %s", name, r.cycle("breakers", name))
		return nil
	}
	r.resolving[key] = true
	defer delete(r.resolving, key)
	p := r.breakerObj(def, name)
	if p != nil {
		r.breakers[name] = p
	}
	return p
}

// cycle prints an extends cycle starting at name.
func (r *Resolver) cycle(kind, name string) string {
	defs := r.breakerDefs
	if kind == "retries" {
		defs = r.retryDefs
	}
	path := []string{name}
	for cur := name; ; {
		next, _ := defs[cur].m["extends"].(string)
		path = append(path, next)
		if next == name || len(path) > len(defs)+1 {
			break
		}
		cur = next
	}
	return strings.Join(path, " → ")
}

func (r *Resolver) names(defs map[string]rawObj) []string {
	n := slices.Sorted(maps.Keys(defs))
	if !slices.Contains(n, "default") {
		n = append([]string{"default"}, n...)
	}
	return n
}

// breakerObj resolves one breaker policy object (a definition or inline).
// The runtime reads and checks its values; only extends and scope, which
// the runtime never sees, are read here.
func (r *Resolver) breakerObj(o rawObj, name string) *model.BreakerPolicy {
	p := builtinBreaker()
	if ext, ok := o.m["extends"]; ok {
		en, ok := ext.(string)
		if !ok {
			r.errorf(o.ptr+"/extends", "", "extends must be a policy name, got %s", show(ext))
		} else if base := r.namedBreaker(en, o.ptr+"/extends"); base != nil {
			p = *base
		}
	}
	if v, ok := o.m["scope"]; ok {
		r.enum(o.ptr+"/scope", v, &p.Scope, "shared", "operation")
	}
	rp := runtimeBreaker(&p)
	r.policyErrors(o.ptr, rp.Decode(policyKeys(o.m), "extends", "scope"))
	p = modelBreaker(rp, name, p.Scope)
	r.lintBreaker(o, &p)
	return &p
}

// policyErrors reports the runtime's rule errors for the object at ptr.
func (r *Resolver) policyErrors(ptr string, err error) {
	for _, pe := range runtime.PolicyErrors(err) {
		at := ptr + "/" + esc(pe.Key)
		if pe.Elem != "" {
			at += "/" + esc(pe.Elem)
		}
		r.errorf(at, pe.Hint, "%s", pe.Msg)
	}
}

// policyKeys leaves out the x- keys, which every x-resilience object may
// carry and the runtime does not read.
func policyKeys(m map[string]any) map[string]any {
	for k := range m {
		if strings.HasPrefix(k, "x-") {
			out := make(map[string]any, len(m))
			for k, v := range m {
				if !strings.HasPrefix(k, "x-") {
					out[k] = v
				}
			}
			return out
		}
	}
	return m
}

// Conversions between the model's policies (strings, for the emitter and
// explain) and the runtime's (what the runtime checks and runs).

func runtimeBreaker(p *model.BreakerPolicy) runtime.BreakerPolicy {
	rp := runtime.BreakerPolicy{
		Policy: p.Name, WindowSize: p.WindowSize, WindowDuration: p.WindowDuration,
		MinimumCalls: p.MinimumCalls, FailureRateThreshold: p.FailureRateThreshold,
		SlowCallDuration: p.SlowCallDuration, SlowCallRateThreshold: p.SlowCallRateThreshold,
		WaitInOpen: p.WaitInOpen, HalfOpenCalls: p.HalfOpenCalls, RecordOn: matchOf(p.RecordOn),
	}
	if p.WindowType == "time" {
		rp.WindowType = runtime.TimeWindow
	}
	return rp
}

func modelBreaker(rp runtime.BreakerPolicy, name, scope string) model.BreakerPolicy {
	return model.BreakerPolicy{
		Name: name, Scope: scope, WindowType: rp.WindowType.String(), WindowSize: rp.WindowSize,
		WindowDuration: rp.WindowDuration, MinimumCalls: rp.MinimumCalls,
		FailureRateThreshold: rp.FailureRateThreshold, SlowCallDuration: rp.SlowCallDuration,
		SlowCallRateThreshold: rp.SlowCallRateThreshold, WaitInOpen: rp.WaitInOpen,
		HalfOpenCalls: rp.HalfOpenCalls, RecordOn: rp.RecordOn.Tokens(),
	}
}

func runtimeRetry(p *model.RetryPolicy) runtime.RetryPolicy {
	rp := runtime.RetryPolicy{
		Policy: p.Name, MaxAttempts: p.MaxAttempts, InitialInterval: p.InitialInterval,
		Multiplier: p.Multiplier, MaxInterval: p.MaxInterval, RetryOn: matchOf(p.RetryOn),
		RetryAfter: p.RetryAfter, MaxRetryAfter: p.MaxRetryAfter,
	}
	if p.Backoff == "constant" {
		rp.Backoff = runtime.ConstantBackoff
	}
	rp.Jitter = map[string]runtime.Jitter{"none": runtime.NoJitter, "full": runtime.FullJitter, "equal": runtime.EqualJitter, "decorrelated": runtime.DecorrelatedJitter}[p.Jitter]
	if p.Budget != nil {
		rp.Budget = &runtime.Budget{Ratio: p.Budget.Ratio, MinPerSecond: p.Budget.MinPerSecond}
	}
	return rp
}

func modelRetry(rp runtime.RetryPolicy, name string) model.RetryPolicy {
	p := model.RetryPolicy{
		Name: name, MaxAttempts: rp.MaxAttempts, Backoff: rp.Backoff.String(),
		InitialInterval: rp.InitialInterval, Multiplier: rp.Multiplier, MaxInterval: rp.MaxInterval,
		Jitter: rp.Jitter.String(), RetryOn: rp.RetryOn.Tokens(), RetryAfter: rp.RetryAfter,
		MaxRetryAfter: rp.MaxRetryAfter,
	}
	if rp.Budget != nil {
		p.Budget = &model.Budget{Ratio: rp.Budget.Ratio, MinPerSecond: rp.Budget.MinPerSecond}
	}
	return p
}

// matchOf reads the tokens Match.Tokens wrote.
func matchOf(toks []string) runtime.Match {
	var m runtime.Match
	for _, t := range toks {
		switch {
		case t == "transport":
			m.Transport = true
		case t == "timeout":
			m.Timeout = true
		case strings.HasSuffix(t, "xx"):
			m.Classes = append(m.Classes, int(t[0]-'0'))
		default:
			n, _ := strconv.Atoi(t)
			m.Codes = append(m.Codes, n)
		}
	}
	return m
}

func (r *Resolver) namedRetry(name, from string) *model.RetryPolicy {
	if p, ok := r.retries[name]; ok {
		return p
	}
	def, ok := r.retryDefs[name]
	if !ok {
		if name == "default" {
			p := builtinRetry()
			r.retries[name] = &p
			return &p
		}
		if from != "" {
			r.errorf(from, "define it under x-resilience.retries, or use one of: "+strings.Join(r.names(r.retryDefs), ", "), "unknown retry policy %q", name)
		}
		return nil
	}
	key := "retries/" + name
	if r.resolving[key] {
		r.errorf(def.ptr+"/extends", "remove one of the extends", "retry policy %q extends itself: %s", name, r.cycle("retries", name))
		return nil
	}
	r.resolving[key] = true
	defer delete(r.resolving, key)
	p := r.retryObj(def, name)
	if p != nil {
		r.retries[name] = p
	}
	return p
}

func (r *Resolver) retryObj(o rawObj, name string) *model.RetryPolicy {
	p := builtinRetry()
	if ext, ok := o.m["extends"]; ok {
		en, ok := ext.(string)
		if !ok {
			r.errorf(o.ptr+"/extends", "", "extends must be a policy name, got %s", show(ext))
		} else if base := r.namedRetry(en, o.ptr+"/extends"); base != nil {
			p = *base
		}
	}
	rp := runtimeRetry(&p)
	r.policyErrors(o.ptr, rp.Decode(policyKeys(o.m), "extends"))
	p = modelRetry(rp, name)
	r.lintRetry(o, &p)
	return &p
}

// useExtended counts the policy an inline policy object extends as used:
// an operation that writes {extends: nova} uses nova.
func (r *Resolver) useExtended(kind string, inline map[string]any) {
	if name, ok := inline["extends"].(string); ok {
		r.Used[kind+"/"+name]++
	}
}

// Op is one operation as the resolver needs it.
type Op struct {
	ID, Method, Path string
	Item             *openapi3.PathItem
	Op               *openapi3.Operation
	// Params are the operation's parameters: the path item's, overridden
	// by the operation's by (in, name).
	Params []*openapi3.Parameter
}

// Resolved is one operation's resolved policy.
type Resolved struct {
	Policy *model.OpPolicy
	// KeyHeader is the header the idempotency key travels in when the
	// operation has one: the nearest layer's idempotencyKey when it names
	// a header, else idempotencyKeyHeader. KeyParam is the declared header
	// parameter of that name (case-insensitively), nil when there is none:
	// then the key, if the policy wants one, needs a parameter of its own.
	KeyHeader string
	KeyParam  *openapi3.Parameter
}

// Diags are the findings of every resolution so far.
func (r *Resolver) Diags() diag.Diagnostics { return r.diags }

// Instances are the breaker instances the operations resolved so far use,
// sorted by instance name.
func (r *Resolver) Instances() []*model.BreakerInstance {
	out := make([]*model.BreakerInstance, 0, len(r.instances))
	for _, inst := range slices.Sorted(maps.Keys(r.instances)) {
		out = append(out, r.instances[inst])
	}
	return out
}

// Operation resolves the policy of one operation.
func (r *Resolver) Operation(op Op) Resolved {
	in := opInput{name: op.ID, method: op.Method, path: op.Path, params: op.Params,
		opPtr: diag.PointerJoin("/paths", op.Path, strings.ToLower(op.Method)), pathPtr: diag.PointerJoin("/paths", op.Path)}
	if op.Item != nil {
		in.pathExt = op.Item.Extensions[extName]
	}
	if op.Op != nil {
		in.opExt = op.Op.Extensions[extName]
	}
	return r.operation(in)
}

// opInput is what the resolver needs to know of one operation.
type opInput struct {
	name, method, path string
	opPtr, pathPtr     string
	pathExt, opExt     any // raw extension values; nil when absent
	params             []*openapi3.Parameter
}

// operation resolves the policy of one operation.
func (r *Resolver) operation(in opInput) Resolved {
	layers := []rawObj{r.defaults}
	for _, l := range []struct {
		v   any
		ptr string
	}{{in.pathExt, in.pathPtr}, {in.opExt, in.opPtr}} {
		if l.v == nil {
			layers = append(layers, rawObj{})
			continue
		}
		o, ok := r.object(l.ptr+"/"+extName, l.v, "x-resilience")
		if ok {
			r.checkKeys(o, opPolicyKeys, "operation policy")
		}
		layers = append(layers, o)
	}
	// pick returns the highest layer's value of key, its pointer and layer.
	pick := func(key string) (any, string, int) {
		for i := len(layers) - 1; i >= 0; i-- {
			if v, ok := layers[i].m[key]; ok {
				return v, layers[i].ptr + "/" + esc(key), i
			}
		}
		return nil, "", -1
	}
	// The runtime reads and checks the timeouts, as it does overrides.
	ts := runtime.OperationSpec{Timeout: defaultTimeout, TotalTimeout: defaultTotalTimeout}
	for _, k := range []string{"timeout", "totalTimeout"} {
		if v, ptr, _ := pick(k); ptr != "" {
			r.policyErrors(strings.TrimSuffix(ptr, "/"+k), ts.DecodeTimeouts(map[string]any{k: v}))
		}
	}
	pol := &model.OpPolicy{Timeout: ts.Timeout, TotalTimeout: ts.TotalTimeout}

	// Idempotency.
	var idem *bool
	if v, ptr, _ := pick("idempotent"); ptr != "" {
		if b, ok := v.(bool); ok {
			idem = &b
		} else {
			r.errorf(ptr, "", "idempotent must be true or false, got %s", show(v))
		}
	}
	// A declared header named as the key header carries the key: a key
	// of its own would be a second field for the same header.
	res := Resolved{KeyHeader: r.keyHeader}
	if v, _, _ := pick("idempotencyKey"); v != nil {
		if name, ok := v.(string); ok {
			res.KeyHeader = name
		}
	}
	for _, p := range in.params {
		if p.In == "header" && strings.EqualFold(p.Name, res.KeyHeader) {
			res.KeyParam = p
		}
	}
	keyHeader := ""
	if res.KeyParam != nil {
		keyHeader = res.KeyParam.Name
	}
	if v, ptr, _ := pick("idempotencyKey"); ptr != "" {
		switch kv := v.(type) {
		case bool:
			if kv && keyHeader == "" {
				keyHeader = r.keyHeader
			}
		case string:
			if validHeaderName(kv) {
				keyHeader = kv
			} else {
				r.errorf(ptr, "", "idempotencyKey must be true, false or a header name, got %s", show(v))
			}
		default:
			r.errorf(ptr, "", "idempotencyKey must be true, false or a header name, got %s", show(v))
		}
	}
	pol.IdempotencyHeader = keyHeader

	safe, why := false, ""
	switch {
	case idem != nil && !*idem:
		why = "idempotent: false: off"
	case safeMethods[in.method]:
		safe, why = true, in.method
	case keyHeader != "":
		safe, why = true, keyHeader+" header"
	case idem != nil && *idem:
		safe, why = true, "idempotent: true"
	default:
		why = in.method + " without key: off"
	}
	pol.NotRetrySafe = !safe
	if safe && keyHeader != "" && !safeMethods[in.method] {
		why = keyHeader + " header"
	}
	if safe && idem != nil && *idem && keyHeader == "" && !safeMethods[in.method] {
		why = "idempotent: true"
	}

	// Breaker.
	bv, bptr, blayer := pick("breaker")
	if bptr == "" {
		bv = "default"
	}
	var bp *model.BreakerPolicy
	switch b := bv.(type) {
	case string:
		if b != "none" {
			bp = r.namedBreaker(b, bptr)
			r.Used["breakers/"+b]++
		}
	case map[string]any:
		owner := [...]string{"defaults", in.path, in.name}[blayer]
		bp = r.breakerObj(rawObj{ptr: bptr, m: b}, owner)
		r.useExtended("breakers", b)
	default:
		r.errorf(bptr, "", "breaker must be a policy name, none, or a policy object, got %s", show(bv))
	}
	if bp != nil {
		inst := bp.Name
		if bp.Scope == "operation" {
			inst = bp.Name + "/" + in.name
		}
		bi := r.instances[inst]
		if bi == nil {
			bi = &model.BreakerInstance{Instance: inst, Policy: bp}
			r.instances[inst] = bi
		}
		pol.Breaker = bi
	}

	// Retry.
	rv, rptr, rlayer := pick("retry")
	if rptr == "" {
		rv = "default"
	}
	if s, ok := rv.(string); ok && s == "none" {
		pol.RetryWhy = "retry: none"
		res.Policy = pol
		return res
	}
	if !safe {
		if rlayer == len(layers)-1 {
			reason := "a " + in.method + " without an idempotency key"
			if idem != nil && !*idem {
				reason = "it is marked idempotent: false"
			}
			r.errorf(rptr, retryFixHints, "retry on %s %s, which is not retry-safe: %s", in.method, in.path, reason)
		}
		pol.RetryWhy = why
		res.Policy = pol
		return res
	}
	pol.RetryWhy = why
	switch rr := rv.(type) {
	case string:
		pol.Retry = r.namedRetry(rr, rptr)
		r.Used["retries/"+rr]++
	case map[string]any:
		owner := [...]string{"defaults", in.path, in.name}[rlayer]
		pol.Retry = r.retryObj(rawObj{ptr: rptr, m: rr}, owner)
		r.useExtended("retries", rr)
	default:
		r.errorf(rptr, "", "retry must be a policy name, none, or a policy object, got %s", show(rv))
	}
	res.Policy = pol
	return res
}

// Value readers. Each reports its own error and leaves dst unchanged.

func (r *Resolver) enum(ptr string, v any, dst *string, allowed ...string) {
	s, ok := v.(string)
	if ok && slices.Contains(allowed, s) {
		*dst = s
		return
	}
	msg := fmt.Sprintf("%s must be one of %s, got %s", lastTok(ptr), strings.Join(allowed, ", "), show(v))
	if ok {
		if sg := suggest(s, allowed); sg != "" {
			msg += fmt.Sprintf("; did you mean %q?", sg)
		}
	}
	r.errorf(ptr, "", "%s", msg)
}

func show(v any) string { return rawval.Show(v) }

func lastTok(ptr string) string {
	t := ptr[strings.LastIndex(ptr, "/")+1:]
	return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func suggest(s string, known []string) string { return rawval.Suggest(s, known) }
