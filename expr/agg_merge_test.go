package expr

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// TestAccMergeEqualsFold checks, for every mergeable accumulator class
// over random values and weights (retractions included), that folding
// random runs of the input apart and merging them in order gives the
// state (its persisted row) and the result of one fold of the whole
// input; and that AccFloat and AccNone refuse to merge.
func TestAccMergeEqualsFold(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	gens := []struct {
		kind  AggKind
		class AccClass
		arg   repr.T
		gen   func() repr.Datum
	}{
		{AggCount, AccCount, repr.Int4, func() repr.Datum { return repr.NewInt(rng.Int64N(9)) }},
		{AggSum, AccInt, repr.Int8, func() repr.Datum { return repr.NewInt(rng.Int64N(1<<62) - 1<<61) }},
		{AggSum, AccNumeric, repr.Numeric, func() repr.Datum {
			switch rng.IntN(12) {
			case 0:
				return repr.NewNumeric(&apd.Decimal{Form: apd.Infinite, Negative: rng.IntN(2) == 0})
			case 1:
				return repr.NewNumeric(apd.New(rng.Int64N(math.MaxInt64), -int32(rng.IntN(4))))
			}
			return repr.NewNumeric(apd.New(rng.Int64N(2001)-1000, -int32(rng.IntN(4))))
		}},
		{AggAvg, AccInterval, repr.IntervalT, func() repr.Datum {
			return repr.NewInterval(repr.Interval{Months: int32(rng.IntN(5)), Days: int32(rng.IntN(40)), Micros: rng.Int64N(1e9)})
		}},
		{AggBoolAnd, AccBool, repr.Bool, func() repr.Datum { return repr.NewBool(rng.IntN(2) == 0) }},
		{AggBitXor, AccBits, repr.Int8, func() repr.Datum { return repr.NewInt(rng.Int64() - rng.Int64()) }},
		{AggVarSamp, AccMoments, repr.Float8, func() repr.Datum {
			if rng.IntN(10) == 0 {
				return repr.NewFloat(math.NaN())
			}
			return repr.NewFloat(rng.Float64()*100 - 50)
		}},
		{AggStddevPop, AccMoments, repr.Numeric, func() repr.Datum { return repr.NewNumeric(apd.New(rng.Int64N(2001)-1000, -2)) }},
	}
	for _, g := range gens {
		if !g.kind.Mergeable(g.arg, false) || g.kind.Def().Class(g.arg) != g.class {
			t.Fatalf("%s(%s): class %v, mergeable %t", g.kind, g.arg.Name(), g.kind.Def().Class(g.arg), g.kind.Mergeable(g.arg, false))
		}
		for iter := range 200 {
			n := rng.IntN(40)
			vals, diffs := make([]repr.Datum, n), make([]int64, n)
			var whole Acc
			for i := range n {
				vals[i], diffs[i] = g.gen(), rng.Int64N(5)-2
				whole.Add(g.class, vals[i], diffs[i])
			}
			var merged Acc
			for lo := 0; lo < n || lo == 0; {
				hi := lo + rng.IntN(n-lo+1)
				var part Acc
				for i := lo; i < hi; i++ {
					part.Add(g.class, vals[i], diffs[i])
				}
				if !merged.Merge(g.class, &part) {
					t.Fatalf("%v refused to merge", g.class)
				}
				if lo = hi; n == 0 {
					break
				}
			}
			want := string(repr.AppendRow(nil, g.class.Append(nil, &whole)))
			if got := string(repr.AppendRow(nil, g.class.Append(nil, &merged))); got != want {
				t.Fatalf("%s(%s) iter %d: merged state %x, one fold %x", g.kind, g.arg.Name(), iter, got, want)
			}
			typ, _ := g.kind.Type(g.arg)
			c := AggCall{Kind: g.kind, Arg: g.arg, T: typ, Class: g.class, Scale: 3}
			w, werr := g.kind.Def().Final(&c, &whole, nil)
			m, merr := g.kind.Def().Final(&c, &merged, nil)
			if w.String() != m.String() || (werr == nil) != (merr == nil) {
				t.Fatalf("%s(%s) iter %d: merged result %s (%v), one fold %s (%v)", g.kind, g.arg.Name(), iter, m, merr, w, werr)
			}
		}
	}
	var a, b Acc
	b.Add(AccFloat, repr.NewFloat(1.5), 1)
	if a.Merge(AccFloat, &b) || a.Merge(AccNone, &b) || a.N != 0 {
		t.Fatalf("float or none merged: %+v", a)
	}
}

// TestAggMergeable pins which aggregates have a merge.
func TestAggMergeable(t *testing.T) {
	for _, tc := range []struct {
		kind     AggKind
		arg      repr.T
		distinct bool
		want     bool
	}{
		{AggCountStar, repr.Unknown, false, true},
		{AggCount, repr.Text, true, true},
		{AggSum, repr.Int4, false, true},
		{AggSum, repr.Int4, true, true},
		{AggSum, repr.Numeric, false, true},
		{AggSum, repr.Numeric, true, false},
		{AggSum, repr.Float8, false, false},
		{AggAvg, repr.Float8, false, false},
		{AggAvg, repr.IntervalT, false, true},
		{AggMin, repr.Text, false, true},
		{AggMax, repr.Float8, true, true},
		{AggBoolOr, repr.Bool, true, true},
		{AggBitAnd, repr.Int2, false, true},
		{AggVarPop, repr.Float8, false, true},
		{AggStringAgg, repr.Text, false, false},
		{AggArrayAgg, repr.Int4, false, false},
		{AggMode, repr.Int4, false, false},
		{AggPercentileCont, repr.Float8, false, false},
	} {
		if got := tc.kind.Mergeable(tc.arg, tc.distinct); got != tc.want {
			t.Errorf("%s(%s) distinct=%t: mergeable %t, want %t", tc.kind, tc.arg.Name(), tc.distinct, got, tc.want)
		}
	}
}
