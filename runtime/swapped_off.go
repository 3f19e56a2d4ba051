//go:build !resgen_swapped

package runtime

// swappedOrder is false in every build but the tests' -tags
// resgen_swapped (swapped.go): the swapped order's branches compile away.
const swappedOrder = false

// guardedAttempt is never called here (swappedOrder is false).
func (c *call) guardedAttempt() {}
