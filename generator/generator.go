// Package generator turns an OpenAPI spec annotated with x-resilience into
// Go client source, in memory. It is the orchestrator of the stages, each
// a package that imports only the ones above it in this list (a test,
// layers_test.go, checks it):
//
//	diag      Diagnostic, Diagnostics, InputError: what every stage reports
//	model     the IR the printer reads; policy facts in words (facts.go);
//	          the names the printer reserves for itself (reserved.go)
//	jsonpath  the JSONPath subset of overlay targets, over a *yaml.Node tree
//	load      bytes → *load.Spec: read guard, tree and $ref checks,
//	          overlays, repairs, Swagger 2.0 conversion, kin-openapi load,
//	          positions; Validate, a step of its own
//	policy    *load.Spec → *policy.Result, every operation's policy
//	          resolved up front: the only reader of x-resilience
//	          (decoding, resolution, the idempotency key's checks, lint)
//	build     spec + policies (read, never changed) → *model.File:
//	          types, operations, names
//	emit      *model.File → Go with jennifer → gofmt
//
// Generate runs load → policy → build → emit; Check stops before emit
// (lint and explain use it); Explain prints a model's policies. Nothing
// is written to disk here: the CLI decides whether to write, diff or
// check the result.
package generator

import (
	"context"
	"fmt"
	"go/token"
	"path/filepath"
	"slices"

	"github.com/resgen/resgen/generator/build"
	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/emit"
	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/generator/policy"
	"github.com/resgen/resgen/internal/gopanic"
)

// Output is one generated file.
type Output = emit.Output

// FormatError is the error of a run whose generated code gofmt could not
// parse (a resgen bug); it carries the code apart from its message.
type FormatError = emit.FormatError

// Config is one generation run.
type Config struct {
	// Spec is the spec's path; relative $refs resolve against its folder.
	Spec string
	// Package is the Go package name of the output.
	Package string
	// Overlays are OpenAPI Overlay 1.0 documents applied in order to the
	// spec before it is loaded.
	Overlays []string
	// Strict turns warnings into errors.
	Strict bool
	// Split lays the output out in several files: "" (one file), "kind"
	// or "tag" (see emit.SplitKind, emit.SplitTag).
	Split string
	// ReadRoots are folders that $refs may read below, besides the spec's
	// Go module (else its repository, else its folder). Nothing else is
	// read.
	ReadRoots []string
	// OnlyReadRoots confines $refs to ReadRoots: the spec's Go module,
	// repository or folder is not added. resgen diff sets it for a spec
	// materialised from a git revision, whose temp folder may lie below
	// any go.mod or .git.
	OnlyReadRoots bool
}

// Result is the output of a successful run.
type Result struct {
	// Source is the gofmt'd Go file (the first file when split).
	Source []byte
	// Files are the output files: one with an empty name, or the files of
	// a split layout, sorted by name.
	Files []Output
	// Model is what Source was printed from (explain reads it).
	Model *model.File
	// Diags are the warnings of the run, sorted by position.
	Diags Diagnostics
}

// Checked is what Check gives: the model a run would print, and its
// warnings, sorted by position.
type Checked struct {
	Model *model.File
	Diags Diagnostics
}

// Generate runs the whole pipeline. Bad input gives an *InputError listing
// every error found (sorted); any other error is a resgen fault.
func Generate(ctx context.Context, cfg Config) (*Result, error) {
	if err := checkPackage(cfg.Package); err != nil {
		return nil, err
	}
	if cfg.Split != emit.SplitNone && cfg.Split != emit.SplitKind && cfg.Split != emit.SplitTag {
		return nil, &InputError{Diags: Diagnostics{{Severity: Error, File: "-split", Msg: fmt.Sprintf("%q is not a layout: use kind or tag", cfg.Split)}}}
	}
	data, overlays, err := readInputs(cfg)
	if err != nil {
		return nil, err
	}
	return generate(ctx, cfg, data, overlays)
}

// Check runs the stages before printing (load, policy, build) and stops:
// `resgen lint` and `resgen explain` use it, so a fault of the printer
// cannot break them. cfg.Split is not looked at. Errors are Generate's.
func Check(ctx context.Context, cfg Config) (*Checked, error) {
	if err := checkPackage(cfg.Package); err != nil {
		return nil, err
	}
	data, overlays, err := readInputs(cfg)
	if err != nil {
		return nil, err
	}
	return check(ctx, cfg, data, overlays)
}

// IsPackageName reports whether name can be the Go package name of an
// output: an identifier that is not a keyword or the blank name.
func IsPackageName(name string) bool {
	return token.IsIdentifier(name) && !token.IsKeyword(name) && name != "_"
}

