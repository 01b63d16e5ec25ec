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

// TestSpecializeRelabel checks that casts between string types are
// relabelled exactly when they cannot change a value (no length to pad or
// cut to, not char's blank-dropping cast to text), that a relabel gives
// the cast's value on strings with and without trailing blanks, and that
// casts nested in AND, OR, NOT and IS NULL are reached while an OR
// hashed as an IN list keeps its arms.
func TestSpecializeRelabel(t *testing.T) {
	types := []repr.T{repr.Text, repr.Varchar(0), repr.Varchar(5), repr.Char(0), repr.Char(10), {Family: repr.FamText, Kind: repr.KindName}}
	want := map[[2]int]bool{ // [from, to] relabelled
		{0, 0}: true, {0, 1}: true, {1, 0}: true, {1, 1}: true, {2, 0}: true, {2, 1}: true,
		{3, 3}: true, {4, 3}: true,
	}
	vals := []string{"", "a", "MAIL      ", "SHIP", "  x  ", "longer than ten runes", "é  "}
	for i, from := range types {
		for j, to := range types {
			cast := &Cast{Arg: &Col{Idx: 0, T: from}, To: to}
			spec := Specialize(cast)
			if _, ok := spec.(*relabel); ok != want[[2]int{i, j}] {
				t.Errorf("%s to %s: specialized as %T", from.Name(), to.Name(), spec)
			}
			if spec.String() != cast.String() || spec.Type() != cast.Type() {
				t.Errorf("%s prints or types as %s %v", cast, spec, spec.Type())
			}
			for _, v := range vals {
				row := repr.Row{repr.NewText(v)}
				w, werr := cast.Eval(nil, row)
				g, gerr := spec.Eval(nil, row)
				if (werr == nil) != (gerr == nil) || werr == nil && g != w {
					t.Errorf("%s over %q = %v, %v; want %v, %v", cast, v, g, gerr, w, werr)
				}
			}
			if g, _ := spec.Eval(nil, repr.Row{repr.Null}); !g.IsNull() {
				t.Errorf("%s over NULL = %v", cast, g)
			}
		}
	}
	eq, _, err := ResolveOp("=", []repr.T{repr.Char(0), repr.Char(0)})
	if err != nil {
		t.Fatal(err)
	}
	arm := func(s string) Expr {
		return &Call{Fn: eq, Args: []Expr{&Cast{Arg: &Col{Idx: 0, T: repr.Char(10)}, To: repr.Char(0)}, &Lit{D: repr.NewText(s), T: repr.Char(0)}}}
	}
	or := &Or{Args: []Expr{arm("MAIL"), arm("SHIP")}}
	nested := &Not{Arg: &And{Args: []Expr{&IsNull{Arg: or, Negate: true}, or}}}
	spec := Specialize(nested)
	inner := spec.(*Not).Arg.(*And).Args[1].(*Or).Args[0].(*Call).Args[0]
	if _, ok := inner.(*relabel); !ok {
		t.Fatalf("cast in OR in AND in NOT specialized as %T", inner)
	}
	if _, ok := spec.(*Not).Arg.(*And).Args[0].(*IsNull).Arg.(*Or).Args[1].(*Call).Args[0].(*relabel); !ok {
		t.Fatal("cast under IS NULL not relabelled")
	}
	for _, v := range vals {
		row := repr.Row{repr.NewText(v)}
		w, _ := nested.Eval(nil, row)
		g, _ := spec.Eval(nil, row)
		if g != w {
			t.Errorf("%s over %q = %v, want %v", nested, v, g, w)
		}
	}
	teq, _, err := ResolveOp("=", []repr.T{repr.Text, repr.Text})
	if err != nil {
		t.Fatal(err)
	}
	var arms []Expr
	for _, s := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		arms = append(arms, &Call{Fn: teq, Args: []Expr{&Cast{Arg: &Col{Idx: 0, T: repr.Varchar(5)}, To: repr.Text}, &Lit{D: repr.NewText(s), T: repr.Text}}})
	}
	in := &Or{Args: arms}
	if members(&in.set, in.Args, "=") == noMembers {
		t.Fatal("the IN list is not hashed")
	}
	if Specialize(in) != Expr(in) {
		t.Fatal("an OR hashed as an IN list was rewritten")
	}
}

