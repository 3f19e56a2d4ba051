package build

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/generator/policy"
)

// TestBuildOnlyReadsThePolicies: policy's Result is a finished stage's
// output. Building twice from one Result gives the same model both times
// (a build that counted into or named policy's breaker instances and
// retry policies would count twice or rename on the second run), and the
// Result is afterwards just as a fresh Resolve of the same spec gives it.
// The specs have shared and per-operation breakers, named, inline and
// built-in retries, declared and made keys, integer keys and key headers
// that cannot carry a key.
func TestBuildOnlyReadsThePolicies(t *testing.T) {
	for _, name := range []string{"resilience.yaml", "petstore.yaml", "idemkeys.yaml", "idemkeyunusable.yaml", "callcontract.yaml"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("..", "..", "testdata", "specs", name)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s, diags, err := load.Load(context.Background(), path, data, nil, nil)
			if err != nil || diags.HasErrors() {
				t.Fatalf("load: %v %v", err, diags)
			}
			pol, fresh := policy.Resolve(s), policy.Resolve(s)
			if !reflect.DeepEqual(pol, fresh) {
				t.Fatal("two Resolves of one spec differ")
			}
			first, _ := Model(s, pol, "x", name)
			if len(first.Breakers) == 0 || len(first.Operations) == 0 {
				t.Fatalf("%d breakers, %d operations: the spec does not exercise policies", len(first.Breakers), len(first.Operations))
			}
			second, _ := Model(s, pol, "x", name)
			if !reflect.DeepEqual(first, second) {
				t.Error("a second build from the same Result gives another model")
			}
			for i, bi := range first.Breakers {
				if n := second.Breakers[i].Operations; bi.Operations != n {
					t.Errorf("breaker %s: %d operations, then %d", bi.Instance, bi.Operations, n)
				}
			}
			if !reflect.DeepEqual(pol, fresh) {
				t.Error("build changed the Result it read")
			}
			for _, bi := range pol.Instances() {
				if bi.Var != "" || bi.Const != "" || bi.Operations != 0 {
					t.Errorf("policy's breaker instance %s carries build's names or counts: %+v", bi.Instance, bi)
				}
			}
		})
	}
}
