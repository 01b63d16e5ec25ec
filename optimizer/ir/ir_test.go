package ir

import (
	"testing"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/exec/scalar"
	"github.com/eddydb/eddy/sql/types"
)

// TestShapes checks derived column types and that WithChildren copies a
// node over new inputs without changing the original.
func TestShapes(t *testing.T) {
	g := &Get{ID: 1, Name: "t", Types: []types.T{types.Int4, types.Text}}
	m := NewMap(g, &scalar.Lit{D: types.NewBool(true), T: types.Bool})
	r := NewReduce(NewProject(m, 2, 0), []int{0}, dataflow.Agg{Kind: dataflow.AggCountStar, T: types.Int8})
	j := NewJoin(JoinLeft, r, g)
	want := []types.T{types.Bool, types.Int8, types.Int4, types.Text}
	got := j.ColTypes()
	if len(got) != len(want) {
		t.Fatalf("types %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("types %v, want %v", got, want)
		}
	}
	g2 := &Get{ID: 2, Name: "u", Types: []types.T{types.Int8}}
	j2 := j.WithChildren([]Rel{g2, g2}).(*Join)
	if j.(*Join).Left != r || ir(j2.Left) != g2 || Arity(j2) != 2 {
		t.Fatalf("WithChildren: %v", j2)
	}
	if NewProject(g, 0, 1) != Rel(g) || NewFilter(g) != Rel(g) || NewMap(g) != Rel(g) {
		t.Fatal("identity constructors must return their input")
	}
}

func ir(r Rel) Rel { return r }

// TestEqual checks that Equal agrees with comparing printed plans: equal
// for a rebuilt copy, different for another header or another input.
func TestEqual(t *testing.T) {
	g := &Get{ID: 1, Name: "t", Types: []types.T{types.Int4, types.Text}}
	build := func(id dataflow.CollectionID, col int) Rel {
		in := &Get{ID: id, Name: "t", Types: []types.T{types.Int4, types.Text}}
		return NewJoin(JoinInner, NewProject(in, col, 0), g)
	}
	a := build(1, 1)
	for _, c := range []struct {
		b    Rel
		want bool
	}{
		{a, true},
		{build(1, 1), true},  // rebuilt: same print, other pointers
		{build(2, 1), false}, // another input
		{build(1, 0), false}, // another header below
		{NewProject(a, 0), false},
	} {
		if got := Equal(a, c.b); got != c.want || (Format(a) == Format(c.b)) != c.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", a, c.b, got, c.want)
		}
	}
}
