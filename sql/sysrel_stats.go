package sql

import (
	"strings"

	"github.com/eddydb/eddy/repr"
)

// The statistics views of pg_catalog beyond pg_stat_activity and
// pg_stat_user_tables (sysrel_stat.go): per table, per sequence, per
// database, per backend and server-wide. Eddy counts scans, rows read
// and written per relation and transactions per database
// (statcounters.go); it keeps no block, vacuum, WAL or checkpoint
// statistics of PostgreSQL's kind, so those counters are 0 and their times
// NULL, as on a PostgreSQL server whose statistics were just reset; what
// Eddy does know (live row counts, the backends, their TLS state, the
// start time) is filled in. The pg_stat_xact_*_tables views show the
// reading session's transaction's counts. pgAdmin's
// dashboard, DBeaver's and pgcli's pages read these.

func init() {
	xactCols := "relid oid, schemaname name, relname name, seq_scan bigint, seq_tup_read bigint, idx_scan bigint, idx_tup_fetch bigint, n_tup_ins bigint, n_tup_upd bigint, n_tup_del bigint, n_tup_hot_upd bigint"
	statioCols := "relid oid, schemaname name, relname name, heap_blks_read bigint, heap_blks_hit bigint, idx_blks_read bigint, idx_blks_hit bigint, toast_blks_read bigint, toast_blks_hit bigint, tidx_blks_read bigint, tidx_blks_hit bigint"
	seqCols := "relid oid, schemaname name, relname name, blks_read bigint, blks_hit bigint"
	for _, d := range []struct {
		id    uint64
		oid   uint32
		name  string
		cols  string
		which statWhich
	}{
		{522, 12142, "pg_stat_all_tables", statTableCols, statAll},
		{542, 12152, "pg_stat_sys_tables", statTableCols, statSys},
		{547, 12147, "pg_stat_xact_all_tables", xactCols, statAll},
		{548, 12157, "pg_stat_xact_sys_tables", xactCols, statSys},
		{550, 12166, "pg_stat_xact_user_tables", xactCols, statUser},
		{553, 12170, "pg_statio_all_tables", statioCols, statAll},
		{556, 12175, "pg_statio_sys_tables", statioCols, statSys},
		{559, 12179, "pg_statio_user_tables", statioCols, statUser},
	} {
		defSysRel(d.id, d.oid, nsPgCatalog, d.name, true, d.cols, rowsStatTables(d.name, d.which))
	}
	idxCols := "relid oid, indexrelid oid, schemaname name, relname name, indexrelname name, idx_scan bigint, idx_tup_read bigint, idx_tup_fetch bigint"
	defSysRel(521, 12183, nsPgCatalog, "pg_stat_all_indexes", true, idxCols, rowsStatIndexes("pg_stat_all_indexes"))
	defSysRel(544, 12192, nsPgCatalog, "pg_stat_user_indexes", true, idxCols, rowsStatIndexes("pg_stat_user_indexes"))
	idxioCols := "relid oid, indexrelid oid, schemaname name, relname name, indexrelname name, idx_blks_read bigint, idx_blks_hit bigint"
	defSysRel(551, 12196, nsPgCatalog, "pg_statio_all_indexes", true, idxioCols, rowsStatIndexes("pg_statio_all_indexes"))
	defSysRel(557, 12205, nsPgCatalog, "pg_statio_user_indexes", true, idxioCols, rowsStatIndexes("pg_statio_user_indexes"))
	defSysRel(552, 12209, nsPgCatalog, "pg_statio_all_sequences", true, seqCols, rowsStatioSequences("pg_statio_all_sequences"))
	defSysRel(558, 12218, nsPgCatalog, "pg_statio_user_sequences", true, seqCols, rowsStatioSequences("pg_statio_user_sequences"))
	defSysRel(525, 12266, nsPgCatalog, "pg_stat_database", true,
		"datid oid, datname name, numbackends integer, xact_commit bigint, xact_rollback bigint, blks_read bigint, blks_hit bigint, tup_returned bigint, tup_fetched bigint, tup_inserted bigint, tup_updated bigint, tup_deleted bigint, conflicts bigint, temp_files bigint, temp_bytes bigint, deadlocks bigint, checksum_failures bigint, checksum_last_failure timestamp with time zone, blk_read_time double precision, blk_write_time double precision, session_time double precision, active_time double precision, idle_in_transaction_time double precision, sessions bigint, sessions_abandoned bigint, sessions_fatal bigint, sessions_killed bigint, stats_reset timestamp with time zone",
		rowsStatDatabase)
	defSysRel(526, 12271, nsPgCatalog, "pg_stat_database_conflicts", true,
		"datid oid, datname name, confl_tablespace bigint, confl_lock bigint, confl_snapshot bigint, confl_bufferpin bigint, confl_deadlock bigint",
		func(s *sysSnap) []repr.Row {
			r := sysRelsByName["pg_catalog.pg_stat_database_conflicts"]
			return []repr.Row{r.row(map[string]repr.Datum{"datid": oidD(oidDatabase), "datname": nameD(s.database())})}
		})
	defSysRel(524, 12289, nsPgCatalog, "pg_stat_bgwriter", true,
		"checkpoints_timed bigint, checkpoints_req bigint, checkpoint_write_time double precision, checkpoint_sync_time double precision, buffers_checkpoint bigint, buffers_clean bigint, maxwritten_clean bigint, buffers_backend bigint, buffers_backend_fsync bigint, buffers_alloc bigint, stats_reset timestamp with time zone",
		oneStatRow("pg_stat_bgwriter"))
	defSysRel(545, 12293, nsPgCatalog, "pg_stat_wal", true,
		"wal_records bigint, wal_fpi bigint, wal_bytes numeric, wal_buffers_full bigint, wal_write bigint, wal_sync bigint, wal_write_time double precision, wal_sync_time double precision, stats_reset timestamp with time zone",
		oneStatRow("pg_stat_wal"))
	defSysRel(523, 12285, nsPgCatalog, "pg_stat_archiver", true,
		"archived_count bigint, last_archived_wal text, last_archived_time timestamp with time zone, failed_count bigint, last_failed_wal text, last_failed_time timestamp with time zone, stats_reset timestamp with time zone",
		oneStatRow("pg_stat_archiver"))
	defSysRel(538, 12249, nsPgCatalog, "pg_stat_ssl", true,
		"pid integer, ssl boolean, version text, cipher text, bits integer, client_dn text, client_serial numeric, issuer_dn text",
		rowsStatSSL)
	defSysRel(527, 12253, nsPgCatalog, "pg_stat_gssapi", true,
		"pid integer, gss_authenticated boolean, principal text, encrypted boolean", rowsStatGSSAPI)
}

