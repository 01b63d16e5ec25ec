package expr

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// Merging partial aggregate states. A global aggregate run on several
// workers (exec's two-phase Reduce) folds disjoint runs of its input into
// partial states, one per worker, then merges them in run order into its
// one group. A merge must be exact: the merged state gives the result,
// byte for byte, that one fold of the whole input in order gives, so that
// a view's contents do not depend on the worker count.

// Mergeable reports whether k over an argument of type arg (DISTINCT or
// not) has an exact merge:
//   - the scalar accumulators but AccFloat (Acc.Merge): counts, integer,
//     numeric and interval sums and averages, bool_and/or, bit_and/or/xor,
//     the variances (exact decimal sums). A float sum is not: Neumaier's
//     sum of the runs' sums rounds differently from the sum in order;
//   - min and max: their state is a count multiset of values, and count
//     multisets merge entry by entry (exec replays each run's consolidated
//     entries);
//   - a DISTINCT one, whose runs' distinct values are replayed into the
//     group's value multiset, only when the value it adds is the same for
//     every value of one key: a count, or an integer or bool argument (a
//     numeric 1.0 and 1.00 share a key but not a display scale).
//
// The ordered aggregates (string_agg, array_agg, the JSON aggregates) and
// the ordered-set ones have none: their result scans the whole multiset
// on every Step, which a merge would not shorten.
func (k AggKind) Mergeable(arg repr.T, distinct bool) bool {
	d := k.Def()
	if d.Multiset {
		return d.Extremum != 0
	}
	c := d.Class(arg)
	if !c.Mergeable() {
		return false
	}
	return !distinct || c == AccCount || arg.Family == repr.FamInt || arg.Family == repr.FamBool
}

// Mergeable reports whether Acc.Merge merges c's accumulators exactly:
// every class with an accumulator but AccFloat.
func (c AccClass) Mergeable() bool { return c != AccNone && c != AccFloat }

// Merge adds the partial accumulator b (of class c, folded from other
// input rows) to a, as if a had folded b's rows after its own, and
// reports whether c is Mergeable (if not, a is unchanged). b is not
// changed, and a shares none of b's parts that a later change could
// mutate (decimals are never mutated in place; bits are copied).
func (a *Acc) Merge(c AccClass, b *Acc) bool {
	if !c.Mergeable() {
		return false
	}
	a.N += b.N
	a.nan, a.pinf, a.ninf = a.nan+b.nan, a.pinf+b.pinf, a.ninf+b.ninf
	switch c {
	case AccInt:
		a.mergeInt(b)
	case AccNumeric:
		if d := b.numericDec(); d != nil {
			a.addNumeric(d, 1)
		}
	case AccInterval:
		a.i, a.day, a.us = a.i+b.i, a.day+b.day, a.us+b.us
	case AccBool:
		a.i += b.i
	case AccMoments:
		if b.dec != nil {
			a.dec = addScaled(a.dec, b.dec, 1)
		}
		if b.sq != nil {
			a.sq = addScaled(a.sq, b.sq, 1)
		}
	case AccBits:
		a.mergeBits(b)
	case AccBitString:
		a.i, a.day = a.i+b.i, a.day+b.day
		a.mergeBits(b)
	}
	return true
}

// mergeInt adds b's integer sum to a's, held as addInt holds it: a
// decimal exactly when it does not fit in an int64.
func (a *Acc) mergeInt(b *Acc) {
	if b.dec == nil {
		a.addInt(b.i, 1)
		return
	}
	if a.dec == nil {
		a.dec = apd.New(a.i, 0)
	}
	a.dec = addScaled(a.dec, b.dec, 1)
	a.normInt()
}

// mergeBits adds b's per-bit counts to a copy of a's.
func (a *Acc) mergeBits(b *Acc) {
	if b.bits == nil {
		return
	}
	var sum [64]int64
	if a.bits != nil {
		sum = *a.bits
	}
	for i, n := range b.bits {
		sum[i] += n
	}
	a.bits = &sum
}
