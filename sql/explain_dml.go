package sql

import (
	"encoding/json"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// EXPLAIN of INSERT, UPDATE and DELETE, and EXPLAIN's output formats.
//
// A write's plan is a "Write:" section (the operation and its target, the
// row filter and new values of UPDATE and DELETE, ON CONFLICT, RETURNING;
// expressions over the target's row, #i its i-th column), then for UPDATE
// and DELETE the access path that finds the rows (pointread.go), and for
// INSERT (and UPDATE ... FROM, DELETE ... USING) the plan of the query
// producing the rows, as EXPLAIN of that query prints it. Explaining plans the statement and never runs it;
// EXPLAIN ANALYZE (explain.go) runs it once.

// explainDML is the text of EXPLAIN of write n.
func (p *Portal) explainDML(n *pg.Node, opts planner.Options, verbose bool) (string, error) {
	e := p.st.s.e
	d, err := e.planDML(n, opts)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("Write:\n")
	var filter expr.Expr
	switch {
	case d.ins != nil:
		b.WriteString("Insert on " + d.table.Name + "\n")
		if oc := d.ins.OnConflict; oc != nil {
			b.WriteString("On conflict" + conflictTarget(d.table, oc) + ": " + map[bool]string{true: "DO UPDATE", false: "DO NOTHING"}[oc.DoUpdate] + "\n")
		}
	case d.upd != nil:
		b.WriteString("Update on " + d.table.Name + "\n")
		filter = d.upd.Filter
		writeFilter(&b, filter)
		var sets []string
		for i, x := range d.upd.Set {
			if c, ok := x.(*expr.Col); !ok || c.Idx != i {
				sets = append(sets, d.table.Columns[i].Name+" := "+x.String())
			}
		}
		b.WriteString("Set: " + strings.Join(sets, ", ") + "\n")
	default:
		b.WriteString("Delete on " + d.table.Name + "\n")
		filter = d.del.Filter
		writeFilter(&b, filter)
	}
	if d.returning != nil {
		b.WriteString("Returning: " + joinExprStrings(d.returning) + "\n")
	}
	if src := d.source(); src != nil {
		text, err := e.explainQuery(src, false, verbose)
		return b.String() + text, err
	}
	if access := e.describeWriteAccess(d.table, filter); access != "" {
		b.WriteString("Access:\n" + access + "\n")
	}
	return b.String(), nil
}

// writeFilter adds the Filter line of an UPDATE or DELETE (none: every row).
func writeFilter(b *strings.Builder, filter expr.Expr) {
	if filter != nil {
		b.WriteString("Filter: " + filter.String() + "\n")
	}
}

// conflictTarget prints an ON CONFLICT target: " (cols)", " ON CONSTRAINT
// name", or "" for none.
func conflictTarget(t *planner.Relation, oc *planner.OnConflict) string {
	switch {
	case oc.Constraint != "":
		return " ON CONSTRAINT " + oc.Constraint
	case len(oc.Cols) > 0:
		names := make([]string, len(oc.Cols))
		for i, c := range oc.Cols {
			names[i] = t.Columns[c].Name
		}
		return " (" + strings.Join(names, ", ") + ")"
	case len(oc.Exprs) > 0:
		return " (" + joinExprStrings(oc.Exprs) + ")"
	}
	return ""
}

// joinExprStrings prints expressions separated by ", ".
func joinExprStrings(xs []expr.Expr) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.String()
	}
	return strings.Join(out, ", ")
}

// describeWriteAccess is the access path with which UPDATE or DELETE
// finds the rows of t passing filter (liveRowsWhere), "" for a scan.
func (e *Engine) describeWriteAccess(t *planner.Relation, filter expr.Expr) string {
	if filter == nil || disablePointReads {
		return ""
	}
	ts := make([]repr.T, len(t.Columns))
	for i, c := range t.Columns {
		ts[i] = c.Type
	}
	p := predicates([]expr.Expr{filter}, ts)
	if p.empty() {
		return ""
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.describeAccess(pointInput{coll: repr.CollectionID(t.ID), ncols: len(ts), p: p})
}

// explainFormatKind is EXPLAIN's FORMAT option.
type explainFormatKind int

const (
	explainText explainFormatKind = iota
	explainJSON
	explainYAML
	explainXML
)

// explainFormat reads EXPLAIN's FORMAT option: TEXT (the default), JSON,
// YAML or XML; another value is 22023 as in PostgreSQL.
func explainFormat(es *pg.ExplainStmt) (explainFormatKind, error) {
	for _, o := range es.Options {
		d := o.GetDefElem()
		if d == nil || d.Defname != "format" {
			continue
		}
		v := strings.ToLower(d.Arg.GetString_().GetSval())
		switch v {
		case "text":
			return explainText, nil
		case "json":
			return explainJSON, nil
		case "yaml":
			return explainYAML, nil
		case "xml":
			return explainXML, nil
		}
		return explainText, repr.Errorf("22023", "unrecognized value for EXPLAIN option \"format\": \"%s\"", v)
	}
	return explainText, nil
}

// explainSection is one section of EXPLAIN's text: a "Name:" line and the
// lines under it.
type explainSection struct {
	name  string
	lines []string
}

// sections splits EXPLAIN's text at its "Name:" lines (unindented lines
// ending in ':'), dropping blank lines.
func sections(text string) []explainSection {
	var out []explainSection
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		switch {
		case strings.TrimSpace(l) == "":
		case !strings.HasPrefix(l, " ") && strings.HasSuffix(l, ":"):
			out = append(out, explainSection{name: strings.TrimSuffix(l, ":")})
		case len(out) == 0:
			out = append(out, explainSection{lines: []string{l}})
		default:
			s := &out[len(out)-1]
			s.lines = append(s.lines, l)
		}
	}
	return out
}

// render is the result rows of EXPLAIN in the format: TEXT one row per
// line; JSON one json value, an array holding an object whose keys are
// the sections in order, each an array of its lines; YAML the same as a
// YAML document in one text row.
func (f explainFormatKind) render(text string) []repr.Row {
	switch f {
	case explainJSON:
		var b strings.Builder
		b.WriteString("[\n  {")
		for i, s := range sections(text) {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n    " + jsonString(s.name) + ": [")
			for j, l := range s.lines {
				if j > 0 {
					b.WriteString(",")
				}
				b.WriteString("\n      " + jsonString(l))
			}
			b.WriteString("\n    ]")
		}
		b.WriteString("\n  }\n]")
		return []repr.Row{{repr.NewJSON(b.String())}}
	case explainYAML:
		var b strings.Builder
		for i, s := range sections(text) {
			prefix := "  "
			if i == 0 {
				prefix = "- "
			}
			b.WriteString(prefix + jsonString(s.name) + ":\n")
			for _, l := range s.lines {
				b.WriteString("    - " + jsonString(l) + "\n")
			}
		}
		return []repr.Row{textRow(strings.TrimRight(b.String(), "\n"))}
	}
	var out []repr.Row
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		out = append(out, textRow(line))
	}
	return out
}

// jsonString is s as a JSON string (which YAML reads too), without
// HTML escapes.
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}