// statWhich picks the relations of a statistics view: all, the user's
// (outside pg_catalog and information_schema) or the system's.
type statWhich byte

const (
	statAll statWhich = iota
	statUser
	statSys
)

// statRels calls f with the tables and materialized views of which, the
// system ones being the catalogs Eddy keeps as tables (relkind r).
func (s *sysSnap) statRels(which statWhich, f func(ri *relInfo, live int)) {
	for _, ri := range s.relations() {
		sys := ri.obj == nil || isSystemRelation(ri.obj.ID)
		switch {
		case ri.kind != 'r' && ri.kind != 'm', sys && which == statUser, !sys && which == statSys:
			continue
		case ri.obj == nil:
			f(ri, 0)
		default:
			live := 0
			if c := s.e.colls[ri.obj.ID]; c != nil && !sys {
				live = c.Len()
			}
			f(ri, live)
		}
	}
}

// rowsStatTables lists the relations of a pg_stat_*tables or
// pg_statio_*tables view: their live row counts where the view has that
// column, zero counters and NULL times.
func rowsStatTables(rel string, which statWhich) func(s *sysSnap) []repr.Row {
	return func(s *sysSnap) []repr.Row {
		r := sysRelsByName["pg_catalog."+rel]
		var out []repr.Row
		s.statRels(which, func(ri *relInfo, live int) {
			vals := map[string]repr.Datum{"relid": oidD(ri.oid), "schemaname": nameD(s.cat.namespaceName(ri.ns)), "relname": nameD(ri.name)}
			if strings.HasPrefix(rel, "pg_stat_xact_") {
				s.xactStatActivity(ri, vals)
			}
			if _, ok := r.index["n_live_tup"]; ok {
				s.statActivity(ri, vals)
				vals["n_live_tup"] = intD(live)
				for _, c := range []string{"last_vacuum", "last_autovacuum", "last_analyze", "last_autoanalyze"} {
					vals[c] = repr.Null
				}
			}
			if _, ok := r.index["toast_blks_read"]; ok { // no TOAST tables
				for _, c := range []string{"toast_blks_read", "toast_blks_hit", "tidx_blks_read", "tidx_blks_hit"} {
					vals[c] = repr.Null
				}
			}
			out = append(out, r.row(vals))
		})
		return out
	}
}

