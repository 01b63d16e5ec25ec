package sql

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// operandTypes are the parameter types of the operator or function n
// planned to (the types its arguments were coerced to), or nil.
func (d *deparser) operandTypes(n *pg.Node, args int) []repr.T {
	var find func(e expr.Expr) []repr.T
	find = func(e expr.Expr) []repr.T {
		switch e := e.(type) {
		case *expr.Call:
			if len(e.Fn.Args) == args {
				return e.Fn.Args
			}
		case *expr.Not:
			return find(e.Arg)
		case *expr.And:
			return find(e.Args[0])
		case *expr.Or:
			return find(e.Args[0])
		}
		return nil
	}
	return find(d.tr.Exprs[n])
}

// wantAt is ts[i], or noWant.
func wantAt(ts []repr.T, i int) repr.T {
	if i < len(ts) {
		return ts[i]
	}
	return noWant
}

// aexpr prints an operator form (get_oper_expr and the forms the parser
// rewrites: IN lists, BETWEEN, NULLIF).
func (d *deparser) aexpr(n *pg.Node, a *pg.A_Expr) {
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_OP, pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE:
		if a.Lexpr == nil {
			ts := d.operandTypes(n, 1)
			d.parenUnlessPretty(func() {
				d.write(opName(a.Name), " ")
				d.expr(a.Rexpr, wantAt(ts, 0), pctx{kind: pOp})
			})
			return
		}
		if l, r := a.Lexpr.GetRowExpr(), a.Rexpr.GetRowExpr(); l != nil && r != nil {
			d.rowCompare(opName(a.Name), l.Args, r.Args)
			return
		}
		ts := d.crossTypeOperands(opName(a.Name), a.Lexpr, a.Rexpr, d.operandTypes(n, 2))
		d.binary(a.Lexpr, opName(a.Name), a.Rexpr, wantAt(ts, 0), wantAt(ts, 1))
	case pg.A_Expr_Kind_AEXPR_NULLIF:
		d.write("NULLIF(")
		d.expr(a.Lexpr, noWant, pNone)
		d.write(", ")
		d.expr(a.Rexpr, noWant, pNone)
		d.write(")")
	case pg.A_Expr_Kind_AEXPR_IN:
		d.inList(n, a)
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		d.between(n, a)
	case pg.A_Expr_Kind_AEXPR_OP_ANY, pg.A_Expr_Kind_AEXPR_OP_ALL:
		if a.Rexpr.GetSubLink() != nil {
			no()
		}
		d.parenUnlessPretty(func() {
			d.expr(a.Lexpr, noWant, pInner)
			d.write(" ", opName(a.Name), map[bool]string{true: " ANY (", false: " ALL ("}[a.Kind == pg.A_Expr_Kind_AEXPR_OP_ANY])
			d.expr(a.Rexpr, noWant, pInner)
			d.write(")")
		})
	case pg.A_Expr_Kind_AEXPR_DISTINCT:
		d.distinctFrom(a)
	case pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		d.parenUnlessPretty(func() {
			d.write("NOT ")
			d.paren(nkind{kind: kTest}, pctx{kind: pBool, op: "NOT"}, func() { d.distinctFrom(a) })
		})
	default:
		no()
	}
}

// rowCompare prints a comparison of two row constructors as PostgreSQL
// stores it: = as the AND of the pairs' equalities, <> as the OR of
// their inequalities (both printed as those boolean expressions), and
// an ordering as (ROW(l...) op ROW(r...)), always parenthesized. Each
// pair is coerced as IS DISTINCT FROM's operands are.
func (d *deparser) rowCompare(op string, l, r []*pg.Node) {
	if len(l) != len(r) || len(l) == 0 || !rowCompareOp(op) {
		no()
	}
	ts := make([][]repr.T, len(l))
	for i := range l {
		lt, rt := d.ownType(l[i]), d.ownType(r[i])
		if t, err := expr.CommonType([]repr.T{lt, rt}, "ROW comparison"); err == nil && lt.Family != repr.FamUnknown && rt.Family != repr.FamUnknown {
			ts[i] = d.crossTypeOperands(op, l[i], r[i], []repr.T{t, t})
		}
	}
	if op == "=" || op == "<>" {
		join := map[string]string{"=": "AND", "<>": "OR"}[op]
		d.parenUnlessPretty(func() {
			for i := range l {
				if i > 0 {
					d.write(" ", join, " ")
				}
				d.paren(nkind{kind: kOp, op: op}, pctx{kind: pBool, op: join}, func() {
					d.binary(l[i], op, r[i], wantAt(ts[i], 0), wantAt(ts[i], 1))
				})
			}
		})
		return
	}
	row := func(side int, xs []*pg.Node) {
		d.write("ROW(")
		for i, x := range xs {
			if i > 0 {
				d.write(", ")
			}
			d.expr(x, wantAt(ts[i], side), pNone)
		}
		d.write(")")
	}
	d.write("(")
	row(0, l)
	d.write(" ", op, " ")
	row(1, r)
	d.write(")")
}

