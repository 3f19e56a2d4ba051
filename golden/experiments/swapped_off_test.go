//go:build !resgen_swapped

package experiments

import "testing"

// swap skips a subtest of the swapped order, which only a
// -tags resgen_swapped build of the runtime has (make test runs it).
func swap(t *testing.T, _ *Client) {
	t.Skip("the swapped order needs -tags resgen_swapped")
}
