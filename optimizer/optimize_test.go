package optimizer

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
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
		_, ok := check(rel)
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
			msg, _ := check(small)
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
	v := &ir.Values{Types: slices.Repeat([]repr.T{repr.Int4}, n)}
	for range g.rng.IntN(6) {
		row := make([]expr.Expr, n)
		for i := range row {
			row[i] = g.intLit()
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

func (g *gen) intLit() expr.Expr {
	if g.rng.IntN(5) == 0 {
		return &expr.Lit{D: repr.Null, T: repr.Int4}
	}
	return &expr.Lit{D: repr.NewInt(int64(g.rng.IntN(4))), T: repr.Int4}
}

func (g *gen) mapOp(in ir.Rel) ir.Rel {
	cols := slices.Clone(in.ColTypes())
	var exprs []expr.Expr
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
		kind := []expr.AggKind{expr.AggCountStar, expr.AggCount, expr.AggSum, expr.AggMin, expr.AggMax}[g.rng.IntN(5)]
		if kind == expr.AggSum && ts[c] != repr.Int4 {
			kind = expr.AggMax
		}
		at, err := expr.AggType(kind, ts[c])
		if err != nil {
			panic(err)
		}
		r.Aggs = append(r.Aggs, expr.Agg{Kind: kind, Col: c, T: at})
	}
	if len(r.Key)+len(r.Aggs) == 0 {
		r.Aggs = []expr.Agg{{Kind: expr.AggCountStar, T: repr.Int8}}
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
		t.Order = append(t.Order, expr.SortCol{Col: g.rng.IntN(n), Desc: g.rng.IntN(2) == 0, NullsFirst: g.rng.IntN(2) == 0})
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

func (g *gen) preds(cols []repr.T, k int) []expr.Expr {
	var out []expr.Expr
	for range k {
		out = append(out, g.parse(g.boolExpr(len(cols), 2), cols))
	}
	return out
}

// parse turns generated text into an expression; generation only produces
// well-typed text, so an error is a bug in the generator or the parser.
func (g *gen) parse(s string, cols []repr.T) expr.Expr {
	e, err := expr.ParseExpr(s, cols)
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
	a := &ir.Get{ID: 1, Name: "a", Types: []repr.T{repr.Int4, repr.Text}}
	b := &ir.Get{ID: 2, Name: "b", Types: []repr.T{repr.Int4, repr.Int8}}
	j := ir.NewJoin(ir.JoinCross, a, b)
	pred, err := expr.ParseExpr("#0 = #2 AND #3 = 1", j.ColTypes())
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

// The reference evaluator follows.

// multiset is a consolidated collection: row key -> row and its (non-zero)
// multiplicity.
type multiset map[string]*counted

type counted struct {
	row repr.Row
	n   int64
}

func (m multiset) add(r repr.Row, n int64) {
	k := string(repr.AppendRowKey(nil, r))
	c, ok := m[k]
	if !ok {
		c = &counted{row: r}
		m[k] = c
	}
	if c.n += n; c.n == 0 {
		delete(m, k)
	}
}

// sorted returns the entries ordered by row.
func (m multiset) sorted() []*counted {
	out := make([]*counted, 0, len(m))
	for _, c := range m {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *counted) int { return repr.CompareRows(a.row, b.row) })
	return out
}

func (m multiset) String() string {
	var b strings.Builder
	for _, c := range m.sorted() {
		fmt.Fprintf(&b, "%v x%d\n", c.row, c.n)
	}
	return b.String()
}

func (m multiset) equal(o multiset) bool {
	if len(m) != len(o) {
		return false
	}
	for k, c := range m {
		if d, ok := o[k]; !ok || d.n != c.n {
			return false
		}
	}
	return true
}

// evalRel is a reference evaluator of the IR, written from the operators'
// doc comments without regard to efficiency. Get is not supported.
func evalRel(r ir.Rel) (multiset, error) {
	switch r := r.(type) {
	case *ir.Values:
		return evalValues(r)
	case *ir.Union:
		out := multiset{}
		for _, in := range r.Inputs {
			m, err := evalRel(in)
			if err != nil {
				return nil, err
			}
			for _, c := range m {
				out.add(c.row, c.n)
			}
		}
		return out, nil
	}
	in, err := evalRel(r.Children()[0])
	if err != nil {
		return nil, err
	}
	switch r := r.(type) {
	case *ir.Map:
		return evalMap(r, in)
	case *ir.Filter:
		return evalFilter(r.Preds, in)
	case *ir.Project:
		out := multiset{}
		for _, c := range in {
			row := make(repr.Row, len(r.Cols))
			for i, col := range r.Cols {
				row[i] = c.row[col]
			}
			out.add(row, c.n)
		}
		return out, nil
	case *ir.Join:
		right, err := evalRel(r.Right)
		if err != nil {
			return nil, err
		}
		return evalJoin(r, in, right)
	case *ir.Reduce:
		return evalReduce(r, in)
	case *ir.TopK:
		return evalTopK(r, in), nil
	case *ir.Negate:
		out := multiset{}
		for _, c := range in {
			out.add(c.row, -c.n)
		}
		return out, nil
	case *ir.Threshold:
		out := multiset{}
		for _, c := range in {
			if c.n > 0 {
				out.add(c.row, c.n)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("evalRel: unsupported %T", r)
}

var ctx = &expr.Ctx{TimeZone: "UTC"}

func evalValues(v *ir.Values) (multiset, error) {
	out := multiset{}
	for _, exprs := range v.Rows {
		row := make(repr.Row, len(exprs))
		for i, e := range exprs {
			d, err := e.Eval(ctx, nil)
			if err != nil {
				return nil, err
			}
			row[i] = d
		}
		out.add(row, 1)
	}
	return out, nil
}

func evalMap(m *ir.Map, in multiset) (multiset, error) {
	out := multiset{}
	for _, c := range in {
		row := slices.Clone(c.row)
		for _, e := range m.Exprs {
			d, err := e.Eval(ctx, row)
			if err != nil {
				return nil, err
			}
			row = append(row, d)
		}
		out.add(row, c.n)
	}
	return out, nil
}

// holds reports whether every predicate is true (not false, not NULL),
// evaluating them in order.
func holds(preds []expr.Expr, row repr.Row) (bool, error) {
	for _, p := range preds {
		d, err := p.Eval(ctx, row)
		if err != nil || d.IsNull() || !d.Bool() {
			return false, err
		}
	}
	return true, nil
}

func evalFilter(preds []expr.Expr, in multiset) (multiset, error) {
	out := multiset{}
	for _, c := range in {
		ok, err := holds(preds, c.row)
		if err != nil {
			return nil, err
		}
		if ok {
			out.add(c.row, c.n)
		}
	}
	return out, nil
}

func evalJoin(j *ir.Join, left, right multiset) (multiset, error) {
	out := multiset{}
	nullsL, nullsR := nullRow(ir.Arity(j.Left)), nullRow(ir.Arity(j.Right))
	matchedR := map[string]bool{}
	for _, l := range left {
		matched := false
		for kr, r := range right {
			row := append(slices.Clone(l.row), r.row...)
			ok, err := holds(j.On, row)
			if err != nil {
				return nil, err
			}
			if ok {
				matched, matchedR[kr] = true, true
				out.add(row, l.n*r.n)
			}
		}
		if !matched && (j.Kind == ir.JoinLeft || j.Kind == ir.JoinFull) {
			out.add(append(slices.Clone(l.row), nullsR...), l.n)
		}
	}
	if j.Kind == ir.JoinRight || j.Kind == ir.JoinFull {
		for kr, r := range right {
			if !matchedR[kr] {
				out.add(append(slices.Clone(nullsL), r.row...), r.n)
			}
		}
	}
	return out, nil
}

func nullRow(n int) repr.Row {
	row := make(repr.Row, n)
	for i := range row {
		row[i] = repr.Null
	}
	return row
}

func evalReduce(r *ir.Reduce, in multiset) (multiset, error) {
	groups := map[string][]*counted{}
	var order []string
	for _, c := range in.sorted() {
		k := string(repr.AppendColsKey(nil, c.row, r.Key))
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], c)
	}
	if len(r.Key) == 0 && len(order) == 0 {
		order, groups[""] = []string{""}, nil
	}
	out := multiset{}
	for _, k := range order {
		rows := groups[k]
		var row repr.Row
		if len(rows) > 0 {
			for _, col := range r.Key {
				row = append(row, rows[0].row[col])
			}
		}
		for _, a := range r.Aggs {
			d, err := evalAgg(a, rows)
			if err != nil {
				return nil, err
			}
			row = append(row, d)
		}
		out.add(row, 1)
	}
	return out, nil
}

// evalAgg computes one aggregate over a group's rows (non-negative
// multiplicities). Only the kinds the random generator uses are supported.
func evalAgg(a expr.Agg, rows []*counted) (repr.Datum, error) {
	var n, sum int64
	best := repr.Null
	for _, c := range rows {
		if a.Kind == expr.AggCountStar {
			n += c.n
			continue
		}
		v := c.row[a.Col]
		if v.IsNull() {
			continue
		}
		n += c.n
		sum += v.Int() * c.n
		if c := repr.Compare(v, best); best.IsNull() || (a.Kind == expr.AggMin && c < 0) || (a.Kind == expr.AggMax && c > 0) {
			best = v
		}
	}
	switch a.Kind {
	case expr.AggCountStar, expr.AggCount:
		return repr.NewInt(n), nil
	case expr.AggSum:
		if n == 0 {
			return repr.Null, nil
		}
		return repr.NewInt(sum), nil
	case expr.AggMin, expr.AggMax:
		return best, nil
	}
	return repr.Null, fmt.Errorf("evalAgg: unsupported %s", a.Kind)
}

func evalTopK(t *ir.TopK, in multiset) multiset {
	groups := map[string][]repr.Row{}
	for _, c := range in.sorted() {
		k := string(repr.AppendColsKey(nil, c.row, t.Key))
		for range c.n {
			groups[k] = append(groups[k], c.row)
		}
	}
	out := multiset{}
	for _, rows := range groups {
		slices.SortStableFunc(rows, func(a, b repr.Row) int {
			if c := compareOrder(t.Order, a, b); c != 0 {
				return c
			}
			return repr.CompareRows(a, b)
		})
		lo := min(int(t.Offset), len(rows))
		hi := len(rows)
		if t.Limit >= 0 {
			hi = min(lo+int(t.Limit), hi)
		}
		for _, r := range rows[lo:hi] {
			out.add(r, 1)
		}
	}
	return out
}

// compareOrder compares rows by sort columns, placing NULLs per NullsFirst
// (repr.Compare itself sorts NULL last).
func compareOrder(order []expr.SortCol, a, b repr.Row) int {
	for _, o := range order {
		x, y := a[o.Col], b[o.Col]
		var c int
		switch {
		case x.IsNull() != y.IsNull():
			c = 1
			if x.IsNull() == o.NullsFirst {
				c = -1
			}
		default:
			c = repr.Compare(x, y)
			if o.Desc {
				c = -c
			}
		}
		if c != 0 {
			return c
		}
	}
	return 0
}
