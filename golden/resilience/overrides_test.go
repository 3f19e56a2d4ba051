package resilience

import (
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
)

// TestOverridesNameBreakerInstances: an operation-scoped breaker is
// overridden by its instance name (policy/operationId), alone; a time
// window takes windowDuration.
func TestOverridesNameBreakerInstances(t *testing.T) {
	o, err := runtime.ParseOverrides([]byte(`{"breakers": {
		"perop/perOperationOne": {"halfOpenCalls": 1, "recordOn": ["transport", 503]},
		"timed": {"windowDuration": "10s"}
	}}`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient("http://127.0.0.1:1", WithOverrides(o))
	if err != nil {
		t.Fatal(err)
	}
	b := c.Breakers()
	one, two := b["perop/perOperationOne"].Policy(), b["perop/perOperationTwo"].Policy()
	if one.HalfOpenCalls != 1 || one.RecordOn.Timeout || len(one.RecordOn.Classes) != 0 || one.RecordOn.Codes[0] != 503 {
		t.Fatalf("perOperationOne: %+v", one)
	}
	if two.HalfOpenCalls != 10 || !two.RecordOn.Timeout {
		t.Fatalf("perOperationTwo changed: %+v", two)
	}
	if p := b["timed"].Policy(); p.WindowType != runtime.TimeWindow || p.WindowDuration != 10*time.Second {
		t.Fatalf("timed: %+v", p)
	}
	// The policy name of an operation-scoped breaker is not an instance.
	o, _ = runtime.ParseOverrides([]byte(`{"breakers": {"perop": {"halfOpenCalls": 1}}}`))
	if _, err := NewClient("http://127.0.0.1:1", WithOverrides(o)); err == nil {
		t.Fatal("an override of no breaker instance was accepted")
	}
}
