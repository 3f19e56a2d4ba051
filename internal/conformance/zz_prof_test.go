package conformance

import (
	"os"
	"testing"
	"time"

	"github.com/resgen/resgen/generator"
)

func TestZZPlanTime(t *testing.T) {
	spec := os.Getenv("ZZSPEC")
	if spec == "" {
		t.Skip()
	}
	res, err := generator.Generate(t.Context(), generator.Config{Spec: spec, Package: "client"})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := loadOracle(spec)
	if err != nil {
		data, _, _ := generator.Repaired(spec)
		if doc, err = loadOracleData(spec, data); err != nil {
			t.Fatal(err)
		}
	}
	p := &planner{doc: doc, is31: doc.IsOpenAPI31OrLater()}
	for _, op := range res.Model.Operations {
		st := time.Now()
		_, skips := p.plan(op)
		if d := time.Since(st); d > 200*time.Millisecond {
			t.Logf("%s %v", op.Name, d)
		}
		if os.Getenv("ZZV") != "" {
			for _, s := range skips {
				t.Logf("SKIP %s [%s] %s", s.op, s.what, oneLine(s.reason))
			}
		}
	}
}
