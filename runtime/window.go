package runtime

// outcome is one recorded call: a failure, slow, both or neither.
type outcome uint8

const (
	outFailed outcome = 1 << iota
	outSlow
)

// tally is the totals of a window.
type tally struct{ calls, failed, slow int }

func (t *tally) add(o outcome, sign int) {
	t.calls += sign
	if o&outFailed != 0 {
		t.failed += sign
	}
	if o&outSlow != 0 {
		t.slow += sign
	}
}

func (t *tally) addCounts(c FleetCounts) {
	t.calls += int(c.Calls())
	t.failed += int(c.Failed + c.FailedSlow)
	t.slow += int(c.Slow + c.FailedSlow)
}

// window is a breaker's closed-state sliding window: the last n calls
// (count) or the calls of the last n seconds (time), Resilience4j's
// FixedSizeSlidingWindowMetrics and SlidingTimeWindowMetrics. Every
// operation is O(1) (a time window advances over at most n buckets, once
// per elapsed second). Not safe for concurrent use: the Breaker locks it.
type window struct {
	total tally

	// count window: a ring of outcomes.
	ring []outcome
	head int
	full bool

	// time window: one bucket per second, indexed by epoch second mod n.
	buckets []bucket
	last    int64 // newest second seen
}

type bucket struct {
	sec int64
	t   tally
}

func newCountWindow(n int) window { return window{ring: make([]outcome, max(n, 1))} }

func newTimeWindow(seconds int) window { return window{buckets: make([]bucket, max(seconds, 1))} }

// add records one call that ended at epoch second sec.
func (w *window) add(o outcome, sec int64) {
	if w.buckets != nil {
		w.advance(sec)
		b := &w.buckets[mod(w.last, len(w.buckets))]
		b.t.add(o, 1)
		w.total.add(o, 1)
		return
	}
	if w.full {
		w.total.add(w.ring[w.head], -1)
	}
	w.ring[w.head] = o
	w.total.add(o, 1)
	w.head++
	if w.head == len(w.ring) {
		w.head, w.full = 0, true
	}
}

// addCounts records a batch of calls that ended at second sec, as the
// fleet stores do (docs/fleet.md): a time window adds them to sec's
// bucket; a count window takes them in the order OK, Slow, Failed,
// FailedSlow, and of a batch longer than the window only the last
// entries matter.
func (w *window) addCounts(c FleetCounts, sec int64) {
	if w.buckets != nil {
		w.advance(sec)
		b := &w.buckets[mod(w.last, len(w.buckets))]
		b.t.addCounts(c)
		w.total.addCounts(c)
		return
	}
	skip := c.Calls() - int64(len(w.ring))
	for _, k := range [...]struct {
		o outcome
		n int64
	}{{0, c.OK}, {outSlow, c.Slow}, {outFailed, c.Failed}, {outFailed | outSlow, c.FailedSlow}} {
		n := k.n
		if skip > 0 {
			d := min(skip, n)
			n, skip = n-d, skip-d
		}
		for ; n > 0; n-- {
			w.add(k.o, sec)
		}
	}
}

// advance moves a time window to second sec, dropping the buckets that
// fell out. A late second (clock step back) lands in the newest bucket.
func (w *window) advance(sec int64) {
	if w.buckets == nil || sec <= w.last {
		return
	}
	n := int64(len(w.buckets))
	from := w.last + 1
	if sec-from >= n {
		from = sec - n + 1
	}
	for s := from; s <= sec; s++ {
		b := &w.buckets[mod(s, len(w.buckets))]
		w.total.calls -= b.t.calls
		w.total.failed -= b.t.failed
		w.total.slow -= b.t.slow
		*b = bucket{sec: s}
	}
	w.last = sec
}

func (w *window) reset() {
	w.total = tally{}
	clear(w.ring)
	w.head, w.full = 0, false
	clear(w.buckets)
	w.last = 0
}

func mod(a int64, n int) int {
	m := int(a % int64(n))
	if m < 0 {
		m += n
	}
	return m
}
