package planner

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// planSetOp plans UNION, INTERSECT and EXCEPT (with or without ALL) in the
// multiset algebra: UNION ALL is Union; EXCEPT ALL is Threshold(L - R);
// INTERSECT ALL is L - Threshold(L - R), i.e. min(countL, countR); the set
// forms apply the same to the distinct rows of each side.
//
// In a decorrelated subquery (outer set) both sides are planned over the
// outer values, whose columns lead each side's rows; the set operation
// then compares whole rows, so it applies per outer value.
func (b *builder) planSetOp(sel *pg_query.SelectStmt, parent *scope, outer *outerRel) (*planned, error) {
	l, err := b.planQuery(sel.Larg, parent, outer)
	if err != nil {
		return nil, err
	}
	r, err := b.planQuery(sel.Rarg, parent, outer)
	if err != nil {
		return nil, err
	}
	name := map[pg_query.SetOperation]string{pg_query.SetOperation_SETOP_UNION: "UNION",
		pg_query.SetOperation_SETOP_INTERSECT: "INTERSECT", pg_query.SetOperation_SETOP_EXCEPT: "EXCEPT"}[sel.Op]
	if len(l.cols) != len(r.cols) {
		return nil, repr.Errorf(repr.CodeSyntax, "each %s query must have the same number of columns", name)
	}
	lr, rr, cols, err := b.unifySides(b.subqueryRel(l), b.subqueryRel(r), l.nOuter,
		untypedCols(sel.Larg, l.cols), untypedCols(sel.Rarg, r.cols), name)
	if err != nil {
		return nil, err
	}
	if !sel.All {
		if err := noEquality(b, lr.ColTypes()[l.nOuter:], -1); err != nil {
			return nil, err
		}
		b.noteGrouping(lr.ColTypes()[l.nOuter:])
	}
	var rel ir.Rel
	switch {
	case sel.Op == pg_query.SetOperation_SETOP_UNION:
		rel = ir.NewUnion(lr, rr)
		if !sel.All {
			rel = ir.NewDistinct(rel)
		}
	case slices.ContainsFunc(lr.ColTypes(), expr.NeedsBpcharKey):
		rel = b.trimmedSetOp(sel.Op, sel.All, lr, rr)
	default:
		rel = setOpAlgebra(sel.Op, sel.All, lr, rr)
	}
	p := &planned{rel: rel, cols: cols, nOuter: l.nOuter, limit: -1}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	if p.order, _, err = b.orderBy(sel.SortClause, names, typedCols(p.cols), nil, p.nOuter); err != nil {
		return nil, err
	}
	return p, b.limit(sel, p)
}

// setOpAlgebra is INTERSECT or EXCEPT of lr and rr: with all, EXCEPT ALL
// is Threshold(L - R) and INTERSECT ALL L - Threshold(L - R); without, the
// same over the distinct rows of each side.
func setOpAlgebra(op pg_query.SetOperation, all bool, lr, rr ir.Rel) ir.Rel {
	if !all {
		lr, rr = ir.NewDistinct(lr), ir.NewDistinct(rr)
	}
	if op == pg_query.SetOperation_SETOP_EXCEPT {
		return ir.NewThreshold(ir.NewUnion(lr, ir.NewNegate(rr)))
	}
	return ir.NewUnion(lr, ir.NewNegate(ir.NewThreshold(ir.NewUnion(lr, ir.NewNegate(rr)))))
}

// trimmedSetOp is INTERSECT or EXCEPT of sides with bpchar columns
// without a length, whose values keep the trailing blanks they were
// written with while bpchar's = ignores them ('ab' = 'ab  '), or with
// arrays or records that may hold bpchar values (expr.NeedsBpcharKey).
// The algebra runs over the rows with each such column replaced by its
// key (expr.BpcharKey), which drops the blanks; each result row then
// takes, per such column,
// the least value the left side wrote for its class (PostgreSQL shows one
// of the left side's values), joined back NULL-safely on the trimmed row.
// State beyond setOpAlgebra's: the left side's distinct trimmed rows,
// each with the multiset of its values (min), and the join's arrangements.
func (b *builder) trimmedSetOp(op pg_query.SetOperation, all bool, lr, rr ir.Rel) ir.Rel {
	types := lr.ColTypes()
	n := len(types)
	keys := make([]expr.Expr, n)
	var trimmed []int
	for i, t := range types {
		keys[i] = &expr.Col{Idx: i, T: t}
		if expr.NeedsBpcharKey(t) {
			keys[i] = expr.BpcharKey(keys[i])
			trimmed = append(trimmed, i)
		}
	}
	res := setOpAlgebra(op, all, projectExprs(lr, 0, keys), projectExprs(rr, 0, keys))
	aggs := make([]expr.Agg, len(trimmed))
	for j, c := range trimmed {
		aggs[j] = expr.Agg{Kind: expr.AggMin, Col: c, T: types[c]}
	}
	key := make([]int, n)
	for i := range key {
		key[i] = n + i
	}
	written := ir.NewReduce(ir.NewMap(lr, keys...), key, aggs...)
	joined := ir.NewJoin(ir.JoinInner, res, written, b.nullSafeKeys(res, written, identityCols(n), identityCols(n))...)
	out := identityCols(n)
	for j, c := range trimmed {
		out[c] = 2*n + j
	}
	return ir.NewProject(joined, out...)
}

