package runtime

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The store and its channel are untrusted. Whatever another
// client of the store writes or publishes, a replica refuses calls for at
// most one waitInOpen beyond what its own outcomes justify, and recovers
// on its own once the forgery stops. (The Redis store's own checks, and
// the fault suite against a real redis-server, are in the redis module.)

// forgingStore wraps a store and lets a test publish on its channel, as
// any client of a shared Redis can.
type forgingStore struct {
	FleetStore
	mu  sync.Mutex
	fns []func(FleetState)
}

func (f *forgingStore) Watch(ctx context.Context, ready func(), fn func(FleetState)) error {
	f.mu.Lock()
	f.fns = append(f.fns, fn)
	f.mu.Unlock()
	return f.FleetStore.Watch(ctx, ready, fn)
}

// forge announces st to every watcher.
func (f *forgingStore) forge(st FleetState) {
	f.mu.Lock()
	fns := append([]func(FleetState){}, f.fns...)
	f.mu.Unlock()
	for _, fn := range fns {
		fn(st)
	}
}

func isRefused(err error) bool { return errors.As(err, new(*CircuitOpenError)) }

// callsFor calls op every 2 ms for d and counts the refusals.
func callsFor(t *testing.T, op *operation, s *server, d time.Duration) (calls, refused int) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
		_, _, err := do(t, op, get(t, s))
		calls++
		if isRefused(err) {
			refused++
		}
	}
	return calls, refused
}

// A forged announcement is a hint, never a state: one with the highest
// generation and state open refuses no call (taken as a state, it would
// pin every replica open for good), and one with state closed does not keep
// the fleet from opening on real failures.
func TestFleetAnnouncementIsOnlyAHint(t *testing.T) {
	ok := newServer(t, status(200))
	store := &forgingStore{FleetStore: NewMemoryFleetStore()}
	const sync = 20 * time.Millisecond
	rs := newReplicas(t, 2, store, fleetPolicyForTest(20, 10, 2, 200*time.Millisecond), FleetOptions{SyncInterval: sync})
	key := rs[0].b.link.key
	store.forge(FleetState{Key: key, Gen: math.MaxUint64, State: StateOpen, OpenFor: time.Hour, Calls: 10, Failed: 10})
	for i, r := range rs {
		if calls, refused := callsFor(t, r.op, ok, 10*sync); refused > 0 {
			t.Fatalf("replica %d refused %d of %d calls after a forged open announcement", i, refused, calls)
		}
	}
	store.forge(FleetState{Key: key, Gen: math.MaxUint64, State: StateClosed})
	fail := newServer(t, status(500))
	openFleet(t, rs, fail) // fails unless the real failures open the fleet
	for i, r := range rs {
		if r.b.link.gen == math.MaxUint64 {
			t.Errorf("replica %d took the forged generation", i)
		}
	}
}

// A message naming a breaker makes the replica Sync at once, and the
// store's answer is what it takes: a store that still answers closed
// keeps it closed, whatever the message said.
func TestFleetAnnouncementConfirmedBySync(t *testing.T) {
	mem := NewMemoryFleetStore()
	store := &forgingStore{FleetStore: &faultyStore{FleetStore: mem}}
	rs := newReplicas(t, 1, store, fleetPolicyForTest(20, 10, 2, time.Minute), FleetOptions{SyncInterval: 5 * time.Second})
	r := rs[0]
	before := store.FleetStore.(*faultyStore).syncs.Load()
	store.forge(FleetState{Key: r.b.link.key, Gen: r.b.link.gen + 1, State: StateOpen, OpenFor: time.Minute})
	waitFor(t, "a Sync after the announcement", func() bool { return store.FleetStore.(*faultyStore).syncs.Load() > before })
	time.Sleep(20 * time.Millisecond)
	if st := r.b.State(); st != StateClosed {
		t.Fatalf("state %v after an announcement the store does not confirm, want closed", st)
	}
}

// stuckGen is above any generation a store makes.
const stuckGen = 1 << 60

// stuckOpenStore answers every request open at one generation with an
// hour left, as a Redis whose state a forger keeps rewriting would.
type stuckOpenStore struct {
	FleetStore
	on atomic.Bool
}

