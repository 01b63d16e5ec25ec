package planner

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// outerRel carries a decorrelated subquery's outer values: the distinct
// values (rel) of the outer columns it references, visible by their names.
type outerRel struct {
	rel  ir.Rel
	cols []scopeCol // all marked outer
}

// planFrom plans the FROM clause: the items cross-joined left to right,
// after the outer values when the query is a decorrelated subquery. With no
// items the relation is the outer values or a single empty row.
func (b *builder) planFrom(items []*pg_query.Node, parent *scope, outer *outerRel) (ir.Rel, *scope, error) {
	sc := &scope{parent: parent}
	mark := b.sessionMark()
	var rel ir.Rel
	if outer != nil {
		rel, sc.outerRel = outer.rel, outer.rel
		sc.cols = append(sc.cols, outer.cols...)
	}
	prevStart := len(sc.cols)
	// addLateral joins a LATERAL item's columns (cols past lcols, the
	// columns it saw) to the FROM list's, once their aliases check.
	addLateral := func(lcols []scopeCol, r ir.Rel, cols []scopeCol, err error) error {
		if err == nil {
			err = checkDuplicateAliases(sc.cols, cols[len(lcols):])
		}
		if err == nil {
			rel, sc.cols = r, append(sc.cols[:len(lcols):len(lcols)], cols[len(lcols):]...)
		}
		return err
	}
	for _, item := range items {
		b.naturalPrev = [2]int{prevStart, len(sc.cols)}
		prevStart = len(sc.cols)
		item = b.inlineCTE(item)
		// A derived table may read the enclosing queries' columns: with
		// outer values it is planned as LATERAL over them, seeing its
		// siblings only when it is LATERAL (see firstSubselect).
		if rs := item.GetRangeSubselect(); rs != nil && rel != nil && (rs.Lateral || outer != nil) {
			lcols := sc.cols
			if !rs.Lateral {
				lcols = outerOnly(sc.cols)
			}
			r, cols, err := b.lateral(rs, ir.JoinCross, rel, lcols, parent, nil)
			if err := addLateral(lcols, r, cols, err); err != nil {
				return nil, nil, err
			}
			continue
		}
		if rf := item.GetRangeFunction(); rf != nil && b.callsSQLFunction(rf) {
			r, cols, err := b.sqlFunctionFrom(rf, ir.JoinCross, rel, sc.cols, parent, nil)
			if err := addLateral(sc.cols, r, cols, err); err != nil {
				return nil, nil, err
			}
			continue
		}
		if rf := item.GetRangeFunction(); rf != nil && isTableFunc(rf) && !b.callsSQLFunction(rf) {
			r, cols, err := b.tableFuncItem(rf, rel, sc.cols, parent, ir.JoinCross, nil)
			if err != nil {
				return nil, nil, err
			}
			rel, sc.cols = r, cols
			continue
		}
		if j := item.GetJoinExpr(); j != nil && outer != nil && b.readsOuter[j] {
			r, cols, _, err := b.joinOver(item, parent, outer, true)
			if err == nil {
				err = checkDuplicateAliases(sc.cols, cols[len(outer.cols):])
			}
			if err != nil {
				return nil, nil, err
			}
			rel, sc.cols = b.joinOnOuter(rel, r, len(outer.cols), outer.rel), append(sc.cols, cols[len(outer.cols):]...)
			continue
		}
		r, cols, err := b.listItem(item, parent)
		if err != nil {
			return nil, nil, err
		}
		if err := checkDuplicateAliases(sc.cols, cols); err != nil {
			return nil, nil, err
		}
		if outer != nil && rel == outer.rel && hasLoopKeys(cols, outer.rel) {
			// The loop variable of a recursion over the outer values: its
			// rows are the outer values' (see loopKeys).
			r, cols = leadLoopKeys(r, cols)
			rel, sc.cols = r, append(sc.cols, cols[len(outer.cols):]...)
			continue
		}
		if rel == nil {
			rel = r
		} else {
			rel = ir.NewJoin(ir.JoinCross, rel, r)
		}
		sc.cols = append(sc.cols, cols...)
	}
	if rel == nil {
		rel = unitRel()
	}
	rel, cols, err := b.loopKeys(rel, sc.cols, outer)
	if err != nil {
		return nil, nil, err
	}
	sc.cols = cols
	return rel, sc, b.claimSession(sc, rel, len(items), outer, mark)
}

