package planner

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/exec/scalar"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/sql/pgerr"
	"github.com/eddydb/eddy/sql/types"
)

// aggKinds maps the supported aggregate function names to their kinds.
var aggKinds = map[string]dataflow.AggKind{
	"count": dataflow.AggCount, "sum": dataflow.AggSum, "avg": dataflow.AggAvg,
	"min": dataflow.AggMin, "max": dataflow.AggMax, "bool_and": dataflow.AggBoolAnd,
	"every": dataflow.AggBoolAnd, "bool_or": dataflow.AggBoolOr, "string_agg": dataflow.AggStringAgg,
}

// otherAggs are PostgreSQL aggregates Eddy does not maintain yet.
var otherAggs = map[string]bool{
	"array_agg": true, "json_agg": true, "jsonb_agg": true, "stddev": true, "variance": true,
	"stddev_pop": true, "stddev_samp": true, "var_pop": true, "var_samp": true, "bit_and": true,
	"bit_or": true, "json_object_agg": true, "jsonb_object_agg": true, "percentile_cont": true,
	"percentile_disc": true, "mode": true,
}

// funcName returns the lower-case unqualified function name.
func funcName(fc *pg_query.FuncCall) string {
	return strings.ToLower(opName(fc.Funcname))
}

// isAggregate reports whether fc calls an aggregate (not as a window).
func isAggregate(fc *pg_query.FuncCall) bool {
	name := funcName(fc)
	return fc.Over == nil && (aggKinds[name] != 0 || name == "count" || otherAggs[name])
}

// funcCall builds a call of a scalar function (aggregates are columns of
// the aggregated relation and reach here only where they are misplaced).
func (c *ectx) funcCall(fc *pg_query.FuncCall) (scalar.Expr, error) {
	name := funcName(fc)
	if fc.Over != nil {
		return c.windowRef(fc)
	}
	if name == "regexp_match" {
		return nil, pgerr.Unsupported("regexp_match() as an array (Eddy has no arrays; subscript it: (regexp_match(s, p))[n])").WithPosition(fc.Location + 1)
	}
	if isAggregate(fc) {
		if c.clause == "aggregate" {
			return nil, pgerr.New(pgerr.CodeGrouping, "aggregate function calls cannot be nested").WithPosition(fc.Location + 1)
		}
		return nil, pgerr.New(pgerr.CodeGrouping, "aggregate functions are not allowed in %s", c.clause).WithPosition(fc.Location + 1)
	}
	if fc.AggStar || fc.AggDistinct || fc.AggFilter != nil || len(fc.AggOrder) > 0 {
		return nil, pgerr.New(pgerr.CodeWrongObjectType, "%s is not an aggregate function", name).WithPosition(fc.Location + 1)
	}
	if fc.FuncVariadic {
		return nil, pgerr.Unsupported("VARIADIC arguments")
	}
	args, err := c.exprs(fc.Args)
	if err != nil {
		return nil, err
	}
	return c.function(name, args, fc.Location)
}

// collectAggs appends the aggregate calls in n, not descending into
// subqueries (whose aggregates are their own).
func collectAggs(n *pg_query.Node, out *[]*pg_query.FuncCall) {
	walk(n, func(x *pg_query.Node) bool {
		if sl := x.GetSubLink(); sl != nil {
			collectAggs(sl.Testexpr, out)
			return false
		}
		if fc := x.GetFuncCall(); fc != nil && isAggregate(fc) {
			*out = append(*out, fc)
			return false
		}
		return true
	})
}

// grouping describes an aggregated relation to expressions built over it.
type grouping struct {
	from    *scope // the pre-aggregation scope
	fromRel ir.Rel
	keys    []string // String() of each grouping key over from
	keyCols []int    // the key's column in the aggregated relation
	aggs    map[*pg_query.FuncCall]int
}

