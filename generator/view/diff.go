package view

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/internal/human"
	"github.com/resgen/resgen/runtime"
)

// The policy diff: what a spec change does to the resolved resilience
// policy of each operation, as `resgen diff` shows it to a reviewer. The
// comparison is here; diffrender.go writes it as text, markdown or JSON.

// PolicyDiff is the policy change from one model to another.
type PolicyDiff struct {
	// Old and New name the two sides as the user gave them.
	Old string `json:"old"`
	New string `json:"new"`
	// Changed is true when any operation's policy, any breaker, or the
	// set of operations differs.
	Changed bool `json:"changed"`
	// Operations are the operations on both sides whose policy differs,
	// in the new spec's order.
	Operations []DiffOp `json:"operations"`
	// Added are in the new spec's order, Removed in the old one's.
	Added   []DiffOp `json:"added"`
	Removed []DiffOp `json:"removed"`
	// Breakers are the breaker instances whose policy or members differ.
	Breakers []DiffBreaker `json:"breakers"`
	// Unchanged counts the operations on both sides with the same policy.
	Unchanged int `json:"unchanged"`
}

// DiffOp is one operation of the diff. For a changed operation, Changes
// are the fields that differ; for an added or removed one, every field
// (Old or New is nil on the side it is missing from).
type DiffOp struct {
	// Operation is the key the sides are matched by: the operationId,
	// else "METHOD path".
	Operation string       `json:"operation"`
	Method    string       `json:"method"`
	Path      string       `json:"path"`
	Changes   []DiffChange `json:"changes"`

	old, new *model.OpPolicy
}

// DiffChange is one field of a policy, on the old side and the new one.
// Values are JSON-ready: strings (durations as in the spec, "5s"),
// numbers, booleans, lists, a budget object, or nil where the field does
// not apply (no breaker, retry off).
type DiffChange struct {
	Field string `json:"field"`
	Old   any    `json:"old"`
	New   any    `json:"new"`
}

// DiffBreaker is a breaker instance whose policy or membership changed.
type DiffBreaker struct {
	Instance string `json:"instance"`
	// Status is changed (policy or members), added or removed.
	Status string `json:"status"`
	// Changes are the breaker policy's fields that differ (changed only).
	Changes []DiffChange `json:"changes"`
	// Operations are every operation behind the breaker, on the new side
	// (on the old side for a removed breaker): all that a changed policy
	// affects.
	Operations []string `json:"operations"`
	// Joined and Left are the operations that moved in or out of it.
	Joined []string `json:"joined"`
	Left   []string `json:"left"`

	scope string
}

// fieldKind says how a field's value is written in words.
type fieldKind uint8

const (
	kindText    fieldKind = iota
	kindTimeout           // a Go duration, 0 written none
	kindBool
	kindSetting // a key of a runtime policy, in its own words
)

// policyField is one compared field of an operation's policy. get
// returns nil where the field does not apply.
type policyField struct {
	name string
	kind fieldKind
	get  func(*model.OpPolicy) any
}

// setting is one key of a runtime policy on one side: its JSON value,
// which the JSON output shows, and its words, which text and markdown
// show.
type setting struct {
	json  any
	words string
}

func (s setting) MarshalJSON() ([]byte, error) { return json.Marshal(s.json) }

// settingOf finds key among the keys that apply to p (a runtime policy);
// nil when it does not apply or is not set (no budget).
func settingOf(p any, key string) any {
	for _, f := range model.PolicyFields(p) {
		if v := f.JSON(); f.Key == key && v != nil {
			return setting{v, f.Words()}
		}
	}
	return nil
}

func breakerField(name string, kind fieldKind, get func(*model.BreakerPolicy) any) policyField {
	return policyField{name, kind, func(p *model.OpPolicy) any {
		if p.Breaker == nil {
			return nil
		}
		return get(p.Breaker.Policy)
	}}
}

func retryField(name string, kind fieldKind, get func(*model.RetryPolicy) any) policyField {
	return policyField{name, kind, func(p *model.OpPolicy) any {
		if p.Retry == nil {
			return nil
		}
		return get(p.Retry)
	}}
}

func dur(d time.Duration) any { return human.Duration(d) }

