package exec

import (
	"strings"

	"github.com/eddydb/eddy/repr"
)

// A spilled windowReduce or windowTopK is a spilled Reduce or TopK
// (reduce_spill.go, topk_spill.go) that keeps its close index resident:
// per watermarked key column, the distinct values, each with the keys of
// the groups (partitions) filed under it. Its entries are copies of the
// keys, not pointers to groups, so the index holds no group state: a
// closing window makes resident only the groups it closes (the index
// hands their keys, residency.use loads them), closes them as in memory
// (logging their deletion) and leaves them resident, absent, until the
// checkpoint has deleted them from the store. Groups a Step touches are
// made resident first, as in every spilled Reduce or TopK.
//
// The index is rebuilt on restore: from the restored groups when they all
// fit, otherwise (the operator spilled while restoring, RestoreWithin)
// from one scan of the store's group records (not the multiset entries),
// keeping their keys only. So the state in memory is the index, a few
// tens of bytes per open group, plus the cache of resident groups.

// closeCold closes the group of key encoding k, which is not resident,
// in a spilled Reduce that emits nothing on close: the group is stored or
// was freed, and either way closing it only deletes its stored record and
// multiset entries (one range deletion), which needs no read. The key
// becomes resident, absent, until the checkpoint has deleted it; a
// rollback forgets it again (the store then still holds the group).
func (w *windowReduce) closeCold(s *stepCtx, k string) {
	w.kbuf = append(append(append(w.kbuf[:0], s.prefix...), tagGroup), k...)
	s.log.del(w.kbuf)
	if w.arena.sets > 0 {
		w.kbuf = append(append(append(w.kbuf[:0], s.prefix...), tagEntry), k...)
		s.log.delPrefix(w.kbuf)
	}
	w.cbuf = append(w.cbuf[:0], k...)
	w.sp.markAbsent(w.cbuf)
	w.cold = append(w.cold, k)
}

// spillTo is the Reduce's, then makes the close index hold copies of the
// group keys (shared by the indexes of several columns) rather than
// slices of the dropped groups' encodings.
func (w *windowReduce) spillTo(r StateReader, prefix []byte, cache int64) bool {
	if !w.reduceOp.spillTo(r, prefix, cache) {
		return false
	}
	copies := make(map[string]string)
	for i := range w.idx {
		w.idx[i].replace(func(k string) string {
			c, ok := copies[k]
			if !ok {
				c = strings.Clone(k)
				copies[c] = c
			}
			return c
		})
	}
	return true
}

// indexStored files every group of the store in the close index, decoding
// its key columns from its record (they lead the logged row).
func (w *windowReduce) indexStored() error {
	nk := len(w.spec.Key)
	return w.sp.scanKey(tagGroup, nil, func(rel, v []byte) error {
		r, err := repr.DecodeRow(v)
		if err != nil || len(r) < nk || len(rel) < 2 {
			return errCorrupt
		}
		if w.owns != nil {
			k := rel[1:]
			if w.refine != nil { // the shards are partitioned by part of the key
				if k, err = w.refine.fromGroupKey(k); err != nil {
					return err
				}
			}
			if !w.owns(k) {
				return nil
			}
		}
		w.file(string(rel[1:]), r[:nk])
		return nil
	})
}

// indexStored files every partition of the store in the close index: its
// rows are logged under {tagKGroup} group-key, so consecutive rows with
// the same group key are one partition.
func (w *windowTopK) indexStored() error {
	var last string
	return w.sp.scanKey(tagKGroup, nil, func(_, v []byte) error {
		r, err := repr.DecodeRow(v)
		if err != nil || len(r) != w.ncols+1 {
			return errCorrupt
		}
		w.kbuf = repr.AppendColsKey(w.kbuf[:0], r[1:], w.spec.Key)
		if w.owns != nil && !w.owns(w.kbuf) {
			return nil
		}
		if string(w.kbuf) != last {
			last = string(w.kbuf)
			w.indexRow(last, r[1:])
		}
		return nil
	})
}

// replace replaces every item of x by fn of it; there must be no pending
// Step.
func (x *closeIndex[T]) replace(fn func(T) T) {
	for _, b := range x.items {
		for i := range b {
			b[i] = fn(b[i])
		}
	}
}
