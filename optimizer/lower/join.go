package lower

import (
	"github.com/eddydb/eddy/exec/dataflow"
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/optimizer/ir"
)

// joinKinds maps IR join kinds to dataflow kinds; a cross join is an inner
// join with no key.
var joinKinds = [...]dataflow.JoinKind{
	ir.JoinInner: dataflow.InnerJoin,
	ir.JoinLeft:  dataflow.LeftJoin,
	ir.JoinRight: dataflow.RightJoin,
	ir.JoinFull:  dataflow.FullJoin,
	ir.JoinCross: dataflow.InnerJoin,
}

// keyPair is one equi-join conjunct: left expression = right expression,
// each over its own input's columns.
type keyPair struct{ left, right expr.Expr }

// lowerJoin splits On into equi-join keys and a residual. Keys that are not
// plain columns are computed by an MFP appending them to their input; the
// join's output then drops those columns again so it keeps the IR's shape.
func (l *lowerer) lowerJoin(j *ir.Join) (int, error) {
	left, err := l.lower(j.Left)
	if err != nil {
		return 0, err
	}
	right, err := l.lower(j.Right)
	if err != nil {
		return 0, err
	}
	nl, nr := ir.Arity(j.Left), ir.Arity(j.Right)
	pairs, residual := splitOn(j.On, nl)
	lm, rm := newMFP(left, j.Left.ColTypes()), newMFP(right, j.Right.ColTypes())
	lk, rk := make([]int, len(pairs)), make([]int, len(pairs))
	for i, p := range pairs {
		lk[i] = keyColumn(lm, p.left)
		rk[i] = keyColumn(rm, p.right)
	}
	kl, kr := len(lm.maps), len(rm.maps)
	if kl > 0 {
		residual = shiftRight(residual, nl, kl)
	}
	ts := append(lm.outTypes(), rm.outTypes()...)
	op := dataflow.Join{Kind: joinKinds[j.Kind], LeftKey: lk, RightKey: rk, Residual: residual,
		AppendOnly: ir.AppendOnly(j)}
	out := l.add(op, ts, l.emit(lm), l.emit(rm))
	if kl == 0 && kr == 0 {
		return out, nil
	}
	proj := identity(nl)
	for c := range nr {
		proj = append(proj, nl+kl+c)
	}
	return l.add(dataflow.MFP{Project: proj}, j.ColTypes(), out), nil
}

// keyColumn returns the column of m's output holding e, appending a mapped
// column when e is not a plain column reference.
func keyColumn(m *mfp, e expr.Expr) int {
	if c, ok := e.(*expr.Col); ok {
		return c.Idx
	}
	m.maps = append(m.maps, e)
	m.proj = append(m.proj, len(m.proj))
	return len(m.proj) - 1
}

// shiftRight renumbers right-side columns (>= nl) by k in each expression.
func shiftRight(es []expr.Expr, nl, k int) []expr.Expr {
	out := make([]expr.Expr, len(es))
	for i, e := range es {
		out[i] = expr.Remap(e, func(c int) int {
			if c >= nl {
				return c + k
			}
			return c
		})
	}
	return out
}

// splitOn separates equality conjuncts whose sides reference only one input
// each (and at least one column) from the residual predicates. Right-side
// key expressions are renumbered to the right input's columns.
func splitOn(on []expr.Expr, nl int) (pairs []keyPair, residual []expr.Expr) {
	for _, e := range conjuncts(on) {
		p, ok := equiPair(e, nl)
		if !ok {
			residual = append(residual, e)
			continue
		}
		pairs = append(pairs, p)
	}
	return pairs, residual
}

// equiPair recognizes `a = b` with a over the left input and b over the
// right one (or the reverse).
func equiPair(e expr.Expr, nl int) (keyPair, bool) {
	call, ok := e.(*expr.Call)
	if !ok || call.Fn.Name != "=" || len(call.Args) != 2 {
		return keyPair{}, false
	}
	a, b := call.Args[0], call.Args[1]
	sa, sb := side(a, nl), side(b, nl)
	if sa == 'r' && sb == 'l' {
		a, b, sa, sb = b, a, sb, sa
	}
	if sa != 'l' || sb != 'r' {
		return keyPair{}, false
	}
	// bpchar's = ignores trailing blanks, and char(n) values are stored
	// padded to their column's length, so char(4) 'ab  ' must meet
	// char(6) 'ab    ' (and bpchar 'ab') under one key encoding, as must
	// arrays and records holding them (array_eq, record_eq).
	a, b = expr.BpcharKey(a), expr.BpcharKey(b)
	return keyPair{left: a, right: expr.Remap(b, func(c int) int { return c - nl })}, true
}

// side returns 'l' or 'r' when e references columns of only that input,
// and 0 when it references none or both.
func side(e expr.Expr, nl int) byte {
	cols := expr.Columns(e)
	if len(cols) == 0 {
		return 0
	}
	switch {
	case cols[len(cols)-1] < nl:
		return 'l'
	case cols[0] >= nl:
		return 'r'
	}
	return 0
}

// conjuncts flattens nested ANDs.
func conjuncts(es []expr.Expr) []expr.Expr {
	var out []expr.Expr
	for _, e := range es {
		if and, ok := e.(*expr.And); ok {
			out = append(out, conjuncts(and.Args)...)
			continue
		}
		out = append(out, e)
	}
	return out
}
