package exec

// PrefixDeleter is an optional upgrade of a StateWriter: DeletePrefix
// removes every key starting with prefix, including those set earlier in
// the same Step (later ones survive: writes apply in order), as a range
// deletion. A closing window then frees the value multisets of a group
// with one range deletion instead of one Delete per value, which was most
// of the cost of closing min/max windows. storage.PrefixedWriter
// implements it; with a writer that does not, exec logs one Delete per key.
//
// DeleteRange removes every key k with start <= k < end the same way: a
// window or interval join keyed by time (join_time.go) frees its closed
// buckets of rows with one.
type PrefixDeleter interface {
	DeletePrefix(prefix []byte)
	DeleteRange(start, end []byte)
}

// opDelPrefix marks a logged DeletePrefix (logOp.v); opDelRange a logged
// DeleteRange's start, the op after it holding its end (opRangeEnd).
const (
	opDelPrefix = -2
	opDelRange  = -3
	opRangeEnd  = -4
)

// delRange logs the deletion of every key in [start, end); only valid
// when l.ranges.
func (l *stateLog) delRange(start, end []byte) {
	if l.off {
		return
	}
	if l.direct != nil {
		l.direct.(PrefixDeleter).DeleteRange(start, end)
		return
	}
	k0 := len(l.buf)
	l.buf = append(l.buf, start...)
	k1 := len(l.buf)
	l.buf = append(l.buf, end...)
	l.ops = append(l.ops, logOp{k0, k1, opDelRange}, logOp{k1, len(l.buf), opRangeEnd})
}

// delPrefix logs the deletion of every key starting with prefix; only
// valid when l.ranges.
func (l *stateLog) delPrefix(prefix []byte) {
	if l.off {
		return
	}
	if l.direct != nil {
		l.direct.(PrefixDeleter).DeletePrefix(prefix)
		return
	}
	k0 := len(l.buf)
	l.buf = append(l.buf, prefix...)
	l.ops = append(l.ops, logOp{k0, len(l.buf), opDelPrefix})
}

// logClosed logs the deletion of the state of closed group g: its group
// key, and its multiset entries (and scale pairs, logged as entries), whose keys all start with {tagEntry}
// group-key (a group key is the key encoding of a fixed number of columns,
// so no group's key is a prefix of another's). Several entries are
// deleted with one range deletion when the writer allows it.
func (w *windowReduce) logClosed(s *stepCtx, g *group) {
	w.kbuf = append(append(append(w.kbuf[:0], s.prefix...), tagGroup), g.key()...)
	s.log.del(w.kbuf)
	entries := 0
	sets := w.sets(g)
	for _, ms := range sets {
		if ms != nil {
			entries += ms.size() + len(ms.keys)
		}
	}
	words := w.arena.wordsOf(g.id)
	for ai := range w.aggs {
		if a := &w.aggs[ai]; a.scaleSlot >= 0 && words[a.pairOff+1] != 0 {
			entries++
		}
	}
	if entries > 1 && s.log.ranges {
		w.kbuf = append(append(append(w.kbuf[:0], s.prefix...), tagEntry), g.key()...)
		s.log.delPrefix(w.kbuf)
		return
	}
	for slot, ms := range sets {
		if ms == nil {
			continue
		}
		ms.all(func(e *mentry) {
			w.kbuf = append(append(append(w.kbuf[:0], s.prefix...), tagEntry), g.key()...)
			w.kbuf = append(append(w.kbuf, byte(slot)), e.key...)
			s.log.del(w.kbuf)
		})
		for k := range ms.keys {
			w.kbuf = append(append(append(w.kbuf[:0], s.prefix...), tagEntry), g.key()...)
			w.kbuf = append(append(w.kbuf, byte(slot)), k...)
			s.log.del(w.kbuf)
		}
	}
	for ai := range w.aggs {
		if a := &w.aggs[ai]; a.scaleSlot >= 0 && words[a.pairOff+1] != 0 {
			w.scaleKey(s, g, a.scaleSlot, words[a.pairOff])
			s.log.del(w.kbuf)
		}
	}
}
