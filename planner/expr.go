package planner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// expr builds a typed scalar expression from an AST node. Untyped string
// literals and NULL come back with the Unknown type; the enclosing operator,
// function or cast decides their type (PostgreSQL's unknown-literal rule).
func (c *ectx) expr(n *pg_query.Node) (expr.Expr, error) {
	e, err := c.exprUntraced(n)
	if err == nil {
		c.b.traceExpr(n, e)
	}
	return e, err
}

// exprUntraced is expr without recording the result in the trace.
func (c *ectx) exprUntraced(n *pg_query.Node) (expr.Expr, error) {
	if fc := n.GetFuncCall(); fc != nil && c.b.outerAggs[fc] != nil {
		return c.outerAggRef(fc, fc.Location)
	}
	if gf := n.GetGroupingFunc(); gf != nil {
		if c.b.outerAggs[gf] != nil {
			return c.outerAggRef(gf, gf.Location)
		}
		if err := c.b.outerLevelGrouping(gf, c.sc); err != nil {
			return nil, err
		}
	}
	if c.grp != nil {
		if e, ok, err := c.groupedRef(n); ok || err != nil {
			return e, err
		}
	}
	switch {
	case n.GetColumnRef() != nil:
		return c.columnRef(n.GetColumnRef())
	case n.GetAConst() != nil:
		e, err := constant(n.GetAConst())
		if lit, ok := e.(*expr.Lit); ok && c.b.opts.IntervalTexts != nil && n.GetAConst().GetSval() != nil {
			if c.b.stringConsts == nil {
				c.b.stringConsts = map[*expr.Lit]*pg_query.A_Const{}
			}
			c.b.stringConsts[lit] = n.GetAConst()
		}
		return e, err
	case n.GetParamRef() != nil:
		return c.b.param(n.GetParamRef())
	case n.GetAExpr() != nil:
		return c.aexpr(n.GetAExpr())
	case n.GetBoolExpr() != nil:
		return c.boolExpr(n.GetBoolExpr())
	case n.GetNullTest() != nil:
		return c.nullTest(n.GetNullTest())
	case n.GetBooleanTest() != nil:
		return c.booleanTest(n.GetBooleanTest())
	case n.GetTypeCast() != nil:
		return c.typeCast(n.GetTypeCast())
	case n.GetFuncCall() != nil:
		if fc := n.GetFuncCall(); namedSRF(fc) || c.b.sqlSetFunc(funcName(fc)) && fc.Over == nil && !isAggregate(fc) {
			return c.srfRef(fc) // planned by its node: tableCall takes the named arguments
		}
		fc, err := c.positionalCall(n.GetFuncCall())
		if err == nil {
			fc, err = c.variadicForm(fc)
		}
		if err != nil {
			return nil, err
		}
		return c.funcCall(fc)
	case n.GetAIndirection() != nil:
		return c.indirection(n.GetAIndirection())
	case n.GetAArrayExpr() != nil:
		return c.arrayExpr(n.GetAArrayExpr())
	case n.GetCaseExpr() != nil:
		return c.caseExpr(n.GetCaseExpr())
	case n.GetCoalesceExpr() != nil:
		return c.coalesce(n.GetCoalesceExpr())
	case n.GetMinMaxExpr() != nil:
		return c.minMax(n.GetMinMaxExpr())
	case n.GetSubLink() != nil:
		return c.subLink(n.GetSubLink())
	case n.GetSqlvalueFunction() != nil:
		return c.sqlValueFunction(n.GetSqlvalueFunction())
	case n.GetCollateClause() != nil:
		return c.collate(n.GetCollateClause())
	case n.GetRowExpr() != nil:
		return c.rowValue(n.GetRowExpr())
	case n.GetSetToDefault() != nil:
		return nil, repr.Errorf(repr.CodeSyntax, "DEFAULT is not allowed in this context")
	}
	return nil, repr.Unsupported("expression %s", nodeName(n))
}

