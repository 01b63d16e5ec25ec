package exec

import (
	"encoding/binary"
	"unsafe"

	"github.com/eddydb/eddy/repr"
)

// Multiset entries logged in runs. A Reduce logged each changed multiset
// entry under a key of its own ({0x02} group-key slot value-key): max(v)
// over a table keeps an entry per distinct value, so every inserted row
// cost a state write of its own, as many as the table's own row writes
// (BENCHMARKS.md, write path: a fifth of the prepared INSERT's CPU went to
// writing, sorting, applying and flushing them). A Reduce that defers its
// group records (reduce_defer.go) logs the entries of its value slots in
// runs instead: the entries a multiset changed since the last FlushState,
// each with its current count (zero: gone), in one record
//
//	{0x02} group-key (0x80|slot) seq -> row(len(group-key), -1, blob, NULL)
//
// where seq (8 bytes, big-endian) comes from a counter of the Reduce that
// never repeats, and blob holds, per entry, its key and the row (count,
// value, separator), each preceded by its length as a uvarint. The record
// starts like an entry's (its key with {0x02} group-key, its value with the
// group key's length), so the shard of a logged key (logShardKey), a spilled
// group's load (loadKey) and a group's prefix deletion read runs as
// entries. A restore applies the runs of a multiset in seq order over its
// individually logged entries (which sort first: slots are below 0x80),
// each run's counts replacing the ones before.
//
// A multiset's runs are rewritten as one (the live entries), and the old
// ones deleted, once there are runCompactRuns of them and the entries
// stored in them reach twice those of the last rewrite (plus
// runCompactMin): a rewrite copies at most half of what was written since
// the one before, so each entry is written a bounded number of times
// however long the view lives, and the runs of a multiset that changes
// often hold at most about twice its live entries. A Step that does not defer (inside a
// DDL block, or a spilled Reduce) logs each changed entry at once as a run
// of one, and a freed group's runs are deleted (by the flush, or at once
// by such a Step). Only FlushState rewrites: its state is committed, while
// a Step's log may be rolled back (a rolled-back Step's run is only a seq
// that names nothing, and deleting it later is harmless).
//
// Entries logged individually by an older binary (mentry.legacy) keep
// their keys until the entry next changes: its run then carries the count
// and the individual key is deleted in the same batch.

// runSlot marks a slot byte as a run's.
const runSlot byte = 0x80

// runCompactMin is the number of entries a multiset's runs may hold past
// twice its last rewrite, and runCompactRuns the number of runs it may
// have, before the next (variables for tests).
var runCompactMin, runCompactRuns = 32, 16

// runState is what a multiset logged in runs keeps: the seqs of its runs
// in the store, the entries in them, those of the last rewrite, and the
// entries changed since the last flush (each once, mentry.dirty).
type runState struct {
	seqs         []uint64
	next         uint64
	stored, snap int
	pend         []*mentry
	queued       bool
	// converting: a pending Step logged the runs' conversion (convertRuns).
	converting bool
}

// runStateBytes is a runState's heap bytes and its pointer.
const runStateBytes = int64(unsafe.Sizeof(runState{})) + 8

// runRef is a multiset owing a flush: its group and slot.
type runRef struct {
	g    *group
	slot int
	ms   *multiset
}

// initRuns decides which slots log their entries in runs: the value slots
// of multiset aggregates (not key sets, not scale slots, whose pair is
// logged as an entry of its own, not an append-only min or max), when the
// Reduce defers.
func (o *reduceOp) initRuns() {
	if len(o.slotOrdered) > int(runSlot) {
		return
	}
	o.slotRuns = make([]bool, len(o.slotOrdered))
	for _, a := range o.aggs {
		// An append-only min or max keeps one live entry (keepExtremum):
		// nothing to gather, and runs would hold its dead ones till the flush.
		if a.valSlot >= 0 && !o.slotKeys[a.valSlot] && (a.def.Extremum == 0 || !o.spec.AppendOnly) {
			o.slotRuns[a.valSlot] = true
		}
	}
	for _, a := range o.aggs {
		if a.scaleSlot >= 0 {
			o.slotRuns[a.scaleSlot] = false
		}
	}
}

