package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// Window table functions in FROM, with Flink's and RisingWave's semantics:
//
//	TUMBLE(rel, t, size [, offset])      one window per row
//	HOP(rel, t, slide, size [, offset])  every window of length size
//	                                     starting at a multiple of slide
//	                                     that contains t
//	CUMULATE(rel, t, step, size [, off]) windows [s, s+k*step) for each k
//	                                     with s+k*step > t, s = t floored to size
//
// Each yields rel's columns followed by window_start and window_end (the
// type of t, timestamp or timestamptz); rows whose t is NULL are dropped.
// Windows are aligned to the Unix epoch plus offset (see
// expr.WindowFloor). The sizes must be constant intervals without months.
// No new operator is needed: TUMBLE is a Map of tumble_start(t, size),
// HOP and CUMULATE a Union of one filtered Map per window a row can be in.

// maxWindowCopies bounds the windows per row of HOP and CUMULATE (the
// plan has one branch per window).
const maxWindowCopies = 1024

// windowTVF plans a window table function in FROM.
func (b *builder) windowTVF(rf *pg_query.RangeFunction) (ir.Rel, []scopeCol, error) {
	fc, err := singleFuncCall(rf)
	if err != nil {
		return nil, nil, err
	}
	name := funcName(fc)
	want := map[string][2]int{"tumble": {3, 4}, "hop": {4, 5}, "cumulate": {4, 5}}
	nargs, ok := want[name]
	switch {
	case name == "session":
		return b.sessionTVF(rf, fc)
	case !ok:
		return nil, nil, repr.Unsupported("function %s in FROM", name).WithPosition(fc.Location + 1)
	case len(fc.Args) < nargs[0] || len(fc.Args) > nargs[1]:
		return nil, nil, repr.Errorf(repr.CodeUndefinedFunction, "%s takes %d or %d arguments, not %d",
			name, nargs[0], nargs[1], len(fc.Args)).WithPosition(fc.Location + 1)
	}
	rel, cols, err := b.windowInput(fc.Args[0])
	if err != nil {
		return nil, nil, err
	}
	tcol, err := windowTimeCol(fc.Args[1], cols)
	if err != nil {
		return nil, nil, err
	}
	sizes, err := b.windowSizes(fc.Args[2:], nargs[0]-2)
	if err != nil {
		return nil, nil, err
	}
	t := &expr.Col{Idx: tcol, T: cols[tcol].typ}
	rel = ir.NewFilter(rel, &expr.IsNull{Arg: t, Negate: true})
	var out ir.Rel
	switch name {
	case "tumble":
		out, err = b.tumble(rel, t, sizes)
	case "hop":
		out, err = b.hop(rel, t, sizes)
	default:
		out, err = b.cumulate(rel, t, sizes)
	}
	if err != nil {
		return nil, nil, err
	}
	alias := name
	var colAliases []*pg_query.Node
	if rf.Alias != nil {
		alias, colAliases = rf.Alias.Aliasname, rf.Alias.Colnames
	}
	for i := range cols {
		cols[i].table = alias
	}
	cols = append(cols, scopeCol{table: alias, name: "window_start", typ: t.T},
		scopeCol{table: alias, name: "window_end", typ: t.T})
	return out, cols, renameColumns(cols, colAliases, alias)
}

// singleFuncCall returns the one plain function call of a FROM function.
func singleFuncCall(rf *pg_query.RangeFunction) (*pg_query.FuncCall, error) {
	switch {
	case rf.Lateral:
		return nil, repr.Unsupported("LATERAL")
	case rf.Ordinality:
		return nil, repr.Unsupported("WITH ORDINALITY")
	case rf.IsRowsfrom || len(rf.Functions) != 1 || len(rf.Coldeflist) > 0:
		return nil, repr.Unsupported("ROWS FROM and column definition lists")
	}
	items := rf.Functions[0].GetList().GetItems()
	if len(items) == 0 || items[0].GetFuncCall() == nil || len(items) > 1 && items[1].GetList() != nil {
		return nil, repr.Unsupported("functions in FROM")
	}
	return items[0].GetFuncCall(), nil
}

