package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// RecursionLimit bounds the iterations of a WITH RECURSIVE query (the
// Limit of its ir.Iterate): a recursion still producing changes after it
// fails with 54001 instead of running forever, as a UNION ALL recursion
// over a cycle would in PostgreSQL.
const RecursionLimit = 100000

// recContext is where a reference to a recursive CTE appears, after
// PostgreSQL's checkWellFormedRecursion: only a plain reference in the
// recursive term (possibly in a FROM subquery or on the preserved side of
// an outer join) is allowed.
type recContext int

const (
	recOK recContext = iota
	recNonRecursiveTerm
	recSubLink
	recOuterJoin
	recIntersect
	recExcept
)

var recContextMsgs = [...]string{
	recNonRecursiveTerm: "recursive reference to query %q must not appear within its non-recursive term",
	recSubLink:          "recursive reference to query %q must not appear within a subquery",
	recOuterJoin:        "recursive reference to query %q must not appear within an outer join",
	recIntersect:        "recursive reference to query %q must not appear within INTERSECT",
	recExcept:           "recursive reference to query %q must not appear within EXCEPT",
}

// recWalker finds the references to a CTE name in a parse tree, with the
// context of each, skipping subtrees whose own WITH declares the name.
type recWalker struct {
	name string
	// visit is called for each reference; a non-nil error stops the walk.
	visit func(ctx recContext, rv *pg_query.RangeVar) error
	// levels are the query blocks enclosing the node being walked,
	// innermost last.
	levels []*pg_query.SelectStmt
}

// walk visits m and its descendants in context ctx.
func (w *recWalker) walk(m protoreflect.Message, ctx recContext) error {
	switch n := m.Interface().(type) {
	case *pg_query.RangeVar:
		if n.Relname == w.name && n.Schemaname == "" {
			return w.visit(ctx, n)
		}
		return nil
	case *pg_query.SubLink:
		if err := w.walkNode(n.Testexpr, ctx); err != nil {
			return err
		}
		return w.walkNode(n.Subselect, recSubLink)
	case *pg_query.JoinExpr:
		return w.join(n, ctx)
	case *pg_query.SelectStmt:
		return w.selectStmt(n, ctx)
	}
	return w.children(m, ctx)
}

// walkNode walks a node that may be nil.
func (w *recWalker) walkNode(n *pg_query.Node, ctx recContext) error {
	if n == nil {
		return nil
	}
	return w.walk(n.ProtoReflect(), ctx)
}

// children walks every message field of m.
func (w *recWalker) children(m protoreflect.Message, ctx recContext) error {
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			l := v.List()
			for i := 0; i < l.Len() && err == nil; i++ {
				err = w.walk(l.Get(i).Message(), ctx)
			}
		case fd.Kind() == protoreflect.MessageKind && !fd.IsMap():
			err = w.walk(v.Message(), ctx)
		}
		return err == nil
	})
	return err
}

// join walks a join's inputs, the nullable sides in the outer-join context.
func (w *recWalker) join(j *pg_query.JoinExpr, ctx recContext) error {
	lctx, rctx := ctx, ctx
	switch j.Jointype {
	case pg_query.JoinType_JOIN_LEFT:
		rctx = recOuterJoin
	case pg_query.JoinType_JOIN_RIGHT:
		lctx = recOuterJoin
	case pg_query.JoinType_JOIN_FULL:
		lctx, rctx = recOuterJoin, recOuterJoin
	}
	for _, e := range []struct {
		n   *pg_query.Node
		ctx recContext
	}{{j.Larg, lctx}, {j.Rarg, rctx}, {j.Quals, ctx}} {
		if err := w.walkNode(e.n, e.ctx); err != nil {
			return err
		}
	}
	return nil
}

// selectStmt walks a query block: not at all if its WITH shadows the
// name, the arms of INTERSECT ALL and EXCEPT in their contexts, as
// PostgreSQL's checkWellFormedRecursionWalker: the reference may appear
// in either arm of INTERSECT and on the left of EXCEPT, not under ALL.
func (w *recWalker) selectStmt(s *pg_query.SelectStmt, ctx recContext) error {
	if s.WithClause != nil {
		for _, c := range s.WithClause.Ctes {
			if c.GetCommonTableExpr().GetCtename() == w.name {
				return nil
			}
		}
	}
	w.levels = append(w.levels, s)
	defer func() { w.levels = w.levels[:len(w.levels)-1] }()
	switch s.Op {
	case pg_query.SetOperation_SETOP_INTERSECT:
		if s.All {
			return w.setOp(s, recIntersect, recIntersect, ctx)
		}
	case pg_query.SetOperation_SETOP_EXCEPT:
		if s.All {
			return w.setOp(s, recExcept, recExcept, ctx)
		}
		return w.setOp(s, ctx, recExcept, ctx)
	}
	return w.children(s.ProtoReflect(), ctx)
}

