package planner

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// finishSelect builds the select list, ORDER BY, DISTINCT and LIMIT over
// the FROM (or aggregated) relation of ec.
func (b *builder) finishSelect(sel *pg_query.SelectStmt, targets []target, ec *ectx, p *planned) (*planned, error) {
	exprs := make([]expr.Expr, len(targets))
	for i, t := range targets {
		e, err := b.targetExpr(t, ec)
		if err != nil {
			return nil, err
		}
		exprs[i] = e
		p.cols = append(p.cols, resultColumn(t.name, e, ec.sc))
		p.cols[i].Fields = ec.recordFields(e)
	}
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.name
	}
	ec.clause = "ORDER BY"
	order, hidden, err := b.orderBy(sel.SortClause, names, exprs, ec, p.nOuter)
	if err != nil {
		return nil, err
	}
	if ec.keepNatural && len(ec.natural) > 0 {
		order, hidden = naturalOrder(ec.natural, ec.naturalDirs, p.nOuter, len(exprs)), ec.natural
	}
	if isDistinctOn(sel) {
		var on []expr.SortCol
		var onHidden []expr.Expr
		if on, onHidden, err = b.orderBy(sortItems(sel.DistinctClause), names, append(exprs, hidden...), ec, p.nOuter); err != nil {
			return nil, distinctOnKeyError(err)
		}
		hidden = append(hidden, onHidden...)
		p.rel = projectExprs(ec.rel, p.nOuter, append(exprs, hidden...))
		var onTypes []repr.T
		for _, o := range on {
			if ts := p.rel.ColTypes(); o.Col < len(ts) {
				onTypes = append(onTypes, ts[o.Col])
			}
		}
		b.noteGrouping(onTypes)
		p.rel, err = distinctOn(p.rel, p.nOuter, on, order, ec.srfBase)
		p.order = order
		if err != nil {
			return nil, err
		}
		return p, b.limit(sel, p)
	}
	distinct := len(sel.DistinctClause) > 0
	if distinct && len(hidden) > 0 {
		return nil, repr.Errorf("42P10", "for SELECT DISTINCT, ORDER BY expressions must appear in select list").
			WithPosition(firstHidden(sel.SortClause, order, p.nOuter+len(exprs)) + 1)
	}
	p.rel = projectExprs(ec.rel, p.nOuter, append(exprs, hidden...))
	if distinct {
		if err := noEquality(b, exprTypes(exprs), -1); err != nil {
			return nil, err
		}
		p.rel = ir.NewDistinct(p.rel)
		b.noteGrouping(exprTypes(exprs))
	}
	p.order = order
	return p, b.limit(sel, p)
}

// firstHidden returns the location of the first ORDER BY item (of items,
// planned as order) that sorts by a hidden column (at or past first), as
// PostgreSQL's error position for it.
func firstHidden(items []*pg_query.Node, order []expr.SortCol, first int) int32 {
	for i, o := range order {
		if o.Col >= first && i < len(items) {
			n := items[i].GetSortBy().Node
			for n.GetAExpr() != nil && n.GetAExpr().Lexpr != nil {
				n = n.GetAExpr().Lexpr // PostgreSQL's exprLocation: the leftmost
			}
			return location(n)
		}
	}
	return -1
}

// isDistinctOn reports SELECT DISTINCT ON (...) (plain DISTINCT has one nil
// item).
func isDistinctOn(sel *pg_query.SelectStmt) bool {
	d := sel.DistinctClause
	return len(d) > 0 && !(len(d) == 1 && (d[0] == nil || d[0].Node == nil))
}

// sortItems wraps expressions as ascending ORDER BY items, so DISTINCT ON
// items resolve as ORDER BY items do (ordinals, output names, expressions).
func sortItems(ns []*pg_query.Node) []*pg_query.Node {
	out := make([]*pg_query.Node, len(ns))
	for i, n := range ns {
		out[i] = &pg_query.Node{Node: &pg_query.Node_SortBy{SortBy: &pg_query.SortBy{Node: n, Location: -1}}}
	}
	return out
}

// distinctOn keeps, per distinct value of the DISTINCT ON columns (and of
// the outer values of a decorrelated block), the first row in ORDER BY
// order: a TopK with limit 1 (ties broken by the whole row, so the choice
// is deterministic where PostgreSQL's is arbitrary). As in PostgreSQL, the
// leading ORDER BY items must be DISTINCT ON items (42P10), and under an
// ORDER BY, volatile select-list entries and set-returning calls that are
// not sort keys are computed for the kept rows only (deferLate).
//
// srfBase is the relation the select list's set-returning calls expand
// (nil: none).
func distinctOn(rel ir.Rel, nOuter int, on, order []expr.SortCol, srfBase ir.Rel) (ir.Rel, error) {
	key := identityCols(nOuter)
	for _, c := range on {
		key = append(key, c.Col)
	}
	for i := 0; i < len(order) && i < len(on); i++ {
		if !slices.Contains(key[nOuter:], order[i].Col) {
			return nil, repr.Errorf("42P10", "SELECT DISTINCT ON expressions must match initial ORDER BY expressions")
		}
	}
	topK := func(in ir.Rel) ir.Rel { return &ir.TopK{Input: in, Key: key, Order: order, Limit: 1} }
	if len(order) == 0 { // PostgreSQL postpones nothing past an implicit sort
		return topK(rel), nil
	}
	out, _, err := deferLate(rel, append(slices.Clone(key), sortCols(order)...), srfBase, topK)
	return out, err
}

