package expr

import (
	"math"

	"github.com/eddydb/eddy/repr"
)

// The ordered-set aggregates read the group's value multiset in the
// WITHIN GROUP order: their result costs a scan of its distinct values
// (O(distinct values) per touched group and Step); their state is the
// multiset, which min and max keep too.

// finalMode is the most frequent value, the first in sort order among
// equally frequent ones (as PostgreSQL's mode_final, which keeps the first
// value of the longest run of its sorted input).
func finalMode(_ *AggCall, _ *Acc, vs AggValues) (repr.Datum, error) {
	best, bestN := repr.Null, int64(0)
	vs.Ascend(func(v, _ repr.Datum, n int64) bool {
		if n > bestN {
			best, bestN = v, n
		}
		return true
	})
	return best, nil
}

// errPercentile is PostgreSQL's error for a fraction outside [0, 1].
func errPercentile(f float64) error {
	return repr.Errorf("22003", "percentile value %g is not between 0 and 1", f)
}

// count returns the number of live values.
func count(vs AggValues) int64 {
	var total int64
	vs.Ascend(func(_, _ repr.Datum, n int64) bool { total += n; return true })
	return total
}

// nth returns the values at 0-based positions i and j (i <= j) in order.
func nth(vs AggValues, i, j int64) (vi, vj repr.Datum) {
	var pos int64
	vs.Ascend(func(v, _ repr.Datum, n int64) bool {
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
func finalPercentileDisc(c *AggCall, _ *Acc, vs AggValues) (repr.Datum, error) {
	return percentiles(c, vs, percentileDisc)
}

// finalPercentileCont interpolates linearly between the values at the
// positions around Frac·(n−1): PostgreSQL's percentile_cont_final.
func finalPercentileCont(c *AggCall, _ *Acc, vs AggValues) (repr.Datum, error) {
	return percentiles(c, vs, percentileCont)
}

// percentiles computes one percentile with pct over the group's n values,
// or, for an array of fractions (c.Fracs), the array of the same shape
// holding each fraction's percentile (NULL for a NULL fraction; the
// whole result NULL over no values, before any fraction is checked, as
// PostgreSQL's percentile_*_multi_final).
func percentiles(c *AggCall, vs AggValues, pct func(*AggCall, AggValues, float64, int64) (repr.Datum, error)) (repr.Datum, error) {
	n := count(vs)
	if c.Fracs.IsNull() {
		if c.Frac < 0 || c.Frac > 1 || math.IsNaN(c.Frac) {
			return repr.Null, errPercentile(c.Frac)
		}
		if n == 0 {
			return repr.Null, nil
		}
		return pct(c, vs, c.Frac, n)
	}
	if n == 0 {
		return repr.Null, nil
	}
	fracs := c.Fracs.Array()
	out := make([]repr.Datum, len(fracs))
	for i, f := range fracs {
		if f.IsNull() {
			out[i] = repr.Null
			continue
		}
		if fr := f.Float(); fr < 0 || fr > 1 || math.IsNaN(fr) {
			return repr.Null, errPercentile(fr)
		}
		v, err := pct(c, vs, f.Float(), n)
		if err != nil {
			return repr.Null, err
		}
		out[i] = v
	}
	return repr.ArrayLike(c.Fracs, out), nil
}

// percentileDisc is the value at position ceil(frac·n) (at least 1).
func percentileDisc(_ *AggCall, vs AggValues, frac float64, n int64) (repr.Datum, error) {
	row := max(int64(math.Ceil(frac*float64(n))), 1)
	v, _ := nth(vs, row-1, row-1)
	return v, nil
}

// percentileCont interpolates between the values around frac·(n−1).
func percentileCont(c *AggCall, vs AggValues, frac float64, n int64) (repr.Datum, error) {
	pos := frac * float64(n-1)
	lo, hi := math.Floor(pos), math.Ceil(pos)
	a, b := nth(vs, int64(lo), int64(hi))
	if c.Arg.Family == repr.FamInterval {
		return intervalLerp(a.Interval(), b.Interval(), pos-lo)
	}
	x, y := aggToFloat(a), aggToFloat(b)
	if lo == hi {
		return repr.NewFloat(x), nil
	}
	return repr.NewFloat(x + (y-x)*(pos-lo)), nil
}

// aggToFloat converts a number to double precision (PostgreSQL casts
// percentile_cont's sort value).
func aggToFloat(d repr.Datum) float64 {
	switch d.Family() {
	case repr.FamInt:
		return float64(d.Int())
	case repr.FamNumeric:
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
func intervalLerp(lo, hi repr.Interval, p float64) (repr.Datum, error) {
	if p == 0 {
		return repr.NewInterval(lo), nil
	}
	d, err := intervalDiv(int64(hi.Months-lo.Months), int64(hi.Days-lo.Days), hi.Micros-lo.Micros, 1/p)
	if err != nil {
		return repr.Null, err
	}
	iv := d.Interval()
	return intervalDatum(int64(lo.Months)+int64(iv.Months), int64(lo.Days)+int64(iv.Days), lo.Micros+iv.Micros)
}
