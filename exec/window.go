package exec

import (
	"container/heap"
	"math"
	"slices"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// closeIndex finds the items (groups, arranged rows) whose value in a
// watermarked column has fallen below the watermark: a min-heap of the
// distinct values with, per value, the items added under it. Items are
// added once when they are created and never removed individually; the
// consumer skips items that died in the meantime, so the index holds at
// most the items created since their values' watermarks passed (the same
// bound as the state it indexes).
//
// Buckets popped during a Step are kept until Commit so Rollback can put
// them back.
type closeIndex[T any] struct {
	vals  int64Heap
	items map[int64][]T
	undo  []closedBucket[T]
}

// closedBucket is a bucket popped during the pending Step.
type closedBucket[T any] struct {
	v     int64
	items []T
}

// add files it under value v.
func (x *closeIndex[T]) add(v int64, it T) {
	if x.items == nil {
		x.items = make(map[int64][]T)
	}
	b, ok := x.items[v]
	if !ok {
		heap.Push(&x.vals, v)
	}
	x.items[v] = append(b, it)
}

// popBelow removes every bucket whose value is below wm, in value order,
// calling fn with each of its items.
func (x *closeIndex[T]) popBelow(wm int64, fn func(T)) { x.popBelowN(wm, math.MaxInt, fn) }

// popBelowN is popBelow stopping after the bucket that reaches limit
// items.
func (x *closeIndex[T]) popBelowN(wm int64, limit int, fn func(T)) {
	for n := 0; n < limit && len(x.vals) > 0 && x.vals[0] < wm; {
		v := heap.Pop(&x.vals).(int64)
		b := x.items[v]
		delete(x.items, v)
		x.undo = append(x.undo, closedBucket[T]{v, b})
		for _, it := range b {
			fn(it)
		}
		n += len(b)
	}
}

func (x *closeIndex[T]) commit() { x.undo = reuse(x.undo) }

// rollback puts back the buckets popped during the pending Step.
func (x *closeIndex[T]) rollback() {
	for i := len(x.undo) - 1; i >= 0; i-- {
		for _, it := range x.undo[i].items {
			x.add(x.undo[i].v, it)
		}
	}
	x.commit()
}

// int64Heap is a min-heap of int64 for container/heap.
type int64Heap []int64

func (h int64Heap) Len() int           { return len(h) }
func (h int64Heap) Less(i, j int) bool { return h[i] < h[j] }
func (h int64Heap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *int64Heap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *int64Heap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}

// windowReduce is a reduceOp whose key includes watermarked columns (key
// positions pos, input columns cols): a group whose value v in one of them
// is below that column's watermark can never change again, since every
// later input row has a value at or above the watermark (so a group keyed
// by window_start and window_end closes on either). On the Step where that
// becomes true the group closes: with EmitOnClose it emits its final row
// (and never emitted anything before), otherwise nothing more (it emitted
// on every change); in both cases its accumulators and multisets are freed
// and their deletion logged. The state is thus bounded by the groups whose
// windows are open. Groups with a NULL there never close.
//
// It wraps reduceOp rather than changing it: the emission of an
// EmitOnClose group is suppressed after the fact (its out row stays nil),
// and closing uses the reduceOp's own undo record, so Rollback reopens
// closed groups.
type windowReduce struct {
	*reduceOp
	pos, cols []int
	// idx files the groups by key encoding: in memory the key shares its
	// group's encoding, once spilled it is a copy (window_spill.go).
	idx    []closeIndex[string]
	keyRow repr.Row // scratch of index
	cbuf   []byte   // scratch of closeKey
	// cold lists the groups the pending Step closed unread (closeCold).
	cold []string
	// owns, when set (a shard of a sharded node: shard_keys.go), tells
	// the group keys of this shard from the other shards'.
	owns func(key []byte) bool
}

func (w *windowReduce) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	out, err := w.reduceOp.step(s, ins)
	if err != nil {
		return nil, err
	}
	if w.spec.EmitOnClose {
		out = out[:0]
	}
	for _, gu := range w.touched {
		if !gu.existed && gu.g.in {
			w.index(gu.g)
		}
	}
	for i, c := range w.cols {
		if wm := s.inWM[0][c]; wm != NoWatermark {
			w.idx[i].popBelow(wm, func(k string) {
				if err == nil {
					out, err = w.closeKey(s, k, out)
				}
			})
		}
	}
	return out, err
}

// closeKey closes the group of key encoding k, if it is live, making it
// resident first in a spilled Reduce.
func (w *windowReduce) closeKey(s *stepCtx, k string, out []repr.Update) ([]repr.Update, error) {
	if w.sp != nil && !w.sp.resident(k) && !w.spec.EmitOnClose && s.log.ranges {
		w.closeCold(s, k)
		return out, nil
	}
	if w.sp != nil {
		w.cbuf = append(w.cbuf[:0], k...)
		if err := w.sp.use(w.reduceOp, w.cbuf, true); err != nil {
			return out, err
		}
	}
	if g := w.groups[k]; g != nil && g.in {
		return w.close(s, g, out)
	}
	return out, nil
}

// index files g under its values in the watermarked key columns.
func (w *windowReduce) index(g *group) {
	w.keyRow = slices.Grow(w.keyRow[:0], len(w.spec.Key))[:len(w.spec.Key)]
	if err := repr.DecodeDatums(w.keyRow, g.enc[g.klen:], nil); err != nil {
		return
	}
	w.indexKey(g.key(), w.keyRow)
}

// indexKey files the group of key encoding k and key columns key under
// its values in the watermarked key columns; a spilled Reduce files a
// copy of k, so that the index does not pin an evicted group.
func (w *windowReduce) indexKey(k string, key repr.Row) {
	if w.sp != nil {
		k = strings.Clone(k)
	}
	w.file(k, key)
}

