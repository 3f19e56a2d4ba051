package runtime

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/resgen/resgen/internal/human"
	"github.com/resgen/resgen/internal/rawval"
	"github.com/resgen/resgen/runtime/wire"
)

// The value rules of x-resilience, in one place: resgen's spec validation
// and runtime overrides (overrides.go) both read policy keys through the
// decode functions below, so a rule cannot hold in one and not the other.

// MaxPolicyDuration is the longest duration a policy may give, other than
// windowDuration (MaxWindowDuration): it keeps the clock arithmetic far
// from overflowing and catches a wrong unit (2000000h).
const MaxPolicyDuration = 24 * time.Hour

// The keys each decode function reads, in the contract's order.
var (
	breakerKeys = []string{"windowType", "windowSize", "windowDuration", "minimumCalls", "failureRateThreshold", "slowCallDuration", "slowCallRateThreshold", "waitInOpen", "halfOpenCalls", "recordOn"}
	retryKeys   = []string{"maxAttempts", "backoff", "initialInterval", "multiplier", "maxInterval", "jitter", "retryOn", "retryAfter", "maxRetryAfter", "budget"}
	budgetKeys  = []string{"ratio", "minPerSecond"}
	timeoutKeys = []string{"timeout", "totalTimeout", "idleTimeout", "resume"}
)

const (
	durationFormatHint = `write a Go duration string such as "200ms", "5s" or "1m30s"`
	outcomesHint       = "outcomes are transport, timeout, a status code such as 503, or a class such as 5xx"
)

var durationHint = "durations are at most " + human.Duration(MaxPolicyDuration) + "; is the unit right?"

// decodeBreaker sets the keys of one x-resilience breaker policy object, its
// values as encoding/json or a YAML decoder gives them, on p, checking each
// against the contract's rules. A value that breaks one leaves its field
// unchanged and is returned as a *wire.PolicyError (several are joined, in key
// order). Keys named in own are the caller's (extends, scope) and skipped;
// any other key is an error.
func decodeBreaker(p *BreakerPolicy, m map[string]any, own ...string) error {
	var d decoder
	for _, k := range d.keys(m, breakerKeys, own, "breaker policy") {
		v := m[k]
		switch k {
		case "windowType":
			var s string
			if d.enum(k, v, &s, "count", "time") {
				p.WindowType = CountWindow
				if s == "time" {
					p.WindowType = TimeWindow
				}
			}
		case "windowSize":
			d.countUpTo(k, v, &p.WindowSize, MaxWindowSize, "a count window holds one entry per call; for a busy client use windowType: time")
		case "windowDuration":
			d.positiveDuration(k, v, &p.WindowDuration, MaxWindowDuration, "a time window holds one bucket per second: use at most "+human.Duration(MaxWindowDuration))
		case "minimumCalls":
			d.count(k, v, &p.MinimumCalls)
		case "failureRateThreshold":
			d.percent(k, v, &p.FailureRateThreshold)
		case "slowCallDuration":
			d.positiveDuration(k, v, &p.SlowCallDuration, MaxPolicyDuration, durationHint)
		case "slowCallRateThreshold":
			d.percent(k, v, &p.SlowCallRateThreshold)
		case "waitInOpen":
			d.positiveDuration(k, v, &p.WaitInOpen, MaxPolicyDuration, durationHint)
		case "halfOpenCalls":
			d.countUpTo(k, v, &p.HalfOpenCalls, MaxHalfOpenCalls, "each trial call is a request to a server that may still be failing; a few are enough")
		case "recordOn":
			d.outcomes(k, v, &p.RecordOn)
		}
	}
	// A window key the window type does not read would do nothing. (A
	// value already refused is not reported twice.)
	if _, ok := m["windowSize"]; ok && p.WindowType == TimeWindow && !d.failed("windowSize") {
		d.add(&wire.PolicyError{Key: "windowSize", Msg: "windowSize is for count windows, but windowType is time",
			Hint: "use windowDuration with a time window, or set windowType: count", Relation: true})
	}
	if _, ok := m["windowDuration"]; ok && p.WindowType == CountWindow && !d.failed("windowDuration") {
		d.add(&wire.PolicyError{Key: "windowDuration", Msg: "windowDuration is for time windows, but windowType is count",
			Hint: "use windowSize with a count window, or set windowType: time", Relation: true})
	}
	return d.err()
}

