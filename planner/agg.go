package planner

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// otherAggs are PostgreSQL aggregates Eddy does not maintain yet, so that
// calls of them are 0A000 rather than 42883 (the ones it does are in the
// registry, expr.LookupAgg).
var otherAggs = map[string]bool{"xmlagg": true, "range_agg": true, "range_intersect_agg": true}

// funcName returns the lower-case unqualified function name.
func funcName(fc *pg_query.FuncCall) string {
	if n := len(fc.Funcname); n > 1 {
		// A temporary function is found only by its schema (pg_temp_N,
		// which the statement layer wrote for pg_temp): no built-in has
		// such a name.
		if s := fc.Funcname[n-2].GetString_().GetSval(); strings.HasPrefix(s, "pg_temp") {
			return s + "." + strings.ToLower(opName(fc.Funcname))
		}
	}
	return strings.ToLower(opName(fc.Funcname))
}

// isAggregate reports whether fc calls an aggregate (not as a window).
func isAggregate(fc *pg_query.FuncCall) bool {
	name := funcName(fc)
	k, ok := expr.LookupAgg(name)
	if ok && k.Def().Hypothetical && !fc.AggWithinGroup {
		return false // rank() without WITHIN GROUP: the window function
	}
	return fc.Over == nil && (ok || otherAggs[name])
}

// funcCall builds a call of a scalar function (aggregates are columns of
// the aggregated relation and reach here only where they are misplaced).
func (c *ectx) funcCall(fc *pg_query.FuncCall) (expr.Expr, error) {
	name := funcName(fc)
	if fc.Over != nil {
		return c.windowRef(fc)
	}
	if populateFuncs[name] != "" { // (f(...)).x and (f(...)).* select its fields (fieldselect.go)
		if e, ok := c.srfs[c.sameSRF(fc)]; ok && c.records[e] != nil {
			return c.populateValue(fc, name, e)
		}
		return nil, repr.Unsupported("%s outside FROM other than (%s(...)).field or .* in the select list", name, name).WithPosition(fc.Location + 1)
	}
	if expr.IsTableFunc(name) && !isAggregate(fc) {
		return c.srfRef(fc)
	}
	if _, ok := expr.LookupWinKind(name); ok {
		if k, ok := expr.LookupAgg(name); ok && !fc.AggWithinGroup {
			return nil, c.withinGroupRequired(fc, k) // rank(args): hypothetical-set
		}
		return nil, repr.Errorf(repr.CodeWrongObjectType, "window function %s requires an OVER clause", name).WithPosition(fc.Location + 1)
	}
	if isAggregate(fc) {
		// An outer query's aggregate is allowed anywhere in a subquery.
		if err := c.b.outerLevelAgg(fc, c.sc); err != nil {
			return nil, err
		}
		if c.clause == "aggregate" {
			return nil, repr.Errorf(repr.CodeGrouping, "aggregate function calls cannot be nested").WithPosition(fc.Location + 1)
		}
		return nil, repr.Errorf(repr.CodeGrouping, "aggregate functions are not allowed in %s", c.clause).WithPosition(fc.Location + 1)
	}
	if fc.AggStar || fc.AggDistinct || fc.AggFilter != nil || len(fc.AggOrder) > 0 || fc.AggWithinGroup {
		return nil, repr.Errorf(repr.CodeWrongObjectType, "%s is not an aggregate function", name).WithPosition(fc.Location + 1)
	}
	if expr.IsInternalVariadic(name) {
		return nil, c.internalFuncError(name, fc)
	}
	if fc.FuncVariadic && !c.b.sqlVariadic(name) {
		return c.variadicCall(name, fc)
	}
	if e, ok, err := c.sqlFunctionCall(name, fc); ok {
		return e, err
	}
	args, err := c.exprs(fc.Args)
	if err != nil {
		return nil, err
	}
	return c.function(name, args, fc.Location)
}

