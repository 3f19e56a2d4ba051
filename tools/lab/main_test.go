package lab

import (
	"context"
	"testing"

	"go.uber.org/goleak"

	"github.com/resgen/resgen/generator"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// labTarget resolves an operation of testdata/specs/lab.yaml.
func labTarget(t *testing.T, opID string) *Target {
	t.Helper()
	tg, err := Resolve(context.Background(), generator.Config{Spec: "../../testdata/specs/lab.yaml"}, opID)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}
