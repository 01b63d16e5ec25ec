package sql

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// Retracting sources check their deletions. A FORMAT DEBEZIUM source
// stores no rows a query can read, yet each of its deletions (a delete
// event, an update's before image) must retract a row it delivered: a
// deletion of a row never delivered, or delivered fewer times than
// deleted (a topic whose creates retention dropped, a replayed snapshot,
// a producer bug), would reach the views as a negative multiplicity that
// no operator can hold (a count goes wrong, a min/max multiset or a
// join's arrangement refuses it and fails the batch, stopping the source).
//
// So the engine keeps, per retracting source, one multiset of the rows it
// delivered and did not delete (sourceRows), and lets a deletion through
// only for a copy it holds; the rest of it is a bad record, counted in
// eddy_sources.bad_records and listed in eddy_source_errors (partition,
// offset, the row), never passed on; under on_error = 'fail' it fails the
// batch instead, which stops the source. There is one copy per source,
// however many views read it, and the check happens before any view sees
// the batch, so every view sees the same checked changes: live, in log
// replay after a restart (the multiset is checkpointed with the views'
// state), and in a later view's backfill, which runs the source's history
// through a fresh multiset and so drops exactly the deletions the earlier
// views never saw (the history is the same sequence of changes).
//
// A connector-fed table keeps its rows anyway (applyTableChanges): a
// deletion it cannot apply is a bad record the same way.

// sourceRows is a retracting source's multiset of live rows: a
// storage.Collection under the source's own ID (a source has no other
// rows), logged to the checkpoint batch with the views' state, restored
// at start-up and spilled under the memory budget like a table's rows
// (spill.go).
//
// With a watermark it holds only the rows at or above it, as exec's
// Source does for a view (held rows): a change whose event time is below
// the watermark as it was before its batch (or NULL, once there is one)
// is late, so every view drops it; it passes unchecked and is not held,
// and the rows below a risen watermark are forgotten, since every later
// change of them is late. Each row is stored behind its event time (int8
// µs, NULL for NULL) so that those rows are a key range.
//
// Size: one entry per distinct live row (at or above the watermark).
type sourceRows struct {
	c *storage.Collection
	// eventCol is the event-time column (-1: no watermark).
	eventCol int
	key      []byte
	row      repr.Row
}

// retracting reports whether def's records may delete rows that nothing
// else checks: a source (not a table) in FORMAT DEBEZIUM, created since
// sources check their deletions.
func (d *SourceDef) retracting() bool {
	return !d.IsTable && d.ChecksDeletions && strings.EqualFold(d.Format, "debezium")
}

// newSourceRows returns the empty multiset of source def.
func newSourceRows(def *SourceDef) *sourceRows {
	r := &sourceRows{c: storage.NewCollection(def.ID, nil), eventCol: -1}
	if def.Watermark != nil {
		r.eventCol = def.Watermark.Column
	}
	return r
}

// apply applies changes to the multiset in order at time t, logging to b
// (nil: unlogged), judging lateness against watermark wm (hasWM false:
// none yet), and returns the updates to pass on and the deletions it
// dropped.
func (r *sourceRows) apply(changes []Change, t repr.Time, b *storage.Batch, wm int64, hasWM bool) ([]repr.Update, []Change, error) {
	updates := make([]repr.Update, 0, len(changes))
	var bad []Change
	for _, ch := range changes {
		diff := int64(1)
		switch ch.Kind {
		case ChangeInsert:
		case ChangeDelete:
			diff = -1
		default:
			continue // by-key changes need a table (the runtime never sends them)
		}
		if !r.late(ch.Row, wm, hasWM) {
			row := r.stored(ch.Row)
			if diff < 0 && !r.holds(row) {
				bad = append(bad, ch)
				continue
			}
			if err := r.c.Apply(row, diff, b); err != nil {
				return nil, nil, err
			}
		}
		updates = append(updates, repr.Update{Row: ch.Row, Time: t, Diff: diff})
	}
	return updates, bad, nil
}

// late reports whether row is late against watermark wm (countLate's
// rule, which exec's Source applies too).
func (r *sourceRows) late(row repr.Row, wm int64, hasWM bool) bool {
	if r.eventCol < 0 || !hasWM {
		return false
	}
	d := row[r.eventCol]
	return d.IsNull() || d.Micros() < wm
}

// stored returns row as the multiset holds it (valid until the next
// call).
func (r *sourceRows) stored(row repr.Row) repr.Row {
	if r.eventCol < 0 {
		return row
	}
	ts := repr.Null
	if d := row[r.eventCol]; !d.IsNull() {
		ts = repr.NewInt(d.Micros())
	}
	r.row = append(append(r.row[:0], ts), row...)
	return r.row
}