func checkPackage(name string) error {
	if !IsPackageName(name) {
		return &InputError{Diags: Diagnostics{{Severity: Error, File: "-package", Msg: fmt.Sprintf("%q is not a Go package name", name)}}}
	}
	return nil
}

// readInputs reads the spec and the overlays the user named.
func readInputs(cfg Config) ([]byte, []load.Overlay, error) {
	data, err := load.ReadNamed(cfg.Spec)
	if err != nil {
		return nil, nil, &InputError{Diags: Diagnostics{{Severity: Error, File: cfg.Spec, Msg: "cannot read spec: " + load.PathErrText(err)}}}
	}
	var overlays []load.Overlay
	for _, o := range cfg.Overlays {
		od, err := load.ReadNamed(o)
		if err != nil {
			return nil, nil, &InputError{Diags: Diagnostics{{Severity: Error, File: o, Msg: "cannot read overlay: " + err.Error()}}}
		}
		overlays = append(overlays, load.Overlay{Path: o, Data: od})
	}
	return data, overlays, nil
}

func generate(ctx context.Context, cfg Config, data []byte, overlays []load.Overlay) (*Result, error) {
	c, files, err := run(ctx, cfg, data, overlays, true)
	if err != nil {
		return nil, err
	}
	return &Result{Source: files[0].Source, Files: files, Model: c.Model, Diags: c.Diags}, nil
}

func check(ctx context.Context, cfg Config, data []byte, overlays []load.Overlay) (*Checked, error) {
	c, _, err := run(ctx, cfg, data, overlays, false)
	return c, err
}

// run is load, then validate beside policy → build (→ emit when print is
// set), with every diagnostic of the run deduped and sorted; any error
// among them is an *InputError. Validation only adds warnings and reads
// the document as build does, so it runs on the other core: on Stripe it
// takes longer than build and emit together.
func run(ctx context.Context, cfg Config, data []byte, overlays []load.Overlay, print bool) (*Checked, []Output, error) {
	loadSpec := load.Load
	if cfg.OnlyReadRoots {
		loadSpec = load.LoadWithin
	}
	s, diags, err := loadSpec(ctx, cfg.Spec, data, overlays, cfg.ReadRoots)
	if err != nil {
		return nil, nil, err
	}
	if diags.HasErrors() || s == nil {
		diags = diags.Dedupe()
		diags.Sort()
		return nil, nil, &InputError{Diags: diags}
	}
	ldiags := slices.Clip(diags)
	var vdiags Diagnostics
	var validating gopanic.Group
	validating.Go(func() { vdiags = load.Validate(ctx, s, cfg.Strict) })
	pol := policy.Resolve(s)
	file, bdiags := build.Model(s, pol, cfg.Package, filepath.Base(cfg.Spec))
	diags = append(append(diags, pol.Diags()...), bdiags...)
	var files []Output
	var rerr error
	// What fails already is not printed (a strict run fails on any warning).
	if print && !diags.HasErrors() && !(cfg.Strict && len(diags) > 0) {
		files, rerr = emit.Render(file, cfg.Split)
	}
	validating.Wait()
	if vdiags.HasErrors() {
		// As when validation ran before build: a spec that does not
		// validate (-strict) fails with what load and validation found.
		diags = append(ldiags, vdiags...).Dedupe()
		diags.Sort()
		return nil, nil, &InputError{Diags: diags}
	}
	diags = append(diags, vdiags...)
	diags = diags.Dedupe()
	if cfg.Strict {
		for i := range diags {
			diags[i].Severity = Error
		}
	}
	diags.Sort()
	if diags.HasErrors() {
		return nil, nil, &InputError{Diags: diags}
	}
	if rerr != nil {
		return nil, nil, rerr
	}
	return &Checked{Model: file, Diags: diags}, files, nil
}

// The diagnostics of every stage are generator/diag's; these aliases keep
// them where cmd/resgen and the tests have always found them.
type (
	Severity    = diag.Severity
	Diagnostic  = diag.Diagnostic
	Diagnostics = diag.Diagnostics
	InputError  = diag.InputError
)

const (
	Warning = diag.Warning
	Error   = diag.Error
)

// IsInputError reports whether err is the user's input's fault.
func IsInputError(err error) bool { return diag.IsInputError(err) }

// Repaired returns the spec's bytes after resgen's decode repairs, and how
// many it made (see load.Repaired); the conformance harness feeds them to
// its kin-openapi oracle.
func Repaired(path string) ([]byte, int, error) { return load.Repaired(path) }
