package sql

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// noWant is the wanted type of an expression nothing coerces (an
// untyped literal there is text); keepUnknown leaves an untyped literal
// untyped (the argument of IS NULL).
var (
	noWant      = repr.T{}
	keepUnknown = repr.T{Length: -1}
)

// pctx says where an expression is printed, which decides whether pretty
// mode parenthesizes it (ruleutils.c isSimpleNode): pTop never (a clause,
// a function argument, a CASE arm), pOp and pBool by precedence, pOther
// unless the expression is a single word or function-like.
type pctx struct {
	kind pkind
	op   string // the parent operator, or AND, OR, NOT
	left bool   // the expression is the parent operator's left argument
}

type pkind int

const (
	pTop pkind = iota
	pOther
	pOp
	pBool
)

var (
	pNone  = pctx{kind: pTop}
	pInner = pctx{kind: pOther}
)

// nkind classifies an expression for isSimpleNode.
type nkind struct {
	kind int // kSimple, kOp, kBool, kTest, kOtherNode
	op   string
}

const (
	kSimple = iota
	kOp
	kBool
	kTest
	kOtherNode
)

// simple reports whether an expression of kind k needs no parentheses
// under p in pretty mode.
func simple(k nkind, p pctx) bool {
	switch k.kind {
	case kSimple:
		return true
	case kOp:
		if p.kind == pOp {
			return simpleUnderOp(k.op, p)
		}
		return p.kind == pBool
	case kTest:
		return p.kind == pBool
	case kBool:
		if p.kind != pBool {
			return false
		}
		if k.op == "OR" {
			return p.op == "OR"
		}
		return p.op == "AND" || p.op == "OR"
	}
	return false
}

// simpleUnderOp applies arithmetic precedence: * / % bind tighter than +
// -, and equal precedence needs no parentheses on the left.
func simpleUnderOp(op string, p pctx) bool {
	lo, hi := opPriority(op)
	plo, phi := opPriority(p.op)
	switch {
	case !(lo || hi) || !(plo || phi):
		return false
	case hi && plo:
		return true
	case lo && phi:
		return false
	}
	return p.left
}

// opPriority reports whether a binary operator is + or - (lo) or * / %
// (hi); "" (a prefix operator) is neither.
func opPriority(op string) (lo, hi bool) {
	if op == "" {
		return false, false
	}
	return strings.ContainsRune("+-", rune(op[0])), strings.ContainsRune("*/%", rune(op[0]))
}

// typeOf is the type planning gave n before any coercion, or noWant.
func (d *deparser) typeOf(n *pg.Node) repr.T {
	if e, ok := d.tr.Exprs[n]; ok {
		return e.Type()
	}
	return noWant
}

// sameType reports whether a and b are one PostgreSQL type (modifiers
// aside): no coercion connects them. b is the type wanted of a value
// of type a.
func sameType(a, b repr.T) bool {
	if a.Family == repr.FamUnknown || b.Family == repr.FamUnknown {
		return true
	}
	if a.Family == repr.FamRecord && b.Family == repr.FamRecord && b.Composite == 0 {
		// record is a pseudo-type: a composite is passed as one with no
		// coercion (PostgreSQL's record_eq over t.c = '(a,1)'::comp)
		return true
	}
	if a.OID() == 0 || b.OID() == 0 {
		return a.Equivalent(b)
	}
	return a.OID() == b.OID()
}

// expr prints n coerced to want (noWant: as it is) under p: a literal of
// unknown type becomes a constant of want, any other expression whose
// type differs shows the coercion as ::want.
func (d *deparser) expr(n *pg.Node, want repr.T, p pctx) {
	if c := n.GetAConst(); c != nil {
		d.constArg(c, want, p)
		return
	}
	if tc := n.GetTypeCast(); tc != nil && unknownLiteral(tc.Arg) && want.Family == repr.FamUnknown {
		d.constant(tc.Arg.GetAConst(), d.typeOf(n), 0)
		return
	}
	own := d.typeOf(n)
	if want.Family != repr.FamUnknown && own.Family != repr.FamUnknown && !sameType(own, want) {
		k := d.kind(n)
		if k.kind != kSimple {
			k.kind = kOtherNode
		}
		d.paren(k, p, func() { d.coercion(func(q pctx) { d.exprParen(n, q) }, d.kind(n), want) })
		return
	}
	d.exprParen(n, p)
}

