package optimizer

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/exec/scalar"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/sql/types"
)

var (
	seedFlag  = flag.Uint64("seed", 0, "seed for TestOptimizeEquivalence (0: time-based)")
	itersFlag = flag.Int("iters", 3000, "random plans TestOptimizeEquivalence checks")
)

// TestOptimizeEquivalence builds random IR trees over constant inputs and
// checks that Optimize preserves their multiset exactly (as computed by the
// reference evaluator in eval_test.go), that it never introduces an error,
// and that it keeps the output types. A failing tree is shrunk before it is
// reported, with the seed that reproduces it.
func TestOptimizeEquivalence(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	checked := 0
	fired := map[string]int{}
	for range *itersFlag {
		g := &gen{rng: rng}
		rel := g.rel(3)
		msg, ok := check(rel)
		if _, trace, err := OptimizeTrace(rel); err == nil {
			for _, name := range trace {
				fired[name]++
			}
		}
		if ok == skipped {
			continue
		}
		checked++
		if ok == failed {
			small := shrink(rel)
			msg, _ = check(small)
			t.Fatalf("seed %d: optimized plan differs\n%s\noriginal tree:\n%s", seed, msg, ir.Format(rel))
		}
	}
	t.Logf("checked %d plans; rules fired: %v", checked, fired)
	if checked < *itersFlag/2 {
		t.Fatalf("only %d of %d random plans were checkable", checked, *itersFlag)
	}
}

type outcome int

const (
	passed outcome = iota
	failed
	skipped // the unoptimized plan fails to evaluate
)

// check optimizes rel and compares the results.
func check(rel ir.Rel) (string, outcome) {
	want, err := evalRel(rel)
	if err != nil {
		return "", skipped
	}
	opt, trace, err := OptimizeTrace(rel)
	if err != nil {
		return fmt.Sprintf("Optimize: %v\ninput:\n%s", err, ir.Format(rel)), failed
	}
	got, err := evalRel(opt)
	report := func(what string) string {
		return fmt.Sprintf("%s\ninput:\n%s\noptimized (rules: %s):\n%s\nwant:\n%s", what, ir.Format(rel), trace, ir.Format(opt), want)
	}
	if err != nil {
		return report(fmt.Sprintf("optimized plan fails: %v", err)), failed
	}
	if !got.equal(want) {
		return report("got:\n" + got.String()), failed
	}
	return "", passed
}

// shrink greedily replaces rel by smaller trees that still fail: a node by
// one of its inputs of the same column types, or a Values without one row.
func shrink(rel ir.Rel) ir.Rel {
	for {
		next := slices.IndexFunc(smaller(rel), func(c ir.Rel) bool { _, o := check(c); return o == failed })
		if next < 0 {
			return rel
		}
		rel = smaller(rel)[next]
	}
}

// smaller lists the one-step reductions of rel.
func smaller(rel ir.Rel) []ir.Rel {
	var out []ir.Rel
	for _, k := range rel.Children() {
		if slices.Equal(k.ColTypes(), rel.ColTypes()) {
			out = append(out, k)
		}
	}
	if v, ok := rel.(*ir.Values); ok {
		for i := range v.Rows {
			out = append(out, &ir.Values{Types: v.Types, Rows: slices.Delete(slices.Clone(v.Rows), i, i+1)})
		}
	}
	kids := rel.Children()
	for i, k := range kids {
		for _, s := range smaller(k) {
			nk := slices.Clone(kids)
			nk[i] = s
			out = append(out, rel.WithChildren(nk))
		}
	}
	return out
}

// gen builds random IR trees whose leaves are small Values of integers
// (with NULLs and few distinct values, so joins and groups collide).
type gen struct{ rng *rand.Rand }

