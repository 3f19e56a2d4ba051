package generator

import (
	"bytes"
	"os"
	"testing"
)

// TestContractCopy: docs/contract.md carries the team's x-resilience
// contract so the repository's docs stand alone; when the team copy is
// beside the repository (../shared, as in CI), the two must not drift.
func TestContractCopy(t *testing.T) {
	team, err := os.ReadFile("../../shared/x-resilience.md")
	if os.IsNotExist(err) {
		t.Skip("../shared is not beside the repository")
	}
	if err != nil {
		t.Fatal(err)
	}
	ours, err := os.ReadFile("../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	// Our copy starts with one comment line and a blank line.
	if i := bytes.Index(ours, []byte("-->\n\n")); i >= 0 {
		ours = ours[i+len("-->\n\n"):]
	}
	if !bytes.Equal(ours, team) {
		t.Fatal("docs/contract.md differs from ../shared/x-resilience.md: copy the contract again (keep the first comment line)")
	}
}
