package planner

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// The calls and casts planning records for the caller's EXECUTE checks
// (Options.Calls): each call with its arguments' types as written and as
// cast (builder.call), each cast of a value to another type (coerce,
// explicitCast), shaped as PostgreSQL applies them where Eddy plans
// otherwise (an IN list, noteIn; ANY/ALL over an array, noteElemOp; the
// = of grouping keys, noteGrouping), and the columns a derived table's
// ORDER BY keeps (noteOrder), for LiveCalls.

// noteCast records a cast of e to t, planned as out, unless e already
// has type t or is a parameter.
func (b *builder) noteCast(e expr.Expr, t repr.T, out expr.Expr) {
	if lit, ok := e.(*expr.Lit); ok {
		if _, param := b.placeholders[lit]; param {
			return
		}
	}
	if c, ok := out.(*expr.Cast); !ok || c.Arg != e {
		out = nil // folded, or built otherwise: LiveCalls keeps it
	}
	b.noteCastNode(e.Type(), t, out)
}

// noteCastTypes records a cast of a value of type from to type to,
// unless they are one type.
func (b *builder) noteCastTypes(from, to repr.T) { b.noteCastNode(from, to, nil) }

// noteCastNode records a cast of a value of type from to type to, as the
// expression node (nil: none), unless they are one type.
func (b *builder) noteCastNode(from, to repr.T, node expr.Expr) {
	if b.opts.Calls == nil || from == to {
		return
	}
	*b.opts.Calls = append(*b.opts.Calls, Call{From: []repr.T{from}, To: []repr.T{to}, node: node})
}

// noteOp records a call of operator fn on arguments of types from cast
// to types to, planned as node (nil: none kept).
func (b *builder) noteOp(fn *expr.Func, from, to []repr.T, node expr.Expr) {
	if b.opts.Calls != nil {
		*b.opts.Calls = append(*b.opts.Calls, Call{Fn: fn, From: from, To: to, node: node})
	}
}

// noteElemOp records the operator x op ANY/ALL (array) applies to each
// element, which Eddy plans as one function (any_eq ...), planned as
// node: op over x's type and the array's element type, as PostgreSQL's
// ScalarArrayOpExpr.
func (b *builder) noteElemOp(op string, x, array repr.T, node expr.Expr) {
	if b.opts.Calls == nil {
		return
	}
	elem := array
	if array.Family == repr.FamArray {
		elem = array.ElemType()
	}
	if fn, want, err := expr.ResolveOp(op, []repr.T{x, elem}); err == nil {
		b.noteOp(fn, []repr.T{x, elem}, want, node)
	}
}

// noteGrouping records the equality of each type of ts that grouping
// rows (GROUP BY, DISTINCT, UNION, INTERSECT, EXCEPT) applies:
// PostgreSQL checks EXECUTE on the = it compares group keys with
// (execTuplesMatchPrepare). A type with no = records none.
func (b *builder) noteGrouping(ts []repr.T) {
	if b.opts.Calls == nil {
		return
	}
	for _, t := range ts {
		if fn, want, err := expr.ResolveOp("=", []repr.T{t, t}); err == nil {
			b.noteOp(fn, []repr.T{t, t}, want, nil)
		}
	}
}

// noteOrder records that the columns of rel a derived table's or view's
// ORDER BY sorts on count, though planning drops an ORDER BY without
// LIMIT there: PostgreSQL checks them (LiveCalls).
func (b *builder) noteOrder(rel ir.Rel, order []expr.SortCol) {
	if b.opts.Calls == nil || len(order) == 0 {
		return
	}
	cols := make([]int, len(order))
	for i, o := range order {
		cols[i] = o.Col
	}
	*b.opts.Calls = append(*b.opts.Calls, Call{rel: rel, kept: cols})
}

// noteIn records the comparisons of x IN (vs...) (or NOT IN) as
// PostgreSQL's transformAExprIn makes them: x against each value that
// reads a column, at the types of both; the other values, when more
// than one, cast to the common type of x and them and compared with x
// as one array. terms are the comparisons planned, x against each value
// cast to one type.
func (b *builder) noteIn(x expr.Expr, vs, terms []expr.Expr) {
	if b.opts.Calls == nil || len(terms) != len(vs) {
		return
	}
	var consts []int
	for i, v := range vs {
		if len(expr.Columns(v)) == 0 {
			consts = append(consts, i)
		}
	}
	arrayT, array := repr.T{}, false
	if len(consts) > 1 {
		ts := []repr.T{x.Type()}
		for _, i := range consts {
			ts = append(ts, vs[i].Type())
		}
		t, err := expr.CommonType(ts, "IN")
		arrayT, array = t, err == nil
	}
	for i, v := range vs {
		call, ok := terms[i].(*expr.Call)
		if !ok {
			continue
		}
		from := v.Type()
		if array && len(expr.Columns(v)) == 0 {
			b.noteCast(v, arrayT, nil)
			from = arrayT
		}
		*b.opts.Calls = append(*b.opts.Calls, Call{Fn: call.Fn, From: []repr.T{x.Type(), from}, To: exprTypes(call.Args), node: call})
	}
}
