//go:build resgen_swapped

package experiments

import "testing"

// swap moves every operation's breaker inside its retry loop.
func swap(_ *testing.T, c *Client) {
	c.opSustainedFailure = c.opSustainedFailure.RetryOutside()
	c.opRecovering = c.opRecovering.RetryOutside()
	c.opSlowSuccess = c.opSlowSuccess.RetryOutside()
	c.opCappedWindow = c.opCappedWindow.RetryOutside()
}
