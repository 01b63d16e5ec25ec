package planner

import (
	"slices"

	"math"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// arrayExpr builds ARRAY[e1, ...]: the elements coerced to their common
// type, as the internal function array(...). ARRAY[] needs a cast to fix
// its type (typeCast handles ARRAY[]::t[]). Elements that are arrays
// (ARRAY[[1,2],[3,4]], ARRAY[a, b] over array columns) make an array of
// one more dimension (expr's stackArrays).
func (c *ectx) arrayExpr(ae *pg_query.A_ArrayExpr) (expr.Expr, error) {
	elems, err := c.exprs(ae.Elements)
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		return nil, repr.Errorf("42P18", "cannot determine type of empty array").WithPosition(ae.Location + 1).
			WithHint("Explicitly cast to the desired type, for example ARRAY[]::integer[].")
	}
	ts := make([]repr.T, len(elems))
	for i, e := range elems {
		ts[i] = e.Type()
	}
	t, err := expr.CommonType(ts, "ARRAY")
	if err != nil {
		return nil, withPos(err, ae.Location)
	}
	if t.Vector {
		return nil, withPos(errVectorArray(t), ae.Location)
	}
	for i, e := range elems {
		if elems[i], err = c.b.coerce(e, t); err != nil {
			return nil, err
		}
	}
	return c.function("array", elems, ae.Location)
}

// arraySubscript applies the subscripts of ind to the array arr: a[i] is
// the element (NULL out of range), a[i:j], a[i:], a[:j] and a[:] slices;
// several subscripts (a[i][j], a[i:j][k]) go to multiSubscript.
func (c *ectx) arraySubscript(arr expr.Expr, ind *pg_query.A_Indirection) (expr.Expr, error) {
	if len(ind.Indirection) != 1 {
		return c.multiSubscript(arr, ind.Indirection)
	}
	idx := ind.Indirection[0].GetAIndices()
	if idx == nil {
		return nil, repr.Unsupported("field selection")
	}
	var bounds []expr.Expr
	for _, n := range []*pg_query.Node{idx.Lidx, idx.Uidx} {
		if n == nil {
			bounds = append(bounds, nil)
			continue
		}
		e, err := c.subscriptExpr(n)
		if err != nil {
			return nil, err
		}
		bounds = append(bounds, e)
	}
	lo, hi := bounds[0], bounds[1]
	switch {
	case !idx.IsSlice:
		return c.function("array_subscript", []expr.Expr{arr, hi}, location(idx.Uidx))
	case lo != nil && hi != nil:
		return c.function("array_slice", []expr.Expr{arr, lo, hi}, location(idx.Lidx))
	case lo != nil:
		return c.function("array_slice_from", []expr.Expr{arr, lo}, location(idx.Lidx))
	case hi != nil:
		return c.function("array_slice_to", []expr.Expr{arr, hi}, location(idx.Uidx))
	}
	return c.function("array_slice_from", []expr.Expr{arr, &expr.Lit{D: repr.NewInt(math.MinInt32), T: repr.Int4}}, location(idx.Lidx))
}

