package emit_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/resgen/resgen/generator"
	"github.com/resgen/resgen/generator/emit"
	"github.com/resgen/resgen/generator/model"
)

// corpusDir holds the real public specs (see the generator's corpus test).
const corpusDir = "../../../shared/specs/real"

// chunkSpecs are the specs the chunked printing is checked on: resgen's own
// test specs, and the real corpus's under 256 kB (all of it with
// RESGEN_CORPUS=all, as make corpus sets: each spec is printed twelve times).
func chunkSpecs(t *testing.T) []string {
	specs, _ := filepath.Glob("../../testdata/specs/*.yaml")
	all := os.Getenv("RESGEN_CORPUS") == "all"
	entries, _ := os.ReadDir(corpusDir)
	for _, e := range entries {
		p := filepath.Join(corpusDir, e.Name())
		if e.IsDir() {
			if !all {
				continue // the multi-file specs are big
			}
			if m, _ := filepath.Glob(filepath.Join(p, "*public*.yaml")); len(m) == 1 {
				specs = append(specs, m[0])
			}
			continue
		}
		if !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".json") {
			continue
		}
		if fi, err := os.Stat(p); err == nil && (fi.Size() < 256<<10 || all) {
			specs = append(specs, p)
		}
	}
	sort.Strings(specs)
	if len(specs) == 0 {
		t.Fatal("no specs")
	}
	return specs
}

// TestChunkedRenderIsByteIdentical: printing a file in chunks on several
// goroutines gives byte for byte the source of printing it whole, in every
// layout, with chunks as small as one declaration group (every boundary a
// join can meet) and as Render cuts them.
func TestChunkedRenderIsByteIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("generates many specs")
	}
	for _, spec := range chunkSpecs(t) {
		t.Run(filepath.Base(spec), func(t *testing.T) {
			res, err := generator.Generate(context.Background(), generator.Config{Spec: spec, Package: "client"})
			var in *generator.InputError
			if errors.As(err, &in) {
				t.Skipf("not a spec resgen generates: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, split := range []string{emit.SplitNone, emit.SplitKind, emit.SplitTag} {
				whole, err := emit.RenderIn(res.Model, split, 1, 1)
				if err != nil {
					t.Fatal(err)
				}
				for _, cut := range []struct{ workers, minUnits int }{{2, 1}, {8, 1}, {2, 16}} {
					chunked, err := emit.RenderIn(res.Model, split, cut.workers, cut.minUnits)
					if err != nil {
						t.Fatal(err)
					}
					if len(chunked) != len(whole) {
						t.Fatalf("split %q, %+v: %d files, want %d", split, cut, len(chunked), len(whole))
					}
					for i := range whole {
						if chunked[i].Name != whole[i].Name || !bytes.Equal(chunked[i].Source, whole[i].Source) {
							t.Fatalf("split %q, %+v: %q differs from the file printed whole at byte %d", split, cut, whole[i].Name, firstDiff(chunked[i].Source, whole[i].Source))
						}
					}
				}
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestChunkedRenderErrorHasTheWholeSource: when a chunk does not parse, the
// *FormatError still names the file and carries the whole file's source,
// as printing it whole does.
func TestChunkedRenderErrorHasTheWholeSource(t *testing.T) {
	str := &model.GoType{Kind: model.Builtin, Name: "string"}
	bad := &model.File{Package: "p", Source: "spec.yaml", Types: []*model.Type{
		{Name: "Good", Kind: model.Defined, Underlying: str},
		{Name: "not an identifier", Kind: model.Defined, Underlying: str},
		{Name: "AlsoGood", Kind: model.Defined, Underlying: str},
	}}
	_, err := emit.RenderIn(bad, emit.SplitKind, 4, 1)
	var fe *emit.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("render: %v; want a *FormatError", err)
	}
	if fe.File != "types.gen.go" {
		t.Errorf("the error names %q, want types.gen.go", fe.File)
	}
	for _, want := range []string{"package p", "type Good string", "type not an identifier string", "type AlsoGood string"} {
		if !bytes.Contains(fe.Source, []byte(want)) {
			t.Errorf("the source lacks %q:\n%s", want, fe.Source)
		}
	}
}
