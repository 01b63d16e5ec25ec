package planner

import (
	"maps"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// PostgreSQL evaluates an aggregate at the query level of the columns its
// arguments and FILTER read (the innermost one when several, its
// agglevelsup rule): in SELECT (SELECT max(t.a) FROM u LIMIT 1) FROM t, max
// aggregates t's rows in the outer query, one row in all, and the subquery
// reads its value as an outer value. Planning meets such a call inside the
// subquery (outerLevelAgg), after the outer block chose whether it groups;
// so the call is recorded in builder.outerAggs with the block that owns it
// and planning starts again (planOuterAggs): the owner then collects the
// call among its own aggregates (ownedAggs) and names its column in the
// aggregated scope (scopeCol.agg), and the subquery, which skips the call
// when collecting its aggregates, reads that column like any outer column
// (outerAggRef), decorrelation included. A reference from a subquery to
// an outer grouped query's column that is neither grouped nor inside an
// aggregate is PostgreSQL's 42803 (ungroupedOuter).

// maxAggLevelPasses bounds planOuterAggs' passes: each pass finds at least
// one new outer-level call, so the bound is only reached by a query with
// that many of them nested in each other.
const maxAggLevelPasses = 8

// planOuterAggs runs plan with a fresh builder, again while a pass fails
// having recorded new outer-level aggregate calls (outerLevelAgg).
func planOuterAggs[T any](cat Catalog, opts Options, plan func(b *builder) (T, error)) (T, error) {
	owners := map[any]*pg_query.SelectStmt{}
	for pass := 0; ; pass++ {
		b := newBuilder(cat, opts)
		b.outerAggs = maps.Clone(owners)
		out, err := plan(b)
		if err == nil || len(b.outerAggs) == len(owners) || pass == maxAggLevelPasses {
			return out, err
		}
		owners = b.outerAggs
	}
}

// outerLevelAgg handles fc, met among the aggregates of the block whose
// FROM scope is sc, when its arguments read columns of enclosing queries
// only: it records the call with the query block owning the innermost
// scope they read, when planning knows it (builder.scopeOwner), and
// fails with 0A000 (planOuterAggs plans again, and the owner aggregates
// it). Any expression node it does not know makes it decline (no error):
// a false refusal of a valid query would be worse than the check missing.
func (b *builder) outerLevelAgg(fc *pg_query.FuncCall, sc *scope) error {
	args := append(append([]*pg_query.Node(nil), fc.Args...), fc.AggFilter)
	if fc.AggWithinGroup {
		// An ordered-set aggregate's level is its aggregated arguments'
		// (PostgreSQL's check_agg_arguments): not its direct ones.
		args = append(append([]*pg_query.Node(nil), fc.AggOrder...), fc.AggFilter)
	}
	if outer, err := b.outerLevel(fc, args, sc, fc.Location); !outer || err != nil {
		return err
	}
	return repr.Unsupported("an aggregate in a subquery over only the outer query's columns here").WithPosition(fc.Location + 1)
}

// outerLevelGrouping is outerLevelAgg for GROUPING(args), which belongs
// to the query level of its arguments too (PostgreSQL's agglevelsup).
func (b *builder) outerLevelGrouping(gf *pg_query.GroupingFunc, sc *scope) error {
	if outer, err := b.outerLevel(gf, gf.Args, sc, gf.Location); !outer || err != nil {
		return err
	}
	return repr.Unsupported("GROUPING in a subquery over only the outer query's grouping here").WithPosition(gf.Location + 1)
}

// outerLevel reports whether args, those of call (a *pg_query.FuncCall or
// *pg_query.GroupingFunc) planned in sc, read columns of enclosing queries
// only, recording call with the block owning the innermost scope they
// read when planning knows it (a LATERAL subquery's left side is
// registered with no block: such a call would aggregate in FROM, 42803).
// The columns of aggregates nested in args
// count too, as in PostgreSQL: one in an outer-level call is at the
// call's level, PostgreSQL's 42803.
func (b *builder) outerLevel(call any, args []*pg_query.Node, sc *scope, loc int32) (bool, error) {
	if sc.parent == nil && sc.outerCount() == 0 {
		return false, nil
	}
	owner, inner, unknown, nested, doubt, readsCTE := (*scope)(nil), 0, false, false, false, false
	ref := func(r *pg_query.ColumnRef) {
		switch lv := refScope(r, sc); {
		case lv == nil:
			unknown = true
		case lv == sc:
			inner++
		case owner == nil || isAncestor(owner, lv):
			owner = lv
		}
	}
	check := func(n *pg_query.Node) bool {
		switch {
		case unknown:
			return false
		case n.GetColumnRef() != nil:
			ref(n.GetColumnRef())
			return false
		case n.GetAConst() != nil || n.GetParamRef() != nil:
			return false
		case n.GetFuncCall() != nil && isAggregate(n.GetFuncCall()):
			nested = true
		case n.GetSubLink() != nil:
			d, c := b.sublinkRefs(n.GetSubLink(), sc, ref)
			doubt, readsCTE = doubt || d, readsCTE || c
			return false
		case children(n) == nil:
			unknown = true
			return false
		}
		return true
	}
	for _, a := range args {
		walk(a, check)
	}
	switch {
	case unknown || inner > 0:
		return false, nil
	case doubt:
		// A name inside a subquery of the arguments might be the
		// subquery's own or this level's: the call's level is unknown.
		return false, repr.Unsupported("an aggregate over a subquery whose columns may belong to an enclosing query").WithPosition(loc + 1)
	case owner == nil:
		return false, nil
	case nested:
		return false, repr.Errorf(repr.CodeGrouping, "aggregate function calls cannot be nested").WithPosition(loc + 1)
	case readsCTE:
		return false, repr.Errorf(repr.CodeFeatureNotSupported, "outer-level aggregate cannot use a nested CTE").WithPosition(loc + 1)
	}
	sel, ok := b.scopeOwner[owner]
	switch {
	case ok && sel == nil:
		return false, repr.Errorf(repr.CodeGrouping, "aggregate functions are not allowed in FROM clause of their own query level").WithPosition(loc + 1)
	case ok && b.outerAggs != nil:
		b.outerAggs[call] = sel
	}
	return true, nil
}

// isAncestor reports whether a is a proper ancestor of s in the scope chain.
func isAncestor(a, s *scope) bool {
	for cur := s.parent; cur != nil; cur = cur.parent {
		if cur == a {
			return true
		}
	}
	return false
}

// refScope returns the scope whose query level ref names a column of: sc
// itself for one of its own columns, sc's parent for one of the outer
// values sc carries (decorrelation copies them from the enclosing
// block's scope), the enclosing scope naming it otherwise (an outer
// grouped query's column aggregated away included); nil when unsure (a
// star, a name no scope has).
func refScope(ref *pg_query.ColumnRef, sc *scope) *scope {
	table, name, err := refName(ref)
	if err != nil {
		return nil
	}
	for cur := sc; cur != nil; cur = cur.parent {
		i, err := cur.lookup(table, name, 0)
		if err != nil {
			return nil
		}
		if i >= 0 {
			if cur == sc && cur.cols[i].outer {
				return sc.parent
			}
			return cur
		}
		if cur != sc && cur.ungrouped != nil {
			if i, err := cur.ungrouped.lookup(table, name, 0); err == nil && i >= 0 {
				return cur // an outer grouped query's column, aggregated away
			}
		}
	}
	return nil
}

// ownedAggs returns calls (the aggregates collected in block sel's
// clauses) without those another block owns, followed by the calls of
// enclosed subqueries in nodes that sel owns (builder.outerAggs).
func (b *builder) ownedAggs(sel *pg_query.SelectStmt, calls []*pg_query.FuncCall, nodes []*pg_query.Node) []*pg_query.FuncCall {
	if len(b.outerAggs) == 0 {
		return calls
	}
	calls = slices.DeleteFunc(slices.Clone(calls), func(fc *pg_query.FuncCall) bool { return b.outerAggs[fc] != nil })
	for _, n := range nodes {
		if n == nil {
			continue
		}
		walkMessages(n.ProtoReflect(), func(m proto.Message) {
			if fc, ok := m.(*pg_query.FuncCall); ok && b.outerAggs[fc] == sel && !slices.Contains(calls, fc) {
				calls = append(calls, fc)
			}
		})
	}
	return calls
}

// outerAggRef builds a reference to the column of an enclosing block's
// aggregated scope that holds fc, an outer-level aggregate call
// (builder.outerAggs): a column of c's own scope (an outer value
// decorrelation carries) or, in decorrelation's first pass, a typed NULL
// recorded in the enclosing scope, as resolveColumn does for columns.
func (c *ectx) outerAggRef(fc any, loc int32) (expr.Expr, error) {
	for cur := c.sc; cur != nil; cur = cur.parent {
		for i, col := range cur.cols {
			if col.agg != fc {
				continue
			}
			if cur == c.sc {
				return &expr.Col{Idx: i, T: col.typ}, nil
			}
			if cur.rec == nil {
				return nil, repr.Unsupported("a correlated outer-level aggregate here").WithPosition(loc + 1)
			}
			cur.rec.add(i)
			return &expr.Lit{D: repr.Null, T: col.typ}, nil
		}
	}
	if _, ok := fc.(*pg_query.GroupingFunc); ok {
		return nil, repr.Errorf(repr.CodeGrouping, "arguments to GROUPING must be grouping expressions of the associated query level").WithPosition(loc + 1)
	}
	return nil, repr.Errorf(repr.CodeGrouping, "aggregate functions are not allowed here").WithPosition(loc + 1)
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

// ownedGroupings appends to ec, the aggregated relation of block sel, a
// column per GROUPING call of sel's subqueries that sel owns
// (builder.outerAggs), named by the call in ec's scope (scopeCol.agg).
func (ec *ectx) ownedGroupings(sel *pg_query.SelectStmt) error {
	if len(ec.b.outerAggs) == 0 {
		return nil
	}
	nodes := slices.Concat(sel.TargetList, []*pg_query.Node{sel.HavingClause}, sel.SortClause, windowClauseNodes(sel))
	var calls []*pg_query.GroupingFunc
	for _, n := range nodes {
		if n == nil {
			continue
		}
		walkMessages(n.ProtoReflect(), func(m proto.Message) {
			if gf, ok := m.(*pg_query.GroupingFunc); ok && ec.b.outerAggs[gf] == sel && !slices.Contains(calls, gf) {
				calls = append(calls, gf)
			}
		})
	}
	for _, gf := range calls {
		e, err := ec.groupingFunc(gf)
		if err != nil {
			return err
		}
		ec.rel = ir.NewMap(ec.rel, e)
		ec.sc.cols = append(ec.sc.cols, scopeCol{typ: e.Type(), hidden: true, agg: gf})
	}
	return nil
}

// sublinkRefs passes to ref the column references inside sl (a subquery
// in an aggregate's arguments) that name a table no FROM inside sl binds:
// those read sc or enclosing levels, and count for the aggregate's level
// as PostgreSQL counts them. It reports doubt when some other reference
// (unqualified, or qualified by a table sl binds) also names a column of
// sc or an enclosing scope, so that its level cannot be told without
// planning sl. readsCTE reports that sl reads a WITH query in scope
// where it is planned, which an outer-level aggregate cannot (PostgreSQL:
// 0A000).
func (b *builder) sublinkRefs(sl *pg_query.SubLink, sc *scope, ref func(*pg_query.ColumnRef)) (doubt, readsCTE bool) {
	bound := map[string]bool{}
	var refs []*pg_query.ColumnRef
	walkMessages(sl.ProtoReflect(), func(m proto.Message) {
		switch m := m.(type) {
		case *pg_query.RangeVar:
			if m.Schemaname == "" && b.isCTEName(m.Relname) {
				readsCTE = true
			}
			bound[m.Relname] = true
			if m.Alias != nil {
				bound[m.Alias.Aliasname] = true
			}
		case *pg_query.Alias:
			bound[m.Aliasname] = true
		case *pg_query.CommonTableExpr:
			bound[m.Ctename] = true
		case *pg_query.ColumnRef:
			refs = append(refs, m)
		}
	})
	own := b.flatColumns(sl)
	for _, r := range refs {
		table, name, err := refName(r)
		switch {
		case err != nil:
			doubt = true
		case table != "" && !bound[table]:
			ref(r)
		case table == "" && own != nil && own[name]:
			// the subquery's own column
		case table == "" && own != nil:
			ref(r)
		case refScope(r, sc) != nil:
			doubt = true
		}
	}
	return doubt, readsCTE
}

// flatColumns returns the column names of the catalog relations a
// subquery reads when it is one flat block (no set operation, WITH,
// nested subquery or FROM item other than relations named in the
// catalog), where an unqualified name is its own column exactly when one
// of them has it; nil otherwise.
func (b *builder) flatColumns(sl *pg_query.SubLink) map[string]bool {
	sel := sl.Subselect.GetSelectStmt()
	if sel == nil || sel.Op != pg_query.SetOperation_SETOP_NONE || sel.WithClause != nil || len(sel.FromClause) == 0 {
		return nil
	}
	nested := false
	walkMessages(sel.ProtoReflect(), func(m proto.Message) {
		if _, ok := m.(*pg_query.SubLink); ok {
			nested = true
		}
	})
	if nested {
		return nil
	}
	own := map[string]bool{}
	for _, f := range sel.FromClause {
		rv := f.GetRangeVar()
		if rv == nil || rv.Schemaname == "" && b.isCTEName(rv.Relname) {
			return nil
		}
		rel, err := b.cat.Relation(rv.Schemaname, rv.Relname)
		if err != nil {
			return nil
		}
		for _, c := range rel.Columns {
			own[c.Name] = true
		}
	}
	return own
}

// isCTEName reports whether a WITH query named name is in scope.
func (b *builder) isCTEName(name string) bool {
	for _, c := range b.ctes {
		if c.name == name {
			return true
		}
	}
	return false
}
