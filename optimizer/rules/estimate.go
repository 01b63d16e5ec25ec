package rules

import (
	"slices"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// defaultRows is the size assumed for a collection of unknown size (a view
// created before its tables are loaded sees only empty collections).
const defaultRows = 1000

// estimate returns a rough row count of r and the unique keys of its
// output (each a list of columns whose values no two rows share; an empty
// key means at most one row). Join ordering only compares estimates, so
// they need the right order of magnitude, not precision: keys matter most
// (a join on a key cannot grow its other side), filters shrink, grouping
// makes its key unique.
func estimate(r ir.Rel) (float64, [][]int) {
	switch n := r.(type) {
	case *ir.Get:
		card := float64(n.Rows)
		if card <= 0 {
			card = defaultRows
		}
		if n.Key != nil {
			return card, [][]int{n.Key}
		}
		return card, nil
	case *ir.Values:
		if len(n.Rows) <= 1 {
			return 1, [][]int{{}}
		}
		return float64(len(n.Rows)), nil
	case *ir.Filter:
		card, keys := estimate(n.Input)
		for _, p := range n.Preds {
			if pinsKey(p, keys) {
				return 1, [][]int{{}}
			}
			card *= selectivity(p)
		}
		return max(card, 1), keys
	case *ir.Map:
		return estimate(n.Input)
	case *ir.Project:
		card, keys := estimate(n.Input)
		return card, projectKeys(keys, n.Cols)
	case *ir.Reduce:
		card, _ := estimate(n.Input)
		if len(n.Key) == 0 {
			return 1, [][]int{{}}
		}
		key := make([]int, len(n.Key))
		for i := range key {
			key[i] = i
		}
		return max(card/2, 1), [][]int{key}
	case *ir.TopK:
		card, keys := estimate(n.Input)
		if len(n.Key) == 0 && n.Limit >= 0 {
			card = min(card, float64(n.Limit))
		}
		return max(card, 1), keys
	case *ir.Union:
		total := 0.0
		for _, in := range n.Inputs {
			c, _ := estimate(in)
			total += c
		}
		return total, nil
	case *ir.Join:
		l, _ := estimate(n.Left)
		rc, _ := estimate(n.Right)
		if len(n.On) == 0 {
			return l * rc, nil
		}
		return max(l, rc), nil
	}
	kids := r.Children()
	if len(kids) == 1 {
		card, _ := estimate(kids[0])
		return card, nil
	}
	return defaultRows, nil
}

// selectivity is the fraction of rows a predicate is assumed to keep:
// equality and IS NULL one in ten, anything else one in three.
func selectivity(p expr.Expr) float64 {
	switch e := p.(type) {
	case *expr.Call:
		if e.Fn.Name == "=" {
			return 0.1
		}
	case *expr.IsNull:
		if !e.Negate {
			return 0.1
		}
		return 0.9
	}
	return 1.0 / 3
}

// pinsKey reports whether p is `#c = constant` (either way round) for the
// single column c of some key, which leaves at most one row.
func pinsKey(p expr.Expr, keys [][]int) bool {
	c, ok := p.(*expr.Call)
	if !ok || c.Fn.Name != "=" || len(c.Args) != 2 {
		return false
	}
	col, isCol := c.Args[0].(*expr.Col)
	other := c.Args[1]
	if !isCol {
		col, isCol = c.Args[1].(*expr.Col)
		other = c.Args[0]
	}
	if !isCol || len(expr.Columns(other)) > 0 || expr.IsVolatile(other) {
		return false
	}
	return slices.ContainsFunc(keys, func(k []int) bool { return len(k) == 1 && k[0] == col.Idx })
}

// projectKeys maps keys through a projection, dropping those that lose a
// column.
func projectKeys(keys [][]int, cols []int) [][]int {
	var out [][]int
	for _, k := range keys {
		nk := make([]int, 0, len(k))
		for _, c := range k {
			if i := slices.Index(cols, c); i >= 0 {
				nk = append(nk, i)
			}
		}
		if len(nk) == len(k) {
			out = append(out, nk)
		}
	}
	return out
}
