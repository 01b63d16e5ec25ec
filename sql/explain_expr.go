package sql

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Expressions of EXPLAIN in PostgreSQL's style (ruleutils.c as EXPLAIN
// calls it): columns by name, operators infix and parenthesized, casts as
// (x)::type, constants as get_const_expr prints them (int4 and numerics
// with a point bare, true/false, anything else quoted with its type:
// 'x'::text, '5'::bigint). The viewdef deparser (viewdef*.go) prints the
// query's syntax tree; a plan holds compiled expressions (expr.Expr over
// column positions), so EXPLAIN prints those, following the same rules.

// labels are the printed names of a node's output columns ("t.a",
// "sum(t.b)").
type labels []string

// col is column i's label ("?column?" when out of range, which a valid
// plan never is).
func (l labels) col(i int) string {
	if i < 0 || i >= len(l) {
		return "?column?"
	}
	return l[i]
}

// pgExpr prints x over columns labelled l.
func pgExpr(x expr.Expr, l labels) string {
	switch x := x.(type) {
	case *expr.Col:
		return l.col(x.Idx)
	case *expr.Lit:
		return pgConst(x.D, x.T)
	case *expr.Call:
		return pgCall(x, l)
	case *expr.Cast:
		return "(" + pgExpr(x.Arg, l) + ")::" + x.To.Name()
	case *expr.And:
		return "(" + pgExprs(x.Args, l, " AND ") + ")"
	case *expr.Or:
		return "(" + pgExprs(x.Args, l, " OR ") + ")"
	case *expr.Not:
		return "(NOT " + pgExpr(x.Arg, l) + ")"
	case *expr.IsNull:
		if x.Negate {
			return "(" + pgExpr(x.Arg, l) + " IS NOT NULL)"
		}
		return "(" + pgExpr(x.Arg, l) + " IS NULL)"
	case *expr.Case:
		var b strings.Builder
		b.WriteString("CASE")
		for _, w := range x.Whens {
			b.WriteString(" WHEN " + pgExpr(w.Cond, l) + " THEN " + pgExpr(w.Then, l))
		}
		if x.Else != nil {
			b.WriteString(" ELSE " + pgExpr(x.Else, l))
		}
		return b.String() + " END"
	case *expr.Coalesce:
		return "COALESCE(" + pgExprs(x.Args, l, ", ") + ")"
	}
	return relabel(x.String(), l)
}

// pgExprs prints xs joined by sep.
func pgExprs(xs []expr.Expr, l labels, sep string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = pgExpr(x, l)
	}
	return strings.Join(out, sep)
}

// pgCall prints an operator infix ((a + b), prefix (- a)) and a function
// as name(args).
func pgCall(c *expr.Call, l labels) string {
	name := c.Fn.Name
	if name != "" && strings.IndexByte("+-*/%^=<>!~|&#@?", name[0]) >= 0 {
		if len(c.Args) == 1 {
			return "(" + name + " " + pgExpr(c.Args[0], l) + ")"
		}
		if len(c.Args) == 2 {
			return "(" + pgExpr(c.Args[0], l) + " " + name + " " + pgExpr(c.Args[1], l) + ")"
		}
	}
	return name + "(" + pgExprs(c.Args, l, ", ") + ")"
}

// pgConst prints a constant as PostgreSQL's get_const_expr does with
// showtype 0: NULL, an int4 or a numeric with a point or exponent bare,
// booleans as true/false, everything else quoted with its type.
func pgConst(d repr.Datum, t repr.T) string {
	if d.IsNull() {
		if t.Family == repr.FamUnknown {
			return "NULL"
		}
		return "NULL::" + t.Name()
	}
	txt := repr.FormatText(d, t, time.UTC)
	switch {
	case t.Family == repr.FamBool:
		return txt
	case t.Family == repr.FamInt && t.Width == 32 && !strings.HasPrefix(txt, "-"):
		return txt
	case t.Family == repr.FamNumeric && txt != "" && txt[0] >= '0' && txt[0] <= '9' && strings.ContainsAny(txt, ".eE"):
		return txt
	case t.Family == repr.FamUnknown:
		return pgQuote(txt)
	}
	return pgQuote(txt) + "::" + t.Name()
}

// pgQuote quotes s as a SQL string literal (an E-string when it holds a
// backslash, as PostgreSQL's simple_quote_literal).
func pgQuote(s string) string {
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if strings.Contains(s, `\`) {
		return "E" + strings.ReplaceAll(q, `\`, `\\`)
	}
	return q
}

// colRef matches a column reference #i in a printed aggregate, window
// function, sort key or table function call.
var colRef = regexp.MustCompile(`#[0-9]+`)

// relabel replaces the #i column references of a printed form (Agg,
// WinFunc, TableCall, SortCol: their String) by the labels. Those forms
// print columns only as #i and constants without #.
func relabel(s string, l labels) string {
	return colRef.ReplaceAllStringFunc(s, func(ref string) string {
		i, _ := strconv.Atoi(ref[1:])
		return l.col(i)
	})
}

// sortKeys prints ORDER BY columns as PostgreSQL's Sort Key does: the
// column, then DESC and NULLS FIRST/LAST where not the default.
func sortKeys(order []expr.SortCol, l labels) []string {
	out := make([]string, len(order))
	for i, o := range order {
		out[i] = relabel(o.String(), l)
	}
	return out
}

// colLabels are the labels of columns cols.
func colLabels(cols []int, l labels) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = l.col(c)
	}
	return out
}

// conjunction prints predicates as one condition: (a) alone, or
// ((a) AND (b)) as PostgreSQL prints a qual list; "" for none.
func conjunction(preds []string) string {
	switch len(preds) {
	case 0:
		return ""
	case 1:
		return preds[0]
	}
	return "(" + strings.Join(preds, " AND ") + ")"
}

// typeWidth is PostgreSQL's width estimate of a column of type t: its
// length for fixed-size types, 32 for variable-length ones.
func typeWidth(t repr.T) int {
	switch t.Family {
	case repr.FamBool:
		return 1
	case repr.FamInt, repr.FamFloat:
		return int(t.Width / 8)
	case repr.FamDate:
		return 4
	case repr.FamTime, repr.FamTimestamp, repr.FamTimestampTZ:
		return 8
	case repr.FamInterval, repr.FamUUID:
		return 16
	}
	return 32
}

// rowWidth is the width estimate of a row of types ts.
func rowWidth(ts []repr.T) int {
	w := 0
	for _, t := range ts {
		w += typeWidth(t)
	}
	return w
}
