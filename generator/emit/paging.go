package emit

import (
	"github.com/dave/jennifer/jen"
	"github.com/resgen/resgen/generator/model"
)

// emitPaging prints a paged operation's iterators (model.Paging): one
// over its pages, each a whole call of the operation's method, and one
// over the items of those pages; and the response type's accessors they
// read. Everything it prints was settled by the builder.
func (e *emitter) emitPaging(f *jen.File, op *model.Operation) {
	pg := op.Paging
	if pg == nil {
		return
	}
	resp := jen.Op("*").Id(op.ResponseType)
	/* func (r *XResponse) pageItems() []Item { ... } */
	comment(f, []string{"pageItems are the items of one page of " + op.Name + "."})
	f.Func().Params(jen.Id("r").Add(resp.Clone())).Id("pageItems").Params().Index().Add(typeExpr(pg.ItemType)).
		BlockFunc(func(g *jen.Group) { fieldValue(g, jen.Id("r").Dot(pg.Body), pg.BodyPtr, pg.Items, jen.Nil()) })
	if pg.More != nil {
		comment(f, []string{"morePages is false when r says no page follows it."})
		f.Func().Params(jen.Id("r").Add(resp.Clone())).Id("morePages").Params().Bool().BlockFunc(func(g *jen.Group) {
			fieldValue(g, jen.Id("r").Dot(pg.Body), pg.BodyPtr, pg.More, jen.True())
		})
	}
	if pg.Kind != "offset" && pg.Kind != "page" {
		what := pg.Kind
		if pg.Kind == "nextURL" || pg.Kind == "link" {
			what = "URL"
		}
		comment(f, []string{"nextPage is the next page's " + what + " as r names it, \"\" when none."})
		f.Func().Params(jen.Id("r").Add(resp.Clone())).Id("nextPage").Params().String().BlockFunc(func(g *jen.Group) {
			switch {
			case pg.NextHeader != "":
				g.Return(jen.Id("r").Dot("Header").Dot("Get").Call(jen.Lit(pg.NextHeader)))
			case pg.Kind == "link":
				g.Return(jen.Qual(implPkg, "LinkNext").Call(jen.Id("r").Dot("Header")))
			case pg.NextItem != nil:
				/* the last item's field */
				g.Id("pageList").Op(":=").Id("r").Dot("pageItems").Call()
				g.If(jen.Len(jen.Id("pageList")).Op("==").Lit(0)).Block(jen.Return(jen.Lit("")))
				fieldValue(g, jen.Id("pageList").Index(jen.Len(jen.Id("pageList")).Op("-").Lit(1)), pg.ItemType.Kind == model.Pointer, pg.NextItem, jen.Lit(""))
			default:
				fieldValue(g, jen.Id("r").Dot(pg.Body), pg.BodyPtr, pg.Next, jen.Lit(""))
			}
		})
	}

	args := []jen.Code{jen.Id("ctx").Qual("context", "Context")}
	pass := []jen.Code{jen.Id("ctx")}
	for _, p := range op.PathParams {
		args = append(args, jen.Id(p.GoName).Add(typeExpr(p.Type)))
		pass = append(pass, jen.Id(p.GoName))
	}
	if op.ParamsType != "" {
		args = append(args, jen.Id("params").Add(paramsType(op)))
		pass = append(pass, jen.Id("params"))
	}
	if op.Body != nil {
		// Sent again with every page (build pages no streamed body).
		args = append(args, jen.Id("body").Add(typeExpr(bodyParamType(op.Body))))
		pass = append(pass, jen.Id("body"))
	}
	args = append(args, jen.Id("opts").Op("...").Qual(runtimePkg, "CallOption"))
	pass = append(pass, jen.Id("opts").Op("..."))

	comment(f, []string{
		pg.PagesMethod + " calls " + op.Name + " page after page, yielding each page's response: ranging over it makes the calls. It pages by " + pg.Words + ".",
		"",
		"Each page is a whole call of " + op.Name + " (breaker, retries, timeouts). The first error ends the iteration, yielded with the response when there is one; breaking out of the loop fetches no more pages. runtime.WithPagesTotalTimeout bounds all the pages together and runtime.WithMaxPages their number; a server that names a page twice (a loop) ends it with a *runtime.PageError.",
	})
	f.Func().Params(jen.Id("c").Op("*").Id(model.ClientType)).Id(pg.PagesMethod).Params(args...).
		Qual("iter", "Seq2").Types(resp.Clone(), jen.Error()).BlockFunc(func(g *jen.Group) {
		g.Return(jen.Func().Params(jen.Id("yield").Func().Params(resp.Clone(), jen.Error()).Bool()).BlockFunc(func(g *jen.Group) {
			e.pagesLoop(g, op, pg)
		}))
	})

	comment(f, []string{
		pg.ItemsMethod + " yields the items of every page of " + op.Name + " in order, fetched as " + pg.PagesMethod + " does; the first error ends it, yielded with a zero item.",
	})
	f.Func().Params(jen.Id("c").Op("*").Id(model.ClientType)).Id(pg.ItemsMethod).Params(args...).
		Qual("iter", "Seq2").Types(typeExpr(pg.ItemType), jen.Error()).BlockFunc(func(g *jen.Group) {
		g.Return(jen.Qual(implPkg, "Items").Call(jen.Id("c").Dot(pg.PagesMethod).Call(pass...), jen.Parens(resp.Clone()).Dot("pageItems")))
	})
}

