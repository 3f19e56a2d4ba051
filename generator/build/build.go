// Package build turns a loaded spec (*load.Spec) and its resolved
// policies (*policy.Result, which it only reads) into the model (*model.File) the emitter
// prints: Go types for schemas (types.go, enums.go), operations with
// their parameters, bodies, responses and policies (operations.go,
// idemkey.go), security (security.go). Every name is settled here, in a
// sorted order (names.go), clear of the names the emitter reserves for
// itself (model/reserved.go). Warnings about schemas and types are
// Diagnostics at the file:line:col of what they are about, in the root
// document or a file a $ref read (schemapos.go); a renamed name's warning
// also says where the holder of the name is. The model says nothing of
// how it is printed.
package build

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/load"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/generator/policy"
	"github.com/resgen/resgen/internal/sanitize"
	yaml "go.yaml.in/yaml/v4"
)

// builder turns a loaded spec and its resolved policies into the model.
// Every name is settled here, in a sorted order, so the same spec always
// gives the same names (protoc-gen-go's rule: names in the model, never
// while printing).
type builder struct {
	s     *load.Spec
	pol   *policy.Result
	file  *model.File
	diags diag.Diagnostics

	pkg *namer // package-level identifiers
	// named maps a component schema (by pointer, so external files work)
	// to its Go type; byRef does the same for $ref strings.
	named map[*openapi3.Schema]*model.GoType
	byRef map[string]*model.GoType

	// ignored counts the schemas whose keywords resgen does not type yet
	// (not, if/then/else, patternProperties, prefixItems), by keyword.
	ignored map[string]int
	seen    map[*openapi3.Schema]bool

	// bigEnums maps schemas to their enum's literals in the root document,
	// for integers a float64 cannot hold; built on first use (enums.go).
	bigEnums map[*openapi3.Schema][]*yaml.Node
	// schemaLocs maps every schema the document reaches to where it is
	// written, for warnings about them; built on the first (schemapos.go).
	// warned holds the warnings given, by schema and kind, so each is
	// given once (types.go).
	schemaLocs map[*openapi3.Schema]schemaLoc
	warned     map[schemaWarning]bool
	// merged holds the schema made for a property two allOf parts both
	// declare, so it is one type (types.go),
	// by the declarations it merges (their pointers), and those of each
	// schema made.
	merged      map[string]*openapi3.SchemaRef
	mergedParts map[*openapi3.Schema][]*openapi3.SchemaRef
	// unionBodies are the form and multipart bodies whose schema is a
	// union, with where that is written and what body it is
	// (operations.go).
	unionBodies map[*model.Body]bodyIssue
	// firstIgnored is the first schema found using each ignored keyword,
	// where its warning is placed.
	firstIgnored map[string]*openapi3.Schema

	// declByName indexes file.Types by name (the first of a name) up to
	// declsIndexed: types are only appended, and decl runs for every
	// parameter and field, too often for a scan.
	declByName   map[string]*model.Type
	declsIndexed int

	// breakers and retries are build's copies of the breaker instances
	// and retry policies policy resolved, by the resolved one: the model
	// gets the copies, which build names and counts, and policy's result
	// stays as Resolve left it.
	breakers map[*model.BreakerInstance]*model.BreakerInstance
	retries  map[*model.RetryPolicy]*model.RetryPolicy

	// methods names the client's methods: the operations' (operations.go),
	// then the paged ones' iterators (paging.go).
	methods *namer
}

type schemaWarning struct {
	s    *openapi3.Schema
	kind string
}

var (
	rawMessage = &model.GoType{Kind: model.Qual, Pkg: "encoding/json", Name: "RawMessage"}
	timeTime   = &model.GoType{Kind: model.Qual, Pkg: "time", Name: "Time"}
	// freeForm is an object whose members the spec leaves open: a
	// map[string]any whose numbers decode as json.Number, so an int64
	// above 2^53 keeps its digits.
	freeForm = &model.GoType{Kind: model.Map, Elem: builtin("any"), Pkg: "github.com/resgen/resgen/runtime", Name: "FreeForm"}
)

// nullableOf is runtime.Nullable[t]: an optional property that may be
// null, unset, null or t.
func nullableOf(t *model.GoType) *model.GoType {
	return &model.GoType{Kind: model.Qual, Pkg: "github.com/resgen/resgen/runtime", Name: "Nullable", Elem: t}
}

