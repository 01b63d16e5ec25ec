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
	type item struct {
		key []byte
		u   *Update
	}
	var buf []byte
	items := make([]item, len(us))
	offs := make([]int, len(us)+1)
	for i := range us {
		buf = types.AppendRowKey(buf, us[i].Row)
		offs[i+1] = len(buf)
	}
	for i := range us {
		items[i] = item{buf[offs[i]:offs[i+1]], &us[i]}
	}
	slices.SortFunc(items, func(a, b item) int {
		if c := bytes.Compare(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(a.u.Time, b.u.Time)
	})
	out := make([]Update, 0, len(us))
	for i := 0; i < len(items); {
		j, sum := i, int64(0)
		for ; j < len(items) && bytes.Equal(items[j].key, items[i].key) && items[j].u.Time == items[i].u.Time; j++ {
			sum += items[j].u.Diff
		}
		if sum != 0 {
			out = append(out, Update{Row: items[i].u.Row, Time: items[i].u.Time, Diff: sum})
		}
		i = j
	}
	return out
}