// file files k under key's values in the watermarked key columns.
func (w *windowReduce) file(k string, key repr.Row) {
	for i, p := range w.pos {
		if v, ok := wmValue(key[p]); ok {
			w.idx[i].add(v, k)
		}
	}
}

// close emits g's final row if the Reduce emits on close, then frees g
// and logs the deletion of its state.
func (w *windowReduce) close(s *stepCtx, g *group, out []repr.Update) ([]repr.Update, error) {
	if g.stamp != s.epoch {
		w.touch(s, g, true)
	}
	if w.spec.EmitOnClose {
		cur, err := w.output(s.slab, g)
		if err != nil {
			return nil, err
		}
		if cur != nil {
			out = append(out, repr.Update{Row: cur, Time: s.t, Diff: 1})
		}
	}
	w.logClosed(s, g)
	delete(w.groups, g.key())
	g.in = false
	return out, nil
}

func (w *windowReduce) commit() {
	w.cold = w.cold[:0]
	w.reduceOp.commit()
	for i := range w.idx {
		w.idx[i].commit()
	}
}

func (w *windowReduce) rollback() {
	for _, k := range w.cold {
		w.sp.unmark(k)
	}
	w.cold = w.cold[:0]
	w.reduceOp.rollback()
	for i := range w.idx {
		w.idx[i].rollback()
	}
}

// restored indexes every restored group (an EmitOnClose group has emitted
// nothing yet); a Reduce spilled while restoring indexes the groups of
// the store.
func (w *windowReduce) restored() error {
	if err := w.reduceOp.restored(); err != nil {
		return err
	}
	if w.sp != nil {
		return w.indexStored()
	}
	for _, g := range w.groups {
		w.index(g)
	}
	return nil
}

// windowJoin is a joinOp with an equi-join key pair whose columns carry
// watermarks on both sides (left column lcol, right column rcol): an
// arranged row whose key value there is below the minimum of the two
// watermarks can never match a later row of the other side nor be
// retracted, so it is freed (and its deletion logged) without changing the
// output. This is the window join of Nexmark q8: its state is bounded by
// the open windows. Rows with a NULL there are kept (they never match but
// may pad an outer join). Spilled, it keeps its close indexes as names
// (close_spill.go), as the interval join does.
type windowJoin struct {
	*joinOp
	cols [2]int
	idx  [2]rowClose
}

func (w *windowJoin) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	out, err := w.joinOp.step(s, ins)
	if err != nil {
		return nil, err
	}
	for _, t := range w.touched {
		if !t.existed && t.r.in() {
			if err := w.index(t.side, t.r, t.row); err != nil {
				return nil, err
			}
		}
	}
	wm := min(s.inWM[0][w.cols[0]], s.inWM[1][w.cols[1]])
	if wm == NoWatermark {
		return out, nil
	}
	for side := range 2 {
		if err := w.idx[side].close(s, w.joinOp, side, wm); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// newWindowJoin wraps o, closing its rows on the watermarked key columns
// cols (of input types in), and keys its state by time (join_time.go)
// when they are timestamps.
func newWindowJoin(o *joinOp, cols [2]int, in [2][]repr.T) *windowJoin {
	w := &windowJoin{joinOp: o, cols: cols}
	if timedType(in[0][cols[0]]) && timedType(in[1][cols[1]]) {
		w.tm = &joinTime{val: [2]rowValue{w.valueOf(0), w.valueOf(1)}, names: [2]*nameHeap{&w.idx[0].sp, &w.idx[1].sp}}
	}
	return w
}

// valueOf returns the value a row of side is filed under: its
// watermarked key column's.
func (w *windowJoin) valueOf(side int) rowValue {
	return func(row repr.Row) (int64, bool) { return wmValue(row[w.cols[side]]) }
}

// index files row r of side under its value in the watermarked key column;
// row, if not nil, is r's columns.
func (w *windowJoin) index(side int, r *jrow, row repr.Row) error {
	row, err := w.columnsOf(side, r, row)
	if err != nil {
		return err
	}
	if v, ok := wmValue(row[w.cols[side]]); ok {
		w.idx[side].add(w.joinOp, side, v, r)
	}
	return nil
}

// spillTo spills the join with its close indexes (spill.go).
func (w *windowJoin) spillTo(r StateReader, prefix []byte, cache int64) bool {
	return w.spillIndexed(r, prefix, cache, []*rowClose{&w.idx[0], &w.idx[1]}, []int{0, 1})
}

func (w *windowJoin) commit() {
	w.joinOp.commit()
	w.idx[0].commit()
	w.idx[1].commit()
}

func (w *windowJoin) rollback() {
	w.joinOp.rollback()
	w.idx[0].rollback()
	w.idx[1].rollback()
}

// restored indexes every restored row: every stored one when the
// restore stopped to spill (RestoreWithin).
func (w *windowJoin) restored() error {
	if w.sp != nil {
		for side := range 2 {
			val := w.valueOf(side)
			err := w.eachStored(side, func(row repr.Row, ref keyRef) error {
				if v, ok := val(row); ok {
					w.idx[side].sp.add(v, ref)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return w.joinOp.restored()
	}
	var err error
	for side := range 2 {
		w.sides[side].each(func(r *jrow) {
			if err == nil {
				err = w.index(side, r, nil)
			}
		})
	}
	if err != nil {
		return err
	}
	return w.joinOp.restored()
}

// liveGroups is the number of groups a reduce keeps (for tests and
// benchmarks).
func liveGroups(op operator) int {
	switch o := op.(type) {
	case *reduceOp:
		return len(o.groups)
	case *windowReduce:
		return len(o.groups)
	}
	return 0
}
