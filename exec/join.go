package exec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// joinOp is the equi-join of its left and right inputs with residual
// predicates, inner or outer. On a batch with changes dL and dR it emits
// dL⋈R + L'⋈dR (R before and L' after this batch), the bilinear rule of
// differential dataflow, then for outer joins the change of every padded
// row: a live row with no match appears padded with NULLs, with its own
// multiplicity, exactly while its match count is zero.
//
// State: both inputs arranged by join key (key -> live rows with counts),
// plus, per row, its match count: the summed multiplicity of the rows of
// the other side it joins with (residual included). Size: O(live rows of
// both inputs). Rows with a NULL key column never match and are kept only
// for outer padding. Rows are freed when their count reaches zero.
//
// Representation (see jrow, joinSide): each distinct row is kept once,
// as the value encoding of its columns (its one heap object), in an
// entry of a chunked array that the indexes refer to by id (no map or
// bucket of pointers for the collector to scan), and decoded only when
// it is emitted, straight into the Step's slab. A TPC-H row of three int4 and three numeric columns costs
// ~155 bytes of heap arranged this way, against ~650 as Datums with a key
// string, and maintaining it costs no more CPU (BenchmarkJoinState).
//
// Logged state: {0x03 or 0x04 for left or right} join-key row-key ->
// row(count, matches, columns...) for a plain join (keyed), ordered by
// join key so that a spilled join reads one key's rows with one prefix
// scan (join_spill.go), as do the shared, window and interval joins
// that wrap or embed a joinOp; the delta joins, and joins restored from
// state logged before the join key was part of the key, log {0x01 or
// 0x02} row-key instead.
type joinOp struct {
	spec                  dataflow.Join
	leftOuter, rightOuter bool
	widths                [2]int
	sides                 [2]joinSide
	touched               []joinUndo
	// keys holds the row keys of touched rows (joinUndo.kstart, kend).
	keys                         []byte
	kbuf, rbuf, vbuf, lbuf, cbuf []byte
	scratch                      repr.Row
	counts                       repr.Row
	// dec and decs are the scratch of decodeScratch.
	dec  repr.Row
	decs repr.DecimalSlab
	// spare is a slab row that a failed residual left unused.
	spare repr.Row
	// keyed is set when state keys carry the join key (tags 3 and 4).
	keyed bool
	// tm, set on a window or interval join keyed by time (tags 5 and 6:
	// join_time.go), computes its rows' buckets and tracks its closes.
	tm *joinTime
	// tbuf is the scratch of a state key's bucket and join key.
	tbuf []byte
	// sp is the spilled state (join_spill.go); nil while in memory.
	sp *joinSpill
	// owns, when set (a shard of a sharded node: shard_keys.go), tells
	// the join keys of this shard from the other shards' (eachStored).
	owns func(key []byte) bool
	// restoring is set from a restore's first row until restored.
	restoring bool
}

// joinUndo is a row's state before the pending Step touched it; key, if
// kend > kstart, its state key (after the side tag) in joinOp.keys. row,
// when set, is the input row the Step created r from (r.enc is its
// encoding): logging and filing r read it rather than decode r again.
type joinUndo struct {
	side         int
	r            *jrow
	row          repr.Row
	n, matches   int64
	existed      bool
	kstart, kend int32
}

func newJoin(spec dataflow.Join, left, right []repr.T) (*joinOp, error) {
	if len(spec.LeftKey) != len(spec.RightKey) {
		return nil, fmt.Errorf("join has %d left and %d right key columns", len(spec.LeftKey), len(spec.RightKey))
	}
	if err := checkCols(spec.LeftKey, len(left)); err != nil {
		return nil, err
	}
	if err := checkCols(spec.RightKey, len(right)); err != nil {
		return nil, err
	}
	o := &joinOp{spec: spec, widths: [2]int{len(left), len(right)}, counts: make(repr.Row, 2)}
	o.leftOuter = spec.Kind == dataflow.LeftJoin || spec.Kind == dataflow.FullJoin
	o.rightOuter = spec.Kind == dataflow.RightJoin || spec.Kind == dataflow.FullJoin
	for i, cols := range [2][]int{spec.LeftKey, spec.RightKey} {
		o.sides[i] = newJoinSide(cols)
	}
	return o, nil
}

func (o *joinOp) outer(side int) bool { return side == 0 && o.leftOuter || side == 1 && o.rightOuter }

