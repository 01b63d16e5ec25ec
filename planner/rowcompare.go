package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Row constructors. ROW(a, b) alone is a record value (expr's row); a
// comparison of two row constructors is PostgreSQL's row-wise comparison
// (RowCompareExpr), expanded pairwise here: = is the conjunction of the
// pairs' =, <> the disjunction of their <>, and < (<=, >, >=) is
// lexicographic, a1 < b1 OR (a1 = b1 AND (... an < bn)), which has
// PostgreSQL's three-valued result (the first pair that is not equal
// decides; a NULL reached before it gives NULL). IS [NOT] DISTINCT FROM,
// IN lists and IS [NOT] NULL over row constructors are expanded the same
// way.

// rowArgs returns the fields of a row constructor (nil for anything else).
func rowArgs(n *pg_query.Node) []*pg_query.Node {
	if n == nil || n.GetRowExpr() == nil {
		return nil
	}
	if len(n.GetRowExpr().Args) == 0 {
		return []*pg_query.Node{} // ROW(): a row of no fields, still a row
	}
	return n.GetRowExpr().Args
}

// errZeroRow is PostgreSQL's refusal of a comparison of rows of no fields
// (ROW() = ROW()), which IS [NOT] DISTINCT FROM and IS [NOT] NULL allow.
func errZeroRow(loc int32) error {
	return repr.Errorf(repr.CodeFeatureNotSupported, "cannot compare rows of zero length").WithPosition(loc + 1)
}

// isRowCompareOp reports whether op is a comparison PostgreSQL applies row-wise.
func isRowCompareOp(op string) bool {
	switch op {
	case "=", "<>", "<", "<=", ">", ">=":
		return true
	}
	return false
}

// rowPairs builds the fields of two row constructors pairwise; they must
// have as many fields (42601).
func (c *ectx) rowPairs(l, r []*pg_query.Node, loc int32) ([][2]expr.Expr, error) {
	switch {
	case len(l) != len(r):
		return nil, repr.Errorf(repr.CodeSyntax, "unequal number of entries in row expressions").WithPosition(loc + 1)
	}
	out := make([][2]expr.Expr, len(l))
	for i := range l {
		a, b, err := c.pair(l[i], r[i])
		if err != nil {
			return nil, err
		}
		out[i] = [2]expr.Expr{a, b}
	}
	return out, nil
}

// rowCompare builds l op r over two row constructors' fields.
func (c *ectx) rowCompare(op string, l, r []*pg_query.Node, loc int32) (expr.Expr, error) {
	pairs, err := c.rowPairs(l, r, loc)
	if err != nil {
		return nil, err
	}
	return c.rowCompareExprs(op, pairs, loc)
}

// rowCompareExprs builds l op r over the pairs of two rows' fields.
func (c *ectx) rowCompareExprs(op string, pairs [][2]expr.Expr, loc int32) (expr.Expr, error) {
	if len(pairs) == 0 {
		return nil, errZeroRow(loc)
	}
	var err error
	if op == "=" || op == "<>" {
		terms := make([]expr.Expr, len(pairs))
		for i, p := range pairs {
			if terms[i], err = c.op(op, loc, p[0], p[1]); err != nil {
				return nil, err
			}
		}
		if op == "=" {
			return and(terms...), nil
		}
		return or(terms...), nil
	}
	strict := op[:1] // < for < and <=, > for > and >=
	last := pairs[len(pairs)-1]
	res, err := c.op(op, loc, last[0], last[1])
	for i := len(pairs) - 2; i >= 0 && err == nil; i-- {
		var lt, eq expr.Expr
		if lt, err = c.op(strict, loc, pairs[i][0], pairs[i][1]); err != nil {
			break
		}
		if eq, err = c.op("=", loc, pairs[i][0], pairs[i][1]); err != nil {
			break
		}
		res = or(lt, and(eq, res))
	}
	return res, err
}

// rowDistinct builds l IS [NOT] DISTINCT FROM r over two row constructors.
func (c *ectx) rowDistinct(l, r []*pg_query.Node, not bool, loc int32) (expr.Expr, error) {
	pairs, err := c.rowPairs(l, r, loc)
	if err != nil {
		return nil, err
	}
	same := make([]expr.Expr, len(pairs))
	for i, p := range pairs {
		if same[i], err = c.notDistinct(p[0], p[1], loc); err != nil {
			return nil, err
		}
	}
	if not {
		return and(same...), nil
	}
	return &expr.Not{Arg: and(same...)}, nil
}

// rowInList builds (a, b) [NOT] IN ((x, y), ...): the disjunction of the
// row equalities (NOT IN: the conjunction of the row inequalities).
func (c *ectx) rowInList(l []*pg_query.Node, items []*pg_query.Node, op string, loc int32) (expr.Expr, error) {
	terms := make([]expr.Expr, len(items))
	for i, it := range items {
		r := rowArgs(it)
		if r == nil {
			return nil, repr.Unsupported("IN with a row on the left and a non-row item").WithPosition(loc + 1)
		}
		var err error
		if terms[i], err = c.rowCompare(op, l, r, loc); err != nil {
			return nil, err
		}
	}
	if op == "<>" {
		return and(terms...), nil
	}
	return or(terms...), nil
}

// rowNullTest builds ROW(...) IS [NOT] NULL: every field is NULL (IS NOT
// NULL: no field is), as PostgreSQL tests a row.
func (c *ectx) rowNullTest(fields []*pg_query.Node, negate bool) (expr.Expr, error) {
	es, err := c.rowItems(fields) // t.* stands for t's columns
	if err != nil {
		return nil, err
	}
	terms := make([]expr.Expr, len(es))
	for i, e := range es {
		terms[i] = &expr.IsNull{Arg: e, Negate: negate}
	}
	return and(terms...), nil
}

// rowValue builds a lone ROW(...) as a record value.
func (c *ectx) rowValue(r *pg_query.RowExpr) (expr.Expr, error) {
	args, err := c.rowItems(r.Args)
	if err != nil {
		return nil, err
	}
	return c.function("row", args, r.Location)
}