// targetExpr builds one select-list entry (unknown literals become text).
func (b *builder) targetExpr(t target, ec *ectx) (expr.Expr, error) {
	var e expr.Expr
	var err error
	switch {
	case t.node != nil:
		e, err = ec.expr(t.node)
	case ec.grp != nil:
		e, err = ec.expr(targetNode(t, ec.grp.from))
	default:
		e = ec.colExpr(t.col)
	}
	if err != nil {
		return nil, err
	}
	if e.Type().Family == repr.FamUnknown {
		if want, ok := b.insertTypes[t.node]; ok && t.node != nil {
			return b.coerce(e, want)
		}
		return b.coerce(e, repr.Text)
	}
	return e, nil
}

// resultColumn describes an output column; plain table columns keep their
// table and attribute number.
func resultColumn(name string, e expr.Expr, sc *scope) ResultColumn {
	rc := ResultColumn{Name: name, Type: e.Type()}
	if c, ok := e.(*expr.Col); ok && c.Idx < len(sc.cols) {
		rc.TableID, rc.ColumnAttr = sc.cols[c.Idx].tableID, sc.cols[c.Idx].attr
		rc.Fields = sc.cols[c.Idx].fields
	}
	return rc
}

// projectExprs returns rel's first nOuter columns followed by exprs, mapping
// only the expressions that are not plain columns.
func projectExprs(rel ir.Rel, nOuter int, exprs []expr.Expr) ir.Rel {
	n := ir.Arity(rel)
	proj := identityCols(nOuter)
	var maps []expr.Expr
	for _, e := range exprs {
		if c, ok := e.(*expr.Col); ok {
			proj = append(proj, c.Idx)
			continue
		}
		maps = append(maps, e)
		proj = append(proj, n+len(maps)-1)
	}
	return ir.NewProject(ir.NewMap(rel, maps...), proj...)
}

// orderBy resolves ORDER BY items to output columns (by ordinal, output
// name, or equal expression) or to hidden columns appended after them.
// Sort columns index the block's relation (outer values first).
func (b *builder) orderBy(items []*pg_query.Node, names []string, exprs []expr.Expr, ec *ectx, nOuter int) ([]expr.SortCol, []expr.Expr, error) {
	var order []expr.SortCol
	var hidden []expr.Expr
	for _, item := range items {
		sb := item.GetSortBy()
		col, err := outputRef(sb.Node, names)
		if err != nil {
			return nil, nil, err
		}
		if col < 0 && ec != nil {
			e, err := ec.expr(sb.Node)
			if err != nil {
				return nil, nil, err
			}
			if e.Type().Family == repr.FamUnknown {
				if e, err = b.coerce(e, repr.Text); err != nil {
					return nil, nil, err
				}
			}
			col = matchExpr(e, exprs)
			if col < 0 {
				hidden = append(hidden, e)
				col = len(exprs) + len(hidden) - 1
			}
		}
		if col < 0 {
			// PostgreSQL's refusal (transformSetOperationStmt), 0A000 too.
			return nil, nil, repr.Errorf(repr.CodeFeatureNotSupported, "invalid UNION/INTERSECT/EXCEPT ORDER BY clause").
				WithDetail("Only result column names can be used, not expressions or functions.").
				WithHint("Add the expression/function to every SELECT, or move the UNION into a FROM clause.").
				WithPosition(leftmostLocation(sb.Node) + 1)
		}
		kt := sortKeyType(col, exprs, hidden)
		if sb.SortbyDir != pg_query.SortByDir_SORTBY_USING {
			if err := noOrdering(b, kt, leftmostLocation(sb.Node)); err != nil {
				return nil, nil, err
			}
		}
		d, err := sortDirFor(sb, kt)
		if err != nil {
			return nil, nil, err
		}
		d.Col = nOuter + col
		order = append(order, d)
	}
	return order, hidden, nil
}

// sortKeyType is the type of ORDER BY column col: an output column of
// exprs, else a hidden one. Without the output's expressions (a set
// operation's ORDER BY) it is Unknown, which USING resolves as text.
func sortKeyType(col int, exprs, hidden []expr.Expr) repr.T {
	switch {
	case col < len(exprs):
		return exprs[col].Type()
	case col-len(exprs) < len(hidden):
		return hidden[col-len(exprs)].Type()
	}
	return repr.Unknown
}