func (o *joinOp) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	var out []repr.Update
	for side := range 2 {
		for _, u := range ins[side] {
			// Each row counts as work: a side with nothing to match
			// yet (an ad hoc join's first input) arranges its rows
			// without a match to poll at, and went unaccounted and
			// uncancellable for its whole input.
			if err := s.poll(); err != nil {
				return nil, err
			}
			var err error
			if out, err = o.apply(s, side, u, out); err != nil {
				return nil, err
			}
		}
	}
	out, err := o.pad(s, out)
	if err != nil {
		return nil, err
	}
	return out, o.log(s)
}

// apply joins update u of side with the other side's current rows and
// then adds it to side's arrangement.
func (o *joinOp) apply(s *stepCtx, side int, u repr.Update, out []repr.Update) ([]repr.Update, error) {
	other := &o.sides[1-side]
	r, fresh, err := o.lookup(s, side, u.Row)
	if err != nil {
		return nil, err
	}
	var m int64
	if b := other.buckets[string(o.kbuf)]; b != nil && r.b != nil {
		for _, id := range b.rows {
			if err := s.poll(); err != nil {
				return nil, err
			}
			q := other.at(id)
			d := u.Diff * q.n
			row, ok, err := o.match(s, side, u.Row, q, d != 0)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			m += q.n
			if d != 0 {
				out = append(out, repr.Update{Row: row, Time: s.t, Diff: d})
			}
			if o.outer(1 - side) {
				o.touch(s, 1-side, q, true, nil, nil, nil)
				q.matches += u.Diff
			}
		}
	}
	if fresh && o.outer(side) {
		r.matches = m
	}
	r.n += u.Diff
	return out, nil
}

// match reports whether row, an update of side, joins q, a stored row of
// the other side, under the residual; if emit, it also returns the joined
// row, fresh from the Step's slab. Without a residual nor emit nothing is
// decoded.
func (o *joinOp) match(s *stepCtx, side int, row repr.Row, q *jrow, emit bool) (repr.Row, bool, error) {
	if !emit && len(o.spec.Residual) == 0 {
		return nil, true, nil
	}
	pair := o.spare
	if o.spare = nil; pair == nil {
		pair = s.slab.row(o.widths[0] + o.widths[1])
	}
	own, stored := pair[:o.widths[0]], pair[o.widths[0]:]
	if side == 1 {
		own, stored = stored, own
	}
	copy(own, row)
	if err := repr.DecodeDatums(stored, q.enc, &s.slab.decs); err != nil {
		return nil, false, fmt.Errorf("join state: %w", err)
	}
	ok, err := residualHolds(s, o.spec.Residual, pair)
	if err != nil || !ok || !emit {
		o.spare = pair
		return nil, ok, err
	}
	return pair, true, nil
}

// lookup finds (or creates) the entry of row on side, touching it, with
// the row's join key left in o.kbuf. On a spilled join it first makes
// the other side's rows of the join key resident, and reads the row's
// own state key if its side key is not resident (join_spill.go).
func (o *joinOp) lookup(s *stepCtx, side int, row repr.Row) (r *jrow, fresh bool, err error) {
	me := &o.sides[side]
	o.kbuf = repr.AppendColsKey(o.kbuf[:0], row, me.keyCols)
	null := hasNullCol(row, me.keyCols)
	if o.spilled(1-side) && !null {
		if err := o.useSide(1-side, o.kbuf, o.outer(1-side)); err != nil {
			return nil, false, err
		}
	}
	o.rbuf = repr.AppendRowKeyExact(o.rbuf[:0], row)
	o.vbuf = repr.AppendDatums(o.vbuf[:0], row)
	h, hi := rowHash(o.rbuf)
	if o.spilled(side) {
		r, err = o.ownRow(side, row, h, hi)
	} else {
		r, err = o.find(side, h, o.vbuf, o.rbuf)
	}
	if err != nil {
		return nil, false, err
	}
	if r == nil {
		r, fresh = me.alloc(string(o.vbuf), h), true
		r.hi = hi
		o.counted(side, r.keyHash(), 1)
		s.grown += jrowCost(len(o.vbuf))
		newBucket := o.spilled(side) && o.bucketOf(side, string(o.kbuf), null) == nil
		nb := len(me.buckets)
		me.linkKey(r, o.kbuf, null)
		if len(me.buckets) > nb {
			s.grown += keyBucketCost(len(o.kbuf))
		}
		if o.spilled(side) {
			o.arranged(side, jrowCost(len(o.vbuf)), newBucket)
		}
	} else if o.spilled(side) {
		o.sp.touch(o.sideKey(side, o.kbuf), true)
	}
	var jk []byte
	if o.keyed {
		jk = o.kbuf
	}
	if o.tm != nil {
		o.tbuf = binary.BigEndian.AppendUint64(o.tbuf[:0], o.timeBucketOf(side, row))
		o.tbuf = append(o.tbuf, o.kbuf...)
		jk = o.tbuf
	}
	var created repr.Row
	if fresh {
		created = row
	}
	o.touch(s, side, r, !fresh, jk, o.rbuf, created)
	return r, fresh, nil
}

