package generator

import (
	"context"
	"path/filepath"
	"testing"
)

// checkedModel checks a spec and fails the test on any error.
func checkedModel(t *testing.T, cfg Config) *Checked {
	t.Helper()
	if cfg.Package == "" {
		cfg.Package = "client"
	}
	c, err := Check(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%s: %.500v", cfg.Spec, err)
	}
	return c
}

// TestGoldenDiff diffs each pair testdata/diff/CASE/{old,new}.yaml and
// compares the three layouts with golden/diff/CASE.{txt,md,json} (make
// golden rewrites them). Only the case "nochange" is no policy change.
func TestGoldenDiff(t *testing.T) {
	t.Chdir("..")
	dirs, err := filepath.Glob("testdata/diff/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no diff cases (%v)", err)
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			oldSpec, newSpec := filepath.Join(dir, "old.yaml"), filepath.Join(dir, "new.yaml")
			old, new := checkedModel(t, Config{Spec: oldSpec}), checkedModel(t, Config{Spec: newSpec})
			d := DiffPolicies(old.Model, new.Model, filepath.ToSlash(oldSpec), filepath.ToSlash(newSpec))
			if want := name != "nochange"; d.Changed != want {
				t.Errorf("Changed = %v, want %v", d.Changed, want)
			}
			for format, ext := range map[string]string{"text": "txt", "markdown": "md", "json": "json"} {
				text, err := d.Render(format)
				if err != nil {
					t.Fatal(err)
				}
				checkNoUnsafeText(t, "diff -format "+format, text)
				checkGolden(t, filepath.Join("golden", "diff", name+"."+ext), text)
			}
			// A spec against itself is no change, whatever it holds.
			same := DiffPolicies(new.Model, checkedModel(t, Config{Spec: newSpec}).Model, "a", "b")
			if same.Changed || same.Unchanged != len(new.Model.Operations) {
				t.Errorf("the new spec against itself: changed %v, %d unchanged of %d", same.Changed, same.Unchanged, len(new.Model.Operations))
			}
		})
	}
}
