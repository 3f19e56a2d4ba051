package build

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/diag"
	"github.com/resgen/resgen/generator/model"
)

// Security schemes become client options (emit/security.go), and each
// operation's security requirements the schemes the runtime applies to it.

// laterOptions are client option names other parts of the client declare
// (per-call options, overrides): a scheme's option never takes them.
var laterOptions = []string{"WithCallOptions", "WithOverrides"}

// securitySchemes fills the model's schemes, in name order, and warns of
// the schemes resgen cannot apply.
func (b *builder) securitySchemes() {
	if b.s.Doc.Components == nil {
		return
	}
	for _, n := range laterOptions {
		b.pkg.taken[n] = claimant{who: "a client option resgen generates"}
	}
	schemes := b.s.Doc.Components.SecuritySchemes
	for _, name := range slices.Sorted(maps.Keys(schemes)) {
		ref := schemes[name]
		if ref == nil || ref.Value == nil {
			continue
		}
		ptr := diag.PointerJoin("/components/securitySchemes", name)
		if ss := b.securityScheme(name, ref.Value, ptr); ss != nil {
			b.file.SecuritySchemes = append(b.file.SecuritySchemes, ss)
		}
	}
}

// securityOptions keeps the schemes some operation requires (an option
// for any other would do nothing) and names their options.
func (b *builder) securityOptions() {
	used := map[string]bool{}
	for _, op := range b.file.Operations {
		for _, alt := range op.Security {
			for _, n := range alt {
				used[n] = true
			}
		}
	}
	kept := b.file.SecuritySchemes[:0]
	for _, ss := range b.file.SecuritySchemes {
		if !used[ss.Name] {
			continue
		}
		want := "With" + exportedName(ss.Name, "Scheme")
		if ss.Option = b.pkg.name(want); ss.Option != want {
			b.diags = append(b.diags, b.s.Diag(diag.Warning, diag.PointerJoin("/components/securitySchemes", ss.Name),
				fmt.Sprintf("security scheme %q: its client option is %s, as %s is taken", ss.Name, ss.Option, want), ""))
		}
		kept = append(kept, ss)
	}
	b.file.SecuritySchemes = kept
}

// securityScheme classifies one scheme; nil (and a warning) when resgen
// cannot apply it.
func (b *builder) securityScheme(name string, v *openapi3.SecurityScheme, ptr string) *model.SecurityScheme {
	ss := &model.SecurityScheme{Name: name, Doc: docLines(v.Description)}
	var why string
	hatch := "add its credentials with WithRequestEditor"
	switch typ := strings.ToLower(v.Type); typ {
	case "http":
		switch strings.ToLower(v.Scheme) {
		case "bearer":
			ss.Kind, ss.Type = "bearer", "http bearer"
		case "basic":
			ss.Kind, ss.Type = "basic", "http basic"
		default:
			why = fmt.Sprintf("http scheme %q (resgen applies bearer and basic)", v.Scheme)
		}
	case "oauth2", "openidconnect":
		ss.Kind, ss.Type = "bearer", v.Type
	case "apikey":
		ss.Type, ss.Param = "apiKey", v.Name
		switch in := strings.ToLower(v.In); in {
		case "header", "query", "cookie":
			ss.Kind = in
			if in != "query" && !tokenName(v.Name) {
				why = fmt.Sprintf("apiKey %s name %q is not a valid %s name", in, v.Name, in)
			}
		default:
			why = fmt.Sprintf("apiKey in %q (resgen sends keys in a header, the query or a cookie)", v.In)
		}
	case "mutualtls":
		why = "mutualTLS"
		hatch = "give WithHTTPClient an http.Client whose TLS config holds the client certificate"
	default:
		why = fmt.Sprintf("type %q", v.Type)
	}
	if why != "" {
		b.diags = append(b.diags, b.s.Diag(diag.Warning, ptr,
			fmt.Sprintf("unsupported: security scheme %q: %s; no client option is generated for it; %s", name, why, hatch), ""))
		return nil
	}
	return ss
}

// tokenName reports whether n is an HTTP token (RFC 9110), as header and
// cookie names must be.
func tokenName(n string) bool {
	if n == "" {
		return false
	}
	for _, c := range []byte(n) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// opSecurity returns the alternatives of scheme names op requires: its own
// security, else the spec's; nil when none needs credentials (no
// requirement, security: [], or only empty alternatives). Names in an
// alternative are sorted; alternatives keep the spec's order.
func (b *builder) opSecurity(op *openapi3.Operation) [][]string {
	reqs := b.s.Doc.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	var out [][]string
	needs := false
	for _, r := range reqs {
		names := slices.Sorted(maps.Keys(r))
		needs = needs || len(names) > 0
		if !slices.ContainsFunc(out, func(o []string) bool { return slices.Equal(o, names) }) {
			out = append(out, names)
		}
	}
	if !needs {
		return nil
	}
	return out
}
