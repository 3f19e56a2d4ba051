//go:build !resgen_swapped

package runtime

import "testing"

// swapOrder skips a test of the swapped order, which only a
// -tags resgen_swapped build has (make test runs it).
func swapOrder(t *testing.T, op *operation) *operation {
	t.Skip("the swapped order needs -tags resgen_swapped")
	return op
}