// BenchmarkShipmodeFilter evaluates TPC-H Q12's `l_shipmode IN ('MAIL',
// 'SHIP')` over char(10) values as planned (each arm compares
// l_shipmode::bpchar) and specialized (the cast relabelled).
func BenchmarkShipmodeFilter(b *testing.B) {
	eq, _, err := ResolveOp("=", []repr.T{repr.Char(0), repr.Char(0)})
	if err != nil {
		b.Fatal(err)
	}
	arm := func(s string) Expr {
		return &Call{Fn: eq, Args: []Expr{&Cast{Arg: &Col{Idx: 0, T: repr.Char(10)}, To: repr.Char(0)}, &Lit{D: repr.NewText(s), T: repr.Char(0)}}}
	}
	or := &Or{Args: []Expr{arm("MAIL"), arm("SHIP")}}
	rows := []repr.Row{{repr.NewText("AIR       ")}, {repr.NewText("SHIP      ")}, {repr.NewText("TRUCK     ")}}
	for _, c := range []struct {
		name string
		e    Expr
	}{{"planned", or}, {"specialized", Specialize(or)}} {
		b.Run(c.name, func(b *testing.B) {
			ctx := &Ctx{}
			for i := 0; b.Loop(); i++ {
				if _, err := c.e.Eval(ctx, rows[i%len(rows)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSpecializeNumericMul checks that a numeric constant times an
// integer cast to numeric, in either order, is specialized and gives the
// generic call's value with the same digits and scale (90.800, not 90.8),
// NULL for NULL, and the generic path's result past 64-bit products; a
// cast to numeric(p,s) and a NaN constant stay generic.
func TestSpecializeNumericMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	mul, _, err := ResolveOp("*", []repr.T{repr.Numeric, repr.Numeric})
	if err != nil {
		t.Fatal(err)
	}
	edges := []int64{0, 1, -1, 100, math.MaxInt64, math.MinInt64, math.MaxInt64 - 5, math.MinInt64 + 5}
	for _, lit := range []string{"0.908", "-1.50", "0", "0.00", "12345678901234567890", "1e-20", "-7", "NaN"} {
		dec, err := repr.ParseNumeric(lit)
		if err != nil {
			t.Fatal(err)
		}
		for _, ty := range []repr.T{repr.Int2, repr.Int4, repr.Int8} {
			for _, to := range []repr.T{repr.Numeric, {Family: repr.FamNumeric, Precision: 10, Scale: 2}} {
				for _, litFirst := range []bool{true, false} {
					l := &Lit{D: repr.NewNumeric(dec), T: repr.Numeric}
					cast := &Cast{Arg: &Col{Idx: 0, T: ty}, To: to}
					args := []Expr{cast, l}
					if litFirst {
						args = []Expr{l, cast}
					}
					call := &Call{Fn: mul, Args: args}
					spec := Specialize(call)
					_, fast := spec.(*mulIntCall)
					if want := lit != "NaN" && to.Precision == 0; fast != want {
						t.Fatalf("%s with %v: specialized as %T", call, to, spec)
					}
					if spec.String() != call.String() || spec.Type() != call.Type() {
						t.Fatalf("%s prints or types as %s %v", call, spec, spec.Type())
					}
					for range 100 {
						row := repr.Row{repr.Null}
						if rng.IntN(8) != 0 {
							v := rng.Int64N(1<<40) - 1<<39
							if rng.IntN(3) == 0 {
								v = edges[rng.IntN(len(edges))]
							}
							row[0] = repr.NewInt(v >> (64 - ty.Width))
						}
						want, werr := call.Eval(nil, row)
						got, gerr := spec.Eval(nil, row)
						if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
							t.Fatalf("%s over %v: error %v, want %v", call, row, gerr, werr)
						}
						if got.String() != want.String() || got.Family() != want.Family() {
							t.Fatalf("%s over %v = %v, want %v", call, row, got, want)
						}
					}
				}
			}
		}
	}
}