// windowInput plans the relation a window function reads: its first
// argument names a table, view or source.
func (b *builder) windowInput(n *pg_query.Node) (ir.Rel, []scopeCol, error) {
	ref := n.GetColumnRef()
	if ref == nil || len(ref.Fields) > 2 {
		return nil, nil, repr.Unsupported("window function input other than a relation name").WithPosition(location(n) + 1)
	}
	rv := &pg_query.RangeVar{Location: ref.Location}
	rv.Relname = ref.Fields[len(ref.Fields)-1].GetString_().GetSval()
	if len(ref.Fields) == 2 {
		rv.Schemaname = ref.Fields[0].GetString_().GetSval()
	}
	return b.rangeVar(rv)
}

// windowTimeCol finds the time column named by n among cols.
func windowTimeCol(n *pg_query.Node, cols []scopeCol) (int, error) {
	ref := n.GetColumnRef()
	if ref == nil || len(ref.Fields) != 1 || ref.Fields[0].GetString_() == nil {
		return -1, repr.Unsupported("window time argument other than a column name").WithPosition(location(n) + 1)
	}
	name := ref.Fields[0].GetString_().Sval
	for i, c := range cols {
		if c.name != name {
			continue
		}
		if c.typ.Family != repr.FamTimestamp && c.typ.Family != repr.FamTimestampTZ {
			return -1, repr.Errorf(repr.CodeDatatypeMismatch, "window time column %q must be timestamp or timestamptz, not %s",
				name, c.typ.Name()).WithPosition(ref.Location + 1)
		}
		return i, nil
	}
	return -1, repr.Errorf(repr.CodeUndefinedColumn, "column %q does not exist", name).WithPosition(ref.Location + 1)
}

// windowSizes evaluates the constant interval arguments to microseconds:
// nSizes positive sizes (or slides, steps), then an optional offset.
func (b *builder) windowSizes(args []*pg_query.Node, nSizes int) ([]int64, error) {
	ec := &ectx{b: b, sc: &scope{}, rel: unitRel(), clause: "window function arguments", noSubquery: true}
	out := make([]int64, len(args))
	for i, n := range args {
		e, err := ec.expr(n)
		if err != nil {
			return nil, err
		}
		if e, err = b.coerce(e, repr.IntervalT); err != nil {
			return nil, withPos(err, location(n))
		}
		lit, ok := expr.Fold(e).(*expr.Lit)
		if !ok || lit.D.IsNull() {
			return nil, repr.Unsupported("window sizes other than constant intervals").WithPosition(location(n) + 1)
		}
		what := "size"
		if i >= nSizes {
			what = "offset"
		}
		if out[i], err = expr.WindowMicros(lit.D.Interval(), what); err != nil {
			return nil, withPos(err, location(n))
		}
		if out[i] <= 0 && i < nSizes {
			return nil, repr.Errorf(repr.CodeInvalidParameter, "window size must be positive").WithPosition(location(n) + 1)
		}
	}
	return out, nil
}

// intervalLit is a constant interval of us microseconds.
func intervalLit(us int64) expr.Expr {
	return &expr.Lit{D: repr.NewInterval(repr.Interval{Micros: us}), T: repr.IntervalT}
}

// windowStart is tumble_start(t, size [, offset]) minus back (> 0: the
// window back*1 earlier, for HOP's older windows).
func (b *builder) windowStart(t *expr.Col, size, offset, back int64) (expr.Expr, error) {
	ec := &ectx{b: b, sc: &scope{}, rel: unitRel()}
	args := []expr.Expr{t, intervalLit(size)}
	if offset != 0 {
		args = append(args, intervalLit(offset))
	}
	ws, err := ec.function("tumble_start", args, -1)
	if err != nil || back == 0 {
		return ws, err
	}
	return ec.op("-", -1, ws, intervalLit(back))
}

