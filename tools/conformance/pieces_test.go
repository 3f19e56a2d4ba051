package conformance

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

const piecesSpec = "testdata/pieces.yaml"

// TestHarnessJudgesBodiesInPieces: every download, upload and event-stream
// operation of pieces.yaml (and of pieces31.yaml, whose files are 3.1's
// contentEncoding) is called, and every call of each is judged (its bytes
// or events compared with what was sent), none skipped.
func TestHarnessJudgesBodiesInPieces(t *testing.T) {
	for _, spec := range []struct {
		path                        string
		downloads, uploads, streams int
	}{{piecesSpec, 3, 4, 5}, {"testdata/pieces31.yaml", 0, 2, 0}} {
		r := Run(t.Context(), spec.path, testOptions(t))
		if r.Failed() || len(r.NeverCalled) > 0 {
			t.Fatalf("%s: never called %v, failures %+v", spec.path, r.NeverCalled, r.Failures)
		}
		for _, k := range []struct {
			name string
			c    Coverage
			ops  int
		}{{"downloads", r.Downloads, spec.downloads}, {"uploads", r.Uploads, spec.uploads}, {"streams", r.Streams, spec.streams}} {
			t.Logf("%s: %s: %s", spec.path, k.name, k.c)
			if k.c.Operations != k.ops || k.c.Called != k.ops {
				t.Errorf("%s: %s: %d operations, %d called; the spec has %d", spec.path, k.name, k.c.Operations, k.c.Called, k.ops)
			}
			if k.c.Calls < k.ops || k.c.Judged != k.c.Calls {
				t.Errorf("%s: %s: %d calls, %d judged: every call must be judged", spec.path, k.name, k.c.Calls, k.c.Judged)
			}
		}
	}
}

// TestFileBytesAreOpaque: the bytes synthesized for files hold every byte
// value, invalid UTF-8 and a multipart delimiter, run past 64 KiB, and
// differ by seed.
func TestFileBytesAreOpaque(t *testing.T) {
	a, b := fileBytes(1), fileBytes(2)
	if len(a) <= 64<<10 || bytes.Equal(a, b) || !bytes.Contains(a, []byte("\r\n--")) || utf8.Valid(a) {
		t.Fatalf("fileBytes: %d bytes, equal for two seeds: %v", len(a), bytes.Equal(a, b))
	}
	for i := range 256 {
		if a[i] != byte(i) {
			t.Fatalf("byte %d is %d", i, a[i])
		}
	}
	if d := bytesDiff(a, a[:len(a)-1]); d == "" {
		t.Fatal("bytesDiff finds no difference in a body missing its last byte")
	}
}

// TestMutantsOfBodiesInPieces: a download that loses its last byte, a
// file part that does, an io.Reader body read twice, SSE ids dropped, SSE
// data lines joined wrongly, a last JSON line lost and an event decoded
// into the wrong union variant are each killed.
func TestMutantsOfBodiesInPieces(t *testing.T) {
	kinds := []string{"upload-read-twice", "download-last-byte-dropped", "file-part-last-byte-dropped",
		"sse-id-dropped", "sse-data-lines-joined", "jsonl-last-line-dropped", "union-wrong-variant"}
	rep := RunMutants(t.Context(), []string{piecesSpec}, MutantOptions{
		Options: testOptions(t), PerSpec: len(kinds), PerKind: 1,
		Kinds: regexp.MustCompile(`^(` + strings.Join(kinds, "|") + `)$`),
	})
	var out bytes.Buffer
	rep.Print(&out, true)
	t.Log(out.String())
	got := map[string]bool{}
	for _, r := range rep.Results {
		got[r.Site.Kind] = true
		if r.Status != "killed" || r.By == "" {
			t.Errorf("%s: %s (%s); want killed", r.Site.Kind, r.Status, r.By)
		}
	}
	for _, k := range kinds {
		if !got[k] {
			t.Errorf("%s: no mutant planted in %s", k, piecesSpec)
		}
	}
}
