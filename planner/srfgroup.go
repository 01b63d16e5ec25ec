package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
)

// Set-returning functions in GROUP BY (GROUP BY generate_series(1, 3),
// directly or through a select-list alias or ordinal) follow PostgreSQL
// 15: the GROUP BY's calls run in a ProjectSet below the aggregation, over
// the FROM relation after WHERE, all of them in lockstep as in the select
// list (srf.go; nested calls by levels), and the grouping keys read their
// results. Every grouping set (ROLLUP, CUBE, GROUPING SETS) groups the
// same rows: those of that one FlatMap (so the empty set counts the rows
// it yields, and an input row for which every call is empty is in no
// group). Equal calls are one call (as PostgreSQL merges equal GROUP BY
// items): they share their columns.
//
// After grouping, a select-list, ORDER BY or DISTINCT ON expression equal
// to a grouping key reads the key (a call equal to a GROUP BY call, by its
// planned form, reads that call's column), so it is not evaluated again;
// the select list's other calls run after grouping as always (srf.go),
// and HAVING, window definitions, aggregate and GROUPING() arguments
// refuse set-returning calls even when equal to a key, as PostgreSQL's
// parser does before it matches keys.

// groupSRFs are the GROUP BY's planned set-returning calls, as an
// expression compared with the grouping keys reads them (preCtx).
type groupSRFs struct {
	byNode map[*pg_query.FuncCall]expr.Expr
	// byCall maps a planned call (expr.TableCall.String) to the first
	// call planned so.
	byCall  map[string]*pg_query.FuncCall
	fields  map[*pg_query.FuncCall][]namedExpr
	records map[expr.Expr][]expr.TableCol
}

// srfClauses are the clauses over an aggregated relation whose
// expressions may read the GROUP BY's set-returning calls.
var srfClauses = map[string]bool{"SELECT": true, "ORDER BY": true, "window definition": true}

// planGroupSRFs plans the set-returning calls of the GROUP BY keys (the
// nodes of every grouping set) as FlatMaps over from.rel, leaving their
// values in from.srfs for building the keys, and returns them (nil when
// there are none).
func (b *builder) planGroupSRFs(sets [][]*pg_query.Node, from *ectx) (*groupSRFs, error) {
	levels := map[*pg_query.FuncCall]int{}
	var calls []*pg_query.FuncCall
	for _, set := range sets {
		for _, n := range set {
			if _, err := collectSRFs(n, "", nil, b.sqlSetFunc, &calls, levels); err != nil {
				return nil, err
			}
		}
	}
	if len(calls) == 0 {
		return nil, nil
	}
	from.srfs, from.srfCalls = map[*pg_query.FuncCall]expr.Expr{}, map[string]*pg_query.FuncCall{}
	for level := 1; len(from.srfs) < len(calls); level++ {
		if err := from.srfLevel(calls, levels, level); err != nil {
			return nil, err
		}
	}
	return &groupSRFs{byNode: from.srfs, byCall: from.srfCalls, fields: from.srfFields, records: from.records}, nil
}

// shareSRFs gives each call of same the value (and fields) of the equal
// call planned in its place.
func (ec *ectx) shareSRFs(same map[*pg_query.FuncCall]*pg_query.FuncCall) {
	for fc, first := range same {
		ec.srfs[fc] = ec.srfs[first]
		if f, ok := ec.srfFields[first]; ok {
			ec.srfFields[fc] = f
		}
	}
}

// sameSRF returns the GROUP BY call equal to fc (by its planned form)
// when c reads them (c.srfCalls set) and fc is not itself planned, else
// fc: the call whose value and fields (c.srfs, c.srfFields) fc has.
func (c *ectx) sameSRF(fc *pg_query.FuncCall) *pg_query.FuncCall {
	if _, ok := c.srfs[fc]; ok || c.srfCalls == nil {
		return fc
	}
	call, err := c.tableCall(fc, nil)
	if err != nil {
		return fc
	}
	if first, ok := c.srfCalls[call.String()]; ok {
		return first
	}
	return fc
}

// preCtx returns the context that builds an expression of clause over the
// grouping's input, to compare it with the keys: where set-returning
// calls are allowed it reads the GROUP BY's calls; elsewhere a call fails
// to build there, and so matches no key.
func (g *grouping) preCtx(b *builder, clause string) *ectx {
	pre := &ectx{b: b, sc: g.from, rel: g.fromRel, clause: "GROUP BY", noSubquery: true}
	if s := g.srfs; s != nil && srfClauses[clause] {
		pre.srfs, pre.srfCalls, pre.srfFields, pre.records = s.byNode, s.byCall, s.fields, s.records
	}
	return pre
}

// keyRef returns the grouping key column that n, built over the grouping's
// input, equals.
func (c *ectx) keyRef(n *pg_query.Node) (expr.Expr, bool) {
	g := c.grp
	e, err := g.preCtx(c.b, c.clause).expr(n)
	if err != nil {
		return nil, false
	}
	s := e.String()
	for i, k := range g.keys {
		if k == s {
			return c.colExpr(g.keyCols[i]), true
		}
	}
	return nil, false
}

// isGroupKey reports whether the select-list node n reads a grouping key
// (keyRef), so that its set-returning calls are not planned after the
// grouping.
func (c *ectx) isGroupKey(n *pg_query.Node) bool {
	if n.GetSubLink() != nil || n.GetAConst() != nil {
		return false
	}
	_, ok := c.keyRef(n)
	return ok
}
