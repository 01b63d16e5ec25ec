package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// cte is a planned common table expression (WITH name AS (query)),
// visible by name to the rest of its WITH list and to the query it
// belongs to, subqueries included.
type cte struct {
	name string
	rel  ir.Rel
	cols []ResultColumn // named by the CTE's column list when it has one
	// inline is set for a CTE of a subquery whose query reads the
	// enclosing queries' columns: each reference is planned as a derived
	// table of that query (inlineCTE), seeing the CTEs before it (frame).
	inline *pg_query.CommonTableExpr
	frame  int
	// nOuter is the number of outer values the rows of rel lead with: the
	// loop variable of a recursion over the outer values, as its recursive
	// term reads it (their copies are loopKey columns).
	nOuter int
	outer  ir.Rel // the outer values' relation, when nOuter > 0
	// noReturning marks a data-modifying query without RETURNING, which
	// cannot be read.
	noReturning bool
}

// withCTEs plans sel's WITH list, runs body with the CTEs in scope, and
// takes them out of scope again. A CTE is planned once; every reference
// reads the same relation, and lowering merges equal subplans, so a CTE
// referenced several times is computed once in the dataflow (unless the
// optimizer specializes one reference, e.g. by pushing a filter into it).
func (b *builder) withCTEs(w *pg_query.WithClause, parent *scope, body func() (*planned, error)) (*planned, error) {
	depth := len(b.ctes)
	defer func() { b.ctes = b.ctes[:depth] }()
	items := make([]*pg_query.CommonTableExpr, len(w.Ctes))
	for i, n := range w.Ctes {
		items[i] = n.GetCommonTableExpr()
	}
	if w.Recursive {
		if err := checkDuplicateCTEs(items); err != nil {
			return nil, err
		}
		var err error
		if items, err = orderRecursive(w.Ctes); err != nil {
			return nil, err
		}
	}
	for _, ce := range items {
		c, err := b.planCTE(ce, depth, w.Recursive, parent)
		if err != nil {
			return nil, err
		}
		b.ctes = append(b.ctes, c)
	}
	return body()
}

