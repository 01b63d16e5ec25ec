package planner

import (
	"fmt"
	"math"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// planned is a planned query block. rel's columns are the outer values
// (nOuter, for a decorrelated subquery), then the output columns (cols),
// then hidden sort columns. order, limit and offset are not applied to rel:
// the top level presents them, subqueries apply them with TopK.
type planned struct {
	rel    ir.Rel
	cols   []ResultColumn
	nOuter int
	order  []expr.SortCol
	limit  int64 // -1: none
	offset int64
	// atMostOne is set when the block provably yields at most one row per
	// outer value (a global aggregate, LIMIT 1, VALUES of one row).
	atMostOne bool
}

// PlanQuery plans a SELECT, VALUES or set operation.
func PlanQuery(cat Catalog, stmt *pg_query.Node, opts Options) (*Query, error) {
	sel := stmt.GetSelectStmt()
	if sel == nil {
		return nil, repr.Unsupported("statement %s as a query", nodeName(stmt))
	}
	return planOuterAggs(cat, opts, func(b *builder) (*Query, error) { return b.planTop(sel) })
}

// planTop plans the top-level query sel.
func (b *builder) planTop(sel *pg_query.SelectStmt) (*Query, error) {
	var p *planned
	var locks []Lock
	var err error
	if len(sel.LockingClause) > 0 {
		p, locks, err = b.planLocking(sel)
	} else {
		p, err = b.planQuery(sel, nil, nil)
	}
	if err == nil {
		err = b.checkNowConsumed()
	}
	if err != nil {
		return nil, err
	}
	p.rel, p.order = naturalValues(sel, p.rel, p.order, len(p.cols))
	rel, order := bpcharSortKeys(b.boundRecursion(p.rel, p.limit, p.offset, len(p.order)), p.order)
	if len(locks) == 0 && (p.limit >= 0 || len(order) > 0) {
		// The rows up to OFFSET + LIMIT reach PostgreSQL's projection, in
		// ORDER BY order: its volatile entries are computed for them
		// only, in that order (the TopK emits its rows sorted).
		limit := int64(-1)
		if p.limit >= 0 && p.offset <= math.MaxInt64-p.limit {
			limit = p.limit + p.offset
		}
		if late, ok := deferVolatile(rel, sortCols(order), func(in ir.Rel) ir.Rel {
			return &ir.TopK{Input: in, Order: order, Limit: limit}
		}); ok {
			rel = late
		}
	}
	return &Query{Rel: rel, Columns: p.cols, OrderBy: order, Limit: p.limit, Offset: p.offset,
		ParamTypes: b.finalParamTypes(), Locks: locks, Routines: b.routines}, nil
}

// planQuery plans a query block with its WITH list in scope.
func (b *builder) planQuery(sel *pg_query.SelectStmt, parent *scope, outer *outerRel) (*planned, error) {
	if n, ok := b.cteFrames[sel]; ok {
		// An inlined CTE's query sees the CTEs before it (a copy: its
		// own WITH lists append).
		saved := b.ctes
		b.ctes = slices.Clone(b.ctes[:n])
		defer func() { b.ctes = saved }()
	}
	if ce, ok := b.recInline[sel]; ok {
		return b.recursionOver(ce, sel, parent, outer)
	}
	if sel.WithClause != nil {
		return b.withCTEs(sel.WithClause, parent, func() (*planned, error) { return b.planBlock(sel, parent, outer) })
	}
	return b.planBlock(sel, parent, outer)
}

// planBlock dispatches on the kind of query block.
func (b *builder) planBlock(sel *pg_query.SelectStmt, parent *scope, outer *outerRel) (*planned, error) {
	if len(sel.LockingClause) > 0 {
		return b.lockedSubquery(sel, parent, outer)
	}
	sel, err := rewriteRegr(sel, b.opts.Trace)
	if err != nil {
		return nil, err
	}
	switch {
	case sel.IntoClause != nil:
		return nil, repr.Unsupported("SELECT INTO")
	case sel.Op != pg_query.SetOperation_SETOP_NONE:
		return b.planSetOp(sel, parent, outer)
	case len(sel.ValuesLists) > 0:
		return b.planValues(sel, parent, outer)
	}
	return b.planSelect(sel, parent, outer)
}

// subqueryRel applies a planned block's ORDER BY ... LIMIT as a TopK per
// outer value and drops hidden sort columns: the rows the block denotes.
func (b *builder) subqueryRel(p *planned) ir.Rel {
	return ir.NewProject(b.limitedRel(p, false), identityCols(p.nOuter+len(p.cols))...)
}

// limitedRel returns p's relation with its LIMIT/OFFSET applied (as a
// TopK per outer value), all its columns kept. keep says the caller keeps
// p's order (natural.go); else an ORDER BY without LIMIT orders nothing.
func (b *builder) limitedRel(p *planned, keep bool) ir.Rel {
	rel := p.rel
	if p.limit >= 0 || p.offset > 0 {
		if p.nOuter == 0 {
			rel = b.boundRecursion(rel, p.limit, p.offset, len(p.order))
		}
		key := limitKey(p)
		topK := func(in ir.Rel) ir.Rel {
			return &ir.TopK{Input: in, Key: key, Order: p.order, Limit: p.limit, Offset: p.offset}
		}
		// As at the top level (planTop), PostgreSQL's projection sees the
		// first OFFSET + LIMIT rows only: its volatile entries are drawn
		// for them (a TopK of those rows, then the Map, then the OFFSET).
		through := int64(-1)
		if p.limit >= 0 && p.offset <= math.MaxInt64-p.limit {
			through = p.limit + p.offset
		}
		if late, ok := deferVolatile(rel, append(slices.Clone(key), sortCols(p.order)...), func(in ir.Rel) ir.Rel {
			return &ir.TopK{Input: in, Key: key, Order: p.order, Limit: through}
		}); ok {
			if p.offset == 0 {
				return late
			}
			return topK(late)
		}
		return topK(rel)
	}
	if !keep {
		b.noteOrder(p.rel, p.order)
	}
	return rel
}

// identityCols returns 0..n-1.
func identityCols(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// target is one select-list entry after * expansion.
type target struct {
	node *pg_query.Node // nil for a * column
	col  int            // for * columns: the FROM column
	name string
	loc  int32
}

// planSelect plans SELECT ... FROM ... WHERE ... GROUP BY ... HAVING ...
// ORDER BY ... LIMIT.
func (b *builder) planSelect(sel *pg_query.SelectStmt, parent *scope, outer *outerRel) (*planned, error) {
	b.noteWholeRefs(sel)
	where := b.boundRowNumber(sel)
	b.markNaturalFrom(sel)
	rel, sc, err := b.planFrom(sel.FromClause, parent, outer)
	if err != nil {
		return nil, err
	}
	b.scopeOwner[sc] = sel
	if where != nil {
		if rel, err = b.filter(rel, sc, where, "WHERE"); err != nil {
			return nil, err
		}
	}
	calls := blockWindowCalls(sel)
	_, topK := b.rankLimits[sel]
	var wins map[*pg_query.FuncCall]expr.Expr
	if topK {
		if rel, wins, err = b.planRowNumber(sel, calls[0], rel, sc); err != nil {
			return nil, err
		}
	}
	targets, err := b.expandTargets(sel.TargetList, sc)
	if err != nil {
		return nil, err
	}
	ec := &ectx{b: b, sc: sc, rel: rel, clause: "SELECT", wins: wins}
	p := &planned{nOuter: sc.outerCount(), limit: -1}
	grouped := b.needsGrouping(sel, targets)
	ec.natural, ec.naturalDirs, ec.keepNatural = blockNatural(sel, ec, grouped, !emptyWindows(sel, calls))
	ec.naturalWindows = !grouped
	if grouped {
		if ec, err = b.planGrouping(sel, targets, ec, p); err != nil {
			return nil, err
		}
	}
	if err := b.checkSessionGrouped(sc); err != nil {
		return nil, err
	}
	if !topK && (len(calls) > 0 || len(sel.WindowClause) > 0) {
		if err := b.planWindows(sel, calls, ec, p.nOuter); err != nil {
			return nil, err
		}
	}
	if err := b.planSRFs(append(slices.Clip(targets), sortTargets(sel)...), ec, p); err != nil {
		return nil, err
	}
	if targets, err = ec.expandRecordStars(targets); err != nil {
		return nil, err
	}
	return b.finishSelect(sel, targets, ec, p)
}

// sortTargets returns the ORDER BY items of sel as targets, so that the
// set-returning calls they hold run with the select list's (PostgreSQL
// makes an ORDER BY expression a hidden select-list entry: SELECT a FROM
// t ORDER BY generate_series(1, 2) yields each row twice, in lockstep
// with any select-list call). Ordinals and output names hold no call.
func sortTargets(sel *pg_query.SelectStmt) []target {
	var out []target
	for _, s := range sel.SortClause {
		if sb := s.GetSortBy(); sb != nil {
			out = append(out, target{node: sb.Node})
		}
	}
	return out
}

// filter applies a WHERE-like predicate, keeping rel's columns.
//
// Conjuncts that are EXISTS or IN (ANY) subqueries become semi-joins
// (semijoin.go); the rest is one predicate.
//
// Conjuncts without subqueries filter first, so that a decorrelated
// subquery's outer values come from the rows the other conjuncts keep
// (FROM lineitem, part WHERE p_partkey = l_partkey AND l_quantity <
// (SELECT ... WHERE l_partkey = p_partkey) computes the subquery per joined
// row, not per row of the cross product).
func (b *builder) filter(rel ir.Rel, sc *scope, n *pg_query.Node, clause string) (ir.Rel, error) {
	if plain, sub := splitSubLinks(n); plain != nil && sub != nil {
		rel, err := b.filter(rel, sc, plain, clause)
		if err != nil {
			return nil, err
		}
		return b.filter(rel, sc, sub, clause)
	}
	ec := &ectx{b: b, sc: sc, rel: rel, clause: clause}
	var rest []*pg_query.Node
	for _, conj := range andArgs(n) {
		done, err := ec.semiJoin(conj)
		if err != nil {
			return nil, err
		}
		if !done {
			rest = append(rest, conj)
		}
	}
	if len(rest) == 0 {
		return b.filtered(ir.NewProject(ec.rel, identityCols(ir.Arity(rel))...)), nil
	}
	pred, err := ec.predicate(andOf(rest))
	if err != nil {
		return nil, err
	}
	out, err := b.temporalFilter(ec.rel, pred)
	if err != nil {
		return nil, err
	}
	return ir.NewProject(out, identityCols(ir.Arity(rel))...), nil
}

// filtered returns a filter's result, which is the domain base of the
// subqueries planned over it (domainBase): the select list's, HAVING's or
// an enclosing JOIN's are computed for the rows the filter keeps, not for
// the rows before its semi-joins, and so never fail for rows it drops.
func (b *builder) filtered(rel ir.Rel) ir.Rel {
	delete(b.domainBases, rel)
	return rel
}

// expandTargets expands * and t.* and names the select-list entries.
func (b *builder) expandTargets(list []*pg_query.Node, sc *scope) ([]target, error) {
	var out []target
	for _, n := range list {
		rt := n.GetResTarget()
		if ref := rt.Val.GetColumnRef(); ref != nil && ref.Fields[len(ref.Fields)-1].GetAStar() != nil {
			table := ""
			if len(ref.Fields) > 1 {
				table = ref.Fields[len(ref.Fields)-2].GetString_().GetSval()
			}
			if len(ref.Fields) > 2 {
				table = ref.Fields[len(ref.Fields)-3].GetString_().GetSval() + "." + table
			}
			cols, err := sc.starCols(table, ref.Location)
			if err != nil {
				return nil, err
			}
			if table == "" && len(cols) == 0 && len(sc.cols) == sc.outerCount() {
				return nil, repr.Errorf(repr.CodeSyntax, "SELECT * with no tables specified is not valid").WithPosition(ref.Location + 1)
			}
			b.traceStar(ref, sc, cols)
			for _, c := range cols {
				out = append(out, target{col: c, name: sc.cols[c].name, loc: ref.Location})
			}
			continue
		}
		name := rt.Name
		if name == "" {
			name = columnName(rt.Val)
		}
		out = append(out, target{node: rt.Val, name: name, loc: rt.Location})
	}
	return out, nil
}

// needsGrouping reports whether the block aggregates.
func (b *builder) needsGrouping(sel *pg_query.SelectStmt, targets []target) bool {
	if len(sel.GroupClause) > 0 || sel.HavingClause != nil {
		return true
	}
	return len(b.blockAggs(sel, targets)) > 0
}

// blockAggs returns the aggregate calls block sel computes: those of its
// select list, HAVING, ORDER BY and window clauses, and the outer-level
// calls of its subqueries it owns (ownedAggs).
func (b *builder) blockAggs(sel *pg_query.SelectStmt, targets []target) []*pg_query.FuncCall {
	var calls []*pg_query.FuncCall
	var nodes []*pg_query.Node
	for _, t := range targets {
		nodes = append(nodes, t.node)
	}
	nodes = append(nodes, sel.HavingClause)
	nodes = append(nodes, slices.Concat(sel.SortClause, windowClauseNodes(sel))...)
	for _, n := range nodes {
		collectAggs(n, &calls)
	}
	return b.ownedAggs(sel, calls, nodes)
}

// planGrouping plans GROUP BY, the aggregates and HAVING, returning the
// context for building the select list over the aggregated relation.
func (b *builder) planGrouping(sel *pg_query.SelectStmt, targets []target, from *ectx, p *planned) (*ectx, error) {
	from.clause = "GROUP BY"
	from.noSubquery = true
	setNodes, plain, err := groupSets(sel, targets, from.sc)
	if err != nil {
		return nil, err
	}
	srfs, err := b.planGroupSRFs(setNodes, from)
	if err != nil {
		return nil, err
	}
	var keys []expr.Expr
	var subKeys []subqueryKey
	sets := make([][]int, len(setNodes))
	twins := map[*pg_query.Node]int{} // see twinTargetNode
	for si, set := range setNodes {
		for _, n := range set {
			i, seen := twins[n]
			if !seen {
				if i, err = from.groupKeyIndex(n, &keys, &subKeys); err != nil {
					return nil, err
				}
				if !plain && twinTargetNode(n, targets, from.sc) {
					keys = append(keys, keys[i])
					i = len(keys) - 1
					twins[n] = i
				}
			}
			sets[si] = append(sets[si], i)
		}
	}
	from.twinKeys = twins
	if sel.GroupDistinct {
		sets = distinctSets(sets)
	}
	if plain {
		sets = nil
		from.groupCols = keyColumns(keys)
		for _, k := range keys {
			from.groupKeys = append(from.groupKeys, k.String())
		}
	}
	from.srfs, from.srfCalls, from.srfFields = nil, nil, nil // read only where PostgreSQL allows them (srfgroup.go)
	calls := b.blockAggs(sel, targets)
	// Aggregate arguments may hold subqueries: decorrelating one appends
	// its column to from.rel, keeping the rows and the key columns. A
	// session window groups its own input, which has no room for them.
	from.clause = "aggregate"
	from.noSubquery = b.sessions.scopes[from.sc] != nil
	specs := make([]aggSpec, len(calls))
	for i, fc := range calls {
		if specs[i], err = b.buildAgg(fc, from); err != nil {
			return nil, err
		}
	}
	if from.rel, err = b.groupSession(from, keys); err != nil {
		return nil, err
	}
	ec, err := b.reduce(from, keys, subKeys, sets, calls, specs, sel, p)
	if err != nil {
		return nil, err
	}
	ec.grp.srfs = srfs
	return ec, nil
}

// distinctSets drops the grouping sets that group by the same keys as an
// earlier one (GROUP BY DISTINCT; a set's order and repeats do not
// matter, as in PostgreSQL's expand_grouping_sets).
func distinctSets(sets [][]int) [][]int {
	seen := map[string]bool{}
	var out [][]int
	for _, set := range sets {
		k := slices.Compact(slices.Sorted(slices.Values(set)))
		if id := fmt.Sprint(k); !seen[id] {
			seen[id] = true
			out = append(out, set)
		}
	}
	return out
}

// twinTargetNode reports whether n, a grouping-set item, is the node of a
// select-list entry (named by its output name or ordinal) equal to an
// earlier entry. PostgreSQL groups by select-list entries, not by
// expressions: in SELECT g AS a1, g AS a2 ... GROUP BY a1, ROLLUP (a2)
// the two are separate keys, and a2 is NULL in the rows of the set {a1}
// (groupingsets.sql, "distinct grouping columns are kept separate even if
// they are equal()"). Such an item gets a key of its own, which only
// that entry reads (grouping.twinKeys); every other expression equal to
// it reads the first entry's key, as PostgreSQL matches it to the first
// equal entry.
func twinTargetNode(n *pg_query.Node, targets []target, sc *scope) bool {
	for i, t := range targets {
		if t.node == n && n != nil {
			for _, u := range targets[:i] {
				if sameParse(targetNode(u, sc), n) {
					return true
				}
			}
			return false
		}
	}
	return false
}

// groupKey builds one GROUP BY key expression (unknown literals as text).
func (from *ectx) groupKey(n *pg_query.Node) (expr.Expr, error) {
	e, err := from.expr(n)
	if err != nil {
		return nil, err
	}
	if e.Type().Family == repr.FamUnknown {
		return from.b.coerce(e, repr.Text)
	}
	return e, nil
}

// groupKeyNode resolves one GROUP BY key: ordinals and output names refer
// to select-list entries (input column names take precedence, as in
// PostgreSQL).
func groupKeyNode(g *pg_query.Node, targets []target, sc *scope) (*pg_query.Node, error) {
	switch {
	case g.GetAConst() != nil && g.GetAConst().GetIval() != nil:
		i := int(g.GetAConst().GetIval().Ival)
		if i < 1 || i > len(targets) {
			return nil, repr.Errorf("42P10", "GROUP BY position %d is not in select list", i).WithPosition(g.GetAConst().Location + 1)
		}
		return targetNode(targets[i-1], sc), nil
	case g.GetColumnRef() != nil && len(g.GetColumnRef().Fields) == 1:
		name := g.GetColumnRef().Fields[0].GetString_().GetSval()
		if i, _ := sc.lookup("", name, 0); i < 0 {
			if t, ok := targetByName(targets, name); ok {
				return targetNode(t, sc), nil
			}
		}
	}
	return g, nil
}

// targetNode returns the AST of a target (a column reference for * columns).
func targetNode(t target, sc *scope) *pg_query.Node {
	if t.node != nil {
		return t.node
	}
	c := sc.cols[t.col]
	fields := []*pg_query.Node{pg_query.MakeStrNode(c.name)}
	if c.table != "" {
		fields = append([]*pg_query.Node{pg_query.MakeStrNode(c.table)}, fields...)
	}
	return pg_query.MakeColumnRefNode(fields, t.loc)
}

// targetByName finds the unique select-list entry with the given name.
func targetByName(targets []target, name string) (target, bool) {
	found, n := target{}, 0
	for _, t := range targets {
		if t.name == name {
			found, n = t, n+1
		}
	}
	return found, n == 1
}

// reduce builds the aggregation: a Map computing keys and aggregate
// arguments, a Reduce keyed by the outer values and the keys, and for a
// correlated global aggregate the fill of empty groups (see fillGroups).
func (b *builder) reduce(from *ectx, keys []expr.Expr, subKeys []subqueryKey, sets [][]int, calls []*pg_query.FuncCall, specs []aggSpec, sel *pg_query.SelectStmt, p *planned) (*ectx, error) {
	n := ir.Arity(from.rel)
	var maps []expr.Expr
	mapped := map[string]int{}
	column := func(e expr.Expr) int {
		if c, ok := e.(*expr.Col); ok {
			return c.Idx
		}
		if i, ok := mapped[e.String()]; ok {
			return i
		}
		maps = append(maps, e)
		mapped[e.String()] = n + len(maps) - 1
		return n + len(maps) - 1
	}
	key := identityCols(p.nOuter)
	for _, k := range keys {
		key = append(key, column(k))
	}
	if err := noEquality(b, exprTypes(keys), -1); err != nil {
		return nil, err
	}
	b.noteGrouping(exprTypes(keys))
	aggs, pos := dedupAggs(specs, column)
	rkey, err := directKey(key, aggs, len(keys)+p.nOuter, sets)
	if err != nil {
		return nil, err
	}
	var rel ir.Rel = &ir.Reduce{Input: ir.NewMap(from.rel, maps...), Key: rkey, Aggs: aggs}
	if len(rkey) > len(key) { // drop the direct arguments' key columns
		cols := identityCols(len(key))
		for j := range aggs {
			cols = append(cols, len(rkey)+j)
		}
		rel = ir.NewProject(rel, cols...)
	}
	if sets != nil {
		rel = groupingSetsRel(ir.NewMap(from.rel, maps...), p.nOuter, key, sets, aggs, setDirect(from.rel, maps, keys),
			func(r ir.Rel) ir.Rel {
				if p.nOuter == 0 {
					return b.fillFrom(r, unitRel(), 0, aggs)
				}
				return b.fillGroups(r, from, aggs)
			})
	}
	switch {
	case len(keys) == 0 && p.nOuter > 0:
		rel = b.fillGroups(rel, from, aggs)
	case isFillTag(sel) && sets == nil:
		rel = b.fillTags(rel, from, aggs)
	}
	if len(aggs) < len(specs) {
		rel = spreadAggs(rel, len(key), len(aggs), pos)
	}
	p.atMostOne = len(keys) == 0 && len(sets) <= 1
	g, sc := groupScope(from, keys, calls, p.nOuter)
	b.scopeOwner[sc] = sel
	for _, fc := range calls {
		if b.outerAggs[fc] == sel {
			c := &sc.cols[g.aggs[fc]]
			c.agg, c.typ = fc, rel.ColTypes()[g.aggs[fc]]
		}
	}
	g.subKeys = subKeys
	if sets != nil {
		g.bitsCol = len(sc.cols)
		sc.cols = append(sc.cols, scopeCol{typ: repr.Int8, hidden: true})
	}
	ec := &ectx{b: b, sc: sc, rel: rel, clause: "HAVING", grp: g}
	if err := ec.ownedGroupings(sel); err != nil {
		return nil, err
	}
	rel = ec.rel
	// The plain conjuncts first: the subqueries are then computed for
	// the groups they keep only (as filter does for WHERE).
	plain, sub := splitSubLinks(sel.HavingClause)
	for _, conj := range []*pg_query.Node{plain, sub} {
		if conj == nil {
			continue
		}
		pred, err := ec.predicate(conj)
		if err != nil {
			return nil, err
		}
		ec.rel = ir.NewProject(ir.NewFilter(ec.rel, pred), identityCols(ir.Arity(rel))...)
	}
	ec.clause = "SELECT"
	return ec, nil
}

// directKey returns the Reduce's key: key, then the column of each
// per-group direct argument (expr.Agg.DirectKey) that key lacks. An
// expression of the grouped and outer columns is the same on every row of
// a group, so keying by it too splits no group. Without GROUP BY keys and
// outer values (a global aggregate keeps its one row even when empty)
// such an argument is 0A000; grouping sets key each set's Reduce
// (groupingSetsRel), not this one.
func directKey(key []int, aggs []expr.Agg, nKeys int, sets [][]int) ([]int, error) {
	out := key
	for _, a := range aggs {
		if !a.DirectKey || slices.Contains(out, a.DirectCol) || sets != nil {
			continue
		}
		if nKeys == 0 {
			return nil, repr.Unsupported("a direct argument of %s that is not a constant, without GROUP BY", a.Kind)
		}
		out = append(slices.Clip(out), a.DirectCol)
	}
	return out, nil
}

// dedupAggs builds the Reduce's aggregates of specs, computing each
// distinct call once (sum(x) in the select list and in ORDER BY or HAVING
// is one aggregate, one state): pos[i] is the aggregate of specs[i].
func dedupAggs(specs []aggSpec, column func(expr.Expr) int) (aggs []expr.Agg, pos []int) {
	seen := map[string]int{}
	pos = make([]int, len(specs))
	for i, s := range specs {
		a := s.dataflow(column)
		k := a.String() + " " + a.T.Name()
		j, ok := seen[k]
		if !ok {
			j = len(aggs)
			seen[k] = j
			aggs = append(aggs, a)
		}
		pos[i] = j
	}
	return aggs, pos
}

// spreadAggs restores one column per aggregate call after dedupAggs:
// rel's first nKey columns, then aggregate pos[i] for each call, then
// whatever follows the nAgg aggregates (the grouping-set bits).
func spreadAggs(rel ir.Rel, nKey, nAgg int, pos []int) ir.Rel {
	cols := identityCols(nKey)
	for _, p := range pos {
		cols = append(cols, nKey+p)
	}
	for c := nKey + nAgg; c < ir.Arity(rel); c++ {
		cols = append(cols, c)
	}
	return ir.NewProject(rel, cols...)
}

// groupScope describes the aggregated relation: outer values, keys (named
// when they are plain columns), aggregates.
func groupScope(from *ectx, keys []expr.Expr, calls []*pg_query.FuncCall, nOuter int) (*grouping, *scope) {
	g := &grouping{from: from.sc, fromRel: from.rel, aggs: map[*pg_query.FuncCall]int{}, bitsCol: -1}
	sc := &scope{parent: from.sc.parent, cols: append([]scopeCol(nil), from.sc.cols[:nOuter]...), ungrouped: from.sc}
	twin := map[int]bool{}
	for n, i := range from.twinKeys {
		if g.twinKeys == nil {
			g.twinKeys = map[*pg_query.Node]int{}
		}
		twin[i], g.twinKeys[n] = true, nOuter+i
	}
	for i, k := range keys {
		if twin[i] { // read only through twinKeys: no expression matches it
			g.keys = append(g.keys, "")
			g.keyCols = append(g.keyCols, nOuter+i)
			sc.cols = append(sc.cols, scopeCol{typ: k.Type(), hidden: true})
			continue
		}
		g.keys = append(g.keys, k.String())
		g.keyCols = append(g.keyCols, nOuter+i)
		col := scopeCol{typ: k.Type(), hidden: true, fields: from.records[k]}
		if c, ok := k.(*expr.Col); ok && c.Idx < len(from.sc.cols) { // not a GROUP BY call's column
			col = from.sc.cols[c.Idx]
		}
		sc.cols = append(sc.cols, col)
	}
	for i, fc := range calls {
		g.aggs[fc] = nOuter + len(keys) + i
		sc.cols = append(sc.cols, scopeCol{typ: repr.Unknown, hidden: true})
	}
	return g, sc
}

// fillGroups makes a correlated global aggregate yield one row per outer
// value even when the subquery is empty for it, as SQL requires: the outer
// values are left-joined to the per-value aggregates, and count columns of
// missing groups become 0 (other aggregates stay NULL).
func (b *builder) fillGroups(reduced ir.Rel, from *ectx, aggs []expr.Agg) ir.Rel {
	return b.fillFrom(reduced, from.sc.outerRel, from.sc.outerCount(), aggs)
}

// fillFrom left-joins the domain dom (k columns) to reduced, whose first
// k columns key it, and gives each aggregate of a group dom has and
// reduced lacks its value over no rows (0 for count, else NULL).
func (b *builder) fillFrom(reduced, dom ir.Rel, k int, aggs []expr.Agg) ir.Rel {
	on := b.nullSafeKeys(dom, reduced, identityCols(k), identityCols(k))
	if len(on) == 0 { // k = 0: the one group of a global aggregate
		on = []expr.Expr{boolLit(true)}
	}
	joined := ir.NewJoin(ir.JoinLeft, dom, reduced, on...)
	var maps []expr.Expr
	width := ir.Arity(dom) + ir.Arity(reduced)
	proj := identityCols(k)
	ts := joined.ColTypes()
	for i, a := range aggs {
		col := k + k + i
		if a.Kind == expr.AggCount || a.Kind == expr.AggCountStar {
			maps = append(maps, &expr.Coalesce{Args: []expr.Expr{&expr.Col{Idx: col, T: ts[col]},
				&expr.Lit{D: repr.NewInt(0), T: repr.Int8}}, T: repr.Int8})
			proj = append(proj, width+len(maps)-1)
			continue
		}
		proj = append(proj, col)
	}
	return ir.NewProject(ir.NewMap(joined, maps...), proj...)
}
