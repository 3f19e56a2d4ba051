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
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/internal/rawval"
)

// This file holds the package's API: Resolver, New (which reads the root
// x-resilience), and Op, Resolved and Operation. decode.go reads raw
// extension values, named.go resolves named and inline policies,
// resolve.go layers one operation's policy, lint.go warns. The policies
// are the runtime's own types (model.BreakerPolicy embeds
// runtime.BreakerPolicy): the runtime's Decode reads each policy object
// straight into the value the client will register.

const extName = "x-resilience"

var rootKeys = []string{"idempotencyKeyHeader", "defaults", "breakers", "retries"}

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

	method string
	idem   *bool // idempotent: as the policy says, nil when it says nothing
}

// DropKey makes Policy that of an operation whose declared key header
// cannot carry a key (its schema takes no string or integer): the header
// is an ordinary one, and the operation is retry-safe only by its method
// or idempotent: true. It reports whether that turned a retry off.
func (res *Resolved) DropKey() (retryOff bool) {
	p := res.Policy
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