// rowCompareOp reports whether op compares rows.
func rowCompareOp(op string) bool {
	switch op {
	case "=", "<>", "<", "<=", ">", ">=":
		return true
	}
	return false
}

// crossTypeOperands drops the coercions of an operator PostgreSQL has in
// a cross-type form (int4 > int8, float4 = float8, date < timestamp),
// which Eddy plans by coercing one side: PostgreSQL applies none.
func (d *deparser) crossTypeOperands(op string, l, r *pg.Node, ts []repr.T) []repr.T {
	lt, rt := d.ownType(l), d.ownType(r)
	if op == "||" && len(ts) == 2 && stringy(lt) && stringy(rt) && (lt.Family == repr.FamText || rt.Family == repr.FamText) {
		// text || text, PostgreSQL's choice over anynonarray || text
		// whenever both sides are strings (or untyped literals).
		return []repr.T{repr.Text, repr.Text}
	}
	if lt.Family == repr.FamUnknown || rt.Family == repr.FamUnknown {
		return ts
	}
	cmp := op == "=" || op == "<>" || op == "<" || op == ">" || op == "<=" || op == ">="
	arith := op == "+" || op == "-" || op == "*" || op == "/"
	ints := lt.Family == repr.FamInt && rt.Family == repr.FamInt && lt.OIDKind == repr.NotOID && rt.OIDKind == repr.NotOID
	floats := lt.Family == repr.FamFloat && rt.Family == repr.FamFloat
	times := timeFamily(lt.Family) && timeFamily(rt.Family)
	if (cmp || arith) && (ints || floats) || cmp && times {
		return []repr.T{lt, rt}
	}
	return ts
}

// stringy reports a string type or an untyped literal.
func stringy(t repr.T) bool {
	return t.Family == repr.FamText || t.Family == repr.FamUnknown
}

// timeFamily reports date, timestamp and timestamptz, which compare
// across types.
func timeFamily(f repr.Family) bool {
	return f == repr.FamDate || f == repr.FamTimestamp || f == repr.FamTimestampTZ
}

// ownType is n's type before coercion: a literal's own, else planning's.
func (d *deparser) ownType(n *pg.Node) repr.T {
	if c := n.GetAConst(); c != nil {
		return literalType(c)
	}
	return d.typeOf(n)
}

// binary prints (l op r) with its operands coerced to lt and rt.
func (d *deparser) binary(l *pg.Node, op string, r *pg.Node, lt, rt repr.T) {
	d.parenUnlessPretty(func() {
		d.expr(l, lt, pctx{kind: pOp, op: op, left: true})
		d.write(" ", op, " ")
		d.expr(r, rt, pctx{kind: pOp, op: op})
	})
}

// distinctFrom prints (a IS DISTINCT FROM b), its operands coerced to
// the common type of the = operator it uses.
func (d *deparser) distinctFrom(a *pg.A_Expr) {
	lt, rt := d.ownType(a.Lexpr), d.ownType(a.Rexpr)
	var ts []repr.T
	if t, err := expr.CommonType([]repr.T{lt, rt}, "IS DISTINCT FROM"); err == nil && lt.Family != repr.FamUnknown && rt.Family != repr.FamUnknown {
		ts = d.crossTypeOperands("=", a.Lexpr, a.Rexpr, []repr.T{t, t})
	}
	d.parenUnlessPretty(func() {
		d.expr(a.Lexpr, wantAt(ts, 0), pInner)
		d.write(" IS DISTINCT FROM ")
		d.expr(a.Rexpr, wantAt(ts, 1), pInner)
	})
}