// planCTE plans one CTE of a WITH list whose frame starts at b.ctes[depth];
// in a WITH RECURSIVE list, a CTE that references itself is recursive. In
// a subquery (parent set) its query may read the enclosing queries'
// columns: once decorrelation's first pass saw it do so, it is inlined.
func (b *builder) planCTE(ce *pg_query.CommonTableExpr, depth int, recursive bool, parent *scope) (*cte, error) {
	for _, c := range b.ctes[depth:] {
		if c.name == ce.Ctename {
			return nil, repr.Errorf("42712", "WITH query name %q specified more than once", ce.Ctename).
				WithPosition(ce.Location + 1)
		}
	}
	sel := ce.Ctequery.GetSelectStmt()
	if sel == nil {
		return b.modifyingCTE(ce)
	}
	if recursive && references(ce.Ctequery, ce.Ctename) > 0 {
		return b.recursiveCTE(ce, sel, parent)
	}
	if ce.SearchClause != nil || ce.CycleClause != nil {
		return nil, repr.Errorf(repr.CodeSyntax, "WITH query is not recursive").WithPosition(ce.Location + 1)
	}
	if parent != nil && b.readsOuter[ce] {
		return &cte{name: ce.Ctename, inline: ce, frame: len(b.ctes)}, nil
	}
	sc := &scope{parent: parent}
	var p *planned
	err := b.noteOuterReads(ce, parent, func() (err error) {
		p, err = b.planQuery(sel, sc, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	if b.readsOuter[ce] {
		// From now on inlined, so that the queries reading it read the
		// enclosing queries too.
		return &cte{name: ce.Ctename, inline: ce, frame: len(b.ctes)}, nil
	}
	cols, err := cteColumns(ce, p.cols)
	if err != nil {
		return nil, err
	}
	rel := b.subqueryRel(p)
	if ir.Volatile(rel) {
		// Computed once for every reference, all its rows, no filter
		// pushed in: PostgreSQL never inlines a volatile CTE.
		rel = b.newShared(rel)
	}
	return &cte{name: ce.Ctename, rel: rel, cols: cols}, nil
}

// recursiveCTE plans a recursive CTE of a WITH list. In a subquery
// (parent set) it may read the enclosing queries' columns; once
// decorrelation's first pass saw it do so it is inlined, each reference a
// derived table that planQuery plans as the recursion over the outer
// values (recInline), as PostgreSQL re-runs the recursion per outer row.
func (b *builder) recursiveCTE(ce *pg_query.CommonTableExpr, sel *pg_query.SelectStmt, parent *scope) (*cte, error) {
	inline := func() (*cte, error) {
		b.recInline[sel] = ce
		return &cte{name: ce.Ctename, inline: ce, frame: len(b.ctes)}, nil
	}
	if parent != nil && b.readsOuter[ce] {
		return inline()
	}
	var c *cte
	err := b.noteOuterReads(ce, parent, func() (err error) {
		c, err = b.planRecursiveCTE(ce, sel, parent, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	if b.readsOuter[ce] {
		return inline()
	}
	return c, nil
}

// cteColumns returns the CTE's columns: the query's, renamed by the CTE's
// column list.
func cteColumns(ce *pg_query.CommonTableExpr, qcols []ResultColumn) ([]ResultColumn, error) {
	cols := append([]ResultColumn(nil), qcols...)
	if len(ce.Aliascolnames) > len(cols) {
		return nil, repr.Errorf("42P10", "WITH query %q has %d columns available but %d columns specified",
			ce.Ctename, len(cols), len(ce.Aliascolnames)).WithPosition(ce.Location + 1)
	}
	for i, a := range ce.Aliascolnames {
		cols[i].Name = a.GetString_().GetSval()
	}
	return cols, nil
}

// checkDuplicateCTEs reports a name declared twice in one WITH list
// (checked before a WITH RECURSIVE list is reordered).
func checkDuplicateCTEs(items []*pg_query.CommonTableExpr) error {
	seen := map[string]bool{}
	for _, ce := range items {
		if seen[ce.Ctename] {
			return repr.Errorf("42712", "WITH query name %q specified more than once", ce.Ctename).WithPosition(ce.Location + 1)
		}
		seen[ce.Ctename] = true
	}
	return nil
}

// lookupCTE finds the innermost CTE in scope called name.
func (b *builder) lookupCTE(name string) *cte {
	for i := len(b.ctes) - 1; i >= 0; i-- {
		if b.ctes[i].name == name {
			return b.ctes[i]
		}
	}
	return nil
}

// cteRef plans a FROM reference to a CTE.
func (b *builder) cteRef(c *cte, rv *pg_query.RangeVar) (ir.Rel, []scopeCol, error) {
	if c.noReturning {
		return nil, nil, repr.Errorf(repr.CodeFeatureNotSupported, "WITH query %q does not have a RETURNING clause", c.name).
			WithPosition(rv.Location + 1)
	}
	alias := c.name
	var colAliases []*pg_query.Node
	if rv.Alias != nil {
		alias, colAliases = rv.Alias.Aliasname, rv.Alias.Colnames
	}
	cols := make([]scopeCol, c.nOuter, c.nOuter+len(c.cols))
	for i, t := range c.rel.ColTypes()[:c.nOuter] {
		cols[i] = scopeCol{typ: t, hidden: true, system: true, loopKey: c.outer}
	}
	for _, rc := range c.cols {
		cols = append(cols, scopeCol{table: alias, name: rc.Name, typ: rc.Type, tableID: rc.TableID, attr: rc.ColumnAttr, fields: rc.Fields,
			system: isSCCHidden(rc.Name) || b.isTag(rc.Name)})
	}
	return c.rel, cols, renameColumns(cols[c.nOuter:], colAliases, alias)
}

// inlineCTE returns, for a reference to a CTE that is inlined (cte.inline),
// the derived table it stands for (one node per reference, so that both
// passes of decorrelation see the same node); else n.
func (b *builder) inlineCTE(n *pg_query.Node) *pg_query.Node {
	rv := n.GetRangeVar()
	if rv == nil || rv.Schemaname != "" {
		return n
	}
	c := b.lookupCTE(rv.Relname)
	if c == nil || c.inline == nil {
		return n
	}
	if d, ok := b.inlined[rv]; ok {
		return d
	}
	alias := &pg_query.Alias{Aliasname: c.name, Colnames: append([]*pg_query.Node(nil), c.inline.Aliascolnames...)}
	if rv.Alias != nil {
		alias.Aliasname = rv.Alias.Aliasname
		for i, name := range rv.Alias.Colnames {
			if i < len(alias.Colnames) {
				alias.Colnames[i] = name
			} else {
				alias.Colnames = append(alias.Colnames, name)
			}
		}
	}
	b.cteFrames[c.inline.Ctequery.GetSelectStmt()] = c.frame
	d := &pg_query.Node{Node: &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{
		Subquery: c.inline.Ctequery, Alias: alias}}}
	b.inlined[rv] = d
	return d
}