// bpcharSortKeys makes the top-level ORDER BY sort a bpchar column
// without a length, or an array or record that may hold bpchar values,
// by its key (expr.BpcharKey), appended to rel as a hidden column: the
// caller sorts by Compare, which counts the trailing blanks that bpchar's
// < and the record and array comparisons over bpchar ignore. A "char"
// column sorts by its byte the same way (expr.QCharKey).
func bpcharSortKeys(rel ir.Rel, order []expr.SortCol) (ir.Rel, []expr.SortCol) {
	types := rel.ColTypes()
	var keys []expr.Expr
	out := slices.Clone(order)
	for i, o := range order {
		switch t := types[o.Col]; {
		case expr.NeedsBpcharKey(t):
			keys = append(keys, expr.BpcharKey(&expr.Col{Idx: o.Col, T: t}))
			out[i].Col = len(types) + len(keys) - 1
		case expr.NeedsQCharKey(t):
			keys = append(keys, expr.QCharKey(&expr.Col{Idx: o.Col, T: t}))
			out[i].Col = len(types) + len(keys) - 1
		}
	}
	if keys == nil {
		return rel, order
	}
	return ir.NewMap(rel, keys...), out
}

// outputRef resolves an ORDER BY ordinal or bare output-column name to the
// output column index, or -1 when n is neither.
func outputRef(n *pg_query.Node, names []string) (int, error) {
	if a := n.GetAConst(); a != nil && a.GetIval() != nil {
		i := int(a.GetIval().Ival)
		if i < 1 || i > len(names) {
			return -1, repr.Errorf("42P10", "ORDER BY position %d is not in select list", i).WithPosition(a.Location + 1)
		}
		return i - 1, nil
	}
	ref := n.GetColumnRef()
	if ref == nil || len(ref.Fields) != 1 || ref.Fields[0].GetString_() == nil {
		return -1, nil
	}
	name := ref.Fields[0].GetString_().Sval
	found := -1
	for i, nm := range names {
		if nm == name {
			if found >= 0 {
				return -1, repr.Errorf(repr.CodeAmbiguousColumn, "ORDER BY %q is ambiguous", name).WithPosition(ref.Location + 1)
			}
			found = i
		}
	}
	return found, nil
}

// matchExpr returns the index of the expression printing like e, or -1.
func matchExpr(e expr.Expr, exprs []expr.Expr) int {
	s := e.String()
	for i, x := range exprs {
		if x.String() == s {
			return i
		}
	}
	return -1
}

// limit evaluates constant LIMIT and OFFSET expressions.
func (b *builder) limit(sel *pg_query.SelectStmt, p *planned) error {
	if hasSubLink(sel.LimitCount) || hasSubLink(sel.LimitOffset) {
		return b.dynamicLimit(sel, p)
	}
	var err error
	if sel.LimitCount != nil {
		if p.limit, err = b.constInt(sel.LimitCount, "LIMIT", -1); err != nil {
			return err
		}
	}
	if sel.LimitOffset != nil {
		if p.offset, err = b.constInt(sel.LimitOffset, "OFFSET", 0); err != nil {
			return err
		}
	}
	if sel.LimitOption == pg_query.LimitOption_LIMIT_OPTION_WITH_TIES && p.limit > 0 {
		return b.withTies(p)
	}
	if p.limit >= 0 && p.limit <= 1 {
		p.atMostOne = true
	}
	return nil
}

// constInt evaluates a constant bigint expression (LIMIT/OFFSET); NULL
// yields ifNull.
func (b *builder) constInt(n *pg_query.Node, clause string, ifNull int64) (int64, error) {
	ec := &ectx{b: b, sc: &scope{}, rel: unitRel(), clause: clause, noSubquery: true}
	e, err := ec.expr(n)
	if err != nil {
		return 0, err
	}
	t := e.Type()
	if t.Family != repr.FamInt && t.Family != repr.FamUnknown && t.Family != repr.FamNumeric && t.Family != repr.FamFloat {
		return 0, repr.Errorf(repr.CodeDatatypeMismatch, "argument of %s must be type bigint, not type %s", clause, t.Name()).WithPosition(location(n) + 1)
	}
	if e, err = b.coerce(e, repr.Int8); err != nil {
		return 0, err
	}
	d, err := e.Eval(&expr.Ctx{}, nil)
	if err != nil {
		return 0, err
	}
	if d.IsNull() {
		return ifNull, nil
	}
	if d.Int() < 0 {
		code := map[string]string{"LIMIT": "2201W", "OFFSET": "2201X"}[clause]
		return 0, repr.Errorf(code, "%s must not be negative", clause)
	}
	return d.Int(), nil
}

// leftmostLocation is the location PostgreSQL's exprLocation gives an
// expression: an operator's is its leftmost operand's, when earlier.
func leftmostLocation(n *pg_query.Node) int32 {
	switch {
	case n.GetAExpr() != nil:
		a := n.GetAExpr()
		if a.Lexpr != nil {
			if l := leftmostLocation(a.Lexpr); l >= 0 && l < a.Location {
				return l
			}
		}
		return a.Location
	case n.GetCoalesceExpr() != nil:
		return n.GetCoalesceExpr().Location
	case n.GetMinMaxExpr() != nil:
		return n.GetMinMaxExpr().Location
	case n.GetTypeCast() != nil:
		tc := n.GetTypeCast()
		if l := leftmostLocation(tc.Arg); l >= 0 && l < tc.Location {
			return l
		}
		return tc.Location
	}
	return location(n)
}
