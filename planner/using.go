package planner

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// JOIN ... USING (cols) and NATURAL JOIN: equality on the named columns,
// which appear once (first) in the output, merged as PostgreSQL does (the
// left value, the right one for RIGHT JOIN, COALESCE for FULL JOIN); the
// originals stay reachable through their qualifiers. The same three steps
// serve a join of a decorrelated subquery whose sides carry the outer
// values (joinouter.go): resolve the pairs (usingPairs), build their
// equalities and merged values over a layout (usingExprs), and reorder
// the output (usingOutput), leading with the columns it is told to keep.

// usingJoin plans left JOIN right USING (...) or NATURAL JOIN.
func (b *builder) usingJoin(kind ir.JoinKind, j *pg_query.JoinExpr, left, right ir.Rel, lcols, rcols []scopeCol) (ir.Rel, []scopeCol, error) {
	names, li, ri, err := b.usingPairs(j, lcols, rcols)
	if err != nil {
		return nil, nil, err
	}
	nl := len(lcols)
	all := append(append([]scopeCol(nil), lcols...), rcols...)
	on, merged, err := b.usingExprs(kind, j, ir.NewJoin(kind, left, right), all, li, shifted(ri, nl))
	if err != nil {
		return nil, nil, err
	}
	rel, cols := usingOutput(kind, ir.NewJoin(kind, left, right, on...), all, 0, nl, names, merged, li, shifted(ri, nl))
	return rel, cols, nil
}

// usingPairs resolves the columns a USING or NATURAL join merges: their
// names and, for each, the one visible column so named on each side.
func (b *builder) usingPairs(j *pg_query.JoinExpr, lcols, rcols []scopeCol) (names []string, li, ri []int, err error) {
	names = usingNames(j, lcols, rcols)
	if t := b.opts.Trace; t != nil && j.IsNatural {
		t.Natural[j] = names
	}
	for _, name := range names {
		l, err := uniqueCol(lcols, name, "left")
		if err != nil {
			return nil, nil, nil, err
		}
		r, err := uniqueCol(rcols, name, "right")
		if err != nil {
			return nil, nil, nil, err
		}
		li, ri = append(li, l), append(ri, r)
	}
	return names, li, ri, nil
}

// shifted returns idx with off added to each.
func shifted(idx []int, off int) []int {
	out := make([]int, len(idx))
	for i, x := range idx {
		out[i] = x + off
	}
	return out
}

// usingExprs returns the equalities of the pairs (li[i], ri[i]) of the
// columns all of rel, and their merged values (mergedUsing), both over
// rel's columns.
func (b *builder) usingExprs(kind ir.JoinKind, j *pg_query.JoinExpr, rel ir.Rel, all []scopeCol, li, ri []int) (on, merged []expr.Expr, err error) {
	ec := &ectx{b: b, sc: &scope{cols: all}, rel: rel, clause: "JOIN/USING"}
	for i := range li {
		pair, err := b.unify([]expr.Expr{ec.colExpr(li[i]), ec.colExpr(ri[i])}, "JOIN/USING", j.GetLarg().GetRangeVar().GetLocation())
		if err != nil {
			return nil, nil, err
		}
		eq, err := ec.op("=", 0, pair[0], pair[1])
		if err != nil {
			return nil, nil, err
		}
		on = append(on, eq)
		merged = append(merged, mergedUsing(kind, pair[0], pair[1]))
	}
	return on, merged, nil
}