// hasLoopKeys reports whether cols hold a loopKey column, and only of
// outer values d when d is not nil.
func hasLoopKeys(cols []scopeCol, d ir.Rel) bool {
	has := false
	for _, c := range cols {
		if c.loopKey != nil {
			if d != nil && c.loopKey != d {
				return false
			}
			has = true
		}
	}
	return has
}

// leadLoopKeys moves the loopKey columns of rel (all of them, in order)
// to the front, as outer values.
func leadLoopKeys(rel ir.Rel, cols []scopeCol) (ir.Rel, []scopeCol) {
	var keys, rest []int
	for i, c := range cols {
		if c.loopKey != nil {
			keys = append(keys, i)
		} else {
			rest = append(rest, i)
		}
	}
	out := make([]scopeCol, 0, len(cols))
	for _, k := range keys {
		out = append(out, scopeCol{typ: cols[k].typ, outer: true, hidden: true})
	}
	for _, i := range rest {
		out = append(out, cols[i])
	}
	return ir.NewProject(rel, append(keys, rest...)...), out
}

// loopKeys equates the copies of the outer values in a FROM clause (the
// loopKey columns of a reference to a recursion over the outer values,
// cte.nOuter) with the outer values rel leads with, NULL-safely, and drops
// them: rows of a recursion meet only their own outer value's rows. The
// reference needs outer values of the same arity: in a subquery of the
// recursive term planned without them it is 0A000.
func (b *builder) loopKeys(rel ir.Rel, cols []scopeCol, outer *outerRel) (ir.Rel, []scopeCol, error) {
	if !hasLoopKeys(cols, nil) {
		return rel, cols, nil
	}
	var keys, keep []int
	var kept []scopeCol
	for i, c := range cols {
		if c.loopKey != nil {
			keys = append(keys, i)
			continue
		}
		keep, kept = append(keep, i), append(kept, c)
	}
	if outer == nil || !hasLoopKeys(cols, outer.rel) || len(keys) != len(outer.cols) {
		return nil, nil, repr.Unsupported("a reference to a recursive WITH query that reads the enclosing query's columns inside a subquery of its recursive term")
	}
	var conds []expr.Expr
	ts := rel.ColTypes()
	for i, k := range keys {
		conds = append(conds, b.nullSafeEq(&expr.Col{Idx: i, T: ts[i]}, &expr.Col{Idx: k, T: ts[k]})...)
	}
	return ir.NewProject(ir.NewFilter(rel, conds...), keep...), kept, nil
}

// joinOnOuter joins rel, whose first nO columns are the outer values d,
// to item, which leads with them too (joinOver), on those columns,
// dropping item's copy; item alone when rel is d itself.
func (b *builder) joinOnOuter(rel, item ir.Rel, nO int, d ir.Rel) ir.Rel {
	if rel == d {
		return item
	}
	n, m := ir.Arity(rel), ir.Arity(item)
	on := b.nullSafeKeys(rel, item, identityCols(nO), identityCols(nO))
	keep := identityCols(n)
	for i := n + nO; i < n+m; i++ {
		keep = append(keep, i)
	}
	return ir.NewProject(ir.NewJoin(ir.JoinInner, rel, item, on...), keep...)
}

// listItem plans one item of a FROM list with no outer values yet. A
// derived table may reference the enclosing queries' columns (see
// firstSubselect); other items are fromItem's.
func (b *builder) listItem(item *pg_query.Node, parent *scope) (ir.Rel, []scopeCol, error) {
	if rs := item.GetRangeSubselect(); rs != nil && parent != nil {
		return b.firstSubselect(rs, parent)
	}
	return b.fromItem(item, parent)
}

