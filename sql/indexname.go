package sql

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// keyPartName prints a planned index expression as PostgreSQL prints it
// in a unique violation's DETAIL (pg_get_indexdef_columns, pretty): the
// casts its planner inserted shown as `x::type` (`lower(email::text)`
// for a varchar column), string constants with their type
// (`'day'::text`), operators without redundant parentheses, and the whole
// in parentheses unless it looks like a function call. ok is false for a
// form it does not print (the caller falls back to the SQL as written).
func keyPartName(x expr.Expr, rel *Object) (string, bool) {
	s, ok := prettyExpr(x, rel)
	if !ok {
		return "", false
	}
	if looksLikeFunction(x) {
		return s, true
	}
	return "(" + s + ")", true
}

// looksLikeFunction is PostgreSQL's looks_like_function: calls (not
// operators or casts) and COALESCE print without parentheses.
func looksLikeFunction(x expr.Expr) bool {
	switch x := x.(type) {
	case *expr.Call:
		return !isOperator(x.Fn.Name)
	case *expr.Coalesce:
		return true
	}
	return false
}

// isOperator reports whether a function name is an operator's symbol.
func isOperator(name string) bool {
	return strings.IndexFunc(name, func(r rune) bool { return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) < 0
}

// opPrecedence ranks the arithmetic operators for omitting parentheses
// (PostgreSQL's pretty printer does so only for these); others rank -1
// and are always parenthesized when nested.
func opPrecedence(name string) int {
	switch name {
	case "*", "/", "%":
		return 2
	case "+", "-":
		return 1
	}
	return -1
}

// prettyExpr prints x (see keyPartName) without the outer parentheses.
func prettyExpr(x expr.Expr, rel *Object) (string, bool) {
	switch x := x.(type) {
	case *expr.Col:
		if x.Idx >= len(rel.Columns) {
			return "", false
		}
		return rel.Columns[x.Idx].Name, true
	case *expr.Lit:
		return prettyLit(x)
	case *expr.Cast:
		return prettyCast(x.Arg, x.To, rel)
	case *expr.Coalesce:
		args, ok := prettyArgs(x.Args, nil, rel)
		return "COALESCE(" + args + ")", ok
	case *expr.Call:
		if isOperator(x.Fn.Name) && len(x.Args) == 2 {
			return prettyOp(x, rel)
		}
		if isOperator(x.Fn.Name) {
			return "", false
		}
		args, ok := prettyArgs(x.Args, x.Fn.Args, rel)
		return x.Fn.Name + "(" + args + ")", ok
	}
	return "", false
}

// prettyArgs prints call arguments, showing the coercion to a parameter
// type that differs from the argument's (want may be nil).
func prettyArgs(args []expr.Expr, want []repr.T, rel *Object) (string, bool) {
	parts := make([]string, len(args))
	for i, a := range args {
		var s string
		var ok bool
		if i < len(want) && want[i] != a.Type() && want[i].Family == a.Type().Family {
			s, ok = prettyCast(a, want[i], rel)
		} else {
			s, ok = prettyExpr(a, rel)
		}
		if !ok {
			return "", false
		}
		parts[i] = s
	}
	return strings.Join(parts, ", "), true
}

// prettyCast prints `arg::type`, parenthesizing an argument that is not
// a column, constant or call.
func prettyCast(arg expr.Expr, to repr.T, rel *Object) (string, bool) {
	s, ok := prettyExpr(arg, rel)
	if !ok {
		return "", false
	}
	switch a := arg.(type) {
	case *expr.Col, *expr.Coalesce:
	case *expr.Call:
		if isOperator(a.Fn.Name) {
			s = "(" + s + ")"
		}
	default:
		s = "(" + s + ")"
	}
	return s + "::" + to.Name(), true
}

// prettyOp prints a binary operator, parenthesizing operands that bind
// less tightly (or, on the right, equally).
func prettyOp(c *expr.Call, rel *Object) (string, bool) {
	prec := opPrecedence(c.Fn.Name)
	var sides [2]string
	for i, a := range c.Args {
		s, ok := prettyExpr(a, rel)
		if !ok {
			return "", false
		}
		if inner, is := a.(*expr.Call); is && isOperator(inner.Fn.Name) {
			p := opPrecedence(inner.Fn.Name)
			if prec < 0 || p < 0 || p < prec || p == prec && i == 1 {
				s = "(" + s + ")"
			}
		}
		sides[i] = s
	}
	return sides[0] + " " + c.Fn.Name + " " + sides[1], true
}

// prettyLit prints a constant as PostgreSQL's get_const_expr does: an
// integer or numeric bare (negative ones in parentheses), a boolean as
// true/false, anything else quoted with its type.
func prettyLit(l *expr.Lit) (string, bool) {
	if l.D.IsNull() {
		return "NULL::" + l.T.Name(), true
	}
	text := repr.FormatText(l.D, l.T, nil)
	switch l.T.Family {
	case repr.FamInt, repr.FamNumeric:
		if l.T.Family == repr.FamInt && l.T.Width != 32 {
			break
		}
		if strings.HasPrefix(text, "-") {
			return "(" + text + ")", true
		}
		return text, true
	case repr.FamBool:
		return text, true
	}
	return "'" + strings.ReplaceAll(text, "'", "''") + "'::" + l.T.Name(), true
}

// indexExprElement prints the SQL text of an index expression as
// pg_get_indexdef does: a function call as is, anything else (but a bare
// column) in parentheses, and as a key element of the column list in a
// second pair.
func indexExprElement(text string, element bool) string {
	n, err := parseExpr(text)
	if err != nil {
		return text
	}
	if nodeLooksLikeFunction(n) {
		return text
	}
	if _, ok := n.Node.(*pg.Node_ColumnRef); ok && !element {
		return text
	}
	if element {
		return "((" + text + "))"
	}
	return "(" + text + ")"
}

// exprAttribute is the index column of expression key part i: named as
// PostgreSQL names it (the function's name, else "expr"), of the
// expression's type.
func exprAttribute(o *Object, i int) ColumnDef {
	col := ColumnDef{Name: "expr", Type: repr.Text}
	if o.ixKey != nil && i < len(o.ixKey.parts) {
		col.Type = o.ixKey.parts[i].Type()
	}
	if i < len(o.Index.Exprs) {
		if n, err := parseExpr(o.Index.Exprs[i]); err == nil {
			col.Name = figureName(n)
		}
	}
	return col
}

// nodeLooksLikeFunction reports whether index expression n prints as a
// function call, which pg_get_indexdef leaves out of parentheses
// (ruleutils.c's looks_like_function).
func nodeLooksLikeFunction(n *pg.Node) bool {
	switch n.Node.(type) {
	case *pg.Node_FuncCall, *pg.Node_CoalesceExpr, *pg.Node_MinMaxExpr:
		return true
	}
	return false
}
