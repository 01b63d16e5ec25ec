package sql

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// SourceDef is the connector side of a source or connector-fed table, as
// the server's connector runtime needs it.
type SourceDef struct {
	ID        uint64
	Name      string
	Columns   []ColumnDef
	Connector string
	// Options are the WITH options, keys lower-cased (dotted names kept).
	Options map[string]string
	// Format and Encode are FORMAT ... ENCODE ... ("" when absent).
	Format, Encode string
	// IsTable is true for CREATE TABLE ... WITH (connector = ...): its rows
	// are stored and queryable.
	IsTable bool
	// Watermark is the event-time column and its watermark expression
	// (nil without WATERMARK FOR).
	Watermark *WatermarkDef `json:",omitempty"`
	// EncodeOptions are the options after ENCODE (e.g. CSV's delimiter).
	EncodeOptions map[string]string `json:",omitempty"`
	// PrimaryKey are the indexes of a connector-fed table's key columns
	// (filled from the catalog entry; nil for sources).
	PrimaryKey []int `json:"-"`
	// ChecksDeletions is set on every source created since retracting
	// sources keep their live rows (source_rows.go); one created before
	// has none stored, so it passes its deletions on unchecked, as then.
	ChecksDeletions bool `json:",omitempty"`
}

// appendOnly reports whether the source's records can only insert rows:
// FORMAT PLAIN (or none). UPSERT and DEBEZIUM records update and delete.
func (d *SourceDef) appendOnly() bool {
	return d.Format == "" || strings.EqualFold(d.Format, "plain")
}

// WatermarkDef is WATERMARK FOR Column AS Expr.
type WatermarkDef struct {
	Column int
	// Expr is the SQL text of the watermark expression over the source's
	// columns, e.g. date_time - INTERVAL '4' SECOND.
	Expr string
}

// Connectors validates source definitions and is told when a source must
// run. The server implements it with the connector packages; sql cannot
// import them (they sit above it), so it declares what it needs.
type Connectors interface {
	// Validate checks a definition at CREATE time (unknown connector or
	// option: a *repr.Error).
	Validate(def SourceDef) error
	// Activate starts (or keeps running) the source's reader; called when a
	// materialized view or a table needs its events, and at start-up for
	// such sources. Deactivate stops it (the source was dropped).
	Activate(def SourceDef)
	Deactivate(id uint64)
}

// sourceState is a source's runtime state in the engine: its watermark
// expression and current watermark.
//
// Invariant: parts holds, per partition that has produced a row with a
// non-NULL watermark value, the largest such value; when it is non-empty
// hasWM is true and watermark >= min(parts) (the watermark never goes
// back, so it may exceed the minimum after a new partition appears).
type sourceState struct {
	def SourceDef
	// position is the source's last committed position, once loaded
	// (posLoaded): the start of the next batch, for position-only log
	// records.
	position  []byte
	posLoaded bool
	wmExpr    expr.Expr
	watermark int64
	hasWM     bool
	parts     map[int32]int64
	// status is what eddy_sources reports (see source_sysrel.go).
	status sourceStatus
	// pendingLate is the late rows of the batch being ingested, and
	// pendingBad its dropped deletions (source_rows.go).
	pendingLate int64
	pendingBad  []SourceError
	// badLoggedAt is when (wall-clock µs) bad deletions were last logged
	// and badUnlogged how many were dropped since.
	badLoggedAt, badUnlogged int64
	// rows is the multiset of a retracting source's live rows (nil for
	// other sources; source_rows.go).
	rows *sourceRows
	// idle is the idle timeout (source_idle.go; 0: none) and seen the
	// wall-clock time (µs) each partition last delivered a change.
	idle time.Duration
	seen map[int32]int64
}