// statActivity sets the activity counters of ri's pg_stat_*_tables row
// (statcounters.go): scans, rows read and written, the committed writes
// since the last analyze and the inserts since the last vacuum (all of
// them: Eddy runs neither). idx_scan and idx_tup_fetch are NULL for a relation
// without indexes, as PostgreSQL's view sums them over pg_index.
func (s *sysSnap) statActivity(ri *relInfo, vals map[string]repr.Datum) {
	if ri.obj == nil {
		return
	}
	a := s.e.stats.peek(ri.obj.ID)
	if a == nil {
		a = &relActivity{}
	}
	ins, upd, del := a.inserted.Load(), a.updated.Load(), a.deleted.Load()
	vals["seq_scan"], vals["seq_tup_read"] = repr.NewInt(a.seqScan.Load()), repr.NewInt(a.seqTupRead.Load())
	vals["idx_scan"], vals["idx_tup_fetch"] = repr.NewInt(a.idxScan.Load()), repr.NewInt(a.idxTupFetch.Load())
	if len(ri.indexes) == 0 {
		vals["idx_scan"], vals["idx_tup_fetch"] = repr.Null, repr.Null
	}
	vals["n_tup_ins"], vals["n_tup_upd"], vals["n_tup_del"] = repr.NewInt(ins), repr.NewInt(upd), repr.NewInt(del)
	vals["n_mod_since_analyze"], vals["n_ins_since_vacuum"] = repr.NewInt(a.modified.Load()), repr.NewInt(ins)
}

// xactStatActivity sets the counters of ri's pg_stat_xact_*_tables row:
// the reading session's transaction's (statcounters.go), zero outside a
// transaction block; idx_scan and idx_tup_fetch NULL without indexes.
func (s *sysSnap) xactStatActivity(ri *relInfo, vals map[string]repr.Datum) {
	c := &xactCounts{}
	if sess := s.session(); ri.obj != nil && sess != nil && sess.ws != nil && sess.ws.xact[ri.obj.ID] != nil {
		c = sess.ws.xact[ri.obj.ID]
	}
	vals["seq_scan"], vals["seq_tup_read"] = repr.NewInt(c.seqScan), repr.NewInt(c.seqTupRead)
	vals["idx_scan"], vals["idx_tup_fetch"] = repr.NewInt(c.idxScan), repr.NewInt(c.idxTupFetch)
	if len(ri.indexes) == 0 {
		vals["idx_scan"], vals["idx_tup_fetch"] = repr.Null, repr.Null
	}
	vals["n_tup_ins"], vals["n_tup_upd"], vals["n_tup_del"] = repr.NewInt(c.inserted), repr.NewInt(c.updated), repr.NewInt(c.deleted)
}

