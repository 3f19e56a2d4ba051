// Package link is how package impl, which only generated code and the
// generator call, reaches the engine of package runtime without runtime
// exporting it: runtime registers its implementation once, at init, and
// impl, which imports runtime (so runtime's init has run), reads it. This
// is database/sql's driver registration turned inward: one value, set
// before any caller can run and never changed after.
package link

var impl any

// Register sets the implementation; package runtime's init calls it once.
func Register(v any) {
	if impl != nil {
		panic("link: the runtime registered twice")
	}
	impl = v
}

// Runtime is the registered implementation.
func Runtime() any { return impl }