func (s *stuckOpenStore) Sync(ctx context.Context, reqs []FleetSync) ([]FleetState, error) {
	if !s.on.Load() {
		return s.FleetStore.Sync(ctx, reqs)
	}
	out := make([]FleetState, len(reqs))
	for i, r := range reqs {
		out[i] = FleetState{Key: r.Key, Gen: stuckGen, State: StateOpen, OpenFor: time.Hour, Calls: 10, Failed: 10, Cause: FleetCauseWindow}
	}
	return out, nil
}

// A store that holds a breaker open past its waitInOpen (a forged open-
// until, rewritten as fast as the store moves on) refuses calls for at
// most that wait and a Sync or two: then the local breaker decides, with
// one warning, until the store's state changes.
func TestFleetOpenPastItsWaitGoesLocal(t *testing.T) {
	ok := newServer(t, status(200))
	store := &stuckOpenStore{FleetStore: NewMemoryFleetStore()}
	const wait, sync = 200 * time.Millisecond, 20 * time.Millisecond
	r := newReplicas(t, 1, store, fleetPolicyForTest(20, 10, 2, wait), FleetOptions{SyncInterval: sync})[0]
	store.on.Store(true)
	waitFor(t, "the forged open", func() bool { return r.b.State() == StateOpen })
	opened := time.Now()
	waitFor(t, "a call through", func() bool {
		_, _, err := do(t, r.op, get(t, ok))
		return err == nil
	})
	took := time.Since(opened)
	if took < wait/2 {
		t.Errorf("the open held %v, want about its wait %v", took, wait)
	}
	if calls, refused := callsFor(t, r.op, ok, 10*sync); refused > 0 {
		t.Fatalf("%d of %d calls refused after the open's wait, the store still answering it", refused, calls)
	}
	if n := strings.Count(r.log.String(), "holds it open past its waitInOpen"); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, r.log)
	}
	// The store moves on: its state is shared again.
	store.on.Store(false)
	waitFor(t, "the store's state again", func() bool {
		r.b.link.mu.Lock()
		defer r.b.link.mu.Unlock()
		return r.b.link.active && r.b.link.gen != stuckGen
	})
	t.Logf("refused for %v of a forged hour", took)
}

// badAnswerStore answers with another breaker's state, or an unknown one.
type badAnswerStore struct {
	FleetStore
	mode atomic.Int32 // 0 pass, 1 another key, 2 unknown state
}

func (s *badAnswerStore) Sync(ctx context.Context, reqs []FleetSync) ([]FleetState, error) {
	out, err := s.FleetStore.Sync(ctx, reqs)
	for i := range out {
		switch s.mode.Load() {
		case 1:
			out[i] = FleetState{Key: "other#0000000000000000", Gen: out[i].Gen + 1, State: StateOpen, OpenFor: time.Hour}
		case 2:
			out[i].State = 7
		}
	}
	return out, err
}

// An answer for another breaker, or in an unknown state, is not applied:
// the Sync counts as failed and the local breakers decide.
func TestFleetBadAnswerFallsBack(t *testing.T) {
	for _, mode := range []int32{1, 2} {
		ok := newServer(t, status(200))
		store := &badAnswerStore{FleetStore: NewMemoryFleetStore()}
		const sync = 20 * time.Millisecond
		r := newReplicas(t, 1, store, fleetPolicyForTest(20, 10, 2, time.Minute), FleetOptions{SyncInterval: sync})[0]
		store.mode.Store(mode)
		waitFor(t, "fallback", func() bool { return !r.b.link.isActive() })
		if calls, refused := callsFor(t, r.op, ok, 5*sync); refused > 0 {
			t.Fatalf("mode %d: %d of %d calls refused", mode, refused, calls)
		}
		if !strings.Contains(r.log.String(), "store answered") {
			t.Errorf("mode %d: the fallback line does not say why:\n%s", mode, r.log)
		}
		store.mode.Store(0)
		waitFor(t, "resume", func() bool { return r.b.link.isActive() })
	}
}

