package expr

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/eddydb/eddy/repr"
)

// TestMemberSetRandom checks that a hashed IN list (an Or of term =
// constant arms) or NOT IN list (an And of <> arms) has the value of evaluating its arms one by one, for
// random constants, NULL arms, NULL terms and values written at other
// scales (1.5 against 1.50), on every type that hashes, and that the set
// is built exactly when it should be.
func TestMemberSetRandom(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	kinds := []struct {
		typ    string
		value  func(r *rand.Rand) string
		hashed bool
	}{
		{"int4", func(r *rand.Rand) string { return fmt.Sprint(r.IntN(40) - 20) }, true},
		{"int8", func(r *rand.Rand) string { return fmt.Sprint(r.IntN(40)) }, true},
		{"numeric", func(r *rand.Rand) string {
			return fmt.Sprintf("%d.%s", r.IntN(10)-5, []string{"0", "5", "50", "500", "05"}[r.IntN(5)])
		}, true},
		{"text", func(r *rand.Rand) string { return fmt.Sprintf("'%c%c'", 'a'+r.IntN(4), 'a'+r.IntN(4)) }, true},
		{"date", func(r *rand.Rand) string { return fmt.Sprintf("'2024-01-%02d'::date", 1+r.IntN(28)) }, true},
		{"float8", func(r *rand.Rand) string { return fmt.Sprintf("%d.5", r.IntN(10)) }, false},
	}
	ctx := &Ctx{TimeZone: "UTC"}
	for trial := range 400 {
		k := kinds[r.IntN(len(kinds))]
		cols := parseTypes(t, k.typ)
		n := minHashedArms + r.IntN(30)
		if trial%10 == 0 {
			n = 2 + r.IntN(minHashedArms-2) // short lists are not hashed
		}
		in := r.IntN(2) == 0 // IN: an Or of =; NOT IN: an And of <>
		op := map[bool]string{true: "=", false: "<>"}[in]
		arms := make([]Expr, n)
		for i := range arms {
			c := k.value(r)
			if r.IntN(20) == 0 {
				c = "NULL"
			}
			text := fmt.Sprintf("#0 %s (%s)::%s", op, c, k.typ)
			if r.IntN(2) == 0 {
				text = fmt.Sprintf("(%s)::%s %s #0", c, k.typ, op)
			}
			e, err := ParseExpr(text, cols)
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			arms[i] = Fold(e)
		}
		var conn Expr = &And{Args: arms}
		set := &conn.(*And).set
		if in {
			conn = &Or{Args: arms}
			set = &conn.(*Or).set
		}
		for range 20 {
			v := "NULL"
			if r.IntN(10) != 0 {
				v = k.value(r)
			}
			row := testRowOf(t, v, cols[0])
			got, err := conn.Eval(ctx, row)
			if err != nil {
				t.Fatal(err)
			}
			want, err := evalConnective(ctx, row, arms, in)
			if err != nil {
				t.Fatal(err)
			}
			if got.IsNull() != want.IsNull() || (!got.IsNull() && got.Bool() != want.Bool()) {
				t.Fatalf("seed %d: %s with #0 = %s: hashed %v, arm by arm %v", seed, conn, v, got, want)
			}
		}
		if hashed := members(set, arms, op) != noMembers; hashed != (k.hashed && n >= minHashedArms) {
			t.Fatalf("%s (%d arms): hashed %v", k.typ, n, hashed)
		}
	}
}

// testRowOf returns the one-column row holding the value of the SQL
// literal v cast to t.
func testRowOf(t *testing.T, v string, typ repr.T) repr.Row {
	e, err := ParseExpr(v, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewCast(e, typ).Eval(&Ctx{TimeZone: "UTC"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return repr.Row{d}
}

// TestMemberSetNotForMixedTerms checks that an Or over two different terms,
// or with an arm that is not an equality with a constant, is evaluated arm
// by arm.
func TestMemberSetNotForMixedTerms(t *testing.T) {
	cols := parseTypes(t, "int4 int4")
	const seven = "#0 = 1 OR #0 = 2 OR #0 = 3 OR #0 = 4 OR #0 = 5 OR #0 = 6 OR #0 = 7 OR "
	for _, c := range []struct {
		last string
		want bool // over the row (9, 8)
	}{{"#1 = 8", true}, {"#0 < 8", false}, {"#0 = #1", false}, {"#0 = 9", true}} {
		e, err := ParseExpr(seven+c.last, cols)
		if err != nil {
			t.Fatal(err)
		}
		or := &Or{Args: flatten(Fold(e))}
		if len(or.Args) != 8 {
			t.Fatalf("%s: %d arms", e, len(or.Args))
		}
		if hashed := members(&or.set, or.Args, "=") != noMembers; hashed != (c.last == "#0 = 9") {
			t.Errorf("%s: hashed %v", e, hashed)
		}
		got, err := or.Eval(&Ctx{}, repr.Row{repr.NewInt(9), repr.NewInt(8)})
		if err != nil || got.IsNull() || got.Bool() != c.want {
			t.Errorf("%s over (9, 8) = %v, %v; want %v", e, got, err, c.want)
		}
	}
}

// flatten returns the arms of a (possibly nested) Or.
func flatten(e Expr) []Expr {
	or, ok := e.(*Or)
	if !ok {
		return []Expr{e}
	}
	var out []Expr
	for _, a := range or.Args {
		out = append(out, flatten(a)...)
	}
	return out
}