// inRuns reports whether slot's entries are logged in runs.
func (o *reduceOp) inRuns(slot int) bool { return o.deferOK && o.slotRuns != nil && o.slotRuns[slot] }

// runEntry logs a changed entry of a slot in runs: queued for FlushState
// when the Step defers, else at once under its own key (after converting
// its multiset's runs to such keys, see convertRuns).
func (o *reduceOp) runEntry(s *stepCtx, g *group, slot int, e *mentry) {
	ms := o.sets(g)[slot]
	if !o.defers(s) {
		// convertRuns logs every live entry of ms under its own key, e
		// (when live) among them with its current count: logging e again
		// would write the same key twice into the Step's batch (an entry
		// and its value, about 280 bytes for a 121-byte max(text), per
		// converted multiset).
		logged := false
		if ms != nil && ms.rs != nil && len(ms.rs.seqs) > 0 && g.in {
			logged = o.convertRuns(s, g, slot, ms) && e.in && e.n > 0
		}
		e.legacy = true // harmless if the Step is rolled back: a deletion too many
		if !logged {
			o.logEntry(s, g, slot, e)
		}
		if o.sp != nil || ms == nil || len(o.runq) == 0 {
			return
		}
		// The flush still rewrites it (as a run, deleting the key just
		// written): a deletion it owes a freed group of the same key
		// would otherwise remove what this Step logged.
	}
	if ms.rs == nil {
		ms.rs = &runState{}
		s.grown += runStateBytes
	}
	if !e.dirty {
		e.dirty = true
		ms.rs.pend = append(ms.rs.pend, e)
		s.grown += 8
	}
	o.queueRuns(g, slot, ms)
	o.dropEmpty(g, slot, e)
}

// convertRuns logs, in a Step that does not defer, the deletion of the
// runs of ms (slot of g) and each of its live entries under its own key:
// such a Step logs entries under their own keys, which a restore would
// otherwise apply before the older runs. The runs are forgotten when the
// Step commits (runsConverted). It reports whether it logged them (false:
// the Step converted ms before).
func (o *reduceOp) convertRuns(s *stepCtx, g *group, slot int, ms *multiset) bool {
	if ms.rs.converting {
		return false
	}
	ms.rs.converting = true
	o.converted = append(o.converted, ms)
	for _, seq := range ms.rs.seqs {
		o.runKey(s, g, slot, seq)
		s.log.del(o.kbuf)
	}
	ms.all(func(e *mentry) {
		if e.n > 0 {
			e.legacy = true
			o.logEntry(s, g, slot, e)
		}
	})
	return true
}

// runsConverted ends the Step's conversions (convertRuns): on commit the
// converted multisets have no runs left.
func (o *reduceOp) runsConverted(commit bool) {
	for i, ms := range o.converted {
		ms.rs.converting = false
		if commit {
			ms.rs.seqs, ms.rs.stored, ms.rs.snap = nil, 0, 0
		}
		o.converted[i] = nil
	}
	o.converted = o.converted[:0]
}

// queueRuns adds ms to the multisets FlushState writes, once.
func (o *reduceOp) queueRuns(g *group, slot int, ms *multiset) {
	if !ms.rs.queued {
		ms.rs.queued = true
		o.runq = append(o.runq, runRef{g: g, slot: slot, ms: ms})
	}
}

// freeRuns deletes the runs of freed group g (its entries all have
// count zero, and some of its multisets may have none left to log).
func (o *reduceOp) freeRuns(s *stepCtx, g *group) {
	for slot, ms := range o.sets(g) {
		if ms == nil || ms.rs == nil {
			continue
		}
		if o.defers(s) {
			o.queueRuns(g, slot, ms)
			continue
		}
		for _, seq := range ms.rs.seqs {
			o.runKey(s, g, slot, seq)
			s.log.del(o.kbuf)
		}
	}
}

