package policy

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/internal/human"
	"github.com/resgen/resgen/internal/rawval"
	"github.com/resgen/resgen/runtime"
	yaml "go.yaml.in/yaml/v4"
)

// Lint warnings: policies that are valid but do not do what their author
// most likely meant. Each is a warning; -strict makes them errors.

func (r *Resolver) warnf(ptr, hint, format string, args ...any) {
	r.diags = append(r.diags, r.s.Diag(diag.Warning, ptr, fmt.Sprintf(format, args...), hint))
}

// lintBreaker checks one breaker policy object where it is written.
func (r *Resolver) lintBreaker(o rawObj, p *model.BreakerPolicy) {
	if p.WindowType == runtime.CountWindow && p.MinimumCalls > p.WindowSize {
		ptr := o.ptr + "/minimumCalls"
		if _, ok := o.m["minimumCalls"]; !ok {
			ptr = o.ptr + "/windowSize"
		}
		r.warnf(ptr, fmt.Sprintf("set minimumCalls to at most %d, or make the window larger", p.WindowSize),
			"minimumCalls %d is more than windowSize %d: the breaker decides after %d calls, as if minimumCalls were %d", p.MinimumCalls, p.WindowSize, p.WindowSize, p.WindowSize)
	}
}

// lintRetry checks one retry policy object where it is written.
func (r *Resolver) lintRetry(o rawObj, p *model.RetryPolicy) {
	if p.Jitter == runtime.NoJitter && p.MaxAttempts > 2 {
		ptr := o.ptr + "/jitter"
		if _, ok := o.m["jitter"]; !ok {
			ptr = o.ptr + "/maxAttempts"
		}
		r.warnf(ptr, "use jitter: full (the default) or decorrelated",
			"jitter: none with %d attempts: clients that failed together retry together, in synchronised waves", p.MaxAttempts)
	}
	if p.MaxAttempts > 1 && p.InitialInterval == 0 {
		ptr := o.ptr + "/initialInterval"
		if _, ok := o.m["initialInterval"]; !ok {
			ptr = o.ptr + "/maxAttempts"
		}
		r.warnf(ptr, "give initialInterval a wait, e.g. 100ms",
			"initialInterval 0 with %d attempts: every retry goes out at once, with no wait for the server to recover", p.MaxAttempts)
	}
	for _, tok := range p.RetryOn.Tokens() {
		if n, err := strconv.Atoi(tok); err == nil && n >= 400 && n < 500 && n != 408 && n != 429 || tok == "4xx" {
			ptr := o.ptr + "/retryOn"
			if list, ok := o.m["retryOn"].([]any); ok {
				for j, e := range list {
					if writtenToken(e) == tok {
						ptr = fmt.Sprintf("%s/retryOn/%d", o.ptr, j)
					}
				}
			}
			r.warnf(ptr, "keep 408 and 429; a request that failed with "+tok+" fails the same way again",
				"retryOn includes %s: a client error is not fixed by sending the same request again", tok)
		}
	}
}

// writtenToken is an outcome of a list as Match.Tokens prints it: "4XX"
// is 4xx, 404.0 is 404.
func writtenToken(v any) string {
	if s, ok := v.(string); ok {
		return strings.ToLower(strings.TrimSpace(s))
	}
	return rawval.Show(v)
}

// worstCase is the longest a call can take under rp and a per-attempt
// timeout: every attempt timing out, every wait at its maximum. Sums
// saturate at the largest Duration, and once the waits stop changing (the
// cap reached, constant backoff) the rest is one multiplication, so a
// policy of 2^31 attempts costs no more than one of 3.
func worstCase(rp *runtime.RetryPolicy, timeout time.Duration) time.Duration {
	n := int64(rp.MaxAttempts)
	total := mulDur(timeout, float64(n))
	w, limit := rp.InitialInterval, rp.MaxInterval
	for k := int64(1); k < n; k++ {
		wait := w
		if limit > 0 && (wait > limit || rp.Jitter == runtime.DecorrelatedJitter) {
			// Decorrelated jitter may wait up to the cap from the first retry.
			wait = limit
		}
		next := w
		if rp.Backoff == runtime.ExponentialBackoff {
			next = mulDur(w, rp.Multiplier)
		}
		left := n - k // waits still to add, this one included
		switch {
		case next == w || wait == limit:
			return addDur(total, mulDur(wait, float64(left)))
		case k > 1000:
			// Still growing (a multiplier just above 1): the rest of the
			// geometric series, capped.
			steps := float64(left)
			if limit > 0 {
				steps = min(steps, math.Ceil(math.Log(float64(limit)/float64(w))/math.Log(rp.Multiplier)))
			}
			grown := mulDur(w, (math.Pow(rp.Multiplier, steps)-1)/(rp.Multiplier-1))
			return addDur(addDur(total, grown), mulDur(limit, float64(left)-steps))
		}
		total = addDur(total, wait)
		w = next
	}
	return total
}