// multiSubscript builds a[i][j]... as array_subscript(a, i, j, ...) and,
// when any subscript is a slice, a[i:j][k]... as array_slices(a, i, j, 1,
// k, ...): PostgreSQL then reads every subscript as a slice, a single
// number k as 1:k, and a missing bound as the dimension's end.
func (c *ectx) multiSubscript(arr expr.Expr, ind []*pg_query.Node) (expr.Expr, error) {
	if len(ind) > repr.MaxArrayDims {
		return nil, repr.Errorf(repr.CodeProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", len(ind), repr.MaxArrayDims)
	}
	slice := false
	for _, n := range ind {
		idx := n.GetAIndices()
		if idx == nil {
			return nil, repr.Unsupported("field selection")
		}
		slice = slice || idx.IsSlice
	}
	args := []expr.Expr{arr}
	for _, n := range ind {
		idx := n.GetAIndices()
		bounds := []*pg_query.Node{idx.Uidx}
		if slice {
			bounds = []*pg_query.Node{idx.Lidx, idx.Uidx}
		}
		for i, b := range bounds {
			if b == nil && !idx.IsSlice { // k as 1:k, even where the lower bound is not 1
				args = append(args, &expr.Lit{D: repr.NewInt(1), T: repr.Int4})
				continue
			}
			if b == nil { // a missing bound of a slice: the dimension's start or end
				end := []int64{math.MinInt32, math.MaxInt32}[i]
				args = append(args, &expr.Lit{D: repr.NewInt(end), T: repr.Int4})
				continue
			}
			e, err := c.subscriptExpr(b)
			if err != nil {
				return nil, err
			}
			args = append(args, e)
		}
	}
	if slice {
		return c.function("array_slices", args, location(ind[0].GetAIndices().Uidx))
	}
	return c.function("array_subscript", args, location(ind[0].GetAIndices().Uidx))
}

// elementAssignment builds UPDATE ... SET a[i][j] = v for column col of
// rel over the column's new value so far (so several elements of one
// column may be assigned): assignInto.
func (c *ectx) elementAssignment(rel *Relation, set []expr.Expr, col int, rt *pg_query.ResTarget) (expr.Expr, error) {
	t := rel.Columns[col].Type
	base := set[col]
	if base == nil {
		base = &expr.Col{Idx: col, T: t}
	}
	v, err := c.expr(rt.Val)
	if err != nil {
		return nil, err
	}
	return c.assignInto(base, t, rt, v)
}

// assignInto builds the assignment of v to base (of column type t) through
// rt's indirection: assignPath.
func (c *ectx) assignInto(base expr.Expr, t repr.T, rt *pg_query.ResTarget, v expr.Expr) (expr.Expr, error) {
	if t.IsComposite() && rt.Indirection[0].GetString_() == nil {
		return nil, repr.Unsupported("assignment to a subscript of a composite column").WithPosition(rt.Location + 1)
	}
	return c.assignPath(base, t, rt.Name, rt.Indirection, rt, v)
}

// assignPath assigns v through path into base, a value of type t held by
// column (named in messages), as PostgreSQL's chain of FieldStore and
// SubscriptingRef: a field name replaces that field of a composite value
// (assignField), a run of subscripts an element or a slice of an array
// (assignElems); each step's value so far is read from base.
func (c *ectx) assignPath(base expr.Expr, t repr.T, column string, path []*pg_query.Node, rt *pg_query.ResTarget, v expr.Expr) (expr.Expr, error) {
	if f := path[0].GetString_(); f != nil {
		if !t.IsComposite() {
			return nil, repr.Errorf(repr.CodeDatatypeMismatch, "cannot assign to field \"%s\" of column \"%s\" because its type %s is not a composite type",
				f.GetSval(), column, c.b.typeName(t)).WithPosition(rt.Location + 1)
		}
		return c.assignField(base, t, column, path, rt, v)
	}
	return c.assignElems(base, t, path, rt, v)
}

// assignElems assigns v through path, which starts with subscripts, into
// base, an array of type t: array_set for a[i][j] = v, array_set_slice
// for a[i:j] = arr (where a plain subscript k is the slice 1:k, as
// PostgreSQL reads it), v assigned to the element or the array type. When
// a field follows the subscripts (a[i].f = v) the element so far, with v
// assigned through the rest of the path, is the value set.
func (c *ectx) assignElems(base expr.Expr, t repr.T, path []*pg_query.Node, rt *pg_query.ResTarget, v expr.Expr) (expr.Expr, error) {
	switch {
	case t.Vector:
		return nil, repr.Unsupported("assignment to subfields or elements of type %s", t.Name()).WithPosition(rt.Location + 1)
	case t.Family != repr.FamArray:
		return nil, repr.Errorf(repr.CodeDatatypeMismatch, "cannot subscript type %s because it does not support subscripting", c.b.typeName(t)).WithPosition(rt.Location + 1)
	}
	n := 0
	for n < len(path) && path[n].GetAIndices() != nil {
		n++
	}
	ind, rest := path[:n], path[n:]
	if len(ind) > repr.MaxArrayDims {
		return nil, repr.Errorf(repr.CodeProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", len(ind), repr.MaxArrayDims)
	}
	slice := slices.ContainsFunc(ind, func(n *pg_query.Node) bool { return n.GetAIndices().IsSlice })
	if slice && len(rest) > 0 { // a slice is an array: no fields (42804)
		return c.assignPath(base, t, rt.Name, rest, rt, v)
	}
	args, err := c.assignmentSubscripts(ind, slice)
	if err != nil {
		return nil, err
	}
	target, name := t.ElemType(), "array_set"
	if slice {
		target, name = t, "array_set_slice"
	}
	if len(rest) > 0 {
		cur, err := c.function("array_subscript", append([]expr.Expr{base}, args...), rt.Location)
		if err != nil {
			return nil, err
		}
		v, err = c.assignPath(cur, target, rt.Name, rest, rt, v)
		if err != nil {
			return nil, err
		}
	} else if v, err = c.b.assign(v, target, rt.Name); err != nil {
		return nil, err
	}
	return c.function(name, append(append([]expr.Expr{base}, args...), v), rt.Location)
}

// assignmentSubscripts builds the subscripts of array_set (one per
// dimension) or array_set_slice (the mask of omitted bounds, then a lower
// and an upper bound per dimension; an omitted one is a NULL placeholder).
func (c *ectx) assignmentSubscripts(ind []*pg_query.Node, slice bool) ([]expr.Expr, error) {
	var args []expr.Expr
	omitted := int64(0)
	for k, n := range ind {
		idx := n.GetAIndices()
		bounds := []*pg_query.Node{idx.Uidx}
		if slice {
			bounds = []*pg_query.Node{idx.Lidx, idx.Uidx}
		}
		for j, b := range bounds {
			switch {
			case b == nil && slice && !idx.IsSlice: // k as 1:k
				args = append(args, &expr.Lit{D: repr.NewInt(1), T: repr.Int4})
			case b == nil:
				omitted |= 1 << (2*k + j)
				args = append(args, &expr.Lit{D: repr.Null, T: repr.Int4})
			default:
				e, err := c.subscriptExpr(b)
				if err != nil {
					return nil, err
				}
				args = append(args, e)
			}
		}
	}
	if slice {
		args = append([]expr.Expr{&expr.Lit{D: repr.NewInt(omitted), T: repr.Int4}}, args...)
	}
	return args, nil
}

// subscriptExpr builds a subscript, coerced to integer as PostgreSQL does
// (with assignment semantics: bigint and numeric subscripts are converted).
func (c *ectx) subscriptExpr(n *pg_query.Node) (expr.Expr, error) {
	e, err := c.expr(n)
	if err != nil {
		return nil, err
	}
	if t := e.Type(); t.Family != repr.FamUnknown && repr.CastContextOf(t, repr.Int4) < repr.CastAssignment {
		return nil, repr.Errorf(repr.CodeDatatypeMismatch, "array subscript must have type integer").WithPosition(location(n) + 1)
	}
	return c.b.coerce(e, repr.Int4)
}

// anyAll builds x op ANY (array) and x op ALL (array) for the comparison
// operators, as any_<op>/all_<op> (expr). ANY (subquery) is a
// SubLink and does not reach here.
func (c *ectx) anyAll(op string, a *pg_query.A_Expr) (expr.Expr, error) {
	suffix, ok := expr.AnyAllOps[op]
	kind := "ANY"
	if a.Kind == pg_query.A_Expr_Kind_AEXPR_OP_ALL {
		kind = "ALL"
	}
	if !ok {
		return nil, repr.Unsupported("operator %s with %s (array)", op, kind).WithPosition(a.Location + 1)
	}
	l, r, err := c.pair(a.Lexpr, a.Rexpr)
	if err != nil {
		return nil, err
	}
	if f := r.Type().Family; f != repr.FamArray && f != repr.FamUnknown {
		return nil, repr.Errorf(repr.CodeWrongObjectType, "op ANY/ALL (array) requires array on right side").WithPosition(a.Location + 1)
	}
	name := "any_" + suffix
	if kind == "ALL" {
		name = "all_" + suffix
	}
	e, err := c.function(name, []expr.Expr{l, r}, a.Location)
	if pe, ok := err.(*repr.Error); ok && pe.Code == repr.CodeUndefinedFunction {
		elem := r.Type().ElemType()
		return nil, repr.Errorf(repr.CodeUndefinedFunction, "operator does not exist: %s %s %s", l.Type().Name(), op, elem.Name()).WithPosition(a.Location + 1)
	}
	if err == nil {
		c.b.noteElemOp(op, l.Type(), r.Type(), e)
	}
	return e, err
}

// arraySubquery plans ARRAY(SELECT x ...): the scalar subquery (SELECT
// array_agg(x ORDER BY ...) ...), which returns one row whatever the rows
// of the original (correlated ones are decorrelated like any scalar
// subquery), with an empty array for no rows, as PostgreSQL gives.
func (c *ectx) arraySubquery(sl *pg_query.SubLink) (expr.Expr, error) {
	sel, err := arrayAggSelect(sl.Subselect.GetSelectStmt())
	if err != nil {
		return nil, withPos(err, sl.Location)
	}
	e, err := c.scalarSubquery(sel, sl.Location)
	if err != nil {
		return nil, err
	}
	empty := &expr.Lit{D: repr.NewArray(nil), T: e.Type()}
	return &expr.Coalesce{Args: []expr.Expr{e, empty}, T: e.Type()}, nil
}

// arrayAggSelect rewrites the query of ARRAY(query) into one aggregating
// its single column with array_agg. A plain block keeps its FROM and
// WHERE, its ORDER BY becoming the aggregate's; any other query (DISTINCT,
// GROUP BY, LIMIT, set operations, aggregates...) becomes a derived table,
// whose order is kept only when it sorts by the column itself.
func arrayAggSelect(sel *pg_query.SelectStmt) (*pg_query.SelectStmt, error) {
	arm := sel
	for arm.Op != pg_query.SetOperation_SETOP_NONE && arm.Larg != nil {
		arm = arm.Larg
	}
	var rt *pg_query.ResTarget
	switch {
	case len(arm.ValuesLists) > 0 && len(arm.ValuesLists[0].GetList().GetItems()) == 1:
	case len(arm.TargetList) != 1:
		return nil, repr.Errorf(repr.CodeSyntax, "subquery must return only one column")
	default:
		if rt = arm.TargetList[0].GetResTarget(); rt == nil || isStar(rt.Val) {
			return nil, repr.Unsupported("ARRAY(SELECT * ...)")
		}
	}
	if rt != nil && arm == sel && plainArrayBlock(sel, rt) {
		var order []*pg_query.Node
		for _, s := range sel.SortClause {
			sb := s.GetSortBy()
			n := sb.Node
			if k := n.GetAConst().GetIval(); k != nil && k.Ival != 1 {
				return nil, repr.Errorf("42P10", "ORDER BY position %d is not in select list", k.Ival)
			}
			if sortsByTarget(sb, rt) {
				n = rt.Val
			}
			order = append(order, sortByNode(n, sb))
		}
		return aggSelect(rt.Val, order, sel.FromClause, sel.WhereClause), nil
	}
	col := columnRefNode("eddy_array", "v")
	var order []*pg_query.Node
	for _, s := range sel.SortClause {
		sb := s.GetSortBy()
		if !sortsByTarget(sb, rt) {
			return nil, repr.Unsupported("ARRAY(subquery) ordered by other than its column with LIMIT, DISTINCT, GROUP BY or set operations")
		}
		order = append(order, sortByNode(col, sb))
	}
	from := &pg_query.Node{Node: &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{
		Subquery: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}},
		Alias:    &pg_query.Alias{Aliasname: "eddy_array", Colnames: []*pg_query.Node{pg_query.MakeStrNode("v")}},
	}}}
	return aggSelect(col, order, []*pg_query.Node{from}, nil), nil
}