// inListParts splits an IN list as PostgreSQL's parser does: the items
// without column references form an = ANY (ARRAY[...]) when there are
// two or more (arr); the rest are compared one by one.
func (d *deparser) inListParts(a *pg.A_Expr) (arr, rest []*pg.Node) {
	items := a.Rexpr.GetList().GetItems()
	if items == nil {
		no()
	}
	if d.ownType(a.Lexpr).Family == repr.FamArray {
		return nil, items // no array of arrays: compared one by one
	}
	for _, it := range items {
		if hasColumnRef(it) {
			rest = append(rest, it)
		} else {
			arr = append(arr, it)
		}
	}
	if len(arr) < 2 {
		return nil, items
	}
	return arr, rest
}

// inJoin is the connective of an IN (OR) or NOT IN (AND) list.
func inJoin(a *pg.A_Expr) string {
	if opName(a.Name) == "<>" {
		return "AND"
	}
	return "OR"
}

// hasColumnRef reports whether n references a column outside subqueries.
func hasColumnRef(n *pg.Node) bool {
	found := false
	var walk func(m *pg.Node)
	walk = func(m *pg.Node) {
		switch {
		case m == nil || found:
		case m.GetColumnRef() != nil:
			found = true
		case m.GetSubLink() != nil:
		case m.GetAExpr() != nil:
			walk(m.GetAExpr().Lexpr)
			walk(m.GetAExpr().Rexpr)
		case m.GetFuncCall() != nil:
			for _, a := range m.GetFuncCall().Args {
				walk(a)
			}
		case m.GetTypeCast() != nil:
			walk(m.GetTypeCast().Arg)
		case m.GetAConst() != nil:
		default:
			found = true // unknown shapes count as referencing columns: compared one by one
		}
	}
	walk(n)
	return found
}

// inList prints x IN (...) as PostgreSQL's parser builds it: x = ANY
// (ARRAY[...]) over the constant items, then one comparison per other
// item, each joined to what precedes it by OR (AND for NOT IN).
func (d *deparser) inList(n *pg.Node, a *pg.A_Expr) {
	ts := d.operandTypes(n, 2)
	lt, rt := wantAt(ts, 0), wantAt(ts, 1)
	op, join := opName(a.Name), inJoin(a)
	arr, rest := d.inListParts(a)
	var terms []func(p pctx)
	if len(arr) > 0 {
		terms = append(terms, func(p pctx) {
			d.paren(nkind{kind: kOtherNode}, p, func() {
				d.parenUnlessPretty(func() {
					d.expr(a.Lexpr, lt, pInner)
					d.write(" ", op, map[bool]string{true: " ANY (", false: " ALL ("}[join == "OR"])
					d.inArray(a.Lexpr, arr, rt)
					d.write(")")
				})
			})
		})
	}
	for _, it := range rest {
		terms = append(terms, func(p pctx) {
			d.paren(nkind{kind: kOp, op: op}, p, func() { d.binary(a.Lexpr, op, it, lt, rt) })
		})
	}
	d.chain(terms, join, len(terms)-1, pNone)
}

// inArray prints an IN list's constants as ARRAY[...] of the common type
// of the list and x, cast to rt[] when the operator wants another
// element type (varchar items compared as text).
func (d *deparser) inArray(x *pg.Node, items []*pg.Node, rt repr.T) {
	ts := []repr.T{d.ownType(x)}
	for _, it := range items {
		ts = append(ts, d.ownType(it))
	}
	ct, err := expr.CommonType(ts, "IN")
	if err != nil || ct.Family == repr.FamUnknown || rt.Family == repr.FamUnknown || sameType(ct, rt) {
		d.write("ARRAY[")
		d.list(items, rt)
		d.write("]")
		return
	}
	d.coercionNamed(func(pctx) {
		d.write("ARRAY[")
		d.list(items, ct)
		d.write("]")
	}, nkind{kind: kSimple}, typeName(rt)+"[]")
}

// chain prints terms[0..last] as nested binary connectives,
// ((t0 OR t1) OR t2), as the parser builds an IN list.
func (d *deparser) chain(terms []func(pctx), join string, last int, p pctx) {
	if last == 0 {
		terms[0](p)
		return
	}
	d.paren(nkind{kind: kBool, op: join}, p, func() {
		d.parenUnlessPretty(func() {
			d.chain(terms, join, last-1, pctx{kind: pBool, op: join})
			d.write(" ", join, " ")
			terms[last](pctx{kind: pBool, op: join})
		})
	})
}