// mulDur is d × f, saturating at the largest Duration.
func mulDur(d time.Duration, f float64) time.Duration {
	if p := float64(d) * f; p < math.MaxInt64 {
		return time.Duration(p)
	}
	return math.MaxInt64
}

// addDur is a + b for non-negative durations, saturating.
func addDur(a, b time.Duration) time.Duration {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// lintOperations runs the checks that need an operation's whole policy
// (resolved[i] is ops[i]'s), once per distinct combination so a big spec
// gets one line per mistake, not one per operation.
func (r *Resolver) lintOperations(ops []load.Operation, resolved []Resolved) {
	bdef := builtinBreaker()
	_, retryRedefined := r.retryDefs["default"]
	type group struct {
		ptr  string
		ops  []string
		emit func(ptr string, ops []string)
	}
	groups := map[string]*group{}
	var order []string
	add := func(key, ptr, op string, emit func(string, []string)) {
		g := groups[key]
		if g == nil {
			g = &group{ptr: ptr, emit: emit}
			groups[key] = g
			order = append(order, key)
		}
		g.ops = append(g.ops, op)
	}
	for i, op := range ops {
		p := &resolved[i].Policy
		opPtr := op.Ptr()
		if b := p.Breaker; b != nil && p.Timeout > 0 && b.Policy.SlowCallDuration >= p.Timeout &&
			(b.Policy.SlowCallDuration != bdef.SlowCallDuration || b.Policy.SlowCallRateThreshold != bdef.SlowCallRateThreshold) {
			bp, to := b.Policy, p.Timeout
			add(fmt.Sprintf("slow/%s/%s", bp.Policy, to), r.policyPtr("breakers", bp.Policy, "slowCallDuration", opPtr), op.ID, func(ptr string, ops []string) {
				r.warnf(ptr, fmt.Sprintf("make slowCallDuration shorter than %s, or the timeout longer", human.Duration(to)),
					"slowCallDuration %s of breaker %q is not shorter than the timeout %s of %s: a slow call times out first, so the slow-call rate can never count it", human.Duration(bp.SlowCallDuration), bp.Policy, human.Duration(to), opList(ops))
			})
		}
		if rp := p.Retry; rp != nil && rp.MaxAttempts > 1 && p.Timeout == 0 && p.TotalTimeout == 0 {
			add("untimed/"+rp.Policy, r.policyPtr("retries", rp.Policy, "maxAttempts", opPtr), op.ID, func(ptr string, ops []string) {
				r.warnf(ptr, "set a timeout or a totalTimeout on the operations",
					"retry %q makes up to %d attempts with neither a timeout nor a totalTimeout on %s: an attempt that hangs holds the call forever, and nothing bounds how long the retries take", rp.Policy, rp.MaxAttempts, opList(ops))
			})
		}
		if rp := p.Retry; rp != nil && p.Timeout > 0 && p.TotalTimeout > 0 {
			worst := worstCase(&rp.RetryPolicy, p.Timeout)
			// The contract's own defaults overrun by the last wait (3 × 10s +
			// 300ms > 30s); warning on every unannotated spec would be noise.
			builtin := rp.Policy == "default" && !retryRedefined && p.Timeout == defaultTimeout && p.TotalTimeout == defaultTotalTimeout
			if worst > p.TotalTimeout && !builtin {
				total := p.TotalTimeout
				add(fmt.Sprintf("worst/%s/%s/%s", rp.Policy, p.Timeout, total), r.policyPtr("retries", rp.Policy, "maxAttempts", opPtr), op.ID, func(ptr string, ops []string) {
					r.warnf(ptr, "lower maxAttempts or the timeout, or raise totalTimeout",
						"retry %q can take %s (%d attempts × %s timeout + waits), longer than the totalTimeout %s of %s: the last attempt can be cut short, or never start", rp.Policy, human.Duration(worst), rp.MaxAttempts, human.Duration(p.Timeout), human.Duration(total), opList(ops))
				})
			}
		}
	}
	for _, k := range order {
		g := groups[k]
		g.emit(g.ptr, g.ops)
	}
	// Policies nobody uses.
	for _, kind := range []string{"breakers", "retries"} {
		defs := r.breakerDefs
		if kind == "retries" {
			defs = r.retryDefs
		}
		for _, name := range slices.Sorted(maps.Keys(defs)) {
			if r.Used[kind+"/"+name] == 0 && !r.extended(kind, name, map[string]bool{}) {
				word := map[string]string{"breakers": "breaker", "retries": "retry"}[kind]
				r.warnf(defs[name].ptr, "use it with x-resilience: {"+word+": "+name+"}, or delete it",
					"%s policy %q is defined but no operation uses it", word, name)
			}
		}
	}
}

// extended reports whether a used policy extends name, directly or not;
// seen stops at extends cycles (reported as errors elsewhere).
func (r *Resolver) extended(kind, name string, seen map[string]bool) bool {
	if seen[name] {
		return false
	}
	seen[name] = true
	defs := r.breakerDefs
	if kind == "retries" {
		defs = r.retryDefs
	}
	for other, d := range defs {
		if ext, _ := d.m["extends"].(string); ext == name && (r.Used[kind+"/"+other] > 0 || r.extended(kind, other, seen)) {
			return true
		}
	}
	return false
}

// policyPtr is Result.PolicyPtr while resolving.
func (r *Resolver) policyPtr(kind, name, key, opPtr string) string {
	return defPtr(r.breakerDefs, r.retryDefs, kind, name, key, opPtr)
}

// PolicyPtr points at key of a named policy's definition (kind breakers
// or retries), at the definition when it does not set key, or at opPtr,
// the operation, when the policy is built in or inline.
func (res *Result) PolicyPtr(kind, name, key, opPtr string) string {
	return defPtr(res.breakerDefs, res.retryDefs, kind, name, key, opPtr)
}

func defPtr(breakerDefs, retryDefs map[string]rawObj, kind, name, key, opPtr string) string {
	defs := breakerDefs
	if kind == "retries" {
		defs = retryDefs
	}
	if d, ok := defs[name]; ok {
		if _, has := d.m[key]; has {
			return d.ptr + "/" + key
		}
		return d.ptr
	}
	return opPtr
}

func opList(ops []string) string {
	sort.Strings(ops)
	if len(ops) == 1 {
		return "operation " + ops[0]
	}
	if len(ops) <= 3 {
		return "operations " + strings.Join(ops, ", ")
	}
	return fmt.Sprintf("%d operations (%s, …)", len(ops), strings.Join(ops[:2], ", "))
}

// lintExtensionNames warns about a near miss of x-resilience (x-resiliance,
// X-Resilience, x_resilience) where resgen reads it: the root, each path
// item and each operation. resgen ignores such a key, so the policy its
// author meant would silently not apply.
func (r *Resolver) lintExtensionNames() {
	root := r.s.Tree()
	if root == nil {
		return
	}
	r.nearMisses(root, "")
	paths := load.MapValue(root, "paths")
	if paths == nil || paths.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(paths.Content); i += 2 {
		item, itemPtr := paths.Content[i+1], diag.PointerJoin("/paths", paths.Content[i].Value)
		r.nearMisses(item, itemPtr)
		for j := 0; item.Kind == yaml.MappingNode && j+1 < len(item.Content); j += 2 {
			if m := item.Content[j].Value; load.OperationKeys[m] {
				r.nearMisses(item.Content[j+1], diag.PointerJoin(itemPtr, m))
			}
		}
	}
}

// nearMisses warns about each key of the mapping n (at ptr) that is a near
// miss of x-resilience.
func (r *Resolver) nearMisses(n *yaml.Node, ptr string) {
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; isNearMiss(k, extName) {
			r.warnf(diag.PointerJoin(ptr, k), "rename it to "+extName+"; resgen reads no other spelling",
				"unknown extension %q: did you mean %s?", k, extName)
		}
	}
}

// isNearMiss reports whether key is not name but differs from it only in
// case, in _ for -, or by at most two edits.
func isNearMiss(key, name string) bool {
	if key == name {
		return false
	}
	k := strings.ReplaceAll(strings.ToLower(key), "_", "-")
	return k == name || rawval.EditDistance(k, name) <= 2
}