// outerOnly returns cols with every column but the outer values masked:
// a non-LATERAL derived table planned over the outer values must not see
// its siblings, as in PostgreSQL, yet its column indexes must stay those
// of the relation it is joined to (hidden, unqualified columns answer no
// name).
func outerOnly(cols []scopeCol) []scopeCol {
	out := make([]scopeCol, len(cols))
	for i, c := range cols {
		if c.outer {
			out[i] = c
			continue
		}
		out[i] = scopeCol{hidden: true, typ: c.typ}
	}
	return out
}

// checkDuplicateAliases rejects a table alias used twice at one level
// (42712); as in PostgreSQL, two relations named without aliases do not
// clash when their schemas differ.
func checkDuplicateAliases(have, add []scopeCol) error {
	seen := map[string][]string{} // table -> schemas ("" aliased)
	for _, c := range have {
		if !c.outer && c.table != "" && !slices.Contains(seen[c.table], c.schema) {
			seen[c.table] = append(seen[c.table], c.schema)
		}
	}
	done := map[string]bool{}
	for _, c := range add {
		if c.table == "" || done[c.table] {
			continue
		}
		done[c.table] = true
		for _, s := range seen[c.table] {
			if s == "" || c.schema == "" || s == c.schema {
				return repr.Errorf("42712", "table name %q specified more than once", c.table)
			}
		}
	}
	return nil
}

// fromItem plans one FROM item, returning its relation and named columns.
func (b *builder) fromItem(n *pg_query.Node, parent *scope) (ir.Rel, []scopeCol, error) {
	n = b.inlineCTE(n)
	switch {
	case n.GetRangeVar() != nil:
		return b.rangeVar(n.GetRangeVar())
	case n.GetRangeSubselect() != nil:
		return b.rangeSubselect(n.GetRangeSubselect(), parent)
	case n.GetJoinExpr() != nil:
		var rel ir.Rel
		var cols []scopeCol
		err := b.noteOuterReads(n.GetJoinExpr(), parent, func() (err error) {
			rel, cols, err = b.joinExpr(n.GetJoinExpr(), parent)
			return err
		})
		return rel, cols, err
	case n.GetRangeFunction() != nil && isTableFunc(n.GetRangeFunction()):
		if b.callsSQLFunction(n.GetRangeFunction()) {
			return b.sqlFunctionFrom(n.GetRangeFunction(), ir.JoinCross, nil, nil, parent, nil)
		}
		var rel ir.Rel
		var cols []scopeCol
		err := b.noteOuterReads(n.GetRangeFunction(), parent, func() (err error) {
			rel, cols, err = b.tableFuncItem(n.GetRangeFunction(), nil, nil, parent, ir.JoinCross, nil)
			return err
		})
		return rel, cols, err
	case n.GetRangeFunction() != nil:
		return b.windowTVF(n.GetRangeFunction())
	}
	return nil, nil, repr.Unsupported("FROM item %s", nodeName(n))
}

// rangeVar plans a CTE, table, materialized view or (inlined) view
// reference; an unqualified name finds a CTE in scope first.
func (b *builder) rangeVar(rv *pg_query.RangeVar) (ir.Rel, []scopeCol, error) {
	if c := b.lookupCTE(rv.Relname); c != nil && rv.Schemaname == "" {
		return b.cteRef(c, rv)
	}
	rel, err := b.cat.Relation(rv.Schemaname, rv.Relname)
	if err != nil {
		return nil, nil, withPos(err, rv.Location)
	}
	alias := rel.Name
	var colAliases []*pg_query.Node
	if rv.Alias != nil {
		alias, colAliases = rv.Alias.Aliasname, rv.Alias.Colnames
	}
	var r ir.Rel
	cols := make([]scopeCol, len(rel.Columns))
	if rel.Kind == RelView {
		if r, err = b.inlineView(rel); err != nil {
			return nil, nil, err
		}
	}
	ts := make([]repr.T, len(rel.Columns))
	notNull := make([]bool, len(rel.Columns))
	for i, c := range rel.Columns {
		ts[i], notNull[i] = c.Type, c.NotNull
		cols[i] = scopeCol{table: alias, name: c.Name, typ: c.Type, system: c.System}
		if len(colAliases) == 0 {
			cols[i].rowType = rel.RowType
		}
		if rv.Alias == nil {
			cols[i].schema = rel.Schema
		}
		if rel.Kind != RelView && !c.System {
			cols[i].tableID, cols[i].attr = rel.ID, int16(i+1)
		}
	}
	if r == nil {
		r = &ir.Get{ID: rel.ID, Name: rel.Name, Types: ts, HasEventTime: rel.HasEventTime, EventTimeCol: rel.EventTimeCol,
			AppendOnly: rel.AppendOnly, DeletionsChecked: rel.DeletionsChecked, Key: rel.PrimaryKey, Rows: rel.Rows, NotNull: notNull}
	}
	return r, cols, renameColumns(cols, colAliases, alias)
}

