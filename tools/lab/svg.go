package lab

import (
	"bytes"
	"encoding/xml"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/resgen/resgen/internal/sanitize"
)

// The chart's layout, in SVG user units (pixels at 100%). The legend sits
// right of the plot area, as wide as its longest entry needs, so that it
// never covers a line; mark labels sit in rows above the plot area so
// that they never cover a line either.
const (
	svgWidth     = 960
	svgMinHeight = 480
	plotLeft     = 72
	titleY       = 26
	markTop      = 44 // baseline of the first row of mark labels
	markRowH     = 15
	legendRowH   = 20
	legendGap    = 24 // between the plot area and the legend
	legendSwatch = 28 // the line sample and its gap before the name
	bottomSpace  = 58 // x tick labels and the x label
	fontSize     = 12
	// charW is a generous estimate of a sans-serif glyph's advance at
	// fontSize, for sizing the legend and keeping mark labels apart.
	charW = 0.62 * fontSize
	// titleCharW is the same for the bold 16px title.
	titleCharW = 0.62 * 16
)

// Bounds on what one chart draws, so that a file stays small whatever
// the counts: a series above maxPoints is reduced to the minimum and
// maximum of each of downBuckets buckets (peaks survive).
const (
	maxPoints   = 2000
	downBuckets = 600
	maxSeries   = 24
	maxMarks    = 24
	maxMarkRows = 3
	maxLegend   = 40 // runes of a legend entry
	maxLabel    = 34 // runes of a mark label
	maxTitle    = 95 // runes of a title or axis label: (svgWidth-16)/titleCharW
)

// palette is Okabe and Ito's colour-blind-safe set, the yellow last (it
// is faint on white); beyond it, colours repeat with a dash pattern.
var palette = [...]string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"}

var dashes = [...]string{"", "7 3", "2 2"}

// chart is a Plot laid out: what is drawn, and where.
type chart struct {
	series []Series
	pts    [][]Point // each series' drawable points, downsampled
	hidden int       // series beyond maxSeries, not drawn
	marks  []Mark
	labels []markLabel
	xt, yt ticks
	empty  bool // no point at all
	// The plot area, the legend's left edge and the document's height.
	left, right, top, bottom, legendX, height float64
}

func (p Plot) layout() chart {
	c := chart{series: p.Series, left: plotLeft}
	if len(c.series) > maxSeries {
		c.series, c.hidden = c.series[:maxSeries], len(c.series)-maxSeries
	}
	legend := 0
	for _, s := range c.series {
		legend = max(legend, min(utf8.RuneCountInString(legendName(s)), maxLegend))
	}
	c.right = svgWidth - 16 - legendGap - legendSwatch - max(12, float64(legend)*charW)
	c.legendX = c.right + legendGap

	// Data ranges over finite points and marks; 0 is on the y axis
	// unless the data are all negative, so counts start from the floor.
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := 0.0, math.Inf(-1)
	c.pts = make([][]Point, len(c.series))
	for i, s := range c.series {
		c.pts[i] = downsample(finite(s.Points))
		for _, q := range c.pts[i] {
			xmin, xmax = min(xmin, q.X), max(xmax, q.X)
			ymin, ymax = min(ymin, q.Y), max(ymax, q.Y)
		}
	}
	for _, m := range p.Marks {
		if len(c.marks) < maxMarks && !math.IsInf(m.X, 0) && !math.IsNaN(m.X) {
			c.marks = append(c.marks, m)
			xmin, xmax = min(xmin, m.X), max(xmax, m.X)
		}
	}
	c.empty = math.IsInf(ymax, -1)
	if math.IsInf(xmin, 1) {
		xmin, xmax = 0, 1
	}
	if c.empty {
		ymax = 1
	}
	c.xt = ticksFor(xmin, xmax, 8)
	c.yt = ticksFor(ymin, ymax, 6)

	var rows int
	c.labels, rows = placeMarks(c.marks, c.px)
	c.top = float64(markTop + rows*markRowH)
	entries := len(c.series)
	if c.hidden > 0 {
		entries++
	}
	c.height = max(svgMinHeight, c.top+float64(entries*legendRowH+bottomSpace))
	c.bottom = c.height - bottomSpace
	return c
}

// legendName is a series' legend entry.
func legendName(s Series) string {
	if len(s.Points) == 0 {
		return s.Name + " (no data)"
	}
	return s.Name
}

