package exec

import (
	"encoding/binary"
	"fmt"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// appendJoin is the inner equi-join of two inputs that never retract a row
// (dataflow.Join.AppendOnly), with residual predicates. On a batch with
// changes dL and dR it emits dL⋈R + L'⋈dR, as joinOp does: each left
// update joins the right rows stored before this batch and is then
// stored; each right update then joins every stored left row, this
// batch's included. An update with Diff n stands for n copies, so a
// pair's output diff is the product of the two multiplicities.
//
// State: per side, the rows of each join key, encoded (repr.AppendRow of
// count and columns) and appended back to back to one byte slice per key.
// No retraction will ever look a row up, so rows need no identity: no
// per-row map entry, pointer or decoded Datums, only the bytes (q20: a
// bid costs its encoding, against ~900 bytes in joinOp). A stored row is
// decoded only when a probe of the other side matches its key. Rows with a
// NULL key column never match and are not stored. Size: O(rows of both
// inputs), never freed (but it may spill) (a watermarked key makes the join a windowJoin or
// intervalJoin instead, which take precedence). A retraction breaks the
// promise and fails the Step (errRetractAppendJoin) rather than answer
// from state that cannot find the row.
//
// Logged state: {0x01 or 0x02 for left or right} join-key seq ->
// row(count, columns...), where seq is a big-endian 8-byte number that
// grows with every stored row, so restore appends each key's rows in
// arrival order; and {0x00} -> the next seq, written by every Step that
// stores a row (so a restore that stops early knows it). Past the memory
// budget the state spills to the store, keeping the keys in use in memory
// (append_spill.go).
type appendJoin struct {
	spec   dataflow.Join
	widths [2]int
	sides  [2]appendSide
	// seq numbers the next stored row; seq0 is its value before the
	// pending Step (restored by rollback).
	seq, seq0 uint64
	undo      []appendUndo
	kbuf      []byte
	vbuf      []byte
	lbuf      []byte
	scratch   repr.Row
	rec       repr.Row // decodeRec's row
	// sp is the spilled form's residency (append_spill.go); nil while
	// every row is in memory. tails are the side keys (tag, join key)
	// whose buckets are tails, tailBytes their rows' bytes, and tbuf a
	// side key's scratch.
	sp        *residency
	tails     []string
	tailBytes int64
	tbuf      []byte
	// filters hold, per side, every join key the store may hold rows of
	// once spilled (nil: any key); partial is forget's note that the rows
	// in memory are only part of the state, so spillTo builds them from
	// the store.
	filters [2]*storage.KeyFilter
	partial bool
	// seqLogged reports that the store holds the sequence number under
	// appendSeqKey (or no rows at all), so the state may spill; seqSeen
	// is restore's note that the record came before the rows.
	seqLogged, seqSeen bool
	// seqs, set on a shard of a sharded join before each Step
	// (shard_append.go), are the sequence numbers of the rows the Step
	// stores, in order: the single join's numbers for them, so the store
	// holds the same keys for every worker count. quiet marks a shard
	// that leaves logging the next sequence number to the first shard.
	seqs  []uint64
	quiet bool
}

// appendSide is one input's rows by join key.
type appendSide struct {
	keyCols []int
	buckets map[string]*appendBucket
}

// appendBucket holds the rows of one join key of one side: records
// uvarint(len) row(count, columns...) back to back, in arrival order.
type appendBucket struct {
	recs  []byte
	stamp uint64
}

// appendUndo is a bucket's length before the pending Step appended to it
// (-1: the Step created it).
type appendUndo struct {
	side int
	key  string
	b    *appendBucket
	n    int
}

// errRetractAppendJoin fails a Step that breaks the AppendOnly promise.
var errRetractAppendJoin = fmt.Errorf("internal error: a retraction reached a join planned for append-only inputs")

// newAppendJoin builds the append-only form of an inner join.
func newAppendJoin(spec dataflow.Join, widths [2]int) *appendJoin {
	o := &appendJoin{spec: spec, widths: widths, seqLogged: true}
	for i, cols := range [2][]int{spec.LeftKey, spec.RightKey} {
		o.sides[i] = appendSide{keyCols: cols, buckets: make(map[string]*appendBucket)}
	}
	return o
}

// useAppendJoins replaces every plain inner joinOp whose plan node
// promises append-only inputs by an appendJoin. It runs after the
// watermark wrapping, so windowJoin and intervalJoin keep precedence.
func (d *Dataflow) useAppendJoins() {
	for i, op := range d.ops {
		j, ok := op.(*joinOp)
		if ok && j.spec.AppendOnly && j.spec.Kind == dataflow.InnerJoin {
			d.ops[i] = newAppendJoin(j.spec, j.widths)
		}
	}
}

func (o *appendJoin) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	var out []repr.Update
	for side := range 2 {
		for _, u := range ins[side] {
			var err error
			if out, err = o.apply(s, side, u, out); err != nil {
				return nil, err
			}
		}
	}
	if o.seq != o.seq0 && !o.quiet {
		o.lbuf = append(append(o.lbuf[:0], s.prefix...), appendSeqKey)
		o.vbuf = binary.BigEndian.AppendUint64(o.vbuf[:0], o.seq)
		s.log.set(o.lbuf, o.vbuf)
	}
	return out, nil
}