// internalFuncError is the 42883 of a call that names an internal
// function (expr.IsInternalVariadic), which SQL cannot call: the
// arguments' types are named as PostgreSQL names them for an unknown
// function.
func (c *ectx) internalFuncError(name string, fc *pg_query.FuncCall) error {
	args, err := c.exprs(fc.Args)
	if err != nil {
		return err
	}
	ts := make([]repr.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	return withPos(expr.UndefinedFunction(name, ts), fc.Location)
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
	// bitsCol is the column of the grouping-set bits (groupingsets.go),
	// -1 for a plain GROUP BY.
	bitsCol int
	// srfs are the GROUP BY's set-returning calls (srfgroup.go), nil
	// when it has none.
	srfs *groupSRFs
	// subKeys are the GROUP BY keys holding subqueries (groupsub.go).
	subKeys []subqueryKey
	// twinKeys maps the node of a select-list entry equal to an earlier
	// one but grouped by its own name or ordinal to its key's column
	// (twinTargetNode); nil when there is none.
	twinKeys map[*pg_query.Node]int
}

// groupedRef maps n to a column of the aggregated relation when it is an
// aggregate call or matches a grouping key; it fails with 42803 for a
// column that is neither grouped nor aggregated. ok=false means "build n
// normally" (its parts will be checked in turn).
func (c *ectx) groupedRef(n *pg_query.Node) (expr.Expr, bool, error) {
	g := c.grp
	if col, ok := g.twinKeys[n]; ok {
		return c.colExpr(col), true, nil
	}
	if gf := n.GetGroupingFunc(); gf != nil {
		e, err := c.groupingFunc(gf)
		return e, true, err
	}
	if fc := n.GetFuncCall(); fc != nil && isAggregate(fc) {
		col, ok := g.aggs[fc]
		if !ok {
			return nil, true, repr.Errorf(repr.CodeGrouping, "aggregate functions are not allowed here").WithPosition(fc.Location + 1)
		}
		return c.colExpr(col), true, nil
	}
	if i, ok := g.subqueryKeyOf(n); ok {
		return c.colExpr(g.keyCols[i]), true, nil
	}
	if n.GetSubLink() != nil || n.GetAConst() != nil {
		return nil, false, nil
	}
	if e, ok := c.keyRef(n); ok {
		return e, true, nil
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
			if e, ok := c.mergedKeyRef(g.from.cols[i], ref.Location); ok {
				return e, true, nil
			}
			full := name
			if table != "" {
				full = table + "." + name
			} else if g.from.cols[i].table != "" {
				full = g.from.cols[i].table + "." + name
			}
			return nil, true, repr.Errorf(repr.CodeGrouping, "column %q must appear in the GROUP BY clause or be used in an aggregate function", full).WithPosition(ref.Location + 1)
		}
	}
	return nil, false, nil
}

// mergedKeyRef maps col, the merged column of a JOIN USING that takes
// one side's value (not FULL JOIN's COALESCE), to that side's column when
// it is a grouping key, coerced to the merged type: as in PostgreSQL,
// SELECT f1 FROM t1 LEFT JOIN t2 USING (f1) GROUP BY t1.f1 is grouped.
func (c *ectx) mergedKeyRef(col scopeCol, loc int32) (expr.Expr, bool) {
	if col.origin == "" || col.table != "" {
		return nil, false
	}
	var fields []*pg_query.Node
	for _, q := range strings.Split(col.origin, ".") {
		fields = append(fields, pg_query.MakeStrNode(q))
	}
	e, ok := c.keyRef(pg_query.MakeColumnRefNode(append(fields, pg_query.MakeStrNode(col.name)), loc))
	if !ok {
		return nil, false
	}
	if e.Type() == col.typ {
		return e, true
	}
	e, err := c.b.coerce(e, col.typ)
	return e, err == nil
}

// colExpr returns a reference to column i of c's relation.
func (c *ectx) colExpr(i int) expr.Expr {
	return &expr.Col{Idx: i, T: c.rel.ColTypes()[i]}
}