// pagesLoop prints the body of a pages iterator: a page's call, yielded,
// then the next page's position set where the kind says.
func (e *emitter) pagesLoop(g *jen.Group, op *model.Operation, pg *model.Paging) {
	/* pages, pageCtx := impl.StartPages(ctx, "op", opts); defer pages.Stop() */
	g.List(jen.Id("pages"), jen.Id("pageCtx")).Op(":=").Qual(implPkg, "StartPages").Call(jen.Id("ctx"), jen.Lit(op.ID), jen.Id("opts"))
	g.Defer().Id("pages").Dot("Stop").Call()
	call := []jen.Code{jen.Id("pageCtx")}
	for _, p := range op.PathParams {
		call = append(call, jen.Id(p.GoName))
	}
	if op.ParamsType != "" {
		// A copy the pages change, never the caller's.
		if op.ParamsByValue() {
			g.Id("pp").Op(":=").Id("params")
			call = append(call, jen.Id("pp"))
		} else {
			g.Var().Id("pp").Id(op.ParamsType)
			g.If(jen.Id("params").Op("!=").Nil()).Block(jen.Id("pp").Op("=").Op("*").Id("params"))
			call = append(call, jen.Op("&").Id("pp"))
		}
	}
	if op.Body != nil {
		call = append(call, jen.Id("body"))
	}
	call = append(call, jen.Id("pages").Dot("Opts").Call().Op("..."))
	stop := func(err jen.Code) jen.Code {
		return jen.Block(jen.Id("yield").Call(jen.Nil(), err), jen.Return())
	}
	g.For().BlockFunc(func(g *jen.Group) {
		g.If(jen.Err().Op(":=").Id("pages").Dot("Next").Call(), jen.Err().Op("!=").Nil()).Add(stop(jen.Err()))
		g.List(jen.Id("resp"), jen.Err()).Op(":=").Id("c").Dot(op.Name).Call(call...)
		g.If(jen.Err().Op("!=").Nil()).Block(
			jen.Id("yield").Call(jen.Id("resp"), jen.Id("pages").Dot("Err").Call(jen.Err())),
			jen.Return(),
		)
		g.If(jen.Op("!").Id("yield").Call(jen.Id("resp"), jen.Nil())).Block(jen.Return())
		if pg.More != nil {
			g.If(jen.Op("!").Id("resp").Dot("morePages").Call()).Block(jen.Return())
		}
		switch pg.Kind {
		case "cursor", "token":
			g.Id("pageNext").Op(":=").Id("resp").Dot("nextPage").Call()
			g.List(jen.Id("pageMore"), jen.Err()).Op(":=").Id("pages").Dot("Cursor").Call(jen.Id("pageNext"))
			g.If(jen.Err().Op("!=").Nil()).Add(stop(jen.Err()))
			g.If(jen.Op("!").Id("pageMore")).Block(jen.Return())
			setParam(g, pg.Param, jen.Id("pageNext"))
		case "nextURL", "link":
			g.List(jen.Id("pageMore"), jen.Err()).Op(":=").Id("pages").Dot("NextURL").Call(jen.Id("resp").Dot("nextPage").Call())
			g.If(jen.Err().Op("!=").Nil()).Add(stop(jen.Err()))
			g.If(jen.Op("!").Id("pageMore")).Block(jen.Return())
		case "offset":
			readParam(g, pg.Param, "pageAt", jen.Int64(), jen.Int64().Call(jen.Lit(0)))
			if pg.Limit != nil {
				readParam(g, pg.Limit, "pageLimit", jen.Int(), jen.Lit(0))
			} else {
				g.Id("pageLimit").Op(":=").Lit(0) // not known: only an empty page is the last
			}
			g.List(jen.Id("pageNext"), jen.Id("pageMore")).Op(":=").Id("pages").Dot("Offset").Call(jen.Id("pageAt"), jen.Len(jen.Id("resp").Dot("pageItems").Call()), jen.Id("pageLimit"))
			g.If(jen.Op("!").Id("pageMore")).Block(jen.Return())
			setParam(g, pg.Param, jen.Add(typeExpr(pg.Param.Type)).Call(jen.Id("pageNext")))
		case "page":
			readParam(g, pg.Param, "pageAt", jen.Int64(), jen.Int64().Call(jen.Lit(pg.Start)))
			g.List(jen.Id("pageNext"), jen.Id("pageMore")).Op(":=").Id("pages").Dot("PageNumber").Call(jen.Id("pageAt"), jen.Len(jen.Id("resp").Dot("pageItems").Call()))
			g.If(jen.Op("!").Id("pageMore")).Block(jen.Return())
			setParam(g, pg.Param, jen.Add(typeExpr(pg.Param.Type)).Call(jen.Id("pageNext")))
		}
	})
}

