// Package gopanic carries a panic from a goroutine to the one that waits
// for it. A panic on a goroutine of its own ends the process with every
// goroutine's stack, past any recover of the caller; the generator's
// workers (validation beside build, emit's printers) are part of a call
// that the CLI answers with one line naming the panic's site, so their
// panics are re-raised in the caller, as if the work had run there.
package gopanic

import (
	"fmt"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// Panic is a panic raised on a goroutine of a Group, re-raised by Wait.
type Panic struct {
	Value any
	// Site is where the panic was raised: " at pkg.Func (file.go:12)",
	// or "" when no frame outside the Go runtime was found.
	Site string
}

func (p *Panic) String() string { return fmt.Sprint(p.Value) }

// Group runs functions on goroutines of their own and waits for them.
// The zero Group is ready to use.
type Group struct {
	wg sync.WaitGroup
	p  atomic.Pointer[Panic] // the first panic
}

// Go runs f on a new goroutine.
func (g *Group) Go(f func()) {
	g.wg.Go(func() {
		defer g.recover()
		f()
	})
}

// Wait returns once every function Go started has returned, and panics
// with the first of their panics, a *Panic, if one did.
func (g *Group) Wait() {
	g.wg.Wait()
	if p := g.p.Load(); p != nil {
		panic(p)
	}
}

func (g *Group) recover() {
	if r := recover(); r != nil {
		if p, ok := r.(*Panic); ok { // from a nested Group: keep its site
			g.p.CompareAndSwap(nil, p)
			return
		}
		g.p.CompareAndSwap(nil, &Panic{Value: r, Site: Site(3)})
	}
}

// Site names the first frame outside the Go runtime of the calling
// goroutine's stack, skipping skip frames (Site's own is 1); called in a
// deferred function while panicking, that is the frame that panicked.
func Site(skip int) string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(skip+1, pcs)])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "runtime.") && f.Function != "" {
			return fmt.Sprintf(" at %s (%s:%d)", path.Base(f.Function), filepath.Base(f.File), f.Line)
		}
		if !more {
			return ""
		}
	}
}