// setOp walks an INTERSECT or EXCEPT: its arms in contexts l and r, its
// ORDER BY, LIMIT and OFFSET in ctx (its WITH is not walked, as in
// PostgreSQL).
func (w *recWalker) setOp(s *pg_query.SelectStmt, l, r, ctx recContext) error {
	if err := w.walk(s.Larg.ProtoReflect(), l); err != nil {
		return err
	}
	if err := w.walk(s.Rarg.ProtoReflect(), r); err != nil {
		return err
	}
	for _, n := range append([]*pg_query.Node{s.LimitOffset, s.LimitCount}, s.SortClause...) {
		if err := w.walkNode(n, ctx); err != nil {
			return err
		}
	}
	return nil
}

// hasAggregates reports whether a query block's select list or HAVING
// calls an aggregate of its own.
func hasAggregates(s *pg_query.SelectStmt) bool {
	var calls []*pg_query.FuncCall
	for _, t := range s.TargetList {
		collectAggs(t, &calls)
	}
	collectAggs(s.HavingClause, &calls)
	return len(calls) > 0
}

// linearLevels checks the query blocks enclosing a plain reference: an
// aggregate in the block whose FROM holds it is 42P19, as in PostgreSQL.
// PostgreSQL applies DISTINCT, GROUP BY and aggregates of enclosing
// blocks to each iteration's new rows alone; a fixed point over the whole
// relation agrees for DISTINCT, GROUP BY and set operations without ALL
// under UNION (set semantics) only, so unless tagged (tagIterations keyed
// them by iteration) the others are 0A000.
func linearLevels(levels []*pg_query.SelectStmt, name string, all, tagged bool, pos int32) error {
	for i, l := range levels {
		aggs := hasAggregates(l)
		switch {
		case aggs && i == len(levels)-1:
			return repr.Errorf("42P19", "aggregate functions are not allowed in a recursive query's recursive term").WithPosition(pos)
		case tagged:
		case aggs || len(windowsOf(l)) > 0:
			return repr.Unsupported("aggregates or window functions over a subquery reading the recursive reference %q", name).WithPosition(pos)
		case all && (len(l.DistinctClause) > 0 || len(l.GroupClause) > 0):
			return repr.Unsupported("DISTINCT or GROUP BY over the recursive reference %q in a UNION ALL recursion", name).WithPosition(pos)
		case all && l.Op != pg_query.SetOperation_SETOP_NONE && !l.All:
			return repr.Unsupported("UNION, INTERSECT or EXCEPT without ALL over the recursive reference %q in a UNION ALL recursion", name).WithPosition(pos)
		}
	}
	return nil
}

// references counts the references to name in n (any context).
func references(n *pg_query.Node, name string) int {
	count := 0
	w := &recWalker{name: name, visit: func(recContext, *pg_query.RangeVar) error { count++; return nil }}
	_ = w.walkNode(n, recOK)
	return count
}

// checkRecursive checks that the recursive CTE ce has PostgreSQL's form,
// non-recursive-term UNION [ALL] recursive-term, with exactly one plain
// reference to itself, in the recursive term (42P19 otherwise), and no
// ORDER BY, LIMIT, OFFSET or FOR UPDATE on the union (0A000). tagged
// says tagIterations rewrote the query, so DISTINCT, GROUP BY and
// aggregates over the reference are per iteration.
func checkRecursive(ce *pg_query.CommonTableExpr, sel *pg_query.SelectStmt, tagged bool) error {
	name, pos := ce.Ctename, ce.Location+1
	if sel.Op != pg_query.SetOperation_SETOP_UNION {
		return repr.Errorf("42P19", "recursive query %q does not have the form non-recursive-term UNION [ALL] recursive-term", name).WithPosition(pos)
	}
	switch {
	case sel.WithClause != nil:
		return repr.Unsupported("WITH on the UNION of a recursive query").WithPosition(pos)
	case len(sel.SortClause) > 0:
		return repr.Errorf(repr.CodeFeatureNotSupported, "ORDER BY in a recursive query is not implemented").WithPosition(pos)
	case sel.LimitOffset != nil:
		return repr.Errorf(repr.CodeFeatureNotSupported, "OFFSET in a recursive query is not implemented").WithPosition(pos)
	case sel.LimitCount != nil:
		return repr.Errorf(repr.CodeFeatureNotSupported, "LIMIT in a recursive query is not implemented").WithPosition(pos)
	case len(sel.LockingClause) > 0:
		return repr.Errorf(repr.CodeFeatureNotSupported, "FOR UPDATE/SHARE in a recursive query is not implemented").WithPosition(pos)
	}
	refs := 0
	w := &recWalker{name: name}
	w.visit = func(ctx recContext, rv *pg_query.RangeVar) error {
		if ctx != recOK {
			return repr.Errorf("42P19", recContextMsgs[ctx], name).WithPosition(rv.Location + 1)
		}
		if refs++; refs > 1 {
			return repr.Errorf("42P19", "recursive reference to query %q must not appear more than once", name).WithPosition(rv.Location + 1)
		}
		return linearLevels(w.levels, name, sel.All, tagged, rv.Location+1)
	}
	if err := w.walk(sel.Larg.ProtoReflect(), recNonRecursiveTerm); err != nil {
		return err
	}
	return w.walk(sel.Rarg.ProtoReflect(), recOK)
}

