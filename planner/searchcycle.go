package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// WITH RECURSIVE ... SEARCH and CYCLE, planned as PostgreSQL's
// rewriteSearchAndCycle rewrites them: the CTE gains columns that the
// non-recursive term initializes from its rows and the recursive term
// computes from each new row and the row of the reference it came from.
//
//	SEARCH DEPTH FIRST BY c SET s    s = ARRAY[ROW(c)], then s || ARRAY[ROW(c)]
//	SEARCH BREADTH FIRST BY c SET s  s = ROW(0::int8, c), then ROW(depth(s) + 1, c)
//	CYCLE c SET m [TO v DEFAULT d] USING p
//	    m = d, p = ARRAY[ROW(c)]; then m = CASE WHEN ROW(c) = ANY (p) THEN v ELSE d END,
//	    p = p || ARRAY[ROW(c)], and only rows of the reference with m <> v recurse
//
// The recursive term reads the reference's added columns under hidden
// names (scc prefix "?"), which * does not expand, so the term's select
// list is the user's plus those references. The loop is an ordinary
// ir.Iterate: a path is a value of the row, so deletions retract the
// paths through a deleted edge like any derived row.

// hidden names of the reference's added columns in the recursive term.
const (
	sccSeq  = "?search?"
	sccMark = "?cyclemark?"
	sccPath = "?cyclepath?"
)

// isSCCHidden reports whether name is one of the hidden names.
func isSCCHidden(name string) bool {
	return name == sccSeq || name == sccMark || name == sccPath
}

// searchCycle is a recursive CTE's SEARCH and CYCLE clauses resolved
// against its n columns.
type searchCycle struct {
	search *pg_query.CTESearchClause
	cycle  *pg_query.CTECycleClause
	// searchCols and cycleCols are positions among the CTE's columns.
	searchCols, cycleCols []int
	// mark and markDefault are the cycle mark's values, of one type.
	mark, markDefault expr.Expr
	n                 int
}

// extraNames returns the added columns' names: visible to the query or,
// hidden, to the recursive term.
func (sc *searchCycle) extraNames(hidden bool) []string {
	var out []string
	if sc.search != nil {
		out = append(out, pick(hidden, sccSeq, sc.search.SearchSeqColumn))
	}
	if sc.cycle != nil {
		out = append(out, pick(hidden, sccMark, sc.cycle.CycleMarkColumn), pick(hidden, sccPath, sc.cycle.CyclePathColumn))
	}
	return out
}

func pick(hidden bool, h, name string) string {
	if hidden {
		return h
	}
	return name
}

// extraTypes returns the added columns' types.
func (sc *searchCycle) extraTypes() []repr.T {
	var out []repr.T
	if sc.search != nil {
		if sc.search.SearchBreadthFirst {
			out = append(out, repr.Record)
		} else {
			out = append(out, repr.ArrayOf(repr.Record))
		}
	}
	if sc.cycle != nil {
		out = append(out, sc.mark.Type(), repr.ArrayOf(repr.Record))
	}
	return out
}

// checkSCCForm checks the UNION's arms for SEARCH and CYCLE, after
// PostgreSQL's parse_cte.c and rewriteSearchCycle.c.
func checkSCCForm(ce *pg_query.CommonTableExpr, sel *pg_query.SelectStmt, tagged bool) error {
	pos := ce.Location + 1
	switch {
	case sel.Op != pg_query.SetOperation_SETOP_UNION:
		return nil // checkRecursive reports it
	case sel.Larg.Op != pg_query.SetOperation_SETOP_NONE:
		return repr.Errorf(repr.CodeFeatureNotSupported, "with a SEARCH or CYCLE clause, the left side of the UNION must be a SELECT").WithPosition(pos)
	case sel.Rarg.Op != pg_query.SetOperation_SETOP_NONE:
		return repr.Errorf(repr.CodeSyntax, "with a SEARCH or CYCLE clause, the right side of the UNION must be a SELECT").WithPosition(pos)
	case tagged || len(sel.Rarg.GroupClause) > 0 || len(sel.Rarg.DistinctClause) > 0:
		return repr.Unsupported("SEARCH or CYCLE with DISTINCT or GROUP BY in the recursive term").WithPosition(pos)
	}
	return nil
}

