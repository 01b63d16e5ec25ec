package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// JOIN trees reading the enclosing query. In a subquery's FROM list, a
// JOIN's ON condition, or a derived table inside the JOIN, may read the
// enclosing queries' columns (PostgreSQL allows both). Decorrelation's
// first pass marks the parts that do (builder.readsOuter); the second,
// over the outer values D, plans the tree so that every join whose
// result depends on D sees it: a side "carries" D when its rows lead with
// D's columns, one copy of the side per outer value. A derived table
// reading D is LATERAL over D (lateral.go); another item carries D only
// when a join above needs it, as D × item. At each join:
//   - INNER: the left side carries D when the condition reads it and the
//     right does not carry it (the result is per outer value either way);
//   - LEFT: the left side carries D when anything in the join reads it,
//     so that its unmatched rows are kept once per outer value (RIGHT is
//     the mirror image; FULL needs both sides to carry D);
//   - both sides carrying D join on their D columns as well (NULL-safe),
//     so rows of different outer values never meet.
// The condition sees D's columns by name. The tree's result leads with D,
// and planFrom joins it to the other items on D.

// noteOuterReads marks key as reading the enclosing queries when planning
// it (plan) recorded a reference in parent's chain.
func (b *builder) noteOuterReads(key any, parent *scope, plan func() error) error {
	before := recordedHits(parent)
	err := plan()
	if recordedHits(parent) > before {
		b.readsOuter[key] = true
	}
	return err
}

// treeReadsOuter reports whether a FROM item (a JOIN tree) reads the
// enclosing queries anywhere, as the first pass recorded.
func (b *builder) treeReadsOuter(n *pg_query.Node) bool {
	n = b.inlineCTE(n)
	if j := n.GetJoinExpr(); j != nil {
		return b.readsOuter[j]
	}
	if rs := n.GetRangeSubselect(); rs != nil {
		return b.readsOuter[rs]
	}
	if rf := n.GetRangeFunction(); rf != nil {
		return b.readsOuter[rf]
	}
	return false
}

// joinOver plans the FROM item n of a decorrelated subquery over its
// outer values; carry asks that the result carry them (lead with D's
// columns). It reports whether the result carries them.
func (b *builder) joinOver(n *pg_query.Node, parent *scope, outer *outerRel, carry bool) (ir.Rel, []scopeCol, bool, error) {
	n = b.inlineCTE(n)
	if j := n.GetJoinExpr(); j != nil && (carry || b.readsOuter[j]) {
		return b.joinExprOver(j, parent, outer, carry)
	}
	if rs := n.GetRangeSubselect(); rs != nil && b.readsOuter[rs] {
		rel, cols, err := b.lateral(rs, ir.JoinCross, outer.rel, outer.cols, parent, nil)
		return rel, cols, true, err
	}
	if rf := n.GetRangeFunction(); rf != nil && b.readsOuter[rf] {
		rel, cols, err := b.tableFuncItem(rf, outer.rel, outer.cols, parent, ir.JoinCross, nil)
		return rel, cols, true, err
	}
	rel, cols, err := b.fromItem(n, parent)
	if err != nil || !carry {
		return rel, cols, false, err
	}
	return ir.NewJoin(ir.JoinCross, outer.rel, rel), append(append([]scopeCol(nil), outer.cols...), cols...), true, nil
}