// nodeName names an AST node's kind for error messages.
func nodeName(n *pg_query.Node) string {
	if n == nil || n.Node == nil {
		return "(empty)"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", n.Node), "*pg_query.Node_")
}

// columnRef resolves t.c or c.
func (c *ectx) columnRef(ref *pg_query.ColumnRef) (expr.Expr, error) {
	if e, ok := c.boundArg(ref); ok {
		return e, nil
	}
	if table := starRef(&pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: ref}}); table != "" {
		if e, ok, err := c.wholeRow(table, ref.Location); ok {
			return e, err
		}
	}
	table, name, err := refName(ref)
	if err != nil {
		return nil, err
	}
	e, err := resolveColumn(c.sc, table, name, ref.Location)
	if err == nil {
		c.b.traceCol(c.sc, ref, table, name)
	}
	if table == "" && repr.ErrorCode(err) == repr.CodeUndefinedColumn {
		if w, ok, werr := c.wholeRow(name, ref.Location); ok {
			return w, werr
		}
	}
	if err != nil {
		if gerr := ungroupedOuter(c.sc, table, name, ref.Location); gerr != nil {
			return nil, gerr
		}
	}
	return e, err
}

// refName splits a column reference into qualifier and column name.
func refName(ref *pg_query.ColumnRef) (table, name string, err error) {
	var parts []string
	for _, f := range ref.Fields {
		if f.GetAStar() != nil {
			return "", "", repr.Unsupported("* in this position")
		}
		parts = append(parts, f.GetString_().GetSval())
	}
	switch len(parts) {
	case 1:
		return "", parts[0], nil
	case 2:
		return parts[0], parts[1], nil
	case 3, 4:
		// [db.]schema.table.column
		return parts[len(parts)-3] + "." + parts[len(parts)-2], parts[len(parts)-1], nil
	}
	return "", "", repr.Errorf(repr.CodeSyntax, "improper qualified name")
}

// constant types a literal: integers as int4 (int8, then numeric, when
// larger), decimals as numeric, strings as unknown, bit strings as bit.
func constant(a *pg_query.A_Const) (expr.Expr, error) {
	switch {
	case a.Isnull:
		return &expr.Lit{D: repr.Null, T: repr.Unknown}, nil
	case a.GetIval() != nil:
		return &expr.Lit{D: repr.NewInt(int64(a.GetIval().Ival)), T: repr.Int4}, nil
	case a.GetFval() != nil:
		return numericConstant(a.GetFval().Fval)
	case a.GetSval() != nil:
		return &expr.Lit{D: repr.NewText(a.GetSval().Sval), T: repr.Unknown}, nil
	case a.GetBoolval() != nil:
		return &expr.Lit{D: repr.NewBool(a.GetBoolval().Boolval), T: repr.Bool}, nil
	case a.GetBsval() != nil:
		// B'1010' and X'1F' arrive as "b1010" and "x1F", bit_in's forms.
		d, err := repr.ParseText(a.GetBsval().Bsval, repr.Bit, nil)
		if err != nil {
			return nil, err
		}
		return &expr.Lit{D: d, T: repr.Bit}, nil
	}
	return &expr.Lit{D: repr.NewInt(0), T: repr.Int4}, nil
}

// numericConstant types a numeric literal the parser left as a string.
func numericConstant(s string) (expr.Expr, error) {
	d, t, err := numericDatum(s)
	if err != nil {
		return nil, err
	}
	return &expr.Lit{D: d, T: t}, nil
}

// numericDatum is numericConstant's value and type: int4 or int8 when
// the literal is an integer that fits, else numeric.
func numericDatum(s string) (repr.Datum, repr.T, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		if i >= -1<<31 && i < 1<<31 {
			return repr.NewInt(i), repr.Int4, nil
		}
		return repr.NewInt(i), repr.Int8, nil
	}
	d, _, err := apd.NewFromString(s)
	if err != nil {
		return repr.Null, repr.T{}, repr.Errorf(repr.CodeInvalidText, "invalid input syntax for type numeric: %q", s)
	}
	return repr.NewNumeric(d), repr.Numeric, nil
}

