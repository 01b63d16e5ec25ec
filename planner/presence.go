package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// Presence markers. In PostgreSQL the whole-row Var of a FROM item that an
// outer join null-extends is a NULL datum on the null-extended rows (a
// derived table's, pulled up, is wrapped in a PlaceHolderVar for the same
// reason), while ROW(NULL, NULL) built from its columns is a record that
// is not NULL: count(t) skips the row, t::text and row_to_json(t) are NULL.
// Eddy's whole row is ROW(t.a, t.b, ...) (wholerow.go), which cannot tell
// a null-extended row from a matched row whose columns are all NULL. So a
// FROM item on the nullable side of a LEFT, RIGHT or FULL join (the right
// side of LEFT JOIN LATERAL and of LEFT JOIN f(...) too) carries a
// presence marker when a whole-row reference may name it: a hidden column,
// TRUE in its own rows, added before the join (a Map, or the ordinality
// of a function's FlatMap), so every outer join above pads it with NULL as
// it pads the item's columns. Its whole row is then
// CASE WHEN marker IS NULL THEN NULL ELSE ROW(...) END.
//
// The marker is added only where a reference needs it: the names the
// statement (a view's or SQL function's body when it is planned) uses as a
// whole row, found before its FROM lists are planned (noteWholeRefs: a
// bare name, or t.* anywhere but as a select-list item of its own), so
// queries without whole-row references keep their plans, plan goldens
// and stored plans. A name that turns out to be a column only adds an
// unneeded marker. A JOIN's alias gets none: PostgreSQL 15 expands its
// whole row into ROW(...) of the join's columns (flatten_join_alias_vars),
// null-extended or not.

// noteWholeRefs adds to b.wholeRefs the names n (a statement or query
// block) may reference as whole rows, when its FROM list has an outer
// join: one-part column references (a table alias used as a value) and
// the qualifiers of t.* other than a select list's own items, which
// expand to columns, in n and the blocks inside it (a correlated
// reference names this level's items). Blocks already scanned as part of
// an enclosing one are skipped.
func (b *builder) noteWholeRefs(n proto.Message) {
	var from []*pg_query.Node
	switch n := n.(type) {
	case *pg_query.SelectStmt:
		if b.wholeScanned[n] {
			return
		}
		from = n.FromClause
	case *pg_query.UpdateStmt:
		from = n.FromClause
	case *pg_query.DeleteStmt:
		from = n.UsingClause
	}
	if !hasOuterJoin(from) {
		return // no marker at this level (VALUES, bulk INSERTs: no scan)
	}
	if b.wholeRefs == nil {
		b.wholeRefs, b.wholeScanned = map[string]bool{}, map[*pg_query.SelectStmt]bool{}
	}
	items := map[*pg_query.ColumnRef]bool{}
	walkMessages(n.ProtoReflect(), func(m proto.Message) {
		switch m := m.(type) {
		case *pg_query.SelectStmt:
			b.wholeScanned[m] = true
		case *pg_query.ResTarget:
			if ref := m.GetVal().GetColumnRef(); ref != nil {
				items[ref] = true
			}
		case *pg_query.ColumnRef:
			f := m.Fields
			switch {
			case len(f) == 1 && f[0].GetString_() != nil:
				b.wholeRefs[f[0].GetString_().GetSval()] = true
			case len(f) >= 2 && f[len(f)-1].GetAStar() != nil && !items[m]:
				b.wholeRefs[f[len(f)-2].GetString_().GetSval()] = true
			}
		}
	})
}

// hasOuterJoin reports whether a FROM list joins with LEFT, RIGHT or
// FULL JOIN at its own level (not inside derived tables, whose blocks are
// scanned when planned).
func hasOuterJoin(from []*pg_query.Node) bool {
	for _, n := range from {
		if j := n.GetJoinExpr(); j != nil {
			if j.Jointype != pg_query.JoinType_JOIN_INNER || hasOuterJoin([]*pg_query.Node{j.Larg, j.Rarg}) {
				return true
			}
		}
	}
	return false
}

// markNullable returns a join side that an outer join null-extends (rel,
// its scope columns cols) with a presence marker appended for each FROM
// item in it that a whole-row reference may name and that has none yet
// (one null-extended by a join inside the side keeps its own: padding
// NULLs it as well).
func (b *builder) markNullable(rel ir.Rel, cols []scopeCol) (ir.Rel, []scopeCol) {
	var marks []scopeCol
	for _, c := range b.needMarkers(cols) {
		marks = append(marks, scopeCol{table: c.table, schema: c.schema, typ: repr.Bool, hidden: true, system: true, marker: true})
	}
	if len(marks) == 0 {
		return rel, cols
	}
	lits := make([]expr.Expr, len(marks))
	for i := range lits {
		lits[i] = boolLit(true)
	}
	return ir.NewMap(rel, lits...), append(cols[:len(cols):len(cols)], marks...)
}