// find returns the arranged row of side with hash h whose columns encode
// as enc or, failing that, whose exact row key (repr.AppendRowKeyExact:
// 1.50 and 1.5 differ, as the rows print differently) is key; nil if
// there is none.
func (o *joinOp) find(side int, h uint32, enc, key []byte) (*jrow, error) {
	me := &o.sides[side]
	head := me.head(h)
	for r := head; r != nil; r = me.following(r) {
		if r.enc == string(enc) {
			return r, nil
		}
	}
	for r := head; r != nil; r = me.following(r) {
		k, err := o.rowKey(side, r)
		if err != nil {
			return nil, err
		}
		if string(k) == string(key) {
			return r, nil
		}
	}
	return nil, nil
}

// decodeScratch decodes stored row r of side into a scratch row, valid
// until the next call.
func (o *joinOp) decodeScratch(side int, r *jrow) (repr.Row, error) {
	if w := o.widths[side]; cap(o.dec) < w {
		o.dec = make(repr.Row, w)
	}
	o.decs.Reset()
	row := o.dec[:o.widths[side]]
	if err := repr.DecodeDatums(row, r.enc, &o.decs); err != nil {
		return nil, fmt.Errorf("join state: %w", err)
	}
	return row, nil
}

// columnsOf returns row if it is not nil (the row r was created from in
// this Step), else r decoded into the scratch row.
func (o *joinOp) columnsOf(side int, r *jrow, row repr.Row) (repr.Row, error) {
	if row != nil {
		return row, nil
	}
	return o.decodeScratch(side, r)
}

// rowKey returns the key encoding of stored row r of side, in a buffer
// valid until the next call.
func (o *joinOp) rowKey(side int, r *jrow) ([]byte, error) {
	row, err := o.decodeScratch(side, r)
	if err != nil {
		return nil, err
	}
	o.cbuf = repr.AppendRowKeyExact(o.cbuf[:0], row)
	return o.cbuf, nil
}

// stateKey returns the state key of stored row r of side after its side
// tag (join key and row key when keyed, else the row key), in a buffer
// valid until the next call.
func (o *joinOp) stateKey(side int, r *jrow) ([]byte, error) {
	row, err := o.decodeScratch(side, r)
	if err != nil {
		return nil, err
	}
	o.cbuf = o.cbuf[:0]
	if o.tm != nil {
		o.cbuf = binary.BigEndian.AppendUint64(o.cbuf, o.timeBucketOf(side, row))
	}
	if o.keyed {
		o.cbuf = repr.AppendColsKey(o.cbuf, row, o.sides[side].keyCols)
	}
	o.cbuf = repr.AppendRowKeyExact(o.cbuf, row)
	return o.cbuf, nil
}

// tag is the first byte of side's state keys.
func (o *joinOp) tag(side int) byte {
	if o.tm != nil {
		return byte(side + 5)
	}
	if o.keyed {
		return byte(side + 3)
	}
	return byte(side + 1)
}

// residual evaluates the residual predicates over the joined row.
func (o *joinOp) residual(s *stepCtx, l, r repr.Row) (bool, error) {
	return joinResidual(s, o.spec.Residual, &o.scratch, l, r)
}

// joinResidual reports whether every predicate of a join's residual is
// true over the pair l, r (concatenated into *scratch, reused).
func joinResidual(s *stepCtx, preds []expr.Expr, scratch *repr.Row, l, r repr.Row) (bool, error) {
	if len(preds) == 0 {
		return true, nil
	}
	*scratch = append(append((*scratch)[:0], l...), r...)
	return residualHolds(s, preds, *scratch)
}

// residualHolds reports whether every predicate is true over row.
func residualHolds(s *stepCtx, preds []expr.Expr, row repr.Row) (bool, error) {
	for _, e := range preds {
		v, err := e.Eval(s.ctx, row)
		if err != nil || v.IsNull() || !v.Bool() {
			return false, err
		}
	}
	return true, nil
}

