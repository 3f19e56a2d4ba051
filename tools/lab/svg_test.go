package lab

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// svgDoc is what a test reads back from an SVG: every polyline's points
// and every text node, decoded by encoding/xml (which fails on anything
// not well-formed).
type svgDoc struct {
	root      string
	polylines [][]Point
	texts     []string
	elements  map[string]int
}

func parseSVG(t *testing.T, data []byte) svgDoc {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	doc := svgDoc{elements: map[string]int{}}
	var stack []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v\n%s", err, data)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if doc.root == "" {
				doc.root = tok.Name.Local
				if tok.Name.Space != "http://www.w3.org/2000/svg" {
					t.Errorf("root namespace %q", tok.Name.Space)
				}
			}
			doc.elements[tok.Name.Local]++
			stack = append(stack, tok.Name.Local)
			if tok.Name.Local == "polyline" {
				for _, a := range tok.Attr {
					if a.Name.Local == "points" {
						doc.polylines = append(doc.polylines, parsePoints(t, a.Value))
					}
				}
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 && (stack[len(stack)-1] == "text" || stack[len(stack)-1] == "title") {
				doc.texts = append(doc.texts, string(tok))
			}
		}
	}
	if doc.root != "svg" {
		t.Fatalf("root element %q, want svg", doc.root)
	}
	return doc
}

func parsePoints(t *testing.T, s string) []Point {
	t.Helper()
	var ps []Point
	for _, pair := range strings.Fields(s) {
		xs, ys, ok := strings.Cut(pair, ",")
		x, err1 := strconv.ParseFloat(xs, 64)
		y, err2 := strconv.ParseFloat(ys, 64)
		if !ok || err1 != nil || err2 != nil {
			t.Fatalf("bad point %q", pair)
		}
		ps = append(ps, Point{x, y})
	}
	return ps
}

func TestSVGDrawsOnePolylinePerSeriesInsideThePlotArea(t *testing.T) {
	for _, p := range fakeReport().Plots {
		c := p.layout()
		doc := parseSVG(t, p.SVG())
		if len(doc.polylines) != len(p.Series) {
			t.Fatalf("%s: %d polylines for %d series", p.Name, len(doc.polylines), len(p.Series))
		}
		for i, line := range doc.polylines {
			n := len(p.Series[i].Points)
			want := n
			if p.Step {
				want = 2*n - 1 // each step holds the value, then moves
			}
			if len(line) != want {
				t.Errorf("%s series %d: %d points drawn for %d (step %v)", p.Name, i, len(line), n, p.Step)
			}
			for _, q := range line {
				if q.X < c.left || q.X > c.right || q.Y < c.top || q.Y > c.bottom {
					t.Fatalf("%s series %d: point %v outside the plot area x %v..%v y %v..%v", p.Name, i, q, c.left, c.right, c.top, c.bottom)
				}
			}
			// The highest value is drawn highest (SVG's y grows downwards).
			hi, drawn := 0, math.Inf(1)
			for j, q := range p.Series[i].Points {
				if q.Y > p.Series[i].Points[hi].Y {
					hi = j
				}
			}
			for _, q := range line {
				drawn = min(drawn, q.Y)
			}
			if want := c.py(p.Series[i].Points[hi].Y); math.Abs(drawn-want) > 0.06 {
				t.Errorf("%s series %d: top at y=%v, want %v", p.Name, i, drawn, want)
			}
		}
		for _, s := range p.Series {
			if !contains(doc.texts, s.Name) {
				t.Errorf("%s: legend lacks %q", p.Name, s.Name)
			}
		}
		for _, m := range p.Marks {
			if !contains(doc.texts, m.Label) {
				t.Errorf("%s: mark %q not labelled", p.Name, m.Label)
			}
		}
		if !contains(doc.texts, p.Title) || !contains(doc.texts, p.XLabel) || !contains(doc.texts, p.YLabel) {
			t.Errorf("%s: title or axis label missing from %q", p.Name, doc.texts)
		}
	}
}

func contains(texts []string, s string) bool {
	for _, t := range texts {
		if t == s {
			return true
		}
	}
	return false
}

func TestSVGIsDeterministic(t *testing.T) {
	for _, p := range fakeReport().Plots {
		if a, b := p.SVG(), fakeReport().Plots[0].SVG(); p.Name == "load" && !bytes.Equal(a, b) {
			t.Fatal("two renders of the same plot differ")
		}
		if !bytes.Equal(p.SVG(), p.SVG()) {
			t.Fatalf("%s: two renders differ", p.Name)
		}
	}
}

