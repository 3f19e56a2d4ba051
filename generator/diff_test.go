package generator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resgen/resgen/generator/view"
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
			d := view.DiffPolicies(old.Model, new.Model, filepath.ToSlash(oldSpec), filepath.ToSlash(newSpec))
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
			same := view.DiffPolicies(new.Model, checkedModel(t, Config{Spec: newSpec}).Model, "a", "b")
			if same.Changed || same.Unchanged != len(new.Model.Operations) {
				t.Errorf("the new spec against itself: changed %v, %d unchanged of %d", same.Changed, same.Unchanged, len(new.Model.Operations))
			}
		})
	}
}

// TestDiffShowsHostileTextSafely: the names of hostile-text.yaml (escape
// sequences, bidirectional overrides, pipes, backticks) come out escaped
// in every layout, and cannot break a markdown table row or code span.
func TestDiffShowsHostileTextSafely(t *testing.T) {
	t.Chdir("..")
	hostile := checkedModel(t, Config{Spec: "testdata/specs/hostile-text.yaml"})
	pets := checkedModel(t, Config{Spec: "testdata/specs/petstore.yaml"})
	overlay := filepath.Join(t.TempDir(), "pipes.yaml")
	if err := os.WriteFile(overlay, []byte(`overlay: 1.0.0
info: {title: pipes, version: "1"}
actions:
  - target: $['x-resilience'].breakers
    update:
      "a|b`+"`"+`c\e[31m\u202e": {windowSize: 10, minimumCalls: 5, failureRateThreshold: 20}
  - target: $['x-resilience'].defaults
    update:
      breaker: "a|b`+"`"+`c\e[31m\u202e"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	moved := checkedModel(t, Config{Spec: "testdata/specs/hostile-text.yaml", Overlays: []string{overlay}})
	removed := view.DiffPolicies(hostile.Model, pets.Model, "a|`b`\x1b[31m", "new")
	changed := view.DiffPolicies(hostile.Model, moved.Model, "old", "new")
	if len(removed.Removed) == 0 || len(changed.Operations) == 0 {
		t.Fatal("no operation removed or changed: the test shows nothing")
	}
	for _, c := range []struct {
		d      *view.PolicyDiff
		format string
	}{{removed, "text"}, {removed, "markdown"}, {removed, "json"}, {changed, "text"}, {changed, "markdown"}, {changed, "json"}} {
		d, format := c.d, c.format
		text, err := d.Render(format)
		if err != nil {
			t.Fatal(err)
		}
		checkNoUnsafeText(t, "diff -format "+format, text)
		if format != "markdown" {
			continue
		}
		for _, line := range strings.Split(string(text), "\n") {
			unescaped := strings.ReplaceAll(line, `\|`, "")
			if strings.HasPrefix(line, "|") && strings.Count(unescaped, "|") != 4 {
				t.Errorf("a table row with a stray pipe: %q", line)
			}
			if strings.Count(line, "`")%2 != 0 {
				t.Errorf("a line with an unclosed code span: %q", line)
			}
		}
	}
}
