package sql

import (
	pg "github.com/pganalyze/pg_query_go/v6"
)

// renameViewColumn rewrites the stored query of a view or materialized
// view whose Columns were renamed so that it names its output columns
// so: the query q becomes SELECT * FROM (q) AS _view(c1, ..., cn), the
// form CREATE VIEW v (c1, ...) AS q is stored in (or that form's list
// changes). The query itself, and so a materialized view's dataflow and
// state, stay as they were; views reading this one are rewritten by
// renameColumnInViews, as for a table.
func renameViewColumn(nu *Object) error {
	n, err := parseOne(nu.SQL)
	if err != nil {
		return err
	}
	query := n
	if sel := n.GetSelectStmt(); sel != nil && unwrapViewAliases(sel) != sel {
		query = sel.FromClause[0].GetRangeSubselect().Subquery
	}
	names := make([]*pg.Node, len(nu.Columns))
	for i, c := range nu.Columns {
		names[i] = pg.MakeStrNode(c.Name)
	}
	text, err := viewSQL(query, names)
	if err != nil {
		return err
	}
	nu.SQL = text
	return nil
}

// renameColumnTag is the command tag of ALTER TABLE | VIEW | MATERIALIZED
// VIEW ... RENAME COLUMN (PostgreSQL renames a column of any relation
// kind under each, and tags the command by what was written).
func renameColumnTag(t pg.ObjectType) string {
	switch t {
	case pg.ObjectType_OBJECT_VIEW:
		return "ALTER VIEW"
	case pg.ObjectType_OBJECT_MATVIEW:
		return "ALTER MATERIALIZED VIEW"
	}
	return "ALTER TABLE"
}
