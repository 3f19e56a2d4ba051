package main

import (
	"os"
	"testing"
)

// runMainEnv makes the test binary run resgen's main instead of the tests,
// so that a test can run the command as a process of its own (to send it
// signals) without building it.
const runMainEnv = "RESGEN_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
	}
	os.Exit(m.Run())
}
