package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// LATERAL derived tables are decorrelated like subqueries in expressions
// (subquery.go): the subquery is planned once to find which columns of the
// FROM items before it (left) it reads; the distinct values of those
// columns drive a second planning whose result is keyed by them; that
// result is joined back to left on a NULL-safe equality of the values
// (an inner join, or a left join for LEFT JOIN LATERAL). Uncorrelated, it
// is an ordinary join with left.

// lateral plans `left, LATERAL (sel) alias` or `left [LEFT] JOIN LATERAL
// (sel) alias ON on | USING (...)` (j nil for a comma or CROSS JOIN): it
// returns the joined relation and the scope columns of left followed by
// the subquery's (after USING's merged columns, using.go, and after the
// outer values left leads with in a decorrelated subquery).
func (b *builder) lateral(rs *pg_query.RangeSubselect, kind ir.JoinKind, left ir.Rel, lcols []scopeCol, parent *scope, j *pg_query.JoinExpr) (ir.Rel, []scopeCol, error) {
	on := j.GetQuals()
	sel := rs.Subquery.GetSelectStmt()
	if sel == nil {
		return nil, nil, repr.Unsupported("FROM item %s", nodeName(rs.Subquery))
	}
	if kind != ir.JoinInner && kind != ir.JoinLeft && kind != ir.JoinCross {
		return nil, nil, repr.Errorf("42P10", "invalid reference to FROM-clause entry in a %s JOIN LATERAL", kind)
	}
	ec := &ectx{b: b, sc: &scope{cols: lcols, parent: parent}, rel: left, clause: "FROM"}
	b.scopeOwner[ec.sc] = nil // an aggregate of its level would be in FROM (outerLevel)
	var p *planned
	var keys []int
	var err error
	if plan, ok := b.fnItems[rs]; ok {
		p, keys, err = plan(ec) // a SQL function's call (sqlfunc_bind.go)
	} else {
		p, keys, err = ec.correlate(sel, nil)
	}
	if err != nil {
		return nil, nil, err
	}
	alias := ""
	var colAliases []*pg_query.Node
	if rs.Alias != nil {
		alias, colAliases = rs.Alias.Aliasname, rs.Alias.Colnames
	}
	rcols := make([]scopeCol, len(p.cols))
	for i, c := range p.cols {
		rcols[i] = scopeCol{table: alias, name: c.Name, typ: c.Type, tableID: c.TableID, attr: c.ColumnAttr, fields: c.Fields}
	}
	if err := renameColumns(rcols, colAliases, alias); err != nil {
		return nil, nil, err
	}
	if err := checkDuplicateAliases(lcols, rcols); err != nil {
		return nil, nil, err
	}
	var names []string
	var li, ri []int
	if j.GetIsNatural() || len(j.GetUsingClause()) > 0 {
		if names, li, ri, err = b.usingPairs(j, lcols, rcols); err != nil {
			return nil, nil, err
		}
	}
	res, extra := b.keepOrder(rs, p, alias)
	rcols = append(rcols, extra...)
	if kind == ir.JoinLeft {
		_, _, res, rcols = b.markSides(kind, nil, nil, res, rcols)
	}
	k, nl := len(keys), ir.Arity(ec.rel)
	conds := b.nullSafeKeys(ec.rel, res, keys, identityCols(k))
	// The joined row is left (with the columns a SQL function's call
	// appended to it, sqlfunc_bind.go), the k key columns, then the
	// subquery's.
	proj := identityCols(ir.Arity(left))
	for i := range rcols {
		proj = append(proj, nl+k+i)
	}
	cols := append(append([]scopeCol(nil), lcols...), rcols...)
	wide := make([]scopeCol, 0, nl+k+len(rcols))
	wide = append(append(wide, lcols...), make([]scopeCol, nl-len(lcols)+k)...)
	wide = append(wide, rcols...)
	rts, lts := res.ColTypes(), ec.rel.ColTypes()
	for i := len(lcols); i < nl; i++ {
		wide[i] = scopeCol{hidden: true, typ: lts[i]}
	}
	for i := nl; i < nl+k; i++ {
		wide[i] = scopeCol{hidden: true, typ: rts[i-nl]}
	}
	if names != nil {
		eqs, _, err := b.usingExprs(kind, j, ir.NewJoin(kind, ec.rel, res), wide, li, shifted(ri, nl+k))
		if err != nil {
			return nil, nil, err
		}
		conds = append(conds, eqs...)
	}
	if on != nil {
		oc := &ectx{b: b, sc: &scope{cols: wide, parent: parent}, rel: ir.NewJoin(kind, ec.rel, res), clause: "JOIN/ON", noSubquery: true}
		pred, err := oc.predicate(on)
		if err != nil {
			return nil, nil, err
		}
		conds = append(conds, pred)
	}
	if kind == ir.JoinCross {
		kind = ir.JoinInner
	}
	var joined ir.Rel = ir.NewJoin(kind, ec.rel, res, conds...)
	if len(conds) == 0 {
		joined = ir.NewJoin(ir.JoinCross, ec.rel, res)
	}
	rel := ir.NewProject(joined, proj...)
	if names == nil {
		return rel, cols, nil
	}
	keep := 0 // the outer values left leads with (joinouter.go)
	for keep < len(lcols) && lcols[keep].outer {
		keep++
	}
	ri = shifted(ri, len(lcols))
	_, merged, err := b.usingExprs(kind, j, rel, cols, li, ri)
	if err != nil {
		return nil, nil, err
	}
	rel, cols = usingOutput(kind, rel, cols, keep, len(lcols), names, merged, li, ri)
	return rel, cols, nil
}

// lateralRight returns the LATERAL derived table of a join's right side.
func lateralRight(j *pg_query.JoinExpr) *pg_query.RangeSubselect {
	if rs := j.Rarg.GetRangeSubselect(); rs != nil && rs.Lateral {
		return rs
	}
	return nil
}