// orderRecursive orders a WITH RECURSIVE list so that no CTE references a
// later one (PostgreSQL's makeDependencyGraph): a cycle between CTEs is
// mutual recursion, 0A000.
func orderRecursive(ctes []*pg_query.Node) ([]*pg_query.CommonTableExpr, error) {
	var items []*pg_query.CommonTableExpr
	for _, n := range ctes {
		items = append(items, n.GetCommonTableExpr())
	}
	var out []*pg_query.CommonTableExpr
	done := map[int]bool{}
	for len(out) < len(items) {
		next := -1
		for i, c := range items {
			if !done[i] && !dependsOnPending(c, items, done, i) {
				next = i
				break
			}
		}
		if next < 0 {
			for i, c := range items {
				if !done[i] {
					return nil, repr.Errorf(repr.CodeFeatureNotSupported, "mutual recursion between WITH items is not implemented").WithPosition(c.Location + 1)
				}
			}
		}
		done[next] = true
		out = append(out, items[next])
	}
	return out, nil
}

// dependsOnPending reports whether c (item self) references another item
// not yet ordered.
func dependsOnPending(c *pg_query.CommonTableExpr, items []*pg_query.CommonTableExpr, done map[int]bool, self int) bool {
	for j, o := range items {
		if j != self && !done[j] && references(c.Ctequery, o.Ctename) > 0 {
			return true
		}
	}
	return false
}

// planRecursiveCTE plans a self-referencing CTE as an ir.Iterate whose
// body is Distinct(Union(base, step)) for UNION and Union(base, step) for
// UNION ALL. The column names and types are the non-recursive term's
// (unknown literals become text); the recursive term reads the CTE as an
// ir.LoopVar and its columns must unify to the same types (42804 as in
// PostgreSQL otherwise).
//
// Over outer values (outer set: a recursion reading the enclosing
// queries' columns, recInline), both terms are planned over them, so every
// row leads with its outer value and the loop runs once per outer value
// in one Iterate: the recursive term's reference to the loop variable
// carries the value (cte.nOuter), which planFrom aligns with the term's
// own outer values (loopKeys).
func (b *builder) planRecursiveCTE(ce *pg_query.CommonTableExpr, sel *pg_query.SelectStmt, parent *scope, outer *outerRel) (*cte, error) {
	if w := sel.WithClause; w != nil && !withReads(w, ce.Ctename) {
		return b.recursionUnderWith(ce, sel, parent, outer)
	}
	t, tagged, why := tagIterations(ce, sel)
	if why != nil { // PostgreSQL's 42P19 first
		if err := checkRecursive(ce, sel, true); err != nil {
			return nil, err
		}
		return nil, why
	}
	if tagged {
		ce, sel = t, t.Ctequery.GetSelectStmt()
	}
	scc := ce.SearchClause != nil || ce.CycleClause != nil
	if scc && outer != nil {
		return nil, repr.Unsupported("SEARCH or CYCLE in a recursive WITH query reading the enclosing query's columns").WithPosition(ce.Location + 1)
	}
	if scc {
		if err := checkSCCForm(ce, sel, tagged); err != nil {
			return nil, err
		}
	}
	if err := checkRecursive(ce, sel, tagged); err != nil {
		return nil, err
	}
	if err := checkReread(ce, sel); err != nil {
		return nil, err
	}
	base, err := b.planQuery(sel.Larg, &scope{parent: parent}, outer)
	if err != nil {
		return nil, err
	}
	cols, err := cteColumns(ce, base.cols)
	if err != nil {
		return nil, err
	}
	var sc *searchCycle
	recTerm := sel.Rarg
	if scc {
		if sc, err = b.resolveSCC(ce, cols); err != nil {
			return nil, err
		}
		if recTerm, err = sccRecursiveTerm(ce, recTerm, sc); err != nil {
			return nil, err
		}
	}
	b.loopIDs++
	v := &ir.LoopVar{ID: b.loopIDs, Name: ce.Ctename}
	loopCols := cols
	if sc != nil {
		loopCols = withSCCColumns(cols, sc, true)
	}
	v.Types = append(v.Types, base.rel.ColTypes()[:base.nOuter]...)
	for _, c := range loopCols {
		v.Types = append(v.Types, c.Type)
	}
	c := &cte{name: ce.Ctename, rel: v, cols: loopCols, nOuter: base.nOuter}
	if outer != nil {
		c.outer = outer.rel
	}
	b.ctes = append(b.ctes, c)
	defer func() { b.ctes = b.ctes[:len(b.ctes)-1] }()
	if tagged {
		b.tagging++
		b.tagDomains = append(b.tagDomains, liveIterations(v, b.subqueryRel(base)))
	}
	rec, err := b.planQuery(recTerm, &scope{parent: parent}, outer)
	if tagged {
		b.tagging--
		b.tagDomains = b.tagDomains[:len(b.tagDomains)-1]
	}
	if err != nil {
		return nil, err
	}
	body, err := b.recursiveBody(ce, sel, base, rec, sc, tagged)
	if err != nil {
		return nil, err
	}
	if err := checkLoopTopK(body, v.ID, tagged); err != nil {
		return nil, err
	}
	c.rel = &ir.Iterate{ID: v.ID, Name: ce.Ctename, Types: v.Types, Body: body, Limit: RecursionLimit}
	switch {
	case tagged: // hide the iteration column
		n := len(cols) - 1
		c.rel, c.cols = ir.NewProject(c.rel, identityCols(c.nOuter+n)...), cols[:n]
	case sc != nil:
		c.cols = withSCCColumns(cols, sc, false)
	}
	return c, nil
}