// windowMap appends window_start := start and window_end := start + length
// to rel, keeping only rows with t < window_end when filter is set.
func (b *builder) windowMap(rel ir.Rel, t *expr.Col, start expr.Expr, length int64, filter bool) (ir.Rel, error) {
	ec := &ectx{b: b, sc: &scope{}, rel: unitRel()}
	n := ir.Arity(rel)
	ws := &expr.Col{Idx: n, T: t.T}
	we, err := ec.op("+", -1, ws, intervalLit(length))
	if err != nil {
		return nil, err
	}
	out := ir.NewMap(rel, start, we)
	if !filter {
		return out, nil
	}
	lt, err := ec.op("<", -1, t, &expr.Col{Idx: n + 1, T: t.T})
	if err != nil {
		return nil, err
	}
	return ir.NewFilter(out, lt), nil
}

// tumble maps each row to its one window.
func (b *builder) tumble(rel ir.Rel, t *expr.Col, sizes []int64) (ir.Rel, error) {
	var off int64
	if len(sizes) > 1 {
		off = sizes[1]
	}
	ws, err := b.windowStart(t, sizes[0], off, 0)
	if err != nil {
		return nil, err
	}
	return b.windowMap(rel, t, ws, sizes[0], false)
}

// hop unions ceil(size/slide) copies of rel; copy i holds each row's
// window starting i slides before the latest window start at or before t.
// Copy i needs the filter t < window_end only when (i+1)*slide > size:
// t is before the latest start plus slide, so window i, which ends
// size - i*slide after that start, holds t whenever (i+1)*slide <= size
// (every copy when size is a multiple of slide, as in Nexmark q5). Rows
// with a NULL t are already gone, so dropping the filter keeps the rows,
// and each branch evaluates one subtraction per row instead of two
// shifts and a comparison.
func (b *builder) hop(rel ir.Rel, t *expr.Col, sizes []int64) (ir.Rel, error) {
	slide, size := sizes[0], sizes[1]
	var off int64
	if len(sizes) > 2 {
		off = sizes[2]
	}
	n := (size + slide - 1) / slide
	if n > maxWindowCopies {
		return nil, repr.Unsupported("HOP with more than %d windows per row", maxWindowCopies)
	}
	var copies []ir.Rel
	for i := range n {
		ws, err := b.windowStart(t, slide, off, i*slide)
		if err != nil {
			return nil, err
		}
		c, err := b.windowMap(rel, t, ws, size, (i+1)*slide > size)
		if err != nil {
			return nil, err
		}
		copies = append(copies, c)
	}
	return unionAll(copies), nil
}

// cumulate unions size/step copies of rel; copy k holds each row's window
// [s, s+k*step) where s is t floored to size, if it contains t.
func (b *builder) cumulate(rel ir.Rel, t *expr.Col, sizes []int64) (ir.Rel, error) {
	step, size := sizes[0], sizes[1]
	var off int64
	if len(sizes) > 2 {
		off = sizes[2]
	}
	if size%step != 0 {
		return nil, repr.Errorf(repr.CodeInvalidParameter, "CUMULATE window size must be an integral multiple of the step")
	}
	n := size / step
	if n > maxWindowCopies {
		return nil, repr.Unsupported("CUMULATE with more than %d windows per row", maxWindowCopies)
	}
	var copies []ir.Rel
	for k := int64(1); k <= n; k++ {
		ws, err := b.windowStart(t, size, off, 0)
		if err != nil {
			return nil, err
		}
		c, err := b.windowMap(rel, t, ws, k*step, k < n)
		if err != nil {
			return nil, err
		}
		copies = append(copies, c)
	}
	return unionAll(copies), nil
}

// unionAll is the union of rels (the one rel itself when alone).
func unionAll(rels []ir.Rel) ir.Rel {
	if len(rels) == 1 {
		return rels[0]
	}
	return &ir.Union{Inputs: rels}
}
