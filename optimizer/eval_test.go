package optimizer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/exec/scalar"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/sql/types"
)

// multiset is a consolidated collection: row key -> row and its (non-zero)
// multiplicity.
type multiset map[string]*counted

type counted struct {
	row types.Row
	n   int64
}

func (m multiset) add(r types.Row, n int64) {
	k := string(types.AppendRowKey(nil, r))
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
	slices.SortFunc(out, func(a, b *counted) int { return types.CompareRows(a.row, b.row) })
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
			row := make(types.Row, len(r.Cols))
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

var ctx = &scalar.Ctx{TimeZone: "UTC"}

func evalValues(v *ir.Values) (multiset, error) {
	out := multiset{}
	for _, exprs := range v.Rows {
		row := make(types.Row, len(exprs))
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
func holds(preds []scalar.Expr, row types.Row) (bool, error) {
	for _, p := range preds {
		d, err := p.Eval(ctx, row)
		if err != nil || d.IsNull() || !d.Bool() {
			return false, err
		}
	}
	return true, nil
}

func evalFilter(preds []scalar.Expr, in multiset) (multiset, error) {
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

func nullRow(n int) types.Row {
	row := make(types.Row, n)
	for i := range row {
		row[i] = types.Null
	}
	return row
}

func evalReduce(r *ir.Reduce, in multiset) (multiset, error) {
	groups := map[string][]*counted{}
	var order []string
	for _, c := range in.sorted() {
		k := string(types.AppendColsKey(nil, c.row, r.Key))
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
		var row types.Row
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
func evalAgg(a dataflow.Agg, rows []*counted) (types.Datum, error) {
	var n, sum int64
	best := types.Null
	for _, c := range rows {
		if a.Kind == dataflow.AggCountStar {
			n += c.n
			continue
		}
		v := c.row[a.Col]
		if v.IsNull() {
			continue
		}
		n += c.n
		sum += v.Int() * c.n
		if c := types.Compare(v, best); best.IsNull() || (a.Kind == dataflow.AggMin && c < 0) || (a.Kind == dataflow.AggMax && c > 0) {
			best = v
		}
	}
	switch a.Kind {
	case dataflow.AggCountStar, dataflow.AggCount:
		return types.NewInt(n), nil
	case dataflow.AggSum:
		if n == 0 {
			return types.Null, nil
		}
		return types.NewInt(sum), nil
	case dataflow.AggMin, dataflow.AggMax:
		return best, nil
	}
	return types.Null, fmt.Errorf("evalAgg: unsupported %s", a.Kind)
}

func evalTopK(t *ir.TopK, in multiset) multiset {
	groups := map[string][]types.Row{}
	for _, c := range in.sorted() {
		k := string(types.AppendColsKey(nil, c.row, t.Key))
		for range c.n {
			groups[k] = append(groups[k], c.row)
		}
	}
	out := multiset{}
	for _, rows := range groups {
		slices.SortStableFunc(rows, func(a, b types.Row) int {
			if c := compareOrder(t.Order, a, b); c != 0 {
				return c
			}
			return types.CompareRows(a, b)
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
// (types.Compare itself sorts NULL last).
func compareOrder(order []dataflow.SortCol, a, b types.Row) int {
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
			c = types.Compare(x, y)
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
