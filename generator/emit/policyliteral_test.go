package emit

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
)

// grownPolicy has a field the runtime's policies do not have yet: its
// literal must carry it, with no edit of the printer.
type grownPolicy struct {
	Policy  string             `policy:"-"`
	Window  runtime.WindowType `policy:"window"`
	Size    int                `policy:"size,when=window:count"`
	Span    time.Duration      `policy:"span,when=window:time"`
	Hedge   time.Duration      `policy:"hedge"`
	Retries runtime.Match      `policy:"on"`
	Budget  *runtime.Budget    `policy:"budget"`
}

func TestPolicyLiteralFollowsTheTags(t *testing.T) {
	p := &grownPolicy{Policy: "g", Window: runtime.TimeWindow, Size: 9, Span: time.Minute, Hedge: 250 * time.Millisecond,
		Retries: runtime.Match{Transport: true, Codes: []int{503}}, Budget: &runtime.Budget{Ratio: 0.5, MinPerSecond: 1}}
	got := strings.Join(strings.Fields(fmt.Sprintf("%#v", policyLiteral(p))), " ")
	for _, want := range []string{
		`emit.grownPolicy{ Policy: "g",`, "Window: runtime.TimeWindow,", "Span: time.Minute,", "Hedge: 250 * time.Millisecond,",
		"Retries: runtime.Match{Transport: true, Codes: []int{503}},", "Budget: &runtime.Budget{ Ratio: 0.5, MinPerSecond: 1.0, },",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the literal lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Size") {
		t.Errorf("the literal sets Size, which a time window does not read:\n%s", got)
	}
}