// groupedRef maps n to a column of the aggregated relation when it is an
// aggregate call or matches a grouping key; it fails with 42803 for a
// column that is neither grouped nor aggregated. ok=false means "build n
// normally" (its parts will be checked in turn).
func (c *ectx) groupedRef(n *pg_query.Node) (scalar.Expr, bool, error) {
	g := c.grp
	if fc := n.GetFuncCall(); fc != nil && isAggregate(fc) {
		col, ok := g.aggs[fc]
		if !ok {
			return nil, true, pgerr.New(pgerr.CodeGrouping, "aggregate functions are not allowed here").WithPosition(fc.Location + 1)
		}
		return c.colExpr(col), true, nil
	}
	if n.GetSubLink() != nil || n.GetAConst() != nil {
		return nil, false, nil
	}
	pre := &ectx{b: c.b, sc: g.from, rel: g.fromRel, clause: "GROUP BY", noSubquery: true}
	if e, err := pre.expr(n); err == nil {
		s := e.String()
		for i, k := range g.keys {
			if k == s {
				return c.colExpr(g.keyCols[i]), true, nil
			}
		}
	}
	if ref := n.GetColumnRef(); ref != nil {
		table, name, err := refName(ref)
		if err != nil {
			return nil, true, err
		}
		i, err := g.from.lookup(table, name, ref.Location)
		if err != nil {
			return nil, true, err
		}
		if i >= 0 && !g.from.cols[i].outer {
			full := name
			if table != "" {
				full = table + "." + name
			} else if g.from.cols[i].table != "" {
				full = g.from.cols[i].table + "." + name
			}
			return nil, true, pgerr.New(pgerr.CodeGrouping, "column %q must appear in the GROUP BY clause or be used in an aggregate function", full).WithPosition(ref.Location + 1)
		}
	}
	return nil, false, nil
}

// colExpr returns a reference to column i of c's relation.
func (c *ectx) colExpr(i int) scalar.Expr {
	return &scalar.Col{Idx: i, T: c.rel.ColTypes()[i]}
}

// aggSpec is one planned aggregate: its dataflow form and argument exprs.
type aggSpec struct {
	kind     dataflow.AggKind
	distinct bool
	args     []scalar.Expr // over the pre-aggregation relation
	t        types.T
}

// buildAgg types one aggregate call's arguments over the FROM scope.
func (b *builder) buildAgg(fc *pg_query.FuncCall, from *ectx) (aggSpec, error) {
	name := funcName(fc)
	kind, ok := aggKinds[name]
	if !ok && name != "count" {
		return aggSpec{}, pgerr.Unsupported("aggregate %s()", name)
	}
	if len(fc.AggOrder) > 0 {
		return aggSpec{}, pgerr.Unsupported("ORDER BY in aggregates")
	}
	spec := aggSpec{kind: kind, distinct: fc.AggDistinct}
	if fc.AggStar && fc.AggFilter == nil {
		spec.kind, spec.t = dataflow.AggCountStar, types.Int8
		return spec, nil
	}
	if fc.AggStar {
		// count(*) FILTER (WHERE p) counts the rows where p holds: the
		// count of a non-NULL constant under the filter.
		spec.kind, spec.t = dataflow.AggCount, types.Int8
		filtered, err := b.aggFilter(fc, from, []scalar.Expr{boolLit(true)})
		spec.args = filtered
		return spec, err
	}
	want := 1
	if kind == dataflow.AggStringAgg {
		want = 2
	}
	if len(fc.Args) != want {
		return aggSpec{}, pgerr.New(pgerr.CodeUndefinedFunction, "function %s with %d arguments does not exist", name, len(fc.Args)).WithPosition(fc.Location + 1)
	}
	args, err := from.exprs(fc.Args)
	if err != nil {
		return aggSpec{}, err
	}
	for i, a := range args {
		if a.Type().Family == types.FamUnknown || kind == dataflow.AggStringAgg && i == 1 {
			if args[i], err = b.coerce(a, aggArgDefault(kind)); err != nil {
				return aggSpec{}, err
			}
		}
	}
	if spec.t, err = dataflow.AggType(kind, args[0].Type()); err != nil {
		return aggSpec{}, withPos(pgerr.New(pgerr.CodeUndefinedFunction, "function %s(%s) does not exist", name, args[0].Type().Name()), fc.Location)
	}
	spec.args, err = b.aggFilter(fc, from, args)
	return spec, err
}