// paren prints f in parentheses when pretty mode needs them for a node
// of kind k under p.
func (d *deparser) paren(k nkind, p pctx, f func()) {
	need := d.pretty && p.kind != pTop && !simple(k, p)
	if need {
		d.write("(")
	}
	f()
	if need {
		d.write(")")
	}
}

// exprParen prints n under p (get_rule_expr_paren).
func (d *deparser) exprParen(n *pg.Node, p pctx) {
	d.paren(d.kind(n), p, func() { d.node(n) })
}

// coercion prints arg::t (get_coercion_expr): outside pretty mode the
// argument is always parenthesized.
func (d *deparser) coercion(arg func(pctx), argKind nkind, t repr.T) {
	d.coercionNamed(arg, argKind, typeName(t))
}

// coercionNamed is coercion to the type format_type names name.
func (d *deparser) coercionNamed(arg func(pctx), argKind nkind, name string) {
	if !d.pretty {
		d.write("(")
		arg(pNone)
		d.write(")")
	} else {
		d.paren(argKind, pInner, func() { arg(pNone) })
	}
	d.write("::", name)
}

// typeName is t as format_type prints it with its modifiers (typmod -1
// given: a bit without a length is "bit", as bit alone means bit(1)).
func typeName(t repr.T) string {
	switch t {
	case repr.Bit:
		return `"bit"`
	case repr.ArrayOf(repr.Bit):
		return `"bit"[]`
	}
	return t.Name()
}

// unknownLiteral reports whether n is a string literal or NULL (of
// unknown type until context types it).
func unknownLiteral(n *pg.Node) bool {
	c := n.GetAConst()
	return c != nil && (c.Isnull || c.GetSval() != nil)
}

// kind classifies n as printed.
func (d *deparser) kind(n *pg.Node) nkind {
	switch {
	case n.GetAExpr() != nil:
		return d.aexprKind(n.GetAExpr())
	case n.GetBoolExpr() != nil:
		return nkind{kind: kBool, op: map[pg.BoolExprType]string{pg.BoolExprType_AND_EXPR: "AND",
			pg.BoolExprType_OR_EXPR: "OR", pg.BoolExprType_NOT_EXPR: "NOT"}[n.GetBoolExpr().Boolop]}
	case n.GetNullTest() != nil, n.GetBooleanTest() != nil, n.GetSubLink() != nil:
		return nkind{kind: kTest}
	case n.GetCollateClause() != nil:
		return nkind{kind: kOtherNode}
	case n.GetTypeCast() != nil:
		if unknownLiteral(n.GetTypeCast().Arg) {
			return nkind{kind: kSimple}
		}
		if k := d.kind(n.GetTypeCast().Arg); k.kind != kSimple {
			return nkind{kind: kOtherNode}
		}
	}
	return nkind{kind: kSimple}
}

// aexprKind classifies an operator form as printed.
func (d *deparser) aexprKind(a *pg.A_Expr) nkind {
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_OP, pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE:
		if a.Lexpr == nil {
			return nkind{kind: kOp}
		}
		if a.Lexpr.GetRowExpr() != nil && a.Rexpr.GetRowExpr() != nil { // rowCompare's forms
			switch opName(a.Name) {
			case "=":
				return nkind{kind: kBool, op: "AND"}
			case "<>":
				return nkind{kind: kBool, op: "OR"}
			}
			return nkind{kind: kOtherNode}
		}
		return nkind{kind: kOp, op: opName(a.Name)}
	case pg.A_Expr_Kind_AEXPR_NULLIF:
		return nkind{kind: kSimple}
	case pg.A_Expr_Kind_AEXPR_BETWEEN:
		return nkind{kind: kBool, op: "AND"}
	case pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		return nkind{kind: kBool, op: "OR"}
	case pg.A_Expr_Kind_AEXPR_IN:
		arr, rest := d.inListParts(a)
		switch {
		case len(arr) > 0 && len(rest) > 0:
			return nkind{kind: kBool, op: inJoin(a)}
		case len(arr) > 0:
			return nkind{kind: kOtherNode}
		case len(rest) > 1:
			return nkind{kind: kBool, op: inJoin(a)}
		}
		return nkind{kind: kOp, op: opName(a.Name)}
	case pg.A_Expr_Kind_AEXPR_DISTINCT:
		return nkind{kind: kTest}
	case pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		return nkind{kind: kBool, op: "NOT"}
	}
	return nkind{kind: kOtherNode}
}

