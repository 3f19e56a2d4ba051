package generator

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/runtime"
)

// The x-resilience extension, as ../shared/x-resilience.md defines it: this
// file reads the raw extension values, reports every mistake with its
// position, and resolves one policy per operation (built-in defaults → root
// defaults → path item → operation, key by key).

const extName = "x-resilience"

func builtinBreaker() model.BreakerPolicy {
	return model.BreakerPolicy{
		Name: "default", Scope: "shared", WindowType: "count", WindowSize: 100,
		WindowDuration: 60 * time.Second, MinimumCalls: 100, FailureRateThreshold: 50,
		SlowCallDuration: 60 * time.Second, SlowCallRateThreshold: 100,
		WaitInOpen: 60 * time.Second, HalfOpenCalls: 10,
		RecordOn: []string{"transport", "timeout", "5xx"},
	}
}

func builtinRetry() model.RetryPolicy {
	return model.RetryPolicy{
		Name: "default", MaxAttempts: 3, Backoff: "exponential",
		InitialInterval: 100 * time.Millisecond, Multiplier: 2, MaxInterval: 5 * time.Second,
		Jitter: "full", RetryOn: []string{"transport", "timeout", "408", "429", "500", "502", "503", "504"},
		RetryAfter: true, MaxRetryAfter: 30 * time.Second,
	}
}

// Bounds on the values a policy gives the runtime. The runtime allocates a
// breaker's window from windowSize (one entry per call) or windowDuration
// (one bucket per second) and admits halfOpenCalls trials (a uint32 in
// gobreaker), so a spec must not size them beyond what a client can hold:
// these are the runtime's own limits, which it also applies to policies
// built by hand. Every other duration is at most maxDuration, which keeps
// the runtime's clock arithmetic far from overflowing and catches a wrong
// unit (2000000h).
const (
	maxWindowSize     = runtime.MaxWindowSize
	maxWindowDuration = runtime.MaxWindowDuration
	maxHalfOpenCalls  = runtime.MaxHalfOpenCalls
	maxDuration       = 24 * time.Hour
)

var durationHint = "durations are at most " + dur(maxDuration) + "; is the unit right?"

const (
	defaultTimeout      = 10 * time.Second
	defaultTotalTimeout = 30 * time.Second
	defaultKeyHeader    = "Idempotency-Key"
)

var (
	rootKeys      = []string{"idempotencyKeyHeader", "defaults", "breakers", "retries"}
	opPolicyKeys  = []string{"breaker", "retry", "timeout", "totalTimeout", "idempotent", "idempotencyKey"}
	breakerKeys   = []string{"extends", "scope", "windowType", "windowSize", "windowDuration", "minimumCalls", "failureRateThreshold", "slowCallDuration", "slowCallRateThreshold", "waitInOpen", "halfOpenCalls", "recordOn"}
	retryKeys     = []string{"extends", "maxAttempts", "backoff", "initialInterval", "multiplier", "maxInterval", "jitter", "retryOn", "retryAfter", "maxRetryAfter", "budget"}
	budgetKeys    = []string{"ratio", "minPerSecond"}
	safeMethods   = map[string]bool{"GET": true, "HEAD": true, "OPTIONS": true, "TRACE": true, "PUT": true, "DELETE": true}
	retryFixHints = "make it retry-safe: declare an idempotency-key header parameter, set idempotencyKey: true, or set idempotent: true if repeating it is harmless; or remove retry"
)

// rawObj is one x-resilience object as decoded, with its JSON pointer.
type rawObj struct {
	ptr string
	m   map[string]any
}