// SetConnectors installs the connector registry and activates every
// source that a view or table already needs (after a restart).
func (e *Engine) SetConnectors(c Connectors) {
	active, sinks := e.installConnectors(c)
	sort.Slice(active, func(i, j int) bool { return active[i].ID < active[j].ID })
	for _, d := range active {
		c.Activate(d)
	}
	if sc, ok := c.(SinkConnectors); ok {
		for _, d := range sinks {
			sc.ActivateSink(d)
		}
	}
}

// sourceNeeded reports whether some materialized view reads the source or
// it is a connector-fed table (whose rows are stored).
func (e *Engine) sourceNeeded(id uint64) bool {
	if s := e.sources[id]; s != nil && s.def.IsTable {
		return true
	}
	for _, mv := range e.views {
		for _, src := range mv.sources {
			if src == id {
				return true
			}
		}
	}
	return false
}

// registerSource builds the runtime state of a source object.
func (e *Engine) registerSource(o *Object) error {
	st := &sourceState{def: *o.Source}
	st.def.ID, st.def.Name, st.def.Columns, st.def.PrimaryKey = o.ID, o.Name, o.Columns, o.PrimaryKey
	if w := o.Source.Watermark; w != nil {
		n, err := parseExpr(w.Expr)
		if err != nil {
			return err
		}
		x, err := planner.PlanScalarOver(e.cat, n, o.rel, repr.Unknown)
		if err != nil {
			return err
		}
		st.wmExpr = x
	}
	idle, err := sourceIdleTimeout(&st.def)
	if err != nil {
		return err
	}
	st.idle = idle
	if st.def.retracting() {
		st.rows = newSourceRows(&st.def)
	}
	if v, ok, err := e.db.Get(sourceSeenKey(o.ID)); err != nil {
		return err
	} else if ok {
		st.seen = decodeSeen(v)
	}
	if v, ok, err := e.db.Get(sourceWatermarkKey(o.ID)); err != nil {
		return err
	} else if ok {
		st.watermark, st.parts = decodeWatermark(v)
		st.hasWM = true
	}
	e.sources[o.ID] = st
	return nil
}

func sourcePositionKey(id uint64) []byte {
	return storage.MetaKey(fmt.Sprintf("source/%d/position", id))
}
func sourceWatermarkKey(id uint64) []byte {
	return storage.MetaKey(fmt.Sprintf("source/%d/watermark", id))
}

// SourcePosition returns the durable reading position of a source (opaque
// to the engine; nil before the first batch).
func (e *Engine) SourcePosition(id uint64) ([]byte, error) {
	v, _, err := e.db.Get(sourcePositionKey(id))
	return v, err
}

// Ingest appends rows to a source at a new logical time: they flow through
// every materialized view reading the source (and into the table, for a
// connector-fed table), and the source's new position and watermark are
// written in the same synced batch, so a restart resumes exactly after the
// last ingested batch: nothing lost, nothing counted twice.
func (e *Engine) Ingest(id uint64, rows []repr.Row, position []byte) error {
	changes := make([]Change, len(rows))
	for i, r := range rows {
		changes[i] = Change{Kind: ChangeInsert, Row: r}
	}
	return e.IngestChanges(id, changes, position, nil)
}

