// Package policy is the only reader of x-resilience, and a stage of its
// own: Resolve takes a loaded spec (*load.Spec) and resolves the policy
// of every operation up front into a Result that later stages only read.
// Per operation: breaker instance and retry policy as model types,
// timeouts, whether retrying is safe and why, and the idempotency key's
// header with the declared header parameter that carries it, if any,
// checked against that header's schema (key.go). It decodes and checks
// every key with its position, resolves built-in defaults → root
// defaults → path item → operation, extends, inline and named policies,
// and lints the policies it resolved (lint.go). The built-in policies are
// the runtime's own (runtime.DefaultBreakerPolicy,
// runtime.DefaultRetryPolicy).
package policy

import (
	"fmt"
	"maps"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/internal/rawval"
)

// This file holds the package's API: Resolve, Result and Resolved, and
// the Resolver that does the work (newResolver reads the root
// x-resilience). decode.go reads raw extension values, named.go resolves
// named and inline policies, resolve.go layers one operation's policy,
// key.go checks its idempotency key, lint.go warns. The policies are the
// runtime's own types (model.BreakerPolicy embeds runtime.BreakerPolicy):
// the runtime's Decode reads each policy object straight into the value
// the client will register.

const extName = "x-resilience"

var rootKeys = []string{"idempotencyKeyHeader", "defaults", "breakers", "retries"}

// rawObj is one x-resilience object as decoded, with its JSON pointer.
type rawObj struct {
	ptr string
	m   map[string]any
}

// Resolver is the working state of one Resolve: what it has read of the
// root x-resilience, the named policies resolved so far and the findings.
// Only Resolve makes one; what it gives is the Result.
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

// Result is the resolved policy of every operation of a spec, and what
// resolving it found. Resolve fills it and nothing changes it afterwards:
// its methods return copies (a Resolved is a value), and the model values
// those point at (breaker instances, retry policies, shared between
// operations) are read only: a stage that adds to them (build names them
// and counts their operations) works on copies of its own.
type Result struct {
	ops       map[opKey]Resolved
	instances []*model.BreakerInstance
	diags     diag.Diagnostics
	// The definitions of named policies, as written, for PolicyPtr.
	breakerDefs, retryDefs map[string]rawObj
}

type opKey struct{ method, path string }

// Resolve resolves the policy of every operation of s (load's
// Operations): layers, retry safety, the idempotency key and the checks
// of its header; then lints the policies as a whole. Every named policy
// is resolved, used or not, so mistakes in unused ones are reported too.
func Resolve(s *load.Spec) *Result {
	r := newResolver(s)
	ops := s.Operations()
	resolved := make([]Resolved, len(ops))
	for i, o := range ops {
		resolved[i] = r.resolveOperation(o)
	}
	r.lintOperations(ops, resolved)
	res := &Result{ops: make(map[opKey]Resolved, len(ops)), instances: r.instanceList(), diags: r.diags,
		breakerDefs: r.breakerDefs, retryDefs: r.retryDefs}
	for i, o := range ops {
		res.ops[opKey{o.Method, o.Path}] = resolved[i]
	}
	return res
}

// Operation is the resolved policy of the operation method (upper case)
// of the path key path; false when the spec has no such operation.
func (res *Result) Operation(method, path string) (Resolved, bool) {
	r, ok := res.ops[opKey{method, path}]
	return r, ok
}

// Instances are the breaker instances the operations use, sorted by
// instance name.
func (res *Result) Instances() []*model.BreakerInstance { return slices.Clone(res.instances) }

// Diags are the findings of resolving and linting the policies.
func (res *Result) Diags() diag.Diagnostics { return slices.Clone(res.diags) }

func (r *Resolver) errorf(ptr, hint, format string, args ...any) {
	r.diags = append(r.diags, r.s.Diag(diag.Error, ptr, fmt.Sprintf(format, args...), hint))
}