// decodeRetry sets the keys of one x-resilience retry policy object on p,
// as decodeBreaker does. A budget object replaces p's budget, its
// missing keys at the contract's defaults (ratio 0.2, minPerSecond 10).
func decodeRetry(p *RetryPolicy, m map[string]any, own ...string) error {
	var d decoder
	for _, k := range d.keys(m, retryKeys, own, "retry policy") {
		v := m[k]
		switch k {
		case "maxAttempts":
			d.countUpTo(k, v, &p.MaxAttempts, MaxRetryAttempts, "each attempt is a request to a server that may be failing; a few, with waits between them, are enough")
		case "backoff":
			var s string
			if d.enum(k, v, &s, "constant", "exponential") {
				p.Backoff = ExponentialBackoff
				if s == "constant" {
					p.Backoff = ConstantBackoff
				}
			}
		case "initialInterval":
			d.duration(k, v, &p.InitialInterval)
		case "multiplier":
			if f, ok := rawval.Number(v); ok && f >= 1 && !math.IsInf(f, 0) {
				p.Multiplier = f
			} else {
				d.add(&wire.PolicyError{Key: k, Msg: "multiplier must be a number ≥ 1, got " + rawval.Show(v), Hint: "use a number of at least 1, e.g. 2"})
			}
		case "maxInterval":
			d.duration(k, v, &p.MaxInterval)
		case "jitter":
			var s string
			if d.enum(k, v, &s, "none", "full", "equal", "decorrelated") {
				p.Jitter = map[string]Jitter{"none": NoJitter, "full": FullJitter, "equal": EqualJitter, "decorrelated": DecorrelatedJitter}[s]
			}
		case "retryOn":
			if d.outcomes(k, v, &p.RetryOn) {
				d.noSuccess(k, v.([]any))
			}
		case "retryAfter":
			if b, ok := v.(bool); ok {
				p.RetryAfter = b
			} else {
				d.add(&wire.PolicyError{Key: k, Msg: "retryAfter must be true or false, got " + rawval.Show(v)})
			}
		case "maxRetryAfter":
			d.duration(k, v, &p.MaxRetryAfter)
		case "budget":
			d.budget(k, v, &p.Budget)
		}
	}
	return d.err()
}

// decodeTimeouts sets the timeout, totalTimeout and idleTimeout keys of
// an x-resilience operation policy object on s (0 turns one off), and
// resume, as decodeBreaker does; keys named in own are skipped.
func decodeTimeouts(s *operationSpec, m map[string]any, own ...string) error {
	var d decoder
	for _, k := range d.keys(m, timeoutKeys, own, "operation policy") {
		switch k {
		case "timeout":
			d.duration(k, m[k], &s.Timeout)
		case "totalTimeout":
			d.duration(k, m[k], &s.TotalTimeout)
		case "idleTimeout":
			d.duration(k, m[k], &s.IdleTimeout)
		case "resume":
			if b, ok := m[k].(bool); ok {
				s.Resume = b
			} else {
				d.add(&wire.PolicyError{Key: k, Msg: "resume must be true or false, got " + rawval.Show(m[k])})
			}
		}
	}
	return d.err()
}

// decoder collects the errors of one decode function.
type decoder struct{ errs []error }

func (d *decoder) add(e *wire.PolicyError) { d.errs = append(d.errs, e) }

func (d *decoder) failed(key string) bool {
	return slices.ContainsFunc(d.errs, func(e error) bool { return e.(*wire.PolicyError).Key == key })
}

func (d *decoder) err() error {
	if len(d.errs) == 1 {
		return d.errs[0]
	}
	return errors.Join(d.errs...)
}

// keys returns m's keys that the decode function reads, sorted, and reports the unknown
// ones with the nearest known key.
func (d *decoder) keys(m map[string]any, known, own []string, what string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	all := append(slices.Clip(own), known...)
	n := 0
	for _, k := range out {
		switch {
		case slices.Contains(known, k):
			out[n] = k
			n++
		case !slices.Contains(own, k):
			d.unknownKey(k, all, what)
		}
	}
	return out[:n]
}

func (d *decoder) unknownKey(k string, known []string, what string) {
	e := &wire.PolicyError{Key: k, Msg: fmt.Sprintf("unknown key %q in %s", k, what), Hint: "known keys: " + strings.Join(known, ", ")}
	if s := rawval.Suggest(k, known); s != "" {
		e.Msg += fmt.Sprintf("; did you mean %q?", s)
		e.Hint = "rename the key to " + strconv.Quote(s)
	}
	d.add(e)
}

