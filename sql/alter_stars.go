package sql

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/eddydb/eddy/planner"
)

// Stars in a view's select list under ALTER TABLE ... ADD COLUMN.
// PostgreSQL expands * and t.* when it creates a view, so a column added
// to the table later is not one of the view's (pg_get_viewdef prints the
// columns). Eddy stores the query's text, where the star would now expand
// to one more column; so ADD COLUMN respells each star of the stored
// query as the qualified columns it expands to now, and the view keeps
// its columns (checkDependents then plans it under the new table and
// compares as for any other view). The merged column of a JOIN USING or
// NATURAL join is spelled with the qualifier of the side whose value it
// takes, or (FULL JOIN's COALESCE) by its bare name, which names it in
// that scope, as pg_get_viewdef prints it; the merged columns come first,
// as the star expanded them. A NATURAL join, which the new column could
// make merge one more column, is not respelled yet: its view refuses.

// expandStars returns a copy of view d whose stored query names the
// columns of each select-list star, or nil when it has none or one cannot
// be respelled.
func (c *Catalog) expandStars(d *Object) *Object {
	n, err := parseOne(d.SQL)
	if err != nil || hasNaturalJoin(n) {
		return nil
	}
	tr := planner.NewTrace()
	if _, err := planner.PlanQuery(c, n, planner.Options{MaterializedView: d.Kind == planner.RelMaterializedView, TimeZone: d.TimeZone, Trace: tr}); err != nil {
		return nil
	}
	if len(tr.Stars) == 0 {
		return nil
	}
	edits := map[int32]string{}
	for ref, cols := range tr.Stars {
		if len(cols) == 0 {
			return nil
		}
		names := make([]string, len(cols))
		for i, col := range cols {
			names[i] = quoteIdent(col.Name)
			if col.Table != "" {
				names[i] = quoteIdent(col.Table) + "." + names[i]
			}
		}
		edits[ref.Location] = strings.Join(names, ", ")
	}
	sql, ok := spliceStars(d.SQL, edits)
	if !ok {
		return nil
	}
	nu := d.clone()
	nu.SQL = sql
	if nu.rel, err = nu.relation(); err != nil {
		return nil
	}
	return nu
}

// hasNaturalJoin reports whether n has a NATURAL join, whose merged
// columns the stored text does not name.
func hasNaturalJoin(n *pg.Node) bool {
	found := false
	walkProto(n, func(m proto.Message) {
		if j, ok := m.(*pg.JoinExpr); ok && j.IsNatural {
			found = true
		}
	})
	return found
}

// spliceStars replaces, in sql, the column reference starting at each
// location of edits (a name list ending in *) by its text.
func spliceStars(sql string, edits map[int32]string) (string, bool) {
	sc, err := pg.Scan(sql)
	if err != nil {
		return "", false
	}
	toks := sc.Tokens
	var b strings.Builder
	last, done := 0, 0
	for i := 0; i < len(toks); i++ {
		text, ok := edits[toks[i].Start]
		if !ok {
			continue
		}
		j := slices.IndexFunc(toks[i:], func(t *pg.ScanToken) bool { return sql[t.Start:t.End] == "*" })
		if j < 0 || int(toks[i].Start) < last {
			return "", false
		}
		end := toks[i+j].End
		if strings.ContainsAny(sql[toks[i].Start:end], ",()") {
			return "", false
		}
		b.WriteString(sql[last:toks[i].Start])
		b.WriteString(text)
		last = int(end)
		i += j
		done++
	}
	if done != len(edits) {
		return "", false
	}
	b.WriteString(sql[last:])
	return b.String(), true
}

// keepsStars reports whether dependent view d of an ADD COLUMN keeps its
// columns and dataflow once its stars are respelled (expandStars); if
// so, the respelled copy is committed with the table (a.rewritten) and
// planned for the views over d (shadow).
func (a *alteration) keepsStars(d *Object, shadow *Catalog, cols, flow string) bool {
	nu := a.e.cat.expandStars(d)
	if nu == nil {
		return false
	}
	cols2, flow2, err := a.e.planText(nu, shadow)
	if err != nil || cols2 != cols || flow2 != flow && !widenedOnly(flow, flow2) {
		return false
	}
	if a.rewritten == nil {
		a.rewritten = map[*Object]*Object{}
	}
	a.rewritten[d] = nu
	shadow.byID[nu.ID] = nu
	shadow.byName[qualified(nu.Schema, nu.Name)] = nu
	return true
}

// naturalText lists the columns each NATURAL join of view d's query
// merges when planned over cat, in the order of its joins ("" when it has
// none). A plain view has no stored dataflow to compare, so ALTER TABLE
// compares these: a new column that one more NATURAL join would merge
// changes the view's rows, and is refused.
func naturalText(cat *Catalog, d *Object) string {
	n, err := parseOne(d.SQL)
	if err != nil || !hasNaturalJoin(n) {
		return ""
	}
	tr := planner.NewTrace()
	if _, err := planner.PlanQuery(cat, n, planner.Options{MaterializedView: d.Kind == planner.RelMaterializedView, TimeZone: d.TimeZone, Trace: tr}); err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	walkProto(n, func(m proto.Message) {
		if j, ok := m.(*pg.JoinExpr); ok && j.IsNatural {
			b.WriteString(strings.Join(tr.Natural[j], ",") + ";")
		}
	})
	return b.String()
}
