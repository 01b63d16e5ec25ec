package planner

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// buildHypothetical plans a hypothetical-set aggregate, rank(h1, ..., hk)
// WITHIN GROUP (ORDER BY x1, ..., xk): each pair (hi, xi) is coerced to
// its common type (PostgreSQL's anycompatible pairing), the aggregated
// value is the record ROW(x1..xk, h1..hk) and the ORDER BY the xi
// (expr/agg_hypothetical.go). The hypothetical values are the same on
// every row of a group (hypotheticalArg), so any row's record holds them.
func (b *builder) buildHypothetical(fc *pg_query.FuncCall, from *ectx, kind expr.AggKind) (aggSpec, error) {
	name := kind.String()
	if len(fc.Args) != len(fc.AggOrder) {
		args, err := from.exprs(fc.Args)
		if err != nil {
			return aggSpec{}, err
		}
		ts := make([]string, 0, len(args)+len(fc.AggOrder))
		for _, a := range args {
			ts = append(ts, a.Type().Name())
		}
		for _, it := range fc.AggOrder {
			x, err := from.expr(it.GetSortBy().Node)
			if err != nil {
				return aggSpec{}, err
			}
			ts = append(ts, x.Type().Name())
		}
		return aggSpec{}, repr.Errorf(repr.CodeUndefinedFunction, "function %s(%s) does not exist", name, strings.Join(ts, ", ")).
			WithHint("To use the hypothetical-set aggregate %s, the number of hypothetical direct arguments (here %d) must match the number of ordering columns (here %d).", name, len(fc.Args), len(fc.AggOrder)).
			WithPosition(fc.Location + 1)
	}
	spec := aggSpec{kind: kind}
	var hypo []expr.Expr
	for i, it := range fc.AggOrder {
		sb := it.GetSortBy()
		h, err := from.expr(fc.Args[i])
		if err != nil {
			return aggSpec{}, err
		}
		x, err := from.expr(sb.Node)
		if err != nil {
			return aggSpec{}, err
		}
		pair, err := b.unify([]expr.Expr{h, x}, "WITHIN GROUP", location(fc.Args[i]))
		if err != nil {
			return aggSpec{}, err
		}
		if err := from.hypotheticalArg(pair[0], name, fc.Args[i]); err != nil {
			return aggSpec{}, err
		}
		dir, err := sortDirFor(sb, pair[1].Type())
		if err != nil {
			return aggSpec{}, err
		}
		spec.order = append(spec.order, pair[1])
		spec.sort = append(spec.sort, dir)
		hypo = append(hypo, expr.Fold(pair[0]))
	}
	row, err := from.function("row", append(append([]expr.Expr(nil), spec.order...), hypo...), fc.Location)
	if err != nil {
		return aggSpec{}, err
	}
	spec.t, _ = expr.AggType(kind, row.Type())
	spec.args, err = b.aggFilter(fc, from, []expr.Expr{row})
	return spec, err
}

// directArg builds the direct argument (node n) of percentile_cont or
// percentile_disc, a fraction (float8) or an array of them (float8[]).
// A non-NULL constant comes back as frac, or as fracs for an array (a
// NULL Datum for a single fraction); any other expression as direct,
// which may read only grouped and outer columns (42803 for another, as
// PostgreSQL) and must not be volatile: its value is then the same on
// every row of a group, and reduce keys the groups by it too.
func (b *builder) directArg(n *pg_query.Node, from *ectx) (float64, repr.Datum, expr.Expr, error) {
	e, err := from.expr(n)
	if err != nil {
		return 0, repr.Null, nil, err
	}
	want := repr.Float8
	if e.Type().Family == repr.FamArray {
		want = repr.ArrayOf(repr.Float8)
	}
	if e, err = b.coerce(e, want); err != nil {
		return 0, repr.Null, nil, err
	}
	if lit, ok := expr.Fold(e).(*expr.Lit); ok && !lit.D.IsNull() {
		if want.Family == repr.FamArray {
			return 0, lit.D, nil, nil
		}
		return lit.D.Float(), repr.Null, nil, nil
	}
	if err := from.checkDirectColumns(e, n); err != nil {
		return 0, repr.Null, nil, err
	}
	if expr.IsVolatile(e) {
		return 0, repr.Null, nil, repr.Unsupported("a volatile direct argument of an ordered-set aggregate").WithPosition(location(n) + 1)
	}
	return 0, repr.Null, expr.Fold(e), nil
}