func (d *decoder) enum(k string, v any, dst *string, allowed ...string) bool {
	s, ok := v.(string)
	if ok && slices.Contains(allowed, s) {
		*dst = s
		return true
	}
	msg := fmt.Sprintf("%s must be one of %s, got %s", k, strings.Join(allowed, ", "), rawval.Show(v))
	if ok {
		if sg := rawval.Suggest(s, allowed); sg != "" {
			msg += fmt.Sprintf("; did you mean %q?", sg)
		}
	}
	d.add(&wire.PolicyError{Key: k, Msg: msg})
	return false
}

// count reads a whole number of at least 1.
func (d *decoder) count(k string, v any, dst *int) {
	if n, ok := wholeIn(v, 1, math.MaxInt32); ok {
		*dst = n
		return
	}
	d.add(&wire.PolicyError{Key: k, Msg: fmt.Sprintf("%s must be a whole number ≥ 1, got %s", k, rawval.Show(v))})
}

// countUpTo reads a whole number from 1 to max.
func (d *decoder) countUpTo(k string, v any, dst *int, max int, hint string) {
	if n, ok := wholeIn(v, 1, max); ok {
		*dst = n
		return
	}
	d.add(&wire.PolicyError{Key: k, Msg: fmt.Sprintf("%s must be a whole number from 1 to %d, got %s", k, max, rawval.Show(v)), Hint: hint})
}

// wholeIn returns v as an int when it is a whole number from min to max.
func wholeIn(v any, min, max int) (int, bool) {
	f, ok := rawval.Number(v)
	if ok && f == math.Trunc(f) && f >= float64(min) && f <= float64(max) {
		return int(f), true
	}
	return 0, false
}

func (d *decoder) percent(k string, v any, dst *float64) {
	if f, ok := rawval.Number(v); ok && f > 0 && f <= 100 {
		*dst = f
		return
	}
	d.add(&wire.PolicyError{Key: k, Msg: fmt.Sprintf("%s must be a percentage in (0, 100], got %s", k, rawval.Show(v)), Hint: "percentages are numbers in (0, 100], e.g. 50"})
}

// duration reads a Go duration string of at most MaxPolicyDuration; 0
// (number or string) turns the thing off.
func (d *decoder) duration(k string, v any, dst *time.Duration) {
	d.durationUpTo(k, v, dst, MaxPolicyDuration, durationHint)
}

// durationUpTo is duration with its own bound, and the hint for a value
// beyond it. It reports whether it set dst.
func (d *decoder) durationUpTo(k string, v any, dst *time.Duration, max time.Duration, hint string) bool {
	if f, ok := rawval.Number(v); ok && f == 0 {
		*dst = 0
		return true
	}
	s, ok := v.(string)
	if !ok {
		d.add(&wire.PolicyError{Key: k, Msg: fmt.Sprintf("%s must be a duration, got %s", k, rawval.Show(v)), Hint: durationFormatHint})
		return false
	}
	t, err := time.ParseDuration(s)
	switch {
	case err != nil:
		d.add(&wire.PolicyError{Key: k, Msg: fmt.Sprintf("%s: cannot parse duration %q", k, s), Hint: durationFormatHint})
	case t < 0:
		d.add(&wire.PolicyError{Key: k, Msg: fmt.Sprintf("%s must not be negative, got %s", k, s), Hint: `durations are positive, e.g. "5s"; 0 turns a timeout off`})
	case t > max:
		d.add(&wire.PolicyError{Key: k, Msg: fmt.Sprintf("%s must be at most %s, got %s", k, human.Duration(max), s), Hint: hint})
	default:
		*dst = t
		return true
	}
	return false
}

// positiveDuration reads a duration longer than 0 and at most max.
func (d *decoder) positiveDuration(k string, v any, dst *time.Duration, max time.Duration, hint string) {
	var t time.Duration
	if !d.durationUpTo(k, v, &t, max, hint) {
		return
	}
	if t == 0 {
		d.add(&wire.PolicyError{Key: k, Msg: k + " must be longer than 0"})
		return
	}
	*dst = t
}

