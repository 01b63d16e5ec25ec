package exec

import (
	"bytes"
	"slices"
)

// keyOrder sorts a Step's rows by a key encoding so that a join probes an
// arrangement in key order and once per distinct key: consecutive probes
// of a B-tree share most of their path down (it stays in cache), and the
// rows of one key share one lookup. It holds the keys of one batch of
// rows between reset and the end of runs.
type keyOrder struct {
	keys []byte
	refs []keyedRow
}

// keyedRow is a row of the caller's batch (its index) and its key,
// keys[lo:hi].
type keyedRow struct{ idx, lo, hi int }

// reset forgets the previous batch.
func (k *keyOrder) reset() { k.keys, k.refs = k.keys[:0], k.refs[:0] }

// add records row idx of the batch with key (copied).
func (k *keyOrder) add(idx int, key []byte) {
	lo := len(k.keys)
	k.keys = append(k.keys, key...)
	k.refs = append(k.refs, keyedRow{idx: idx, lo: lo, hi: len(k.keys)})
}

// key returns r's key.
func (k *keyOrder) key(r keyedRow) []byte { return k.keys[r.lo:r.hi] }

// runs sorts the rows added since reset by key (stably: rows of one key
// keep the order they were added in) and calls fn once per distinct key
// with the rows that have it, in key order, until fn fails.
func (k *keyOrder) runs(fn func(key []byte, rows []keyedRow) error) error {
	slices.SortStableFunc(k.refs, func(a, b keyedRow) int { return bytes.Compare(k.key(a), k.key(b)) })
	for r := 0; r < len(k.refs); {
		e := r + 1
		for e < len(k.refs) && bytes.Equal(k.key(k.refs[e]), k.key(k.refs[r])) {
			e++
		}
		if err := fn(k.key(k.refs[r]), k.refs[r:e]); err != nil {
			return err
		}
		r = e
	}
	return nil
}
