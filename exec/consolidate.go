package exec

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/eddydb/eddy/repr"
)

// Consolidate sorts updates by (row, time), sums the diffs of equal (row,
// time) pairs and drops those summing to zero. Rows are equal when their
// repr.AppendRowKey encodings are and they are identical (the same scale
// of every numeric: see identical), and sort in the order of those
// encodings. The input slice is not modified.
func Consolidate(us []repr.Update) []repr.Update {
	switch {
	case len(us) == 0:
		return nil
	case len(us) == 1 && us[0].Diff == 0:
		return nil
	case len(us) == 1: // a point read's answer: no key to encode, nothing to sort
		return []repr.Update{us[0]}
	}
	// item is pointer-free (offsets into buf, an index into us), so the
	// sort moves no pointers (no write barriers) and the GC never scans it.
	type item struct {
		k0, k1, i int32
	}
	first := repr.AppendRowKey(nil, us[0].Row)
	buf := make([]byte, 0, (len(first)+8)*len(us))
	items := make([]item, len(us))
	for i := range us {
		k0 := len(buf)
		buf = repr.AppendRowKey(buf, us[i].Row)
		items[i] = item{int32(k0), int32(len(buf)), int32(i)}
	}
	key := func(it item) []byte { return buf[it.k0:it.k1] }
	slices.SortFunc(items, func(a, b item) int {
		if c := bytes.Compare(key(a), key(b)); c != 0 {
			return c
		}
		return cmp.Compare(us[a.i].Time, us[b.i].Time)
	})
	out := make([]repr.Update, 0, len(us))
	for i := 0; i < len(items); {
		u := &us[items[i].i]
		j := i
		for j < len(items) && us[items[j].i].Time == u.Time && bytes.Equal(key(items[j]), key(items[i])) {
			j++
		}
		out = appendSummed(out, us, items[i:j], func(it item) int32 { return it.i })
		i = j
	}
	return out
}

// appendSummed appends the sums of a run of updates at one time whose rows
// have equal keys. Rows with equal keys may still differ in how they print
// (1.0 and 1.00): those are summed apart, so that an aggregate re-emitted
// at a new scale (-1.43 as -1.4300) is not cancelled by its retraction.
// The common run, of identical rows, allocates nothing.
func appendSummed[I any](out []repr.Update, us []repr.Update, run []I, idx func(I) int32) []repr.Update {
	first, total, same := &us[idx(run[0])], int64(0), true
	for _, it := range run {
		u := &us[idx(it)]
		total += u.Diff
		same = same && (len(run) == 1 || identicalRows(first.Row, u.Row))
	}
	if same {
		if total != 0 {
			out = append(out, repr.Update{Row: first.Row, Time: first.Time, Diff: total})
		}
		return out
	}
	type sum struct {
		u    *repr.Update
		diff int64
	}
	sums := []sum{{u: &us[idx(run[0])]}}
	for _, it := range run {
		u := &us[idx(it)]
		k := 0
		for k < len(sums) && !identicalRows(sums[k].u.Row, u.Row) {
			k++
		}
		if k == len(sums) {
			sums = append(sums, sum{u: u})
		}
		sums[k].diff += u.Diff
	}
	// Retractions first, so that a keyed collection applying the run in
	// order replaces 1.0 by 1.00 instead of seeing a duplicate key.
	for _, neg := range []bool{true, false} {
		for _, s := range sums {
			if s.diff != 0 && (s.diff < 0) == neg {
				out = append(out, repr.Update{Row: s.u.Row, Time: s.u.Time, Diff: s.diff})
			}
		}
	}
	return out
}
