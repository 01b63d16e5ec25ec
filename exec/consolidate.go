package exec

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/eddydb/eddy/sql/types"
)

// Consolidate sorts updates by (row, time), sums the diffs of equal (row,
// time) pairs and drops those summing to zero. Rows are equal when their
// types.AppendRowKey encodings are, and sort in the order of those
// encodings. The input slice is not modified.
func Consolidate(us []Update) []Update {
	if len(us) == 0 {
		return nil
	}
	// item is pointer-free (offsets into buf, an index into us), so the
	// sort moves no pointers (no write barriers) and the GC never scans it.
	type item struct {
		k0, k1, i int32
	}
	first := types.AppendRowKey(nil, us[0].Row)
	buf := make([]byte, 0, (len(first)+8)*len(us))
	items := make([]item, len(us))
	for i := range us {
		k0 := len(buf)
		buf = types.AppendRowKey(buf, us[i].Row)
		items[i] = item{int32(k0), int32(len(buf)), int32(i)}
	}
	key := func(it item) []byte { return buf[it.k0:it.k1] }
	slices.SortFunc(items, func(a, b item) int {
		if c := bytes.Compare(key(a), key(b)); c != 0 {
			return c
		}
		return cmp.Compare(us[a.i].Time, us[b.i].Time)
	})
	out := make([]Update, 0, len(us))
	for i := 0; i < len(items); {
		u := &us[items[i].i]
		j, sum := i, int64(0)
		for ; j < len(items) && us[items[j].i].Time == u.Time && bytes.Equal(key(items[j]), key(items[i])); j++ {
			sum += us[items[j].i].Diff
		}
		if sum != 0 {
			out = append(out, Update{Row: u.Row, Time: u.Time, Diff: sum})
		}
		i = j
	}
	return out
}