// setParam prints pp.P = v for parameter p: through a new variable when
// the field is a pointer.
func setParam(g *jen.Group, p *model.Param, v jen.Code) {
	if p.Required {
		g.Id("pp").Dot(p.GoName).Op("=").Add(v)
		return
	}
	g.Id("v").Op(":=").Add(v)
	g.Id("pp").Dot(p.GoName).Op("=").Op("&").Id("v")
}

// readParam prints name := conv(pp.P) for parameter p, or zero when it
// is not set.
func readParam(g *jen.Group, p *model.Param, name string, conv *jen.Statement, zero jen.Code) {
	if p.Required {
		g.Id(name).Op(":=").Add(conv.Clone().Call(jen.Id("pp").Dot(p.GoName)))
		return
	}
	g.Id(name).Op(":=").Add(zero)
	g.If(jen.Id("pp").Dot(p.GoName).Op("!=").Nil()).Block(
		jen.Id(name).Op("=").Add(conv.Clone().Call(jen.Op("*").Id("pp").Dot(p.GoName))))
}

// fieldValue prints the statements returning the value steps lead to
// from root (a pointer when rootPtr), absent (nil, "") when a pointer on
// the way is nil.
func fieldValue(g *jen.Group, root *jen.Statement, rootPtr bool, steps []model.Step, absent jen.Code) {
	expr := root
	var nils []jen.Code
	if rootPtr && len(steps) > 0 {
		nils = append(nils, expr.Clone().Op("==").Nil())
	}
	last := model.Step{Ptr: rootPtr}
	for i, s := range steps {
		expr = expr.Clone().Dot(s.Field)
		if s.Ptr && i < len(steps)-1 {
			nils = append(nils, expr.Clone().Op("==").Nil())
		}
		last = s
	}
	if len(steps) == 0 {
		// The body is the list: a slice, or a pointer to a declared list
		// type, nil when absent.
		if rootPtr {
			g.If(expr.Clone().Op("==").Nil()).Block(jen.Return(absent))
			g.Return(jen.Op("*").Add(expr))
			return
		}
		g.Return(expr)
		return
	}
	if last.Ptr {
		nils = append(nils, expr.Clone().Op("==").Nil())
	}
	if len(nils) > 0 {
		g.If(orAll(nils)).Block(jen.Return(absent))
	}
	switch {
	case last.Nullable:
		g.List(jen.Id("v"), jen.Id("pageOK")).Op(":=").Add(expr).Dot("Get").Call()
		g.If(jen.Op("!").Id("pageOK")).Block(jen.Return(absent))
		g.Return(jen.Id("v"))
	case last.Ptr:
		g.Return(jen.Op("*").Add(expr))
	default:
		g.Return(expr)
	}
}