// unifySides casts both sides' columns to their common types; the first
// nOuter columns of each side (outer values) are kept as they are.
func (b *builder) unifySides(l, r ir.Rel, nOuter int, lc, rc []ResultColumn, name string) (ir.Rel, ir.Rel, []ResultColumn, error) {
	var lm, rm []expr.Expr
	for i, t := range l.ColTypes()[:nOuter] {
		lm, rm = append(lm, &expr.Col{Idx: i, T: t}), append(rm, &expr.Col{Idx: i, T: t})
	}
	cols := append([]ResultColumn(nil), lc...)
	for i := range lc {
		pair, err := b.unifyUntyped(nOuter+i, lc[i].Type, rc[i].Type)
		if pair == nil && err == nil {
			pair, err = b.unify([]expr.Expr{&expr.Col{Idx: nOuter + i, T: lc[i].Type}, &expr.Col{Idx: nOuter + i, T: rc[i].Type}}, name, -1)
		}
		if err != nil {
			return nil, nil, nil, err
		}
		if mixedBpchar(lc[i].Type, rc[i].Type) {
			pair = []expr.Expr{&expr.Cast{Arg: &expr.Col{Idx: nOuter + i, T: lc[i].Type}, To: repr.Char(0)},
				&expr.Cast{Arg: &expr.Col{Idx: nOuter + i, T: rc[i].Type}, To: repr.Char(0)}}
		}
		lm, rm = append(lm, pair[0]), append(rm, pair[1])
		if pair[0].Type() != lc[i].Type {
			cols[i].TableID, cols[i].ColumnAttr = 0, 0
		}
		cols[i].Type = pair[0].Type()
	}
	return projectExprs(l, 0, lm), projectExprs(r, 0, rm), cols, nil
}

// mixedBpchar reports whether a and b are char types of different
// lengths. As in PostgreSQL, the unified column is bpchar without a
// length: its values keep the padding of their side ('ab  ' and 'ab    '),
// and the operators keyed by it ignore the blanks (lower.bpcharKeys).
func mixedBpchar(a, b repr.T) bool {
	return isChar(a) && isChar(b) && a.Length != b.Length
}

// isChar reports whether t is char(n) or bpchar.
func isChar(t repr.T) bool { return t.Family == repr.FamText && t.Kind == repr.KindChar }

// untypedCols returns cols with the type of each column that the set
// operation's side sel writes as an untyped literal (NULL, 'text') as
// unknown: as in PostgreSQL, such a column takes the other side's type
// (SELECT 1 UNION ALL SELECT NULL is integer) rather than text.
func untypedCols(sel *pg_query.SelectStmt, cols []ResultColumn) []ResultColumn {
	if sel == nil || sel.Op != pg_query.SetOperation_SETOP_NONE || len(sel.ValuesLists) > 0 || len(sel.TargetList) != len(cols) {
		return cols
	}
	var out []ResultColumn
	for i, t := range sel.TargetList {
		c := t.GetResTarget().GetVal().GetAConst()
		if c == nil || !c.Isnull && c.GetSval() == nil || cols[i].Type != repr.Text {
			continue
		}
		if out == nil {
			out = slices.Clone(cols)
		}
		out[i].Type = repr.Unknown
	}
	if out == nil {
		return cols
	}
	return out
}

// unifyUntyped unifies column col of two sides when one was written as
// an untyped literal (type unknown; its relation holds text): both sides
// take the other side's type without its type modifier (text when both
// are untyped), as PostgreSQL's common type of varchar(3) and an unknown
// literal is varchar: the literal is not cut to the length nor checked
// against it. nil, nil when neither is untyped.
func (b *builder) unifyUntyped(col int, lt, rt repr.T) ([]expr.Expr, error) {
	lu, ru := lt.Family == repr.FamUnknown, rt.Family == repr.FamUnknown
	if !lu && !ru {
		return nil, nil
	}
	t := rt
	if ru {
		t = lt
	}
	if t.Family == repr.FamUnknown {
		t = repr.Text
	}
	t = withoutTypmod(t)
	side := func(typ repr.T, untyped bool) expr.Expr {
		if untyped {
			return expr.NewCast(&expr.Col{Idx: col, T: repr.Text}, t)
		}
		c := &expr.Col{Idx: col, T: typ}
		if typ != t {
			return expr.NewCast(c, t)
		}
		return c
	}
	return []expr.Expr{side(lt, lu), side(rt, ru)}, nil
}

// withoutTypmod returns t (or, for an array, its element) without a
// length, precision or scale: varchar(n) is varchar, char(n) bpchar,
// numeric(p,s) numeric, bit(n) bit of any length.
func withoutTypmod(t repr.T) repr.T {
	switch t.Family {
	case repr.FamText, repr.FamBit:
		t.Length = 0
	case repr.FamNumeric:
		t.Precision, t.Scale = 0, 0
	case repr.FamArray:
		switch t.Elem {
		case repr.FamText, repr.FamBit:
			t.Length = 0
		case repr.FamNumeric:
			t.Precision, t.Scale = 0, 0
		}
	}
	return t
}