// renameColumns applies an alias's column list (t(a, b)).
func renameColumns(cols []scopeCol, aliases []*pg_query.Node, table string) error {
	if len(aliases) > len(cols) {
		return repr.Errorf("42P10", "table %q has %d columns available but %d columns specified", table, len(cols), len(aliases))
	}
	for i, a := range aliases {
		cols[i].name = a.GetString_().GetSval()
	}
	return nil
}

// inlineView plans a view's definition in a fresh scope.
func (b *builder) inlineView(rel *Relation) (ir.Rel, error) {
	if b.views > 32 {
		return nil, repr.Errorf("42P17", "infinite recursion detected in view %q", rel.Name)
	}
	sel := rel.View.GetSelectStmt()
	if sel == nil {
		return nil, repr.Unsupported("view %q definition", rel.Name)
	}
	b.views++
	ctes := b.ctes
	b.ctes = nil // a view's definition does not see the referencing query's CTEs
	defer func() { b.views--; b.ctes = ctes }()
	p, err := b.planQuery(sel, nil, nil)
	if err != nil {
		return nil, err
	}
	r := b.subqueryRel(p)
	if ir.Arity(r) != len(rel.Columns) {
		return nil, repr.Errorf(repr.CodeInternal, "view %q: definition has %d columns, catalog %d", rel.Name, ir.Arity(r), len(rel.Columns))
	}
	return r, nil
}

// rangeSubselect plans a derived table (of a JOIN). It may not reference
// its siblings (a LATERAL one is planned by lateral), but, in a subquery,
// it may read the enclosing queries' columns, which the first pass of
// decorrelation notes (joinOver plans it over the outer values).
func (b *builder) rangeSubselect(rs *pg_query.RangeSubselect, parent *scope) (ir.Rel, []scopeCol, error) {
	if parent == nil {
		return b.subselectIn(rs, &scope{})
	}
	var rel ir.Rel
	var cols []scopeCol
	err := b.noteOuterReads(rs, parent, func() (err error) {
		rel, cols, err = b.subselectIn(rs, &scope{parent: parent})
		return err
	})
	return rel, cols, err
}

// firstSubselect plans a derived table of a subquery's FROM list, with no
// outer values yet: as in PostgreSQL it may reference the enclosing
// queries' columns (but not its siblings), which decorrelation records;
// re-planned over the outer values, planFrom plans it as LATERAL over them
// with the siblings masked (outerOnly).
// (ARRAY(SELECT generate_series(1, t.n)) becomes such a derived table.)
func (b *builder) firstSubselect(rs *pg_query.RangeSubselect, parent *scope) (ir.Rel, []scopeCol, error) {
	return b.subselectIn(rs, &scope{parent: parent})
}

// subselectIn plans a derived table whose query's FROM scope has parent sc.
func (b *builder) subselectIn(rs *pg_query.RangeSubselect, sc *scope) (ir.Rel, []scopeCol, error) {
	sel := rs.Subquery.GetSelectStmt()
	if sel == nil {
		return nil, nil, repr.Unsupported("FROM item %s", nodeName(rs.Subquery))
	}
	p, err := b.planQuery(sel, sc, nil)
	if err != nil {
		return nil, nil, err
	}
	alias := ""
	var colAliases []*pg_query.Node
	if rs.Alias != nil {
		alias, colAliases = rs.Alias.Aliasname, rs.Alias.Colnames
	}
	cols := make([]scopeCol, len(p.cols))
	for i, c := range p.cols {
		cols[i] = scopeCol{table: alias, name: c.Name, typ: c.Type, tableID: c.TableID, attr: c.ColumnAttr, fields: c.Fields,
			system: b.isTag(c.Name)}
	}
	if err := renameColumns(cols, colAliases, alias); err != nil {
		return nil, nil, err
	}
	rel, extra := b.keepOrder(rs, p, alias)
	return rel, append(cols, extra...), nil
}