// between prints x BETWEEN lo AND hi as ((x >= lo) AND (x <= hi)), NOT
// BETWEEN as ((x < lo) OR (x > hi)).
func (d *deparser) between(n *pg.Node, a *pg.A_Expr) {
	bounds := a.Rexpr.GetList().GetItems()
	if len(bounds) != 2 {
		no()
	}
	join, ops := "AND", [2]string{">=", "<="}
	if a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN {
		join, ops = "OR", [2]string{"<", ">"}
	}
	var parts [2][]repr.T
	if e, ok := d.tr.Exprs[n]; ok {
		if not, ok := e.(*expr.Not); ok {
			e = not.Arg
		}
		if and, ok := e.(*expr.And); ok && len(and.Args) == 2 {
			for i := range parts {
				if c, ok := and.Args[i].(*expr.Call); ok && len(c.Fn.Args) == 2 {
					parts[i] = c.Fn.Args
				}
			}
		}
	}
	d.parenUnlessPretty(func() {
		for i, b := range bounds {
			if i > 0 {
				d.write(" ", join, " ")
			}
			d.paren(nkind{kind: kOp, op: ops[i]}, pctx{kind: pBool, op: join}, func() {
				d.binary(a.Lexpr, ops[i], b, wantAt(parts[i], 0), wantAt(parts[i], 1))
			})
		}
	})
}

// boolExpr prints AND, OR and NOT.
func (d *deparser) boolExpr(b *pg.BoolExpr) {
	op := map[pg.BoolExprType]string{pg.BoolExprType_AND_EXPR: "AND", pg.BoolExprType_OR_EXPR: "OR",
		pg.BoolExprType_NOT_EXPR: "NOT"}[b.Boolop]
	p := pctx{kind: pBool, op: op}
	d.parenUnlessPretty(func() {
		if op == "NOT" {
			d.write("NOT ")
			d.expr(b.Args[0], repr.Bool, p)
			return
		}
		for i, a := range b.Args {
			if i > 0 {
				d.write(" ", op, " ")
			}
			d.expr(a, repr.Bool, p)
		}
	})
}

// caseExpr prints CASE over several lines, its results coerced to the
// CASE's type and a missing ELSE as ELSE NULL.
func (d *deparser) caseExpr(n *pg.Node, ce *pg.CaseExpr) {
	t := d.typeOf(n)
	if t.Family == repr.FamUnknown {
		t = repr.Text
	}
	d.keyword("CASE", 0, indentVar, 0)
	whenT := repr.Bool // a searched CASE's conditions
	if ce.Arg != nil {
		d.write(" ")
		d.expr(ce.Arg, noWant, pNone)
		whenT = d.typeOf(ce.Arg)
	}
	for _, w := range ce.Args {
		cw := w.GetCaseWhen()
		d.keyword("WHEN ", 0, 0, 0)
		d.expr(cw.Expr, whenT, pNone)
		d.write(" THEN ")
		d.expr(cw.Result, t, pNone)
	}
	d.keyword("ELSE ", 0, 0, 0)
	if ce.Defresult != nil {
		d.expr(ce.Defresult, t, pNone)
	} else {
		d.write("NULL::", typeName(t))
	}
	d.keyword("END", -indentVar, 0, 0)
}

// funcCall prints a function, aggregate or window function call.
func (d *deparser) funcCall(n *pg.Node, fc *pg.FuncCall) {
	if fc.AggWithinGroup || fc.FuncVariadic {
		no()
	}
	if fc.Funcformat == pg.CoercionForm_COERCE_SQL_SYNTAX {
		d.sqlSyntaxCall(n, fc)
		return
	}
	name := fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval()
	if len(fc.Funcname) > 2 || len(fc.Funcname) == 2 && fc.Funcname[0].GetString_().GetSval() != "pg_catalog" {
		no()
	}
	if expr.IsVariadic(name) {
		no() // VARIADIC ARRAY[...] and "any" arguments: not traced
	}
	d.write(expr.QuoteIdent(name), "(")
	if fc.AggStar {
		d.write("*")
	} else {
		if fc.AggDistinct {
			d.write("DISTINCT ")
		}
		if fc.Over != nil {
			d.windowArgsPrintable(name, fc.Args)
		}
		ts := d.operandTypes(n, len(fc.Args))
		if d.adoptRegrArgs(fc.Args) {
			ts = []repr.T{repr.Float8, repr.Float8} // PostgreSQL's (float8, float8)
		}
		for i, a := range fc.Args {
			if i > 0 {
				d.write(", ")
			}
			d.expr(a, wantAt(ts, i), pNone)
		}
		if len(fc.AggOrder) > 0 {
			d.write(" ORDER BY ")
			d.sortList(fc.AggOrder)
		}
	}
	d.write(")")
	if fc.AggFilter != nil {
		d.write(" FILTER (WHERE ")
		d.expr(fc.AggFilter, repr.Bool, pNone)
		d.write(")")
	}
	if fc.Over != nil {
		d.write(" OVER ")
		d.window(fc.Over)
	}
}

