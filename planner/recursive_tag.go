package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// iterCol names the hidden iteration column of a tagged recursion; no
// SQL identifier can spell it unquoted and the rewrite builds the
// references itself.
const iterCol = "?iteration?"

// isTag reports whether a column named name is the iteration tag of a
// tagged recursive term being planned.
func (b *builder) isTag(name string) bool {
	return b.tagging > 0 && name == iterCol
}

// cteWidth is the number of columns of recursive WITH query ce whose
// non-recursive term is base: its column list's, else base's items
// (-1 when a * among them hides the count).
func cteWidth(ce *pg_query.CommonTableExpr, base *pg_query.SelectStmt) int {
	if len(ce.Aliascolnames) > 0 {
		return len(ce.Aliascolnames)
	}
	if len(base.ValuesLists) > 0 {
		return len(base.ValuesLists[0].GetList().GetItems())
	}
	for _, t := range base.TargetList {
		if rt := t.GetResTarget(); rt == nil || rt.Val.GetColumnRef() != nil && isStar(rt.Val) {
			return -1
		}
	}
	return len(base.TargetList)
}

// tagIterations rewrites a recursion whose recursive term applies
// DISTINCT, GROUP BY, aggregates, DISTINCT ON or LIMIT/OFFSET to the
// recursive reference, directly or through FROM subqueries, so that a
// fixed point computes what PostgreSQL computes. PostgreSQL applies them
// to each iteration's working table alone; tagging every row with its
// iteration (0 in the non-recursive term, the reference's plus 1 in the
// recursive term) and carrying the tag up through each query block
// between the reference and the term (every block selects its source's
// tag and adds it to its GROUP BY, or makes it the GROUP BY of an
// aggregate without one, and leads its DISTINCT ON and ORDER BY with it;
// a LIMIT ranks within it: limitKey) makes the fixed point's groups those
// iterations. Under UNION (not ALL) the Iterate body keeps each row's
// least tag (recursiveBody), so the rows with tag i are the working table
// of iteration i. It returns the rewritten copy of the CTE and true;
// false when the query needs no tag or is not a plain recursion (the
// checks then plan or refuse it untagged); a 0A000 naming what stops the
// tag when the query needs one and cannot carry it. The caller hides the
// tag.
func tagIterations(ce *pg_query.CommonTableExpr, sel *pg_query.SelectStmt) (*pg_query.CommonTableExpr, bool, error) {
	base, rec := sel.GetLarg(), sel.GetRarg()
	if sel.Op != pg_query.SetOperation_SETOP_UNION || base == nil || rec == nil || base.Op != pg_query.SetOperation_SETOP_NONE ||
		len(base.TargetList) == 0 && len(base.ValuesLists) == 0 {
		return nil, false, nil
	}
	out := proto.Clone(ce).(*pg_query.CommonTableExpr)
	osel := out.Ctequery.GetSelectStmt()
	ref, levels := findReference(osel.Rarg, ce.Ctename)
	if ref == nil || !needsTag(levels, sel.All) {
		return nil, false, nil
	}
	if ref.Alias != nil && len(ref.Alias.Colnames) > 0 {
		// r q(a, b): the alias list names the tag too, as a FROM
		// subquery's does below; a partial list would rename a column.
		if len(ref.Alias.Colnames) != cteWidth(ce, base) {
			return nil, false, repr.Unsupported("column aliases for some of the columns of the recursive reference %q under DISTINCT, GROUP BY, aggregates or LIMIT", ce.Ctename).WithPosition(ref.Location + 1)
		}
		ref.Alias.Colnames = append(ref.Alias.Colnames, pg_query.MakeStrNode(iterCol))
	}
	if err := setOpOnPath(levels, sel.All); err != nil {
		return nil, false, err.WithPosition(ref.Location + 1)
	}
	src := ref.Relname
	if ref.Alias != nil {
		src = ref.Alias.Aliasname
	}
	for i := len(levels) - 1; i >= 0; i-- {
		if err := tagLevel(levels, i, src); err != nil {
			return nil, false, err.WithPosition(ref.Location + 1)
		}
		if i > 0 {
			rs := subselectOf(levels[i-1].FromClause, levels[i])
			if len(rs.Alias.Colnames) > 0 {
				rs.Alias.Colnames = append(rs.Alias.Colnames, pg_query.MakeStrNode(iterCol))
			}
			src = rs.Alias.Aliasname
		}
	}
	tagBase(osel.Larg)
	if len(out.Aliascolnames) > 0 {
		out.Aliascolnames = append(out.Aliascolnames, pg_query.MakeStrNode(iterCol))
	}
	return out, true, nil
}

