package exec

import "bytes"

// deadKeys is the set of a spilled join's stored rows that closing
// deleted unread since the last checkpoint (joinSpill.dead): their state
// keys (tag, join key, row key), end to end in one slab, in sorted runs.
// A close adds its keys in key order (closeStored's range scans), so a
// run lasts as long as keys come in ascending order and a Step adds one
// run or a few; a lookup binary-searches each run. Against a map of
// strings it costs no allocation and no hashing per key (a q7 close
// adds 64K keys per Step, and looks up only the few whose hash a name
// has), and a rollback truncates it.
//
// Invariant: ends is ascending; runs[i] is the index in ends of run i's
// first key, runs is ascending, and the keys of each run ascend
// strictly.
type deadKeys struct {
	buf  []byte
	ends []int
	runs []int
}

// len is the number of keys in d.
func (d *deadKeys) len() int { return len(d.ends) }

// key returns d's i-th key.
func (d *deadKeys) key(i int) []byte {
	start := 0
	if i > 0 {
		start = d.ends[i-1]
	}
	return d.buf[start:d.ends[i]]
}

// add adds k, starting a new run unless k follows the last key.
func (d *deadKeys) add(k []byte) {
	if n := len(d.ends); n == 0 || bytes.Compare(k, d.key(n-1)) <= 0 {
		d.runs = append(d.runs, n)
	}
	d.buf = append(d.buf, k...)
	d.ends = append(d.ends, len(d.buf))
}

// has reports whether k is in d.
func (d *deadKeys) has(k []byte) bool {
	for r, lo := range d.runs {
		hi := len(d.ends)
		if r+1 < len(d.runs) {
			hi = d.runs[r+1]
		}
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			switch c := bytes.Compare(d.key(m), k); {
			case c == 0:
				return true
			case c < 0:
				lo = m + 1
			default:
				hi = m
			}
		}
	}
	return false
}

// truncate drops every key added after the first n.
func (d *deadKeys) truncate(n int) {
	if n >= len(d.ends) {
		return
	}
	for len(d.runs) > 0 && d.runs[len(d.runs)-1] >= n {
		d.runs = d.runs[:len(d.runs)-1]
	}
	d.ends = d.ends[:n]
	d.buf = d.buf[:0]
	if n > 0 {
		d.buf = d.buf[:d.ends[n-1]]
	}
}

// reset empties d, dropping its buffers after a burst (reuse).
func (d *deadKeys) reset() {
	d.buf, d.ends, d.runs = reuse(d.buf), reuse(d.ends), reuse(d.runs)
}
