package sql

import (
	"github.com/eddydb/eddy/repr"
)

// pg_stat_user_tables: one row per table and materialized view, as BI tools read it for row
// estimates (Metabase's table sync joins it on schema and table name).
// Eddy keeps no scan, vacuum or analyze statistics, so their counters are
// 0 and their times NULL; n_live_tup is the table's current row count.
func init() {
	defSysRel(180, 12161, nsPgCatalog, "pg_stat_user_tables", true,
		"relid oid, schemaname name, relname name, seq_scan bigint, seq_tup_read bigint, idx_scan bigint, idx_tup_fetch bigint, n_tup_ins bigint, n_tup_upd bigint, n_tup_del bigint, n_tup_hot_upd bigint, n_live_tup bigint, n_dead_tup bigint, n_mod_since_analyze bigint, n_ins_since_vacuum bigint, last_vacuum timestamp with time zone, last_autovacuum timestamp with time zone, last_analyze timestamp with time zone, last_autoanalyze timestamp with time zone, vacuum_count bigint, autovacuum_count bigint, analyze_count bigint, autoanalyze_count bigint",
		rowsStatUserTables)
}

// rowsStatUserTables lists the tables and materialized views with their
// row counts.
func rowsStatUserTables(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_stat_user_tables"]
	var out []repr.Row
	s.userRels("rm", func(ri *relInfo) {
		live := 0
		if c := s.e.colls[ri.obj.ID]; c != nil {
			live = c.Len()
		}
		out = append(out, r.row(map[string]repr.Datum{"relid": oidD(ri.oid), "schemaname": nameD(s.cat.namespaceName(ri.ns)),
			"relname": nameD(ri.name), "n_live_tup": intD(live), "last_vacuum": repr.Null, "last_autovacuum": repr.Null,
			"last_analyze": repr.Null, "last_autoanalyze": repr.Null}))
	})
	return out
}
