package sql

import (
	"bytes"
	"maps"

	"github.com/eddydb/eddy/repr"
)

// SERIALIZABLE as serializable snapshot isolation (SSI), checked at
// commit.
//
// Snapshot isolation admits exactly the anomalies whose dependency graph
// has a cycle, and every such cycle holds a "dangerous structure": two
// consecutive rw-antidependencies Tin -rw-> Tpivot -rw-> Tout between
// concurrent transactions, where Tout commits first (Fekete et al.,
// "Making snapshot isolation serializable", 2005; Ports and Grittner,
// "Serializable Snapshot Isolation in PostgreSQL", 2012). T -rw-> U means
// T read something U writes without seeing U's write (U committed after
// T's snapshot). A transaction is refused only when it would complete
// such a structure, so two blocks that each read what the other writes
// in a pattern without a pivot both commit, as in PostgreSQL.
//
// Eddy detects the structure when its last member commits: every
// committed SERIALIZABLE block leaves an ssiTxn (what it read: relations
// whole and key ranges, serialrange.go; what it wrote: its commit's
// changes of tables and materialized views), kept while a concurrent
// SERIALIZABLE snapshot is open. At T's commit (Engine.checkSSI):
//
//   - T's out-conflicts are the committed records C concurrent with T
//     whose writes meet T's reads; its in-conflicts the committed or still
//     open SERIALIZABLE blocks R concurrent with T whose reads meet T's
//     writes.
//   - T is Tin: an out-conflict C is itself a pivot whose Tout committed
//     before C (C.outMin).
//   - T is the pivot: it has an out-conflict C and an in-conflict R, C
//     committed first (before R commits; R == C is the write skew).
//
// A Tin that wrote nothing makes the structure dangerous only when Tout
// committed before Tin's snapshot (PostgreSQL's read-only optimization).
// The victim is always the committing block (COMMIT fails 40001), so a
// dangerous structure whose last member to commit is a block that only
// read fails that block at COMMIT, where PostgreSQL may have failed
// another member earlier; either way one of them never commits.
//
// Only SERIALIZABLE blocks take part, as in PostgreSQL (a READ COMMITTED
// or REPEATABLE READ writer, or a single statement outside a block,
// leaves no record and creates no conflict); SERIALIZABLE guarantees
// serializability among SERIALIZABLE transactions.
//
// Times are ssiLog.seq, counted per SERIALIZABLE commit under the engine
// lock: a snapshot pinned with seq s shows exactly the records with
// commit <= s.

// ssiTxn is a committed SERIALIZABLE block's record. Its maps are not
// changed after it is logged.
type ssiTxn struct {
	snap, commit uint64
	// readOnly: the block wrote nothing.
	readOnly bool
	reads    map[uint64]bool
	ranges   map[uint64][]keyRange
	writes   map[uint64]ssiWrites
	// outMin is the commit seq of the earliest of its out-conflicts that
	// committed before it (0: none).
	outMin uint64
}

// ssiWrites are the rows a commit changed in one collection (old and new
// images); whole: too many to keep, any read of it conflicts.
type ssiWrites struct {
	rows  []repr.Row
	whole bool
}

// ssiLog is the engine's record of committed SERIALIZABLE blocks (under
// Engine.mu).
type ssiLog struct {
	seq  uint64
	txns []*ssiTxn
}

// ssiWritesOf returns the writes of a commit's changes.
func ssiWritesOf(deltas map[uint64][]repr.Update) map[uint64]ssiWrites {
	out := make(map[uint64]ssiWrites, len(deltas))
	for id, d := range deltas {
		if len(d) == 0 {
			continue
		}
		if len(d) > maxRangeRows {
			out[id] = ssiWrites{whole: true}
			continue
		}
		rows := make([]repr.Row, len(d))
		for i, u := range d {
			rows[i] = u.Row
		}
		out[id] = ssiWrites{rows: rows}
	}
	return out
}

// ssiRecordOf returns the record a commit of the block with snapshot sn
// would leave. The caller holds sn.mu.
func ssiRecordOf(sn *txSnapshot, deltas map[uint64][]repr.Update) *ssiTxn {
	ranges := make(map[uint64][]keyRange, len(sn.ranges))
	for id, rs := range sn.ranges {
		ranges[id] = append([]keyRange(nil), rs...)
	}
	return &ssiTxn{snap: sn.seq, readOnly: len(deltas) == 0, reads: maps.Clone(sn.reads), ranges: ranges,
		writes: ssiWritesOf(deltas)}
}

// ssiRecord records what sn's block read and wrote under sn.mu, and
// whether its snapshot was replaced or revoked since.
func (e *Engine) ssiRecord(sn *txSnapshot, deltas map[uint64][]repr.Update) (me *ssiTxn, replaced, revoked bool) {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	return ssiRecordOf(sn, deltas), e.replacedSince(sn), sn.revoked
}