// policyFields are the fields compared, in the order they are shown. The
// names are the spec's keys, so a reviewer knows where to look; breaker.
// and retry. ones belong to the breaker and retry policy, whose keys come
// from the runtime's description of its policies (model.PolicyKeys).
var policyFields = func() []policyField {
	fs := []policyField{
		{"breaker", kindText, func(p *model.OpPolicy) any {
			if p.Breaker == nil {
				return nil
			}
			return p.Breaker.Instance
		}},
		breakerField("breaker.policy", kindText, func(b *model.BreakerPolicy) any { return b.Policy }),
		breakerField("breaker.scope", kindText, func(b *model.BreakerPolicy) any { return b.Scope }),
	}
	for _, key := range model.PolicyKeys(runtime.BreakerPolicy{}) {
		fs = append(fs, breakerField("breaker."+key, kindSetting, func(b *model.BreakerPolicy) any { return settingOf(&b.BreakerPolicy, key) }))
	}
	fs = append(fs, retryField("retry", kindText, func(r *model.RetryPolicy) any { return r.Policy }))
	for _, key := range model.PolicyKeys(runtime.RetryPolicy{}) {
		fs = append(fs, retryField("retry."+key, kindSetting, func(r *model.RetryPolicy) any { return settingOf(&r.RetryPolicy, key) }))
	}
	return append(fs,
		policyField{"retryWhy", kindText, func(p *model.OpPolicy) any { return p.RetryWhy }},
		policyField{"notRetrySafe", kindBool, func(p *model.OpPolicy) any { return p.NotRetrySafe }},
		policyField{"idempotencyKeyHeader", kindText, func(p *model.OpPolicy) any {
			if p.IdempotencyHeader == "" {
				return nil
			}
			return p.IdempotencyHeader
		}},
		policyField{"timeout", kindTimeout, func(p *model.OpPolicy) any { return dur(p.Timeout) }},
		policyField{"totalTimeout", kindTimeout, func(p *model.OpPolicy) any { return dur(p.TotalTimeout) }},
		// The stream keys only where set: most operations stream nothing.
		policyField{"idleTimeout", kindTimeout, func(p *model.OpPolicy) any {
			if p.IdleTimeout == 0 {
				return nil
			}
			return dur(p.IdleTimeout)
		}},
		policyField{"resume", kindBool, func(p *model.OpPolicy) any {
			if !p.Resume {
				return nil
			}
			return true
		}},
	)
}()