// adoptRegrArgs reports whether args are a statistics aggregate's (the
// planner rewrites regr_slope(y, x) and its kin into sums, planning
// copies of the arguments: planner.Trace.RegrArgs), and gives each
// argument's nodes the trace of its planned copy.
func (d *deparser) adoptRegrArgs(args []*pg.Node) bool {
	if len(args) != 2 || d.tr.RegrArgs[args[0]] == nil || d.tr.RegrArgs[args[1]] == nil {
		return false
	}
	for _, a := range args {
		d.adoptTrace(a, d.tr.RegrArgs[a])
	}
	return true
}

// adoptTrace gives the nodes of n the trace of the same nodes of twin, a
// copy of n that was planned.
func (d *deparser) adoptTrace(n, twin *pg.Node) {
	pairWalk(n.ProtoReflect(), twin.ProtoReflect(), func(x, y proto.Message) {
		switch x := x.(type) {
		case *pg.Node:
			if e, ok := d.tr.Exprs[y.(*pg.Node)]; ok {
				d.tr.Exprs[x] = e
			}
		case *pg.ColumnRef:
			if c, ok := d.tr.Cols[y.(*pg.ColumnRef)]; ok {
				d.tr.Cols[x] = c
			}
		}
	})
}

// pairWalk calls fn on each message of a and the message at the same
// place in b, a tree of the same shape (a copy), preorder.
func pairWalk(a, b protoreflect.Message, fn func(x, y proto.Message)) {
	fn(a.Interface(), b.Interface())
	a.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		w := b.Get(fd)
		switch {
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			la, lb := v.List(), w.List()
			for i := 0; i < la.Len() && i < lb.Len(); i++ {
				pairWalk(la.Get(i).Message(), lb.Get(i).Message(), fn)
			}
		case fd.Kind() == protoreflect.MessageKind && !fd.IsMap() && b.Has(fd):
			pairWalk(v.Message(), w.Message(), fn)
		}
		return true
	})
}

// sqlSyntaxCall prints a function the grammar spells as SQL syntax, as
// PostgreSQL's get_func_sql_syntax does: EXTRACT(field FROM x),
// SUBSTRING(x FROM a [FOR b]), POSITION((s) IN (x)), OVERLAY(x PLACING y
// FROM a [FOR b]) and TRIM(BOTH|LEADING|TRAILING [chars] FROM x) (the
// grammar's btrim, ltrim and rtrim). The arguments print with the
// function's parameter types, as its call was planned.
func (d *deparser) sqlSyntaxCall(n *pg.Node, fc *pg.FuncCall) {
	name := fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval()
	args := fc.Args
	ts := d.operandTypes(n, len(args))
	arg := func(i int) { d.expr(args[i], wantAt(ts, i), pNone) }
	switch {
	case name == "extract" && len(args) == 2 && args[0].GetAConst().GetSval() != nil:
		d.write("EXTRACT(", args[0].GetAConst().GetSval().Sval, " FROM ")
		d.expr(args[1], noWant, pNone)
	case ts == nil:
		no()
	case name == "substring" && (len(args) == 2 || len(args) == 3):
		d.write("SUBSTRING(")
		d.sqlSyntaxArgs(arg, len(args), " FROM ", " FOR ")
	case name == "overlay" && (len(args) == 3 || len(args) == 4):
		d.write("OVERLAY(")
		d.sqlSyntaxArgs(arg, len(args), " PLACING ", " FROM ", " FOR ")
	case name == "position" && len(args) == 2:
		d.write("POSITION((")
		arg(1)
		d.write(") IN (")
		arg(0)
		d.write(")")
	case (name == "btrim" || name == "ltrim" || name == "rtrim") && (len(args) == 1 || len(args) == 2):
		d.write("TRIM(", map[string]string{"btrim": "BOTH", "ltrim": "LEADING", "rtrim": "TRAILING"}[name])
		if len(args) == 2 {
			d.write(" ")
			arg(1)
		}
		d.write(" FROM ")
		arg(0)
	default:
		no()
	}
	d.write(")")
}

