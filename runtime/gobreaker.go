package runtime

import "github.com/sony/gobreaker/v2"

// The adapter to gobreaker: the only file that names it. gobreaker owns
// the state machine (closed, open, half-open), the open state's wait and
// half-open admission; the Breaker decides when it opens and closes (its
// windows and rates) and tells gobreaker only those decisions, through the
// settings below and the verdict run's fn returns (see Breaker).
//
// The Breaker keeps its own generation, state and the end of the open
// wait beside gobreaker's because gobreaker exposes none of them: its
// generation and expiry are private, OnStateChange gets no time, and the
// closure Execute runs gets no generation. Without its own generation the
// Breaker could not drop from its window an outcome gobreaker drops (one
// admitted before a state change); without the expiry a refusal could not
// say when to retry, nor a timer move an idle breaker to half-open on
// time.

// machine is the Breaker's gobreaker.
type machine = gobreaker.CircuitBreaker[struct{}]

// newMachine returns the gobreaker of b, whose policy is clamped.
func newMachine(b *Breaker) *machine {
	return gobreaker.NewCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        b.name,
		MaxRequests: uint32(b.p.HalfOpenCalls),
		Timeout:     b.p.WaitInOpen, // <= 0 means gobreaker's 60s (waitInOpen)
		ReadyToTrip: func(gobreaker.Counts) bool { return true },
		// Only errTrip is a failure: errIgnored, and the error gobreaker
		// makes of a panic, are excluded, so a panicking Doer or editor
		// cannot open the breaker by itself.
		IsExcluded: func(err error) bool { return err != nil && err != errTrip },
		OnStateChange: func(_ string, from, to gobreaker.State) {
			b.onStateChange(fromGobreaker(from), fromGobreaker(to))
		},
	})
}

// refusal says whether the breaker admitted a call, and if not why.
type refusal uint8

const (
	admitted    refusal = iota
	refusedOpen         // open: no call until its wait ends
	refusedFull         // half-open: its trial calls are taken
)

// run runs fn if the breaker admits a call, and reports fn's verdict to
// gobreaker: nil a success, errTrip the failure that opens it, any other
// error an outcome that does not count.
func (b *Breaker) run(fn func() error) refusal {
	_, err := b.cb.Execute(func() (struct{}, error) { return struct{}{}, fn() })
	switch err {
	case gobreaker.ErrOpenState:
		return refusedOpen
	case gobreaker.ErrTooManyRequests:
		return refusedFull
	}
	return admitted
}

// machineState is gobreaker's state, moving it from open to half-open if
// its wait is over.
func (b *Breaker) machineState() State { return fromGobreaker(b.cb.State()) }

func fromGobreaker(s gobreaker.State) State {
	switch s {
	case gobreaker.StateOpen:
		return StateOpen
	case gobreaker.StateHalfOpen:
		return StateHalfOpen
	}
	return StateClosed
}