// aggSpec is one planned aggregate: its dataflow form and argument exprs.
type aggSpec struct {
	kind     expr.AggKind
	distinct bool
	args     []expr.Expr // over the pre-aggregation relation
	// order are the ORDER BY expressions of an order-sensitive aggregate
	// (string_agg), sort their directions (Col unused); an ordered-set
	// aggregate's sort value is args[0], its direction sort[0].
	order []expr.Expr
	sort  []expr.SortCol
	frac  float64
	fracs repr.Datum // an array of fractions (percentile_cont(ARRAY[...]))
	// direct, when not nil, is a direct argument that is not a non-NULL
	// constant: an expression of the grouped and outer columns (a float8
	// or float8[]), which reduce adds to the Reduce's key.
	direct expr.Expr
	t      repr.T
}

// dataflow builds the plan's aggregate, placing each expression it reads
// in a column of the Reduce's input with column.
func (s aggSpec) dataflow(column func(expr.Expr) int) expr.Agg {
	a := expr.Agg{Kind: s.kind, Distinct: s.distinct, T: s.t, Frac: s.frac, Fracs: s.fracs}
	if s.direct != nil {
		a.DirectKey, a.DirectCol = true, column(s.direct)
	}
	if len(s.args) > 0 {
		a.Col = column(s.args[0])
	}
	if len(s.args) > 1 {
		a.Sep = column(s.args[1])
	}
	a.Order = slices.Clone(s.sort)
	for i := range a.Order {
		if d := s.kind.Def(); d.Shape == expr.AggOrderedSet && !d.Hypothetical {
			a.Order[i].Col = a.Col
		} else {
			a.Order[i].Col = column(s.order[i])
		}
	}
	return a
}

// withinGroupRequired is PostgreSQL's error for a call of ordered-set
// aggregate k without WITHIN GROUP (an aggregate's or a window's): 42809
// when it has as many arguments as k's direct and aggregated ones
// together, else 42883 naming their types (mode(), percentile_cont(0.5)),
// as no function of that signature exists.
func (c *ectx) withinGroupRequired(fc *pg_query.FuncCall, k expr.AggKind) error {
	if k.Def().Hypothetical {
		if len(fc.Args) == 0 && fc.Over == nil {
			return repr.Errorf(repr.CodeWrongObjectType, "window function %s requires an OVER clause", funcName(fc)).WithPosition(fc.Location + 1)
		}
		return repr.Errorf(repr.CodeWrongObjectType, "WITHIN GROUP is required for ordered-set aggregate %s", funcName(fc)).WithPosition(fc.Location + 1)
	}
	want := 1
	if k.Def().Direct {
		want = 2
	}
	if len(fc.Args) != want {
		args, err := c.exprs(fc.Args)
		if err != nil {
			return err
		}
		return noSuchFunction(funcName(fc), args, fc.Location)
	}
	return repr.Errorf(repr.CodeWrongObjectType, "WITHIN GROUP is required for ordered-set aggregate %s", funcName(fc)).WithPosition(fc.Location + 1)
}

