package sql

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

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
// make merge one more column, is respelled as JOIN ... USING (the columns
// it merges now), or ON TRUE when it merges none, as pg_get_viewdef
// prints it: the view keeps the join PostgreSQL made when it created it.
// The respelled query must plan, over the table as it is, to the very
// columns and dataflow of the stored one (keepsStars), or the view
// refuses as before.

// expandStars returns a copy of view d whose stored query names the
// columns of each select-list star, or nil when it has none or one cannot
// be respelled.
func (c *Catalog) expandStars(d *Object) *Object {
	n, err := parseOne(d.SQL)
	if err != nil {
		return nil
	}
	tr := planner.NewTrace()
	if _, err := planner.PlanQuery(c, n, planner.Options{MaterializedView: d.Kind == planner.RelMaterializedView, TimeZone: d.TimeZone, Trace: tr}); err != nil {
		return nil
	}
	naturals := naturalJoins(n)
	if len(tr.Stars) == 0 && len(naturals) == 0 {
		return nil
	}
	sc, err := pg.Scan(d.SQL)
	if err != nil {
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
	spans, ok := starSpans(d.SQL, sc.Tokens, edits)
	if !ok {
		return nil
	}
	for _, j := range naturals {
		names, ok := tr.Natural[j]
		if !ok {
			return nil
		}
		sp, ok := naturalSpans(d.SQL, sc.Tokens, j, names)
		if !ok {
			return nil
		}
		spans = append(spans, sp...)
	}
	sql, ok := applySpans(d.SQL, spans)
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
	return len(naturalJoins(n)) > 0
}

// naturalJoins returns the NATURAL joins of n.
func naturalJoins(n *pg.Node) []*pg.JoinExpr {
	var out []*pg.JoinExpr
	walkProto(n, func(m proto.Message) {
		if j, ok := m.(*pg.JoinExpr); ok && j.IsNatural {
			out = append(out, j)
		}
	})
	return out
}

// span replaces sql[start:end] by text.
type span struct {
	start, end int
	text       string
}

// applySpans applies spans, which must not overlap, to sql.
func applySpans(sql string, spans []span) (string, bool) {
	slices.SortFunc(spans, func(x, y span) int { return x.start - y.start })
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		if sp.start < last || sp.end < sp.start || sp.end > len(sql) {
			return "", false
		}
		b.WriteString(sql[last:sp.start])
		b.WriteString(sp.text)
		last = sp.end
	}
	b.WriteString(sql[last:])
	return b.String(), true
}

// starSpans returns the spans replacing, in sql, the column reference
// starting at each location of edits (a name list ending in *) by its
// text.
func starSpans(sql string, toks []*pg.ScanToken, edits map[int32]string) ([]span, bool) {
	var spans []span
	for i := 0; i < len(toks); i++ {
		text, ok := edits[toks[i].Start]
		if !ok {
			continue
		}
		j := slices.IndexFunc(toks[i:], func(t *pg.ScanToken) bool { return sql[t.Start:t.End] == "*" })
		if j < 0 {
			return nil, false
		}
		end := toks[i+j].End
		if strings.ContainsAny(sql[toks[i].Start:end], ",()") {
			return nil, false
		}
		spans = append(spans, span{int(toks[i].Start), int(end), text})
		i += j
	}
	return spans, len(spans) == len(edits)
}

// naturalSpans returns the spans respelling NATURAL join j of sql as a
// join USING (names), or ON TRUE when names is empty (an inner one as
// CROSS JOIN, as pg_get_viewdef prints it): they drop its
// NATURAL keyword (the last one before its right input) and add the
// clause after its right input, which ends before the first token at its
// parenthesis level that cannot continue a FROM item.
func naturalSpans(sql string, toks []*pg.ScanToken, j *pg.JoinExpr, names []string) ([]span, bool) {
	right := minLocation(j.Rarg)
	nat := -1
	for i, t := range toks {
		if t.Start >= right {
			break
		}
		if strings.EqualFold(sql[t.Start:t.End], "natural") {
			nat = i
		}
	}
	if right < 0 || nat < 0 {
		return nil, false
	}
	join := slices.IndexFunc(toks[nat:], func(t *pg.ScanToken) bool { return strings.EqualFold(sql[t.Start:t.End], "join") })
	if join < 0 {
		return nil, false
	}
	i, depth := nat+join+1, 0
	for ; i < len(toks); i++ {
		w := strings.ToLower(sql[toks[i].Start:toks[i].End])
		if depth == 0 && (w == ")" || w == "," || w == ";" || naturalStop[w]) {
			break
		}
		switch w {
		case "(":
			depth++
		case ")":
			depth--
		}
	}
	if i == nat+join+1 || depth != 0 {
		return nil, false
	}
	if len(names) == 0 && j.Jointype == pg.JoinType_JOIN_INNER {
		// PostgreSQL prints an inner join without a condition as CROSS
		// JOIN: NATURAL [INNER] JOIN becomes that, with no clause
		jt := toks[nat+join]
		return []span{{int(toks[nat].Start), int(jt.End), "CROSS JOIN"}}, true
	}
	clause := " ON TRUE"
	if len(names) > 0 {
		quoted := make([]string, len(names))
		for k, name := range names {
			quoted[k] = quoteIdent(name)
		}
		clause = " USING (" + strings.Join(quoted, ", ") + ")"
	}
	end := int(toks[i-1].End)
	start := int(toks[nat].Start)
	return []span{{start, int(toks[nat].End), ""}, {end, end, clause}}, true
}

// naturalStop lists the words that end a join's right input at its
// parenthesis level.
var naturalStop = map[string]bool{
	"join": true, "natural": true, "cross": true, "left": true, "right": true, "full": true,
	"inner": true, "on": true, "using": true, "where": true, "group": true, "having": true,
	"window": true, "order": true, "limit": true, "offset": true, "fetch": true, "for": true,
	"union": true, "intersect": true, "except": true, "returning": true,
}

// minLocation returns the least location in n's parse tree (-1 when none).
func minLocation(n *pg.Node) int32 {
	least := int32(-1)
	walkProto(n, func(m proto.Message) {
		r := m.ProtoReflect()
		fd := r.Descriptor().Fields().ByName("location")
		if fd == nil || fd.Kind() != protoreflect.Int32Kind {
			return
		}
		if v := int32(r.Get(fd).Int()); v >= 0 && (least < 0 || v < least) {
			least = v
		}
	})
	return least
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
	if n, err := parseOne(d.SQL); err != nil || hasNaturalJoin(n) {
		// The respelled joins must be the very joins the table as it is
		// gives the stored query.
		c1, f1, err1 := a.e.planText(d, a.e.cat)
		c2, f2, err2 := a.e.planText(nu, a.e.cat)
		if err1 != nil || err2 != nil || c1 != c2 || f1 != f2 {
			return false
		}
	}
	cols2, flow2, err := a.e.planText(nu, shadow)
	if err != nil || cols2 != cols {
		return false
	}
	if flow2 != flow && !widenedOnly(flow, flow2) {
		// The respelled query plans to the same columns with another
		// dataflow (the optimizer projects the widened table's new
		// column away at another place: a LEFT JOIN USING whose merged
		// column is the common type of int and bigint). The running
		// dataflow cannot take the wider rows, so a materialized view is
		// recomputed from its respelled query with the change
		// (rebuildAfter), as a whole-row reference's is.
		if d.Kind != planner.RelMaterializedView {
			return false
		}
		a.rebuild = append(a.rebuild, d)
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