// sqlSyntaxArgs prints arguments 0..n-1 of a SQL-syntax call, the i-th
// (i >= 1) after keyword kws[i-1].
func (d *deparser) sqlSyntaxArgs(arg func(int), n int, kws ...string) {
	for i := range n {
		if i > 0 {
			d.write(kws[i-1])
		}
		arg(i)
	}
}

// windowArgsPrintable refuses the window function calls whose argument
// coercions the trace does not show: an untyped literal argument, and
// lag/lead whose default has another type than the value.
func (d *deparser) windowArgsPrintable(name string, args []*pg.Node) {
	for _, a := range args {
		if unknownLiteral(a) {
			no()
		}
	}
	if (name == "lag" || name == "lead") && len(args) == 3 && !sameType(d.ownType(args[0]), d.ownType(args[2])) {
		no()
	}
}

// sortList prints ORDER BY items of an aggregate or window.
func (d *deparser) sortList(items []*pg.Node) {
	for i, s := range items {
		if i > 0 {
			d.write(", ")
		}
		d.sortBy(s.GetSortBy(), nil, false)
	}
}

// window prints an OVER clause's window: a named window alone (OVER w,
// and OVER (w), which PostgreSQL reads as it) or a specification.
func (d *deparser) window(w *pg.WindowDef) {
	own := len(w.PartitionClause) > 0 || len(w.OrderClause) > 0 || w.FrameOptions&frameNonDefault != 0
	switch {
	case !own && w.Name != "":
		d.write(expr.QuoteIdent(w.Name)) // OVER w
		return
	case !own && w.Refname != "":
		d.write(expr.QuoteIdent(w.Refname)) // OVER (w) is OVER w
		return
	}
	d.windowSpec(w)
}

// windowSpec prints a window specification in parentheses: the window
// it extends, PARTITION BY, ORDER BY, the frame (get_rule_windowspec).
func (d *deparser) windowSpec(w *pg.WindowDef) {
	d.write("(")
	sep := ""
	if w.Refname != "" {
		d.write(expr.QuoteIdent(w.Refname))
		sep = " "
	}
	if len(w.PartitionClause) > 0 {
		d.write(sep, "PARTITION BY ")
		for i, p := range w.PartitionClause {
			if i > 0 {
				d.write(", ")
			}
			d.sortGroupExpr(p, false)
		}
		sep = " "
	}
	if len(w.OrderClause) > 0 {
		d.write(sep, "ORDER BY ")
		d.sortList(w.OrderClause)
		sep = " "
	}
	if w.FrameOptions&frameNonDefault != 0 {
		d.write(sep)
		d.frame(w)
	}
	d.write(")")
}

// windowClause prints a query's WINDOW clause: each named window's
// specification (get_rule_windowclause).
func (d *deparser) windowClause(defs []*pg.Node) {
	d.keyword(" WINDOW ", -indentStd, indentStd, 1)
	for i, n := range defs {
		w := n.GetWindowDef()
		if i > 0 {
			d.write(", ")
		}
		d.write(expr.QuoteIdent(w.Name), " AS ")
		d.windowSpec(w)
	}
}

// The frame option bits of a window (PostgreSQL's FRAMEOPTION_*).
const (
	frameNonDefault        = 0x00001
	frameRange             = 0x00002
	frameRows              = 0x00004
	frameGroups            = 0x00008
	frameBetween           = 0x00010
	frameStartUnboundedPre = 0x00020
	frameEndUnboundedFol   = 0x00100
	frameStartCurrentRow   = 0x00200
	frameEndCurrentRow     = 0x00400
	frameStartOffsetPre    = 0x00800
	frameEndOffsetPre      = 0x01000
	frameStartOffsetFol    = 0x02000
	frameEndOffsetFol      = 0x04000
	frameExcludeCurrentRow = 0x08000
	frameExcludeGroup      = 0x10000
	frameExcludeTies       = 0x20000
)