// joinExpr plans [NATURAL] {INNER|LEFT|RIGHT|FULL|CROSS} JOIN with ON or USING.
func (b *builder) joinExpr(j *pg_query.JoinExpr, parent *scope) (ir.Rel, []scopeCol, error) {
	kind, ok := map[pg_query.JoinType]ir.JoinKind{
		pg_query.JoinType_JOIN_INNER: ir.JoinInner, pg_query.JoinType_JOIN_LEFT: ir.JoinLeft,
		pg_query.JoinType_JOIN_RIGHT: ir.JoinRight, pg_query.JoinType_JOIN_FULL: ir.JoinFull,
	}[j.Jointype]
	if !ok {
		return nil, nil, repr.Unsupported("join type %s", j.Jointype)
	}
	left, lcols, err := b.fromItem(j.Larg, parent)
	if err != nil {
		return nil, nil, err
	}
	if rs := lateralRight(j); rs != nil {
		if j.Jointype == pg_query.JoinType_JOIN_INNER && j.Quals == nil {
			kind = ir.JoinCross
		}
		rel, cols, err := b.lateral(rs, kind, left, lcols, parent, j)
		if err == nil {
			err = aliasJoin(j, cols)
		}
		return rel, cols, err
	}
	if rf := j.Rarg.GetRangeFunction(); rf != nil && b.callsSQLFunction(rf) {
		if j.Jointype == pg_query.JoinType_JOIN_INNER && j.Quals == nil {
			kind = ir.JoinCross
		}
		rel, cols, err := b.sqlFunctionFrom(rf, kind, left, lcols, parent, j)
		if err == nil {
			err = aliasJoin(j, cols)
		}
		return rel, cols, err
	}
	if rf := j.Rarg.GetRangeFunction(); rf != nil && isTableFunc(rf) && !j.IsNatural && len(j.UsingClause) == 0 &&
		(kind == ir.JoinInner || kind == ir.JoinLeft) {
		if kind == ir.JoinInner && j.Quals == nil {
			kind = ir.JoinCross
		}
		b.naturalPrev = [2]int{0, len(lcols)}
		rel, cols, err := b.tableFuncItem(rf, left, lcols, parent, kind, j.Quals)
		if err == nil {
			err = aliasJoin(j, cols)
		}
		return rel, cols, err
	}
	right, rcols, err := b.fromItem(j.Rarg, parent)
	if err != nil {
		return nil, nil, err
	}
	if err := checkDuplicateAliases(lcols, rcols); err != nil {
		return nil, nil, err
	}
	left, lcols, right, rcols = b.markSides(kind, left, lcols, right, rcols)
	var rel ir.Rel
	var cols []scopeCol
	switch {
	case j.IsNatural || len(j.UsingClause) > 0:
		if rel, cols, err = b.usingJoin(kind, j, left, right, lcols, rcols); err == nil {
			err = usingAlias(j, cols, lcols, rcols)
		}
	case j.Quals == nil:
		rel, cols = ir.NewJoin(ir.JoinCross, left, right), append(lcols, rcols...)
	default:
		err = b.noteOuterReads(j.Quals, parent, func() (err error) {
			if !hasSubLink(j.Quals) || kind != ir.JoinInner && len(subLinks(j.Quals)) == len(scalarSubLinks(j.Quals)) {
				// No subqueries, or uncorrelated scalar ones (onsubquery.go).
				if rel, cols, err = b.onJoin(kind, j.Quals, left, right, lcols, rcols, parent); err != errCorrelatedOn {
					return err
				}
			}
			cols = append(append([]scopeCol(nil), lcols...), rcols...)
			rel, err = b.filterJoin(kind, left, right, nil, cols, parent, j.Quals)
			return err
		})
	}
	if err != nil {
		return nil, nil, err
	}
	return rel, cols, aliasJoin(j, cols)
}

