package expr

import "github.com/eddydb/eddy/repr"

// The hypothetical-set aggregates rank, dense_rank, percent_rank and
// cume_dist (args) WITHIN GROUP (ORDER BY cols) rank a hypothetical row,
// args, among the group's rows sorted by cols, as the window function of
// the same name would rank it had it been inserted (PostgreSQL's
// hypothetical_rank_common). The planner passes each row as the record
// ROW(cols..., args...) (never NULL, so that rows whose ORDER BY values
// are NULL count, as in PostgreSQL; a FILTER passes NULL instead), and the
// multiset keeps the records in ORDER BY order, one entry per distinct
// row with its count. The result scans the entries before and peer to
// the hypothetical row: O(distinct rows) per touched group.

// hypoCounts counts the group's rows sorting before the hypothetical row
// (before), the distinct ORDER BY rows among them (distinct), its peers
// (peers) and all rows (total).
func hypoCounts(c *AggCall, vs AggValues) (before, distinct, peers, total int64) {
	var prev repr.Row
	vs.Ascend(func(v, _ repr.Datum, n int64) bool {
		fields, _ := v.Record()
		k := len(fields) / 2
		total += n
		switch rel := compareSorted(fields[:k], fields[k:], c.Order); {
		case rel < 0:
			before += n
			if prev == nil || compareSorted(prev, fields[:k], c.Order) != 0 {
				distinct++
			}
			prev = fields[:k]
		case rel == 0:
			peers += n
		}
		return true
	})
	return before, distinct, peers, total
}

// compareSorted compares rows a and b under ORDER BY dirs (one per
// column, by position): -1 when a sorts first.
func compareSorted(a, b repr.Row, dirs []SortCol) int {
	for i := range a {
		if c := compareDir(a[i], b[i], dirs[i]); c != 0 {
			return c
		}
	}
	return 0
}

// compareDir compares two values in the direction and NULLs placement d.
func compareDir(a, b repr.Datum, d SortCol) int {
	an, bn := a.IsNull(), b.IsNull()
	switch {
	case an && bn:
		return 0
	case an != bn:
		if an == d.NullsFirst {
			return -1
		}
		return 1
	}
	c := repr.Compare(a, b)
	if d.Desc {
		return -c
	}
	return c
}

// finalHypoRank is 1 + the rows before the hypothetical row.
func finalHypoRank(c *AggCall, _ *Acc, vs AggValues) (repr.Datum, error) {
	before, _, _, _ := hypoCounts(c, vs)
	return repr.NewInt(before + 1), nil
}

// finalHypoDenseRank is 1 + the distinct rows before the hypothetical row.
func finalHypoDenseRank(c *AggCall, _ *Acc, vs AggValues) (repr.Datum, error) {
	_, distinct, _, _ := hypoCounts(c, vs)
	return repr.NewInt(distinct + 1), nil
}

// finalHypoPercentRank is (rank − 1) / rows, 0 over no rows.
func finalHypoPercentRank(c *AggCall, _ *Acc, vs AggValues) (repr.Datum, error) {
	before, _, _, total := hypoCounts(c, vs)
	if total == 0 {
		return repr.NewFloat(0), nil
	}
	return repr.NewFloat(float64(before) / float64(total)), nil
}

// finalHypoCumeDist is (rows before or peer to the hypothetical row + 1)
// / (rows + 1): the hypothetical row counts among the rows.
func finalHypoCumeDist(c *AggCall, _ *Acc, vs AggValues) (repr.Datum, error) {
	before, _, peers, total := hypoCounts(c, vs)
	return repr.NewFloat(float64(before+peers+1) / float64(total+1)), nil
}
