package generator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const realImageSpec = "../shared/specs/real/openstack-image-v2.16.yaml"

// TestOverlayOnARealSpec adds x-resilience to an unmodified third-party
// spec with an overlay; the generated methods carry the overlay's
// policies, and the output is golden (golden/overlay-openstack-image).
func TestOverlayOnARealSpec(t *testing.T) {
	t.Chdir("..")
	if _, err := os.Stat(realImageSpec); err != nil {
		t.Skipf("no corpus: %v", err)
	}
	res, err := Generate(context.Background(), Config{Spec: realImageSpec, Package: "overlayopenstackimage", Overlays: []string{"testdata/overlays/openstack-image.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, filepath.Join("golden", "overlay-openstack-image", "client.gen.go"), res.Source)
	src := string(res.Source)
	for _, want := range []string{
		// POST /v2/images: keyed by the overlay, so retried with "reads".
		"// ImagesPost calls POST /v2/images.",
		"//   - retry [RetryReads] (on: Idempotency-Key header).",
		// The file upload path: its own breaker, no per-attempt timeout.
		"//   - breaker [BreakerUploads].",
		"//   - timeouts: none per attempt, 15m in all.",
		// A DELETE keeps the defaults' breaker and the built-in retry.
		"//   - breaker [BreakerGlance].",
		// Each breaker's and retry policy's settings are said once, above
		// its constant.
		"\t// BreakerGlance is the name of the circuit breaker \"glance\" (policy glance, scope shared):\n" +
			"\t//   - windowType: count\n\t//   - windowSize: 100\n\t//   - minimumCalls: 10\n\t//   - failureRateThreshold: 40%\n",
		"\t// RetryReads is the name of the retry policy \"reads\":\n\t//   - maxAttempts: 4\n\t//   - backoff: exponential\n\t//   - initialInterval: 250ms\n",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("generated client lacks %q", want)
		}
	}
	if got := strings.Count(src, "retry [RetryReads] (on: GET)"); got < 20 {
		t.Errorf("%d GET methods document the overlay's reads retry; want every GET", got)
	}
}

// TestOverlayErrorsNameTheOverlay: a mistake an overlay brings is
// reported at the overlay's file and line, not the spec's.
func TestOverlayErrorsNameTheOverlay(t *testing.T) {
	t.Chdir("..")
	if _, err := os.Stat(realImageSpec); err != nil {
		t.Skipf("no corpus: %v", err)
	}
	_, err := Generate(context.Background(), Config{Spec: realImageSpec, Package: "x", Overlays: []string{"testdata/overlays/retry-on-post.yaml"}})
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("want an input error, got %v", err)
	}
	var got []string
	for _, d := range ie.Diags {
		if strings.HasPrefix(d.File, "testdata/overlays/") {
			got = append(got, strings.SplitN(d.String(), "\n", 2)[0])
		}
	}
	want := []string{
		"testdata/overlays/retry-on-post.yaml:7:9: error: retry on POST /v2/images, which is not retry-safe: a POST without an idempotency key",
		"testdata/overlays/retry-on-post.yaml:8:13: warning: target $.paths['/v2/nope'].get selects nothing in the spec",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