// resolver resolves the policies of one spec.
type resolver struct {
	s     *spec
	diags Diagnostics

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

func (r *resolver) errorf(ptr, hint, format string, args ...any) {
	r.diags = append(r.diags, r.s.diag(Error, ptr, fmt.Sprintf(format, args...), hint))
}

func newResolver(s *spec) *resolver {
	r := &resolver{
		s: s, keyHeader: defaultKeyHeader,
		breakerDefs: map[string]rawObj{}, retryDefs: map[string]rawObj{},
		breakers: map[string]*model.BreakerPolicy{}, retries: map[string]*model.RetryPolicy{},
		resolving: map[string]bool{}, instances: map[string]*model.BreakerInstance{}, Used: map[string]int{},
	}
	r.lintExtensionNames()
	v, ok := s.doc.Extensions[extName]
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
		for _, name := range sortedKeys(o.m) {
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
	for _, name := range sortedKeys(r.breakerDefs) {
		r.namedBreaker(name, "")
	}
	for _, name := range sortedKeys(r.retryDefs) {
		r.namedRetry(name, "")
	}
	return r
}

func esc(tok string) string { return pointerJoin("", tok)[1:] }

func (r *resolver) object(ptr string, v any, what string) (rawObj, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		r.errorf(ptr, "", "%s must be an object, got %s", what, show(v))
		return rawObj{}, false
	}
	return rawObj{ptr: ptr, m: m}, true
}

// checkKeys reports unknown keys, with the nearest known key as suggestion.
func (r *resolver) checkKeys(o rawObj, known []string, what string) {
	for _, k := range sortedKeys(o.m) {
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
func (r *resolver) namedBreaker(name, from string) *model.BreakerPolicy {
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
func (r *resolver) cycle(kind, name string) string {
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

func (r *resolver) names(defs map[string]rawObj) []string {
	n := sortedKeys(defs)
	if !slices.Contains(n, "default") {
		n = append([]string{"default"}, n...)
	}
	return n
}

// breakerObj resolves one breaker policy object (a definition or inline).
func (r *resolver) breakerObj(o rawObj, name string) *model.BreakerPolicy {
	r.checkKeys(o, breakerKeys, "breaker policy")
	p := builtinBreaker()
	if ext, ok := o.m["extends"]; ok {
		en, ok := ext.(string)
		if !ok {
			r.errorf(o.ptr+"/extends", "", "extends must be a policy name, got %s", show(ext))
		} else if base := r.namedBreaker(en, o.ptr+"/extends"); base != nil {
			p = *base
			p.RecordOn = append([]string(nil), base.RecordOn...)
		}
	}
	p.Name = name
	_, hasSize := o.m["windowSize"]
	_, hasDur := o.m["windowDuration"]
	for _, k := range sortedKeys(o.m) {
		v, ptr := o.m[k], o.ptr+"/"+esc(k)
		switch k {
		case "scope":
			r.enum(ptr, v, &p.Scope, "shared", "operation")
		case "windowType":
			r.enum(ptr, v, &p.WindowType, "count", "time")
		case "windowSize":
			r.countUpTo(ptr, v, &p.WindowSize, maxWindowSize, "a count window holds one entry per call; for a busy client use windowType: time")
		case "windowDuration":
			r.positiveDuration(ptr, v, &p.WindowDuration, maxWindowDuration, "a time window holds one bucket per second: use at most "+dur(maxWindowDuration))
		case "minimumCalls":
			r.count(ptr, v, &p.MinimumCalls, 1)
		case "failureRateThreshold":
			r.percent(ptr, v, &p.FailureRateThreshold)
		case "slowCallDuration":
			r.positiveDuration(ptr, v, &p.SlowCallDuration, maxDuration, durationHint)
		case "slowCallRateThreshold":
			r.percent(ptr, v, &p.SlowCallRateThreshold)
		case "waitInOpen":
			r.positiveDuration(ptr, v, &p.WaitInOpen, maxDuration, durationHint)
		case "halfOpenCalls":
			r.countUpTo(ptr, v, &p.HalfOpenCalls, maxHalfOpenCalls, "each trial call is a request to a server that may still be failing; a few are enough")
		case "recordOn":
			r.outcomes(ptr, v, &p.RecordOn)
		}
	}
	if p.WindowType == "time" && hasSize {
		r.errorf(o.ptr+"/windowSize", "use windowDuration with a time window, or set windowType: count", "windowSize is for count windows, but windowType is time")
	}
	if p.WindowType == "count" && hasDur {
		r.errorf(o.ptr+"/windowDuration", "use windowSize with a count window, or set windowType: time", "windowDuration is for time windows, but windowType is count")
	}
	r.lintBreaker(o, &p)
	return &p
}

func (r *resolver) namedRetry(name, from string) *model.RetryPolicy {
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

func (r *resolver) retryObj(o rawObj, name string) *model.RetryPolicy {
	r.checkKeys(o, retryKeys, "retry policy")
	p := builtinRetry()
	if ext, ok := o.m["extends"]; ok {
		en, ok := ext.(string)
		if !ok {
			r.errorf(o.ptr+"/extends", "", "extends must be a policy name, got %s", show(ext))
		} else if base := r.namedRetry(en, o.ptr+"/extends"); base != nil {
			p = *base
			p.RetryOn = append([]string(nil), base.RetryOn...)
		}
	}
	p.Name = name
	for _, k := range sortedKeys(o.m) {
		v, ptr := o.m[k], o.ptr+"/"+esc(k)
		switch k {
		case "maxAttempts":
			r.count(ptr, v, &p.MaxAttempts, 1)
		case "backoff":
			r.enum(ptr, v, &p.Backoff, "constant", "exponential")
		case "initialInterval":
			r.duration(ptr, v, &p.InitialInterval)
		case "multiplier":
			if f, ok := number(v); ok && f >= 1 && !math.IsInf(f, 0) {
				p.Multiplier = f
			} else {
				r.errorf(ptr, "use a number of at least 1, e.g. 2", "multiplier must be a number ≥ 1, got %s", show(v))
			}
		case "maxInterval":
			r.duration(ptr, v, &p.MaxInterval)
		case "jitter":
			r.enum(ptr, v, &p.Jitter, "none", "full", "equal", "decorrelated")
		case "retryOn":
			r.outcomes(ptr, v, &p.RetryOn)
		case "retryAfter":
			if b, ok := v.(bool); ok {
				p.RetryAfter = b
			} else {
				r.errorf(ptr, "", "retryAfter must be true or false, got %s", show(v))
			}
		case "maxRetryAfter":
			r.duration(ptr, v, &p.MaxRetryAfter)
		case "budget":
			bo, ok := r.object(ptr, v, "budget")
			if !ok {
				continue
			}
			r.checkKeys(bo, budgetKeys, "budget")
			b := &model.Budget{Ratio: 0.2, MinPerSecond: 10}
			if rv, ok := bo.m["ratio"]; ok {
				if f, ok := number(rv); ok && f > 0 && f <= 1 {
					b.Ratio = f
				} else {
					r.errorf(bo.ptr+"/ratio", "", "budget ratio must be a number in (0, 1], got %s", show(rv))
				}
			}
			if mv, ok := bo.m["minPerSecond"]; ok {
				if f, ok := number(mv); ok && f >= 0 && !math.IsInf(f, 0) {
					b.MinPerSecond = f
				} else {
					r.errorf(bo.ptr+"/minPerSecond", "", "budget minPerSecond must be a number ≥ 0, got %s", show(mv))
				}
			}
			p.Budget = b
		}
	}
	r.lintRetry(o, &p)
	return &p
}

// useExtended counts the policy an inline policy object extends as used:
// an operation that writes {extends: nova} uses nova.
func (r *resolver) useExtended(kind string, inline map[string]any) {
	if name, ok := inline["extends"].(string); ok {
		r.Used[kind+"/"+name]++
	}
}

// opInput is what the resolver needs to know of one operation.
type opInput struct {
	name, method, path string
	opPtr, pathPtr     string
	pathExt, opExt     any  // raw extension values; nil when absent
	keyParam           bool // declares a header named like the idempotency key header
	keyParamName       string
}

// operation resolves the policy of one operation.
func (r *resolver) operation(in opInput) *model.OpPolicy {
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
	pol := &model.OpPolicy{Timeout: defaultTimeout, TotalTimeout: defaultTotalTimeout}
	if v, ptr, _ := pick("timeout"); ptr != "" {
		r.duration(ptr, v, &pol.Timeout)
	}
	if v, ptr, _ := pick("totalTimeout"); ptr != "" {
		r.duration(ptr, v, &pol.TotalTimeout)
	}

	// Idempotency.
	var idem *bool
	if v, ptr, _ := pick("idempotent"); ptr != "" {
		if b, ok := v.(bool); ok {
			idem = &b
		} else {
			r.errorf(ptr, "", "idempotent must be true or false, got %s", show(v))
		}
	}
	keyHeader := ""
	if in.keyParam {
		keyHeader = in.keyParamName
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
		return pol
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
		return pol
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
	return pol
}

// Value readers. Each reports its own error and leaves dst unchanged.

func (r *resolver) enum(ptr string, v any, dst *string, allowed ...string) {
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

func (r *resolver) count(ptr string, v any, dst *int, min int) {
	if n, ok := wholeIn(v, min, 1<<31-1); ok {
		*dst = n
		return
	}
	r.errorf(ptr, "", "%s must be a whole number ≥ %d, got %s", lastTok(ptr), min, show(v))
}

// countUpTo reads a whole number from 1 to max.
func (r *resolver) countUpTo(ptr string, v any, dst *int, max int, hint string) {
	if n, ok := wholeIn(v, 1, max); ok {
		*dst = n
		return
	}
	r.errorf(ptr, hint, "%s must be a whole number from 1 to %d, got %s", lastTok(ptr), max, show(v))
}

// wholeIn returns v as an int when it is a whole number from min to max.
func wholeIn(v any, min, max int) (int, bool) {
	f, ok := number(v)
	if ok && f == math.Trunc(f) && f >= float64(min) && f <= float64(max) {
		return int(f), true
	}
	return 0, false
}

// dur prints a bound as the contract writes it: 1h, 24h, 10m, 1h30m.
func dur(d time.Duration) string {
	s := d.String()
	// Only whole zero units go: "10m0s" keeps its "10m".
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func (r *resolver) percent(ptr string, v any, dst *float64) {
	f, ok := number(v)
	if ok && f > 0 && f <= 100 {
		*dst = f
		return
	}
	r.errorf(ptr, "percentages are numbers in (0, 100], e.g. 50", "%s must be a percentage in (0, 100], got %s", lastTok(ptr), show(v))
}

// duration reads a Go duration string of at most maxDuration; 0 (number
// or string) turns the thing off.
func (r *resolver) duration(ptr string, v any, dst *time.Duration) {
	r.durationUpTo(ptr, v, dst, maxDuration, durationHint)
}

// durationUpTo is duration with its own bound, and the hint for a value
// beyond it.
func (r *resolver) durationUpTo(ptr string, v any, dst *time.Duration, max time.Duration, hint string) {
	if f, ok := number(v); ok && f == 0 {
		*dst = 0
		return
	}
	s, ok := v.(string)
	if !ok {
		r.errorf(ptr, `write a Go duration string such as "200ms", "5s" or "1m30s"`, "%s must be a duration, got %s", lastTok(ptr), show(v))
		return
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		r.errorf(ptr, `write a Go duration string such as "200ms", "5s" or "1m30s"`, "%s: cannot parse duration %q", lastTok(ptr), s)
		return
	}
	if d < 0 {
		r.errorf(ptr, `durations are positive, e.g. "5s"; 0 turns a timeout off`, "%s must not be negative, got %s", lastTok(ptr), s)
		return
	}
	if d > max {
		r.errorf(ptr, hint, "%s must be at most %s, got %s", lastTok(ptr), dur(max), s)
		return
	}
	*dst = d
}

// positiveDuration reads a duration longer than 0 and at most max.
func (r *resolver) positiveDuration(ptr string, v any, dst *time.Duration, max time.Duration, hint string) {
	var d time.Duration = -1
	r.durationUpTo(ptr, v, &d, max, hint)
	if d == 0 {
		r.errorf(ptr, "", "%s must be longer than 0", lastTok(ptr))
		return
	}
	if d > 0 {
		*dst = d
	}
}

// outcomes reads a recordOn/retryOn list: transport, timeout, a status code
// (100-599) or a class (1xx-5xx).
func (r *resolver) outcomes(ptr string, v any, dst *[]string) {
	list, ok := v.([]any)
	if !ok {
		r.errorf(ptr, "e.g. [transport, timeout, 5xx, 429]", "%s must be a list of outcomes, got %s", lastTok(ptr), show(v))
		return
	}
	var out []string
	good := true
	for i, e := range list {
		tok, ok := outcomeToken(e)
		if !ok {
			r.errorf(fmt.Sprintf("%s/%d", ptr, i), "outcomes are transport, timeout, a status code such as 503, or a class such as 5xx", "unknown outcome %s in %s", show(e), lastTok(ptr))
			good = false
			continue
		}
		if !slices.Contains(out, tok) {
			out = append(out, tok)
		}
	}
	if good {
		*dst = out
	}
}

func outcomeToken(v any) (string, bool) {
	if f, ok := number(v); ok {
		if f == math.Trunc(f) && f >= 100 && f <= 599 {
			return strconv.Itoa(int(f)), true
		}
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		return "", false
	}
	s = strings.ToLower(strings.TrimSpace(s))
	switch {
	case s == "transport" || s == "timeout":
		return s, true
	case len(s) == 3 && s[0] >= '1' && s[0] <= '5' && s[1:] == "xx":
		return s, true
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 100 && n <= 599 {
		return s, true
	}
	return "", false
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	}
	return 0, false
}

func show(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(x)
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatFloat(x, 'f', -1, 64) // 4294967297, not 4.294967297e+09
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// suggest returns the known word nearest to s (case-insensitive edit
// distance at most 2, or a third of its length), or "".
func suggest(s string, known []string) string {
	// A shortened key ("failureRate") names the one it starts.
	if len(s) >= 4 {
		for _, k := range known {
			if strings.HasPrefix(strings.ToLower(k), strings.ToLower(s)) {
				return k
			}
		}
	}
	best, bestD := "", 1<<30
	for _, k := range known {
		d := editDistance(strings.ToLower(s), strings.ToLower(k))
		if d < bestD {
			best, bestD = k, d
		}
	}
	if bestD <= 2 || bestD <= len(s)/3 {
		return best
	}
	return ""
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