// px and py map data to the plot area (clamped to it).
func (c *chart) px(x float64) float64 {
	return clamp(c.left+(x-c.xt.lo)/(c.xt.hi-c.xt.lo)*(c.right-c.left), c.left, c.right)
}

func (c *chart) py(y float64) float64 {
	return clamp(c.bottom-(y-c.yt.lo)/(c.yt.hi-c.yt.lo)*(c.bottom-c.top), c.top, c.bottom)
}

// SVG draws the plot as a standalone SVG document: title, axes with
// 1-2-5 ticks and labels, one polyline per series in a fixed colour,
// a legend, and each Mark as a labelled dashed vertical line. The same
// Plot always gives the same bytes. All text is escaped for XML and has
// its control characters removed.
func (p Plot) SVG() []byte {
	c := p.layout()
	midX, midY := (c.left+c.right)/2, (c.top+c.bottom)/2
	var b svgBuf
	b.s(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.s(`<svg xmlns="http://www.w3.org/2000/svg" width="`).i(svgWidth).s(`" height="`).f(c.height)
	b.s(`" viewBox="0 0 `).i(svgWidth).s(" ").f(c.height).s(`" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="`).i(fontSize).s("\">\n")
	// A white ground: viewers in dark mode would otherwise show black
	// text on black.
	b.s(`<rect width="100%" height="100%" fill="#ffffff"/>` + "\n")
	// The title is centred over the plot area unless it is too wide for
	// that, and cut to the document's width.
	title := truncate(sanitize.Comment(p.Title), maxTitle)
	tw := float64(utf8.RuneCountInString(title)) * titleCharW
	b.s(`<text x="`).f(clamp(midX, tw/2+8, svgWidth-tw/2-8)).s(`" y="`).i(titleY).s(`" text-anchor="middle" font-size="16" font-weight="bold">`).text(title, maxTitle).s("</text>\n")

	// Grid, ticks and their labels, axes and their labels.
	b.s(`<g stroke="#e3e3e3" stroke-width="1">` + "\n")
	for _, v := range c.yt.values() {
		y := c.py(v)
		b.s(`<line x1="`).f(c.left).s(`" x2="`).f(c.right).s(`" y1="`).f(y).s(`" y2="`).f(y).s("\"/>\n")
	}
	b.s("</g>\n")
	b.s(`<g fill="#333333" text-anchor="end">` + "\n")
	for _, v := range c.yt.values() {
		b.s(`<text x="`).f(c.left - 7).s(`" y="`).f(c.py(v)).s(`" dy="0.35em">`).s(c.yt.label(v)).s("</text>\n")
	}
	b.s("</g>\n")
	b.s(`<g fill="#333333" text-anchor="middle">` + "\n")
	for _, v := range c.xt.values() {
		b.s(`<text x="`).f(c.px(v)).s(`" y="`).f(c.bottom + 18).s(`">`).s(c.xt.label(v)).s("</text>\n")
	}
	b.s("</g>\n")
	b.s(`<g stroke="#333333" stroke-width="1">` + "\n")
	for _, v := range c.xt.values() {
		x := c.px(v)
		b.s(`<line x1="`).f(x).s(`" x2="`).f(x).s(`" y1="`).f(c.bottom).s(`" y2="`).f(c.bottom + 5).s("\"/>\n")
	}
	b.s(`<line x1="`).f(c.left).s(`" x2="`).f(c.left).s(`" y1="`).f(c.top).s(`" y2="`).f(c.bottom).s("\"/>\n")
	b.s(`<line x1="`).f(c.left).s(`" x2="`).f(c.right).s(`" y1="`).f(c.bottom).s(`" y2="`).f(c.bottom).s("\"/>\n")
	b.s("</g>\n")
	b.s(`<text x="`).f(midX).s(`" y="`).f(c.bottom+42).s(`" text-anchor="middle">`).text(p.XLabel, maxTitle).s("</text>\n")
	b.s(`<text transform="translate(18 `).f(midY).s(`) rotate(-90)" text-anchor="middle">`).text(p.YLabel, maxTitle).s("</text>\n")

	// Marks: the line runs from its label's row down to the x axis.
	for i, m := range c.marks {
		x, y0 := c.px(m.X), c.top
		if l := c.labels[i]; l.row >= 0 {
			y0 = float64(markTop+l.row*markRowH) + 3
		}
		b.s(`<line x1="`).f(x).s(`" x2="`).f(x).s(`" y1="`).f(y0).s(`" y2="`).f(c.bottom).s(`" stroke="#555555" stroke-width="1" stroke-dasharray="5 4"/>` + "\n")
	}
	for i, m := range c.marks {
		l := c.labels[i]
		if l.row < 0 {
			continue
		}
		anchor, x := "start", c.px(m.X)+3
		if l.end {
			anchor, x = "end", c.px(m.X)-3
		}
		b.s(`<text x="`).f(x).s(`" y="`).i(markTop+l.row*markRowH).s(`" text-anchor="`).s(anchor).s(`" font-size="11" fill="#333333" stroke="#ffffff" stroke-width="3" paint-order="stroke">`).text(m.Label, maxLabel).s("</text>\n")
	}

	// Series, then the legend.
	for i, s := range c.series {
		if len(c.pts[i]) == 0 {
			continue
		}
		b.s(`<g><title>`).text(s.Name, 200).s("</title>\n")
		b.s(`<polyline fill="none"`).stroke(i, 1.6).s(` stroke-linejoin="round" points="`)
		prevY := 0.0
		for j, q := range c.pts[i] {
			x, y := c.px(q.X), c.py(q.Y)
			if j > 0 {
				b.s(" ")
				if p.Step {
					// Hold the previous value until this x.
					b.f(x).s(",").f(prevY).s(" ")
				}
			}
			b.f(x).s(",").f(y)
			prevY = y
		}
		b.s("\"/>\n</g>\n")
	}
	for i, s := range c.series {
		y := c.top + float64(i*legendRowH+8)
		b.s(`<line x1="`).f(c.legendX).s(`" x2="`).f(c.legendX+22).s(`" y1="`).f(y).s(`" y2="`).f(y).s(`"`).stroke(i, 2.5).s("/>\n")
		b.s(`<text x="`).f(c.legendX+legendSwatch).s(`" y="`).f(y).s(`" dy="0.35em">`).text(legendName(s), maxLegend).s("</text>\n")
	}
	if c.hidden > 0 {
		y := c.top + float64(len(c.series)*legendRowH+8)
		b.s(`<text x="`).f(c.legendX).s(`" y="`).f(y).s(`" dy="0.35em" fill="#555555">+`).i(c.hidden).s(" more series not drawn</text>\n")
	}
	if c.empty {
		b.s(`<text x="`).f(midX).s(`" y="`).f(midY).s(`" text-anchor="middle" fill="#777777">no data</text>` + "\n")
	}
	b.s("</svg>\n")
	return b.Bytes()
}

// finite returns ps without the points that cannot be drawn (NaN, ±Inf),
// and ps itself when all can.
func finite(ps []Point) []Point {
	ok := func(q Point) bool {
		return !math.IsNaN(q.X) && !math.IsNaN(q.Y) && !math.IsInf(q.X, 0) && !math.IsInf(q.Y, 0)
	}
	for i, q := range ps {
		if !ok(q) {
			out := append([]Point(nil), ps[:i]...)
			for _, q := range ps[i+1:] {
				if ok(q) {
					out = append(out, q)
				}
			}
			return out
		}
	}
	return ps
}

// downsample bounds a long series to 2×downBuckets+2 points: the first,
// the last, and in each bucket of consecutive points the lowest and the
// highest, in their order, so spikes and dips stay visible.
func downsample(ps []Point) []Point {
	if len(ps) <= maxPoints {
		return ps
	}
	out := make([]Point, 0, 2*downBuckets+2)
	out = append(out, ps[0])
	inner := ps[1 : len(ps)-1]
	for k := range downBuckets {
		bucket := inner[k*len(inner)/downBuckets : (k+1)*len(inner)/downBuckets]
		if len(bucket) == 0 {
			continue
		}
		lo, hi := 0, 0
		for j, q := range bucket {
			if q.Y < bucket[lo].Y {
				lo = j
			}
			if q.Y > bucket[hi].Y {
				hi = j
			}
		}
		switch {
		case lo == hi:
			out = append(out, bucket[lo])
		case lo < hi:
			out = append(out, bucket[lo], bucket[hi])
		default:
			out = append(out, bucket[hi], bucket[lo])
		}
	}
	return append(out, ps[len(ps)-1])
}

// ticks is an axis: from lo to hi in steps of step, all multiples of a
// 1, 2 or 5 times a power of ten.
type ticks struct {
	lo, hi, step float64
	k0, n        int // lo = k0·step; n+1 ticks
	decimals     int
}

// ticksFor picks about want steps covering [lo, hi].
func ticksFor(lo, hi float64, want int) ticks {
	if !(hi > lo) { // one value: give it some room
		if pad := math.Abs(lo) / 10; pad > 0 {
			lo, hi = lo-pad, hi+pad
		} else {
			lo, hi = 0, 1
		}
	}
	span := hi - lo
	if math.IsInf(span, 0) || math.IsNaN(span) {
		lo, hi, span = 0, 1, 1
	}
	// Of the 1-2-5 steps around span/want, the one giving the nearest
	// number of steps to want.
	mag := math.Pow(10, math.Floor(math.Log10(span/float64(want))))
	step := mag
	for _, f := range []float64{2, 5, 10} {
		if math.Abs(span/(f*mag)-float64(want)) < math.Abs(span/step-float64(want)) {
			step = f * mag
		}
	}
	k0 := math.Floor(lo/step + 1e-9)
	k1 := math.Ceil(hi/step - 1e-9)
	t := ticks{step: step, k0: int(k0), n: int(k1 - k0)}
	t.lo, t.hi = k0*step, k1*step
	if t.n < 1 {
		t.n, t.hi = 1, t.lo+step
	}
	t.decimals = min(10, max(0, int(-math.Floor(math.Log10(step)+1e-9))))
	return t
}

func (t ticks) values() []float64 {
	vs := make([]float64, 0, t.n+1)
	for i := 0; i <= t.n; i++ {
		vs = append(vs, float64(t.k0+i)*t.step)
	}
	return vs
}

func (t ticks) label(v float64) string {
	s := strconv.FormatFloat(v, 'f', t.decimals, 64)
	if strings.Trim(s, "-0.") == "" {
		return "0"
	}
	return s
}

// markLabel is where a mark's label goes: its row (-1: not shown) and
// whether it ends at the line (near the right edge) instead of starting.
type markLabel struct {
	row int
	end bool
}

// placeMarks puts each mark's label in the first row above the plot area
// where it does not overlap another label, taking marks from left to
// right. A label that fits in no row is left out; its line then starts at
// the plot area's top. (Where another mark's line crosses a label, the
// label's white halo hides it.)
func placeMarks(marks []Mark, px func(float64) float64) (labels []markLabel, rows int) {
	type placed struct {
		from, to float64
		row      int
	}
	order := make([]int, len(marks))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return marks[order[a]].X < marks[order[b]].X })
	labels = make([]markLabel, len(marks))
	var done []placed
	for _, i := range order {
		x := px(marks[i].X)
		w := float64(min(utf8.RuneCountInString(sanitize.Comment(marks[i].Label)), maxLabel))*charW*11/fontSize + 6
		me := placed{from: x, to: x + w, row: -1}
		if x+w > svgWidth-4 {
			me.from, me.to, labels[i].end = x-w, x, true
		}
		for r := 0; r < maxMarkRows && me.row < 0; r++ {
			free := true
			for _, o := range done {
				if o.row == r && me.from < o.to+4 && o.from < me.to+4 {
					free = false
				}
			}
			if free {
				me.row, rows = r, max(rows, r+1)
			}
		}
		labels[i].row = me.row
		done = append(done, me)
	}
	return labels, rows
}

