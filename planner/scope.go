package planner

import (
	"slices"
	"strings"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// scopeCol is one column visible by name. Its position in scope.cols is its
// column index in the relation the scope describes.
type scopeCol struct {
	table string // qualifier (table alias); "" when none
	// schema is the schema of a relation named without an alias, which
	// a reference may qualify the table with (s.t.c).
	schema string
	name   string
	typ    repr.T
	hidden bool // not expanded by * (outer values, USING duplicates)
	// system marks a system column, expanded by neither * nor t.*.
	system bool
	// outer marks a correlated outer value carried by a decorrelated
	// subquery: visible by name, but only when no inner column matches.
	outer bool
	// loopKey, when set, marks a correlated recursion's copy of an outer
	// value in its recursive term's reference to it, and is the relation
	// of those outer values (loopKeys aligns the copy with the value).
	loopKey ir.Rel
	// wholeRow marks the one column of a FROM function returning a single
	// value: a reference to its table alias alone (SELECT e FROM
	// jsonb_array_elements(x) e) is that column, as in PostgreSQL.
	wholeRow bool
	// marker marks the presence marker of the FROM item its qualifier
	// names (presence.go): unnamed, TRUE in the item's own rows, NULL in
	// the rows an outer join null-extends.
	marker bool
	// joinAlias marks a column qualified by a JOIN's alias, whose whole
	// row is ROW(...) of the join's columns, null-extended or not.
	joinAlias bool
	// rowType is the row type OID of the relation the column belongs to
	// (Relation.RowType), when the FROM item names it without a column
	// alias list: its whole row has that type (wholerow.go).
	rowType uint32
	// tableID and attr identify a base table column (for RowDescription).
	tableID repr.CollectionID
	attr    int16
	// fields names the fields of a record-valued column (ResultColumn.Fields).
	fields []expr.TableCol
	// naturalKey, when > 0, marks the column as the naturalKey-th key of
	// the FROM rows' natural order, sorted as naturalDir (natural.go).
	naturalKey int
	naturalDir expr.SortCol
	// agg is, for the column of an aggregated scope holding an
	// outer-level aggregate or GROUPING call (builder.outerAggs), that
	// call (*pg_query.FuncCall, *pg_query.GroupingFunc): the subqueries
	// spelling it read this column (outerAggRef).
	agg any
	// origin is, for the merged column of a JOIN USING, the qualifier of
	// the side whose value it takes (Trace).
	origin string
	// seq, when > 0, is the column's place (from 1) among its
	// qualifier's columns, recorded when a USING join moves columns
	// (usingOutput): t.* lists t's columns in their own order, as
	// PostgreSQL does, whatever order the join's output has.
	seq int
}

// qualifiedBy reports whether q names c's table: its alias or name, or
// schema.name for a relation named without an alias.
func (c *scopeCol) qualifiedBy(q string) bool {
	if s, t, ok := strings.Cut(q, "."); ok {
		return c.schema == s && c.table == t
	}
	return c.table == q
}

// scope is the name environment of one query level.
type scope struct {
	cols []scopeCol
	// parent is the enclosing query's scope (for correlated references).
	parent *scope
	// rec, when set, records references from subqueries into this scope
	// (decorrelation's first pass; see subquery.go).
	rec *recorder
	// outerRel is the relation of the outer values (the leading outer
	// columns) of a decorrelated subquery's FROM scope.
	outerRel ir.Rel
	// ungrouped is, for the scope of an aggregated relation, the scope
	// before aggregation: a subquery naming one of its columns that is not
	// grouped is 42803 (ungroupedOuter).
	ungrouped *scope
}

// recorder collects the columns of a scope that a subquery references.
type recorder struct {
	cols []int
	// hits counts the references, repeated ones too (see readsOuter).
	hits int
}

// add records column c once.
func (r *recorder) add(c int) {
	r.hits++
	for _, x := range r.cols {
		if x == c {
			return
		}
	}
	r.cols = append(r.cols, c)
}

// lookup finds the column named name (qualified by table when non-empty):
// inner columns first, then outer values. It returns -1 when absent and
// 42702 when ambiguous.
func (s *scope) lookup(table, name string, loc int32) (int, error) {
	for _, outer := range []bool{false, true} {
		found := -1
		for i, c := range s.cols {
			if c.outer != outer || c.name != name || table != "" && !c.qualifiedBy(table) {
				continue
			}
			if table == "" && c.hidden {
				continue // USING duplicates answer only qualified names
			}
			if found >= 0 {
				return -1, ambiguous(table, name, loc)
			}
			found = i
		}
		if found >= 0 {
			return found, nil
		}
	}
	if table == "" {
		for i, c := range s.cols {
			if c.wholeRow && c.table == name {
				return i, nil
			}
		}
	}
	return -1, nil
}

func ambiguous(table, name string, loc int32) error {
	if table != "" {
		name = table + "." + name
	}
	return repr.Errorf(repr.CodeAmbiguousColumn, "column reference %q is ambiguous", name).WithPosition(loc + 1)
}

// hasTable reports whether any column has the qualifier table.
func (s *scope) hasTable(table string) bool {
	for _, c := range s.cols {
		if c.qualifiedBy(table) && !c.outer {
			return true
		}
	}
	return false
}

// resolveColumn resolves a column reference through the scope chain. A
// column of this scope becomes a Col; one of an enclosing scope is recorded
// in that scope's recorder and stands in as a typed NULL (the first pass of
// decorrelation discards the plan and re-plans with the values joined in).
func resolveColumn(s *scope, table, name string, loc int32) (expr.Expr, error) {
	for cur := s; cur != nil; cur = cur.parent {
		i, err := cur.lookup(table, name, loc)
		if err != nil {
			return nil, err
		}
		if i >= 0 {
			c := cur.cols[i]
			if cur == s {
				return &expr.Col{Idx: i, T: c.typ}, nil
			}
			if cur.rec == nil {
				return nil, repr.Unsupported("correlated reference to %q here", name)
			}
			cur.rec.add(i)
			return &expr.Lit{D: repr.Null, T: c.typ}, nil
		}
	}
	return nil, undefinedColumn(s, table, name, loc)
}

// recordedHits sums the references recorded in s and its ancestors: a
// part of a query reads the enclosing queries when planning it raises
// the sum (decorrelation's first pass).
func recordedHits(s *scope) int {
	n := 0
	for ; s != nil; s = s.parent {
		if s.rec != nil {
			n += s.rec.hits
		}
	}
	return n
}

// undefinedColumn reports 42703 (or 42P01 for an unknown qualifier).
func undefinedColumn(s *scope, table, name string, loc int32) error {
	if table != "" {
		known := false
		for cur := s; cur != nil && !known; cur = cur.parent {
			known = cur.hasTable(table)
		}
		if !known {
			return repr.Errorf(repr.CodeUndefinedTable, "missing FROM-clause entry for table %q", table).WithPosition(loc + 1)
		}
		return repr.Errorf(repr.CodeUndefinedColumn, "column %s.%s does not exist", table, name).WithPosition(loc + 1)
	}
	return repr.ErrUndefinedColumn.New(name).WithPosition(loc + 1)
}

// starCols returns the columns * (table "" ) or t.* expands to.
func (s *scope) starCols(table string, loc int32) ([]int, error) {
	var out []int
	for i, c := range s.cols {
		if c.outer || c.system || table == "" && c.hidden || table != "" && !c.qualifiedBy(table) {
			continue
		}
		out = append(out, i)
	}
	if table != "" {
		slices.SortStableFunc(out, func(x, y int) int { return s.cols[x].seq - s.cols[y].seq })
	}
	if table != "" && len(out) == 0 && !s.hasTable(table) {
		return nil, repr.Errorf(repr.CodeUndefinedTable, "missing FROM-clause entry for table %q", table).WithPosition(loc + 1)
	}
	return out, nil
}

// outerCount returns the number of leading outer-value columns.
func (s *scope) outerCount() int {
	n := 0
	for n < len(s.cols) && s.cols[n].outer {
		n++
	}
	return n
}