// rowsStatioSequences lists the sequences with zero block counters.
func rowsStatioSequences(rel string) func(s *sysSnap) []repr.Row {
	return func(s *sysSnap) []repr.Row {
		r := sysRelsByName["pg_catalog."+rel]
		var out []repr.Row
		s.userRels("S", func(ri *relInfo) {
			out = append(out, r.row(map[string]repr.Datum{"relid": oidD(ri.oid), "schemaname": nameD(s.cat.namespaceName(ri.ns)),
				"relname": nameD(ri.name)}))
		})
		return out
	}
}

// rowsStatDatabase is PostgreSQL's two rows: the shared objects' (datid
// 0, no name) and the database's, with its connected backends.
func rowsStatDatabase(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_stat_database"]
	backends := 0
	for _, sess := range s.e.backends.list() {
		if sess.settings.database == s.database() {
			backends++
		}
	}
	if backends == 0 { // an engine without a wire layer: the reader
		backends = 1
	}
	nulls := func(vals map[string]repr.Datum) map[string]repr.Datum {
		vals["checksum_failures"], vals["checksum_last_failure"], vals["stats_reset"] = repr.Null, repr.Null, repr.Null
		return vals
	}
	shared := nulls(map[string]repr.Datum{"datid": oidD(0), "datname": repr.Null})
	for _, c := range []string{"session_time", "active_time", "idle_in_transaction_time", "sessions", "sessions_abandoned", "sessions_fatal", "sessions_killed"} {
		shared[c] = repr.Null
	}
	db := nulls(map[string]repr.Datum{"datid": oidD(oidDatabase), "datname": nameD(s.database()), "numbackends": intD(backends),
		"xact_commit": repr.NewInt(s.e.stats.xactCommit.Load()), "xact_rollback": repr.NewInt(s.e.stats.xactAbort.Load())})
	var sum relTotals
	s.e.stats.rels.Range(func(_, v any) bool {
		sum.add(v.(*relActivity))
		return true
	})
	db["tup_returned"], db["tup_fetched"] = repr.NewInt(sum.returned), repr.NewInt(sum.fetched)
	db["tup_inserted"], db["tup_updated"], db["tup_deleted"] = repr.NewInt(sum.ins), repr.NewInt(sum.upd), repr.NewInt(sum.del)
	return []repr.Row{r.row(shared), r.row(db)}
}

// rowsStatIndexes lists, for pg_stat_all_indexes and pg_stat_user_indexes
// (and pg_statio_all_indexes and pg_statio_user_indexes, whose block
// counters Eddy does not keep: 0), each index (primary keys and UNIQUE constraints included) of the user's
// tables and materialized views with its key lookups (idx_scan) and the
// rows they found (idx_tup_read and idx_tup_fetch: a lookup reads the
// rows themselves). Eddy's system relations have no indexes.
func rowsStatIndexes(rel string) func(s *sysSnap) []repr.Row {
	return func(s *sysSnap) []repr.Row {
		r := sysRelsByName["pg_catalog."+rel]
		var out []repr.Row
		s.statRels(statUser, func(ri *relInfo, _ int) {
			if ri.obj == nil {
				return
			}
			a := s.e.stats.peek(ri.obj.ID)
			for _, ix := range ri.indexes {
				var scans, rows int64
				if a != nil {
					scans, rows = a.index(ix.name)
				}
				vals := map[string]repr.Datum{"relid": oidD(ri.oid), "indexrelid": oidD(ix.oid),
					"schemaname": nameD(s.cat.namespaceName(ri.ns)), "relname": nameD(ri.name), "indexrelname": nameD(ix.name)}
				if _, ok := r.index["idx_scan"]; ok { // pg_statio_*_indexes: block counters, 0
					vals["idx_scan"], vals["idx_tup_read"], vals["idx_tup_fetch"] = repr.NewInt(scans), repr.NewInt(rows), repr.NewInt(rows)
				}
				out = append(out, r.row(vals))
			}
		})
		return out
	}
}