// findReference returns the one reference to name in the recursive term
// rec and the query blocks enclosing it, outermost (rec) first; nil when
// there is not exactly one.
func findReference(rec *pg_query.SelectStmt, name string) (*pg_query.RangeVar, []*pg_query.SelectStmt) {
	var ref *pg_query.RangeVar
	var levels []*pg_query.SelectStmt
	n := 0
	w := &recWalker{name: name}
	w.visit = func(_ recContext, rv *pg_query.RangeVar) error {
		ref, levels, n = rv, append([]*pg_query.SelectStmt(nil), w.levels...), n+1
		return nil
	}
	if w.walk(rec.ProtoReflect(), recOK) != nil || n != 1 {
		return nil, nil
	}
	return ref, levels
}

// needsTag reports whether a block enclosing the reference applies
// something PostgreSQL computes per working table that a fixed point
// over the whole relation does not: DISTINCT ON, LIMIT/OFFSET,
// aggregates and window functions always; DISTINCT, GROUP BY and UNION, INTERSECT or EXCEPT
// without ALL under UNION ALL only (under UNION, set semantics make them
// agree).
func needsTag(levels []*pg_query.SelectStmt, all bool) bool {
	for _, l := range levels {
		distinctOn := len(l.DistinctClause) > 0 && l.DistinctClause[0].GetNode() != nil
		setOp := l.Op != pg_query.SetOperation_SETOP_NONE && !l.All
		if distinctOn || hasLimit(l) || hasAggregates(l) || len(windowsOf(l)) > 0 || all && (len(l.DistinctClause) > 0 || len(l.GroupClause) > 0 || setOp) {
			return true
		}
	}
	return false
}

// setOpOnPath refuses a set operation enclosing the reference of a
// recursion that needs the tag, which its other arm would not carry.
func setOpOnPath(levels []*pg_query.SelectStmt, all bool) *repr.Error {
	for _, l := range levels {
		switch {
		case l.Op == pg_query.SetOperation_SETOP_NONE:
		case all && !l.All:
			return repr.Unsupported("UNION, INTERSECT or EXCEPT without ALL over the recursive reference in a UNION ALL recursion")
		default:
			return repr.Unsupported("UNION, INTERSECT or EXCEPT over the recursive reference with DISTINCT ON, LIMIT or aggregates over it")
		}
	}
	return nil
}

// fillTagLoc is the location of the GROUP BY tag that tagLevel gives an
// aggregate without GROUP BY (a location survives the clones planning
// makes of a block; no parsed node has it): reduce fills its groups
// (fillTags).
const fillTagLoc = -2

