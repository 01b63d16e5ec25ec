package sql

import (
	"sync"
	"sync/atomic"

	"github.com/eddydb/eddy/repr"
)

// Activity statistics: the counters pg_stat_user_tables and
// pg_stat_database show, kept in memory since the server started (a
// restart starts them at zero, as PostgreSQL after a crash). Each is an
// atomic add where the work is done, once per statement and table (never
// per row), so counting costs the write and read paths nothing they
// would notice (BENCHMARKS.md, "Activity counters").
//
// Per relation: rows inserted, updated and deleted by statements
// (counted when the statement ran, whether or not its transaction then
// committed: PostgreSQL counts attempted actions), full reads (seq_scan,
// and the rows they read, seq_tup_read) and key lookups (idx_scan, and
// the rows they found, idx_tup_fetch). Per database: transactions
// committed and rolled back. Rows a foreign key's action changes count
// in the referencing table (countFKAction). Not counted: function calls
// (pg_stat_user_functions lists none, as PostgreSQL with
// track_functions = none).

// relActivity is one relation's counters; modified counts only the
// writes of committed transactions.
type relActivity struct {
	seqScan, seqTupRead, idxScan, idxTupFetch atomic.Int64
	inserted, updated, deleted, modified      atomic.Int64
	// byIndex counts the key lookups by the index (or primary key) name
	// they read (name -> *indexActivity): pg_stat_get_numscans of an
	// index, pg_stat_user_indexes.
	byIndex sync.Map
}

// indexActivity is one index's key lookups and the rows they found.
type indexActivity struct{ scans, rows atomic.Int64 }

// index returns the counters of index name (zero if it has none).
func (r *relActivity) index(name string) (scans, rows int64) {
	if n, ok := r.byIndex.Load(name); ok {
		ix := n.(*indexActivity)
		return ix.scans.Load(), ix.rows.Load()
	}
	return 0, 0
}

// statCounters is the engine's counters: per relation by catalog ID, and
// the database's transactions.
type statCounters struct {
	rels                  sync.Map // uint64 -> *relActivity
	xactCommit, xactAbort atomic.Int64
}

// rel returns the counters of relation id, creating them on first use.
func (a *statCounters) rel(id uint64) *relActivity {
	if r, ok := a.rels.Load(id); ok {
		return r.(*relActivity)
	}
	r, _ := a.rels.LoadOrStore(id, &relActivity{})
	return r.(*relActivity)
}

// peek returns the counters of relation id, or nil if it has none.
func (a *statCounters) peek(id uint64) *relActivity {
	if r, ok := a.rels.Load(id); ok {
		return r.(*relActivity)
	}
	return nil
}

// countWrite adds n rows changed by a statement of kind 'i' (insert),
// 'u' (update) or 'd' (delete) to relation id's counters.
func (a *statCounters) countWrite(id uint64, kind byte, n int) {
	if n == 0 || !isUserID(id) {
		return
	}
	r := a.rel(id)
	switch kind {
	case 'i':
		r.inserted.Add(int64(n))
	case 'u':
		r.updated.Add(int64(n))
	case 'd':
		r.deleted.Add(int64(n))
	}
}

// countScan adds one read of relation id that returned rows rows: a key
// lookup through index (its name) when index is not "", else a full read.
func (a *statCounters) countScan(id uint64, index string, rows int) {
	if !isUserID(id) {
		return
	}
	r := a.rel(id)
	if index != "" {
		r.idxScan.Add(1)
		r.idxTupFetch.Add(int64(rows))
		n, ok := r.byIndex.Load(index)
		if !ok {
			n, _ = r.byIndex.LoadOrStore(index, new(indexActivity))
		}
		ix := n.(*indexActivity)
		ix.scans.Add(1)
		ix.rows.Add(int64(rows))
		return
	}
	r.seqScan.Add(1)
	r.seqTupRead.Add(int64(rows))
}

// countMods notes n rows a statement of ws changed in table id, for
// countCommitted.
func (w *writeSet) countMods(id uint64, n int) {
	if n == 0 || !isUserID(id) {
		return
	}
	if w.mods == nil {
		w.mods = map[uint64]int64{}
	}
	w.mods[id] += int64(n)
}

// countCommitted adds the rows committed write set ws changed to its
// tables' modified counters.
func (a *statCounters) countCommitted(ws *writeSet) {
	for id, n := range ws.mods {
		a.rel(id).modified.Add(n)
	}
}

// countXact counts a transaction's end.
func (a *statCounters) countXact(commit bool) {
	if commit {
		a.xactCommit.Add(1)
	} else {
		a.xactAbort.Add(1)
	}
}

// xactActivity is one transaction's activity counters per table (the
// session's own, so unsynchronized: only its statements change and read
// them), pg_stat_xact_*_tables' rows; it ends with its write set.
type xactActivity map[uint64]*xactCounts

// xactCounts is one table's counters in a transaction.
type xactCounts struct {
	seqScan, seqTupRead, idxScan, idxTupFetch, inserted, updated, deleted int64
}

// xactCount returns ws's counters of table id, creating them (nil for a
// system relation or without a write set: an autocommit read, whose
// transaction ends before anything could read them).
func (w *writeSet) xactCount(id uint64) *xactCounts {
	if w == nil || !isUserID(id) {
		return nil
	}
	if w.xact == nil {
		w.xact = xactActivity{}
	}
	c := w.xact[id]
	if c == nil {
		c = &xactCounts{}
		w.xact[id] = c
	}
	return c
}

// countWrite adds n rows changed by a statement of kind 'i', 'u' or 'd'
// in table id to the engine's counters and to ws's.
func (e *Engine) countWrite(ws *writeSet, id uint64, kind byte, n int) {
	e.stats.countWrite(id, kind, n)
	c := ws.xactCount(id)
	if c == nil || n == 0 {
		return
	}
	switch kind {
	case 'i':
		c.inserted += int64(n)
	case 'u':
		c.updated += int64(n)
	case 'd':
		c.deleted += int64(n)
	}
}

// countScan adds a read of table id that returned rows rows (through
// index, else whole) to the engine's counters and to ws's.
func (e *Engine) countScan(ws *writeSet, id uint64, index string, rows int) {
	e.stats.countScan(id, index, rows)
	if c := ws.xactCount(id); c != nil {
		if index != "" {
			c.idxScan++
			c.idxTupFetch += int64(rows)
		} else {
			c.seqScan++
			c.seqTupRead += int64(rows)
		}
	}
}

// isUserID reports whether id is a user relation's (system relations
// keep no counters).
func isUserID(id uint64) bool { return id >= firstUserID }

// statGetNumscans is pg_stat_get_numscans(oid): a table's full reads, an
// index's (or primary key's) key lookups, 0 for anything else.
func statGetNumscans(_ sessionCatalog, s *sysSnap, a []repr.Datum) (repr.Datum, error) {
	ri := s.rel(uint32(a[0].Int()))
	switch {
	case ri == nil:
		return repr.NewInt(0), nil
	case ri.index != nil:
		if t := s.rel(ri.index.table); t != nil && t.obj != nil {
			if r := s.e.stats.peek(t.obj.ID); r != nil {
				scans, _ := r.index(ri.name)
				return repr.NewInt(scans), nil
			}
		}
	case ri.obj != nil:
		if r := s.e.stats.peek(ri.obj.ID); r != nil {
			return repr.NewInt(r.seqScan.Load()), nil
		}
	}
	return repr.NewInt(0), nil
}