// holds reports whether the multiset has a copy of row (stored form).
func (r *sourceRows) holds(row repr.Row) bool {
	r.key = r.c.Key(r.key[:0], row)
	_, n, ok := r.c.Get(r.key)
	return ok && n > 0
}

// prune forgets the rows below watermark wm, the watermark having been
// prev before (hasPrev false: none), logging to b (nil: unlogged).
//
// Invariant: every row held has an event time at or above the watermark
// (a later row below it is late, so not held). So the rows to forget are
// those from prev up to wm, and, when the first watermark appears, those
// with a NULL event time; the scan never starts below prev, where a
// spilled multiset's store keeps the deletions of earlier prunes until
// they are compacted away.
func (r *sourceRows) prune(prev int64, hasPrev bool, wm int64, b *storage.Batch) error {
	if r.eventCol < 0 {
		return nil
	}
	var rows []repr.Row
	var counts []int64
	collect := func(row repr.Row, n int64) bool {
		rows, counts = append(rows, row), append(counts, n)
		return true
	}
	var from []byte
	if hasPrev {
		from = repr.AppendKey(nil, repr.NewInt(prev))
	} else {
		r.c.ScanPrefix(repr.AppendKey(nil, repr.Null), collect)
	}
	r.c.ScanRange(from, repr.AppendKey(nil, repr.NewInt(wm)), collect)
	for i, row := range rows {
		if err := r.c.Apply(row, -counts[i], b); err != nil {
			return err
		}
	}
	return nil
}

// errDeletionNotHeld is the report of a dropped deletion.
const errDeletionNotHeld = "22000: deletion of a row the source does not hold (never inserted, or already deleted)"

// badDeletions turns dropped deletions into the bad records
// eddy_source_errors lists: the record's partition and offset, the row
// as its record.
func badDeletions(bad []Change) []SourceError {
	out := make([]SourceError, len(bad))
	for i, ch := range bad {
		row := dataflow.FormatRow(ch.Row)
		if len(row) > badRowLen {
			row = strings.ToValidUTF8(row[:badRowLen], "?")
		}
		out[i] = SourceError{Partition: ch.Partition, Offset: ch.Offset, Err: errDeletionNotHeld, Prefix: row}
	}
	return out
}

// badRowLen is how much of a dropped deletion's row a report keeps (as
// the Kafka runtime keeps of a bad record).
const badRowLen = 64

// noteBad records the bad deletions of the batch being ingested in
// st.pendingBad, or fails the batch under on_error = 'fail' (not while
// replaying the log: a logged batch committed, so it had none then).
func (e *Engine) noteBad(st *sourceState, bad []Change) error {
	st.pendingBad = st.pendingBad[:0]
	if len(bad) == 0 {
		return nil
	}
	if strings.EqualFold(st.def.Options["on_error"], "fail") && !e.ck.replaying {
		ch := bad[0]
		return &repr.Error{Code: "22000",
			Message: fmt.Sprintf("source %q stopped on a bad record at partition %d offset %d: deletion of a row the source does not hold", st.def.Name, ch.Partition, ch.Offset),
			Detail:  "row " + dataflow.FormatRow(ch.Row),
			Hint:    "on_error = 'skip' skips and counts bad records instead"}
	}
	st.pendingBad = badDeletions(bad)
	return nil
}

// addBad adds the pending bad deletions of st's batch to stats (nil: a
// new one).
func (e *Engine) addBad(st *sourceState, stats *IngestStats) *IngestStats {
	if len(st.pendingBad) == 0 {
		return stats
	}
	if stats == nil {
		stats = &IngestStats{}
	}
	stats.Bad += int64(len(st.pendingBad))
	stats.Errors = append(slices.Clip(stats.Errors), st.pendingBad...)
	return stats
}

// logBad logs the bad deletions of st's committed batch, at most every
// badLogEvery per source (the count since the last line;
// eddy_source_errors lists each).
func (e *Engine) logBad(st *sourceState) {
	if len(st.pendingBad) == 0 {
		return
	}
	st.badUnlogged += int64(len(st.pendingBad))
	if now := e.wall.last; st.badLoggedAt == 0 || now-st.badLoggedAt >= badLogEvery.Microseconds() {
		first := st.pendingBad[0]
		e.log.Warn("source dropped deletions of rows it does not hold", "source", st.def.Name, "count", st.badUnlogged,
			"partition", first.Partition, "offset", first.Offset, "row", first.Prefix)
		st.badLoggedAt, st.badUnlogged = now, 0
	}
}

// badLogEvery spaces a source's log lines about bad deletions.
const badLogEvery = 30 * time.Second