// tagLevel makes block levels[i] carry the tag of its source src (the
// reference's or a FROM subquery's alias): the term (i 0) selects src's
// tag plus 1, the blocks below it src's tag; every window of the block
// is partitioned by the tag first; an aggregate without GROUP BY groups
// by the tag, and its groups are filled (fillTagLoc), since PostgreSQL
// returns its one row for every working table, even when its input is
// empty and in the first iteration even when the working table is. It
// fails with 0A000 when the block cannot carry the tag: a block on the
// path that is not a FROM subquery without WITH.
func tagLevel(levels []*pg_query.SelectStmt, i int, src string) *repr.Error {
	l := levels[i]
	if i > 0 {
		if rs := subselectOf(levels[i-1].FromClause, l); rs == nil || rs.Alias == nil || l.WithClause != nil {
			return repr.Unsupported("DISTINCT, GROUP BY, aggregates or LIMIT over the recursive reference other than through FROM subqueries")
		}
	}
	tag := func() *pg_query.Node {
		return pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(src), pg_query.MakeStrNode(iterCol)}, -1)
	}
	sel := tag()
	if i == 0 {
		sel = pg_query.MakeAExprNode(pg_query.A_Expr_Kind_AEXPR_OP, []*pg_query.Node{pg_query.MakeStrNode("+")}, tag(), pg_query.MakeAConstIntNode(1, -1), -1)
	}
	l.TargetList = append(l.TargetList, pg_query.MakeResTargetNodeWithNameAndVal(iterCol, sel, -1))
	switch {
	case len(l.GroupClause) > 0:
		l.GroupClause = append(l.GroupClause, tag())
	case hasAggregates(l):
		fill := tag()
		fill.GetColumnRef().Location = fillTagLoc
		l.GroupClause = []*pg_query.Node{fill}
	}
	for _, w := range windowsOf(l) {
		w.PartitionClause = append([]*pg_query.Node{tag()}, w.PartitionClause...)
	}
	if len(l.DistinctClause) > 0 && l.DistinctClause[0].GetNode() != nil { // DISTINCT ON (...): the tag first, in ORDER BY too
		l.DistinctClause = append([]*pg_query.Node{tag()}, l.DistinctClause...)
		if len(l.SortClause) > 0 {
			by := &pg_query.SortBy{Node: tag(), SortbyDir: pg_query.SortByDir_SORTBY_DEFAULT, SortbyNulls: pg_query.SortByNulls_SORTBY_NULLS_DEFAULT, Location: -1}
			l.SortClause = append([]*pg_query.Node{{Node: &pg_query.Node_SortBy{SortBy: by}}}, l.SortClause...)
		}
	}
	return nil
}

// windowsOf returns the window definitions of block l that partition its
// rows: its WINDOW clause's that refine no other, and the inline OVER
// (...) of its select list and ORDER BY that name no window (a reference
// to a named window shares that window's partitioning).
func windowsOf(l *pg_query.SelectStmt) []*pg_query.WindowDef {
	var out []*pg_query.WindowDef
	for _, n := range l.WindowClause {
		if w := n.GetWindowDef(); w != nil && w.Refname == "" {
			out = append(out, w)
		}
	}
	var exprs []*pg_query.Node
	for _, t := range l.TargetList {
		exprs = append(exprs, t.GetResTarget().GetVal())
	}
	for _, s := range l.SortClause {
		exprs = append(exprs, s.GetSortBy().GetNode())
	}
	for _, e := range exprs {
		walk(e, func(x *pg_query.Node) bool {
			if w := x.GetFuncCall().GetOver(); w != nil && w.Name == "" && w.Refname == "" {
				out = append(out, w)
			}
			return x.GetSubLink() == nil
		})
	}
	return out
}

// hasLimit reports whether s has a LIMIT or an OFFSET.
func hasLimit(s *pg_query.SelectStmt) bool {
	return s.LimitCount != nil || s.LimitOffset != nil
}

// limitKey returns the columns a block's LIMIT ranks within: the outer
// values of a decorrelated block, and the iteration tag of a tagged
// recursion's term when the block outputs it (PostgreSQL applies a LIMIT
// in the recursive term to each iteration's rows alone).
func limitKey(p *planned) []int {
	key := identityCols(p.nOuter)
	for i, c := range p.cols {
		if c.Name == iterCol {
			key = append(key, p.nOuter+i)
		}
	}
	return key
}

// subselectOf finds the FROM subquery (possibly inside joins) whose query
// is sub.
func subselectOf(from []*pg_query.Node, sub *pg_query.SelectStmt) *pg_query.RangeSubselect {
	for _, n := range from {
		if rs := n.GetRangeSubselect(); rs != nil && rs.Subquery.GetSelectStmt() == sub {
			return rs
		}
		if j := n.GetJoinExpr(); j != nil {
			if rs := subselectOf([]*pg_query.Node{j.Larg, j.Rarg}, sub); rs != nil {
				return rs
			}
		}
	}
	return nil
}