// flushRuns writes every queued multiset's changed entries as a run, or
// rewrites its runs as one, or deletes them if its group was freed.
func (o *reduceOp) flushRuns(s *stepCtx) {
	for i, r := range o.runq {
		o.flushRun(s, r)
		o.runq[i] = runRef{}
	}
	o.runq = reuse(o.runq)
}

// flushRun is flushRuns for one multiset.
func (o *reduceOp) flushRun(s *stepCtx, r runRef) {
	rs := r.ms.rs
	pend := rs.pend
	rs.pend, rs.queued = nil, false
	for _, e := range pend {
		e.dirty = false
		if e.legacy {
			o.delLegacy(s, r.g, r.slot, e)
			e.legacy = false
		}
	}
	switch {
	case !r.g.in:
		o.delRuns(s, r)
	case len(rs.seqs) >= runCompactRuns && rs.stored+len(pend)+len(r.ms.lz)-r.ms.lzLogged >= 2*rs.snap+runCompactMin:
		o.delRuns(s, r)
		var live []*mentry
		r.ms.indexed(func(e *mentry) {
			if e.n > 0 {
				live = append(live, e)
			}
		})
		if len(live) > 0 {
			o.writeRun(s, r.g, r.slot, r.ms, live)
		}
		if len(r.ms.lz) > 0 {
			o.writeDiffRun(s, r.g, r.slot, r.ms, 0)
		}
		rs.snap = len(live) + len(r.ms.lz)
	default:
		// The count run first: a key may be in both (multiset_lazy.go).
		if len(pend) > 0 {
			o.writeRun(s, r.g, r.slot, r.ms, pend)
		}
		if len(r.ms.lz) > r.ms.lzLogged {
			o.writeDiffRun(s, r.g, r.slot, r.ms, r.ms.lzLogged)
		}
	}
	if len(r.ms.lz) > 0 {
		r.ms.compactLazy()
	}
}

// delRuns logs the deletion of every run of r's multiset.
func (o *reduceOp) delRuns(s *stepCtx, r runRef) {
	rs := r.ms.rs
	for _, seq := range rs.seqs {
		o.runKey(s, r.g, r.slot, seq)
		s.log.del(o.kbuf)
	}
	rs.seqs, rs.stored = rs.seqs[:0], 0
}

// writeRun logs es (entries of multiset ms in slot of g) as a new run.
func (o *reduceOp) writeRun(s *stepCtx, g *group, slot int, ms *multiset, es []*mentry) {
	seq := ms.rs.newRun(len(es))
	blob := o.rbuf[:0]
	for _, e := range es {
		blob = binary.AppendUvarint(blob, uint64(len(e.key)))
		blob = append(blob, e.key...)
		r := append(o.scratch[:0], repr.NewInt(e.n), e.val, e.separator())
		o.scratch = r
		o.vbuf = repr.AppendRow(o.vbuf[:0], r)
		blob = binary.AppendUvarint(blob, uint64(len(o.vbuf)))
		blob = append(blob, o.vbuf...)
	}
	o.rbuf = blob
	o.logRun(s, g, slot, seq, countRunTag, blob)
}

// newRun allocates the sequence number of a new run of n items.
func (rs *runState) newRun(n int) uint64 {
	seq := rs.next
	rs.next++
	rs.seqs = append(rs.seqs, seq)
	rs.stored += n
	return seq
}

