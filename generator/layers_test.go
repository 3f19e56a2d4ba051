package generator

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const mod = "github.com/resgen/resgen/"

// stageLevel is each package of generator/ and the floor it stands on:
// a package imports, directly or not, only packages of lower floors.
var stageLevel = map[string]int{
	"generator/diag":     0,
	"generator/model":    0,
	"generator/jsonpath": 0,
	"generator/load":     1,
	"generator/policy":   2,
	"generator/build":    3,
	"generator/emit":     4,
	"generator/view":     4,
	"generator":          5,
}

// goList runs go list in the module root and returns its output's lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v", args, err)
	}
	var lines []string
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		lines = append(lines, sc.Text())
	}
	return lines
}

// TestStagesImportOnlyEarlierStages: go list -deps of each stage holds no
// stage of its own floor or a later one; model and the other packages of
// floor 0 import no stage at all; emit imports none of load, policy and
// build (the printer works from the model alone); the runtime imports no
// part of the generator. Every package under generator/ has a floor.
func TestStagesImportOnlyEarlierStages(t *testing.T) {
	for _, pkg := range goList(t, "./generator/...") {
		if _, ok := stageLevel[strings.TrimPrefix(pkg, mod)]; !ok {
			t.Errorf("package %s has no floor in stageLevel: place it", pkg)
		}
	}
	for stage, level := range stageLevel {
		for _, dep := range goList(t, "-deps", "./"+stage) {
			name, ok := strings.CutPrefix(dep, mod)
			if !ok || name == stage {
				continue
			}
			depLevel, isStage := stageLevel[name]
			switch {
			case !isStage:
			case depLevel >= level:
				t.Errorf("%s imports %s, a stage of floor %d (its own floor is %d)", stage, name, depLevel, level)
			case (stage == "generator/emit" || stage == "generator/view") && depLevel > 0:
				t.Errorf("%s imports %s: the printers read the model, never the spec or policies", stage, name)
			}
		}
	}
	for _, dep := range goList(t, "-deps", "./runtime/...") {
		if strings.HasPrefix(dep, mod+"generator") {
			t.Errorf("the runtime imports %s", dep)
		}
	}
}

// TestPolicyIsTheOnlyReaderOfTheExtension: outside generator/policy no
// source file of the generator names the key "x-resilience", and only
// load (for an operation's $ref) reads a kin-openapi Extensions map, so
// nothing else can look the extension up.
func TestPolicyIsTheOnlyReaderOfTheExtension(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"diag", "model", "jsonpath", "load", "build", "emit"} {
		more, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, more...)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && strings.EqualFold(s, "x-resilience") {
					t.Errorf("%s: the key %s; only generator/policy reads the extension", fset.Position(n.Pos()), n.Value)
				}
			case *ast.SelectorExpr:
				if n.Sel.Name == "Extensions" && filepath.Dir(name) != "load" {
					t.Errorf("%s: reads an Extensions map; only generator/policy reads x-resilience", fset.Position(n.Pos()))
				}
			}
			return true
		})
	}
}

// TestMainModuleLinksNoOpenTelemetry: OpenTelemetry lives in the otel/
// module only, so a client that does not use it links none: go list -deps
// of every package of the main module (and of the generated clients, with
// their test files) names no go.opentelemetry.io package.
func TestMainModuleLinksNoOpenTelemetry(t *testing.T) {
	deps := goList(t, "-deps", "-test", "./...")
	if len(deps) < 100 {
		t.Fatalf("go list -deps -test ./... listed %d packages: not the module", len(deps))
	}
	for _, dep := range deps {
		if strings.Contains(dep, "go.opentelemetry.io") || strings.HasPrefix(dep, mod+"otel") {
			t.Errorf("the main module depends on %s", dep)
		}
	}
}

// folderLevel is each top-level folder of the main module and the floor
// it stands on: internal/ holds leaves, the runtime stands on them, the
// generator on the runtime (it types policies with the runtime's types),
// the generated goldens beside it, the tools (lab, conformance harness)
// on the generator, and the commands and scripts on top.
var folderLevel = map[string]int{
	"internal":  0,
	"templates": 0,
	"runtime":   1,
	"generator": 2,
	"golden":    2,
	"tools":     3,
	"cmd":       4,
	"scripts":   4,
}

// TestFoldersImportOnlyLowerFloors: no package of the main module imports
// a package of a top-level folder on its own floor or a higher one (other
// than its own folder), so no arrow runs back up; every folder with Go
// code has a floor.
func TestFoldersImportOnlyLowerFloors(t *testing.T) {
	folder := func(pkg string) string { f, _, _ := strings.Cut(strings.TrimPrefix(pkg, mod), "/"); return f }
	for _, line := range goList(t, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...") {
		fields := strings.Fields(line)
		from := folder(fields[0])
		level, ok := folderLevel[from]
		if !ok {
			t.Errorf("package %s is in a folder with no floor in folderLevel: place it", fields[0])
			continue
		}
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			if to := folder(imp); to != from && folderLevel[to] >= level {
				t.Errorf("%s imports %s: %s/ (floor %d) may not import %s/ (floor %d)", fields[0], imp, from, level, to, folderLevel[to])
			}
		}
	}
}

// TestModulesImportNoOtherInternal: no package of the modules beside the
// main one (otel, redis, examples) imports an internal package of another
// module. Go allows it by path prefix (redis/ sits inside the main
// module's path), but a module must not lean on another's internals.
func TestModulesImportNoOtherInternal(t *testing.T) {
	for _, dir := range []string{"otel", "redis", "examples"} {
		cmd := exec.Command("go", "list", "-test", "-f", "{{.ImportPath}} {{.Module.Path}} {{join .Imports \" \"}}", "./...")
		cmd.Dir = filepath.Join("..", dir)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list in %s: %v", dir, err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) < 2 {
			t.Fatalf("go list in %s listed %d packages", dir, len(lines))
		}
		for _, line := range lines {
			fields := strings.Fields(line)
			if len(fields) < 2 {
				t.Fatalf("go list in %s: %q", dir, line)
			}
			for _, imp := range fields[2:] {
				if !strings.HasPrefix(imp, mod) {
					continue
				}
				parent, _, isInternal := strings.Cut(imp, "/internal/")
				if !isInternal {
					parent, isInternal = strings.CutSuffix(imp, "/internal")
				}
				if isInternal && parent != fields[1] && !strings.HasPrefix(parent, fields[1]+"/") {
					t.Errorf("%s (module %s) imports %s, internal to another module", fields[0], fields[1], imp)
				}
			}
		}
	}
}
