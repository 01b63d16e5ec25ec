package sql

import (
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// ChangeKind is what one decoded source record does (the server converts
// the connector decoders' kinds, which sql cannot import, to these).
type ChangeKind uint8

// The change kinds.
const (
	ChangeInsert    ChangeKind = iota + 1 // Row is added
	ChangeDelete                          // Row is removed
	ChangeUpsert                          // Row replaces the row with its key
	ChangeTombstone                       // the row with Key is removed
)

// Change is one change of a source batch. Key holds the primary-key
// columns' values, in the table's key order, for ChangeTombstone (Row is
// nil then); the other kinds carry the whole Row. Partition is the
// source partition the record came from (Kafka's partition; 0 for
// connectors without partitions): the source's watermark is the minimum
// over its partitions' watermarks (see sourceState.advance). Offset is
// the record's offset in its partition (0 when unknown), which a bad
// deletion is reported with (source_rows.go); it is not logged.
type Change struct {
	Kind      ChangeKind
	Row       repr.Row
	Key       repr.Row
	Partition int32
	Offset    int64
}

// applyTableChanges applies a batch of changes to a connector-fed table's
// collection in order, logging to b, and returns the resulting updates at
// time t and the deletions (ChangeDelete: a Debezium delete or an update's
// before image) that found nothing to retract, bad records (see
// source_rows.go). A batch is one logical time: a key upserted twice in it yields
// the retraction of the stored row, and the final row.
//
// Under a primary key every change is by key: Insert and Upsert replace
// the stored row with the key (nothing happens if it is identical), Delete
// and Tombstone remove it (nothing happens if the key is absent), so a
// record never fails a batch with a duplicate key. Without a primary key
// the table is a multiset: Insert adds, Delete removes one copy if there is
// one (a delete of an absent row changes nothing). A tombstone of an
// absent key is no bad record: FORMAT UPSERT topics repeat them.
func applyTableChanges(c *storage.Collection, changes []Change, t repr.Time, b *storage.Batch) ([]repr.Update, []Change, error) {
	a := tableApplier{c: c, t: t, b: b, out: make([]repr.Update, 0, len(changes))}
	var bad []Change
	for _, ch := range changes {
		var err error
		found := true
		switch {
		case c.KeyCols() == nil && ch.Kind == ChangeInsert:
			err = a.apply(ch.Row, 1)
		case c.KeyCols() == nil && ch.Kind == ChangeDelete:
			found, err = a.retractRow(ch.Row)
		case c.KeyCols() == nil:
			continue // by-key changes need a key (the runtime rejects UPSERT without one)
		case ch.Kind == ChangeInsert || ch.Kind == ChangeUpsert:
			err = a.upsert(ch.Row)
		default:
			found, err = a.tombstone(ch)
		}
		if err != nil {
			return nil, nil, err
		}
		if !found && ch.Kind == ChangeDelete {
			bad = append(bad, ch)
		}
	}
	return a.out, bad, nil
}

// tableApplier applies changes to one collection, collecting the updates.
type tableApplier struct {
	c   *storage.Collection
	t   repr.Time
	b   *storage.Batch
	key []byte
	out []repr.Update
}

func (a *tableApplier) apply(row repr.Row, diff int64) error {
	if err := a.c.Apply(row, diff, a.b); err != nil {
		return err
	}
	a.out = append(a.out, repr.Update{Row: row, Time: a.t, Diff: diff})
	return nil
}

// stored returns the stored row with row's key, if any.
func (a *tableApplier) stored(row repr.Row) (repr.Row, bool) {
	a.key = a.c.Key(a.key[:0], row)
	old, n, ok := a.c.Get(a.key)
	return old, ok && n > 0
}

// retractRow removes one copy of row if the multiset holds it, reporting
// whether it did.
func (a *tableApplier) retractRow(row repr.Row) (bool, error) {
	if _, ok := a.stored(row); !ok {
		return false, nil
	}
	return true, a.apply(row, -1)
}

// upsert replaces the row with row's key by row.
func (a *tableApplier) upsert(row repr.Row) error {
	old, ok := a.stored(row)
	if ok && repr.CompareRows(old, row) == 0 {
		return nil
	}
	if ok {
		if err := a.apply(old, -1); err != nil {
			return err
		}
	}
	return a.apply(row, 1)
}

// tombstone removes the row with the change's key, if any, reporting
// whether there was one.
func (a *tableApplier) tombstone(ch Change) (bool, error) {
	probe := ch.Row
	if probe == nil {
		probe = make(repr.Row, maxCol(a.c.KeyCols())+1)
		for i, col := range a.c.KeyCols() {
			if i < len(ch.Key) {
				probe[col] = ch.Key[i]
			}
		}
	}
	old, ok := a.stored(probe)
	if !ok {
		return false, nil
	}
	return true, a.apply(old, -1)
}

func maxCol(cols []int) int {
	m := 0
	for _, c := range cols {
		m = max(m, c)
	}
	return m
}
