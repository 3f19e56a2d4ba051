package model

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
)

// grown is a policy with fields the runtime's do not have yet: a walk of
// its tags must list them with no edit of the walker.
type grown struct {
	Name   string             `policy:"-"`
	Mode   runtime.WindowType `policy:"mode"`
	Size   int                `policy:"size,when=mode:count"`
	Span   time.Duration      `policy:"span,when=mode:time"`
	Rate   float64            `policy:"rate,percent"`
	Hedge  time.Duration      `policy:"hedge"`
	On     runtime.Match      `policy:"on"`
	Budget *runtime.Budget    `policy:"budget"`
	Note   string
}

func TestPolicyFieldsFollowTheTags(t *testing.T) {
	p := grown{Name: "g", Size: 3, Span: time.Minute, Rate: 50, Hedge: 1500 * time.Millisecond, On: runtime.Match{Timeout: true, Classes: []int{5}}, Note: "untagged"}
	if got, want := Settings(&p), []Setting{{"mode", "count"}, {"size", "3"}, {"rate", "50%"}, {"hedge", "1.5s"}, {"on", "timeout, 5xx"}, {"budget", "none"}}; !slices.Equal(got, want) {
		t.Errorf("Settings = %v, want %v", got, want)
	}
	p.Mode = runtime.TimeWindow
	p.Budget = &runtime.Budget{Ratio: 0.2, MinPerSecond: 10}
	got, err := json.Marshal(PolicyJSON(&p))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"mode":"time","span":"1m","rate":50,"hedge":"1.5s","on":["timeout","5xx"],"budget":{"ratio":0.2,"minPerSecond":10}}`; string(got) != want {
		t.Errorf("PolicyJSON = %s, want %s", got, want)
	}
	if got, want := PolicyKeys(grown{}), []string{"mode", "size", "span", "rate", "hedge", "on", "budget"}; !slices.Equal(got, want) {
		t.Errorf("PolicyKeys = %v, want %v", got, want)
	}
	var goNames []string
	for _, f := range LiteralFields(&p) {
		goNames = append(goNames, f.Go)
	}
	if want := []string{"Name", "Mode", "Span", "Rate", "Hedge", "On", "Budget"}; !slices.Equal(goNames, want) {
		t.Errorf("LiteralFields = %v, want %v", goNames, want)
	}
	// Registered leaves out what does not apply (Size of a time window)
	// and what is not tagged, and copies the budget.
	r := Registered(p)
	want := p
	want.Size, want.Note = 0, ""
	if !reflect.DeepEqual(r, want) || r.Budget == p.Budget {
		t.Errorf("Registered = %+v, want %+v with its own budget", r, want)
	}
}