// touch records r's state before the pending Step changes it, with its
// state key if known, jk then rk (rk nil: found again when logged).
func (o *joinOp) touch(s *stepCtx, side int, r *jrow, existed bool, jk, rk []byte, row repr.Row) {
	if r.stamp == s.epoch {
		return
	}
	r.stamp = s.epoch
	u := joinUndo{side: side, r: r, row: row, n: r.n, matches: r.matches, existed: existed}
	if rk != nil {
		u.kstart = int32(len(o.keys))
		o.keys = append(append(o.keys, jk...), rk...)
		u.kend = int32(len(o.keys))
	}
	o.touched = append(o.touched, u)
	s.grown += touchCost(len(jk) + len(rk))
}

// keyBucketCost estimates the heap bytes of a new join key's bucket of
// n-byte key: the bucket, its map entry, the key and its first row id.
// Under a budget a join of a million distinct keys reported only its rows
// (jrowCost) and grew 3x what it reported (an ad hoc join of two
// generate_series, 451 MiB RSS under 256 MiB before its 53200).
func keyBucketCost(n int) int64 {
	return int64(unsafe.Sizeof(jbucket{})) + mapEntryOverhead + int64(n) + 8
}

// touchCost estimates the heap bytes of a Step's undo record of a row
// whose join and row keys take n bytes (joinUndo and o.keys: both kept at
// their largest Step's length).
func touchCost(n int) int64 { return int64(unsafe.Sizeof(joinUndo{})) + int64(n) }

// insert arranges r, whose columns are row, on side, leaving the join
// key in o.kbuf.
func (o *joinOp) insert(side int, r *jrow, row repr.Row) {
	o.sides[side].link(r, row, &o.kbuf)
}

// remove takes r out of side's arrangement.
func (o *joinOp) remove(side int, r *jrow) { o.sides[side].unlink(r) }

// free removes r, a row of side that can no longer match nor be
// retracted (a window or interval join's watermark passed it), from the
// arrangement and logs its deletion.
func (o *joinOp) free(s *stepCtx, side int, r *jrow) error {
	key, err := o.stateKey(side, r)
	if err != nil {
		return err
	}
	o.touch(s, side, r, true, nil, key, nil)
	o.remove(side, r)
	o.counted(side, r.keyHash(), -1)
	if o.tm != nil && o.tm.covered(side, key) {
		return nil // its bucket's range deletion is logged
	}
	o.lbuf = append(append(o.lbuf[:0], s.prefix...), o.tag(side))
	o.lbuf = append(o.lbuf, key...)
	s.log.del(o.lbuf)
	return nil
}

// pad emits the change of the NULL-padded row of every touched row of an
// outer side: its multiplicity is its count while it has no match.
func (o *joinOp) pad(s *stepCtx, out []repr.Update) ([]repr.Update, error) {
	for _, t := range o.touched {
		if !o.outer(t.side) {
			continue
		}
		d := padCount(t.r.n, t.r.matches) - padCount(t.n, t.matches)
		if d == 0 {
			continue
		}
		row := s.slab.row(o.widths[0] + o.widths[1])
		off := 0
		if t.side == 1 {
			off = o.widths[0]
		}
		if err := repr.DecodeDatums(row[off:off+o.widths[t.side]], t.r.enc, &s.slab.decs); err != nil {
			return nil, fmt.Errorf("join state: %w", err)
		}
		out = append(out, repr.Update{Row: row, Time: s.t, Diff: d})
	}
	return out, nil
}

func padCount(n, matches int64) int64 {
	if matches != 0 {
		return 0
	}
	return n
}

// log logs every touched row and frees those whose count is zero.
func (o *joinOp) log(s *stepCtx) error {
	for i := range o.touched {
		if err := s.poll(); err != nil { // the log's growth is accounted as it is written
			return err
		}
		t := &o.touched[i]
		o.lbuf = append(append(o.lbuf[:0], s.prefix...), o.tag(t.side))
		if t.kend > t.kstart {
			o.lbuf = append(o.lbuf, o.keys[t.kstart:t.kend]...)
		} else {
			k, err := o.stateKey(t.side, t.r)
			if err != nil {
				return err
			}
			o.lbuf = append(o.lbuf, k...)
		}
		covered := false
		if o.tm != nil {
			sk := o.lbuf[len(s.prefix)+1:]
			covered = o.tm.covered(t.side, sk)
			o.tm.noteNull(t.side, sk)
		}
		if covered { // in a closed bucket: its range deletion is logged
			if t.r.n == 0 && t.r.in() {
				o.remove(t.side, t.r)
				o.counted(t.side, t.r.keyHash(), -1)
			}
			continue
		}
		if t.r.n == 0 {
			s.log.del(o.lbuf)
			if t.r.in() {
				o.remove(t.side, t.r)
				o.counted(t.side, t.r.keyHash(), -1)
			}
			continue
		}
		s.log.set(o.lbuf, o.logValue(t.side, t.r, t.row))
	}
	return nil
}

