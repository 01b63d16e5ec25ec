package sql

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// System relations.
//
// eddy_sources and eddy_source_errors (and eddy_sinks, see sink.go) are
// engine-maintained relations registered in the catalog under reserved
// names and reserved IDs (below the first user ID, 1000) when a connector
// runtime is installed (SetConnectors). They are read-only materialized
// views as far as the planner is concerned (DML is refused), held in memory
// only and updated under the engine lock as sources progress, so an
// ad-hoc SELECT sees them like any other relation at one logical time.
// Their contents are rebuilt at start-up from what is durable: each
// source's counters and its last bad records are written in the same
// batch as the rows and position of the batch that read them (so after a
// crash they agree exactly with what the views saw: each bad record is
// listed once), while state and lag are live values of the running
// connector. Materialized views and subscriptions over them are refused
// (0A000): they change outside the logical clock, so they could not be
// maintained incrementally.
const (
	sysSourcesID      uint64 = 1
	sysSourceErrorsID uint64 = 2
	sysSinksID        uint64 = 3
	// firstUserID is the lowest ID of a user object (Engine.nextID starts
	// there); lower IDs are system relations.
	firstUserID uint64 = 1000
)

// maxErrorsKept is how many bad records eddy_source_errors keeps per
// source (the newest; the counter in eddy_sources counts all).
const maxErrorsKept = 1000

// IngestStats are the statistics a connector hands IngestChanges with a
// batch: how many records it read and how many were bad since the previous
// batch, and the bad records themselves.
type IngestStats struct {
	Records, Bad int64
	// Late is set by the engine: rows below the source's watermark on
	// arrival, dropped by every view.
	Late   int64
	Errors []SourceError
}

// SourceError is one skipped bad record, as eddy_source_errors lists it.
type SourceError struct {
	// Partition is the Kafka partition (-1 when the connector has none);
	// Offset the record's offset (or number) in it.
	Partition int32
	Offset    int64
	Err       string
	// Prefix is the start of the raw record.
	Prefix string
}

// sourceStatus is a source's row of eddy_sources and its errors.
type sourceStatus struct {
	state, err   string
	records, bad int64
	late         int64
	lag          int64 // -1: unknown
	row          repr.Row
	errRows      []repr.Row // oldest first
}

// Source states reported by eddy_sources.
const (
	SourceIdle    = "idle"    // no view reads it: not consumed
	SourceRunning = "running" // consuming
	SourceFailed  = "failed"  // stopped by an error (see the error column)
)

var sysSourcesColumns = []ColumnDef{
	{Name: "name", Type: repr.Text}, {Name: "connector", Type: repr.Text}, {Name: "state", Type: repr.Text},
	{Name: "error", Type: repr.Text}, {Name: "records", Type: repr.Int8}, {Name: "bad_records", Type: repr.Int8},
	{Name: "lag", Type: repr.Int8}, {Name: "late_rows", Type: repr.Int8},
}

var sysSourceErrorsColumns = []ColumnDef{
	{Name: "source", Type: repr.Text}, {Name: "partition", Type: repr.Int4}, {Name: "offset", Type: repr.Int8},
	{Name: "error", Type: repr.Text}, {Name: "record", Type: repr.Text},
}

// installSystemRelations registers the system relations and fills them
// from the durable statistics of every source (under the engine lock).
func (e *Engine) installSystemRelations() error {
	if e.cat.byID[sysSourcesID] != nil {
		return nil
	}
	rels := []struct {
		id   uint64
		name string
		cols []ColumnDef
		key  []int
	}{
		{sysSourcesID, "eddy_sources", sysSourcesColumns, []int{0}},
		{sysSourceErrorsID, "eddy_source_errors", sysSourceErrorsColumns, nil},
		{sysSinksID, "eddy_sinks", sysSinksColumns, []int{0}},
	}
	for _, r := range rels {
		o := &Object{ID: r.id, Kind: planner.RelMaterializedView, Schema: nsEddyCatalog, Name: r.name, Columns: r.cols, PrimaryKey: r.key}
		if err := e.cat.add(o); err != nil {
			return err
		}
		e.colls[r.id] = storage.NewCollection(r.id, r.key)
	}
	ids := make([]uint64, 0, len(e.sources))
	for id := range e.sources {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		if err := e.loadSourceStatus(e.sources[id]); err != nil {
			return err
		}
	}
	return e.loadSinkStatuses()
}

// isSystemRelation reports whether id is a system relation.
func isSystemRelation(id uint64) bool { return id > 0 && id < firstUserID }

// checkMaintainable refuses to maintain a view or subscription over a
// system relation.
func (e *Engine) checkMaintainable(deps []uint64) error {
	for _, id := range deps {
		if r := sysRelsByID[id]; r != nil {
			return repr.Unsupported("a materialized view or subscription over the system relation %s.%s", r.schema, r.name)
		}
		if isSystemRelation(id) {
			return repr.Unsupported("a materialized view or subscription over the system relation %s", e.cat.byID[id].Name)
		}
	}
	return nil
}

func sourceStatsKey(id uint64) []byte { return storage.MetaKey(fmt.Sprintf("source/%d/stats", id)) }
func sourceErrorPrefix(id uint64) []byte {
	return storage.MetaKey(fmt.Sprintf("source/%d/error/", id))
}
func sourceErrorKey(id uint64, seq int64) []byte {
	return binary.BigEndian.AppendUint64(sourceErrorPrefix(id), uint64(seq))
}