// hypotheticalArg checks a hypothetical argument h (node n) of aggregate
// name: a constant, or an expression of the block's plain GROUP BY keys
// and of outer columns (groupConstant), whose value is then the same on
// every row of a group. A column neither grouped nor outer is
// PostgreSQL's 42803; under grouping sets a non-constant is 0A000.
func (c *ectx) hypotheticalArg(h expr.Expr, name string, n *pg_query.Node) error {
	if _, ok := expr.Fold(h).(*expr.Lit); ok {
		return nil
	}
	if c.groupCols == nil {
		for _, col := range expr.Columns(h) {
			if col < len(c.sc.cols) && !c.sc.cols[col].outer {
				return repr.Unsupported("a hypothetical argument of %s that is not a constant or an outer column, with grouping sets", name).WithPosition(location(n) + 1)
			}
		}
	} else if col, ok := c.groupConstant(h); !ok {
		return c.ungroupedDirectArg(col, n)
	}
	if expr.IsVolatile(h) {
		return repr.Unsupported("a volatile hypothetical argument of %s", name).WithPosition(location(n) + 1)
	}
	return nil
}

// groupConstant reports whether e's value is the same on every row of a
// group of a plain GROUP BY: each column it reads is grouped or outer, or
// lies within a subexpression equal to a GROUP BY key (GROUP BY g % 2
// makes (g % 2) * 0.5 grouped, as PostgreSQL matches grouped
// expressions). Otherwise col is the first FROM column that is not.
func (c *ectx) groupConstant(e expr.Expr) (col int, ok bool) {
	if slices.Contains(c.groupKeys, e.String()) {
		return 0, true
	}
	if x, isCol := e.(*expr.Col); isCol {
		i := x.Idx
		return i, i >= len(c.sc.cols) || c.sc.cols[i].outer || slices.Contains(c.groupCols, i)
	}
	for _, k := range expr.Children(e) {
		if col, ok := c.groupConstant(k); !ok {
			return col, false
		}
	}
	return 0, true
}

// ungroupedDirectArg is PostgreSQL's 42803 for a direct argument of an
// ordered-set aggregate (node n) that reads FROM column col, which the
// block does not group by.
func (c *ectx) ungroupedDirectArg(col int, n *pg_query.Node) error {
	sc := c.sc.cols[col]
	full := sc.name
	if sc.table != "" {
		full = sc.table + "." + sc.name
	}
	return repr.Errorf(repr.CodeGrouping, "column %q must appear in the GROUP BY clause or be used in an aggregate function", full).
		WithDetail("Direct arguments of an ordered-set aggregate must use only grouped columns.").WithPosition(location(n) + 1)
}

// checkDirectColumns fails with 42803, as PostgreSQL, when direct
// argument e (node n) reads a FROM column that is neither grouped nor
// outer (not decided here under grouping sets: c.groupCols is nil).
func (c *ectx) checkDirectColumns(e expr.Expr, n *pg_query.Node) error {
	if c.groupCols == nil {
		return nil
	}
	if col, ok := c.groupConstant(e); !ok {
		return c.ungroupedDirectArg(col, n)
	}
	return nil
}

// keyColumns returns the FROM columns among grouping keys (nil for none:
// an empty, non-nil slice, so that a grouped block is told from one
// with grouping sets).
func keyColumns(keys []expr.Expr) []int {
	cols := []int{}
	for _, k := range keys {
		if col, ok := k.(*expr.Col); ok {
			cols = append(cols, col.Idx)
		}
	}
	return cols
}