// apply joins update u of side with the other side's stored rows of its
// key, then stores it.
func (o *appendJoin) apply(s *stepCtx, side int, u repr.Update, out []repr.Update) ([]repr.Update, error) {
	if u.Diff < 0 {
		return nil, errRetractAppendJoin
	}
	if !o.stores(side, u) {
		return out, nil
	}
	o.kbuf = repr.AppendColsKey(o.kbuf[:0], u.Row, o.sides[side].keyCols)
	if o.sp != nil {
		if err := o.readSide(1 - side); err != nil {
			return nil, err
		}
	}
	if b := o.sides[1-side].buckets[string(o.kbuf)]; b != nil {
		var err error
		if out, err = o.probe(s, side, u, b.recs, out); err != nil {
			return nil, err
		}
	}
	o.store(s, side, u)
	return out, nil
}

// stores reports whether update u of side is stored (and joined): a
// NULL key never matches, and a zero Diff is no row.
func (o *appendJoin) stores(side int, u repr.Update) bool {
	return u.Diff > 0 && !hasNullCol(u.Row, o.sides[side].keyCols)
}

// hasNullCol reports whether any of row's cols is NULL.
func hasNullCol(row repr.Row, cols []int) bool {
	for _, c := range cols {
		if row[c].IsNull() {
			return true
		}
	}
	return false
}

// probe emits u joined with every row of recs (the other side's rows of
// u's key) that passes the residual. Each record is decoded into o.rec,
// its numerics into the Step's slab, so only the joined rows allocate.
func (o *appendJoin) probe(s *stepCtx, side int, u repr.Update, recs []byte, out []repr.Update) ([]repr.Update, error) {
	for len(recs) > 0 {
		if err := s.poll(); err != nil {
			return nil, err
		}
		n, row, rest, err := o.decodeRec(recs, o.widths[1-side], &s.slab.decs)
		if err != nil {
			return nil, err
		}
		recs = rest
		l, r := u.Row, row
		if side == 1 {
			l, r = row, u.Row
		}
		ok, err := o.residual(s, l, r)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, repr.Update{Row: s.slab.concat(l, r), Time: s.t, Diff: u.Diff * n})
		}
	}
	return out, nil
}

// decodeRec decodes the first record of recs, a row of width columns,
// into o.rec (valid until the next call), returning its count, its row
// and the remaining records.
func (o *appendJoin) decodeRec(recs []byte, width int, decs *repr.DecimalSlab) (int64, repr.Row, []byte, error) {
	l, k := binary.Uvarint(recs)
	if k <= 0 || l > uint64(len(recs)-k) {
		return 0, nil, nil, errCorrupt
	}
	if cap(o.rec) < width+1 {
		o.rec = make(repr.Row, width+1)
	}
	r := o.rec[:width+1]
	if err := repr.DecodeRowInto(r, recs[k:k+int(l)], decs); err != nil {
		return 0, nil, nil, errCorrupt
	}
	return r[0].Int(), r[1:], recs[k+int(l):], nil
}

// decodeAppendRec decodes the first record of recs: its count and its
// row of width columns, and returns the remaining records.
func decodeAppendRec(recs []byte, width int) (int64, repr.Row, []byte, error) {
	l, k := binary.Uvarint(recs)
	if k <= 0 || l > uint64(len(recs)-k) {
		return 0, nil, nil, errCorrupt
	}
	r, err := repr.DecodeRow(recs[k : k+int(l)])
	if err != nil || len(r) != width+1 {
		return 0, nil, nil, errCorrupt
	}
	return r[0].Int(), r[1:], recs[k+int(l):], nil
}

// residual evaluates the residual predicates over the joined row.
func (o *appendJoin) residual(s *stepCtx, l, r repr.Row) (bool, error) {
	return joinResidual(s, o.spec.Residual, &o.scratch, l, r)
}

