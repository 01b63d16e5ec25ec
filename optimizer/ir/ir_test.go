package ir

import (
	"testing"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// TestShapes checks derived column types and that WithChildren copies a
// node over new inputs without changing the original.
func TestShapes(t *testing.T) {
	g := &Get{ID: 1, Name: "t", Types: []repr.T{repr.Int4, repr.Text}}
	m := NewMap(g, &expr.Lit{D: repr.NewBool(true), T: repr.Bool})
	r := NewReduce(NewProject(m, 2, 0), []int{0}, expr.Agg{Kind: expr.AggCountStar, T: repr.Int8})
	j := NewJoin(JoinLeft, r, g)
	want := []repr.T{repr.Bool, repr.Int8, repr.Int4, repr.Text}
	got := j.ColTypes()
	if len(got) != len(want) {
		t.Fatalf("types %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("types %v, want %v", got, want)
		}
	}
	g2 := &Get{ID: 2, Name: "u", Types: []repr.T{repr.Int8}}
	j2 := j.WithChildren([]Rel{g2, g2}).(*Join)
	if j.(*Join).Left != r || ir(j2.Left) != g2 || Arity(j2) != 2 {
		t.Fatalf("WithChildren: %v", j2)
	}
	if NewProject(g, 0, 1) != Rel(g) || NewFilter(g) != Rel(g) || NewMap(g) != Rel(g) {
		t.Fatal("identity constructors must return their input")
	}
}

func ir(r Rel) Rel { return r }

// TestMapChildren checks that MapChildren keeps a node whose inputs f
// leaves alone and copies one whose input it changes, leaving the
// original and the unchanged input as they were.
func TestMapChildren(t *testing.T) {
	g := &Get{ID: 1, Name: "t", Types: []repr.T{repr.Int4}}
	u := &Get{ID: 2, Name: "u", Types: []repr.T{repr.Int4}}
	j := NewJoin(JoinInner, g, u)
	if MapChildren(j, func(r Rel) Rel { return r }) != j {
		t.Fatal("an identity map copied the node")
	}
	v := &Get{ID: 3, Name: "v", Types: []repr.T{repr.Int4}}
	out := MapChildren(j, func(r Rel) Rel {
		if r == u {
			return v
		}
		return r
	}).(*Join)
	if out == j || ir(out.Left) != g || ir(out.Right) != v || ir(j.(*Join).Right) != u {
		t.Fatalf("MapChildren replacing the right input: %v (original %v)", out, j)
	}
}

// TestEqual checks that Equal agrees with comparing printed plans: equal
// for a rebuilt copy, different for another header or another input.
func TestEqual(t *testing.T) {
	g := &Get{ID: 1, Name: "t", Types: []repr.T{repr.Int4, repr.Text}}
	build := func(id repr.CollectionID, col int) Rel {
		in := &Get{ID: id, Name: "t", Types: []repr.T{repr.Int4, repr.Text}}
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
