package emit

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/dave/jennifer/jen"
	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/runtime"
)

// emitClient prints the Client type, its options and NewClient.
func (e *emitter) emitClient(f *jen.File) {
	title := "the API"
	if e.m.Title != "" {
		title = "the " + e.m.Title + " API"
	}
	comment(f, []string{
		"Client calls " + title + ". Every method runs behind its operation's circuit",
		"breaker, with its retries inside the breaker: the breaker sees one outcome",
		"per call, and an open breaker fails a call before any attempt is made.",
		"",
		"Make one Client per downstream and share it: it is safe for concurrent use,",
		"and its breakers and retry budget only protect calls that share them.",
	})
	/* type Client struct { server string; hc runtime.Doer; ...; // opX runs X.; opX *impl.Operation } */
	f.Type().Id(model.ClientType).StructFunc(func(g *jen.Group) {
		g.Id("server").String()
		g.Id("hc").Qual(runtimePkg, "Doer")
		g.Id("editors").Index().Qual(runtimePkg, "RequestEditor")
		g.Id("logger").Op("*").Qual("log/slog", "Logger")
		g.Id("observer").Qual(runtimePkg, "Observer")
		g.Id("overrides").Op("*").Qual(runtimePkg, "Overrides")
		g.Id("fleet").Op("*").Qual(runtimePkg, "Fleet")
		g.Id("callOpts").Index().Qual(runtimePkg, "CallOption")
		g.Id("engine").Op("*").Qual(implPkg, "Engine")
		g.Id("breakers").Map(jen.String()).Op("*").Qual(runtimePkg, "Breaker")
		if e.hasSecurity() {
			g.Id("credentials").Index().Qual(wirePkg, "Credential")
		}
		// Each operation's field has a comment line of its own: gofmt
		// aligns the fields of a run of lines, so without one a new
		// operation with a longer name would realign every other field.
		g.Line()
		for _, op := range e.m.Operations {
			comment(g, []string{op.OpField + " runs " + op.Name + "."})
			g.Id(op.OpField).Op("*").Qual(implPkg, "Operation")
		}
	})

	if len(e.m.Servers) > 0 {
		doc := []string{"DefaultServerURL is the spec's first server, its variables set to their defaults."}
		if len(e.m.Servers) > 1 {
			doc = append(doc, "The spec lists these servers too:")
			for _, s := range e.m.Servers[1:] {
				doc = append(doc, "  - "+s)
			}
		}
		comment(f, doc)
		f.Const().Id(model.DefaultServerURL).Op("=").Lit(e.m.Servers[0])
	}

	comment(f, []string{"Option configures a Client."})
	f.Type().Id(model.OptionType).Func().Params(jen.Op("*").Id(model.ClientType)).Error()

	option := func(name string, doc []string, param string, ptype jen.Code, body ...jen.Code) {
		comment(f, doc)
		f.Func().Id(name).Params(jen.Id(param).Add(ptype)).Id(model.OptionType).Block(
			jen.Return(jen.Func().Params(jen.Id("c").Op("*").Id(model.ClientType)).Error().Block(append(body, jen.Return(jen.Nil()))...)),
		)
	}
	option(model.WithHTTPClient, []string{"WithHTTPClient sends requests with d instead of http.DefaultClient."}, "d", jen.Qual(runtimePkg, "Doer"),
		jen.Id("c").Dot("hc").Op("=").Id("d"))
	option(model.WithRequestEdit, []string{"WithRequestEditor runs fn on every attempt's request before it is sent", "(authentication, tracing headers). Editors run in the order given."}, "fn", jen.Qual(runtimePkg, "RequestEditor"),
		jen.Id("c").Dot("editors").Op("=").Append(jen.Id("c").Dot("editors"), jen.Id("fn")))
	option(model.WithLogger, []string{"WithLogger logs breaker state changes (with their reason) and retries to l", "instead of slog.Default()."}, "l", jen.Op("*").Qual("log/slog", "Logger"),
		jen.Id("c").Dot("logger").Op("=").Id("l"))
	option(model.WithObserver, []string{"WithObserver passes every call, attempt, retry wait, rejection and breaker", "state change to o (metrics, tracing)."}, "o", jen.Qual(runtimePkg, "Observer"),
		jen.Id("c").Dot("observer").Op("=").Id("o"))
	e.emitSecurityOptions(f)
	option(model.WithOverrides, []string{
		"WithOverrides adjusts the policies the Breaker and Retry constants describe",
		"(breakers by instance name, retry policies by name, timeouts by operationId), e.g. from",
		"runtime.LoadOverrides. NewClient fails if one names nothing of this client",
		"or breaks a rule. An override cannot make an operation without retries retry.",
	}, "o", jen.Op("*").Qual(runtimePkg, "Overrides"),
		jen.Id("c").Dot("overrides").Op("=").Id("o"))
	option(model.WithFleet, []string{
		"WithFleet shares the client's breakers with the other replicas of the",
		"service through f (runtime.NewFleet; see docs/fleet.md). It is a deployment",
		"concern, not a spec key: breakers with the same name, in every replica whose",
		"Fleet uses the same store and key prefix, share one window and one state.",
		"No call waits for the store; while it is unreachable each breaker decides",
		"alone, except that a fleet-wide open holds until its wait ends.",
	}, "f", jen.Op("*").Qual(runtimePkg, "Fleet"),
		jen.Id("c").Dot("fleet").Op("=").Id("f"))
	comment(f, []string{"WithCallOptions applies opts to every call, before each call's own options."})
	f.Func().Id(model.WithCallOptions).Params(jen.Id("opts").Op("...").Qual(runtimePkg, "CallOption")).Id(model.OptionType).Block(
		jen.Return(jen.Func().Params(jen.Id("c").Op("*").Id(model.ClientType)).Error().Block(
			jen.Id("c").Dot("callOpts").Op("=").Append(jen.Id("c").Dot("callOpts"), jen.Id("opts").Op("...")),
			jen.Return(jen.Nil()))),
	)

	comment(f, []string{
		"NewClient returns a client of the server at the given base URL, e.g.",
		"\"https://api.example.com/v1\". Each method's doc says its call's resilience",
		"policy, linking to the constants that describe its breaker and retry policy.",
	})
	f.Func().Id(model.NewClientFunc).Params(jen.Id("server").String(), jen.Id("opts").Op("...").Id(model.OptionType)).Params(jen.Op("*").Id(model.ClientType), jen.Error()).BlockFunc(func(g *jen.Group) {
		/* base, err := impl.ServerURL(server): checked, its error without the password */
		g.List(jen.Id("base"), jen.Err()).Op(":=").Qual(implPkg, "ServerURL").Call(jen.Id("server"))
		g.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
		g.Id("c").Op(":=").Op("&").Id(model.ClientType).Values(jen.Dict{jen.Id("server"): jen.Id("base")})
		g.For(jen.List(jen.Id("_"), jen.Id("o")).Op(":=").Range().Id("opts")).Block(
			jen.If(jen.Err().Op(":=").Id("o").Call(jen.Id("c")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		)
		cfg := jen.Dict{
			jen.Id("HTTPClient"):     jen.Id("c").Dot("hc"),
			jen.Id("Logger"):         jen.Id("c").Dot("logger"),
			jen.Id("Observer"):       jen.Id("c").Dot("observer"),
			jen.Id("RequestEditors"): jen.Id("c").Dot("editors"),
			jen.Id("Overrides"):      jen.Id("c").Dot("overrides"),
			jen.Id("Fleet"):          jen.Id("c").Dot("fleet"),
			jen.Id("Server"):         jen.Id("base"),
			jen.Id("CallOptions"):    jen.Id("c").Dot("callOpts"),
		}
		if names := e.m.SecretQueryParams; len(names) > 0 {
			/* the spec's apiKey schemes in the query: never printed */
			lits := make([]jen.Code, len(names))
			for i, n := range names {
				lits[i] = jen.Lit(n)
			}
			cfg[jen.Id("SecretQueryParams")] = jen.Index().String().Values(lits...)
		}
		if e.hasSecurity() {
			cfg[jen.Id("Credentials")] = jen.Id("c").Dot("credentials")
		}
		g.Id("e").Op(":=").Qual(implPkg, "NewEngine").Call(jen.Qual(implPkg, "Config").Values(cfg))
		g.Id("c").Dot("engine").Op("=").Id("e")
		g.Line()
		// One statement a breaker, no map literal: gofmt would align a
		// literal's values, and an operation's own breaker (scope
		// operation) with a longer name would realign every other line.
		g.Id("c").Dot("breakers").Op("=").Map(jen.String()).Op("*").Qual(runtimePkg, "Breaker").Values()
		for _, bi := range e.m.Breakers {
			g.Add(e.breakerDecl(bi))
			g.Id("c").Dot("breakers").Index(jen.Id(bi.Const)).Op("=").Id(bi.Var)
		}
		for _, rp := range e.m.Retries {
			g.Add(retryDecl(rp))
		}
		g.Line()
		for _, op := range e.m.Operations {
			var brk, rty jen.Code
			if op.Policy.Breaker != nil {
				brk = jen.Id(op.Policy.Breaker.Var)
			}
			if op.Policy.Retry != nil {
				rty = jen.Id(op.Policy.Retry.Var)
			}
			/* c.opX = e.Operation(impl.OperationSpec{ what: the call; how: its policy }) */
			what := []jen.Code{jen.Id("Name").Op(":").Lit(op.ID), jen.Id("Method").Op(":").Lit(op.Method), jen.Id("Path").Op(":").Lit(op.URLPath)}
			if op.Accept != "" {
				what = append(what, jen.Id("Accept").Op(":").Lit(op.Accept))
			}
			var how []jen.Code
			if brk != nil {
				how = append(how, jen.Id("Breaker").Op(":").Add(brk))
			}
			if rty != nil {
				how = append(how, jen.Id("Retry").Op(":").Add(rty))
			}
			if op.Policy.NotRetrySafe {
				how = append(how, jen.Id("NotRetrySafe").Op(":").True())
			}
			if d := op.Policy.Timeout; d != 0 {
				how = append(how, jen.Id("Timeout").Op(":").Add(durExpr(d)))
			}
			if d := op.Policy.TotalTimeout; d != 0 {
				how = append(how, jen.Id("TotalTimeout").Op(":").Add(durExpr(d)))
			}
			if d := op.Policy.IdleTimeout; d != 0 {
				how = append(how, jen.Id("IdleTimeout").Op(":").Add(durExpr(d)))
			}
			if op.Policy.Resume {
				how = append(how, jen.Id("Resume").Op(":").True())
			}
			if len(op.Security) > 0 {
				how = append(how, jen.Id("Security").Op(":").Add(securityExpr(op.Security)))
			}
			lines := []jen.Code{jen.List(what...)}
			if len(how) > 0 {
				lines = append(lines, jen.List(how...))
			}
			g.Id("c").Dot(op.OpField).Op("=").Id("e").Dot("Operation").Call(jen.Qual(implPkg, "OperationSpec").Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, lines...))
		}
		/* an override that names nothing of this client, or breaks a rule */
		g.If(jen.Err().Op(":=").Id("e").Dot("CheckOverrides").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
		g.Return(jen.Id("c"), jen.Nil())
	})
}

// emitBreakers prints the breaker and retry policy name constants, each
// with its policy in words (said once here, linked from each method's
// doc), and Client.Breakers.
func (e *emitter) emitBreakers(f *jen.File) {
	var breakers, retries []namedConst
	for _, bi := range e.m.Breakers {
		breakers = append(breakers, namedConst{bi.Const, bi.Instance, BreakerDocLines(bi)})
	}
	for _, rp := range e.m.Retries {
		retries = append(retries, namedConst{rp.Const, rp.Policy, RetryDocLines(rp)})
	}
	constBlock(f, "The names of the client's circuit breakers: the keys of Client.Breakers.", breakers)
	constBlock(f, "The names of the client's retry policies, as WithOverrides names them.", retries)
	comment(f, []string{
		"Breakers returns the client's circuit breakers by name (the Breaker",
		"constants), for health checks and metrics: each one's State and Metrics",
		"say whether it lets calls through and why.",
	})
	f.Func().Params(jen.Id("c").Op("*").Id(model.ClientType)).Id("Breakers").Params().Map(jen.String()).Op("*").Qual(runtimePkg, "Breaker").Block(
		jen.Return(jen.Qual("maps", "Clone").Call(jen.Id("c").Dot("breakers"))),
	)
	e.emitRedacted(f)
}

// namedConst is a string constant with its doc.
type namedConst struct {
	name, value string
	doc         []string
}

// constBlock prints consts as one const block under heading; nothing when
// there are none.
func constBlock(f *jen.File, heading string, consts []namedConst) {
	if len(consts) == 0 {
		return
	}
	f.Comment("// " + heading)
	f.Const().DefsFunc(func(g *jen.Group) {
		for _, c := range consts {
			comment(g, c.doc)
			g.Id(c.name).Op("=").Lit(c.value)
		}
	})
}

// emitRedacted prints String, GoString and Format on *Client: the client
// holds the server URL (its password) and the credentials, and no fmt
// verb may print them.
func (e *emitter) emitRedacted(f *jen.File) {
	recv := jen.Id("c").Op("*").Id(model.ClientType)
	comment(f, []string{
		"String describes the client without its secrets: the server URL with its",
		"password and credential query values hidden, and no credential. GoString",
		"and Format print the same for every fmt verb (%v, %+v, %#v, %s, %q, %x...).",
	})
	f.Func().Params(recv.Clone()).Id("String").Params().String().Block(
		jen.If(jen.Id("c").Op("==").Nil()).Block(jen.Return(jen.Lit("<nil>"))),
		jen.Return(jen.Qual(implPkg, "DescribeClient").Call(jen.Id("c").Dot("engine"))),
	)
	comment(f, []string{"GoString is String, for %#v."})
	f.Func().Params(recv.Clone()).Id("GoString").Params().String().Block(
		jen.Return(jen.Id("c").Dot("String").Call()),
	)
	comment(f, []string{"Format prints String for every verb."})
	f.Func().Params(recv.Clone()).Id("Format").Params(jen.Id("f").Qual("fmt", "State"), jen.Id("v").Rune()).Block(
		jen.Qual(wirePkg, "FormatRedacted").Call(jen.Id("f"), jen.Id("v"), jen.Id("c").Dot("String").Call()),
	)
}

// breakerDecl prints: breakerNova := e.Breaker(BreakerNova, runtime.BreakerPolicy{...})
func (e *emitter) breakerDecl(bi *model.BreakerInstance) *jen.Statement {
	return jen.Id(bi.Var).Op(":=").Id("e").Dot("Breaker").Call(jen.Id(bi.Const), policyLiteral(&bi.Policy.BreakerPolicy))
}

// retryDecl prints: retryDefault := &runtime.RetryPolicy{...}
func retryDecl(r *model.RetryPolicy) *jen.Statement {
	return jen.Id(r.Var).Op(":=").Op("&").Add(policyLiteral(&r.RetryPolicy))
}

// policyLiteral prints a runtime policy value (a pointer to it) as a Go
// literal: the fields its description says apply (model.LiteralFields),
// one a line, in the struct's order, so a reviewer reads them in the
// contract's order and a changed value changes one line.
func policyLiteral(p any) *jen.Statement {
	t := reflect.TypeOf(p).Elem()
	var fields []kv
	for _, f := range model.LiteralFields(p) {
		fields = append(fields, kv{f.Go, valueExpr(f.Value)})
	}
	return literal(jen.Qual(t.PkgPath(), t.Name()), fields...)
}

// valueExpr prints one field's value: a duration in its unit, an enum by
// its constant (its GoString), an outcome list as a runtime.Match, a
// nested policy object by its address (nil: left out), else the literal.
func valueExpr(v reflect.Value) jen.Code {
	switch x := v.Interface().(type) {
	case time.Duration:
		return durExpr(x)
	case runtime.Match:
		return matchExpr(x)
	case fmt.GoStringer:
		_, name, _ := strings.Cut(x.GoString(), ".")
		return jen.Qual(v.Type().PkgPath(), name)
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return jen.Op("&").Add(policyLiteral(v.Interface()))
	case reflect.Bool:
		return jen.Lit(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return jen.Lit(int(v.Int()))
	case reflect.Float32, reflect.Float64:
		return jen.Lit(v.Float())
	case reflect.String:
		return jen.Lit(v.String())
	}
	panic("resgen: no Go literal for a policy field of type " + v.Type().String())
}