// IngestChanges applies one batch of a source's changes at a new logical
// time, atomically with the source's new position, watermark and
// statistics (stats: the records read and the bad records found since the
// previous batch, which then appear in eddy_sources and
// eddy_source_errors; nil for none). Inserts and deletes pass through as
// +1/-1 updates; on a connector-fed table with a primary key an Upsert
// retracts the stored row with its key (if any and if it differs) and
// inserts the new one, a Tombstone retracts the stored row with its key
// (see applyTableChanges).
func (e *Engine) IngestChanges(id uint64, changes []Change, position []byte, stats *IngestStats) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.waitDDLLocked(id)
	st := e.sources[id]
	if st == nil {
		return repr.Errorf(repr.CodeUndefinedTable, "source %d does not exist", id)
	}
	if err := e.db.CheckSpace(); err != nil {
		return err
	}
	// The group-commit batch, reused: its arena keeps its size across
	// batches instead of regrowing from empty (both run under e.mu).
	b := e.committer.logBatch(e.db)
	prevClock, prevWM, prevHas, prevParts, prevSeen := e.clock, st.watermark, st.hasWM, maps.Clone(st.parts), maps.Clone(st.seen)
	t := e.tick(b)
	tx := e.newTx()
	err := e.ingestRecover(st, changes, t, b, tx)
	if err == nil && st.pendingLate > 0 {
		if stats == nil {
			stats = &IngestStats{}
		}
		stats.Late += st.pendingLate
	}
	if err == nil {
		stats = e.addBad(st, stats)
	}
	if err == nil {
		err = e.loadPosition(st)
	}
	if err == nil {
		e.noteSourceHistory(st, b, t, changes, position, prevWM, prevHas)
		err = e.logSourceBatch(st, b, t, changes, position)
	}
	if err == nil {
		b.Set(sourcePositionKey(id), position)
		e.logSourceStats(st, stats, b)
		err = e.db.Commit(b)
	}
	if err != nil {
		tx.rollback()
		e.clock, st.watermark, st.hasWM, st.parts, st.seen = prevClock, prevWM, prevHas, prevParts, prevSeen
		e.refused()
		return err
	}
	tx.commit()
	e.captureBackfills(tx.deltas)
	st.position, st.posLoaded = bytes.Clone(position), true
	e.noteSourceStats(st, stats)
	e.logBad(st)
	e.publish(t, tx.deltas)
	e.committed(1)
	return nil
}

// A SourceReplayer regenerates the batches of sources whose connector is
// deterministic (the nexmark generator): for them the input log records
// only the positions a batch moved the source between, not its rows,
// which saves encoding, writing and syncing every row twice. Replay must
// return exactly the changes the connector ingested for that batch, in
// order; the logged change count is checked.
type SourceReplayer interface {
	// Replayable reports whether def's batches can be regenerated.
	Replayable(def SourceDef) bool
	// Replay returns the changes of def's batch from position from (nil
	// or empty: the start) to position to.
	Replay(def SourceDef, from, to []byte) ([]Change, error)
}

// logSourceBatch writes a source batch's log record at time t to b: its
// positions if the source is replayable, else its changes.
func (e *Engine) logSourceBatch(st *sourceState, b *storage.Batch, t repr.Time, changes []Change, to []byte) error {
	if e.replayer == nil || !e.replayer.Replayable(st.def) {
		e.recBuf = appendSourceRecord(e.recBuf[:0], e.wall.last, st.def.ID, changes)
		e.logInput(b, t, e.recBuf)
		return nil
	}
	if err := e.loadPosition(st); err != nil {
		return err
	}
	e.recBuf = appendSourceRefRecord(e.recBuf[:0], e.wall.last, st.def.ID, st.position, to, len(changes))
	e.logInput(b, t, e.recBuf)
	return nil
}

// ingest applies one source batch at time t: the table rows and the
// watermark are state (checkpoint batch); b gets the sink log entries.
// ingestRecover is ingest with a panic (a bug) turned into an XX000
// error naming the source, which IngestChanges then rolls back like any
// failed batch: the source stops as failed (eddy_sources), the engine and
// every other source go on.
func (e *Engine) ingestRecover(st *sourceState, changes []Change, t repr.Time, b *storage.Batch, tx *applyTx) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("panic ingesting a source batch", "source", st.def.Name, "panic", r, "stack", stack())
			err = repr.Errorf(repr.CodeInternal, "internal error ingesting source \"%s\": %v", st.def.Name, r)
		}
	}()
	return e.ingest(st, changes, t, b, tx)
}