// usingOutput maps the merged values over rel (whose columns are all, the
// right side's from nr on) and orders its output: the first keep columns,
// the merged ones, the other visible columns, then the merged pairs'
// originals, hidden.
func usingOutput(kind ir.JoinKind, rel ir.Rel, all []scopeCol, keep, nr int, names []string, merged []expr.Expr, li, ri []int) (ir.Rel, []scopeCol) {
	rel = ir.NewMap(rel, merged...)
	all = numberByQualifier(all)
	used := map[int]bool{}
	for i := range li {
		used[li[i]], used[ri[i]] = true, true
	}
	proj := identityCols(keep)
	cols := append([]scopeCol(nil), all[:keep]...)
	for i, name := range names {
		proj = append(proj, len(all)+i)
		cols = append(cols, scopeCol{name: name, typ: merged[i].Type(), origin: usingOrigin(kind, all[keep:], nr-keep, name)})
	}
	for _, hidden := range []bool{false, true} {
		for i := keep; i < len(all); i++ {
			if c := all[i]; used[i] == hidden {
				c.hidden = c.hidden || used[i]
				proj, cols = append(proj, i), append(cols, c)
			}
		}
	}
	return ir.NewProject(rel, proj...), cols
}

// numberByQualifier returns all with seq set on the columns that have
// none yet: their places among the columns of the same qualifier, which
// are in their own order until a USING join first moves them (a
// qualifier's columns all come from one FROM item, so either all of them
// are numbered or none is; the key is the table name alone, as a join
// alias renames a USING join's columns without clearing their schema).
func numberByQualifier(all []scopeCol) []scopeCol {
	all = slices.Clone(all)
	next := map[string]int{}
	for i := range all {
		if c := &all[i]; c.seq == 0 && !c.outer {
			next[c.table]++
			c.seq = next[c.table]
		}
	}
	return all
}

// usingOrigin is the qualifier of the column whose value the merged
// USING column name takes (the left one, the right one for RIGHT JOIN,
// none for FULL JOIN's COALESCE).
//
// An inner join whose sides' types differ takes the right one, as
// PostgreSQL's buildMergedJoinVar prefers the side that needs no
// coercion (the values are equal on the rows the join keeps).
func usingOrigin(kind ir.JoinKind, all []scopeCol, nl int, name string) string {
	find := func(side []scopeCol) *scopeCol {
		for i := range side {
			if c := &side[i]; c.name == name && !c.outer {
				return c
			}
		}
		return nil
	}
	l, r := find(all[:nl]), find(all[nl:])
	switch {
	case kind == ir.JoinFull || l == nil || r == nil:
		return ""
	case kind == ir.JoinRight || kind == ir.JoinInner && l.typ != r.typ:
		return r.traceCol().Table
	}
	return l.traceCol().Table
}

// mergedUsing is the value of a USING column in the join's output.
func mergedUsing(kind ir.JoinKind, l, r expr.Expr) expr.Expr {
	switch kind {
	case ir.JoinRight:
		return r
	case ir.JoinFull:
		return &expr.Coalesce{Args: []expr.Expr{l, r}, T: l.Type()}
	}
	return l
}

// usingNames returns the columns a join merges: USING's list, or for
// NATURAL the visible names the two sides share, in the left's order
// (not those of the outer values a side carries).
func usingNames(j *pg_query.JoinExpr, lcols, rcols []scopeCol) []string {
	var names []string
	if !j.IsNatural {
		for _, n := range j.UsingClause {
			names = append(names, n.GetString_().GetSval())
		}
		return names
	}
	for _, l := range lcols {
		if l.hidden || l.outer {
			continue
		}
		for _, r := range rcols {
			if !r.hidden && !r.outer && r.name == l.name {
				names = append(names, l.name)
				break
			}
		}
	}
	return names
}

// uniqueCol finds the one visible column called name on one join side
// (not the outer values a side of a decorrelated subquery carries).
func uniqueCol(cols []scopeCol, name, side string) (int, error) {
	found := -1
	for i, c := range cols {
		if c.name != name || c.hidden || c.outer {
			continue
		}
		if found >= 0 {
			return -1, repr.Errorf(repr.CodeAmbiguousColumn, "common column name %q appears more than once in %s table", name, side)
		}
		found = i
	}
	if found < 0 {
		return -1, repr.Errorf(repr.CodeUndefinedColumn, "column %q specified in USING clause does not exist in %s table", name, side)
	}
	return found, nil
}