// plainArrayBlock reports whether sel is one SELECT ... FROM ... WHERE ...
// [ORDER BY] block whose column is neither an aggregate, a window
// function nor a set-returning function, so array_agg can replace it.
func plainArrayBlock(sel *pg_query.SelectStmt, rt *pg_query.ResTarget) bool {
	if sel.Op != pg_query.SetOperation_SETOP_NONE || sel.LimitCount != nil || sel.LimitOffset != nil ||
		len(sel.DistinctClause) > 0 || len(sel.GroupClause) > 0 || sel.HavingClause != nil ||
		len(sel.WindowClause) > 0 || len(sel.ValuesLists) > 0 || sel.WithClause != nil || len(sel.LockingClause) > 0 {
		return false
	}
	var aggs []*pg_query.FuncCall
	if collectAggs(rt.Val, &aggs); len(aggs) > 0 {
		return false
	}
	plain := true
	walk(rt.Val, func(n *pg_query.Node) bool {
		if fc := n.GetFuncCall(); fc != nil && (fc.Over != nil || expr.IsTableFunc(funcName(fc))) {
			plain = false
		}
		return plain
	})
	return plain
}

// sortsByTarget reports whether an ORDER BY item names the query's one
// column: by position 1, by its alias, or as the same column reference.
func sortsByTarget(sb *pg_query.SortBy, rt *pg_query.ResTarget) bool {
	if k := sb.Node.GetAConst().GetIval(); k != nil && sb.Node.GetAConst() != nil {
		return k.Ival == 1
	}
	ref := sb.Node.GetColumnRef()
	if ref == nil || len(ref.Fields) != 1 || rt == nil {
		return false
	}
	name := ref.Fields[0].GetString_().GetSval()
	if rt.Name != "" {
		return name == rt.Name
	}
	tr := rt.Val.GetColumnRef()
	return tr != nil && tr.Fields[len(tr.Fields)-1].GetString_().GetSval() == name
}