func (e *Engine) ingest(st *sourceState, changes []Change, t repr.Time, b *storage.Batch, tx *applyTx) error {
	faultIngest.Inject()
	sb := e.stateBatch()
	var updates []repr.Update
	var bad []Change
	var err error
	switch {
	case st.def.IsTable:
		c := e.colls[st.def.ID]
		e.dropIndexes(st.def.ID)
		c.Begin()
		tx.colls = append(tx.colls, c)
		updates, bad, err = applyTableChanges(c, changes, t, sb)
	case st.rows != nil:
		st.rows.c.Begin()
		tx.colls = append(tx.colls, st.rows.c)
		updates, bad, err = st.rows.apply(changes, t, sb, st.watermark, st.hasWM)
	default:
		updates, err = sourceUpdates(&st.def, changes, t)
	}
	if err == nil {
		err = e.noteBad(st, bad)
	}
	if err != nil {
		return err
	}
	st.pendingLate = st.countLate(updates)
	prevWM, prevHas := st.watermark, st.hasWM
	if err := st.advance(changes, e.wall.last); err != nil {
		return err
	}
	if st.rows != nil && st.hasWM && (!prevHas || st.watermark > prevWM) {
		if err := st.rows.prune(prevWM, prevHas, st.watermark, sb); err != nil {
			return err
		}
	}
	if st.hasWM {
		sb.Set(sourceWatermarkKey(st.def.ID), encodeWatermark(st.watermark, st.parts))
	}
	if st.idle > 0 && len(changes) > 0 {
		sb.Set(sourceSeenKey(st.def.ID), encodeSeen(st.seen))
	}
	deltas := map[uint64][]repr.Update{st.def.ID: updates}
	return e.propagate(deltas, t, b, tx)
}

// sourceUpdates turns a source's changes into updates. A source stores no
// rows and has no primary key, so by-key changes cannot be resolved; the
// connector runtime never sends them (UPSERT needs a table). A deletion
// reaches a source only in FORMAT DEBEZIUM: views plan the other sources
// as append-only (their top-k and min/max keep only what insertions
// need), so a deletion there is refused, failing the batch, rather than
// passed on to state that cannot apply it.
func sourceUpdates(def *SourceDef, changes []Change, t repr.Time) ([]repr.Update, error) {
	updates := make([]repr.Update, 0, len(changes))
	for _, c := range changes {
		switch c.Kind {
		case ChangeInsert:
			updates = append(updates, repr.Update{Row: c.Row, Time: t, Diff: 1})
		case ChangeDelete:
			if def.appendOnly() {
				return nil, repr.Errorf(repr.CodeInternal,
					"source %s is append-only (FORMAT PLAIN) but its connector delivered a deletion", def.Name)
			}
			updates = append(updates, repr.Update{Row: c.Row, Time: t, Diff: -1})
		}
	}
	return updates, nil
}

// countLate counts the changes, insertions and deletions alike, whose
// event time is below the watermark as it was before this batch (or NULL
// once there is one): the changes every view's Source drops as late
// (exec/source.go applies the same rule), reported per source in
// eddy_sources.late_rows. A batch with a late change leaves a cut for
// later views' backfills (noteSourceHistory), deletions included: a
// deletion of a row whose window closed is dropped live, so a backfill
// must judge it against the same watermark.
func (st *sourceState) countLate(updates []repr.Update) int64 {
	if !st.hasWM || st.def.Watermark == nil {
		return 0
	}
	col := st.def.Watermark.Column
	var n int64
	for _, u := range updates {
		if d := u.Row[col]; d.IsNull() || d.Micros() < st.watermark {
			n += max(u.Diff, -u.Diff)
		}
	}
	return n
}

