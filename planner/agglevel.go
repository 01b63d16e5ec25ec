package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/repr"
)

// PostgreSQL evaluates an aggregate at the query level of the columns its
// arguments and FILTER read (the innermost one when several): in
// SELECT (SELECT max(t.a)) FROM t, max aggregates t's rows in the outer
// query, one row in all. Eddy aggregates in the query block that spells
// the call, so such a call inside a subquery is 0A000 rather than one
// aggregate per outer row (outerLevelAgg). A reference from a subquery
// to an outer grouped query's column that is neither grouped nor inside
// an aggregate is PostgreSQL's 42803 (ungroupedOuter).

// outerLevelAgg fails with 0A000 when fc, aggregated in the block whose
// FROM scope is sc, reads columns of enclosing queries only. Any
// expression node it does not know makes it decline (no error): a false
// refusal of a valid query would be worse than the check missing.
func outerLevelAgg(fc *pg_query.FuncCall, sc *scope) error {
	if sc.parent == nil && sc.outerCount() == 0 {
		return nil
	}
	outer, inner, unknown := 0, 0, false
	check := func(n *pg_query.Node) bool {
		switch {
		case unknown:
			return false
		case n.GetColumnRef() != nil:
			switch refLevel(n.GetColumnRef(), sc) {
			case 0:
				inner++
			case 1:
				outer++
			default:
				unknown = true
			}
			return false
		case n.GetAConst() != nil || n.GetParamRef() != nil:
			return false
		case n.GetSubLink() != nil || children(n) == nil || n.GetFuncCall() != nil && isAggregate(n.GetFuncCall()):
			// (an aggregate inside is PostgreSQL's 42803, reported later)
			unknown = true
			return false
		}
		return true
	}
	for _, a := range append(append([]*pg_query.Node(nil), fc.Args...), fc.AggFilter) {
		walk(a, check)
	}
	if unknown || inner > 0 || outer == 0 {
		return nil
	}
	return repr.Unsupported("an aggregate in a subquery over only the outer query's columns (PostgreSQL aggregates it in the outer query)").WithPosition(fc.Location + 1)
}

// refLevel returns 0 when ref names a column of sc itself, 1 when it
// names an outer value (an enclosing query's column, grouped or not), -1
// when unsure
// (a star, a name no scope has).
func refLevel(ref *pg_query.ColumnRef, sc *scope) int {
	table, name, err := refName(ref)
	if err != nil {
		return -1
	}
	for cur := sc; cur != nil; cur = cur.parent {
		i, err := cur.lookup(table, name, 0)
		if err != nil {
			return -1
		}
		if i >= 0 {
			if cur == sc && !cur.cols[i].outer {
				return 0
			}
			return 1
		}
		if cur != sc && cur.ungrouped != nil {
			if i, err := cur.ungrouped.lookup(table, name, 0); err == nil && i >= 0 {
				return 1 // an outer grouped query's column, aggregated away
			}
		}
	}
	return -1
}

// ungroupedOuter returns PostgreSQL's 42803 when table.name, which no
// scope from sc outwards has, is a column an enclosing grouped query
// aggregates away (neither grouped nor in an aggregate), else nil.
func ungroupedOuter(sc *scope, table, name string, loc int32) error {
	for cur := sc.parent; cur != nil; cur = cur.parent {
		if cur.ungrouped == nil {
			continue
		}
		if i, err := cur.ungrouped.lookup(table, name, loc); err == nil && i >= 0 && !cur.ungrouped.cols[i].outer {
			if q := cur.ungrouped.cols[i].table; q != "" {
				name = q + "." + name
			}
			return repr.Errorf(repr.CodeGrouping, "subquery uses ungrouped column %q from outer query", name).WithPosition(loc + 1)
		}
	}
	return nil
}
