package ir

import (
	"fmt"
	"testing"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// TestNotNull checks each source of non-NULL knowledge and each operator
// that loses it.
func TestNotNull(t *testing.T) {
	i4 := repr.Int4
	col := func(i int) expr.Expr { return &expr.Col{Idx: i, T: i4} }
	op := func(name string, a, b expr.Expr) expr.Expr {
		fn, _, err := expr.ResolveOp(name, []repr.T{a.Type(), b.Type()})
		if err != nil {
			t.Fatal(err)
		}
		return &expr.Call{Fn: fn, Args: []expr.Expr{a, b}}
	}
	// t(a primary key, b not null, c, d)
	g := &Get{ID: 1, Name: "t", Types: []repr.T{i4, i4, i4, i4}, Key: []int{0}, NotNull: []bool{false, true, false, false}}
	u := &Get{ID: 2, Name: "u", Types: []repr.T{i4, i4}}
	one := &expr.Lit{D: repr.NewInt(1), T: i4}
	cases := []struct {
		name string
		rel  Rel
		want string
	}{
		{"get", g, "[true true false false]"},
		{"filter strict comparison", NewFilter(g, op("<", col(2), one)), "[true true true false]"},
		{"filter is not null", NewFilter(g, &expr.IsNull{Arg: col(3), Negate: true}), "[true true false true]"},
		{"filter is null marks nothing", NewFilter(g, &expr.IsNull{Arg: col(3)}), "[true true false false]"},
		{"filter or marks nothing", NewFilter(g, &expr.Or{Args: []expr.Expr{op("=", col(2), one), op("=", col(3), one)}}), "[true true false false]"},
		{"filter and marks both", NewFilter(g, &expr.And{Args: []expr.Expr{op("=", col(2), one), op("=", col(3), one)}}), "[true true true true]"},
		{"map", NewMap(g, op("+", col(0), col(1)), op("+", col(0), col(2)), &expr.Coalesce{Args: []expr.Expr{col(2), one}, T: i4}, &expr.IsNull{Arg: col(2)}),
			"[true true false false true false true true]"},
		{"project", NewProject(g, 3, 1, 1), "[false true true]"},
		{"inner join condition", NewJoin(JoinInner, g, u, op("=", col(2), col(4))), "[true true true false true false]"},
		{"left join pads the right", NewJoin(JoinLeft, g, NewFilter(u, op("=", col(0), one)), op("=", col(0), col(4))), "[true true false false false false]"},
		{"right join pads the left", NewJoin(JoinRight, g, u), "[false false false false false false]"},
		{"reduce", NewReduce(g, []int{1, 2}, expr.Agg{Kind: expr.AggCountStar, T: repr.Int8}, expr.Agg{Kind: expr.AggSum, Col: 0, T: repr.Int8}), "[true false true false]"},
		{"union", NewUnion(NewProject(g, 0, 1), NewProject(g, 1, 2)), "[true false]"},
	}
	for _, c := range cases {
		if got := fmt.Sprint(NotNull(c.rel)); got != c.want {
			t.Errorf("%s: NotNull = %s, want %s", c.name, got, c.want)
		}
	}
}