// needMarkers returns one column of each FROM item of cols (by its
// qualifier) that a whole-row reference may name and that has no marker.
func (b *builder) needMarkers(cols []scopeCol) []scopeCol {
	var out []scopeCol
	have := map[[2]string]bool{}
	for _, c := range cols {
		if c.marker {
			have[[2]string{c.schema, c.table}] = true
		}
	}
	for _, c := range cols {
		k := [2]string{c.schema, c.table}
		if c.table == "" || c.outer || c.marker || c.joinAlias || c.wholeRow || !b.wholeRefs[c.table] || have[k] {
			continue
		}
		have[k] = true
		out = append(out, c)
	}
	return out
}

// markFlatMap gives the function columns fcols of fm, a LEFT JOIN's
// FlatMap over its nl left columns, a presence marker when a whole-row
// reference may name them: the ordinality column, never NULL in the
// function's rows (turned on when the query did not ask for it). It
// returns the FlatMap column to append to the item's (-1: none) and the
// marker's scope column.
func (b *builder) markFlatMap(fm *ir.FlatMap, nl int, fcols []scopeCol) (int, scopeCol) {
	need := b.needMarkers(fcols)
	if !fm.Outer || len(need) == 0 {
		return -1, scopeCol{}
	}
	at := nl + len(fcols) - 1 // the ordinality, last of fm's columns
	if !fm.Ordinality {
		fm.Ordinality, at = true, at+1
	}
	return at, scopeCol{table: need[0].table, typ: repr.Int8, hidden: true, system: true, marker: true}
}

// markerOf returns the index of table's presence marker in s, or -1.
func (s *scope) markerOf(table string) int {
	for i, c := range s.cols {
		if c.marker && !c.outer && c.qualifiedBy(table) {
			return i
		}
	}
	return -1
}

// present wraps rec, the whole row of the FROM item named table in scope
// sc (c's scope or an enclosing one), as NULL where its presence marker
// is NULL, when it has one.
func (c *ectx) present(sc *scope, table string, rec expr.Expr, loc int32) (expr.Expr, error) {
	i := sc.markerOf(table)
	if i < 0 {
		return rec, nil
	}
	var m expr.Expr = &expr.Col{Idx: i, T: sc.cols[i].typ}
	if sc != c.sc {
		var err error
		if m, err = resolveColumn(c.sc, table, "", loc); err != nil {
			return nil, err
		}
	}
	return nullWhenAbsent(m, rec), nil
}

// markSides marks the sides of a join of kind that it null-extends
// (markNullable): the right of LEFT, the left of RIGHT, both of FULL.
func (b *builder) markSides(kind ir.JoinKind, left ir.Rel, lcols []scopeCol, right ir.Rel, rcols []scopeCol) (ir.Rel, []scopeCol, ir.Rel, []scopeCol) {
	if kind == ir.JoinRight || kind == ir.JoinFull {
		left, lcols = b.markNullable(left, lcols)
	}
	if kind == ir.JoinLeft || kind == ir.JoinFull {
		right, rcols = b.markNullable(right, rcols)
	}
	return left, lcols, right, rcols
}

// paddedRecord makes the record value of fc, a select-list call of f with
// several columns from col on, NULL on the rows where a longer call of its
// level (several run in lockstep) pads f's columns with NULL, as
// PostgreSQL's ProjectSet returns a NULL datum for a finished function: f's
// Present column tells them from a row of NULLs. A function with none
// known is 0A000 there.
func (ec *ectx) paddedRecord(fc *pg_query.FuncCall, f *expr.TableFunc, col int) error {
	if f.Present == 0 {
		return repr.Unsupported("%s returning several columns beside another set-returning function in the select list", f.Name).
			WithHint("Call the functions in a LATERAL FROM item (ROWS FROM).").WithPosition(fc.Location + 1)
	}
	rec := ec.srfs[fc]
	wrapped := nullWhenAbsent(ec.colExpr(col+f.Present-1), rec)
	ec.srfs[fc], ec.records[wrapped] = wrapped, ec.records[rec]
	return nil
}

// nullWhenAbsent is CASE WHEN marker IS NULL THEN NULL ELSE val END: val
// where marker is not NULL, NULL of val's type elsewhere.
func nullWhenAbsent(marker, val expr.Expr) expr.Expr {
	t := val.Type()
	return &expr.Case{Whens: []expr.When{{Cond: &expr.IsNull{Arg: marker}, Then: &expr.Lit{D: repr.Null, T: t}}}, Else: val, T: t}
}
