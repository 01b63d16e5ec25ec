package expr

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// TestSpecializeEqualsCall checks that every specialized shape gives the
// generic call's value and error on values that include NULLs,
// infinities and overflows, and that the shapes are in fact specialized.
func TestSpecializeEqualsCall(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	edges := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MaxInt64 - 5, math.MinInt64 + 5, 86_400_000_000}
	value := func(ty repr.T) repr.Datum {
		if rng.IntN(8) == 0 {
			return repr.Null
		}
		v := rng.Int64N(1<<40) - 1<<39
		if rng.IntN(3) == 0 {
			v = edges[rng.IntN(len(edges))]
		}
		switch ty.Family {
		case repr.FamTimestamp:
			return repr.NewTimestamp(v)
		case repr.FamTimestampTZ:
			return repr.NewTimestampTZ(v)
		case repr.FamDate:
			return repr.NewDate(int32(v))
		}
		return repr.NewInt(v >> (64 - ty.Width))
	}
	ivs := []repr.Interval{{Micros: 10_000_000}, {Micros: -2_000_000}, {Micros: math.MaxInt64}, {Micros: math.MinInt64}, {Micros: 0}, {Days: 1}, {Months: 1, Micros: 5}}
	type shape struct {
		op    string
		types []repr.T
		lit   bool // second argument a literal interval
	}
	var shapes []shape
	for _, ts := range []repr.T{repr.Timestamp, repr.TimestampTZ} {
		shapes = append(shapes, shape{"+", []repr.T{ts, repr.IntervalT}, true}, shape{"-", []repr.T{ts, repr.IntervalT}, true})
	}
	for _, ty := range []repr.T{repr.Int2, repr.Int4, repr.Int8, repr.Date, repr.Timestamp, repr.TimestampTZ} {
		for _, op := range []string{"=", "<>", "<", "<=", ">", ">="} {
			shapes = append(shapes, shape{op, []repr.T{ty, ty}, false})
		}
	}
	ctx := &Ctx{TimeZone: "America/New_York"}
	for _, sh := range shapes {
		fn, _, err := ResolveOp(sh.op, sh.types)
		if err != nil {
			t.Fatal(err)
		}
		for _, iv := range ivs {
			var second Expr = &Col{Idx: 1, T: sh.types[1]}
			if sh.lit {
				second = &Lit{D: repr.NewInterval(iv), T: repr.IntervalT}
			}
			// The call nested in another, to check that arguments are specialized too.
			call := &Call{Fn: fn, Args: []Expr{&Col{Idx: 0, T: sh.types[0]}, second}}
			spec := Specialize(call)
			fast := !sh.lit || (iv.Months == 0 && iv.Days == 0 && (sh.op == "+" || iv.Micros != math.MinInt64))
			if _, generic := spec.(*Call); generic == fast {
				t.Fatalf("%s over %v with %v: specialized as %T", sh.op, sh.types, iv, spec)
			}
			if spec.String() != call.String() || spec.Type() != call.Type() {
				t.Fatalf("%s prints or types as %s %v", call, spec, spec.Type())
			}
			for range 200 {
				row := repr.Row{value(sh.types[0]), value(sh.types[1])}
				want, werr := call.Eval(ctx, row)
				got, gerr := spec.Eval(ctx, row)
				if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
					t.Fatalf("%s over %v: error %v, want %v", call, row, gerr, werr)
				}
				if werr == nil && (repr.Compare(got, want) != 0 || got.Family() != want.Family()) {
					t.Fatalf("%s over %v = %v, want %v", call, row, got, want)
				}
			}
			if !sh.lit {
				break
			}
		}
	}
}

// TestSpecializeNested checks that a call's specialized arguments are
// used and the call itself is copied, not changed.
func TestSpecializeNested(t *testing.T) {
	sub, _, _ := ResolveOp("-", []repr.T{repr.Timestamp, repr.IntervalT})
	lt, _, _ := ResolveOp("<", []repr.T{repr.Timestamp, repr.Timestamp})
	inner := &Call{Fn: sub, Args: []Expr{&Col{Idx: 0, T: repr.Timestamp}, &Lit{D: repr.NewInterval(repr.Interval{Micros: 10}), T: repr.IntervalT}}}
	outer := &Call{Fn: lt, Args: []Expr{&Col{Idx: 1, T: repr.Timestamp}, inner}}
	got := Specialize(outer)
	c, ok := got.(*cmpCall)
	if !ok {
		t.Fatalf("specialized as %T", got)
	}
	if _, ok := c.b.(*shiftCall); !ok {
		t.Fatalf("argument specialized as %T", c.b)
	}
	if outer.Args[1] != inner {
		t.Fatal("Specialize changed its input")
	}
	v, err := got.Eval(nil, repr.Row{repr.NewTimestamp(100), repr.NewTimestamp(85)})
	if err != nil || !v.Bool() {
		t.Fatalf("85 < 100-10 = %v, %v; want true", v, err)
	}
}