// newResolver reads the root x-resilience of s and resolves every named
// policy, so mistakes in unused ones are reported too.
func newResolver(s *load.Spec) *Resolver {
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
		} else if msg := load.LongName("idempotencyKeyHeader", hs); ok && msg != "" {
			r.errorf(root.ptr+"/idempotencyKeyHeader", load.LongNameHint, "%s", msg)
		} else {
			r.errorf(root.ptr+"/idempotencyKeyHeader", "", "idempotencyKeyHeader must be an HTTP header name, got %s", rawval.Show(h))
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
			if msg := load.LongName("the name of a "+kind[:len(kind)-1]+" policy", name); msg != "" {
				r.errorf(o.ptr+"/"+esc(name), load.LongNameHint, "%s", msg)
				continue
			}
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

// Resolved is one operation's resolved policy.
type Resolved struct {
	Policy model.OpPolicy
	// KeyParam is the declared header parameter that carries the
	// idempotency key (its name matched case-insensitively), nil when
	// there is none or its schema cannot hold a key: then the key, if the
	// policy wants one (Policy.IdempotencyHeader), needs a parameter of
	// its own.
	KeyParam *openapi3.Parameter
	// ResumeAt is where the operation itself sets resume: true, "" when
	// it does not: the builder warns there when the operation streams
	// no events.
	ResumeAt string
	// IdleAt is where the operation itself sets an idleTimeout, "" when
	// it does not: the builder warns there when no answer is handed over.
	IdleAt string

	// keyHeader is the header the key travels in when the operation has
	// one: the nearest layer's idempotencyKey when it names a header, else
	// idempotencyKeyHeader.
	keyHeader string
	// intKey is set when KeyParam's schema is an integer (or number): a
	// key the client makes is a random integer from keyLo to keyHi.
	intKey       bool
	keyLo, keyHi int64

	method string
	idem   *bool // idempotent: as the policy says, nil when it says nothing
}

// KeyInts is the range of the random integer the client makes as a key
// when KeyParam's schema is an integer or a number; ok is false when the
// key is text (a UUID).
func (res Resolved) KeyInts() (lo, hi int64, ok bool) { return res.keyLo, res.keyHi, res.intKey }

// dropKey makes Policy that of an operation whose declared key header
// cannot carry a key (its schema takes no string or integer): the header
// is an ordinary one, and the operation is retry-safe only by its method
// or idempotent: true. It reports whether that turned a retry off.
func (res *Resolved) dropKey() (retryOff bool) {
	p := &res.Policy
	res.KeyParam, p.IdempotencyHeader = nil, ""
	switch {
	case res.idem != nil && !*res.idem, safeMethods[res.method]:
		return false // the key did not make it retry-safe
	case res.idem != nil && *res.idem:
		p.RetryWhy = "idempotent: true"
		return false
	}
	retryOff = p.Retry != nil
	p.Retry, p.NotRetrySafe, p.RetryWhy = nil, true, res.method+" without key: off"
	return retryOff
}

// instanceList is the breaker instances the operations resolved so far
// use, sorted by instance name.
func (r *Resolver) instanceList() []*model.BreakerInstance {
	out := make([]*model.BreakerInstance, 0, len(r.instances))
	for _, inst := range slices.Sorted(maps.Keys(r.instances)) {
		out = append(out, r.instances[inst])
	}
	return out
}

// resolveOperation resolves the policy of operation o and settles its
// idempotency key.
func (r *Resolver) resolveOperation(o load.Operation) Resolved {
	res := r.operation(inputOf(o))
	r.checkKey(o, &res)
	return res
}

// inputOf is what the resolver needs to know of operation o.
func inputOf(o load.Operation) opInput {
	in := opInput{name: o.ID, method: o.Method, path: o.Path, params: o.Params,
		opPtr: o.Ptr(), pathPtr: diag.PointerJoin("/paths", o.Path)}
	if o.Item != nil {
		in.pathExt = o.Item.Extensions[extName]
	}
	if o.Op != nil {
		in.opExt = o.Op.Extensions[extName]
	}
	return in
}