func TestSVGEscapesHostileText(t *testing.T) {
	const evil = "</svg><script>alert(1)</script>&amp;\"'"
	p := Plot{
		Name: "x", Title: evil + "\x1b]0;pwn\x07", XLabel: "a\x00b", YLabel: "c\u202ed\r\ne",
		Series: []Series{{Name: evil, Points: []Point{{0, 1}, {1, 2}}}},
		Marks:  []Mark{{0.5, "m\x1b[31m" + evil}},
	}
	data := p.SVG()
	doc := parseSVG(t, data)
	if doc.elements["script"] != 0 {
		t.Fatal("a series name made a script element")
	}
	if doc.elements["svg"] != 1 {
		t.Fatalf("%d svg elements", doc.elements["svg"])
	}
	if !contains(doc.texts, evil) {
		t.Errorf("the hostile name is not shown as text: %q", doc.texts)
	}
	for _, r := range string(data) {
		if r != '\n' && (r < 0x20 || r == 0x7f || r == 0x202e) {
			t.Fatalf("control character %U in the SVG", r)
		}
	}
	if !contains(doc.texts, "a b") || !contains(doc.texts, "cd  e") {
		t.Errorf("axis labels not stripped of controls: %q", doc.texts)
	}
}

func TestSVGDownsamplesLongSeries(t *testing.T) {
	const n = 200_000
	ps := make([]Point, n)
	for i := range ps {
		ps[i] = Point{float64(i) / 1000, float64(i % 7)}
	}
	ps[123_457].Y = 1000 // one spike among 200 000 points must survive
	for _, step := range []bool{false, true} {
		p := Plot{Name: "long", Series: []Series{{Name: "a", Points: ps}, {Name: "b", Points: ps[:maxPoints]}}, Step: step}
		data := p.SVG()
		doc := parseSVG(t, data)
		bound := 2*downBuckets + 2
		if step {
			bound = 2*bound - 1
		}
		if got := len(doc.polylines[0]); got > bound || got < downBuckets {
			t.Errorf("step %v: %d points drawn for %d, want between %d and %d", step, got, n, downBuckets, bound)
		}
		if got, want := len(doc.polylines[1]), maxPoints; !step && got != want {
			t.Errorf("a series of %d points (the limit) drew %d", maxPoints, got)
		}
		c := p.layout()
		top := math.Inf(1)
		for _, q := range doc.polylines[0] {
			top = min(top, q.Y)
		}
		if top != c.top {
			t.Errorf("step %v: the spike was lost (highest point at y=%v, plot top %v)", step, top, c.top)
		}
		if len(data) > 150_000 {
			t.Errorf("step %v: %d bytes for two series", step, len(data))
		}
	}
	// Counts bound the file too: series and marks beyond the limits are
	// not drawn, and the legend says so.
	many := Plot{Name: "many"}
	for i := range 100 {
		many.Series = append(many.Series, Series{Name: strconv.Itoa(i), Points: []Point{{0, 0}, {1, float64(i)}}})
		many.Marks = append(many.Marks, Mark{float64(i) / 100, "m"})
	}
	doc := parseSVG(t, many.SVG())
	if len(doc.polylines) != maxSeries || !contains(doc.texts, "+76 more series not drawn") {
		t.Errorf("%d polylines drawn of 100, texts %q", len(doc.polylines), doc.texts)
	}
}

func TestSVGEmptyPlotAndSeries(t *testing.T) {
	for _, p := range []Plot{
		{},
		{Name: "e", Title: "nothing", Series: []Series{{Name: "none"}}},
		{Name: "nan", Series: []Series{{Name: "nan", Points: []Point{{math.NaN(), 1}, {1, math.Inf(1)}}}}},
		{Name: "one", Series: []Series{{Name: "one", Points: []Point{{3, 0}}}}},
		{Name: "marks only", Marks: []Mark{{2, "down"}}},
	} {
		doc := parseSVG(t, p.SVG())
		if p.Name == "one" {
			if len(doc.polylines) != 1 || len(doc.polylines[0]) != 1 {
				t.Errorf("one point: %v", doc.polylines)
			}
			continue
		}
		if len(doc.polylines) != 0 || !contains(doc.texts, "no data") {
			t.Errorf("%q: polylines %v, texts %q", p.Name, doc.polylines, doc.texts)
		}
	}
	doc := parseSVG(t, Plot{Series: []Series{{Name: "gone"}, {Name: "here", Points: []Point{{0, 1}, {1, 1}}}}}.SVG())
	if len(doc.polylines) != 1 || !contains(doc.texts, "gone (no data)") {
		t.Errorf("an empty series beside a full one: %d polylines, texts %q", len(doc.polylines), doc.texts)
	}
}