// opName is an operator's name; a schema-qualified one is not printed.
func opName(names []*pg.Node) string {
	if len(names) != 1 {
		no()
	}
	return names[0].GetString_().GetSval()
}

// node prints n itself (get_rule_expr).
func (d *deparser) node(n *pg.Node) {
	switch {
	case n.GetColumnRef() != nil:
		c := d.col(n.GetColumnRef())
		d.write(d.qualified(c, d.colName(c)))
	case n.GetAConst() != nil:
		d.constArg(n.GetAConst(), noWant, pNone)
	case n.GetAExpr() != nil:
		d.aexpr(n, n.GetAExpr())
	case n.GetBoolExpr() != nil:
		d.boolExpr(n.GetBoolExpr())
	case n.GetNullTest() != nil:
		nt := n.GetNullTest()
		d.test(nt.Arg, map[bool]string{false: " IS NULL", true: " IS NOT NULL"}[nt.Nulltesttype == pg.NullTestType_IS_NOT_NULL])
	case n.GetBooleanTest() != nil:
		bt := n.GetBooleanTest()
		d.test(bt.Arg, " "+strings.ReplaceAll(bt.Booltesttype.String(), "_", " "))
	case n.GetTypeCast() != nil:
		d.typeCast(n, n.GetTypeCast())
	case n.GetFuncCall() != nil:
		d.funcCall(n, n.GetFuncCall())
	case n.GetCaseExpr() != nil:
		d.caseExpr(n, n.GetCaseExpr())
	case n.GetCoalesceExpr() != nil:
		d.call("COALESCE", n.GetCoalesceExpr().Args, d.typeOf(n))
	case n.GetMinMaxExpr() != nil:
		d.call(map[bool]string{true: "GREATEST", false: "LEAST"}[n.GetMinMaxExpr().Op == pg.MinMaxOp_IS_GREATEST], n.GetMinMaxExpr().Args, d.typeOf(n))
	case n.GetAArrayExpr() != nil:
		want := d.typeOf(n).ElemType()
		if els := n.GetAArrayExpr().Elements; len(els) > 0 && els[0].GetAArrayExpr() != nil {
			want = noWant // a multidimensional ARRAY[ARRAY[...], ...]
		}
		d.write("ARRAY[")
		d.list(n.GetAArrayExpr().Elements, want)
		d.write("]")
	case n.GetSubLink() != nil:
		d.subLink(n.GetSubLink())
	case n.GetRowExpr() != nil: // (a, b) and ROW(a, b) alike
		d.call("ROW", n.GetRowExpr().Args, noWant)
	case n.GetSqlvalueFunction() != nil:
		d.sqlValue(n.GetSqlvalueFunction())
	case n.GetAIndirection() != nil:
		d.subscripts(n.GetAIndirection())
	case n.GetGroupingFunc() != nil:
		d.call("GROUPING", n.GetGroupingFunc().Args, noWant)
	case n.GetCollateClause() != nil:
		d.collate(n, n.GetCollateClause())
	default:
		no()
	}
}

// collate prints x COLLATE name, parenthesized outside pretty mode (in
// it, by its context: exprParen), its argument typed as the clause.
func (d *deparser) collate(n *pg.Node, cc *pg.CollateClause) {
	if len(cc.Collname) != 1 {
		no()
	}
	if !d.pretty {
		d.write("(")
	}
	d.expr(cc.Arg, d.typeOf(n), pInner)
	d.write(" COLLATE ", expr.QuoteIdent(cc.Collname[0].GetString_().GetSval()))
	if !d.pretty {
		d.write(")")
	}
}