// advance raises each partition's watermark to the largest value of the
// watermark expression over the rows its inserts and upserts carry, then
// the source's watermark to the minimum over the partitions that have
// produced one and delivered something within the idle timeout before now
// (wall-clock µs): a slow partition holds the source back, so its rows are
// not late just because another partition ran ahead, but an idle one does
// not hold it forever. Watermarks never go back (the source's stays put
// when a new partition starts lower).
func (st *sourceState) advance(changes []Change, now int64) error {
	if st.wmExpr == nil {
		return nil
	}
	st.noteActive(changes, now)
	ctx := evalCtx()
	moved := false
	for _, c := range changes {
		if c.Row == nil || (c.Kind != ChangeInsert && c.Kind != ChangeUpsert) {
			continue
		}
		d, err := st.wmExpr.Eval(ctx, c.Row)
		if err != nil {
			return err
		}
		if d.IsNull() {
			continue
		}
		v := d.Micros()
		if old, ok := st.parts[c.Partition]; ok && v <= old {
			continue
		}
		if st.parts == nil {
			st.parts = map[int32]int64{}
		}
		st.parts[c.Partition], moved = v, true
	}
	if !moved && (st.idle <= 0 || len(changes) == 0 || len(st.parts) == 0) {
		return nil
	}
	if m := st.activeMin(now); !st.hasWM || m > st.watermark {
		st.watermark, st.hasWM = m, true
	}
	return nil
}

// minWatermark is the smallest of the (non-empty) partition watermarks.
func minWatermark(parts map[int32]int64) int64 {
	first, m := true, int64(0)
	for _, v := range parts {
		if first || v < m {
			first, m = false, v
		}
	}
	return m
}

// encodeWatermark encodes a source's watermark (encodeInt64's 9 bytes, the
// encoding before per-partition watermarks) followed by its partitions'
// watermarks in partition order, each a varint partition and value.
func encodeWatermark(wm int64, parts map[int32]int64) []byte {
	buf := encodeInt64(wm)
	ps := slices.Sorted(maps.Keys(parts))
	for _, p := range ps {
		buf = binary.AppendVarint(buf, int64(p))
		buf = binary.AppendVarint(buf, parts[p])
	}
	return buf
}

// decodeWatermark is the inverse of encodeWatermark; it reads the older
// encoding (no partitions) too, and ignores a malformed partition list
// (the watermark stays, the partitions restart from their next rows).
func decodeWatermark(b []byte) (int64, map[int32]int64) {
	if len(b) < 9 {
		return 0, nil
	}
	wm := decodeInt64(b[:9])
	var parts map[int32]int64
	for rest := b[9:]; len(rest) > 0; {
		p, k := binary.Varint(rest)
		if k <= 0 {
			return wm, nil
		}
		v, k2 := binary.Varint(rest[k:])
		if k2 <= 0 {
			return wm, nil
		}
		if parts == nil {
			parts = map[int32]int64{}
		}
		parts[int32(p)] = v
		rest = rest[k+k2:]
	}
	return wm, parts
}

// sourceWatermarks returns the current watermarks of those of ids that are
// sources with one (nil when none), for a dataflow's Step.
func (e *Engine) sourceWatermarks(ids []uint64) map[repr.CollectionID]int64 {
	var out map[repr.CollectionID]int64
	for _, id := range ids {
		if s := e.sources[id]; s != nil && s.hasWM {
			if out == nil {
				out = map[repr.CollectionID]int64{}
			}
			out[repr.CollectionID(id)] = s.watermark
		}
	}
	return out
}

// SourceWatermark returns a source's current watermark (ok false if none).
func (e *Engine) SourceWatermark(id uint64) (int64, bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if s := e.sources[id]; s != nil {
		return s.watermark, s.hasWM
	}
	return 0, false
}

func encodeInt64(v int64) []byte {
	return repr.AppendKey(nil, repr.NewInt(v))
}

func decodeInt64(b []byte) int64 {
	if len(b) != 9 {
		return 0
	}
	var u uint64
	for _, c := range b[1:] {
		u = u<<8 | uint64(c)
	}
	return int64(u ^ 1<<63)
}

// installConnectors installs c under the engine's lock and returns the
// sources and sinks to activate.
func (e *Engine) installConnectors(c Connectors) (active []SourceDef, sinks []SinkDef) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.connectors = c
	if err := e.installSystemRelations(); err != nil {
		e.log.Error("installing the system relations", "err", err)
	}
	for _, s := range e.sources {
		if e.sourceNeeded(s.def.ID) {
			active = append(active, s.def)
		}
	}
	return active, e.activeSinks()
}