func TestTicksAreOneTwoFiveAndCoverTheData(t *testing.T) {
	cases := []struct {
		lo, hi float64
		step   float64
	}{
		{0, 10, 2}, {0, 7.3, 1}, {0, 1234, 200}, {0, 0.037, 0.005}, {-3, 3, 1}, {0, 0, 0.2}, {5, 5, 0.2}, {0, 250, 50}, {0, 60, 10}, {0, 8, 1},
	}
	for _, c := range cases {
		tk := ticksFor(c.lo, c.hi, 6)
		if math.Abs(tk.step-c.step) > 1e-12 {
			t.Errorf("ticksFor(%v, %v) step %v, want %v", c.lo, c.hi, tk.step, c.step)
		}
	}
	for lo := -1000.0; lo < 1000; lo += 77.7 {
		for _, span := range []float64{0.0013, 0.9, 7, 55, 1234, 98765} {
			tk := ticksFor(lo, lo+span, 6)
			m := tk.step / math.Pow(10, math.Floor(math.Log10(tk.step)+1e-9))
			if math.Abs(m-1) > 1e-9 && math.Abs(m-2) > 1e-9 && math.Abs(m-5) > 1e-9 {
				t.Fatalf("ticksFor(%v, %v): step %v is not 1, 2 or 5 × 10^k", lo, lo+span, tk.step)
			}
			if slack := tk.step * 1e-6; tk.lo > lo+slack || tk.hi < lo+span-slack || tk.n > 12 || tk.n < 3 {
				t.Fatalf("ticksFor(%v, %v) = %+v does not cover it in a few steps", lo, lo+span, tk)
			}
			labels := map[string]bool{}
			for _, v := range tk.values() {
				labels[tk.label(v)] = true
			}
			if len(labels) != tk.n+1 {
				t.Fatalf("ticksFor(%v, %v): labels repeat: %v", lo, lo+span, labels)
			}
		}
	}
	if got := ticksFor(0, 0.037, 6).label(0.035); got != "0.035" {
		t.Errorf("label %q", got)
	}
	if got := ticksFor(-1, 1, 6).label(math.Copysign(0, -1)); got != "0" { // a negative zero prints as 0
		t.Errorf("label %q", got)
	}
}

func TestMarkLabelsCloseTogetherTakeSeparateRows(t *testing.T) {
	p := fakeReport().Plots[0] // "server down" at 1 and "open" at 1.3
	c := p.layout()
	if c.labels[0].row == c.labels[1].row {
		t.Errorf("marks at x=1 and x=1.3 share a row: %+v", c.labels)
	}
	if c.labels[0].row != 0 || c.labels[2].row != 0 {
		t.Errorf("marks far apart should share the first row: %+v", c.labels)
	}
}

// TestSVGRendersAsPNG converts each plot with librsvg when the machine
// has it (rsvg-convert, Debian's librsvg2-bin); LAB_PNG_DIR keeps them.
func TestSVGRendersAsPNG(t *testing.T) {
	rsvg, err := exec.LookPath("rsvg-convert")
	if err != nil {
		t.Skip("rsvg-convert not installed")
	}
	dir := os.Getenv("LAB_PNG_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	for _, p := range append(fakeReport().Plots, Plot{Name: "empty", Title: "empty"}) {
		in := filepath.Join(dir, p.Name+".svg")
		out := filepath.Join(dir, p.Name+".png")
		if err := os.WriteFile(in, p.SVG(), 0o644); err != nil {
			t.Fatal(err)
		}
		if msg, err := exec.Command(rsvg, "-o", out, in).CombinedOutput(); err != nil {
			t.Fatalf("rsvg-convert %s: %v\n%s", in, err, msg)
		}
		png, err := os.ReadFile(out)
		if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 2000 {
			t.Fatalf("%s: not a PNG (%d bytes, %v)", out, len(png), err)
		}
	}
}
