package exec

import "github.com/eddydb/eddy/repr"

// The close indexes of window and interval joins (windowJoin,
// intervalJoin), in memory and spilled. In memory a close index files
// each arranged row by reference (jref) under the value that frees it.
// A spilled join (join_spill.go) arranges only its resident join keys,
// so its close index files a compact name of each row instead (keyRef:
// its join key and the hash of its row key; no columns) and closing
// makes resident exactly the keys it closes: for each name popped, it
// loads the key (one prefix scan when not resident) and frees the
// key's arranged rows of that hash whose value is below the threshold.
// That is the set the in-memory index frees: a row whose value is below
// the threshold was filed under it when it was arranged (or restored),
// so its name is popped in this Step or was in an earlier one, which
// freed it.
//
// A side with at most an eighth of the other side's rows when the join
// spills (q7's windows beside its bids) stays in memory (joinSpill.skip)
// with its index by reference: loading a key then scans the big side
// only. A restore that stops to spill keeps no side.

// keyRef names an arranged row of a spilled join's side: its join key
// and the joinHash of its row key (rows sharing both are told apart by
// their value).
type keyRef struct {
	key  string
	hash uint32
}

// rowClose is the close index of one side's rows of a window or interval
// join: mem while the join is in memory, sp once it has spilled.
type rowClose struct {
	mem closeIndex[jref]
	sp  nameHeap
}

// nameHeap is the close index of a spilled side: a min-heap of named
// rows by value, one flat entry per row (a closeIndex keeps a slice per
// distinct value, and the rows of an interval join's side mostly have
// distinct times: q7's bids), so it holds each open row in about 32
// bytes plus its join key. Entries popped during a Step are kept until
// commit so that rollback can put them back.
type nameHeap struct {
	h    []named
	undo []named
}

// named is a row's name filed under its value.
type named struct {
	v   int64
	ref keyRef
}

// add files ref under v.
func (x *nameHeap) add(v int64, ref keyRef) {
	x.h = append(x.h, named{v, ref})
	for i := len(x.h) - 1; i > 0; {
		p := (i - 1) / 2
		if x.h[p].v <= x.h[i].v {
			break
		}
		x.h[p], x.h[i] = x.h[i], x.h[p]
		i = p
	}
}

// popBelow removes every entry whose value is below wm, in value order,
// calling fn with each.
func (x *nameHeap) popBelow(wm int64, fn func(keyRef)) {
	for len(x.h) > 0 && x.h[0].v < wm {
		top := x.h[0]
		last := len(x.h) - 1
		x.h[0] = x.h[last]
		x.h[last] = named{}
		x.h = x.h[:last]
		x.down()
		x.undo = append(x.undo, top)
		fn(top.ref)
	}
}

// down restores the heap order from the root.
func (x *nameHeap) down() {
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(x.h) {
			return
		}
		if c+1 < len(x.h) && x.h[c+1].v < x.h[c].v {
			c++
		}
		if x.h[i].v <= x.h[c].v {
			return
		}
		x.h[i], x.h[c] = x.h[c], x.h[i]
		i = c
	}
}

func (x *nameHeap) commit() { x.undo = x.undo[:0] }

// rollback puts back the entries popped during the pending Step.
func (x *nameHeap) rollback() {
	for _, e := range x.undo {
		x.add(e.v, e.ref)
	}
	x.commit()
}

// rowValue computes the value under which a row of a side is filed (and
// below which it is freed); false when it has none (NULL).
type rowValue func(row repr.Row) (int64, bool)

// add files arranged row r of side of o under v.
func (x *rowClose) add(o *joinOp, side int, v int64, r *jrow) {
	if !o.spilled(side) {
		x.mem.add(v, refOf(r))
		return
	}
	x.sp.add(v, keyRef{r.b.key, r.hash}) // spilled sides bucket every row (nulls too)
}

// close frees the rows of side of o filed below thr (their value per
// val, which a spilled join recomputes), logging their deletion.
func (x *rowClose) close(s *stepCtx, o *joinOp, side int, thr int64, val rowValue) error {
	var err error
	if !o.spilled(side) {
		x.mem.popBelow(thr, func(ref jref) {
			if ref.live() && err == nil {
				err = o.free(s, side, ref.r)
			}
		})
		return err
	}
	x.sp.popBelow(thr, func(ref keyRef) {
		if err == nil {
			err = o.closeRef(s, side, ref, thr, val)
		}
	})
	return err
}

