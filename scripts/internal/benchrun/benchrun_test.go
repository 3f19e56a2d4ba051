//go:build unix

package benchrun

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestMedianOf(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{4}, 4},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{9, 1, 1}, 1},
	} {
		in := slices.Clone(c.in)
		if got := MedianOf(in); got != c.want {
			t.Errorf("MedianOf(%v) = %v, want %v", c.in, got, c.want)
		}
		if !slices.Equal(in, c.in) {
			t.Errorf("MedianOf reordered its argument: %v, was %v", in, c.in)
		}
	}
}

func TestMiB(t *testing.T) {
	for kib, want := range map[float64]string{512: "0 MiB", 300 << 10: "300 MiB", 3 << 19: "1.50 GiB"} {
		if got := MiB(kib); got != want {
			t.Errorf("MiB(%v) = %q, want %q", kib, got, want)
		}
	}
}

// TestMeasure runs a real child: its output is kept, and its wall time and
// peak RSS come back (a shell has a resident set of some hundred KiB).
func TestMeasure(t *testing.T) {
	m, err := Measure(context.Background(), t.TempDir(), []string{"BENCHRUN_TEST=x"}, "sh", "-c", `echo "out $BENCHRUN_TEST"; echo err >&2`)
	if err != nil {
		t.Fatal(err)
	}
	if m.Out != "out x\nerr\n" {
		t.Errorf("Out = %q", m.Out)
	}
	if m.Wall <= 0 || m.RSSKiB <= 0 {
		t.Errorf("Wall %v, RSSKiB %d: want both positive", m.Wall, m.RSSKiB)
	}
	m, err = Measure(context.Background(), "", nil, "sh", "-c", "echo broken; exit 3")
	if err == nil || !strings.Contains(m.Out, "broken") {
		t.Errorf("a failing child: err %v, out %q; want an error and its output", err, m.Out)
	}
}

func TestLastLines(t *testing.T) {
	if got := LastLines("a\nb\nc\n", 2); got != "b\nc" {
		t.Errorf("LastLines = %q", got)
	}
	if got := LastLines("a\n", 5); got != "a" {
		t.Errorf("LastLines = %q", got)
	}
}
