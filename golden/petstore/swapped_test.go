//go:build resgen_swapped

package petstore

import "testing"

// swapped moves every operation's breaker inside its retry loop.
func swapped(_ *testing.T, c *Client) {
	c.opListPets = c.opListPets.RetryOutside()
	c.opCreatePets = c.opCreatePets.RetryOutside()
	c.opShowPetByID = c.opShowPetByID.RetryOutside()
	c.opAdoptPet = c.opAdoptPet.RetryOutside()
}
