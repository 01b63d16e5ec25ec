package sql

import (
	"slices"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// SERIALIZABLE reads at key-range granularity.
//
// A SERIALIZABLE block records what it read for COMMIT's validation
// (isolation.go). A read through an access path (pointread.go: a point
// read or key range of a primary key, a multiset's row order or an index)
// records only its key ranges (keyRange); any other read of a relation
// records the whole relation, which then covers its ranges too (as
// PostgreSQL's SSI escalates predicate locks to the relation). At COMMIT
// a block with writes fails with 40001 if a relation it read whole
// changed after its snapshot (Engine.modTime), or if, in a relation that
// changed, one of its ranges reads differently now than in the snapshot
// (rangesUnchanged re-reads both). A range that reads the same rows now
// gives the block's reads the same answers at the commit's time, so the
// committed block is still equivalent to running alone then: two blocks
// that read and write different keys of one table both commit.
//
// COMMIT re-reads the ranges under the engine's lock, so their size is
// bounded: past maxRangeRows rows or maxRanges ranges read of one
// relation, the block's reads of it escalate to the whole relation (as
// PostgreSQL's max_pred_locks_per_relation does).
//
// The snapshot's clones stay until the block's commit is validated
// (Session.endTx releases them after it). When they are gone (revoked
// for memory, or the block ran DDL and reads the live state) or the
// relation was replaced or lost the index since, a changed relation
// fails as with a whole read.

// Escalation thresholds (see above).
const (
	maxRanges    = 256
	maxRangeRows = 4096
)

// keyRange is one key range [from, to) read through an access path:
// index 0 is the collection's own key order, else an index's ID.
type keyRange struct {
	index    uint64
	from, to []byte
}

// noteRanges records that the block read collection id through the key
// ranges of one access path, finding rows entries there.
func (sn *txSnapshot) noteRanges(id, index uint64, ranges [][2][]byte, rows int) {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if !sn.serializable || sn.reads[id] {
		return
	}
	if sn.ranges == nil {
		sn.ranges, sn.rangeRows = map[uint64][]keyRange{}, map[uint64]int{}
	}
	sn.rangeRows[id] += rows
	if sn.rangeRows[id] > maxRangeRows || len(sn.ranges[id])+len(ranges) > maxRanges {
		sn.reads[id] = true // escalated
		delete(sn.ranges, id)
		return
	}
	for _, r := range ranges {
		sn.ranges[id] = append(sn.ranges[id], keyRange{index: index, from: r[0], to: r[1]})
	}
}

// rangesUnchanged reports whether every range the block read of
// collection id reads the same rows, with the same multiplicities and
// encodings, in the latest committed state as in the snapshot. The caller
// holds e.mu and sn.mu.
func (e *Engine) rangesUnchanged(sn *txSnapshot, id uint64, ranges []keyRange) bool {
	then, now := sn.colls[id], e.colls[id]
	if then == nil || now == nil || now != sn.from[id] {
		return false
	}
	for _, r := range ranges {
		a, okA := scanKeyRange(then, r)
		b, okB := scanKeyRange(now, r)
		if !okA || !okB || !slices.EqualFunc(a, b, sameUpdate) {
			return false
		}
	}
	return true
}

// scanKeyRange returns the entries of c in r (ok false: c has no such
// index any more).
func scanKeyRange(c *storage.Collection, r keyRange) (out []repr.Update, ok bool) {
	emit := func(row repr.Row, n int64) bool {
		out = append(out, repr.Update{Row: row, Diff: n})
		return true
	}
	if r.index == 0 {
		c.ScanRange(r.from, r.to, emit)
		return out, true
	}
	return out, c.ScanIndex(r.index, r.from, r.to, emit) == nil
}

// sameUpdate reports whether two entries hold the same row, printed
// alike, with the same multiplicity.
func sameUpdate(a, b repr.Update) bool {
	return a.Diff == b.Diff && sameEncoding(a.Row, b.Row)
}