// outcomes reads a recordOn/retryOn list: transport, timeout, a status code
// (100-599) or a class (1xx-5xx), each kept once, codes and classes in the
// order written. It reports whether v is a list.
func (d *decoder) outcomes(k string, v any, dst *Match) bool {
	list, ok := v.([]any)
	if !ok {
		d.add(&wire.PolicyError{Key: k, Msg: fmt.Sprintf("%s must be a list of outcomes, got %s", k, rawval.Show(v)), Hint: "e.g. [transport, timeout, 5xx, 429]"})
		return false
	}
	var m Match
	good := true
	for i, e := range list {
		if !m.add(e) {
			d.add(&wire.PolicyError{Key: k, Elem: strconv.Itoa(i), Msg: fmt.Sprintf("unknown outcome %s in %s", rawval.Show(e), k), Hint: outcomesHint})
			good = false
		}
	}
	if good {
		*dst = m
	}
	return true
}

// noSuccess refuses a retryOn list that names an informational or a
// success status (1xx, 2xx, or one of their codes): such an answer is not
// a failure, and retrying it sends a request that worked again, as often
// as maxAttempts allows.
func (d *decoder) noSuccess(k string, list []any) {
	for i, e := range list {
		var one Match
		if !one.add(e) {
			continue
		}
		if slices.ContainsFunc(one.Codes, func(c int) bool { return c < 300 }) || slices.ContainsFunc(one.Classes, func(c int) bool { return c < 3 }) {
			d.add(&wire.PolicyError{Key: k, Elem: strconv.Itoa(i), Msg: fmt.Sprintf("retryOn must not name a success or informational status, got %s", rawval.Show(e)),
				Hint: "retry failures only: transport, timeout, 408, 429, 5xx"})
		}
	}
}

// MaxRetryAttempts is the most attempts a retry policy may make
// (maxAttempts), the first included: more only add load to a server that
// keeps failing. gRPC caps its own at 5.
const MaxRetryAttempts = 10

// add adds one outcome as written (503, "503", "5xx", "transport").
func (m *Match) add(v any) bool {
	if f, ok := rawval.Number(v); ok {
		if f != math.Trunc(f) || f < 100 || f > 599 {
			return false
		}
		if n := int(f); !slices.Contains(m.Codes, n) {
			m.Codes = append(m.Codes, n)
		}
		return true
	}
	s, ok := v.(string)
	if !ok {
		return false
	}
	s = strings.ToLower(strings.TrimSpace(s))
	switch {
	case s == "transport":
		m.Transport = true
	case s == "timeout":
		m.Timeout = true
	case len(s) == 3 && s[0] >= '1' && s[0] <= '5' && s[1:] == "xx":
		if c := int(s[0] - '0'); !slices.Contains(m.Classes, c) {
			m.Classes = append(m.Classes, c)
		}
	default:
		n, err := strconv.Atoi(s)
		if err != nil || n < 100 || n > 599 {
			return false
		}
		if !slices.Contains(m.Codes, n) {
			m.Codes = append(m.Codes, n)
		}
	}
	return true
}

// Tokens returns the outcomes as x-resilience writes them: transport,
// timeout, the codes, then the classes (5xx).
func (m Match) Tokens() []string {
	var out []string
	if m.Transport {
		out = append(out, "transport")
	}
	if m.Timeout {
		out = append(out, "timeout")
	}
	for _, c := range m.Codes {
		out = append(out, strconv.Itoa(c))
	}
	for _, c := range m.Classes {
		out = append(out, strconv.Itoa(c)+"xx")
	}
	return out
}

func (d *decoder) budget(k string, v any, dst **Budget) {
	bm, ok := v.(map[string]any)
	if !ok {
		d.add(&wire.PolicyError{Key: k, Msg: "budget must be an object, got " + rawval.Show(v)})
		return
	}
	var sub decoder
	b := &Budget{Ratio: 0.2, MinPerSecond: 10}
	for _, bk := range sub.keys(bm, budgetKeys, nil, "budget") {
		bv := bm[bk]
		switch bk {
		case "ratio":
			if f, ok := rawval.Number(bv); ok && f > 0 && f <= 1 {
				b.Ratio = f
			} else {
				sub.add(&wire.PolicyError{Key: bk, Msg: "budget ratio must be a number in (0, 1], got " + rawval.Show(bv)})
			}
		case "minPerSecond":
			if f, ok := rawval.Number(bv); ok && f >= 0 && !math.IsInf(f, 0) {
				b.MinPerSecond = f
			} else {
				sub.add(&wire.PolicyError{Key: bk, Msg: "budget minPerSecond must be a number ≥ 0, got " + rawval.Show(bv)})
			}
		}
	}
	for _, e := range sub.errs {
		pe := e.(*wire.PolicyError)
		pe.Key, pe.Elem = k, pe.Key
		d.errs = append(d.errs, pe)
	}
	*dst = b
}