// buildAgg types one aggregate call's arguments over the FROM scope.
func (b *builder) buildAgg(fc *pg_query.FuncCall, from *ectx) (aggSpec, error) {
	name := funcName(fc)
	kind, ok := expr.LookupAgg(name)
	if !ok {
		return aggSpec{}, repr.Unsupported("aggregate %s()", name)
	}
	if err := b.outerLevelAgg(fc, from.sc); err != nil {
		return aggSpec{}, err
	}
	def := kind.Def()
	switch {
	case fc.AggWithinGroup && def.Shape != expr.AggOrderedSet:
		return aggSpec{}, repr.Errorf(repr.CodeUndefinedFunction, "%s is not an ordered-set aggregate, so it cannot have WITHIN GROUP", name).WithPosition(fc.Location + 1)
	case def.Shape == expr.AggOrderedSet && !fc.AggWithinGroup:
		return aggSpec{}, from.withinGroupRequired(fc, kind)
	case def.Shape == expr.AggOrderedSet:
		return b.buildOrderedSet(fc, from, kind)
	}
	spec := aggSpec{kind: kind, distinct: fc.AggDistinct}
	if fc.AggStar && fc.AggFilter == nil {
		spec.kind, spec.t = expr.AggCountStar, repr.Int8
		return spec, nil
	}
	if fc.AggStar {
		// count(*) FILTER (WHERE p) counts the rows where p holds: the
		// count of a non-NULL constant under the filter.
		spec.kind, spec.t = expr.AggCount, repr.Int8
		filtered, err := b.aggFilter(fc, from, []expr.Expr{boolLit(true)})
		spec.args = filtered
		return spec, err
	}
	want := 1
	if def.Shape == expr.AggBinary {
		want = 2
	}
	if len(fc.Args) != want {
		return aggSpec{}, repr.Errorf(repr.CodeUndefinedFunction, "function %s with %d arguments does not exist", name, len(fc.Args)).WithPosition(fc.Location + 1)
	}
	args, err := from.exprs(fc.Args)
	if err != nil {
		return aggSpec{}, err
	}
	written := slices.Clone(args)
	if err := b.aggArgTypes(def, args, fc.Location); err != nil {
		return aggSpec{}, err
	}
	if spec.distinct {
		for i, a := range written {
			if err := noEquality(b, []repr.T{a.Type()}, leftmostLocation(fc.Args[i])); err != nil {
				return aggSpec{}, err
			}
		}
		args[0] = trimDistinctBpchar(kind, args[0])
	}
	argT := args[0].Type()
	box := "array"
	if def.Boxed {
		switch {
		case argT.Vector:
			return aggSpec{}, withPos(errVectorArray(argT), fc.Location)
		case argT.Family == repr.FamArray && kind == expr.AggArrayAgg:
			box = "array_agg_box" // array_agg(anyarray) stacks its values
		case argT.Family == repr.FamArray:
			return aggSpec{}, repr.Unsupported("%s over array values", name).WithPosition(fc.Location + 1)
		}
		argT = repr.ArrayOf(argT)
	}
	if spec.t, err = expr.AggType(kind, argT); err != nil {
		return aggSpec{}, withPos(repr.Errorf(repr.CodeUndefinedFunction, "function %s(%s) does not exist", name, args[0].Type().Name()), fc.Location)
	}
	if err := b.aggOrder(fc, from, def, written, args, &spec); err != nil {
		return aggSpec{}, err
	}
	if def.Convert != "" {
		last := len(args) - 1
		if args[last], err = from.function(def.Convert, args[last:], fc.Location); err != nil {
			return aggSpec{}, err
		}
		if kind == expr.AggJSONAgg && argT.Family == repr.FamArray && argT.Elem == repr.FamRecord {
			// PostgreSQL separates composite elements by ",\n ".
			if args[last], err = from.function("json_agg_structured", args[last:], fc.Location); err != nil {
				return aggSpec{}, err
			}
		}
	}
	if def.Boxed {
		if args[0], err = from.function(box, args[:1], fc.Location); err != nil {
			return aggSpec{}, err
		}
	}
	spec.args, err = b.aggFilter(fc, from, args)
	return spec, err
}

// aggArgTypes coerces an aggregate's arguments in place: untyped literals
// to def.Literal, string_agg's separator to text, an object aggregate's
// key to def.Key (an explicit cast: any type names a key).
func (b *builder) aggArgTypes(def *expr.AggDef, args []expr.Expr, loc int32) error {
	var err error
	for i, a := range args {
		switch {
		case i == 0 && def.Key != (repr.T{}):
			args[i], err = b.internalCast(a, def.Key, loc)
		case i == 1 && def.Shape == expr.AggBinary && def.Convert == "" && args[0].Type().Family == repr.FamBytea:
			if f := a.Type().Family; f != repr.FamBytea && f != repr.FamUnknown {
				return noSuchFunction(def.Name, args, loc)
			}
			args[i], err = b.coerce(a, repr.Bytea) // string_agg(bytea, bytea)
		case a.Type().Family == repr.FamUnknown || def.Shape == expr.AggBinary && i == 1 && def.Convert == "":
			args[i], err = b.coerce(a, def.Literal)
		case isChar(a.Type()) && def.Shape == expr.AggBinary && def.Literal == repr.Text:
			// string_agg(text, text): a char value loses its
			// trailing blanks, as PostgreSQL's implicit cast does.
			args[i], err = b.coerce(a, repr.Text)
		}
		if err != nil {
			return err
		}
	}
	if (def == expr.AggMin.Def() || def == expr.AggMax.Def()) && noExtremum(args[0].Type()) {
		return noSuchFunction(def.Name, args, loc)
	}
	return nil
}

