package sql

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// execRefresh executes REFRESH MATERIALIZED VIEW [CONCURRENTLY] name: a
// materialized view is always up to date in Eddy (it is maintained as its
// inputs change), so the statement checks what PostgreSQL checks (the
// relation exists, is a materialized view the session owns, and for
// CONCURRENTLY has a unique index over every row on plain columns,
// 55000 otherwise) and changes nothing. WITH NO DATA, which would empty
// the view and make it unreadable, is 0A000.
func (p *Portal) execRefresh(rs *pg.RefreshMatViewStmt) error {
	p.tag = "REFRESH MATERIALIZED VIEW"
	e := p.st.s.e
	e.mu.RLock()
	defer e.mu.RUnlock()
	obj := e.cat.lookup(rs.Relation.Schemaname, rs.Relation.Relname)
	switch {
	case obj == nil:
		return repr.Errorf(repr.CodeUndefinedTable, "relation \"%s\" does not exist", rs.Relation.Relname)
	case obj.Kind == planner.RelTable: // PostgreSQL's code for this one
		return repr.Errorf(repr.CodeFeatureNotSupported, "\"%s\" is not a materialized view", obj.Name)
	case obj.Kind != planner.RelMaterializedView:
		return repr.Errorf(repr.CodeWrongObjectType, "\"%s\" is not a table or materialized view", obj.Name)
	}
	if err := e.checkOwner(p.st.s, obj.Owner, kindName(obj.Kind), obj.Name); err != nil {
		return err
	}
	if rs.SkipData {
		return repr.Unsupported("REFRESH MATERIALIZED VIEW ... WITH NO DATA")
	}
	if rs.Concurrent && !e.hasPlainUniqueIndex(obj.ID) {
		return repr.Errorf("55000", "cannot refresh materialized view \"%s.%s\" concurrently", obj.Schema, obj.Name).
			WithHint("Create a unique index with no WHERE clause on one or more columns of the materialized view.")
	}
	return nil
}

// hasPlainUniqueIndex reports whether relation id has a unique index
// over every row whose parts are all columns (what REFRESH ...
// CONCURRENTLY needs in PostgreSQL). The caller holds e.mu.
func (e *Engine) hasPlainUniqueIndex(id uint64) bool {
	for _, ix := range e.cat.indexesOf(id) {
		if ix.Index.Unique && ix.Index.Where == "" && ix.Index.Exprs == nil {
			return true
		}
	}
	return false
}