// commit forgets the undo records and releases the entries of the rows
// the Step removed; a spilled join then evicts clean keys past its cache.
func (o *joinOp) commit() {
	if o.tm != nil {
		o.tm.commit()
	}
	o.forget()
	if o.sp != nil {
		o.trimSpill()
	}
}

// forget drops the undo records and releases the removed entries.
func (o *joinOp) forget() {
	if o.sp != nil {
		o.sp.died = reuse(o.sp.died)
		o.sp.deadMark = o.sp.dead.len()
		o.sp.closing = reuse(o.sp.closing)
	}
	clear(o.touched) // drop the input rows they hold: they would pin the Step's slab chunks
	o.touched = reuse(o.touched)
	o.keys = reuse(o.keys)
	o.sides[0].release()
	o.sides[1].release()
}

// rollback restores every touched row, newest first, and revives the
// stored rows the Step deleted unread.
func (o *joinOp) rollback() {
	if o.tm != nil {
		o.tm.rollback()
	}
	if o.sp != nil {
		o.undie()
	}
	for i := len(o.touched) - 1; i >= 0; i-- {
		t := &o.touched[i]
		t.r.n, t.r.matches = t.n, t.matches
		switch {
		case !t.existed && t.r.in():
			o.remove(t.side, t.r)
			o.counted(t.side, t.r.keyHash(), -1)
		case t.existed && !t.r.in():
			o.counted(t.side, t.r.keyHash(), 1)
			row, err := o.decodeScratch(t.side, t.r)
			if err != nil {
				panic(fmt.Sprintf("internal error: rolling back a join: %v", err)) // our own encoding
			}
			o.insert(t.side, t.r, row)
		}
	}
	o.forget()
}

// restore arranges one logged row. Its key is the side tag, the join
// key when keyed (tags 3 and 4), and the row key, so the row's hash is
// that of the key's tail. A row key-only tag (1 or 2) makes the join
// unkeyed: it keeps logging that layout and never spills.
func (o *joinOp) restore(key, value []byte) error {
	_, err := o.restoreRow(key, value)
	return err
}

// restoreRow is restore, returning the row's estimated bytes.
func (o *joinOp) restoreRow(key, value []byte) (int64, error) {
	o.restoring = true
	if len(key) == 0 || key[0] < 1 || key[0] > 6 {
		return 0, errCorrupt
	}
	side := int(key[0]-1) % 2
	body := key[1:]
	switch {
	case key[0] <= 4:
		o.tm = nil // logged before joins were keyed by time
	case o.tm == nil || len(body) < 8:
		return 0, errCorrupt
	default:
		o.tm.noteNull(side, body)
		body = body[8:]
	}
	row, n, matches, err := o.decodeLogged(side, body, value)
	if err != nil {
		return 0, err
	}
	o.kbuf = repr.AppendColsKey(o.kbuf[:0], row, o.sides[side].keyCols)
	rk := body
	if o.keyed = key[0] > 2; o.keyed {
		if !bytes.HasPrefix(rk, o.kbuf) {
			return 0, errCorrupt
		}
		rk = rk[len(o.kbuf):]
	}
	return o.arrange(side, row, o.kbuf, rk, n, matches), nil
}

// arrange adds a stored row of side (join key jk, row key rk) with its
// counts, returning its estimated bytes.
func (o *joinOp) arrange(side int, row repr.Row, jk, rk []byte, n, matches int64) int64 {
	js := &o.sides[side]
	o.vbuf = repr.AppendDatums(o.vbuf[:0], row)
	lo, hi := rowHash(rk)
	jr := js.alloc(string(o.vbuf), lo)
	jr.n, jr.matches, jr.hi = n, matches, hi
	js.linkKey(jr, jk, hasNullCol(row, js.keyCols))
	return jrowCost(len(o.vbuf))
}

func (o *joinOp) restored() error {
	o.restoring = false
	return nil
}