// loadSourceStatus reads a source's durable counters and bad records and
// publishes its rows.
func (e *Engine) loadSourceStatus(st *sourceState) error {
	id := st.def.ID
	st.status.state, st.status.lag = SourceIdle, -1
	if e.sourceNeeded(id) {
		st.status.state = SourceRunning
	}
	if v, ok, err := e.db.Get(sourceStatsKey(id)); err != nil {
		return err
	} else if ok && len(v) >= 16 {
		st.status.records = int64(binary.BigEndian.Uint64(v))
		st.status.bad = int64(binary.BigEndian.Uint64(v[8:]))
		if len(v) >= 24 {
			st.status.late = int64(binary.BigEndian.Uint64(v[16:]))
		}
	}
	err := e.db.Scan(sourceErrorPrefix(id), func(_, v []byte) error {
		var se SourceError
		if err := json.Unmarshal(v, &se); err != nil {
			return fmt.Errorf("decoding a bad record of source %s: %w", st.def.Name, err)
		}
		e.addErrorRow(st, se)
		return nil
	})
	if err != nil {
		return err
	}
	e.refreshSourceRow(st)
	return nil
}

// logSourceStats writes a batch's statistics to b (see IngestChanges).
func (e *Engine) logSourceStats(st *sourceState, stats *IngestStats, b *storage.Batch) {
	if stats == nil {
		return
	}
	records, bad, late := st.status.records+stats.Records, st.status.bad+stats.Bad, st.status.late+stats.Late
	v := binary.BigEndian.AppendUint64(nil, uint64(records))
	v = binary.BigEndian.AppendUint64(v, uint64(bad))
	b.Set(sourceStatsKey(st.def.ID), binary.BigEndian.AppendUint64(v, uint64(late)))
	for i, se := range stats.Errors {
		seq := st.status.bad + int64(i)
		js, _ := json.Marshal(se)
		b.Set(sourceErrorKey(st.def.ID, seq), js)
		if seq >= maxErrorsKept {
			b.Delete(sourceErrorKey(st.def.ID, seq-maxErrorsKept))
		}
	}
}

// noteSourceStats applies a committed batch's statistics to the system
// relations.
func (e *Engine) noteSourceStats(st *sourceState, stats *IngestStats) {
	if stats == nil {
		return
	}
	st.status.records += stats.Records
	st.status.bad += stats.Bad
	st.status.late += stats.Late
	for _, se := range stats.Errors {
		e.addErrorRow(st, se)
	}
	e.refreshSourceRow(st)
}

// addErrorRow lists a bad record in eddy_source_errors, dropping the
// source's oldest beyond maxErrorsKept.
func (e *Engine) addErrorRow(st *sourceState, se SourceError) {
	c := e.colls[sysSourceErrorsID]
	if c == nil {
		return
	}
	part := repr.Null
	if se.Partition >= 0 {
		part = repr.NewInt(int64(se.Partition))
	}
	row := repr.Row{repr.NewText(st.def.Name), part, repr.NewInt(se.Offset), repr.NewText(se.Err), repr.NewText(se.Prefix)}
	_ = c.Apply(row, 1, nil)
	st.status.errRows = append(st.status.errRows, row)
	if len(st.status.errRows) > maxErrorsKept {
		_ = c.Apply(st.status.errRows[0], -1, nil)
		st.status.errRows = st.status.errRows[1:]
	}
}

// refreshSourceRow replaces the source's row of eddy_sources.
func (e *Engine) refreshSourceRow(st *sourceState) {
	c := e.colls[sysSourcesID]
	if c == nil {
		return
	}
	s := &st.status
	errText, lag := repr.Null, repr.Null
	if s.err != "" {
		errText = repr.NewText(s.err)
	}
	if s.lag >= 0 {
		lag = repr.NewInt(s.lag)
	}
	row := repr.Row{repr.NewText(st.def.Name), repr.NewText(st.def.Connector), repr.NewText(s.state), errText,
		repr.NewInt(s.records), repr.NewInt(s.bad), lag, repr.NewInt(s.late)}
	if s.row != nil {
		_ = c.Apply(s.row, -1, nil)
	}
	_ = c.Apply(row, 1, nil)
	s.row = row
}

// dropSourceStatus removes a dropped source's rows from the system
// relations and its statistics from the store (logged to b).
func (e *Engine) dropSourceStatus(st *sourceState, b *storage.Batch) {
	if c := e.colls[sysSourcesID]; c != nil && st.status.row != nil {
		_ = c.Apply(st.status.row, -1, nil)
	}
	if c := e.colls[sysSourceErrorsID]; c != nil {
		for _, r := range st.status.errRows {
			_ = c.Apply(r, -1, nil)
		}
	}
	st.status.row, st.status.errRows = nil, nil
	id := st.def.ID
	for _, k := range [][]byte{sourceStatsKey(id), sourcePositionKey(id), sourceWatermarkKey(id), sourceStartKey(id), sourceSeenKey(id)} {
		b.Delete(k)
	}
	b.DeletePrefix(sourceCutPrefix(id))
	b.DeletePrefix(sourceErrorPrefix(id))
	if st.rows != nil {
		b.DeletePrefix(storage.RowPrefix(id))
	}
}

// SourceStatus is the live part of a source's eddy_sources row, which the
// connector runtime reports.
type SourceStatus struct {
	// State is SourceRunning or SourceFailed (Err says why).
	State string
	Err   string
	// Lag is the records left to read (-1: unknown).
	Lag int64
}

// SetSourceStatus updates a source's state, error and lag in eddy_sources.
func (e *Engine) SetSourceStatus(id uint64, s SourceStatus) {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := e.sources[id]
	if st == nil {
		return
	}
	st.status.state, st.status.err, st.status.lag = s.State, s.Err, s.Lag
	e.refreshSourceRow(st)
}
