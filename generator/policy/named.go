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
)

// The built-in policies are the runtime's: one definition of the defaults.
func builtinBreaker() model.BreakerPolicy {
	return modelBreaker(runtime.DefaultBreakerPolicy(), "default", "shared")
}

func builtinRetry() model.RetryPolicy {
	return modelRetry(runtime.DefaultRetryPolicy(), "default")
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
			r.errorf(o.ptr+"/extends", "", "extends must be a policy name, got %s", rawval.Show(ext))
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
			r.errorf(o.ptr+"/extends", "", "extends must be a policy name, got %s", rawval.Show(ext))
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
