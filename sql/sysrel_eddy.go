package sql

import (
	"cmp"
	"slices"
	"strings"

	"github.com/eddydb/eddy/exec"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// eddy_catalog's computed relations. eddy_subscriptions, eddy_indexes and
// eddy_dataflow_operators are system relations of the sysRel registry
// (sysrel.go), not stored ones like eddy_sources: their rows are computed
// when a query reads them, from the engine's state under its lock (the
// open subscribers, the collections' arrangements, the running
// dataflows), so they are exact at the query's logical time and cost
// nothing when unread. Like every system relation they are read-only, and
// views and subscriptions over them are 0A000 (checkMaintainable).

// OIDs of eddy_catalog's computed relations (in eddy_catalog's range).
const (
	oidEddySubscriptions uint32 = 16010
	oidEddyIndexes       uint32 = 16011
	oidEddyOperators     uint32 = 16012
	oidEddyBackfills     uint32 = 16013
)

func init() {
	defSysRel(20, oidEddySubscriptions, nsEddyCatalog, "eddy_subscriptions", true,
		"pid integer, usename name, relation text, query text, started_at timestamp with time zone, "+
			"rows_sent bigint, bytes_queued bigint", eddySubscriptionRows)
	defSysRel(21, oidEddyIndexes, nsEddyCatalog, "eddy_indexes", true,
		"schemaname name, indexname name, relation name, columns text, kind text, "+
			"entries bigint, bytes bigint, spilled boolean", eddyIndexRows)
	defSysRel(22, oidEddyOperators, nsEddyCatalog, "eddy_dataflow_operators", true,
		"schemaname name, viewname name, node integer, operator text, state_rows bigint, state_bytes bigint, "+
			"changed_at bigint, engine_time bigint, late_rows bigint, stored_bytes bigint, step_count bigint, step_cpu_ns bigint",
		eddyOperatorRows)
	defSysRel(23, oidEddyBackfills, nsEddyCatalog, "eddy_backfills", true,
		"pid integer, schemaname name, viewname name, inputs text, started_at timestamp with time zone, "+
			"rows_done bigint, rows_total bigint, phase text, tail_bytes bigint", eddyBackfillRows)
}

// eddyOperatorRows lists the nodes of every materialized view's running
// dataflow (not SUBSCRIBE's temporary ones), by view then node. The
// view's columns repeat on each of its rows: changed_at, the logical
// time of its last committed change since start (NULL: none); the
// engine's logical time (every view is stepped in each commit, so its
// frontier is the engine's: changed_at says how long it has been quiet);
// late_rows, the rows its event-time sources delivered below their
// watermark, which it dropped. A spilled operator's state_rows and
// state_bytes count its resident part (the keys cached or changed since
// the last checkpoint); stored_bytes estimates the rest, its state in the
// store (storage.DB.DiskUsage over the node's keys: compressed, what the
// checkpoints flushed); NULL for an operator whose state is in memory.
// step_count and step_cpu_ns are the view's too: the steps of its
// dataflow since the engine started and their CPU time (the step, its
// output applied to the view's contents and its unique indexes checked;
// stepcpu.go), whether or not their transaction committed.
func eddyOperatorRows(s *sysSnap) []repr.Row {
	r := sysRelsByName[qualified(nsEddyCatalog, "eddy_dataflow_operators")]
	views := make([]*matView, 0, len(s.e.views))
	for _, mv := range s.e.views {
		if !mv.transient {
			views = append(views, mv)
		}
	}
	slices.SortFunc(views, func(a, b *matView) int {
		return strings.Compare(qualified(a.obj.Schema, a.obj.Name), qualified(b.obj.Schema, b.obj.Name))
	})
	var out []repr.Row
	for _, mv := range views {
		var late int64
		for _, n := range mv.df.Late() {
			late += n
		}
		changed := repr.Null
		if mv.changedAt > 0 {
			changed = repr.NewInt(int64(mv.changedAt))
		}
		spilled := mv.df.SpilledNodes()
		for _, op := range mv.df.Operators() {
			stored := repr.Null
			if slices.Contains(spilled, op.Node) {
				stored = intOrNull(s.e.storedBytes(mv.obj.ID, op.Node))
			}
			out = append(out, r.row(map[string]repr.Datum{"schemaname": nameD(mv.obj.Schema), "viewname": nameD(mv.obj.Name),
				"node": repr.NewInt(int64(op.Node)), "operator": repr.NewText(op.Op), "state_rows": intOrNull(op.StateRows),
				"state_bytes": intOrNull(op.StateBytes), "changed_at": changed, "engine_time": repr.NewInt(int64(s.e.clock)),
				"late_rows": repr.NewInt(late), "stored_bytes": stored,
				"step_count": repr.NewInt(mv.cpu.count), "step_cpu_ns": repr.NewInt(mv.cpu.ns)}))
		}
	}
	return out
}

// storedBytes estimates the bytes on disk of node's state in view id's
// dataflow (-1: the store could not tell).
func (e *Engine) storedBytes(id uint64, node int) int64 {
	n, err := e.db.DiskUsage(append(storage.StatePrefix(id), exec.NodePrefix(node)...))
	if err != nil {
		return -1
	}
	return int64(n)
}

// intOrNull is n as a bigint, NULL when negative (unknown).
func intOrNull(n int64) repr.Datum {
	if n < 0 {
		return repr.Null
	}
	return repr.NewInt(n)
}

// eddySubscriptionRows lists the open subscriptions, by pid then start.
func eddySubscriptionRows(s *sysSnap) []repr.Row {
	r := sysRelsByName[qualified(nsEddyCatalog, "eddy_subscriptions")]
	var subs []*subscriber
	for _, m := range s.e.subs {
		for sub := range m {
			subs = append(subs, sub)
		}
	}
	slices.SortFunc(subs, func(a, b *subscriber) int {
		if c := cmp.Compare(a.info.pid, b.info.pid); c != 0 {
			return c
		}
		return a.info.started.Compare(b.info.started)
	})
	out := make([]repr.Row, 0, len(subs))
	for _, sub := range subs {
		v := map[string]repr.Datum{"pid": repr.NewInt(int64(sub.info.pid)), "usename": nameD(sub.info.user),
			"relation": repr.Null, "query": repr.Null, "started_at": tsOrNull(sub.info.started),
			"rows_sent": repr.NewInt(sub.sent.Load()), "bytes_queued": repr.NewInt(sub.queued.Load())}
		if sub.info.query {
			v["query"] = repr.NewText(sub.info.target)
		} else {
			v["relation"] = repr.NewText(sub.info.target)
		}
		out = append(out, r.row(v))
	}
	return out
}

// Kinds of eddy_indexes rows.
const (
	indexKindUser = "index"       // CREATE INDEX
	indexKindAuto = "automatic"   // an automatic index (autoindex.go)
	indexKindPK   = "primary key" // a collection's own key order
)

// eddyIndexRows lists every arrangement of a stored collection: each
// table's or materialized view's primary key order, and each index.
// Bytes are the in-memory ones (a spilled collection's are those of its
// overlay, the changes since the last checkpoint); a primary key order's
// entries are its collection's distinct rows, exact even when spilled.
func eddyIndexRows(s *sysSnap) []repr.Row {
	r := sysRelsByName[qualified(nsEddyCatalog, "eddy_indexes")]
	var out []repr.Row
	for _, o := range s.cat.objects() {
		if isSystemRelation(o.ID) {
			continue
		}
		if o.Kind == relIndex && o.Index != nil {
			out = append(out, eddyIndexRow(s, r, o))
		} else if len(o.PrimaryKey) > 0 && (o.Kind == planner.RelTable || o.Kind == planner.RelMaterializedView) {
			if c := s.e.colls[o.ID]; c != nil {
				out = append(out, r.row(map[string]repr.Datum{"schemaname": nameD(o.Schema), "indexname": nameD(o.pkeyName()),
					"relation": nameD(o.Name), "columns": repr.NewText(colNames(o, o.PrimaryKey, nil)), "kind": repr.NewText(indexKindPK),
					"entries": repr.NewInt(int64(c.Len())), "bytes": repr.NewInt(c.RowsMemBytes()), "spilled": repr.NewBool(c.Spilled())}))
			}
		}
	}
	slices.SortFunc(out, func(a, b repr.Row) int {
		return strings.Compare(a[0].String()+"."+a[1].String(), b[0].String()+"."+b[1].String())
	})
	return out
}

// eddyIndexRow is the row of index object ix. A spilled index's entries
// are only partly in memory: entries is then NULL.
func eddyIndexRow(s *sysSnap, r *sysRel, ix *Object) repr.Row {
	kind := indexKindUser
	if ix.Index.Implicit {
		kind = indexKindAuto
	}
	v := map[string]repr.Datum{"schemaname": nameD(ix.Schema), "indexname": nameD(ix.Name), "relation": repr.Null,
		"kind": repr.NewText(kind), "entries": repr.Null, "bytes": repr.Null, "spilled": repr.NewBool(false)}
	if t := s.cat.byID[ix.Index.Table]; t != nil {
		v["relation"] = nameD(t.Name)
		v["columns"] = repr.NewText(colNames(t, ix.Index.Cols, ix.Index.Exprs))
	}
	if c := s.e.colls[ix.Index.Table]; c != nil {
		if n, b, ok := c.IndexMem(ix.ID); ok {
			v["bytes"], v["spilled"] = repr.NewInt(b), repr.NewBool(c.Spilled())
			if !c.Spilled() {
				v["entries"] = repr.NewInt(int64(n))
			}
		}
	}
	return r.row(v)
}

// colNames prints the key parts cols of o (exprs[i] for a part -1).
func colNames(o *Object, cols []int, exprs []string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		switch {
		case c >= 0 && c < len(o.Columns):
			parts[i] = o.Columns[c].Name
		case i < len(exprs):
			parts[i] = exprs[i]
		}
	}
	return strings.Join(parts, ", ")
}