// checkSSI fails the commit of a SERIALIZABLE block (snapshot sn, its
// commit's changes deltas) with 40001 when it would complete a dangerous
// structure (see above), and otherwise returns its record, which
// logSSI keeps once the commit is done (nil: no record). The caller holds
// e.mu.
func (e *Engine) checkSSI(sn *txSnapshot, deltas map[uint64][]repr.Update) (*ssiTxn, error) {
	if sn == nil || !sn.serializable || e.ck.replaying {
		return nil, nil
	}
	me, replaced, revoked := e.ssiRecord(sn, deltas)
	if revoked { // no longer open: the records it needs may be gone
		return nil, errSnapshotTooOld
	}
	if replaced {
		return nil, errReadWriteDep
	}
	var out, in []*ssiTxn
	for _, c := range e.ssi.txns {
		if c.commit <= me.snap {
			continue // c's writes are in me's snapshot, and me's not in c's
		}
		if e.meets(c.writes, me.reads, me.ranges) {
			out = append(out, c)
			if me.outMin == 0 || c.commit < me.outMin {
				me.outMin = c.commit
			}
		}
		if e.meets(me.writes, c.reads, c.ranges) {
			in = append(in, c)
		}
	}
	for _, c := range out {
		if c.outMin != 0 && (!me.readOnly || c.outMin <= me.snap) {
			return nil, errOutToPivot // me -> pivot c -> an earlier commit
		}
		for _, r := range in {
			if c.commit <= r.commit && (!r.readOnly || c.commit <= r.snap) {
				return nil, errPivot // r -> pivot me -> c
			}
		}
	}
	if len(out) > 0 && e.openReaderMeets(sn, me.writes) {
		return nil, errPivot // an open block -> pivot me -> c
	}
	return me, nil
}

// replacedSince reports whether a relation the block read was replaced
// (its rows rewritten by ALTER TABLE) after its snapshot. The caller
// holds e.mu and sn.mu.
func (e *Engine) replacedSince(sn *txSnapshot) bool {
	if sn.from == nil {
		return false
	}
	for id := range sn.reads {
		if from := sn.from[id]; from != nil && e.colls[id] != from {
			return true
		}
	}
	for id := range sn.ranges {
		if from := sn.from[id]; from != nil && e.colls[id] != from {
			return true
		}
	}
	return false
}

// meetsReads reports whether writes meet what sn read, under sn.mu.
func (e *Engine) meetsReads(sn *txSnapshot, writes map[uint64]ssiWrites) bool {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	return e.meets(writes, sn.reads, sn.ranges)
}

// openReaderMeets reports whether an open SERIALIZABLE block other than
// the one of snapshot self read something of writes. Such a block may
// still write, so the read-only optimization does not apply to it. The
// caller holds e.mu.
func (e *Engine) openReaderMeets(self *txSnapshot, writes map[uint64]ssiWrites) bool {
	e.snaps.mu.Lock()
	defer e.snaps.mu.Unlock()
	for sn := range e.snaps.open {
		if sn == self || !sn.serializable {
			continue
		}
		if e.meetsReads(sn, writes) {
			return true
		}
	}
	return false
}

// meets reports whether writes change something a block read: a
// relation it read whole, or a row whose old or new image falls in one
// of its key ranges. An access path that no longer exists meets every
// write of its relation. The caller holds e.mu.
func (e *Engine) meets(writes map[uint64]ssiWrites, reads map[uint64]bool, ranges map[uint64][]keyRange) bool {
	for id, w := range writes {
		if reads[id] {
			return true
		}
		rs := ranges[id]
		if len(rs) > 0 && (w.whole || e.rowsInRanges(id, rs, w.rows)) {
			return true
		}
	}
	return false
}

// rowsInRanges reports whether a row of rows has a key in one of the
// ranges rs of collection id. The caller holds e.mu.
func (e *Engine) rowsInRanges(id uint64, rs []keyRange, rows []repr.Row) bool {
	c := e.colls[id]
	if c == nil {
		return true
	}
	var key []byte
	for _, row := range rows {
		for _, r := range rs {
			var has bool
			var err error
			if key, has, err = c.EntryKey(key[:0], r.index, row); err != nil {
				return true
			}
			if has && bytes.Compare(key, r.from) >= 0 && (r.to == nil || bytes.Compare(key, r.to) < 0) {
				return true
			}
		}
	}
	return false
}

// logSSI keeps the record of a SERIALIZABLE commit that is done, and
// forgets those no open SERIALIZABLE snapshot is concurrent with. The
// caller holds e.mu.
func (e *Engine) logSSI(me *ssiTxn) {
	e.ssi.seq++
	me.commit = e.ssi.seq
	if len(me.reads) > 0 || len(me.ranges) > 0 || len(me.writes) > 0 {
		e.ssi.txns = append(e.ssi.txns, me)
	}
	oldest, any := e.oldestSerializable()
	kept := e.ssi.txns[:0]
	for _, t := range e.ssi.txns {
		if any && t.commit > oldest {
			kept = append(kept, t)
		}
	}
	clear(e.ssi.txns[len(kept):])
	e.ssi.txns = kept
}

// oldestSerializable returns the seq of the oldest open SERIALIZABLE
// snapshot (any false: none is open).
func (e *Engine) oldestSerializable() (oldest uint64, any bool) {
	e.snaps.mu.Lock()
	defer e.snaps.mu.Unlock()
	for sn := range e.snaps.open {
		if sn.serializable && (!any || sn.seq < oldest) {
			oldest, any = sn.seq, true
		}
	}
	return oldest, any
}

// commitReadOnlySerializable validates and records the COMMIT of a
// SERIALIZABLE block that wrote nothing (its write set never reaches
// apply): it fails with 40001 when the block is the Tin of a dangerous
// structure.
func (e *Engine) commitReadOnlySerializable(sn *txSnapshot) error {
	if sn == nil || !sn.serializable {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	me, err := e.checkSSI(sn, nil)
	if me != nil {
		e.logSSI(me)
	}
	return err
}