func isStar(n *pg_query.Node) bool {
	ref := n.GetColumnRef()
	return ref != nil && ref.Fields[len(ref.Fields)-1].GetAStar() != nil
}

func columnRefNode(names ...string) *pg_query.Node {
	var fields []*pg_query.Node
	for _, s := range names {
		fields = append(fields, pg_query.MakeStrNode(s))
	}
	return &pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{Fields: fields, Location: -1}}}
}

// sortByNode is sb's direction and NULLs placement applied to n.
func sortByNode(n *pg_query.Node, sb *pg_query.SortBy) *pg_query.Node {
	return &pg_query.Node{Node: &pg_query.Node_SortBy{SortBy: &pg_query.SortBy{
		Node: n, SortbyDir: sb.SortbyDir, SortbyNulls: sb.SortbyNulls, UseOp: sb.UseOp, Location: sb.Location}}}
}

// aggSelect is SELECT array_agg(val ORDER BY order) FROM from WHERE where.
func aggSelect(val *pg_query.Node, order, from []*pg_query.Node, where *pg_query.Node) *pg_query.SelectStmt {
	call := &pg_query.FuncCall{Funcname: []*pg_query.Node{pg_query.MakeStrNode("array_agg")},
		Args: []*pg_query.Node{val}, AggOrder: order, Location: -1}
	target := &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{
		Val: &pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: call}}, Location: -1}}}
	return &pg_query.SelectStmt{TargetList: []*pg_query.Node{target}, FromClause: from, WhereClause: where,
		Op: pg_query.SetOperation_SETOP_NONE, LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT}
}