// holdsNull reports whether a value of t can be JSON null apart from
// its zero value, which means absent: json.RawMessage("null"), or an any
// holding one.
func holdsNull(t *model.GoType) bool {
	return t == rawMessage || t.Kind == model.Qual && t.Pkg == "encoding/json" && t.Name == "RawMessage" || t.Kind == model.Builtin && t.Name == "any"
}

// isNullableType reports whether t is runtime.Nullable[...].
func isNullableType(t *model.GoType) bool {
	return t.Kind == model.Qual && t.Name == "Nullable" && t.Pkg == "github.com/resgen/resgen/runtime"
}

func builtin(name string) *model.GoType { return &model.GoType{Kind: model.Builtin, Name: name} }

// Model builds the model of s, package pkgName, with the policies pol
// resolved for s; source is the spec's file name, for the generated
// file's header. It reads pol and never changes it, so one Result can
// serve any number of builds.
func Model(s *load.Spec, pol *policy.Result, pkgName, source string) (*model.File, diag.Diagnostics) {
	reserved := append(append(append([]string{}, model.ClientNames...), predeclared...), model.ImportNames...)
	reserved = append(reserved, pkgName)
	b := &builder{
		s: s, pol: pol,
		file:         &model.File{Package: pkgName, Source: source},
		pkg:          newNamer(reserved...),
		named:        map[*openapi3.Schema]*model.GoType{},
		byRef:        map[string]*model.GoType{},
		ignored:      map[string]int{},
		firstIgnored: map[string]*openapi3.Schema{},
		seen:         map[*openapi3.Schema]bool{},

		declByName: map[string]*model.Type{},
		breakers:   map[*model.BreakerInstance]*model.BreakerInstance{},
		retries:    map[*model.RetryPolicy]*model.RetryPolicy{},
	}
	if s.Doc.Info != nil {
		b.file.Title = s.Doc.Info.Title
	}
	b.schemas()
	b.securitySchemes()
	b.operations()
	b.securityOptions()
	for _, sv := range s.Doc.Servers {
		if sv == nil || sv.URL == "" {
			continue
		}
		u := sv.URL
		for name, v := range sv.Variables {
			if v != nil {
				u = strings.ReplaceAll(u, "{"+name+"}", v.Default)
			}
		}
		b.file.Servers = append(b.file.Servers, u)
	}
	b.file.SecretQueryParams = secretQueryParams(s.Doc)
	breakValueCycles(b.file.Types)
	aliasJSONTypes(b.file.Types)
	b.decideText()
	b.paging()
	b.warnGoTypeExtensions()
	for _, kw := range slices.Sorted(maps.Keys(b.ignored)) {
		n, what := b.ignored[kw], "schemas use"
		if n == 1 {
			what = "schema uses"
		}
		msg := fmt.Sprintf("unsupported: %d %s %s; the generated types ignore it (the value still decodes, unchecked)", n, what, kw)
		if n > 1 {
			msg += "; this is the first"
		}
		// At the first schema that uses it, at the keyword (if/then/else
		// at its if).
		b.diags = append(b.diags, b.schemaDiag(b.firstIgnored[kw], msg, "", strings.TrimSuffix(kw, "/then/else")))
	}
	return b.file, b.diags
}

// secretQueryParams returns the names of the query parameters that carry
// an apiKey security scheme, sorted and without repeats.
func secretQueryParams(doc *openapi3.T) []string {
	if doc.Components == nil {
		return nil
	}
	seen := map[string]bool{}
	for _, ref := range doc.Components.SecuritySchemes {
		if ref == nil || ref.Value == nil {
			continue
		}
		if v := ref.Value; strings.EqualFold(v.Type, "apiKey") && strings.EqualFold(v.In, "query") && v.Name != "" {
			seen[v.Name] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// docLines turns spec prose into comment lines: sanitised, no trailing
// blanks, at most 40 lines.
func docLines(parts ...string) []string {
	var out []string
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		for _, l := range strings.Split(p, "\n") {
			// Sanitised here too (emit does it for every line) so that
			// the checks below see the line as it will be written.
			out = append(out, sanitize.Comment(l))
		}
	}
	if len(out) > 40 {
		out = append(out[:40], "…")
	}
	// gofmt reads a lone capitalised line without punctuation as a heading
	// and rewrites it ("# Title"); a full stop keeps it prose.
	for i, l := range out {
		lone := (i == 0 || out[i-1] == "") && (i == len(out)-1 || out[i+1] == "")
		if lone && l != "" && !strings.ContainsAny(l[len(l)-1:], ".:!?;,)]}\"'`") {
			out[i] = l + "."
		}
	}
	return out
}
