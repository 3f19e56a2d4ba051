package policy

// One operation's policy: built-in defaults → root defaults → path item →
// operation, key by key; timeouts, retry safety and why, the idempotency
// key's header and the declared parameter that carries it, the breaker
// instance and the retry policy.

import (
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/internal/rawval"
	"github.com/resgen/resgen/runtime/impl"
)

const (
	defaultTimeout      = 10 * time.Second
	defaultTotalTimeout = 30 * time.Second
	defaultKeyHeader    = "Idempotency-Key"
)

var (
	safeMethods   = map[string]bool{"GET": true, "HEAD": true, "OPTIONS": true, "TRACE": true, "PUT": true, "DELETE": true}
	retryFixHints = "make it retry-safe: declare an idempotency-key header parameter, set idempotencyKey: true, or set idempotent: true if repeating it is harmless; or remove retry"
)

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
	// The runtime reads and checks the timeouts and resume, as it does
	// overrides.
	ts := impl.OperationSpec{Timeout: defaultTimeout, TotalTimeout: defaultTotalTimeout}
	for _, k := range []string{"timeout", "totalTimeout", "idleTimeout", "resume"} {
		if v, ptr, _ := pick(k); ptr != "" {
			r.policyErrors(strings.TrimSuffix(ptr, "/"+k), impl.DecodeTimeouts(&ts, map[string]any{k: v}))
		}
	}
	res := Resolved{keyHeader: r.keyHeader, method: in.method}
	pol := &res.Policy
	*pol = model.OpPolicy{Timeout: ts.Timeout, TotalTimeout: ts.TotalTimeout, IdleTimeout: ts.IdleTimeout, Resume: ts.Resume}
	_, resumePtr, resumeLayer := pick("resume")
	if _, ptr, layer := pick("idleTimeout"); layer == len(layers)-1 && ts.IdleTimeout != 0 {
		res.IdleAt = ptr
	}

	// Idempotency.
	var idem *bool
	if v, ptr, _ := pick("idempotent"); ptr != "" {
		if b, ok := v.(bool); ok {
			idem = &b
		} else {
			r.errorf(ptr, "", "idempotent must be true or false, got %s", rawval.Show(v))
		}
	}
	res.idem = idem
	// A declared header named as the key header carries the key: a key
	// of its own would be a second field for the same header.
	if v, _, _ := pick("idempotencyKey"); v != nil {
		if name, ok := v.(string); ok {
			res.keyHeader = name
		}
	}
	for _, p := range in.params {
		if p.In == "header" && strings.EqualFold(p.Name, res.keyHeader) {
			res.KeyParam = p
		}
	}
	if kv, _, _ := pick("idempotencyKey"); safeMethods[in.method] && kv != true && !isString(kv) {
		// A GET (HEAD, PUT, DELETE...) is retry-safe by its method: a key
		// header it declares is an ordinary one, the caller's to set, sent
		// only when set (the same on every attempt), never made up. Only
		// a policy that asks for a key (idempotencyKey) gets one made.
		res.KeyParam = nil
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
			} else if msg := load.LongName("idempotencyKey", kv); msg != "" {
				r.errorf(ptr, load.LongNameHint, "%s", msg)
			} else {
				r.errorf(ptr, "", "idempotencyKey must be true, false or a header name, got %s", rawval.Show(v))
			}
		default:
			r.errorf(ptr, "", "idempotencyKey must be true, false or a header name, got %s", rawval.Show(v))
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
	if pol.Resume && !safe {
		// Resuming sends the request again: as retry, an error where the
		// operation asks for it, skipped where a default does.
		if resumeLayer == len(layers)-1 {
			reason := "a " + in.method + " without an idempotency key"
			if idem != nil && !*idem {
				reason = "it is marked idempotent: false"
			}
			r.errorf(resumePtr, strings.Replace(retryFixHints, "remove retry", "remove resume", 1), "resume on %s %s, which is not retry-safe: %s; resuming sends the request again", in.method, in.path, reason)
		}
		pol.Resume = false
	}
	if pol.Resume && resumeLayer == len(layers)-1 {
		res.ResumeAt = resumePtr
	}
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
		r.errorf(bptr, "", "breaker must be a policy name, none, or a policy object, got %s", rawval.Show(bv))
	}
	if bp != nil {
		inst := bp.Policy
		if bp.Scope == "operation" {
			inst = bp.Policy + "/" + in.name
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
		r.errorf(rptr, "", "retry must be a policy name, none, or a policy object, got %s", rawval.Show(rv))
	}
	return res
}

func isString(v any) bool { _, ok := v.(string); return ok }