// trimDistinctBpchar returns the argument a DISTINCT aggregate of kind k
// reads for arg: when arg is bpchar without a length, whose values keep
// the trailing blanks they were written with while bpchar's = ignores
// them, its value without them (as bpchar), so that values equal under =
// count once. PostgreSQL shows one of the values written; this is the one
// without blanks. count, min and max are left to the lowering
// (lower.bpcharKeys), which keeps min and max to values written.
func trimDistinctBpchar(k expr.AggKind, arg expr.Expr) expr.Expr {
	t := arg.Type()
	if !isChar(t) || t.Length > 0 || k == expr.AggCount || k == expr.AggMin || k == expr.AggMax {
		return arg
	}
	return expr.NewCast(expr.NewCast(arg, repr.Text), t)
}

// aggOrder plans the ORDER BY inside an aggregate call: kept for
// aggregates whose result depends on the order of their input (string_agg),
// dropped for the others, as it cannot change their result. With DISTINCT
// every ORDER BY expression must be an argument, as written or as coerced
// (42P10, as PostgreSQL), and sorts by the coerced argument, so that the
// values DISTINCT compares are those it orders. A bpchar value (flat, or
// in a record or array) sorts by its expr.BpcharKey, as bpchar's <
// ignores its trailing blanks.
func (b *builder) aggOrder(fc *pg_query.FuncCall, from *ectx, def *expr.AggDef, written, args []expr.Expr, spec *aggSpec) error {
	if len(fc.AggOrder) == 0 && def.Ordered && !fc.AggDistinct {
		spec.order, spec.sort = from.naturalKeys()
		return nil
	}
	for _, item := range fc.AggOrder {
		sb := item.GetSortBy()
		e, err := from.expr(sb.Node)
		if err != nil {
			return err
		}
		if e.Type().Family == repr.FamUnknown {
			if e, err = b.coerce(e, repr.Text); err != nil {
				return err
			}
		}
		if fc.AggDistinct {
			i := slices.IndexFunc(args, func(a expr.Expr) bool { return a.String() == e.String() })
			if i < 0 {
				i = slices.IndexFunc(written, func(a expr.Expr) bool { return a.String() == e.String() })
			}
			if i < 0 {
				return repr.Errorf("42P10", "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list").WithPosition(location(sb.Node) + 1)
			}
			e = args[i]
		}
		if sb.SortbyDir != pg_query.SortByDir_SORTBY_USING {
			if err := noOrdering(b, e.Type(), leftmostLocation(sb.Node)); err != nil {
				return err
			}
		}
		dir, err := sortDirFor(sb, e.Type())
		if err != nil {
			return err
		}
		if def.Ordered {
			if expr.NeedsBpcharKey(e.Type()) { // Compare would count their blanks
				e = expr.BpcharKey(e)
			}
			e = expr.QCharKey(e) // "char" sorts by its byte
			spec.order = append(spec.order, e)
			spec.sort = append(spec.sort, dir)
		}
	}
	return nil
}

// sortDir is sb's direction and NULLs placement (Col unset).
func sortDir(sb *pg_query.SortBy) expr.SortCol {
	desc := sb.SortbyDir == pg_query.SortByDir_SORTBY_DESC
	c := expr.SortCol{Desc: desc, NullsFirst: desc}
	switch sb.SortbyNulls {
	case pg_query.SortByNulls_SORTBY_NULLS_FIRST:
		c.NullsFirst = true
	case pg_query.SortByNulls_SORTBY_NULLS_LAST:
		c.NullsFirst = false
	}
	return c
}