// createSource adds a source (or connector-fed table) durably after the
// connector has validated it.
func (e *Engine) createSource(obj *Object, ifNotExists bool) error {
	if err := e.validateSource(obj); err != nil {
		return err
	}
	var err error
	var c Connectors
	e.writeLocked(func() {
		err = e.addSourceLocked(obj, ifNotExists)
		c = e.connectors
	})
	if err == nil && obj.Source.IsTable && c != nil {
		c.Activate(e.sources[obj.ID].def)
	}
	return err
}

func (e *Engine) validateSource(obj *Object) error {
	var c Connectors
	e.readLocked(func() {
		c = e.connectors
	})
	if c == nil {
		return repr.Unsupported("sources (no connector runtime in this process)")
	}
	def := *obj.Source
	def.Name, def.Columns, def.PrimaryKey = obj.Name, obj.Columns, obj.PrimaryKey
	return c.Validate(def)
}

// addSourceLocked registers and persists a validated source.
func (e *Engine) addSourceLocked(obj *Object, ifNotExists bool) error {
	if exists, err := e.nameTaken(obj, ifNotExists); exists || err != nil {
		return err
	}
	b := e.db.NewBatch()
	defer b.Close()
	prevID := e.nextID
	obj.ID = e.allocID(b)
	e.applyDefaultACL(obj)
	if err := e.cat.add(obj); err != nil {
		e.nextID = prevID
		return err
	}
	err := e.registerSource(obj)
	if err == nil {
		err = e.persistObject(obj, b)
	}
	if err == nil {
		err = e.db.Commit(b)
	}
	if err != nil {
		e.cat.remove(obj)
		delete(e.sources, obj.ID)
		e.nextID = prevID
		return err
	}
	if obj.Source.IsTable {
		e.colls[obj.ID] = storage.NewCollection(obj.ID, obj.PrimaryKey)
	}
	st := e.sources[obj.ID]
	st.status.state, st.status.lag = SourceIdle, -1
	e.refreshSourceRow(st)
	return nil
}

// activateSources starts the readers of the sources a new view reads.
func (e *Engine) activateSources(deps []uint64) {
	var c Connectors
	var defs []SourceDef
	e.readLocked(func() {
		c = e.connectors
		for _, id := range deps {
			if s := e.sources[id]; s != nil {
				defs = append(defs, s.def)
			}
		}
	})
	if c == nil {
		return
	}
	for _, d := range defs {
		c.Activate(d)
	}
}

// forgetSources stops the readers of dropped sources and of sources no view
// needs any more (under the engine lock; Deactivate does not call back).
func (e *Engine) forgetSources(dropped []*Object) {
	b := e.db.NewBatch()
	defer b.Close()
	for _, o := range dropped {
		if st := e.sources[o.ID]; st != nil {
			e.dropSourceStatus(st, b)
			delete(e.sources, o.ID)
			if e.connectors != nil {
				e.connectors.Deactivate(o.ID)
			}
		}
	}
	for id, st := range e.sources {
		if !e.sourceNeeded(id) && e.connectors != nil {
			e.connectors.Deactivate(id)
			st.status.state, st.status.lag = SourceIdle, -1
			e.refreshSourceRow(st)
		}
	}
	if err := e.db.Commit(b); err != nil {
		e.log.Warn("deleting the statistics of dropped sources", "err", err)
	}
}

// checkReadable rejects ad-hoc reads of sources, whose rows are not kept.
func (e *Engine) checkReadable(srcs []repr.CollectionID) error {
	for _, id := range srcs {
		if s := e.sources[uint64(id)]; s != nil && !s.def.IsTable {
			return repr.Unsupported("reading source %q directly (its events are not stored): create a materialized view over it, or use CREATE TABLE ... WITH (connector = ...)", s.def.Name)
		}
	}
	return nil
}
