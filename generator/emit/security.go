package emit

import (
	"strconv"

	"github.com/dave/jennifer/jen"
	"github.com/resgen/resgen/generator/model"
)

var authKinds = map[string]string{"bearer": "AuthBearer", "basic": "AuthBasic", "header": "AuthHeader", "query": "AuthQuery", "cookie": "AuthCookie"}

var paramKinds = map[string]string{"header": "header", "query": "query parameter", "cookie": "cookie"}

// emitSecurityOptions prints one client option per security scheme the
// client applies: each adds a wire.Credential to c.credentials.
func (e *emitter) emitSecurityOptions(f *jen.File) {
	for _, s := range e.m.SecuritySchemes {
		used := "the operations that require the security scheme " + strconv.Quote(s.Name) + " (" + s.Type + ")"
		var doc []string
		var params []jen.Code
		cred := []kv{{"Scheme", jen.Lit(s.Name)}, {"Kind", jen.Qual(wirePkg, authKinds[s.Kind])}}
		var check jen.Code
		switch s.Kind {
		case "basic":
			doc = []string{s.Option + " sends username and password (Authorization: Basic) on",
				used + "."}
			params = []jen.Code{jen.List(jen.Id("username"), jen.Id("password")).String()}
			cred = append(cred, kv{"Username", jen.Id("username")}, kv{"Password", jen.Id("password")})
		default:
			how := "as \"Authorization: Bearer <token>\""
			what, arg := "a token", "token"
			if s.Kind != "bearer" {
				what, arg = "the key", "key"
				how = "in the " + paramKinds[s.Kind] + " " + strconv.Quote(s.Param)
			}
			doc = []string{s.Option + " sends " + what + " from src " + how + " on",
				used + ".",
				"src is asked on every attempt, so a retry gets a refreshed " + arg + ";",
				"runtime.StaticToken(" + arg + ") is a fixed one."}
			params = []jen.Code{jen.Id("src").Qual(runtimePkg, "TokenSource")}
			cred = append(cred, kv{"Param", litOrNil(s.Param)}, kv{"Token", jen.Id("src")})
			check = jen.If(jen.Id("src").Op("==").Nil()).Block(
				jen.Return(jen.Qual("errors", "New").Call(jen.Lit(s.Option + ": the token source is nil"))))
		}
		if len(s.Doc) > 0 {
			doc = append(append(doc, ""), s.Doc...)
		}
		comment(f, doc)
		f.Func().Id(s.Option).Params(params...).Id(model.OptionType).Block(
			jen.Return(jen.Func().Params(jen.Id("c").Op("*").Id(model.ClientType)).Error().BlockFunc(func(g *jen.Group) {
				if check != nil {
					g.Add(check)
				}
				g.Id("c").Dot("credentials").Op("=").Append(jen.Id("c").Dot("credentials"), literal(jen.Qual(wirePkg, "Credential"), cred...))
				g.Return(jen.Nil())
			})),
		)
	}
}

func litOrNil(s string) jen.Code {
	if s == "" {
		return nil
	}
	return jen.Lit(s)
}

// securityExpr prints an operation's OperationSpec.Security, nil when it
// requires nothing.
func securityExpr(reqs [][]string) jen.Code {
	if reqs == nil {
		return nil
	}
	alts := make([]jen.Code, len(reqs))
	for i, r := range reqs {
		names := make([]jen.Code, len(r))
		for j, n := range r {
			names[j] = jen.Lit(n)
		}
		alts[i] = jen.Values(names...)
	}
	return jen.Index().Qual(wirePkg, "SecurityRequirement").Values(alts...)
}

// hasSecurity says whether the client holds credentials.
func (e *emitter) hasSecurity() bool { return len(e.m.SecuritySchemes) > 0 }