// frame prints a window's frame clause (RANGE|ROWS|GROUPS [BETWEEN] ...).
func (d *deparser) frame(w *pg.WindowDef) {
	o := w.FrameOptions
	switch {
	case o&frameRange != 0:
		d.write("RANGE ")
	case o&frameRows != 0:
		d.write("ROWS ")
	case o&frameGroups != 0:
		d.write("GROUPS ")
	}
	if o&frameBetween != 0 {
		d.write("BETWEEN ")
	}
	switch {
	case o&frameStartUnboundedPre != 0:
		d.write("UNBOUNDED PRECEDING")
	case o&frameStartCurrentRow != 0:
		d.write("CURRENT ROW")
	case o&(frameStartOffsetPre|frameStartOffsetFol) != 0:
		d.frameOffset(w, w.StartOffset)
		d.write(map[bool]string{true: " PRECEDING", false: " FOLLOWING"}[o&frameStartOffsetPre != 0])
	default:
		no()
	}
	if o&frameBetween != 0 {
		d.write(" AND ")
		switch {
		case o&frameEndUnboundedFol != 0:
			d.write("UNBOUNDED FOLLOWING")
		case o&frameEndCurrentRow != 0:
			d.write("CURRENT ROW")
		case o&(frameEndOffsetPre|frameEndOffsetFol) != 0:
			d.frameOffset(w, w.EndOffset)
			d.write(map[bool]string{true: " PRECEDING", false: " FOLLOWING"}[o&frameEndOffsetPre != 0])
		default:
			no()
		}
	}
	switch {
	case o&frameExcludeCurrentRow != 0:
		d.write(" EXCLUDE CURRENT ROW")
	case o&frameExcludeGroup != 0:
		d.write(" EXCLUDE GROUP")
	case o&frameExcludeTies != 0:
		d.write(" EXCLUDE TIES")
	}
}

// frameOffset prints a frame bound's offset, which the parser coerces
// to bigint (ROWS, GROUPS) or to the sort key's type, an interval for
// dates and times (RANGE); the coercion is not shown, but an operator
// under it is parenthesized.
func (d *deparser) frameOffset(w *pg.WindowDef, n *pg.Node) {
	want := repr.Int8
	if w.FrameOptions&frameRange != 0 {
		if len(w.OrderClause) != 1 {
			no()
		}
		want = d.typeOf(w.OrderClause[0].GetSortBy().GetNode())
		if timeFamily(want.Family) || want.Family == repr.FamTime || want.Family == repr.FamInterval {
			want = repr.IntervalT
		}
	}
	switch own := d.ownType(n); {
	case unknownLiteral(n):
		d.constant(n.GetAConst(), withoutModifiers(want), 0)
	case want.Family != repr.FamUnknown && own.Family != repr.FamUnknown && !sameType(own, want):
		d.exprParen(n, pInner)
	default:
		d.expr(n, noWant, pNone)
	}
}

// subLink prints a subquery expression (get_sublink_expr).
func (d *deparser) subLink(s *pg.SubLink) {
	sel := s.Subselect.GetSelectStmt()
	if sel == nil {
		no()
	}
	open, closing := "(", "))"
	switch s.SubLinkType {
	case pg.SubLinkType_EXISTS_SUBLINK:
		d.write("(EXISTS ")
	case pg.SubLinkType_ANY_SUBLINK, pg.SubLinkType_ALL_SUBLINK:
		if s.Testexpr == nil || s.Testexpr.GetRowExpr() != nil {
			no()
		}
		op := "="
		if len(s.OperName) > 0 {
			op = opName(s.OperName)
		}
		d.write("(")
		d.expr(s.Testexpr, noWant, pNone)
		switch {
		case s.SubLinkType == pg.SubLinkType_ALL_SUBLINK:
			d.write(" ", op, " ALL ")
		case op == "=":
			d.write(" IN ")
		default:
			d.write(" ", op, " ANY ")
		}
	case pg.SubLinkType_EXPR_SUBLINK:
		open, closing = "(", ")"
	case pg.SubLinkType_ARRAY_SUBLINK:
		open, closing = "ARRAY(", ")"
	default:
		no()
	}
	d.write(open)
	d.query(sel, &outCols{hidden: true})
	d.write(closing)
}