// closeRef makes side's rows of ref's join key resident in spilled join
// o and frees those named by ref whose value is below thr.
func (o *joinOp) closeRef(s *stepCtx, side int, ref keyRef, thr int64, val rowValue) error {
	o.cbuf = append(o.cbuf[:0], ref.key...)
	if err := o.useSide(side, o.cbuf, false); err != nil {
		return err
	}
	js := &o.sides[side]
	for r := js.head(ref.hash); r != nil; {
		next := js.following(r)
		if r.b != nil && r.b.key == ref.key {
			if err := o.closeRow(s, side, r, thr, val); err != nil {
				return err
			}
		}
		r = next
	}
	return nil
}

// closeRow frees arranged row r of side of spilled join o if its value
// is below thr, marking its side key dirty.
func (o *joinOp) closeRow(s *stepCtx, side int, r *jrow, thr int64, val rowValue) error {
	row, err := o.decodeScratch(side, r)
	if err != nil {
		return err
	}
	if v, ok := val(row); !ok || v >= thr {
		return nil
	}
	o.sp.tbuf = append(append(o.sp.tbuf[:0], o.tag(side)), r.b.key...)
	o.sp.touch(o.sp.tbuf, true)
	return o.free(s, side, r)
}

// named returns the entries of x.mem, an index of side of o, as names
// (o is about to drop its arrangements), without the rows no longer
// arranged.
func (x *rowClose) named(o *joinOp, side int) (nameHeap, error) {
	var sp nameHeap
	for v, refs := range x.mem.items {
		for _, ref := range refs {
			if !ref.live() {
				continue
			}
			row, err := o.decodeScratch(side, ref.r)
			if err != nil {
				return sp, err
			}
			o.kbuf = repr.AppendColsKey(o.kbuf[:0], row, o.sides[side].keyCols)
			sp.add(v, keyRef{string(o.kbuf), ref.r.hash})
		}
	}
	return sp, nil
}

func (x *rowClose) commit() {
	x.mem.commit()
	x.sp.commit()
}

func (x *rowClose) rollback() {
	x.mem.rollback()
	x.sp.rollback()
}

// len is the number of rows x files (counting a row again if filed
// again).
func (x *rowClose) len() int {
	n := len(x.sp.h)
	for _, refs := range x.mem.items {
		n += len(refs)
	}
	return n
}

// eachStored calls fn with every row of side that spilled join o holds
// in the store, and its name: the rows a restore that stopped to spill
// did not arrange, which its close index must still file.
func (o *joinOp) eachStored(side int, fn func(row repr.Row, ref keyRef) error) error {
	return o.sp.scanKey(o.tag(side), nil, func(k, v []byte) error {
		row, _, _, err := o.decodeLogged(side, v)
		if err != nil {
			return err
		}
		o.kbuf = repr.AppendColsKey(o.kbuf[:0], row, o.sides[side].keyCols)
		if len(k) < 1+len(o.kbuf) {
			return errCorrupt
		}
		return fn(row, keyRef{string(o.kbuf), joinHash(k[1+len(o.kbuf):])})
	})
}

// spillIndexed spills o, keeping its small side (smallSide) in memory,
// and turns the close indexes of the other sides (idx[i] indexes side
// sides[i]) into names; false, doing nothing, when o cannot spill.
func (o *joinOp) spillIndexed(r StateReader, prefix []byte, cache int64, idx []*rowClose, sides []int) bool {
	if !o.canSpill() {
		return false
	}
	keep := o.smallSide()
	named := make([]nameHeap, len(idx))
	for i, x := range idx {
		if keep[sides[i]] {
			continue
		}
		var err error
		if named[i], err = x.named(o, sides[i]); err != nil {
			return false // a row that does not decode: stay in memory
		}
	}
	for i, x := range idx {
		if !keep[sides[i]] {
			x.mem, x.sp = closeIndex[jref]{}, named[i]
		}
	}
	return o.spill(r, prefix, cache, keep)
}

// smallSide returns the side of o to keep in memory when it spills: one
// with at most an eighth of the other side's rows, if any; none during a
// restore (which arranged only some rows).
func (o *joinOp) smallSide() (keep [2]bool) {
	if o.restoring {
		return keep
	}
	l, r := o.sides[0].live, o.sides[1].live
	keep[0] = r > 0 && l*8 <= r
	keep[1] = l > 0 && r*8 <= l
	return keep
}