func clamp(v, lo, hi float64) float64 { return min(max(v, lo), hi) }

// svgBuf writes SVG text; numbers with one decimal, so the bytes are the
// same on every platform and the files small.
type svgBuf struct{ bytes.Buffer }

func (b *svgBuf) s(s string) *svgBuf { b.WriteString(s); return b }
func (b *svgBuf) i(n int) *svgBuf    { b.WriteString(strconv.Itoa(n)); return b }

// stroke writes series i's colour, width and dash pattern.
func (b *svgBuf) stroke(i int, width float64) *svgBuf {
	b.s(` stroke="`).s(palette[i%len(palette)]).s(`" stroke-width="`).f(width).s(`"`)
	if d := dashes[i/len(palette)%len(dashes)]; d != "" {
		b.s(` stroke-dasharray="`).s(d).s(`"`)
	}
	return b
}
func (b *svgBuf) f(v float64) *svgBuf {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	if s == "-0" {
		s = "0"
	}
	b.WriteString(s)
	return b
}

// text writes untrusted text as XML character data: control characters
// and bidirectional controls removed (sanitize.Comment), cut to max runes,
// and escaped (xml.EscapeText also replaces runes XML cannot hold).
func (b *svgBuf) text(s string, max int) *svgBuf {
	xml.EscapeText(b, []byte(truncate(sanitize.Comment(s), max)))
	return b
}

// truncate cuts s to max runes, the last being an ellipsis.
func truncate(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:max-1]), " ") + "…"
}