// joinExprOver plans one JOIN of a tree reading the outer values.
func (b *builder) joinExprOver(j *pg_query.JoinExpr, parent *scope, outer *outerRel, carry bool) (ir.Rel, []scopeCol, bool, error) {
	kind, ok := map[pg_query.JoinType]ir.JoinKind{
		pg_query.JoinType_JOIN_INNER: ir.JoinInner, pg_query.JoinType_JOIN_LEFT: ir.JoinLeft,
		pg_query.JoinType_JOIN_RIGHT: ir.JoinRight, pg_query.JoinType_JOIN_FULL: ir.JoinFull,
	}[j.Jointype]
	switch {
	case !ok:
		return nil, nil, false, repr.Unsupported("join type %s", j.Jointype)
	case lateralRight(j) != nil || lateralFunc(j, kind) != nil:
		return b.lateralOver(kind, j, parent, outer)
	}
	readL, readR, readOn := b.treeReadsOuter(j.Larg), b.treeReadsOuter(j.Rarg), b.readsOuter[j.Quals]
	var carryL, carryR bool
	switch kind {
	case ir.JoinInner:
		carryL, carryR = readL || (carry || readOn) && !readR, readR
	case ir.JoinLeft:
		carryL, carryR = true, readR
	case ir.JoinRight:
		carryL, carryR = readL, true
	default:
		carryL, carryR = true, true
	}
	left, lcols, hasL, err := b.joinOver(j.Larg, parent, outer, carryL)
	if err != nil {
		return nil, nil, false, err
	}
	right, rcols, hasR, err := b.joinOver(j.Rarg, parent, outer, carryR)
	if err != nil {
		return nil, nil, false, err
	}
	if err := checkDuplicateAliases(lcols, rcols); err != nil {
		return nil, nil, false, err
	}
	left, lcols, right, rcols = b.markSides(kind, left, lcols, right, rcols)
	nO, nl := len(outer.cols), len(lcols)
	var on []expr.Expr
	scols := append(append([]scopeCol(nil), lcols...), rcols...)
	if hasL && hasR {
		on = b.nullSafeKeys(left, right, identityCols(nO), identityCols(nO))
		for i := nl; i < nl+nO; i++ {
			scols[i] = scopeCol{hidden: true, typ: scols[i].typ} // D once, by the left's names
		}
	}
	var rel ir.Rel
	var cols []scopeCol
	if j.IsNatural || len(j.UsingClause) > 0 {
		rel, cols, err = b.usingJoinOver(kind, j, left, right, on, lcols, rcols, hasL, hasR, outer)
	} else if rel, err = b.joinOverRel(kind, left, right, on, scols, parent, j.Quals); err == nil {
		rel, cols = joinOverOutput(rel, kind, lcols, rcols, hasL, hasR, outer)
	}
	if err != nil {
		return nil, nil, false, err
	}
	return rel, cols, true, aliasJoin(j, cols[nO:])
}

// usingJoinOver joins sides that may carry the outer values (on equates
// them when both do) USING (...) or NATURAL: the result leads with the
// outer values, then the merged columns, as usingJoin's.
func (b *builder) usingJoinOver(kind ir.JoinKind, j *pg_query.JoinExpr, left, right ir.Rel, on []expr.Expr, lcols, rcols []scopeCol, hasL, hasR bool, outer *outerRel) (ir.Rel, []scopeCol, error) {
	names, li, ri, err := b.usingPairs(j, lcols, rcols)
	if err != nil {
		return nil, nil, err
	}
	nl := len(lcols)
	all := append(append([]scopeCol(nil), lcols...), rcols...)
	eqs, _, err := b.usingExprs(kind, j, ir.NewJoin(kind, left, right), all, li, shifted(ri, nl))
	if err != nil {
		return nil, nil, err
	}
	rel, cols := joinOverOutput(ir.NewJoin(kind, left, right, append(on, eqs...)...), kind, lcols, rcols, hasL, hasR, outer)
	// joinOverOutput keeps the outer values once, first, then each
	// side's other columns: the pairs' places there.
	nO, fromL, fromR := len(outer.cols), 0, 0
	if hasL {
		fromL = nO
	}
	if hasR {
		fromR = nO
	}
	li, ri = shifted(li, nO-fromL), shifted(ri, nO+nl-fromL-fromR)
	_, merged, err := b.usingExprs(kind, j, rel, cols, li, ri)
	if err != nil {
		return nil, nil, err
	}
	rel, cols = usingOutput(kind, rel, cols, nO, nO+nl-fromL, names, merged, li, ri)
	return rel, cols, nil
}

// lateralFunc returns the right side of j when it is a function in FROM
// that joinExpr plans over the left side (functions are implicitly
// LATERAL), else nil.
func lateralFunc(j *pg_query.JoinExpr, kind ir.JoinKind) *pg_query.RangeFunction {
	rf := j.Rarg.GetRangeFunction()
	if rf == nil || !isTableFunc(rf) || j.IsNatural || len(j.UsingClause) > 0 || kind != ir.JoinInner && kind != ir.JoinLeft {
		return nil
	}
	return rf
}