func (g *gen) rel(depth int) ir.Rel {
	if depth == 0 {
		return g.values()
	}
	in := g.rel(depth - 1)
	switch g.rng.IntN(11) {
	case 0, 1:
		return ir.NewFilter(in, g.preds(in.ColTypes(), 1+g.rng.IntN(3))...)
	case 2:
		return g.mapOp(in)
	case 3:
		return &ir.Project{Input: in, Cols: g.cols(ir.Arity(in), 1+g.rng.IntN(3))}
	case 4, 5:
		return g.join(in, g.rel(g.rng.IntN(depth)))
	case 6:
		return g.reduce(in)
	case 7:
		return &ir.Union{Inputs: []ir.Rel{in, ir.NewFilter(in, g.preds(in.ColTypes(), 1)...)}}
	case 8:
		sub := ir.NewFilter(in, g.preds(in.ColTypes(), 1)...)
		return &ir.Threshold{Input: &ir.Union{Inputs: []ir.Rel{in, &ir.Negate{Input: sub}}}}
	case 9:
		return g.topK(in)
	}
	return ir.NewDistinct(in)
}

func (g *gen) values() ir.Rel {
	n := 1 + g.rng.IntN(3)
	v := &ir.Values{Types: slices.Repeat([]types.T{types.Int4}, n)}
	for range g.rng.IntN(6) {
		row := make([]scalar.Expr, n)
		for i := range row {
			row[i] = g.intLit()
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

func (g *gen) intLit() scalar.Expr {
	if g.rng.IntN(5) == 0 {
		return &scalar.Lit{D: types.Null, T: types.Int4}
	}
	return &scalar.Lit{D: types.NewInt(int64(g.rng.IntN(4))), T: types.Int4}
}

func (g *gen) mapOp(in ir.Rel) ir.Rel {
	cols := slices.Clone(in.ColTypes())
	var exprs []scalar.Expr
	for range 1 + g.rng.IntN(2) {
		e := g.parse(g.intExpr(len(cols), 2), cols)
		exprs = append(exprs, e)
		cols = append(cols, e.Type())
	}
	return &ir.Map{Input: in, Exprs: exprs}
}

func (g *gen) join(l, r ir.Rel) ir.Rel {
	kind := ir.JoinKind(g.rng.IntN(5))
	j := &ir.Join{Kind: kind, Left: l, Right: r}
	if kind != ir.JoinCross {
		j.On = g.preds(j.ColTypes(), g.rng.IntN(3))
	}
	return j
}

func (g *gen) reduce(in ir.Rel) ir.Rel {
	ts := in.ColTypes()
	r := &ir.Reduce{Input: in, Key: g.cols(len(ts), g.rng.IntN(3))}
	for range g.rng.IntN(3) {
		c := g.rng.IntN(len(ts))
		kind := []dataflow.AggKind{dataflow.AggCountStar, dataflow.AggCount, dataflow.AggSum, dataflow.AggMin, dataflow.AggMax}[g.rng.IntN(5)]
		if kind == dataflow.AggSum && ts[c] != types.Int4 {
			kind = dataflow.AggMax
		}
		at, err := dataflow.AggType(kind, ts[c])
		if err != nil {
			panic(err)
		}
		r.Aggs = append(r.Aggs, dataflow.Agg{Kind: kind, Col: c, T: at})
	}
	if len(r.Key)+len(r.Aggs) == 0 {
		r.Aggs = []dataflow.Agg{{Kind: dataflow.AggCountStar, T: types.Int8}}
	}
	return r
}

func (g *gen) topK(in ir.Rel) ir.Rel {
	n := ir.Arity(in)
	t := &ir.TopK{Input: in, Key: g.cols(n, g.rng.IntN(2)), Limit: int64(g.rng.IntN(3)), Offset: int64(g.rng.IntN(2))}
	if g.rng.IntN(4) == 0 {
		t.Limit = -1
	}
	for range 1 + g.rng.IntN(2) {
		t.Order = append(t.Order, dataflow.SortCol{Col: g.rng.IntN(n), Desc: g.rng.IntN(2) == 0, NullsFirst: g.rng.IntN(2) == 0})
	}
	return t
}

// cols returns k random column numbers below n (repeats allowed).
func (g *gen) cols(n, k int) []int {
	out := []int{}
	for range k {
		out = append(out, g.rng.IntN(n))
	}
	return out
}

func (g *gen) preds(cols []types.T, k int) []scalar.Expr {
	var out []scalar.Expr
	for range k {
		out = append(out, g.parse(g.boolExpr(len(cols), 2), cols))
	}
	return out
}

// parse turns generated text into an expression; generation only produces
// well-typed text, so an error is a bug in the generator or the parser.
func (g *gen) parse(s string, cols []types.T) scalar.Expr {
	e, err := scalar.ParseExpr(s, cols)
	if err != nil {
		panic(fmt.Sprintf("ParseExpr(%q): %v", s, err))
	}
	return e
}

func (g *gen) col(n int) string { return fmt.Sprintf("#%d", g.rng.IntN(n)) }

func (g *gen) intExpr(n, depth int) string {
	if depth == 0 {
		if g.rng.IntN(3) == 0 {
			return []string{"0", "1", "2", "NULL::int4"}[g.rng.IntN(4)]
		}
		return g.col(n)
	}
	a, b := g.intExpr(n, depth-1), g.intExpr(n, depth-1)
	switch g.rng.IntN(6) {
	case 0:
		return fmt.Sprintf("(%s + %s)", a, b)
	case 1:
		return fmt.Sprintf("(%s - %s)", a, b)
	case 2:
		return fmt.Sprintf("coalesce(%s, %s)", a, b)
	case 3:
		return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", g.boolExpr(n, depth-1), a, b)
	case 4:
		return "(1 + 1)"
	}
	return a
}

func (g *gen) boolExpr(n, depth int) string {
	if depth == 0 {
		switch g.rng.IntN(8) {
		case 0:
			return []string{"true", "false", "NULL::bool"}[g.rng.IntN(3)]
		case 1:
			return g.col(n) + " IS NULL"
		case 2:
			return g.col(n) + " IS NOT NULL"
		}
		op := []string{"=", "<", ">=", "<>"}[g.rng.IntN(4)]
		return fmt.Sprintf("(%s %s %s)", g.intExpr(n, 1), op, g.intExpr(n, 0))
	}
	a, b := g.boolExpr(n, depth-1), g.boolExpr(n, depth-1)
	switch g.rng.IntN(5) {
	case 0:
		return fmt.Sprintf("(%s AND %s)", a, b)
	case 1:
		return fmt.Sprintf("(%s OR %s)", a, b)
	case 2:
		return fmt.Sprintf("(NOT %s)", a)
	}
	return a
}

// TestOptimizeKeepsTypes checks the entry point on a plan the planner
// typically produces for `SELECT a.y FROM a, b WHERE a.x = b.x AND b.z = 1`.
func TestOptimizeKeepsTypes(t *testing.T) {
	a := &ir.Get{ID: 1, Name: "a", Types: []types.T{types.Int4, types.Text}}
	b := &ir.Get{ID: 2, Name: "b", Types: []types.T{types.Int4, types.Int8}}
	j := ir.NewJoin(ir.JoinCross, a, b)
	pred, err := scalar.ParseExpr("#0 = #2 AND #3 = 1", j.ColTypes())
	if err != nil {
		t.Fatal(err)
	}
	rel := ir.NewProject(ir.NewFilter(j, pred), 1)
	out, err := Optimize(rel)
	if err != nil {
		t.Fatal(err)
	}
	got := ir.Format(out)
	for _, want := range []string{"Join inner on=(#0 = #2)", "Filter (#1 = 1"} {
		if !strings.Contains(got, want) {
			t.Errorf("optimized plan lacks %q:\n%s", want, got)
		}
	}
	if !slices.Equal(out.ColTypes(), rel.ColTypes()) {
		t.Errorf("types changed: %v -> %v", rel.ColTypes(), out.ColTypes())
	}
}
