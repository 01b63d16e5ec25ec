package rules_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/optimizer/rules"
	"github.com/eddydb/eddy/repr"
)

// joinEdge is an equality between column ca of table a and column cb of
// table b.
type joinEdge struct{ a, ca, b, cb int }

// joinShape returns the tables (each two int4 columns, column 0 a unique
// key, except a star's fact table) and the equalities of an n-way join:
//
//	chain   t0.1 = t1.0, t1.1 = t2.0, ...
//	cycle   a chain closed by t(n-1).1 = t0.0
//	star    t0 (the fact, n-1 columns, no key) joins each ti on t0.(i-1) = ti.0
//	clique  ti.0 = tj.0 for every i < j (one equivalence class)
func joinShape(shape string, n int) (tables []*ir.Get, edges []joinEdge, err error) {
	for i := range n {
		g := &ir.Get{ID: repr.CollectionID(i + 1), Name: fmt.Sprintf("t%d", i),
			Types: []repr.T{repr.Int4, repr.Int4}, Key: []int{0}}
		tables = append(tables, g)
	}
	switch shape {
	case "chain", "cycle":
		for i := 0; i+1 < n; i++ {
			edges = append(edges, joinEdge{i, 1, i + 1, 0})
		}
		if shape == "cycle" {
			edges = append(edges, joinEdge{n - 1, 1, 0, 0})
		}
	case "star":
		fact := tables[0]
		fact.Key, fact.Types = nil, make([]repr.T, n-1)
		for i := range fact.Types {
			fact.Types[i] = repr.Int4
		}
		for i := 1; i < n; i++ {
			edges = append(edges, joinEdge{0, i - 1, i, 0})
		}
	case "clique":
		for i := range n {
			for j := i + 1; j < n; j++ {
				edges = append(edges, joinEdge{i, 0, j, 0})
			}
		}
	default:
		return nil, nil, fmt.Errorf("unknown shape %q", shape)
	}
	return tables, edges, nil
}

// buildJoin cross-joins tables in the order perm (as a FROM list does) under
// a filter holding every edge.
func buildJoin(tables []*ir.Get, edges []joinEdge, perm []int) (ir.Rel, error) {
	off := map[int]int{}
	var rel ir.Rel
	n := 0
	for _, t := range perm {
		off[t] = n
		n += len(tables[t].Types)
		if rel == nil {
			rel = tables[t]
		} else {
			rel = ir.NewJoin(ir.JoinCross, rel, tables[t])
		}
	}
	var preds []expr.Expr
	for _, e := range edges {
		p, err := expr.CallOp("=", &expr.Col{Idx: off[e.a] + e.ca, T: repr.Int4}, &expr.Col{Idx: off[e.b] + e.cb, T: repr.Int4})
		if err != nil {
			return nil, err
		}
		preds = append(preds, p)
	}
	return ir.NewFilter(rel, preds...), nil
}

// runJoins implements the joins command of TestRules.
func runJoins(t *testing.T, d *datadriven.TestData) string {
	var shape string
	var n int
	seed := uint64(1)
	d.ScanArgs(t, "shape", &shape)
	d.ScanArgs(t, "n", &n)
	if d.HasArg("seed") {
		d.ScanArgs(t, "seed", &seed)
	}
	tables, edges, err := joinShape(shape, n)
	if err != nil {
		d.Fatalf(t, "%v", err)
	}
	perm := rand.New(rand.NewPCG(seed, seed)).Perm(n)
	rel, err := buildJoin(tables, edges, perm)
	if err != nil {
		d.Fatalf(t, "%v", err)
	}
	out, trace, err := rules.Run(rel, rules.Default...)
	if err != nil {
		d.Fatalf(t, "%v", err)
	}
	var b strings.Builder
	names := make([]string, n)
	for i, p := range perm {
		names[i] = tables[p].Name
	}
	fmt.Fprintf(&b, "from: %s\n", strings.Join(names, " "))
	fmt.Fprintf(&b, "tree: %s\n", joinTree(out))
	cross, joins := countJoins(out)
	fmt.Fprintf(&b, "joins: %d, cross joins: %d, reordered: %v\n", joins, cross, trace.Has("ReorderJoins"))
	if cross > 0 {
		d.Fatalf(t, "cross join in the plan of a connected join graph:\n%s", ir.Format(out))
	}
	return b.String()
}

// joinTree prints the join structure of r: a leaf's table name, a join as
// (left right).
func joinTree(r ir.Rel) string {
	switch n := r.(type) {
	case *ir.Get:
		return n.Name
	case *ir.Join:
		return "(" + joinTree(n.Left) + " " + joinTree(n.Right) + ")"
	}
	kids := r.Children()
	if len(kids) == 1 {
		return joinTree(kids[0])
	}
	return "?"
}

// countJoins returns the number of cross joins and of all joins in r.
func countJoins(r ir.Rel) (cross, all int) {
	if j, ok := r.(*ir.Join); ok {
		all++
		if j.Kind == ir.JoinCross {
			cross++
		}
	}
	for _, k := range r.Children() {
		c, a := countJoins(k)
		cross, all = cross+c, all+a
	}
	return cross, all
}

// BenchmarkReorderJoins64 measures planning a 64-way join of each shape
// written in a shuffled FROM order (the whole default pipeline).
func BenchmarkReorderJoins64(b *testing.B) {
	for _, shape := range []string{"chain", "star", "cycle", "clique"} {
		b.Run(shape, func(b *testing.B) {
			tables, edges, err := joinShape(shape, 64)
			if err != nil {
				b.Fatal(err)
			}
			rel, err := buildJoin(tables, edges, rand.New(rand.NewPCG(1, 1)).Perm(64))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, _, err := rules.Run(rel, rules.Default...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