// store appends u to its side's bucket of the key in o.kbuf and logs it.
func (o *appendJoin) store(s *stepCtx, side int, u repr.Update) {
	b := o.bucket(side, s.epoch)
	o.scratch = append(append(o.scratch[:0], repr.NewInt(u.Diff)), u.Row...)
	o.vbuf = repr.AppendRow(o.vbuf[:0], o.scratch)
	b.recs = binary.AppendUvarint(b.recs, uint64(len(o.vbuf)))
	b.recs = append(b.recs, o.vbuf...)
	s.grown += int64(len(o.vbuf)) + 2
	if o.sp != nil {
		o.grewSide(side, int64(len(o.vbuf)+2))
	}
	o.lbuf = append(append(o.lbuf[:0], s.prefix...), byte(side+1))
	o.lbuf = append(o.lbuf, o.kbuf...)
	o.lbuf = binary.BigEndian.AppendUint64(o.lbuf, o.nextSeq())
	s.log.set(o.lbuf, o.vbuf)
}

// nextSeq returns the sequence number of the row being stored: the next
// of o's own, or of a shard the next its driver assigned.
func (o *appendJoin) nextSeq() uint64 {
	if o.seqs != nil {
		seq := o.seqs[0]
		o.seqs = o.seqs[1:]
		return seq
	}
	o.seq++
	return o.seq - 1
}

// bucket finds or creates side's bucket of the key in o.kbuf, recording
// its length before the pending Step the first time the Step touches it.
func (o *appendJoin) bucket(side int, epoch uint64) *appendBucket {
	me := &o.sides[side]
	b := me.buckets[string(o.kbuf)]
	if b == nil {
		b = &appendBucket{stamp: epoch}
		key := string(o.kbuf)
		me.buckets[key] = b
		o.undo = append(o.undo, appendUndo{side: side, key: key, b: b, n: -1})
		if o.sp != nil {
			o.newBucket(side)
		}
	} else if b.stamp != epoch {
		b.stamp = epoch
		o.undo = append(o.undo, appendUndo{side: side, b: b, n: len(b.recs)})
	}
	return b
}

func (o *appendJoin) commit() {
	o.undo = o.undo[:0]
	if o.seq != o.seq0 {
		o.seqLogged = true
	}
	o.seq0 = o.seq
	if o.sp != nil {
		o.sp.trim(o)
	}
}

// rollback truncates every bucket the pending Step appended to and drops
// those it created.
func (o *appendJoin) rollback() {
	for i := len(o.undo) - 1; i >= 0; i-- {
		u := &o.undo[i]
		if u.n < 0 {
			delete(o.sides[u.side].buckets, u.key)
			continue
		}
		u.b.recs = u.b.recs[:u.n]
	}
	o.undo = o.undo[:0]
	o.seq = o.seq0
}

// restore appends one logged row to its bucket. Keys arrive in key order,
// so each bucket's rows in sequence (arrival) order. A value is checked
// only for its column count: decoding millions of rows at start-up would
// cost seconds, and a probe that meets a corrupt record fails its Step.
func (o *appendJoin) restore(key, value []byte) error {
	if len(key) == 1 && key[0] == appendSeqKey && len(value) == 8 {
		o.seq = max(o.seq, binary.BigEndian.Uint64(value))
		o.seqSeen = true
		return nil
	}
	if len(key) < 9 || key[0] < 1 || key[0] > 2 {
		return errCorrupt
	}
	if !o.seqSeen {
		o.seqLogged = false // logged before the sequence record existed
	}
	side := int(key[0] - 1)
	if cols, k := binary.Uvarint(value); k <= 0 || cols != uint64(o.widths[side]+1) {
		return errCorrupt
	}
	jk := key[1 : len(key)-8]
	me := &o.sides[side]
	b := me.buckets[string(jk)]
	if b == nil {
		b = &appendBucket{}
		me.buckets[string(jk)] = b
	}
	b.recs = binary.AppendUvarint(b.recs, uint64(len(value)))
	b.recs = append(b.recs, value...)
	o.seq = max(o.seq, binary.BigEndian.Uint64(key[len(key)-8:])+1)
	return nil
}

func (o *appendJoin) restored() error {
	o.seq0 = o.seq
	return nil
}

// debug lists every stored row with its count, and the next sequence
// number.
func (o *appendJoin) debug() []string {
	var lines []string
	if !o.quiet {
		lines = append(lines, fmt.Sprintf("seq=%d", o.seq))
	}
	for side, name := range []string{"left", "right"} {
		for _, b := range o.sides[side].buckets {
			for recs := b.recs; len(recs) > 0; {
				n, row, rest, err := decodeAppendRec(recs, o.widths[side])
				if err != nil {
					return append(lines, fmt.Sprintf("%s corrupt: %v", name, err))
				}
				lines = append(lines, fmt.Sprintf("%s %s x%d", name, dataflow.FormatRow(row), n))
				recs = rest
			}
		}
	}
	return lines
}