// list keeps an empty list apart from nil, so JSON writes [] for it.
func list(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// fieldKinds finds a field's kind by name, for the renderers.
var fieldKinds = func() map[string]fieldKind {
	m := map[string]fieldKind{}
	for _, f := range policyFields {
		m[f.name] = f.kind
	}
	return m
}()

// changes compares two policies field by field; a nil side has every
// field nil.
func changes(old, new *model.OpPolicy, only func(name string) bool) []DiffChange {
	out := []DiffChange{}
	for _, f := range policyFields {
		if only != nil && !only(f.name) {
			continue
		}
		var o, n any
		if old != nil {
			o = f.get(old)
		}
		if new != nil {
			n = f.get(new)
		}
		if !reflect.DeepEqual(o, n) {
			out = append(out, DiffChange{f.name, o, n})
		}
	}
	return out
}

func isBreakerPolicyField(name string) bool { return strings.HasPrefix(name, "breaker.") }

// opKey is what the two sides' operations are matched by.
func opKey(op *model.Operation) string {
	if op.ID != "" {
		return op.ID
	}
	return op.Method + " " + op.Path
}

// DiffPolicies compares the resolved policies of two models (from Check)
// operation by operation, and their breakers; oldName and newName say
// which sides they are in the output.
func DiffPolicies(old, new *model.File, oldName, newName string) *PolicyDiff {
	d := &PolicyDiff{Old: oldName, New: newName, Operations: []DiffOp{}, Added: []DiffOp{}, Removed: []DiffOp{}, Breakers: []DiffBreaker{}}
	oldOps := map[string]*model.Operation{}
	for _, op := range old.Operations {
		oldOps[opKey(op)] = op
	}
	newKeys := map[string]bool{}
	for _, op := range new.Operations {
		newKeys[opKey(op)] = true
	}
	// An operation whose key alone changed (an operationId renamed, added
	// or dropped) is the one of the other side at the same method and
	// path, if that one has no match of its own.
	renamed := map[string]*model.Operation{}
	for _, op := range old.Operations {
		if !newKeys[opKey(op)] {
			renamed[op.Method+" "+op.Path] = op
		}
	}
	paired := map[*model.Operation]bool{}
	renames := map[string]string{} // old key → new key
	for _, op := range new.Operations {
		key := opKey(op)
		was, ok := oldOps[key]
		var cs []DiffChange
		if !ok {
			if was, ok = renamed[op.Method+" "+op.Path]; ok {
				paired[was] = true
				renames[opKey(was)] = key
				cs = []DiffChange{{"operation", opKey(was), key}}
			}
		}
		if !ok {
			d.Added = append(d.Added, DiffOp{Operation: key, Method: op.Method, Path: op.Path, Changes: changes(nil, op.Policy, nil), new: op.Policy})
			continue
		}
		if cs = append(cs, changes(was.Policy, op.Policy, nil)...); len(cs) > 0 {
			d.Operations = append(d.Operations, DiffOp{Operation: key, Method: op.Method, Path: op.Path, Changes: cs, old: was.Policy, new: op.Policy})
		} else {
			d.Unchanged++
		}
	}
	for _, op := range old.Operations {
		if key := opKey(op); !newKeys[key] && !paired[op] {
			d.Removed = append(d.Removed, DiffOp{Operation: key, Method: op.Method, Path: op.Path, Changes: changes(op.Policy, nil, nil), old: op.Policy})
		}
	}
	d.Breakers = diffBreakers(old, new, renames)
	d.Changed = len(d.Operations)+len(d.Added)+len(d.Removed)+len(d.Breakers) > 0
	return d
}

// breakerSide is one side's breaker instances: their policies and the
// operations behind each, in the spec's order.
type breakerSide struct {
	order   []string
	policy  map[string]*model.OpPolicy // an OpPolicy holding only the breaker
	members map[string][]string
}

// breakersOf lists m's breakers; rename maps a key to the one members are
// listed by (an old operation's new key).
func breakersOf(m *model.File, rename map[string]string) breakerSide {
	s := breakerSide{policy: map[string]*model.OpPolicy{}, members: map[string][]string{}}
	for _, bi := range m.Breakers {
		s.order = append(s.order, bi.Instance)
		s.policy[bi.Instance] = &model.OpPolicy{Breaker: bi}
	}
	for _, op := range m.Operations {
		if bi := op.Policy.Breaker; bi != nil {
			if _, ok := s.policy[bi.Instance]; !ok {
				s.order = append(s.order, bi.Instance)
				s.policy[bi.Instance] = &model.OpPolicy{Breaker: bi}
			}
			key := opKey(op)
			if k, ok := rename[key]; ok {
				key = k
			}
			s.members[bi.Instance] = append(s.members[bi.Instance], key)
		}
	}
	return s
}

// diffBreakers lists the breaker instances added, removed, or changed in
// policy or members: the new side's in its order, then the removed ones.
// An operation renamed is listed by its new key on both sides: it did not
// move.
func diffBreakers(old, new *model.File, renames map[string]string) []DiffBreaker {
	o, n := breakersOf(old, renames), breakersOf(new, nil)
	out := []DiffBreaker{}
	for _, inst := range n.order {
		b := DiffBreaker{Instance: inst, Operations: list(n.members[inst]), Changes: []DiffChange{}, Joined: []string{}, Left: []string{}, scope: n.policy[inst].Breaker.Policy.Scope}
		was, ok := o.policy[inst]
		if !ok {
			b.Status = "added"
			b.Joined = list(n.members[inst])
			out = append(out, b)
			continue
		}
		b.Changes = changes(was, n.policy[inst], isBreakerPolicyField)
		b.Joined = missingFrom(n.members[inst], o.members[inst])
		b.Left = missingFrom(o.members[inst], n.members[inst])
		if len(b.Changes)+len(b.Joined)+len(b.Left) > 0 {
			b.Status = "changed"
			out = append(out, b)
		}
	}
	for _, inst := range o.order {
		if _, ok := n.policy[inst]; !ok {
			out = append(out, DiffBreaker{Instance: inst, Status: "removed", Operations: list(o.members[inst]), Changes: []DiffChange{}, Joined: []string{}, Left: list(o.members[inst]), scope: o.policy[inst].Breaker.Policy.Scope})
		}
	}
	return out
}

// missingFrom returns the elements of a that b lacks, in a's order.
func missingFrom(a, b []string) []string {
	out := []string{}
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// valueText writes a field's value in words.
func valueText(kind fieldKind, v any) string {
	switch x := v.(type) {
	case nil:
		if kind == kindBool {
			return "no" // resume, left out where off
		}
		return "none"
	case setting:
		return x.words
	case string:
		if kind == kindTimeout && x == "0s" {
			return "none"
		}
		return x
	case bool:
		if x {
			return "yes"
		}
		return "no"
	}
	return "?"
}
