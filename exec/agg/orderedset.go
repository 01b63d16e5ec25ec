package agg

import (
	"math"

	"github.com/eddydb/eddy/sql/pgerr"
	"github.com/eddydb/eddy/sql/types"
)

// The ordered-set aggregates read the group's value multiset in the
// WITHIN GROUP order: their result costs a scan of its distinct values
// (O(distinct values) per touched group and Step); their state is the
// multiset, which min and max keep too.

// finalMode is the most frequent value, the first in sort order among
// equally frequent ones (as PostgreSQL's mode_final, which keeps the first
// value of the longest run of its sorted input).
func finalMode(_ *Call, _ *Acc, vs Values) (types.Datum, error) {
	best, bestN := types.Null, int64(0)
	vs.Ascend(func(v, _ types.Datum, n int64) bool {
		if n > bestN {
			best, bestN = v, n
		}
		return true
	})
	return best, nil
}

// errPercentile is PostgreSQL's error for a fraction outside [0, 1].
func errPercentile(f float64) error {
	return pgerr.New("22003", "percentile value %g is not between 0 and 1", f)
}

// count returns the number of live values.
func count(vs Values) int64 {
	var total int64
	vs.Ascend(func(_, _ types.Datum, n int64) bool { total += n; return true })
	return total
}

// nth returns the values at 0-based positions i and j (i <= j) in order.
func nth(vs Values, i, j int64) (vi, vj types.Datum) {
	var pos int64
	vs.Ascend(func(v, _ types.Datum, n int64) bool {
		if pos <= i && i < pos+n {
			vi = v
		}
		if pos <= j && j < pos+n {
			vj = v
			return false
		}
		pos += n
		return true
	})
	return vi, vj
}

// finalPercentileDisc is the first value whose position in sort order
// (1-based) reaches Frac·n: PostgreSQL's percentile_disc_final.
func finalPercentileDisc(c *Call, _ *Acc, vs Values) (types.Datum, error) {
	if c.Frac < 0 || c.Frac > 1 || math.IsNaN(c.Frac) {
		return types.Null, errPercentile(c.Frac)
	}
	n := count(vs)
	if n == 0 {
		return types.Null, nil
	}
	row := max(int64(math.Ceil(c.Frac*float64(n))), 1)
	v, _ := nth(vs, row-1, row-1)
	return v, nil
}

// finalPercentileCont interpolates linearly between the values at the
// positions around Frac·(n−1): PostgreSQL's percentile_cont_final.
func finalPercentileCont(c *Call, _ *Acc, vs Values) (types.Datum, error) {
	if c.Frac < 0 || c.Frac > 1 || math.IsNaN(c.Frac) {
		return types.Null, errPercentile(c.Frac)
	}
	n := count(vs)
	if n == 0 {
		return types.Null, nil
	}
	pos := c.Frac * float64(n-1)
	lo, hi := math.Floor(pos), math.Ceil(pos)
	a, b := nth(vs, int64(lo), int64(hi))
	if c.T.Family == types.FamInterval {
		return intervalLerp(a.Interval(), b.Interval(), pos-lo)
	}
	x, y := toFloat(a), toFloat(b)
	if lo == hi {
		return types.NewFloat(x), nil
	}
	return types.NewFloat(x + (y-x)*(pos-lo)), nil
}

// toFloat converts a number to double precision (PostgreSQL casts
// percentile_cont's sort value).
func toFloat(d types.Datum) float64 {
	switch d.Family() {
	case types.FamInt:
		return float64(d.Int())
	case types.FamNumeric:
		f, err := d.Numeric().Float64()
		if err != nil {
			return math.NaN()
		}
		return f
	}
	return d.Float()
}

// intervalLerp is lo + (hi − lo)·p, field by field as PostgreSQL's
// interval_mi, interval_mul and interval_pl compute it.
func intervalLerp(lo, hi types.Interval, p float64) (types.Datum, error) {
	if p == 0 {
		return types.NewInterval(lo), nil
	}
	d, err := intervalDiv(int64(hi.Months-lo.Months), int64(hi.Days-lo.Days), hi.Micros-lo.Micros, 1/p)
	if err != nil {
		return types.Null, err
	}
	iv := d.Interval()
	return intervalDatum(int64(lo.Months)+int64(iv.Months), int64(lo.Days)+int64(iv.Days), lo.Micros+iv.Micros)
}