// usingAlias applies JOIN ... USING (cols) AS x (PostgreSQL 14's
// join_using_alias) to the join's columns, whose merged ones lead: x
// qualifies those only (x.* expands to them). x may not name a table of
// either side (42712).
func usingAlias(j *pg_query.JoinExpr, cols, lcols, rcols []scopeCol) error {
	a := j.GetJoinUsingAlias()
	if a == nil {
		return nil
	}
	if err := checkDuplicateAliases(append(slices.Clone(lcols), rcols...), []scopeCol{{table: a.Aliasname}}); err != nil {
		return err
	}
	for i := range j.UsingClause {
		cols[i].table, cols[i].schema, cols[i].seq = a.Aliasname, "", 0
	}
	return nil
}

// aliasJoin applies a JOIN's alias (j AS x(a, b)) to its columns: the
// visible ones are x's (renamed by the list); as in PostgreSQL the alias
// hides the names inside the join, so the hidden ones (USING's merged
// pairs) are no longer reachable, by x.* or x.name either.
func aliasJoin(j *pg_query.JoinExpr, cols []scopeCol) error {
	if j.Alias == nil {
		return nil
	}
	for i := range cols {
		switch c := &cols[i]; {
		case c.outer:
		case c.hidden:
			c.table, c.schema = "", ""
		default:
			c.table, c.seq, c.joinAlias = j.Alias.Aliasname, 0, true
		}
	}
	return renameColumns(cols, j.Alias.Colnames, j.Alias.Aliasname)
}

// filterJoin plans left JOIN right ON on AND quals, where quals has
// subqueries: the matching pairs are a filter over the pairs (cols) like
// WHERE, whose subqueries decorrelate, correlated or not, as WHERE's do
// (select.go filter). A LEFT or RIGHT join adds the rows of its preserved
// side that match nothing (unmatched), a FULL join those of both sides.
func (b *builder) filterJoin(kind ir.JoinKind, left, right ir.Rel, on []expr.Expr, cols []scopeCol, parent *scope, quals *pg_query.Node) (ir.Rel, error) {
	var pairs ir.Rel = ir.NewJoin(ir.JoinCross, left, right)
	if len(on) > 0 {
		pairs = ir.NewJoin(ir.JoinInner, left, right, on...)
	}
	matched, err := b.filter(pairs, &scope{cols: cols, parent: parent}, quals, "JOIN/ON")
	if err != nil || kind == ir.JoinInner {
		return matched, err
	}
	nl, nr := ir.Arity(left), ir.Arity(right)
	out := matched
	if kind == ir.JoinLeft || kind == ir.JoinFull {
		u, err := b.unmatched(left, matched, identityCols(nl), nr, false)
		if err != nil {
			return nil, err
		}
		out = ir.NewUnion(out, u)
	}
	if kind == ir.JoinRight || kind == ir.JoinFull {
		rc := make([]int, nr)
		for i := range rc {
			rc[i] = nl + i
		}
		u, err := b.unmatched(right, matched, rc, nl, true)
		if err != nil {
			return nil, err
		}
		out = ir.NewUnion(out, u)
	}
	return out, nil
}

// unmatched returns the rows of side whose values are no matched pair's
// columns cols, padded with pad NULL columns (before the side's columns
// when padFirst), as an outer join emits them. A row's match depends
// only on its values, so its copies all match or all do not. State: the
// distinct matched values of the side and the join's arrangements.
func (b *builder) unmatched(side, matched ir.Rel, cols []int, pad int, padFirst bool) (ir.Rel, error) {
	ts := side.ColTypes()
	n := len(ts)
	lone, err := b.loneRows(side, matched, cols)
	if err != nil {
		return nil, err
	}
	mts := matched.ColTypes()
	var exprs []expr.Expr
	nulls := func(from int) {
		for i := range pad {
			exprs = append(exprs, &expr.Lit{D: repr.Null, T: mts[from+i]})
		}
	}
	if padFirst {
		nulls(0)
	}
	for i := range n {
		exprs = append(exprs, &expr.Col{Idx: i, T: ts[i]})
	}
	if !padFirst {
		nulls(n)
	}
	return projectExprs(lone, 0, exprs), nil
}