// FuzzFleetAnswers: whatever a store answers, in any order, a fleet
// breaker stays within its own policy. Each 16 bytes of data are one
// answer (for its key or another, any generation, any state byte, any
// OpenFor, Granted and totals, negative ones included), checked and
// applied as a Sync's would be, then maybe a trial permit taken. After
// each: an answer is refused exactly when it is for another key or in an
// unknown state; the breaker holds at most HalfOpenCalls permits; an
// open holds no longer than its waitInOpen from now; its state is a
// known one and its metrics consistent.
//
// go test ./runtime -run '^$' -fuzz FuzzFleetAnswers runs it; plain go test runs
// the seeds below.
func FuzzFleetAnswers(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\x00\x01\x01\x7f\xff\xff\xff\x00\x05\x0a"))
	f.Add([]byte("\xff\xff\xff\xff\xff\xff\xff\xff\x02\x80\x00\x00\x00\xff\x7f\x81" +
		"\x00\x00\x00\x00\x00\x00\x00\x01\x01\x00\x00\x00\x10\x03\x00\x00" +
		"\x00\x00\x00\x00\x00\x00\x00\x01\x01\x00\x00\x00\x10\x03\x00\x00"))
	f.Add([]byte("\x80\x00\x00\x00\x00\x00\x00\x07\x07\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzBody(t, data) })
}

func fuzzBody(t *testing.T, data []byte) {
	const wait = 200 * time.Millisecond
	p := fleetPolicyForTest(20, 10, 3, wait)
	{
		// A closed Fleet starts no goroutine: the link is driven by hand.
		fl := NewFleet(NewMemoryFleetStore(), FleetOptions{Logger: quiet, SyncInterval: 10 * time.Millisecond})
		fl.Close()
		e := newEngine(config{Logger: quiet, Fleet: fl})
		b := e.Breaker("b", p)
		l := b.link
		for ; len(data) >= 16; data = data[16:] {
			gen := uint64(data[0])<<56 | uint64(data[1])<<48 | uint64(data[2])<<40 | uint64(data[3])<<32 |
				uint64(data[4])<<24 | uint64(data[5])<<16 | uint64(data[6])<<8 | uint64(data[7])
			if gen>>63 != 0 {
				gen &= 0xff // mostly small generations, so that answers repeat one
			}
			flags := data[8]
			openFor := time.Duration(int32(uint32(data[9])<<24|uint32(data[10])<<16|uint32(data[11])<<8|uint32(data[12]))) * time.Millisecond
			st := FleetState{Key: l.key, Gen: gen, State: State(flags >> 1 & 0x7f), OpenFor: openFor,
				Granted: int(int8(data[13])), Calls: int64(int8(data[14])), Failed: int64(int8(data[15])),
				Slow: int64(int8(data[15]) >> 2), Cause: FleetCause(data[14] >> 4),
				TrialCalls: int64(int8(data[13])), TrialFailed: int64(int8(data[14]))}
			if flags&1 != 0 {
				st.Key = "other"
			}
			err := l.check(&st)
			if want := flags&1 != 0 || st.State > StateHalfOpen; (err != nil) != want {
				t.Fatalf("answer %+v: check said %v", st, err)
			}
			if err == nil {
				l.apply(st)
			}
			now := e.now()
			if data[13]&0x80 == 0 && data[13]&1 != 0 {
				l.permit(now)
			}
			if n := l.permits.Load(); n < 0 || n > int64(p.HalfOpenCalls) {
				t.Fatalf("after %+v: %d permits held, halfOpenCalls %d", st, n, p.HalfOpenCalls)
			}
			if until := time.Duration(l.heldUntil.Load()); until != 0 && until > now+wait {
				t.Fatalf("after %+v: held open for %v more, waitInOpen %v", st, until-now, wait)
			}
			m := b.Metrics()
			if m.State > StateHalfOpen || m.Calls < 0 || m.Failed < 0 || m.Slow < 0 || m.Failed > m.Calls || m.Slow > m.Calls {
				t.Fatalf("after %+v: metrics %+v", st, m)
			}
		}
	}
}
