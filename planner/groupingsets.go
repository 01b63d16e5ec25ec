package planner

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// GROUP BY with GROUPING SETS, ROLLUP and CUBE. The GROUP BY list expands
// into grouping sets (the cartesian product of its items' sets, as in
// PostgreSQL: GROUP BY a, ROLLUP (b, c) is {a b c} {a b} {a}). Each set is
// one Reduce keyed by its columns; the keys a set does not group by are
// NULL in its rows, and a last hidden column holds the set's grouping bits
// (bit i set when key i is absent), which grouping() reads. The Reduces
// are unioned, so the aggregated relation has the layout a plain GROUP BY
// has, plus that column. Each Reduce keeps its own groups' state.

// groupSets expands sel's GROUP BY items into grouping sets of key nodes.
// plain reports that no item is a grouping-set construct (one set of all
// items).
func groupSets(sel *pg_query.SelectStmt, targets []target, sc *scope) (sets [][]*pg_query.Node, plain bool, err error) {
	sets, plain = [][]*pg_query.Node{{}}, true
	for _, g := range sel.GroupClause {
		var item [][]*pg_query.Node
		if gs := g.GetGroupingSet(); gs != nil {
			plain = false
			if item, err = expandGroupingSet(gs, targets, sc); err != nil {
				return nil, false, err
			}
		} else {
			n, err := groupKeyNode(g, targets, sc)
			if err != nil {
				return nil, false, err
			}
			item = [][]*pg_query.Node{{n}}
		}
		var product [][]*pg_query.Node
		for _, s := range sets {
			for _, t := range item {
				product = append(product, append(append([]*pg_query.Node(nil), s...), t...))
			}
		}
		if len(product) > 4096 {
			return nil, false, repr.Errorf("54001", "too many grouping sets present (maximum 4096)")
		}
		sets = product
	}
	return sets, plain, nil
}

// expandGroupingSet returns the sets of one GROUPING SETS, ROLLUP or CUBE
// item (or an empty set ()).
func expandGroupingSet(gs *pg_query.GroupingSet, targets []target, sc *scope) ([][]*pg_query.Node, error) {
	var elems [][]*pg_query.Node // each element: the keys it stands for
	for _, c := range gs.Content {
		if gs.Kind == pg_query.GroupingSetKind_GROUPING_SET_SETS {
			if inner := c.GetGroupingSet(); inner != nil {
				sub, err := expandGroupingSet(inner, targets, sc)
				if err != nil {
					return nil, err
				}
				elems = append(elems, sub...)
				continue
			}
		}
		var keys []*pg_query.Node
		parts := []*pg_query.Node{c}
		if row := c.GetRowExpr(); row != nil {
			parts = row.Args
		}
		for _, p := range parts {
			n, err := groupKeyNode(p, targets, sc)
			if err != nil {
				return nil, err
			}
			keys = append(keys, n)
		}
		elems = append(elems, keys)
	}
	switch gs.Kind {
	case pg_query.GroupingSetKind_GROUPING_SET_EMPTY:
		return [][]*pg_query.Node{{}}, nil
	case pg_query.GroupingSetKind_GROUPING_SET_SETS:
		return elems, nil
	case pg_query.GroupingSetKind_GROUPING_SET_ROLLUP:
		var out [][]*pg_query.Node
		for n := len(elems); n >= 0; n-- {
			out = append(out, concatNodes(elems[:n]))
		}
		return out, nil
	case pg_query.GroupingSetKind_GROUPING_SET_CUBE:
		if len(elems) > 12 {
			return nil, repr.Errorf("54001", "CUBE is limited to 12 elements")
		}
		var out [][]*pg_query.Node
		for mask := (1 << len(elems)) - 1; mask >= 0; mask-- {
			var pick [][]*pg_query.Node
			for i := range elems {
				if mask&(1<<(len(elems)-1-i)) != 0 {
					pick = append(pick, elems[i])
				}
			}
			out = append(out, concatNodes(pick))
		}
		return out, nil
	}
	return nil, repr.Unsupported("grouping set kind %s", gs.Kind)
}

// concatNodes concatenates lists of nodes.
func concatNodes(ls [][]*pg_query.Node) []*pg_query.Node {
	out := []*pg_query.Node{}
	for _, l := range ls {
		out = append(out, l...)
	}
	return out
}

// groupingSetsRel builds the union of one Reduce per grouping set (sets
// hold indices into key, the Reduce key columns of the keys after the
// outer values) over in, in the layout of a plain GROUP BY of every key
// plus the grouping bits column. In a decorrelated subquery, fill turns
// the Reduce of an empty grouping set into one row per outer value, as a
// plain aggregate without GROUP BY (fillGroups).
func groupingSetsRel(in ir.Rel, nOuter int, key []int, sets [][]int, aggs []expr.Agg, direct func(set []int, col int) expr.Expr, fill func(ir.Rel) ir.Rel) ir.Rel {
	ts := in.ColTypes()
	var branches []ir.Rel
	for _, set := range sets {
		red := &ir.Reduce{Input: in, Key: identityCols(nOuter), Aggs: aggs}
		pos := map[int]int{}
		for _, k := range set {
			if _, dup := pos[k]; !dup {
				pos[k] = len(red.Key)
				red.Key = append(red.Key, key[nOuter+k])
			}
		}
		d := setDirectKeys(red, set, direct)
		n := len(red.Key) - d
		var grouped ir.Rel = red
		if d > 0 { // the direct arguments' key columns go
			cols := identityCols(n)
			for i := range aggs {
				cols = append(cols, n+d+i)
			}
			grouped = ir.NewProject(red, cols...)
		}
		if n == nOuter && (nOuter > 0 || d > 0) {
			// The empty set's one row (per outer value), which keying by a
			// direct argument would lose on empty input.
			grouped = fill(grouped)
		}
		proj := identityCols(nOuter)
		var maps []expr.Expr
		bits := int64(0)
		for i := range len(key) - nOuter {
			if p, ok := pos[i]; ok {
				proj = append(proj, p)
				continue
			}
			bits |= 1 << i
			maps = append(maps, &expr.Lit{D: repr.Null, T: ts[key[nOuter+i]]})
			proj = append(proj, n+len(aggs)+len(maps)-1)
		}
		for i := range aggs {
			proj = append(proj, n+i)
		}
		maps = append(maps, &expr.Lit{D: repr.NewInt(bits), T: repr.Int8})
		proj = append(proj, n+len(aggs)+len(maps)-1)
		branches = append(branches, ir.NewProject(ir.NewMap(grouped, maps...), proj...))
	}
	return ir.NewUnion(branches...)
}

