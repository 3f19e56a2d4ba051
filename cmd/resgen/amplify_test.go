package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// Spec text that would make resgen's work or output grow past what it
// says: overlays that multiply what they add, and what long text may do.

// TestOverlayAmplification: 30 overlay actions (2 KB), each doubling the
// nodes the one before added, are refused by every command that reads a
// spec at the target of the action that passes the bound, exit 2; with the
// update shared by its targets the tree had 2^30 paths and each command
// ran out of memory. The output is not written.
func TestOverlayAmplification(t *testing.T) {
	t.Chdir(t.TempDir())
	writeFile(t, "spec.yaml", specText("", "")+"x-n0: {}\n")
	var b strings.Builder
	b.WriteString("overlay: 1.0.0\nactions:\n")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "  - {target: $..x-n%d, update: {x-l: {x-n%d: {}}, x-r: {x-n%d: {}}}}\n", i-1, i, i)
	}
	writeFile(t, "overlay.yaml", b.String())
	const want = "overlay.yaml:19:14: error: the overlays add more than 1000000 nodes to the spec"
	for _, args := range [][]string{
		{"generate", "-spec", "spec.yaml", "-overlay", "overlay.yaml", "-package", "x", "-o", "client.gen.go"},
		{"lint", "-spec", "spec.yaml", "-overlay", "overlay.yaml"},
		{"explain", "-spec", "spec.yaml", "-overlay", "overlay.yaml"},
		{"diff", "-old", "spec.yaml", "-new", "spec.yaml", "-new-overlay", "overlay.yaml"},
		{"lab", "storm", "-spec", "spec.yaml", "-overlay", "overlay.yaml", "-op", "getX"},
	} {
		code, _, stderr := runCLIBounded(t, 2*time.Minute, args...)
		if code != exitInput || !strings.HasPrefix(stderr, want) {
			t.Errorf("%s: exit %d, stderr:\n%.1000s\nwant exit 2 and %q", args[0], code, stderr, want)
		}
	}
	if _, err := os.Stat("client.gen.go"); err == nil {
		t.Error("generate wrote the output")
	}
}

// TestLongTextThatNamesNothing: the bound on names leaves alone what
// becomes no name: a long description, and long keys in an example, a
// default or an extension.
func TestLongTextThatNamesNothing(t *testing.T) {
	t.Chdir(t.TempDir())
	long := strings.Repeat("k", 4096)
	spec := "openapi: 3.0.3\ninfo: {title: t, version: \"1\", description: " + strings.Repeat("d", 100<<10) + "}\n" +
		"x-vendor: {" + long + ": 1}\npaths:\n  /x:\n    get:\n      operationId: getX\n      responses:\n        \"200\":\n          description: ok\n" +
		"          content:\n            application/json:\n              schema: {type: object, additionalProperties: {type: integer}, default: {" + long + ": 1}}\n" +
		"              example: {" + long + ": 2}\n"
	writeFile(t, "spec.yaml", spec)
	if code, _, stderr := runCLI(t, "generate", "-spec", "spec.yaml", "-package", "x", "-o", "x.gen.go"); code != exitOK {
		t.Fatalf("exit %d, stderr:\n%.1000s", code, stderr)
	}
}