// lateralOver plans left JOIN LATERAL (sel) ON ..., or left JOIN f(...)
// ON ..., in a tree reading the outer values: the left side carries them,
// so the right side (whose references to the outer values resolve to the
// left's copies) and the condition see them, and the result leads with
// them.
func (b *builder) lateralOver(kind ir.JoinKind, j *pg_query.JoinExpr, parent *scope, outer *outerRel) (ir.Rel, []scopeCol, bool, error) {
	rs := lateralRight(j)
	left, lcols, _, err := b.joinOver(j.Larg, parent, outer, true)
	if err != nil {
		return nil, nil, false, err
	}
	if kind == ir.JoinInner && j.Quals == nil {
		kind = ir.JoinCross
	}
	var rel ir.Rel
	var cols []scopeCol
	if rs != nil {
		rel, cols, err = b.lateral(rs, kind, left, lcols, parent, j)
	} else {
		rel, cols, err = b.tableFuncItem(lateralFunc(j, kind), left, lcols, parent, kind, j.Quals)
	}
	if err != nil {
		return nil, nil, false, err
	}
	return rel, cols, true, aliasJoin(j, cols[len(outer.cols):])
}

// joinOverOutput reorders a join of sides that may carry the outer values
// (at least one does) to lead with them: the left's, the right's when
// only it carries them or for RIGHT JOIN, their COALESCE for FULL JOIN;
// then both sides' other columns.
func joinOverOutput(rel ir.Rel, kind ir.JoinKind, lcols, rcols []scopeCol, hasL, hasR bool, outer *outerRel) (ir.Rel, []scopeCol) {
	nO, nl := len(outer.cols), len(lcols)
	ts := rel.ColTypes()
	dl, dr := -1, -1
	if hasL {
		dl = 0
	}
	if hasR {
		dr = nl
	}
	var exprs []expr.Expr
	for i := range nO {
		switch {
		case dl >= 0 && dr >= 0 && kind == ir.JoinFull:
			exprs = append(exprs, &expr.Coalesce{Args: []expr.Expr{
				&expr.Col{Idx: dl + i, T: ts[dl+i]}, &expr.Col{Idx: dr + i, T: ts[dr+i]}}, T: ts[dl+i]})
		case dr >= 0 && (dl < 0 || kind == ir.JoinRight):
			exprs = append(exprs, &expr.Col{Idx: dr + i, T: ts[dr+i]})
		default:
			exprs = append(exprs, &expr.Col{Idx: dl + i, T: ts[dl+i]})
		}
	}
	cols := append([]scopeCol(nil), outer.cols...)
	add := func(base int, side []scopeCol, has bool) {
		from := 0
		if has {
			from = nO
		}
		for i := from; i < len(side); i++ {
			exprs = append(exprs, &expr.Col{Idx: base + i, T: ts[base+i]})
			cols = append(cols, side[i])
		}
	}
	add(0, lcols, hasL)
	add(nl, rcols, hasR)
	return projectExprs(rel, 0, exprs), cols
}

// joinOverRel joins left and right on the conjuncts on and quals, whose
// names scols resolves (filterJoin when quals has subqueries).
func (b *builder) joinOverRel(kind ir.JoinKind, left, right ir.Rel, on []expr.Expr, scols []scopeCol, parent *scope, quals *pg_query.Node) (ir.Rel, error) {
	pairs := func(on []expr.Expr) ir.Rel {
		if len(on) == 0 {
			return ir.NewJoin(ir.JoinCross, left, right)
		}
		return ir.NewJoin(kind, left, right, on...)
	}
	switch {
	case quals == nil:
		return pairs(on), nil
	case hasSubLink(quals):
		return b.filterJoin(kind, left, right, on, scols, parent, quals)
	}
	ec := &ectx{b: b, sc: &scope{cols: scols, parent: parent}, rel: ir.NewJoin(kind, left, right),
		clause: "JOIN/ON", noSubquery: true}
	pred, err := ec.predicate(quals)
	if err != nil {
		return nil, err
	}
	return pairs(append(on, pred)), nil
}
