package exec

import "github.com/eddydb/eddy/repr"

// windowTopK is a topkOp partitioned by watermarked columns (input columns
// cols, all in the partition key): a partition whose value in one of them
// is below that column's watermark can never change again, since every
// later input row (insert or retraction) has a value at or above it. On the
// Step where that becomes true the partition closes: its top set has
// already been emitted and stays, its rows are freed and their deletion is
// logged. The state is thus bounded by the open partitions (top-N per
// window). Partitions with a NULL there never close.
//
// Closing touches the partition through topkOp's own undo record, so
// Rollback reopens it.
type windowTopK struct {
	*topkOp
	cols []int
	// idx files the partitions by group key (so that a spilled TopK's
	// index does not pin evicted partitions: window_spill.go).
	idx  []closeIndex[string]
	cbuf []byte // scratch of closeKey
	// owns, when set (a shard of a sharded node: shard_keys.go), tells
	// the partition keys of this shard from the other shards'.
	owns func(key []byte) bool
}

// newWindowTopK wraps o, closing partitions on any of the input columns
// cols.
func newWindowTopK(o *topkOp, cols []int) *windowTopK {
	return &windowTopK{topkOp: o, cols: cols, idx: make([]closeIndex[string], len(cols))}
}

func (w *windowTopK) step(s *stepCtx, ins [][]repr.Update) ([]repr.Update, error) {
	out, err := w.topkOp.step(s, ins)
	if err != nil {
		return nil, err
	}
	for _, t := range w.groupsTouched {
		if !t.existed && len(t.g.rows) > 0 { // else finish deleted it
			w.index(t.g)
		}
	}
	for i, c := range w.cols {
		if wm := s.inWM[0][c]; wm != NoWatermark {
			w.idx[i].popBelow(wm, func(k string) {
				if err == nil {
					err = w.closeKey(s, k)
				}
			})
		}
	}
	return out, err
}

// closeKey closes the partition of group key k, if it has rows, making it
// resident first in a spilled TopK.
func (w *windowTopK) closeKey(s *stepCtx, k string) error {
	if w.sp != nil {
		w.cbuf = append(w.cbuf[:0], k...)
		if err := w.sp.use(w.topkOp, w.cbuf, true); err != nil {
			return err
		}
	}
	if g := w.groups[k]; g != nil && len(g.rows) > 0 {
		w.close(s, g)
	}
	return nil
}

// index files g under its values in the watermarked columns (all rows of
// a partition share them).
func (w *windowTopK) index(g *kgroup) {
	if len(g.rows) == 0 {
		return
	}
	k := string(w.groupKey(g))
	w.indexRow(k, w.row(g.rows[0]))
}

// indexRow files the partition of group key k, one of whose rows is row.
func (w *windowTopK) indexRow(k string, row repr.Row) {
	for i, c := range w.cols {
		if v, ok := wmValue(row[c]); ok {
			w.idx[i].add(v, k)
		}
	}
}

// close frees partition g and logs the deletion of its rows.
func (w *windowTopK) close(s *stepCtx, g *kgroup) {
	key := string(w.groupKey(g))
	w.touchGroup(s, g, []byte(key), true)
	for _, r := range g.rows {
		w.kbuf = w.appendLogKey(w.kbuf[:0], s.prefix, w.row(r), nil)
		s.log.del(w.kbuf)
	}
	delete(w.groups, key)
}

func (w *windowTopK) commit() {
	w.topkOp.commit()
	for i := range w.idx {
		w.idx[i].commit()
	}
}

func (w *windowTopK) rollback() {
	w.topkOp.rollback()
	for i := range w.idx {
		w.idx[i].rollback()
	}
}

// restored indexes every restored partition; a TopK spilled while
// restoring indexes the partitions of the store.
func (w *windowTopK) restored() error {
	if err := w.topkOp.restored(); err != nil {
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

// watermarkedCols returns the columns among key whose static watermark
// (st) is present.
func watermarkedCols(key []int, st []int64) []int {
	var out []int
	for _, c := range key {
		if st[c] != NoWatermark {
			out = append(out, c)
		}
	}
	return out
}
