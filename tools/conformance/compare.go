package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strings"
)

type rawJSON = json.RawMessage

// canonical is v's JSON with sorted keys (json.Marshal sorts map keys).
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "!" + err.Error()
	}
	return string(b)
}

// decodeExact decodes JSON keeping numbers as written.
func decodeExact(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// sameJSON compares two values semantically: object key order does not
// matter, numbers compare exactly (as decimals, not float64).
func sameJSON(a, b any) bool {
	ab, err1 := json.Marshal(a)
	bb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return false
	}
	x, err1 := decodeExact(ab)
	y, err2 := decodeExact(bb)
	return err1 == nil && err2 == nil && equalExact(x, y)
}

func equalExact(a, b any) bool {
	a = withoutUndeclared(a, b)
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		rx, ok1 := new(big.Rat).SetString(string(x))
		ry, ok2 := new(big.Rat).SetString(string(y))
		return ok1 && ok2 && rx.Cmp(ry) == 0
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equalExact(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalExact(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// maxDiffs bounds the differences one comparison lists: past it one more
// entry says how many were left out.
const maxDiffs = 64

// diff is one place two JSON values differ: its JSON pointer ("" for the
// whole value) and what differs there.
type diff struct {
	path, text string
}

// where is a diff's path as a message shows it.
func (d diff) where() string {
	if d.path == "" {
		return "(top)"
	}
	return d.path
}

// jsonDiffs lists every place want and got differ (semantically, as
// sameJSON compares), at most maxDiffs of them and then one entry with
// the path "…" that counts the rest; none when they are the same.
func jsonDiffs(want, got any) []diff {
	wb, _ := json.Marshal(want)
	gb, _ := json.Marshal(got)
	w, _ := decodeExact(wb)
	g, _ := decodeExact(gb)
	var out []diff
	more := 0
	allDiffs("", w, g, func(d diff) {
		if len(out) < maxDiffs {
			out = append(out, d)
		} else {
			more++
		}
	})
	if more > 0 {
		out = append(out, diff{path: "…", text: fmt.Sprintf("%d more differences, not listed", more)})
	}
	return out
}

// allDiffs calls add for each place a and b differ, in key order: a key on
// one side only, values of different types, arrays of different lengths,
// scalars that differ.
func allDiffs(at string, a, b any, add func(diff)) {
	a = withoutUndeclared(a, b)
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			add(diff{at, short(a) + " became " + short(b)})
			return
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			v, ok1 := x[k]
			w, ok2 := y[k]
			p := at + "/" + escapePointer(k)
			switch {
			case !ok1:
				add(diff{p, "not sent, came back as " + short(w)})
			case !ok2:
				add(diff{p, "sent " + short(v) + ", lost"})
			default:
				allDiffs(p, v, w, add)
			}
		}
		return
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			add(diff{at, short(a) + " became " + short(b)})
			return
		}
		for i := range x {
			allDiffs(at+"/"+itoa(i), x[i], y[i], add)
		}
		return
	}
	if !equalExact(a, b) {
		add(diff{at, short(a) + " became " + short(b)})
	}
}

// escapePointer escapes a key as a JSON pointer token (RFC 6901).
func escapePointer(k string) string {
	if !strings.ContainsAny(k, "~/") {
		return k
	}
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }

func short(v any) string {
	s := canonical(v)
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// withoutUndeclared drops from want the keys holding the undeclared marker
// that got lacks.
func withoutUndeclared(want, got any) any {
	w, ok := want.(map[string]any)
	if !ok {
		return want
	}
	g, _ := got.(map[string]any)
	var out map[string]any
	for k, v := range w {
		if v == undeclared {
			if _, kept := g[k]; !kept {
				if out == nil {
					out = make(map[string]any, len(w))
					for k2, v2 := range w {
						out[k2] = v2
					}
				}
				delete(out, k)
			}
		}
	}
	if out == nil {
		return want
	}
	return out
}