// loneRows returns the rows of side (all its columns) whose values are
// no matched pair's columns cols, comparing them by matchKeys.
func (b *builder) loneRows(side, matched ir.Rel, cols []int) (ir.Rel, error) {
	ts := side.ColTypes()
	keys, err := b.matchKeys(ts)
	if err != nil {
		return nil, err
	}
	n := len(ts)
	if keys == nil {
		seen := ir.NewMap(ir.NewDistinct(ir.NewProject(matched, cols...)), boolLit(true))
		joined := ir.NewJoin(ir.JoinLeft, side, seen, b.nullSafeKeys(side, seen, identityCols(n), identityCols(n))...)
		return ir.NewFilter(joined, &expr.IsNull{Arg: &expr.Col{Idx: 2 * n, T: repr.Bool}}), nil
	}
	keyed := ir.NewMap(side, keys...)
	seen := ir.NewMap(ir.NewDistinct(ir.NewProject(ir.NewMap(ir.NewProject(matched, cols...), keys...), keyCols(n, n)...)), boolLit(true))
	joined := ir.NewJoin(ir.JoinLeft, keyed, seen, b.nullSafeKeys(keyed, seen, keyCols(n, n), identityCols(n))...)
	lone := ir.NewFilter(joined, &expr.IsNull{Arg: &expr.Col{Idx: 3 * n, T: repr.Bool}})
	return ir.NewProject(lone, identityCols(n)...), nil
}

// matchKeys returns the values unmatched compares a side's rows (of
// types ts) by: each column, or its text when its type has no equality
// (json: its text is the value as written, so equal texts are equal
// values), or PostgreSQL's 0A000 when it has no text form either. It
// returns nil when every column has an equality (the columns themselves).
func (b *builder) matchKeys(ts []repr.T) ([]expr.Expr, error) {
	keys := make([]expr.Expr, len(ts))
	cast := false
	for i, t := range ts {
		keys[i] = &expr.Col{Idx: i, T: t}
		if _, _, err := expr.ResolveOp("=", []repr.T{t, t}); err == nil {
			continue
		}
		cast = true
		var err error
		if keys[i], err = b.explicitCast(keys[i], repr.Text, -1); err != nil {
			return nil, repr.Unsupported("an outer join with subqueries in ON over a column of type %s", t.Name())
		}
	}
	if !cast {
		return nil, nil
	}
	return keys, nil
}

// keyCols are the k columns after the first n (the keys Map appended).
func keyCols(n, k int) []int {
	out := make([]int, k)
	for i := range out {
		out[i] = n + i
	}
	return out
}

// onJoin plans JOIN ... ON quals. The scalar subqueries of quals become
// columns of the left input (onsubquery.go), dropped after the join.
func (b *builder) onJoin(kind ir.JoinKind, quals *pg_query.Node, left, right ir.Rel, lcols, rcols []scopeCol, parent *scope) (ir.Rel, []scopeCol, error) {
	nl, nr := ir.Arity(left), ir.Arity(right)
	wide, subs, err := b.onSubqueries(quals, left)
	if err != nil {
		return nil, nil, err
	}
	extra := ir.Arity(wide) - nl
	scols := append([]scopeCol(nil), lcols...)
	for _, t := range wide.ColTypes()[nl:] {
		scols = append(scols, scopeCol{typ: t, hidden: true})
	}
	scols = append(scols, rcols...)
	ec := &ectx{b: b, sc: &scope{cols: scols, parent: parent}, rel: ir.NewJoin(kind, wide, right),
		clause: "JOIN/ON", noSubquery: true, onSubs: subs}
	on, err := ec.predicate(quals)
	if err != nil {
		return nil, nil, err
	}
	cols := append(append([]scopeCol(nil), lcols...), rcols...)
	rel := ir.NewJoin(kind, wide, right, on)
	if extra > 0 {
		keep := identityCols(nl)
		for i := 0; i < nr; i++ {
			keep = append(keep, nl+extra+i)
		}
		rel = ir.NewProject(rel, keep...)
	}
	return rel, cols, nil
}
