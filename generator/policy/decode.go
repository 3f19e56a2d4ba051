package policy

// Reading the raw extension values (the types encoding/json gives): objects,
// their keys, the runtime's rule errors placed at their pointers, and the
// value readers. Each reports its own error with its position.

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/internal/rawval"
	"github.com/resgen/resgen/runtime/wire"
)

// opPolicyKeys are the keys of an operation policy (defaults, path item,
// operation).
var opPolicyKeys = []string{"breaker", "retry", "timeout", "totalTimeout", "idleTimeout", "resume", "idempotent", "idempotencyKey"}

func esc(tok string) string { return diag.PointerJoin("", tok)[1:] }

func (r *Resolver) object(ptr string, v any, what string) (rawObj, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		r.errorf(ptr, "", "%s must be an object, got %s", what, rawval.Show(v))
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
		if s := rawval.Suggest(k, known); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
			hint = "rename the key to " + strconv.Quote(s)
		}
		r.errorf(o.ptr+"/"+esc(k), hint, "%s", msg)
	}
}

// policyErrors reports the runtime's rule errors for the object at ptr.
func (r *Resolver) policyErrors(ptr string, err error) {
	for _, pe := range wire.PolicyErrors(err) {
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

// Value readers. Each reports its own error and leaves dst unchanged.

func (r *Resolver) enum(ptr string, v any, dst *string, allowed ...string) {
	s, ok := v.(string)
	if ok && slices.Contains(allowed, s) {
		*dst = s
		return
	}
	msg := fmt.Sprintf("%s must be one of %s, got %s", lastTok(ptr), strings.Join(allowed, ", "), rawval.Show(v))
	if ok {
		if sg := rawval.Suggest(s, allowed); sg != "" {
			msg += fmt.Sprintf("; did you mean %q?", sg)
		}
	}
	r.errorf(ptr, "", "%s", msg)
}

func lastTok(ptr string) string {
	t := ptr[strings.LastIndex(ptr, "/")+1:]
	return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
}

// validHeaderName reports whether s is a header name resgen writes: a
// token of at most load.MaxNameBytes (each operation repeats it).
func validHeaderName(s string) bool {
	if s == "" || len(s) > load.MaxNameBytes {
		return false
	}
	for _, c := range s {
		if !(c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}