// resolveSCC checks the clauses against the CTE's columns (PostgreSQL's
// 42601/42701/42702/42804 errors) and plans the cycle mark values.
func (b *builder) resolveSCC(ce *pg_query.CommonTableExpr, cols []ResultColumn) (*searchCycle, error) {
	sc := &searchCycle{n: len(cols)}
	if s := ce.SearchClause; s != nil {
		sc.search = s
		var err error
		if sc.searchCols, err = sccColumns(s.SearchColList, cols, "search", s.Location); err != nil {
			return nil, err
		}
		if hasColumn(cols, s.SearchSeqColumn) {
			return nil, repr.Errorf("42702", "search sequence column name %q already used in WITH query column list", s.SearchSeqColumn).WithPosition(s.Location + 1)
		}
	}
	if c := ce.CycleClause; c != nil {
		sc.cycle = c
		if err := b.resolveCycle(sc, c, cols); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

// resolveCycle checks a CYCLE clause and plans its mark values.
func (b *builder) resolveCycle(sc *searchCycle, c *pg_query.CTECycleClause, cols []ResultColumn) error {
	pos := c.Location + 1
	var err error
	if sc.cycleCols, err = sccColumns(c.CycleColList, cols, "cycle", c.Location); err != nil {
		return err
	}
	switch {
	case hasColumn(cols, c.CycleMarkColumn):
		return repr.Errorf("42702", "cycle mark column name %q already used in WITH query column list", c.CycleMarkColumn).WithPosition(pos)
	case hasColumn(cols, c.CyclePathColumn):
		return repr.Errorf("42702", "cycle path column name %q already used in WITH query column list", c.CyclePathColumn).WithPosition(pos)
	case c.CycleMarkColumn == c.CyclePathColumn:
		return repr.Errorf(repr.CodeSyntax, "cycle mark column name and cycle path column name are the same").WithPosition(pos)
	}
	if s := sc.search; s != nil {
		switch s.SearchSeqColumn {
		case c.CycleMarkColumn:
			return repr.Errorf(repr.CodeSyntax, "search sequence column name and cycle mark column name are the same").WithPosition(pos)
		case c.CyclePathColumn:
			return repr.Errorf(repr.CodeSyntax, "search sequence column name and cycle path column name are the same").WithPosition(pos)
		}
	}
	return b.planCycleMark(sc, c)
}

// planCycleMark plans TO and DEFAULT (true and false when omitted) and
// coerces them to their common type, which needs an <> operator.
func (b *builder) planCycleMark(sc *searchCycle, c *pg_query.CTECycleClause) error {
	ec := &ectx{b: b, sc: &scope{}, rel: unitRel(), clause: "CYCLE", noSubquery: true}
	vals := []expr.Expr{boolLit(true), boolLit(false)}
	for i, n := range []*pg_query.Node{c.CycleMarkValue, c.CycleMarkDefault} {
		if n == nil {
			continue
		}
		e, err := ec.expr(n)
		if err != nil {
			return err
		}
		vals[i] = e
	}
	ts := []repr.T{vals[0].Type(), vals[1].Type()}
	t, err := expr.CommonType(ts, "CYCLE")
	if err != nil {
		return withPos(err, c.Location)
	}
	if t.Family == repr.FamUnknown {
		t = repr.Text
	}
	for i := range vals {
		if vals[i], err = b.coerce(vals[i], t); err != nil {
			return err
		}
	}
	if _, _, err := expr.ResolveOp("<>", []repr.T{t, t}); err != nil {
		return repr.Errorf("42883", "could not identify an inequality operator for type %s", t.Name()).WithPosition(c.Location + 1)
	}
	sc.mark, sc.markDefault = vals[0], vals[1]
	return nil
}

// sccColumns resolves a SEARCH or CYCLE column list to positions.
func sccColumns(list []*pg_query.Node, cols []ResultColumn, what string, loc int32) ([]int, error) {
	var out []int
	seen := map[string]bool{}
	for _, n := range list {
		name := n.GetString_().GetSval()
		i := resultColumnIndex(cols, name)
		switch {
		case i < 0:
			return nil, repr.Errorf(repr.CodeSyntax, "%s column %q not in WITH query column list", what, name).WithPosition(loc + 1)
		case seen[name]:
			return nil, repr.Errorf("42701", "%s column %q specified more than once", what, name).WithPosition(loc + 1)
		}
		seen[name] = true
		out = append(out, i)
	}
	return out, nil
}

// resultColumnIndex finds a column by name (-1 when absent).
func resultColumnIndex(cols []ResultColumn, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

func hasColumn(cols []ResultColumn, name string) bool { return resultColumnIndex(cols, name) >= 0 }

// sccRecursiveTerm returns a copy of the recursive term whose select list
// also reads the reference's added columns (hidden names), or 0A000 when
// the reference is not in the term's own FROM (PostgreSQL's limit).
func sccRecursiveTerm(ce *pg_query.CommonTableExpr, rec *pg_query.SelectStmt, sc *searchCycle) (*pg_query.SelectStmt, error) {
	var ref *pg_query.RangeVar
	direct := true
	w := &recWalker{name: ce.Ctename}
	w.visit = func(_ recContext, rv *pg_query.RangeVar) error {
		ref, direct = rv, direct && len(w.levels) == 1
		return nil
	}
	if err := w.walk(rec.ProtoReflect(), recOK); err != nil {
		return nil, err
	}
	if ref == nil || !direct {
		return nil, repr.Errorf(repr.CodeFeatureNotSupported, "with a SEARCH or CYCLE clause, the recursive reference to WITH query %q must be at the top level of its right-hand SELECT", ce.Ctename).WithPosition(ce.Location + 1)
	}
	alias := ref.Relname
	if ref.Alias != nil {
		alias = ref.Alias.Aliasname
	}
	out := proto.Clone(rec).(*pg_query.SelectStmt)
	for _, name := range sc.extraNames(true) {
		ref := pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(alias), pg_query.MakeStrNode(name)}, -1)
		out.TargetList = append(out.TargetList, pg_query.MakeResTargetNodeWithNameAndVal(name, ref, -1))
	}
	return out, nil
}

// sccBase extends the non-recursive term's rows with the added columns'
// initial values.
func (b *builder) sccBase(rel ir.Rel, cols []ResultColumn, sc *searchCycle) (ir.Rel, error) {
	exprs := colExprs(cols)
	if sc.search != nil {
		var seq expr.Expr
		var err error
		if sc.search.SearchBreadthFirst {
			zero := &expr.Lit{D: repr.NewInt(0), T: repr.Int8}
			seq, err = b.sccRow(append([]expr.Expr{zero}, pickExprs(exprs, sc.searchCols)...))
		} else {
			seq, err = b.sccPathStart(pickExprs(exprs, sc.searchCols))
		}
		if err != nil {
			return nil, err
		}
		exprs = append(exprs, seq)
	}
	if sc.cycle != nil {
		path, err := b.sccPathStart(pickExprs(colExprs(cols), sc.cycleCols))
		if err != nil {
			return nil, err
		}
		exprs = append(exprs, sc.markDefault, path)
	}
	return projectExprs(rel, 0, exprs), nil
}

// sccStep computes the added columns of the recursive term's rows: rel
// has the n unified columns of the new row, then the reference's added
// columns.
func (b *builder) sccStep(rel ir.Rel, cols []ResultColumn, sc *searchCycle) (ir.Rel, error) {
	all := colExprs(cols)
	exprs, prev := all[:sc.n:sc.n], all[sc.n:]
	if sc.search != nil {
		seq, err := b.sccNextSeq(prev[0], pickExprs(exprs, sc.searchCols))
		if err != nil {
			return nil, err
		}
		exprs, prev = append(exprs, seq), prev[1:]
	}
	if sc.cycle != nil {
		ne, err := b.op("<>", prev[0], sc.mark)
		if err != nil {
			return nil, err
		}
		rel = ir.NewFilter(rel, ne)
		mark, path, err := b.sccNextCycle(prev[1], pickExprs(exprs, sc.cycleCols), sc)
		if err != nil {
			return nil, err
		}
		exprs = append(exprs, mark, path)
	}
	return projectExprs(rel, 0, exprs), nil
}

// sccNextSeq is the search sequence of a new row: the path extended
// (depth first) or ROW(depth + 1, cols) (breadth first).
func (b *builder) sccNextSeq(prev expr.Expr, cols []expr.Expr) (expr.Expr, error) {
	if prev.Type().Family == repr.FamArray {
		return b.sccPathAppend(prev, cols)
	}
	depth, err := b.fn("search_depth", prev)
	if err != nil {
		return nil, err
	}
	next, err := b.op("+", depth, &expr.Lit{D: repr.NewInt(1), T: repr.Int8})
	if err != nil {
		return nil, err
	}
	return b.sccRow(append([]expr.Expr{next}, cols...))
}

// sccNextCycle is the cycle mark and path of a new row.
func (b *builder) sccNextCycle(path expr.Expr, cols []expr.Expr, sc *searchCycle) (expr.Expr, expr.Expr, error) {
	row, err := b.sccRow(cols)
	if err != nil {
		return nil, nil, err
	}
	seen, err := b.fn("any_eq", row, path)
	if err != nil {
		return nil, nil, err
	}
	mark := &expr.Case{Whens: []expr.When{{Cond: seen, Then: sc.mark}}, Else: sc.markDefault, T: sc.mark.Type()}
	next, err := b.sccPathAppend(path, cols)
	return mark, next, err
}

// sccPathStart is ARRAY[ROW(cols)].
func (b *builder) sccPathStart(cols []expr.Expr) (expr.Expr, error) {
	row, err := b.sccRow(cols)
	if err != nil {
		return nil, err
	}
	return b.fn("array", row)
}

// sccPathAppend is path || ARRAY[ROW(cols)].
func (b *builder) sccPathAppend(path expr.Expr, cols []expr.Expr) (expr.Expr, error) {
	row, err := b.sccRow(cols)
	if err != nil {
		return nil, err
	}
	return b.fn("array_append", path, row)
}

// sccRow is ROW(cols).
func (b *builder) sccRow(cols []expr.Expr) (expr.Expr, error) { return b.fn("row", cols...) }

// fn resolves and applies a built-in function.
func (b *builder) fn(name string, args ...expr.Expr) (expr.Expr, error) {
	fn, want, err := expr.ResolveFunc(name, exprTypes(args))
	if err != nil {
		return nil, err
	}
	return b.call(fn, args, want)
}

// op resolves and applies a binary operator.
func (b *builder) op(name string, l, r expr.Expr) (expr.Expr, error) {
	fn, want, err := expr.ResolveOp(name, []repr.T{l.Type(), r.Type()})
	if err != nil {
		return nil, err
	}
	return b.call(fn, []expr.Expr{l, r}, want)
}

func exprTypes(es []expr.Expr) []repr.T {
	ts := make([]repr.T, len(es))
	for i, e := range es {
		ts[i] = e.Type()
	}
	return ts
}

// colExprs returns a column reference per column.
func colExprs(cols []ResultColumn) []expr.Expr {
	out := make([]expr.Expr, len(cols))
	for i, c := range cols {
		out[i] = &expr.Col{Idx: i, T: c.Type}
	}
	return out
}

// pickExprs returns es[idx[0]], es[idx[1]], ...
func pickExprs(es []expr.Expr, idx []int) []expr.Expr {
	out := make([]expr.Expr, len(idx))
	for i, j := range idx {
		out[i] = es[j]
	}
	return out
}

// withSCCColumns returns cols followed by the added columns, named for
// the query (hidden false) or for the recursive term (hidden true).
func withSCCColumns(cols []ResultColumn, sc *searchCycle, hidden bool) []ResultColumn {
	out := append([]ResultColumn(nil), cols...)
	ts := sc.extraTypes()
	for i, name := range sc.extraNames(hidden) {
		out = append(out, ResultColumn{Name: name, Type: ts[i]})
	}
	return out
}
