package policy

// Named policies (x-resilience.breakers and .retries): the built-in ones,
// resolution by name with extends and cycle detection, and policy objects,
// named or inline, resolved over the policy they extend.

import (
	"maps"
	"slices"
	"strings"

	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/internal/rawval"
	"github.com/resgen/resgen/runtime"
	"github.com/resgen/resgen/runtime/impl"
)

// The built-in policies are the runtime's: one definition of the defaults.
func builtinBreaker() model.BreakerPolicy {
	return model.BreakerPolicy{BreakerPolicy: runtime.DefaultBreakerPolicy(), Scope: "shared"}
}

func builtinRetry() model.RetryPolicy {
	return model.RetryPolicy{RetryPolicy: runtime.DefaultRetryPolicy()}
}

// namedBreaker resolves a breaker policy by name; from is the pointer of
// the reference, "" when resolving a definition.
func (r *Resolver) namedBreaker(name, from string) *model.BreakerPolicy {
	return named(r, "breakers", "breaker", name, from, r.breakers, r.breakerDefs, builtinBreaker, r.breakerObj)
}

// namedRetry is namedBreaker for retry policies.
func (r *Resolver) namedRetry(name, from string) *model.RetryPolicy {
	return named(r, "retries", "retry", name, from, r.retries, r.retryDefs, builtinRetry, r.retryObj)
}

// named resolves a policy of one kind ("breakers" or "retries", one
// policy a "breaker" or "retry") by name, once: done caches what
// resolved, defs are the spec's definitions, builtin makes "default"
// when the spec does not define it, and obj resolves a definition.
func named[P any](r *Resolver, kind, what, name, from string, done map[string]*P, defs map[string]rawObj, builtin func() P, obj func(rawObj, string) *P) *P {
	if p, ok := done[name]; ok {
		return p
	}
	def, ok := defs[name]
	if !ok {
		if name == "default" {
			p := builtin()
			done[name] = &p
			return &p
		}
		if from != "" {
			r.errorf(from, "define it under x-resilience."+kind+", or use one of: "+strings.Join(r.names(defs), ", "), "unknown %s policy %q", what, name)
		}
		return nil
	}
	key := kind + "/" + name
	if r.resolving[key] {
		r.errorf(def.ptr+"/extends", "remove one of the extends", "%s policy %q extends itself: %s", what, name, r.cycle(kind, name))
		return nil
	}
	r.resolving[key] = true
	defer delete(r.resolving, key)
	p := obj(def, name)
	if p != nil {
		done[name] = p
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
			r.errorf(o.ptr+"/extends", "", "extends must be a policy name, got %s", rawval.Show(ext))
		} else if base := r.namedBreaker(en, o.ptr+"/extends"); base != nil {
			p = *base
		}
	}
	if v, ok := o.m["scope"]; ok {
		r.enum(o.ptr+"/scope", v, &p.Scope, "shared", "operation")
	}
	r.policyErrors(o.ptr, impl.DecodeBreaker(&p.BreakerPolicy, policyKeys(o.m), "extends", "scope"))
	p.Policy = name
	r.lintBreaker(o, &p)
	return &p
}

func (r *Resolver) retryObj(o rawObj, name string) *model.RetryPolicy {
	p := builtinRetry()
	if ext, ok := o.m["extends"]; ok {
		en, ok := ext.(string)
		if !ok {
			r.errorf(o.ptr+"/extends", "", "extends must be a policy name, got %s", rawval.Show(ext))
		} else if base := r.namedRetry(en, o.ptr+"/extends"); base != nil {
			p = *base
		}
	}
	// Decode replaces lists and the budget rather than writing into them,
	// so p shares nothing it changes with the policy it extends.
	r.policyErrors(o.ptr, impl.DecodeRetry(&p.RetryPolicy, policyKeys(o.m), "extends"))
	p.Policy, p.Var, p.Const = name, "", ""
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