// subscripts prints array subscripts x[i][j] (slices and field
// selections are not printed).
func (d *deparser) subscripts(ind *pg.A_Indirection) {
	if ind.Arg.GetColumnRef() != nil {
		d.expr(ind.Arg, noWant, pInner)
	} else {
		d.write("(")
		d.expr(ind.Arg, noWant, pNone)
		d.write(")")
	}
	for _, i := range ind.Indirection {
		x := i.GetAIndices()
		if x == nil || x.IsSlice || x.Uidx == nil {
			no()
		}
		d.write("[")
		d.expr(x.Uidx, noWant, pNone)
		d.write("]")
	}
}

// list prints expressions comma-separated, each coerced to want.
func (d *deparser) list(ns []*pg.Node, want repr.T) {
	for i, a := range ns {
		if i > 0 {
			d.write(", ")
		}
		d.expr(a, want, pNone)
	}
}

// call prints NAME(args) with every argument coerced to want.
func (d *deparser) call(name string, args []*pg.Node, want repr.T) {
	d.write(name, "(")
	d.list(args, want)
	d.write(")")
}

// test prints (arg IS ...) of a NULL or boolean test.
func (d *deparser) test(arg *pg.Node, suffix string) {
	d.parenUnlessPretty(func() {
		d.expr(arg, keepUnknown, pInner)
		d.write(suffix)
	})
}

// sqlValue prints CURRENT_DATE and the other SQL value functions.
func (d *deparser) sqlValue(f *pg.SQLValueFunction) {
	name := strings.TrimPrefix(f.Op.String(), "SVFOP_")
	if strings.HasSuffix(name, "_N") {
		no()
	}
	d.write(name)
}

// constArg prints a literal coerced to want: an unknown-typed one as a
// constant of that type, a typed one with a cast when want differs.
func (d *deparser) constArg(c *pg.A_Const, want repr.T, p pctx) {
	own := literalType(c)
	switch {
	case own.Family == repr.FamUnknown:
		// coercion makes a constant of the type without modifiers
		// (a length coercion to varchar(8) follows, not shown)
		t := withoutModifiers(want)
		if want == keepUnknown {
			t = noWant
		} else if t.Family == repr.FamUnknown {
			t = repr.Text
		}
		d.constant(c, t, 0)
	case want.Family != repr.FamUnknown && !sameType(own, want):
		d.paren(nkind{kind: kSimple}, p, func() {
			d.coercion(func(pctx) { d.constant(c, own, 0) }, nkind{kind: kSimple}, want)
		})
	default:
		d.constant(c, own, 0)
	}
}

// withoutModifiers is t without its length, precision and scale.
func withoutModifiers(t repr.T) repr.T {
	t.Length, t.Precision, t.Scale = 0, 0, 0
	return t
}

// literalType is a literal's type as PostgreSQL's parser gives it:
// integers int4 (int8, numeric when larger), decimals numeric, strings
// and NULL unknown.
func literalType(c *pg.A_Const) repr.T {
	switch {
	case c.Isnull || c.GetSval() != nil:
		return noWant
	case c.GetBsval() != nil:
		return repr.Bit
	case c.GetIval() != nil:
		return repr.Int4
	case c.GetBoolval() != nil:
		return repr.Bool
	case c.GetFval() != nil:
		s := c.GetFval().Fval
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return repr.Int8
		}
		return repr.Numeric
	}
	return noWant
}

// literalText is a literal's text.
func literalText(c *pg.A_Const) string {
	switch {
	case c.GetIval() != nil:
		return strconv.Itoa(int(c.GetIval().Ival))
	case c.GetFval() != nil:
		return c.GetFval().Fval
	case c.GetSval() != nil:
		return c.GetSval().Sval
	case c.GetBoolval() != nil:
		return map[bool]string{true: "true", false: "false"}[c.GetBoolval().Boolval]
	case c.GetBsval() != nil:
		if d, err := repr.ParseText(c.GetBsval().Bsval, repr.Bit, nil); err == nil {
			return repr.FormatText(d, repr.Bit, nil)
		}
	}
	no()
	return ""
}