// recursiveBody unifies the terms' columns and builds the Iterate body.
// A tagged UNION keeps, per row, the least iteration tag it has (its
// last column): the rows tagged i are then PostgreSQL's working table of
// iteration i, the rows first produced by it.
func (b *builder) recursiveBody(ce *pg_query.CommonTableExpr, sel *pg_query.SelectStmt, base, rec *planned, sc *searchCycle, tagged bool) (ir.Rel, error) {
	baseRel, baseCols := b.subqueryRel(base), base.cols
	extra := 0
	if sc != nil {
		var err error
		if baseRel, err = b.sccBase(baseRel, base.cols, sc); err != nil {
			return nil, err
		}
		baseCols, extra = withSCCColumns(base.cols, sc, true), len(sc.extraTypes())
	}
	if len(rec.cols) != len(baseCols) {
		return nil, repr.Errorf(repr.CodeSyntax, "each UNION query must have the same number of columns").WithPosition(ce.Location + 1)
	}
	nO := base.nOuter
	lr, rr, unified, err := b.unifySides(baseRel, b.subqueryRel(rec), nO, baseCols, rec.cols, "UNION")
	if err != nil {
		return nil, err
	}
	if sc != nil {
		if rr, err = b.sccStep(rr, unified, sc); err != nil {
			return nil, err
		}
		unified = unified[:len(unified)-extra]
	}
	for i, u := range unified {
		if u.Type != base.cols[i].Type {
			return nil, repr.Errorf(repr.CodeDatatypeMismatch, "recursive query %q column %d has type %s in non-recursive term but type %s overall",
				ce.Ctename, i+1, base.cols[i].Type, u.Type).WithPosition(ce.Location + 1).
				WithHint("Cast the output of the non-recursive term to the correct type.")
		}
	}
	switch {
	case sel.All:
		return ir.NewUnion(lr, rr), nil
	case tagged:
		n := nO + len(unified) - 1
		return &ir.TopK{Input: ir.NewUnion(lr, rr), Key: identityCols(n), Order: []expr.SortCol{{Col: n}}, Limit: 1}, nil
	}
	return ir.NewDistinct(ir.NewUnion(lr, rr)), nil
}

// recursionOver plans the UNION of an inlined recursive CTE (recInline)
// as a derived table: the recursion over the outer values, if any, with
// the CTEs before it in scope.
func (b *builder) recursionOver(ce *pg_query.CommonTableExpr, sel *pg_query.SelectStmt, parent *scope, outer *outerRel) (*planned, error) {
	c, err := b.planRecursiveCTE(ce, sel, parent, outer)
	if err != nil {
		return nil, err
	}
	return &planned{rel: c.rel, cols: c.cols, nOuter: c.nOuter, limit: -1}, nil
}
