package rules

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// TestUnwrapCastCompare evaluates each comparison of a widened column
// with a constant before and after unwrapCastCompare, over values around
// the constant, infinities and NULL, and checks that they agree; it also
// checks that the rewrite happened where it should.
func TestUnwrapCastCompare(t *testing.T) {
	const usPerDay = 86400 * 1000000
	seed := uint64(1)
	r := rand.New(rand.NewPCG(seed, 2))
	ctx := &expr.Ctx{}
	dates := []repr.Datum{repr.Null, repr.NewDate(repr.DateNegInf), repr.NewDate(repr.DatePosInf)}
	var stamps []repr.Datum
	for _, day := range []int64{-800000, -1, 0, 1, 9000, 2000000} {
		for _, us := range []int64{0, 1, usPerDay / 2, usPerDay - 1} {
			stamps = append(stamps, repr.NewTimestamp(day*usPerDay+us))
		}
		for k := day - 2; k <= day+2; k++ {
			dates = append(dates, repr.NewDate(int32(k)))
		}
	}
	stamps = append(stamps, repr.NewTimestamp(math.MinInt64), repr.NewTimestamp(math.MaxInt64))
	for range 200 {
		dates = append(dates, repr.NewDate(int32(r.IntN(4000000)-2000000)))
	}
	ints := []repr.Datum{repr.Null, repr.NewInt(math.MinInt32), repr.NewInt(math.MaxInt32), repr.NewInt(-1), repr.NewInt(0), repr.NewInt(7)}
	bigs := []repr.Datum{repr.NewInt(math.MinInt32 - 1), repr.NewInt(math.MinInt32), repr.NewInt(0), repr.NewInt(7), repr.NewInt(math.MaxInt32), repr.NewInt(math.MaxInt32 + 1)}
	rewrote := 0
	for op := range mirrorOp {
		for _, c := range []struct {
			col, to  repr.T
			xs, lits []repr.Datum
		}{{repr.Date, repr.Timestamp, dates, stamps}, {repr.Int4, repr.Int8, ints, bigs}} {
			fn, _, err := expr.ResolveOp(op, []repr.T{c.to, c.to})
			if err != nil {
				t.Fatal(err)
			}
			for _, lit := range c.lits {
				cast := &expr.Cast{Arg: &expr.Col{Idx: 0, T: c.col}, To: c.to}
				l := &expr.Lit{D: lit, T: c.to}
				for _, args := range [][]expr.Expr{{cast, l}, {l, cast}} {
					before := &expr.Call{Fn: fn, Args: args}
					after := unwrapCastCompare(before)
					if after != expr.Expr(before) {
						rewrote++
					}
					for _, x := range c.xs {
						want, werr := before.Eval(ctx, repr.Row{x})
						got, gerr := after.Eval(ctx, repr.Row{x})
						if werr != nil {
							continue // the cast failed: a date past 294276 AD (documented)
						}
						if gerr != nil || repr.Compare(got, want) != 0 || got.IsNull() != want.IsNull() {
							t.Fatalf("seed %d: %s at %v: %s gives %v (%v), want %v", seed, before, x, after, got, gerr, want)
						}
					}
				}
			}
		}
	}
	if rewrote == 0 {
		t.Fatal("nothing was rewritten")
	}
}