// buildOrderedSet plans f(direct) WITHIN GROUP (ORDER BY x): x is the
// aggregated value and its sort direction the multiset's order. The direct
// argument (percentile_cont's fraction) is a constant or an expression of
// the grouped columns, which PostgreSQL evaluates once per group
// (directArg).
func (b *builder) buildOrderedSet(fc *pg_query.FuncCall, from *ectx, kind expr.AggKind) (aggSpec, error) {
	def, name := kind.Def(), kind.String()
	nDirect := 0
	if def.Direct {
		nDirect = 1
	}
	if fc.AggDistinct {
		return aggSpec{}, repr.Errorf(repr.CodeSyntax, "cannot use DISTINCT with WITHIN GROUP").WithPosition(fc.Location + 1)
	}
	if def.Hypothetical {
		return b.buildHypothetical(fc, from, kind)
	}
	if len(fc.Args) != nDirect || len(fc.AggOrder) != 1 {
		return aggSpec{}, repr.Errorf(repr.CodeUndefinedFunction, "function %s with %d direct and %d ordered arguments does not exist", name, len(fc.Args), len(fc.AggOrder)).WithPosition(fc.Location + 1)
	}
	spec := aggSpec{kind: kind}
	if nDirect == 1 {
		var err error
		if spec.frac, spec.fracs, spec.direct, err = b.directArg(fc.Args[0], from); err != nil {
			return aggSpec{}, err
		}
	}
	sb := fc.AggOrder[0].GetSortBy()
	x, err := from.expr(sb.Node)
	if err != nil {
		return aggSpec{}, err
	}
	if x.Type().Family == repr.FamUnknown {
		if x, err = b.coerce(x, def.Literal); err != nil {
			return aggSpec{}, err
		}
	}
	if spec.t, err = expr.AggType(kind, x.Type()); err != nil {
		return aggSpec{}, withPos(repr.Errorf(repr.CodeUndefinedFunction, "function %s(%s) does not exist", name, x.Type().Name()), fc.Location)
	}
	if !spec.fracs.IsNull() || spec.direct != nil && spec.direct.Type().Family == repr.FamArray {
		spec.t = repr.ArrayOf(spec.t)
	}
	dir, err := sortDirFor(sb, x.Type())
	if err != nil {
		return aggSpec{}, err
	}
	spec.sort = []expr.SortCol{dir}
	spec.args, err = b.aggFilter(fc, from, []expr.Expr{x})
	return spec, err
}

// aggFilter applies an aggregate's FILTER (WHERE p) to its aggregated
// value: CASE WHEN p THEN x END. Every supported aggregate ignores NULL
// inputs (string_agg skips a NULL value whatever its separator, the
// ordered-set aggregates a NULL sort value; array_agg's values arrive
// boxed, ARRAY[x], which is never NULL), so aggregating the CASE is
// aggregating exactly the rows where p is true, with DISTINCT too. Without
// FILTER args come back unchanged.
func (b *builder) aggFilter(fc *pg_query.FuncCall, from *ectx, args []expr.Expr) ([]expr.Expr, error) {
	if fc.AggFilter == nil {
		return args, nil
	}
	fctx := *from
	fctx.clause = "FILTER"
	var aggs []*pg_query.FuncCall
	if collectAggs(fc.AggFilter, &aggs); len(aggs) > 0 {
		return nil, repr.Errorf(repr.CodeGrouping, "aggregate functions are not allowed in FILTER").WithPosition(aggs[0].Location + 1)
	}
	p, err := fctx.predicate(fc.AggFilter)
	if err != nil {
		return nil, err
	}
	from.rel = fctx.rel // widened by the filter's decorrelated subqueries
	out := append([]expr.Expr(nil), args...)
	out[0] = &expr.Case{Whens: []expr.When{{Cond: p, Then: args[0]}}, T: args[0].Type()}
	return out, nil
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
		fc := n.GetFuncCall()
		out := append(append([]*pg_query.Node(nil), fc.Args...), fc.AggFilter)
		if fc.Over != nil {
			out = append(append(out, fc.Over.PartitionClause...), fc.Over.OrderClause...)
		}
		return out
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