// constant prints a literal as a constant of type t (get_const_expr):
// showtype 0 labels it with ::t unless its form implies t, 1 always.
func (d *deparser) constant(c *pg.A_Const, t repr.T, showtype int) {
	if d.consts != nil {
		d.consts[c] = t
	}
	if c.Isnull {
		d.write("NULL")
		if showtype >= 0 && (t.Enum != 0 || t.Composite != 0) {
			d.write("::", d.cat.typeName(t))
		} else if showtype >= 0 {
			d.write("::", typeName(t))
		}
		return
	}
	if t.Enum != 0 || t.Composite != 0 { // a label or record text is its own output
		d.write(quoteLiteral(literalText(c)), "::", d.cat.typeName(t))
		return
	}
	v := d.constValue(c, t)
	label := true
	switch {
	case t.Family == repr.FamInt && t.Width == 32 && t.OIDKind == repr.NotOID:
		label = v[0] == '-'
		if label {
			v = quoteLiteral(v)
		}
	case t.Family == repr.FamNumeric:
		label = !(v[0] >= '0' && v[0] <= '9' && strings.ContainsAny(v, "eE.")) || t.Precision > 0
		if v[0] < '0' || v[0] > '9' || !strings.ContainsAny(v, "eE.") {
			v = quoteLiteral(v)
		}
	case t.Family == repr.FamUnknown:
		label = false
		v = quoteLiteral(v)
	case t.Family == repr.FamBool:
		label = false
		v = map[bool]string{true: "true", false: "false"}[v == "t" || v == "true"]
	default:
		v = quoteLiteral(v)
	}
	d.write(v)
	if label || showtype > 0 {
		d.write("::", typeName(t))
	}
}

// constValue is the text of literal c as a value of type t, in t's
// output form ('2024-1-2' as a date is 2024-01-02).
func (d *deparser) constValue(c *pg.A_Const, t repr.T) string {
	s := literalText(c)
	if t.Family == repr.FamUnknown || sameType(literalType(c), t) && literalType(c).Family != repr.FamUnknown {
		return s
	}
	// the literal becomes a constant of the type without modifiers; a
	// length or precision coercion follows it at run time
	base := withoutModifiers(t)
	cast := &expr.Cast{Arg: &expr.Lit{D: repr.NewText(s), T: repr.Text}, To: base, Explicit: true}
	v, err := cast.Eval(&expr.Ctx{}, nil)
	if err != nil || v.IsNull() {
		no()
	}
	return repr.FormatText(v, base, nil)
}

// typeCast prints x::t (CAST(x AS t)): a literal cast is a constant of t,
// a cast to x's own type nothing.
func (d *deparser) typeCast(n *pg.Node, tc *pg.TypeCast) {
	t := d.typeOf(n)
	if t.Family == repr.FamUnknown {
		no()
	}
	if unknownLiteral(tc.Arg) {
		d.constant(tc.Arg.GetAConst(), t, 0)
		return
	}
	own := d.typeOf(tc.Arg)
	if c := tc.Arg.GetAConst(); c != nil {
		own = literalType(c)
	}
	if tc.Arg.GetRowExpr() != nil {
		// ROW(...)::t, a composite type: PostgreSQL's RowExpr shows
		// the cast it was made by (COERCE_EXPLICIT_CAST)
		if ct, err := d.cat.typeFromName(tc.TypeName); err == nil && ct.IsComposite() {
			d.node(tc.Arg)
			d.write("::", d.cat.typeName(ct))
			return
		}
	}
	if sameType(own, t) && t.Precision == 0 && t.Length == 0 {
		d.exprParen(tc.Arg, pInner)
		return
	}
	d.coercion(func(q pctx) {
		if c := tc.Arg.GetAConst(); c != nil {
			d.constant(c, own, 0)
			return
		}
		d.exprParen(tc.Arg, q)
	}, d.kind(tc.Arg), t)
}