// aggFilter applies an aggregate's FILTER (WHERE p) to its aggregated
// value: CASE WHEN p THEN x END. Every supported aggregate ignores NULL
// inputs (string_agg skips a NULL value whatever its separator), so
// aggregating the CASE is aggregating exactly the rows where p is true,
// with DISTINCT too. Without FILTER args come back unchanged.
func (b *builder) aggFilter(fc *pg_query.FuncCall, from *ectx, args []scalar.Expr) ([]scalar.Expr, error) {
	if fc.AggFilter == nil {
		return args, nil
	}
	fctx := *from
	fctx.clause = "FILTER"
	var aggs []*pg_query.FuncCall
	if collectAggs(fc.AggFilter, &aggs); len(aggs) > 0 {
		return nil, pgerr.New(pgerr.CodeGrouping, "aggregate functions are not allowed in FILTER").WithPosition(aggs[0].Location + 1)
	}
	p, err := fctx.predicate(fc.AggFilter)
	if err != nil {
		return nil, err
	}
	out := append([]scalar.Expr(nil), args...)
	out[0] = &scalar.Case{Whens: []scalar.When{{Cond: p, Then: args[0]}}, T: args[0].Type()}
	return out, nil
}

// aggArgDefault is the type an untyped literal argument takes.
func aggArgDefault(k dataflow.AggKind) types.T {
	if k == dataflow.AggBoolAnd || k == dataflow.AggBoolOr {
		return types.Bool
	}
	return types.Text
}

// walk visits n and its descendants in the expression forms the planner
// builds, calling f before descending (f returns false to skip children).
func walk(n *pg_query.Node, f func(*pg_query.Node) bool) {
	if n == nil || n.Node == nil || !f(n) {
		return
	}
	for _, c := range children(n) {
		walk(c, f)
	}
}

// children lists the expression children of n.
func children(n *pg_query.Node) []*pg_query.Node {
	switch {
	case n.GetAExpr() != nil:
		return []*pg_query.Node{n.GetAExpr().Lexpr, n.GetAExpr().Rexpr}
	case n.GetBoolExpr() != nil:
		return n.GetBoolExpr().Args
	case n.GetFuncCall() != nil:
		return append(append([]*pg_query.Node(nil), n.GetFuncCall().Args...), n.GetFuncCall().AggFilter)
	case n.GetTypeCast() != nil:
		return []*pg_query.Node{n.GetTypeCast().Arg}
	case n.GetAIndirection() != nil:
		return append([]*pg_query.Node{n.GetAIndirection().Arg}, n.GetAIndirection().Indirection...)
	case n.GetAIndices() != nil:
		return []*pg_query.Node{n.GetAIndices().Lidx, n.GetAIndices().Uidx}
	case n.GetNullTest() != nil:
		return []*pg_query.Node{n.GetNullTest().Arg}
	case n.GetBooleanTest() != nil:
		return []*pg_query.Node{n.GetBooleanTest().Arg}
	case n.GetCaseExpr() != nil:
		ce := n.GetCaseExpr()
		return append([]*pg_query.Node{ce.Arg, ce.Defresult}, ce.Args...)
	case n.GetCaseWhen() != nil:
		return []*pg_query.Node{n.GetCaseWhen().Expr, n.GetCaseWhen().Result}
	case n.GetCoalesceExpr() != nil:
		return n.GetCoalesceExpr().Args
	case n.GetMinMaxExpr() != nil:
		return n.GetMinMaxExpr().Args
	case n.GetList() != nil:
		return n.GetList().Items
	case n.GetResTarget() != nil:
		return []*pg_query.Node{n.GetResTarget().Val}
	case n.GetSortBy() != nil:
		return []*pg_query.Node{n.GetSortBy().Node}
	case n.GetSubLink() != nil:
		return []*pg_query.Node{n.GetSubLink().Testexpr}
	}
	return nil
}
