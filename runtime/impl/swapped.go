//go:build resgen_swapped

package impl

// RetryOutside returns a copy of op in the swapped order, the breaker
// inside the retry loop. It exists only so tests can show what resgen's
// order (breaker outside) changes: it is built only with -tags
// resgen_swapped.
func (op *Operation) RetryOutside() *Operation {
	return &Operation{op.o.(interface{ RetryOutside() any }).RetryOutside().(operation)}
}