// logRun logs blob as run seq of slot in g; tag, the record's count
// field, says what kind of run it is (countRunTag or diffRunTag).
func (o *reduceOp) logRun(s *stepCtx, g *group, slot int, seq uint64, tag int64, blob []byte) {
	o.runKey(s, g, slot, seq)
	r := append(o.scratch[:0], repr.NewInt(int64(g.klen)), repr.NewInt(tag), repr.NewBytea(blob), repr.Null)
	o.scratch = r
	o.vbuf = repr.AppendRow(o.vbuf[:0], r)
	s.log.set(o.kbuf, o.vbuf)
}

// runKey sets o.kbuf to the state key of run seq of slot in g.
func (o *reduceOp) runKey(s *stepCtx, g *group, slot int, seq uint64) {
	o.kbuf = append(append(append(o.kbuf[:0], s.prefix...), tagEntry), g.key()...)
	o.kbuf = binary.BigEndian.AppendUint64(append(o.kbuf, runSlot|byte(slot)), seq)
}

// delLegacy logs the deletion of e's individually logged key.
func (o *reduceOp) delLegacy(s *stepCtx, g *group, slot int, e *mentry) {
	o.kbuf = append(append(append(o.kbuf[:0], s.prefix...), tagEntry), g.key()...)
	o.kbuf = append(append(o.kbuf, byte(slot)), e.key...)
	s.log.del(o.kbuf)
}

// restoreRun applies a logged run (key: group key, slot byte, seq; r: the
// record's row) to g's multiset of slot: each entry's count replaces the
// one before, and an entry of count zero is removed.
func (o *reduceOp) restoreRun(g *group, slot int, seqb []byte, r repr.Row) error {
	tag := r[1].Int()
	if len(seqb) != 8 || tag != countRunTag && tag != diffRunTag || r[2].Family() != repr.FamBytea || slot >= len(o.slotOrdered) {
		return errCorrupt
	}
	seq := binary.BigEndian.Uint64(seqb)
	sets := o.sets(g)
	ms := sets[slot]
	if ms == nil {
		ms = newMultiset(o.slotOrdered[slot])
		sets[slot] = ms
	}
	if ms.rs == nil {
		ms.rs = &runState{}
	}
	blob := r[2].Text()
	n := 0
	if tag == diffRunTag {
		var err error
		if n, err = o.restoreDiffRun(ms, blob); err != nil {
			return err
		}
		blob = ""
	}
	for len(blob) > 0 {
		key, rest, ok := cutUvarint(blob)
		if !ok {
			return errCorrupt
		}
		enc, rest, ok := cutUvarint(rest)
		if !ok {
			return errCorrupt
		}
		blob = rest
		er, err := repr.DecodeRow([]byte(enc))
		if err != nil || len(er) != 3 {
			return errCorrupt
		}
		o.restoreRunEntry(ms, key, er)
		n++
	}
	ms.rs.seqs = append(ms.rs.seqs, seq)
	ms.rs.stored += n
	ms.rs.snap = 0
	ms.rs.next = max(ms.rs.next, seq+1)
	return nil
}

// restoreRunEntry sets the count of ms's entry of key from a run's row
// (count, value, separator).
func (o *reduceOp) restoreRunEntry(ms *multiset, key string, er repr.Row) {
	o.ebuf = append(o.ebuf[:0], key...)
	e := ms.find(o.ebuf)
	cnt := er[0].Int()
	switch {
	case e == nil && cnt != 0:
		ms.insert(newEntry(o.ebuf, er[1], er[2], cnt))
	case e != nil && cnt == 0:
		ms.remove(e)
	case e != nil:
		e.n, e.val = cnt, er[1]
		ms.counted(e) // a count that stays positive leaves the extrema
	}
}

// cutUvarint splits a uvarint-prefixed string off b.
func cutUvarint(b string) (s, rest string, ok bool) {
	n, k := binary.Uvarint([]byte(b[:min(len(b), binary.MaxVarintLen64)]))
	if k <= 0 || n > uint64(len(b)-k) {
		return "", "", false
	}
	return b[k : k+int(n)], b[k+int(n):], true
}