// setDirectKeys keys red, the Reduce of one grouping set, by each
// per-group direct argument (expr.Agg.DirectKey) as the set's groups see
// it: direct(set, col) is the argument with the keys the set does not
// group by as NULL, as PostgreSQL evaluates it for the set's rows, computed
// by a Map over red's input. The columns follow the set's keys; it
// returns how many there are.
func setDirectKeys(red *ir.Reduce, set []int, direct func(set []int, col int) expr.Expr) int {
	var maps []expr.Expr
	width := ir.Arity(red.Input)
	red.Aggs = slices.Clone(red.Aggs)
	for i, a := range red.Aggs {
		if !a.DirectKey {
			continue
		}
		maps = append(maps, direct(set, a.DirectCol))
		red.Aggs[i].DirectCol = width + len(maps) - 1
		red.Key = append(red.Key, red.Aggs[i].DirectCol)
	}
	red.Input = ir.NewMap(red.Input, maps...)
	return len(maps)
}

// setDirect returns the direct function of groupingSetsRel for a Reduce
// input of from's columns then maps, grouped by keys (expressions over
// from's columns).
func setDirect(from ir.Rel, maps, keys []expr.Expr) func(set []int, col int) expr.Expr {
	base := ir.Arity(from)
	ts := from.ColTypes()
	return func(set []int, col int) expr.Expr {
		var e expr.Expr
		if col < base {
			e = &expr.Col{Idx: col, T: ts[col]}
		} else {
			e = maps[col-base]
		}
		for i, k := range keys {
			if !slices.Contains(set, i) {
				e = replaceSubexpr(e, k.String(), &expr.Lit{D: repr.Null, T: k.Type()})
			}
		}
		return e
	}
}

// replaceSubexpr returns e with every subexpression printed as s replaced
// by with.
func replaceSubexpr(e expr.Expr, s string, with expr.Expr) expr.Expr {
	if e.String() == s {
		return with
	}
	kids := expr.Children(e)
	if len(kids) == 0 {
		return e
	}
	out := make([]expr.Expr, len(kids))
	for i, k := range kids {
		out[i] = replaceSubexpr(k, s, with)
	}
	return expr.WithChildren(e, out)
}

// groupingFunc builds grouping(args): for each argument, which must be a
// grouping key, a bit that is 1 when the row's grouping set does not group
// by it, the first argument the most significant (PostgreSQL's order).
func (c *ectx) groupingFunc(gf *pg_query.GroupingFunc) (expr.Expr, error) {
	g := c.grp
	if len(gf.Args) > 31 {
		return nil, repr.Errorf("54023", "GROUPING must have fewer than 32 arguments").WithPosition(gf.Location + 1)
	}
	pre := &ectx{b: c.b, sc: g.from, rel: g.fromRel, clause: "GROUPING", noSubquery: true}
	var sum expr.Expr = &expr.Lit{D: repr.NewInt(0), T: repr.Int4}
	for j, a := range gf.Args {
		e, err := pre.expr(a)
		if err != nil {
			return nil, err
		}
		idx := -1
		for i, k := range g.keys {
			if k == e.String() {
				idx = i
			}
		}
		if idx < 0 {
			return nil, repr.Errorf(repr.CodeGrouping, "arguments to GROUPING must be grouping expressions of the associated query level").WithPosition(gf.Location + 1)
		}
		if g.bitsCol < 0 {
			continue // a plain GROUP BY groups by every key: all bits 0
		}
		shifted, err := c.op("/", -1, &expr.Col{Idx: g.bitsCol, T: repr.Int8}, int8Lit(1<<idx))
		if err != nil {
			return nil, err
		}
		bit, err := c.op("%", -1, shifted, int8Lit(2))
		if err != nil {
			return nil, err
		}
		weighted, err := c.op("*", -1, bit, int8Lit(1<<(len(gf.Args)-1-j)))
		if err != nil {
			return nil, err
		}
		if sum, err = c.op("+", -1, sum, weighted); err != nil {
			return nil, err
		}
	}
	if sum.Type() != repr.Int4 {
		return c.b.internalCast(sum, repr.Int4, gf.Location)
	}
	return sum, nil
}

// int8Lit is a bigint literal.
func int8Lit(v int64) expr.Expr { return &expr.Lit{D: repr.NewInt(v), T: repr.Int8} }