// tagBase gives the non-recursive term's rows the tag 0.
func tagBase(base *pg_query.SelectStmt) {
	zero := pg_query.MakeAConstIntNode(0, -1)
	for _, row := range base.ValuesLists { // VALUES (...), (...)
		l := row.GetList()
		l.Items = append(l.Items, zero)
	}
	if len(base.TargetList) > 0 {
		base.TargetList = append(base.TargetList, pg_query.MakeResTargetNodeWithNameAndVal(iterCol, zero, -1))
	}
}

// checkLoopTopK refuses a TopK (DISTINCT ON, LIMIT, a row_number() bound)
// over the recursive reference of body unless perIteration: PostgreSQL
// applies it to each iteration's new rows (the working table), which a
// fixed point over the whole relation computes only when its groups are
// keyed by the iteration tag, as tagIterations arranges for DISTINCT ON,
// window partitions and (through limitKey) for LIMIT and OFFSET.
func checkLoopTopK(body ir.Rel, id int, perIteration bool) error {
	if perIteration {
		return nil
	}
	var found bool
	var walk func(r ir.Rel) bool // reports whether r reads the LoopVar
	walk = func(r ir.Rel) bool {
		if v, ok := r.(*ir.LoopVar); ok {
			return v.ID == id
		}
		reads := false
		for _, c := range r.Children() {
			reads = walk(c) || reads
		}
		if _, ok := r.(*ir.TopK); ok && reads {
			found = true
		}
		return reads
	}
	walk(body)
	if found {
		return repr.Unsupported("DISTINCT ON, LIMIT or OFFSET over the recursive reference of WITH RECURSIVE other than in a UNION ALL recursion")
	}
	return nil
}

// liveIterations returns the iterations on whose working table
// PostgreSQL runs the recursive term of a tagged recursion with loop
// variable v (its tag last) and non-recursive term base: each whose
// working table has rows, and the first even when base returns none.
// The first is live by base's emptiness, not by v's: v is empty at the
// loop's start, and a row filled for an iteration before its working
// table arrived would start a chase of corrections that never ends. So
// the rows tagged i follow from those tagged i-1 alone, and the loop's
// iteration i has every tag up to i right.
func liveIterations(v *ir.LoopVar, base ir.Rel) ir.Rel {
	tag := len(v.Types) - 1
	zero := func(in ir.Rel) ir.Rel {
		return ir.NewMap(ir.NewProject(in), &expr.Lit{D: repr.NewInt(0), T: v.Types[tag]})
	}
	first := zero(unitRel())
	emptyBase := ir.NewThreshold(ir.NewUnion(first, ir.NewNegate(ir.NewDistinct(zero(base)))))
	return ir.NewDistinct(ir.NewUnion(ir.NewProject(v, tag), emptyBase))
}

// fillTags gives a tagged aggregate without GROUP BY (fillTagLoc) its
// row for every live iteration (liveIterations), per outer value when the
// block has them, as fillGroups does for a correlated one: the reduced
// relation leads with the outer values and the tag.
func (b *builder) fillTags(reduced ir.Rel, from *ectx, aggs []expr.Agg) ir.Rel {
	dom := b.tagDomains[len(b.tagDomains)-1]
	k := from.sc.outerCount()
	if k > 0 {
		dom = ir.NewJoin(ir.JoinCross, from.sc.outerRel, dom)
	}
	return b.fillFrom(reduced, dom, k+1, aggs)
}

// isFillTag reports whether sel's GROUP BY is the tag of an aggregate
// without one (tagLevel).
func isFillTag(sel *pg_query.SelectStmt) bool {
	return len(sel.GroupClause) == 1 && sel.GroupClause[0].GetColumnRef().GetLocation() == fillTagLoc
}
