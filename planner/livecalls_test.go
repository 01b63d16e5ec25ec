package planner

import (
	"testing"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// TestLiveCalls checks which recorded calls LiveCalls keeps: those of a
// Map column something above reads, or that it cannot place.
func TestLiveCalls(t *testing.T) {
	md5, _, err := expr.ResolveFunc("md5", []repr.T{repr.Text})
	if err != nil {
		t.Fatal(err)
	}
	call := func() *expr.Call { return &expr.Call{Fn: md5, Args: []expr.Expr{&expr.Col{Idx: 1, T: repr.Text}}} }
	get := func() ir.Rel { return &ir.Get{Types: []repr.T{repr.Int4, repr.Text}} }
	// view is (Map (Get t) [md5(#1)]): columns a, s, h.
	view := func(c *expr.Call) ir.Rel { return ir.NewMap(get(), c) }
	for _, tc := range []struct {
		name string
		plan func(c *expr.Call) ir.Rel
		kept bool
	}{
		{"unread", func(c *expr.Call) ir.Rel { return ir.NewProject(view(c), 0) }, false},
		{"read", func(c *expr.Call) ir.Rel { return ir.NewProject(view(c), 0, 2) }, true},
		{"root", func(c *expr.Call) ir.Rel { return view(c) }, true},
		{"filtered", func(c *expr.Call) ir.Rel {
			v := view(c)
			pred := &expr.IsNull{Arg: &expr.Col{Idx: 2, T: repr.Text}}
			return ir.NewProject(ir.NewFilter(v, pred), 0)
		}, true},
		{"grouped by", func(c *expr.Call) ir.Rel {
			return ir.NewProject(&ir.Reduce{Input: view(c), Key: []int{0, 2}}, 0)
		}, true},
		{"unread aggregate", func(c *expr.Call) ir.Rel {
			agg := expr.Agg{Kind: expr.AggCountStar, T: repr.Int8}
			max := expr.Agg{Kind: aggKind(t, "max"), Col: 2, T: repr.Text}
			return ir.NewProject(&ir.Reduce{Input: view(c), Key: []int{0}, Aggs: []expr.Agg{agg, max}}, 0, 1)
		}, false},
		{"read twice", func(c *expr.Call) ir.Rel {
			v := view(c)
			return ir.NewProject(&ir.Join{Kind: ir.JoinCross, Left: v, Right: v}, 0)
		}, true},
		{"under a union", func(c *expr.Call) ir.Rel {
			return ir.NewProject(ir.NewUnion(view(c), view(call())), 0)
		}, true},
		{"ordered", func(c *expr.Call) ir.Rel { return ir.NewProject(view(c), 0) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := call()
			plan := tc.plan(c)
			calls := []Call{{Fn: md5, From: []repr.T{repr.Text}, To: []repr.T{repr.Text}, node: c}}
			if tc.name == "ordered" {
				calls = append(calls, Call{rel: plan.Children()[0], kept: []int{2}})
			}
			got := LiveCalls(plan, calls)
			if kept := len(got) == len(calls); kept != tc.kept {
				t.Errorf("kept = %v, want %v", kept, tc.kept)
			}
		})
	}
}

// aggKind is the aggregate kind named name.
func aggKind(t *testing.T, name string) expr.AggKind {
	for k := expr.AggKind(0); k.String() != "?"; k++ {
		if k.Def().Name == name {
			return k
		}
	}
	t.Fatalf("no aggregate %s", name)
	return 0
}