// param is $n: the bound value, a Param node read at run time (generic
// plans), or a typed NULL stand-in while preparing.
func (b *builder) param(p *pg_query.ParamRef) (expr.Expr, error) {
	b.paramExprs++
	n := int(p.Number) - 1
	if n < 0 || n > 65535 {
		return nil, repr.Errorf(repr.CodeUndefinedParameter, "there is no parameter $%d", p.Number).WithPosition(p.Location + 1)
	}
	for len(b.paramTypes) <= n {
		b.paramTypes = append(b.paramTypes, repr.Unknown)
	}
	t := b.paramTypes[n]
	if b.opts.Params != nil {
		if n >= len(b.opts.Params) {
			return nil, repr.Errorf(repr.CodeUndefinedParameter, "there is no parameter $%d", p.Number).WithPosition(p.Location + 1)
		}
		d := b.opts.Params[n]
		if t.Family == repr.FamUnknown && !d.IsNull() {
			d = repr.NewText(d.Text())
		}
		return &expr.Lit{D: d, T: t}, nil
	}
	if b.opts.GenericParams {
		if t.Family == repr.FamUnknown {
			return nil, repr.Unsupported("a generic plan with an untyped parameter $%d", p.Number)
		}
		return &expr.Param{Idx: n, T: t}, nil
	}
	lit := &expr.Lit{D: repr.Null, T: t}
	if t.Family == repr.FamUnknown {
		b.placeholders[lit] = n
	}
	return lit, nil
}