// relTotals sums the relations' counters for pg_stat_database: rows
// returned by full reads, fetched by key lookups, and written.
type relTotals struct{ returned, fetched, ins, upd, del int64 }

// add adds a's counters.
func (t *relTotals) add(a *relActivity) {
	t.returned += a.seqTupRead.Load()
	t.fetched += a.idxTupFetch.Load()
	t.ins += a.inserted.Load()
	t.upd += a.updated.Load()
	t.del += a.deleted.Load()
}

// oneStatRow is a server-wide statistics view's single row: zero
// counters, NULL times, reset when the server started.
func oneStatRow(rel string) func(s *sysSnap) []repr.Row {
	return func(s *sysSnap) []repr.Row {
		r := sysRelsByName["pg_catalog."+rel]
		vals := map[string]repr.Datum{}
		for _, c := range r.cols {
			if c.Type.Family == repr.FamTimestampTZ || c.Type.Family == repr.FamText {
				vals[c.Name] = repr.Null
			}
		}
		vals["stats_reset"] = repr.NewTimestampTZ(repr.TimeToTimestamp(processStart))
		return []repr.Row{r.row(vals)}
	}
}

// backendRows calls f with the Backend (pid, address, TLS) of every
// connected session.
func (s *sysSnap) backendRows(f func(b Backend)) {
	for _, sess := range s.e.backends.list() {
		f(sess.backend)
	}
}

// rowsStatSSL lists each connection's TLS state.
func rowsStatSSL(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_stat_ssl"]
	var out []repr.Row
	s.backendRows(func(b Backend) {
		vals := map[string]repr.Datum{"pid": intD(int(b.PID)), "ssl": boolD(b.TLS.Version != ""), "version": repr.Null,
			"cipher": repr.Null, "bits": repr.Null, "client_dn": repr.Null, "client_serial": repr.Null, "issuer_dn": repr.Null}
		if b.TLS.Version != "" {
			vals["version"], vals["cipher"], vals["bits"] = repr.NewText(b.TLS.Version), repr.NewText(b.TLS.Cipher), intD(b.TLS.Bits)
		}
		out = append(out, r.row(vals))
	})
	return out
}

// rowsStatGSSAPI lists each connection as not using GSSAPI (Eddy has no
// GSSAPI authentication or encryption).
func rowsStatGSSAPI(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_stat_gssapi"]
	var out []repr.Row
	s.backendRows(func(b Backend) {
		out = append(out, r.row(map[string]repr.Datum{"pid": intD(int(b.PID)), "principal": repr.Null}))
	})
	return out
}

// pg_stat_user_tables: one row per table and materialized view, as BI tools read it for row
// estimates (Metabase's table sync joins it on schema and table name).
// Scans and writes are counted (statCounters); Eddy keeps no vacuum or
// analyze statistics, so their counters are 0 and their times NULL;
// n_live_tup is the table's current row count (rowsStatTables).
func init() {
	defSysRel(180, 12161, nsPgCatalog, "pg_stat_user_tables", true,
		statTableCols, rowsStatTables("pg_stat_user_tables", statUser))
}

// statTableCols are the columns of pg_stat_{all,user,sys}_tables.
const statTableCols = "relid oid, schemaname name, relname name, seq_scan bigint, seq_tup_read bigint, idx_scan bigint, idx_tup_fetch bigint, n_tup_ins bigint, n_tup_upd bigint, n_tup_del bigint, n_tup_hot_upd bigint, n_live_tup bigint, n_dead_tup bigint, n_mod_since_analyze bigint, n_ins_since_vacuum bigint, last_vacuum timestamp with time zone, last_autovacuum timestamp with time zone, last_analyze timestamp with time zone, last_autoanalyze timestamp with time zone, vacuum_count bigint, autovacuum_count bigint, analyze_count bigint, autoanalyze_count bigint"
