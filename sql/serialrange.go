package sql

// SERIALIZABLE reads at key-range granularity.
//
// A SERIALIZABLE block records what it read for the commit-time checks
// of ssi.go. A read through an access path (pointread.go: a point read or
// key range of a primary key, a multiset's row order or an index)
// records only its key ranges (keyRange); any other read of a relation
// records the whole relation, which then covers its ranges too (as
// PostgreSQL's SSI escalates predicate locks to the relation). A write
// meets a range when the old or new image of a row it changed has its key
// (storage.Collection.EntryKey) in the range, so blocks that read and
// write different keys of one table never conflict.
//
// The checks compare keys against every concurrent record's writes under
// the engine's lock, so the ranges are bounded: past maxRangeRows rows or
// maxRanges ranges read of one relation, the block's reads of it escalate
// to the whole relation (as PostgreSQL's max_pred_locks_per_relation
// does).

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