// exprs builds a list of expressions.
func (c *ectx) exprs(ns []*pg_query.Node) ([]expr.Expr, error) {
	out := make([]expr.Expr, len(ns))
	for i, n := range ns {
		e, err := c.expr(n)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

// op resolves and applies operator name to args (one for prefix operators).
func (c *ectx) op(name string, loc int32, args ...expr.Expr) (expr.Expr, error) {
	ts := make([]repr.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	fn, want, err := expr.ResolveOp(name, ts)
	if err != nil {
		return nil, withPos(err, loc)
	}
	return c.b.call(fn, args, want)
}

// opEach is op(name, loc, x, v) for each v of vs, resolving the
// operator once per run of values of one type (all of them, for an IN
// list unify made one type): a 15,000-value IN list (TPC-H's refresh
// DELETEs) resolved it 15,000 times.
func (c *ectx) opEach(name string, loc int32, x expr.Expr, vs []expr.Expr) ([]expr.Expr, error) {
	out := make([]expr.Expr, len(vs))
	var fn *expr.Func
	var want []repr.T
	var last repr.T
	for i, v := range vs {
		if fn == nil || v.Type() != last {
			var err error
			if fn, want, err = expr.ResolveOp(name, []repr.T{x.Type(), v.Type()}); err != nil {
				return nil, withPos(err, loc)
			}
			last = v.Type()
		}
		var err error
		if out[i], err = c.b.call(fn, []expr.Expr{x, v}, want); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// call applies a resolved function, casting arguments to want.
func (b *builder) call(fn *expr.Func, args []expr.Expr, want []repr.T) (expr.Expr, error) {
	// proctime() is volatile but meant for views: it stands for the
	// arrival time the runtime supplies (see expr). now() may only
	// form temporal filters (temporal.go), checked once planned.
	if fn.Volatile && b.opts.MaterializedView && fn.Name != "proctime" && !nowFuncs[fn.Name] {
		return nil, repr.Unsupported("calling %s() in a materialized view", fn.Name)
	}
	cast := make([]expr.Expr, len(args))
	for i, a := range args {
		e, err := b.convert(a, want[i])
		if err != nil {
			return nil, err
		}
		cast[i] = e
	}
	call := &expr.Call{Fn: fn, Args: cast}
	if b.opts.Calls != nil {
		*b.opts.Calls = append(*b.opts.Calls, Call{Fn: fn, From: exprTypes(args), To: want, node: call})
	}
	if b.opts.MaterializedView && nowFuncs[fn.Name] {
		b.noteNow(call)
	}
	return call, nil
}

// opName returns the operator's name (the last part of OPERATOR(schema.op)).
func opName(names []*pg_query.Node) string {
	if len(names) == 0 {
		return ""
	}
	return names[len(names)-1].GetString_().GetSval()
}

// aexpr builds operator expressions and their special forms.
func (c *ectx) aexpr(a *pg_query.A_Expr) (expr.Expr, error) {
	name := opName(a.Name)
	switch a.Kind {
	case pg_query.A_Expr_Kind_AEXPR_OP, pg_query.A_Expr_Kind_AEXPR_LIKE, pg_query.A_Expr_Kind_AEXPR_ILIKE,
		pg_query.A_Expr_Kind_AEXPR_SIMILAR: // the parser wrapped the pattern in similar_to_escape
		return c.binaryOrPrefix(name, a)
	case pg_query.A_Expr_Kind_AEXPR_DISTINCT, pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		return c.distinct(a)
	case pg_query.A_Expr_Kind_AEXPR_NULLIF:
		return c.nullIf(a)
	case pg_query.A_Expr_Kind_AEXPR_IN:
		return c.inList(a, name)
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN,
		pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		return c.between(a)
	case pg_query.A_Expr_Kind_AEXPR_OP_ANY, pg_query.A_Expr_Kind_AEXPR_OP_ALL:
		return c.anyAll(name, a)
	}
	return nil, repr.Unsupported("operator kind %s", a.Kind)
}

func (c *ectx) binaryOrPrefix(name string, a *pg_query.A_Expr) (expr.Expr, error) {
	if l, r := rowArgs(a.Lexpr), rowArgs(a.Rexpr); l != nil && r != nil && isRowCompareOp(name) {
		return c.rowCompare(name, l, r, a.Location)
	}
	if sl := a.Rexpr.GetSubLink(); sl != nil && sl.SubLinkType == pg_query.SubLinkType_EXPR_SUBLINK && rowArgs(a.Lexpr) != nil {
		return c.rowSubquery(name, rowArgs(a.Lexpr), sl, a.Location)
	}
	r, err := c.expr(a.Rexpr)
	if err != nil {
		return nil, err
	}
	if a.Lexpr == nil {
		return c.op(name, a.Location, r)
	}
	l, err := c.expr(a.Lexpr)
	if err != nil {
		return nil, err
	}
	if isRowCompareOp(name) {
		if err := c.checkRecordCompare(a.Lexpr, a.Rexpr, l, r); err != nil {
			return nil, withPos(err, a.Location)
		}
	}
	return c.op(name, a.Location, l, r)
}

// notDistinct builds `l IS NOT DISTINCT FROM r` (never NULL) from `=`.
func (c *ectx) notDistinct(l, r expr.Expr, loc int32) (expr.Expr, error) {
	eq, err := c.op("=", loc, l, r)
	if err != nil {
		return nil, err
	}
	return &expr.Case{Whens: []expr.When{
		{Cond: &expr.IsNull{Arg: l}, Then: &expr.IsNull{Arg: r}},
		{Cond: &expr.IsNull{Arg: r}, Then: boolLit(false)},
	}, Else: eq, T: repr.Bool}, nil
}

func (c *ectx) distinct(a *pg_query.A_Expr) (expr.Expr, error) {
	if l, r := rowArgs(a.Lexpr), rowArgs(a.Rexpr); l != nil && r != nil {
		return c.rowDistinct(l, r, a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT, a.Location)
	}
	l, r, err := c.pair(a.Lexpr, a.Rexpr)
	if err != nil {
		return nil, err
	}
	if err := c.checkRecordCompare(a.Lexpr, a.Rexpr, l, r); err != nil {
		return nil, withPos(err, a.Location)
	}
	e, err := c.notDistinct(l, r, a.Location)
	if err != nil || a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT {
		return e, err
	}
	return &expr.Not{Arg: e}, nil
}

// pair builds two operands.
func (c *ectx) pair(ln, rn *pg_query.Node) (expr.Expr, expr.Expr, error) {
	l, err := c.expr(ln)
	if err != nil {
		return nil, nil, err
	}
	r, err := c.expr(rn)
	return l, r, err
}

// nullIf is NULLIF(a, b) = CASE WHEN a = b THEN NULL ELSE a END.
func (c *ectx) nullIf(a *pg_query.A_Expr) (expr.Expr, error) {
	l, r, err := c.pair(a.Lexpr, a.Rexpr)
	if err != nil {
		return nil, err
	}
	eq, err := c.op("=", a.Location, l, r)
	if err != nil {
		return nil, err
	}
	t := l.Type()
	if t.Family == repr.FamUnknown {
		t = eq.(*expr.Call).Fn.Args[0]
		if l, err = c.b.coerce(l, t); err != nil {
			return nil, err
		}
	}
	return &expr.Case{Whens: []expr.When{{Cond: eq, Then: &expr.Lit{D: repr.Null, T: t}}}, Else: l, T: t}, nil
}

// inList is `x IN (v, ...)`: the disjunction of x = v (NOT IN: the
// conjunction of x <> v), which has SQL's three-valued semantics.
func (c *ectx) inList(a *pg_query.A_Expr, name string) (expr.Expr, error) {
	if a.Rexpr.GetSubLink() != nil {
		return nil, repr.Unsupported("IN over this subquery form")
	}
	if l := rowArgs(a.Lexpr); l != nil {
		return c.rowInList(l, a.Rexpr.GetList().GetItems(), name, a.Location)
	}
	x, err := c.expr(a.Lexpr)
	if err != nil {
		return nil, err
	}
	vs, err := c.exprs(a.Rexpr.GetList().GetItems())
	if err != nil {
		return nil, err
	}
	calls := c.b.opts.Calls
	c.b.opts.Calls = nil // noteIn records the calls as PostgreSQL makes them
	all := append([]expr.Expr{x}, vs...)
	all, err = c.b.unify(all, "IN", a.Location)
	c.b.opts.Calls = calls
	if err != nil {
		return nil, err
	}
	for i, v := range vs {
		if err := c.checkRecordCompare(a.Lexpr, a.Rexpr.GetList().GetItems()[i], x, v); err != nil {
			return nil, withPos(err, a.Location)
		}
	}
	c.b.opts.Calls = nil
	terms, err := c.opEach(name, a.Location, all[0], all[1:])
	c.b.opts.Calls = calls
	if err != nil {
		return nil, err
	}
	c.b.noteIn(x, vs, terms)
	if name == "<>" {
		return and(terms...), nil
	}
	return or(terms...), nil
}

// unify coerces es to their common type (CASE, COALESCE, IN, VALUES...).
func (b *builder) unify(es []expr.Expr, context string, loc int32) ([]expr.Expr, error) {
	ts := make([]repr.T, len(es))
	for i, e := range es {
		ts[i] = e.Type()
	}
	t, err := expr.CommonType(ts, context)
	if err != nil {
		return nil, withPos(err, loc)
	}
	out := make([]expr.Expr, len(es))
	for i, e := range es {
		if out[i], err = b.coerce(e, t); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// between is x BETWEEN lo AND hi (and its NOT and SYMMETRIC forms).
func (c *ectx) between(a *pg_query.A_Expr) (expr.Expr, error) {
	bounds := a.Rexpr.GetList().GetItems()
	if len(bounds) != 2 {
		return nil, repr.Errorf(repr.CodeSyntax, "BETWEEN needs two bounds")
	}
	x, err := c.expr(a.Lexpr)
	if err != nil {
		return nil, err
	}
	lo, hi, err := c.pair(bounds[0], bounds[1])
	if err != nil {
		return nil, err
	}
	in := func(lo, hi expr.Expr) (expr.Expr, error) {
		ge, err := c.op(">=", a.Location, x, lo)
		if err != nil {
			return nil, err
		}
		le, err := c.op("<=", a.Location, x, hi)
		return and(ge, le), err
	}
	e, err := in(lo, hi)
	if err != nil {
		return nil, err
	}
	sym := a.Kind == pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM || a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM
	if sym {
		rev, err := in(hi, lo)
		if err != nil {
			return nil, err
		}
		e = or(e, rev)
	}
	if a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN || a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM {
		return &expr.Not{Arg: e}, nil
	}
	return e, nil
}

// and returns the conjunction of es (es[0] alone when single, true when
// none).
func and(es ...expr.Expr) expr.Expr {
	switch len(es) {
	case 0:
		return boolLit(true) // ROW() IS NULL
	case 1:
		return es[0]
	}
	return &expr.And{Args: es}
}

// or returns the disjunction of es (es[0] alone when single).
func or(es ...expr.Expr) expr.Expr {
	if len(es) == 1 {
		return es[0]
	}
	return &expr.Or{Args: es}
}

func boolLit(b bool) expr.Expr { return &expr.Lit{D: repr.NewBool(b), T: repr.Bool} }

// boolExpr builds AND, OR and NOT over boolean operands.
func (c *ectx) boolExpr(be *pg_query.BoolExpr) (expr.Expr, error) {
	args := make([]expr.Expr, len(be.Args))
	name := map[pg_query.BoolExprType]string{pg_query.BoolExprType_AND_EXPR: "AND",
		pg_query.BoolExprType_OR_EXPR: "OR", pg_query.BoolExprType_NOT_EXPR: "NOT"}[be.Boolop]
	for i, n := range be.Args {
		e, err := c.expr(n)
		if err != nil {
			return nil, err
		}
		if args[i], err = c.b.toBool(e, name, n); err != nil {
			return nil, err
		}
	}
	switch be.Boolop {
	case pg_query.BoolExprType_AND_EXPR:
		return and(args...), nil
	case pg_query.BoolExprType_OR_EXPR:
		return or(args...), nil
	}
	return &expr.Not{Arg: args[0]}, nil
}

func (c *ectx) nullTest(nt *pg_query.NullTest) (expr.Expr, error) {
	if f := rowArgs(nt.Arg); f != nil {
		return c.rowNullTest(f, nt.Nulltesttype == pg_query.NullTestType_IS_NOT_NULL)
	}
	e, err := c.expr(nt.Arg)
	if err != nil {
		return nil, err
	}
	negate := nt.Nulltesttype == pg_query.NullTestType_IS_NOT_NULL
	if fields := c.recordFields(e); fields != nil {
		return c.recordNullTest(e, fields, negate)
	}
	return &expr.IsNull{Arg: e, Negate: negate}, nil
}

// booleanTest is IS [NOT] TRUE/FALSE/UNKNOWN, which never yield NULL.
func (c *ectx) booleanTest(bt *pg_query.BooleanTest) (expr.Expr, error) {
	e, err := c.expr(bt.Arg)
	if err != nil {
		return nil, err
	}
	if e, err = c.b.toBool(e, "IS TRUE", bt.Arg); err != nil {
		return nil, err
	}
	isTrue := &expr.Coalesce{Args: []expr.Expr{e, boolLit(false)}, T: repr.Bool}
	isFalse := &expr.Coalesce{Args: []expr.Expr{&expr.Not{Arg: e}, boolLit(false)}, T: repr.Bool}
	switch bt.Booltesttype {
	case pg_query.BoolTestType_IS_TRUE:
		return isTrue, nil
	case pg_query.BoolTestType_IS_NOT_TRUE:
		return &expr.Not{Arg: isTrue}, nil
	case pg_query.BoolTestType_IS_FALSE:
		return isFalse, nil
	case pg_query.BoolTestType_IS_NOT_FALSE:
		return &expr.Not{Arg: isFalse}, nil
	case pg_query.BoolTestType_IS_UNKNOWN:
		return &expr.IsNull{Arg: e}, nil
	}
	return &expr.IsNull{Arg: e, Negate: true}, nil
}

// resolveType resolves a TypeName node.
func resolveType(tn *pg_query.TypeName) (repr.T, error) {
	if len(tn.ArrayBounds) > 0 {
		elem := &pg_query.TypeName{Names: tn.Names, Typmods: tn.Typmods, Location: tn.Location}
		t, err := resolveType(elem)
		if err == nil && t.Vector {
			return t, errVectorArray(t)
		}
		return repr.ArrayOf(t), err // int[3][] is int[], as in PostgreSQL
	}
	var parts []string
	for _, n := range tn.Names {
		parts = append(parts, n.GetString_().GetSval())
	}
	name := strings.Join(parts, ".")
	var mods []int32
	for _, m := range tn.Typmods {
		a := m.GetAConst()
		if a == nil || a.GetIval() == nil {
			return repr.Unknown, repr.Errorf(repr.CodeSyntax, "type modifiers must be simple constants").WithPosition(tn.Location + 1)
		}
		mods = append(mods, a.GetIval().Ival)
	}
	t, err := repr.TypeByName(name, mods)
	if err != nil {
		return t, withPos(err, tn.Location)
	}
	return t, nil
}

func (c *ectx) typeCast(tc *pg_query.TypeCast) (expr.Expr, error) {
	t, err := c.b.resolveType(tc.TypeName)
	if err != nil {
		if e, ok, rerr := c.rowCast(tc); ok {
			return e, rerr
		}
		return nil, err
	}
	if row := tc.Arg.GetRowExpr(); row != nil && t.IsComposite() {
		return c.rowToComposite(row, t, tc.Location)
	}
	if t.Family == repr.FamInterval && len(tc.TypeName.Typmods) > 0 &&
		tc.TypeName.Typmods[0].GetAConst().GetIval().GetIval() != imFullRange {
		return c.qualifiedInterval(tc)
	}
	if ae := tc.Arg.GetAArrayExpr(); ae != nil && len(ae.Elements) == 0 && t.Family == repr.FamArray {
		return &expr.Lit{D: repr.NewArray(nil), T: t}, nil // ARRAY[]::t[]
	}
	e, err := c.expr(tc.Arg)
	if err != nil {
		return nil, err
	}
	out, err := c.b.explicitCast(e, t, tc.Location)
	if pe, ok := err.(*repr.Error); ok && pe.Position == 0 {
		// A literal that does not convert is reported at the literal, as
		// PostgreSQL does.
		err = pe.WithPosition(location(tc.Arg) + 1)
	}
	return out, err
}

// caseExpr builds simple (CASE x WHEN v ...) and searched CASE.
func (c *ectx) caseExpr(ce *pg_query.CaseExpr) (expr.Expr, error) {
	var subject expr.Expr
	if ce.Arg != nil {
		var err error
		if subject, err = c.expr(ce.Arg); err != nil {
			return nil, err
		}
	}
	// missed holds, for each WHEN so far, that a row did not take it:
	// the guard (guard.go) of the next condition and result.
	var conds, results, missed []expr.Expr
	for _, w := range ce.Args {
		cw := w.GetCaseWhen()
		cond, err := c.withGuard(missed, func() (expr.Expr, error) { return c.expr(cw.Expr) })
		if err != nil {
			return nil, err
		}
		if subject != nil {
			cond, err = c.op("=", cw.Location, subject, cond)
		} else {
			cond, err = c.b.toBool(cond, "CASE/WHEN", cw.Expr)
		}
		if err != nil {
			return nil, err
		}
		taken := append(slices.Clone(missed), isTrue(cond))
		res, err := c.withGuard(taken, func() (expr.Expr, error) { return c.expr(cw.Result) })
		if err != nil {
			return nil, err
		}
		conds, results = append(conds, cond), append(results, res)
		missed = append(missed, &expr.Not{Arg: isTrue(cond)})
	}
	elseExpr := expr.Expr(&expr.Lit{D: repr.Null, T: repr.Unknown})
	if ce.Defresult != nil {
		var err error
		if elseExpr, err = c.withGuard(missed, func() (expr.Expr, error) { return c.expr(ce.Defresult) }); err != nil {
			return nil, err
		}
	}
	// The ELSE result comes first, as PostgreSQL's transformCaseExpr
	// lists it: where two types coerce either way (name and text) the
	// first one is the CASE's type.
	all, err := c.b.unify(append([]expr.Expr{elseExpr}, results...), "CASE", ce.Location)
	if err != nil {
		return nil, err
	}
	out := &expr.Case{T: all[0].Type()}
	for i := range conds {
		out.Whens = append(out.Whens, expr.When{Cond: conds[i], Then: all[i+1]})
	}
	if ce.Defresult != nil {
		out.Else = all[0]
	}
	return out, nil
}

// coalesce is COALESCE(a, b, ...): an argument is reached (guard.go) by
// the rows whose earlier arguments are all NULL.
func (c *ectx) coalesce(ce *pg_query.CoalesceExpr) (expr.Expr, error) {
	var args, nulls []expr.Expr
	for _, n := range ce.Args {
		e, err := c.withGuard(nulls, func() (expr.Expr, error) { return c.expr(n) })
		if err != nil {
			return nil, err
		}
		args, nulls = append(args, e), append(nulls, &expr.IsNull{Arg: e})
	}
	var err error
	if args, err = c.b.unify(args, "COALESCE", ce.Location); err != nil {
		return nil, err
	}
	return &expr.Coalesce{Args: args, T: args[0].Type()}, nil
}

// minMax is GREATEST/LEAST over arguments unified to a common type.
func (c *ectx) minMax(mm *pg_query.MinMaxExpr) (expr.Expr, error) {
	name := "greatest"
	if mm.Op == pg_query.MinMaxOp_IS_LEAST {
		name = "least"
	}
	args, err := c.exprs(mm.Args)
	if err != nil {
		return nil, err
	}
	if args, err = c.b.unify(args, strings.ToUpper(name), mm.Location); err != nil {
		return nil, err
	}
	return c.function(name, args, mm.Location)
}

// function resolves and applies a built-in function.
func (c *ectx) function(name string, args []expr.Expr, loc int32) (expr.Expr, error) {
	if name == "pg_typeof" && len(args) == 1 && (args[0].Type().Composite != 0 || args[0].Type().Enum != 0) {
		return &expr.Lit{D: repr.NewText(c.b.typeName(args[0].Type())), T: repr.Text}, nil // repr cannot name it
	}
	if e, ok, err := c.enumFunction(name, args); ok {
		return e, withPos(err, loc)
	}
	if args, err := c.namedRecordJSONArgs(name, args, loc); err != nil {
		return nil, err
	} else if args != nil {
		return c.function(name, args, loc)
	}
	if to, rargs, ok, err := c.namedRecordJSON(name, args, loc); ok || err != nil {
		if err != nil {
			return nil, err
		}
		name, args = to, rargs
	}
	if len(args) > 0 && isVector(args[0]) {
		args = append([]expr.Expr{plainArray(args[0])}, args[1:]...)
	}
	ts := make([]repr.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	fn, want, err := expr.ResolveFunc(name, ts)
	if err != nil {
		if e, ok := c.functionStyleCast(name, args, loc); ok {
			return e, nil
		}
		return nil, withPos(err, loc)
	}
	return c.b.call(fn, args, want)
}

// functionStyleCast is PostgreSQL's function-style cast: a call of one
// argument named after a type, with no function of that name and argument
// type, is the explicit cast to the type (pg_catalog.bpchar(ev_type),
// text(1)); ok false when name is no type or the cast does not exist.
func (c *ectx) functionStyleCast(name string, args []expr.Expr, loc int32) (expr.Expr, bool) {
	if len(args) != 1 {
		return nil, false
	}
	t, err := expr.ParseTypeName(name, nil)
	if err != nil {
		return nil, false
	}
	e, err := c.b.explicitCast(args[0], t, loc)
	return e, err == nil
}

// sqlValueFunction is CURRENT_TIMESTAMP, CURRENT_DATE, LOCALTIMESTAMP.
func (c *ectx) sqlValueFunction(f *pg_query.SQLValueFunction) (expr.Expr, error) {
	switch f.Op {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_USER, pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER,
		pg_query.SQLValueFunctionOp_SVFOP_USER, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_ROLE,
		pg_query.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		// Session information: functions of the same name in expr.
		return c.function(strings.ToLower(strings.TrimPrefix(f.Op.String(), "SVFOP_")), nil, f.Location)
	}
	now, err := c.function("now", nil, f.Location)
	if err != nil {
		return nil, err
	}
	switch f.Op {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		return now, nil
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		return c.b.internalCast(now, repr.Date, f.Location)
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		return c.b.internalCast(now, repr.Timestamp, f.Location)
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
		return c.b.internalCast(now, repr.TimeT, f.Location)
	}
	return nil, repr.Unsupported("%s", strings.ToLower(strings.TrimPrefix(f.Op.String(), "SVFOP_")))
}
